"""Selectors as specs write them: pipe fallback (`a | b | c`) and child scope (`scope >> selector`).

`split_pipe` and `scoped` are pure; `locate` finds a selector's matches on a Playwright page or
frame for the browser layer (`Page.match` is what the rest of flowwalk asks).

A selector is a Playwright selector: CSS, `text=`, `role=` and its other engines (XPath is
refused when specs load). A pipe fallback lists alternatives; the first alternative that matches
anything wins. A `|` inside quotes, brackets or parentheses belongs to the selector
(`[lang|=en]`, `text="a | b"`, `:is(a, b)`), so it is never a separator. A rule's child scope
prefixes each alternative with `scope >> `, and `.` as a selector means the scope element itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.errors import InvalidSelector, first_line, unparsed

if TYPE_CHECKING:
    from playwright.sync_api import Locator

__all__ = ["Located", "locate", "scoped", "split_pipe"]


def split_pipe(selector: str) -> list[str]:
    """`"a | b | c"` -> `["a", "b", "c"]`; empty alternatives are dropped."""
    parts = _split(selector, quotes=True)
    if parts is None:   # an apostrophe that opens no string (`text=it's | .x`): quotes are text
        parts = _split(selector, quotes=False) or []
    return [p for p in parts if p]


def _split(selector: str, quotes: bool) -> list[str] | None:
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    depth = 0
    escaped = False
    for ch in selector:
        if escaped:
            current.append(ch)
            escaped = False
            continue
        if ch == "\\":
            current.append(ch)
            escaped = True
            continue
        if quote:
            if ch == quote:
                quote = None
            current.append(ch)
            continue
        if ch in "\"'" and quotes:
            quote = ch
        elif ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(0, depth - 1)
        elif ch == "|" and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    if quote:
        return None
    parts.append("".join(current).strip())
    return parts


def scoped(selector: str, scope: str | None) -> str:
    """`"scope >> selector"` for each pipe alternative (each scope alternative, too)."""
    if not scope or not scope.strip():
        return selector
    scopes = split_pipe(scope) or [scope.strip()]
    out: list[str] = []
    for alt in split_pipe(selector) or [selector.strip()]:
        for sc in scopes:
            out.append(sc if alt == "." else f"{sc} >> {alt}")
    return " | ".join(out)


@dataclass(frozen=True)
class Located:
    """The outcome of a pipe fallback: the locator to use, which alternative, how many matched."""

    locator: "Locator"
    used: str
    count: int
    tried: list[str] = field(default_factory=list)
    #: what `ask` answered for the alternative used (the first one when none matched; None without
    #: an `ask`)
    answer: Any = None


def locate(page: Any, selector: str, scope: str | None = None, *, ask: str | None = None,
           ask_arg: Any = None) -> Located:
    """Resolve a (pipe, scoped) selector on a page or frame: the first alternative with matches.

    When none match, `count` is 0 and `locator` is the first alternative's (so a caller can still
    wait on it). Raises `InvalidSelector` for an alternative Playwright cannot parse, and
    Playwright's own errors otherwise (the caller translates them: `Page.match`).

    `ask`, a JS function of the matched elements returning `{n: count, ...}`, replaces the count
    with one `evaluate_all` in the same round trip, so a caller learns more about the match (the
    healer's fingerprint, heal/fingerprint.py) at no extra round trip; `ask_arg` is its second
    argument. When nothing matches, `answer` is what the first alternative answered.
    """
    alternatives = split_pipe(scoped(selector, scope)) or [selector]
    tried: list[str] = []
    first = None
    first_answer = None
    for alt in alternatives:
        locator = page.locator(alt)
        answer = None
        try:
            if ask is None:
                count = locator.count()
            else:
                answer = locator.evaluate_all(ask, ask_arg)
                count = int(answer.get("n", 0)) if isinstance(answer, dict) else 0
        except PlaywrightError as exc:
            if unparsed(exc):
                raise InvalidSelector(alt, first_line(exc)) from exc
            raise
        tried.append(alt)
        if first is None:
            first, first_answer = locator, answer
        if count > 0:
            return Located(locator=locator, used=alt, count=count, tried=tried, answer=answer)
    assert first is not None
    return Located(locator=first, used=alternatives[0], count=0, tried=tried, answer=first_answer)
