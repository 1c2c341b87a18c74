"""Scores for healing: how much a page element looks like the fingerprint, and when a heal is allowed.

`similarity(old, new)` compares two fingerprints feature by feature, Healenium-style (a weighted
sum of per-feature similarities, no model). Only features the old fingerprint has count, so an
element that gained an id is not punished and one that lost its test id is:

| feature | weight | how two values compare |
|---|---|---|
| tag | 1.0 | equal or not |
| id | 2.0 | equal 1; else the longest-common-subsequence ratio of the two, times 0.8 |
| test id | 2.0 | as id |
| name attribute | 1.5 | as id |
| role | 1.0 | equal or not |
| accessible name | 2.0 | word overlap (Jaccard), 1 when equal ignoring case and punctuation; with the title when the title is not the name (js/fingerprint.js) |
| text | 1.5 | as accessible name |
| classes | 1.0 | Jaccard of the class sets |
| type | 0.5 | equal or not |
| href | 1.0 | as id |
| ancestors | 1.5 | position-wise match of the ancestor path (tag, id, classes) |
| context | 1.5 | as accessible name: the text around it |
| nth | 0.5 | same position among same-tag siblings |

`combine(d, f)` merges the description score `d` (heal/meaning.py `meaning_score`, 0..1) and the
fingerprint score `f`: the larger, plus AGREEMENT times the smaller when both found the element
(so the description decides between elements that look alike). A candidate is used only if its combined score is at least THRESHOLD, it is one visible
element, and it leads the next visible element that can take the step's action by at least MARGIN.
docs/healing.md has the why.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any, Mapping

__all__ = ["similarity", "combine", "THRESHOLD", "MARGIN", "AGREEMENT", "WEIGHTS"]

THRESHOLD = 0.65
MARGIN = 0.10
AGREEMENT = 0.10

WEIGHTS: dict[str, float] = {
    "tag": 1.0, "id": 2.0, "testid": 2.0, "name": 1.5, "role": 1.0, "aname": 2.0, "text": 1.5,
    "classes": 1.0, "type": 0.5, "href": 1.0, "ancestors": 1.5, "nth": 0.5, "context": 1.5,
}
_EQUAL = ("tag", "role", "type")
_STRINGS = ("id", "testid", "name", "href")
_WORDS = ("aname", "text", "context")


def _ratio(a: str, b: str) -> float:
    if a == b:
        return 1.0
    return 0.8 * SequenceMatcher(None, a.lower(), b.lower(), autojunk=False).ratio()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", text.lower()))


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _node(text: str) -> tuple[str, str, set[str]]:
    tag, _, rest = text.partition("#") if "#" in text.split(".")[0] else (text.split(".")[0], "", "")
    if rest:
        ident, *classes = rest.split(".")
    else:
        ident, classes = "", text.split(".")[1:]
    return tag, ident, set(classes)


def _path(a: list[str], b: list[str]) -> float:
    """Position-wise: the parent counts most (1/1, then 1/2, 1/3 ...), each node by tag, id, classes."""
    total = score = 0.0
    for depth, old in enumerate(a):
        weight = 1.0 / (depth + 1)
        total += weight
        if depth >= len(b):
            continue
        if old == b[depth]:
            score += weight
            continue
        (ot, oi, oc), (nt, ni, nc) = _node(old), _node(b[depth])
        part = 0.4 * (ot == nt) + 0.3 * (oi == ni if oi or ni else 1.0) + 0.3 * (_jaccard(oc, nc) if oc or nc else 1.0)
        score += weight * part
    return score / total if total else 1.0


def similarity(old: Mapping[str, Any], new: Mapping[str, Any]) -> float:
    """0..1: how much `new` looks like the element `old` was fingerprinted from."""
    total = score = 0.0
    for key, weight in WEIGHTS.items():
        was = old.get(key)
        if was in (None, "", []) or (key == "nth" and not isinstance(was, int)):
            continue
        now = new.get(key)
        if key in _EQUAL:
            part = 1.0 if was == now else 0.0
        elif key in _STRINGS:
            part = _ratio(str(was), str(now)) if now else 0.0
        elif key in _WORDS:
            ow, nw = _words(str(was)), _words(str(now or ""))
            part = 1.0 if ow == nw else _jaccard(ow, nw)
        elif key == "classes":
            part = _jaccard(set(was), set(now or []))
        elif key == "ancestors":
            part = _path(list(was), list(now or []))
        else:  # nth
            part = 1.0 if was == now else 0.0
        total += weight
        score += weight * part
    return round(score / total, 3) if total else 0.0


def combine(d: float | None, f: float | None) -> float:
    """The candidate's score from the description score `d` and the fingerprint score `f` (0..1).

    Not capped at 1: the ranking and the margin use it as is (a heal records at most 1.0)."""
    if d is None:
        return 0.0 if f is None else round(min(1.0, f), 3)
    if f is None:
        return round(d, 3)
    return round(max(d, f) + AGREEMENT * min(d, f), 3)
