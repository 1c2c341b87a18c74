"""A "did you mean" for a word that is not one of the choices, shared by every spec format's errors.

Kept apart from problems.py (which needs pydantic) so that the `.robot` loader can use it too.
"""

from __future__ import annotations

import difflib
import re

__all__ = ["choices_hint", "did_you_mean"]


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """A close choice, by spelling or by a shared word (`wait_for_selectr` -> `for`)."""
    word_l = word.lower()
    # a ratio of 0.6 needs len(word) <= 2.33 x len(choice): skip difflib's index of a huge word (a
    # 500 kB value cost 74 MiB and half a second, found by the loading fuzz); results are unchanged
    close = (difflib.get_close_matches(word_l, [c.lower() for c in choices], n=1, cutoff=0.6)
             if len(word_l) <= 3 * max(map(len, choices), default=0) else [])
    if close:
        for choice in choices:
            if choice.lower() == close[0]:
                return choice
    parts = set(re.split(r"[_\-\s.]+", word_l))
    for choice in choices:
        if choice.lower() in parts:
            return choice
    for choice in choices:
        if len(choice) >= 4 and choice.lower() in word_l:
            return choice
    return ""


def choices_hint(word: str, choices: list[str] | tuple[str, ...], label: str, suffix: str = "") -> str:
    """`did you mean 'fill'? valid actions: click, fill, press`: the guess, when there is one, then every
    choice (each with `suffix`, as in `await=`)."""
    guess = did_you_mean(word, choices)
    listed = f"{label}: {', '.join(c + suffix for c in choices)}"
    return f"did you mean '{guess}{suffix}'? {listed}" if guess else listed
