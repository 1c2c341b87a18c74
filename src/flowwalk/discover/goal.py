"""`--goal "create a book"`: what the crawl reaches first, matched by words (no model needed).

The goal's words (less the small ones, each with the words a site uses for it: create = add =
new, edit = change = update, find = search, ...) are matched, as whole words and singular, against
a link's or a button's name and href and a page's path, title and headings. `score` counts the
goal's words a text holds; the crawl queues a link that scores before the others (the best first)
and explores the journeys of the pages that score first.
"""

from __future__ import annotations

import re

from flowwalk.discover.state import CrawledPage

__all__ = ["goal_words", "score", "page_score"]

_SMALL = frozenset("a an the to of for in on my our your and or with by at from it".split())
_SAME = (frozenset({"create", "add", "new"}), frozenset({"edit", "change", "update", "modify"}),
         frozenset({"find", "search", "filter", "look"}), frozenset({"delete", "remove"}),
         frozenset({"list", "browse", "view", "all"}), frozenset({"sign", "log", "login", "signin"}),
         frozenset({"upload", "import"}))


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _words(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower())}


def goal_words(goal: str) -> tuple[frozenset[str], ...]:
    """Each word of the goal as the set of words that say it."""
    out = []
    for word in sorted(_words(goal) - _SMALL):
        same = next((group for group in _SAME if word in group), frozenset({word}))
        out.append(same)
    return tuple(out)


def score(goal: tuple[frozenset[str], ...], text: str) -> int:
    """How many of the goal's words `text` says."""
    said = _words(text)
    return sum(1 for word in goal if word & said)


def page_score(goal: tuple[frozenset[str], ...], page: CrawledPage) -> int:
    headings = " ".join(h.text for h in page.survey.headings)
    return score(goal, f"{page.path} {page.title} {headings}")
