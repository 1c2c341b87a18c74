"""The page-reading boundary: every read flowwalk takes of a page, typed, with its errors translated.

`PageReader` wraps a Playwright page or frame. Each method is one read (one round trip unless it
says otherwise) and returns a dataclass; each Playwright error it meets leaves translated once
(`browser.errors.translated`: `PageGone`, `TimedOut`, `PageUnreadable`, `InvalidSelector`). What a read
means for a check, a heal or a resolution is judged by the caller (walk/, heal/, discover/), from
these records alone, so the judges are tested from recorded reads without a browser (the
`Reader` protocol is what they need; tests/unit hand them a fake).

Every script flowwalk injects to read a page starts with one prelude, `js/prelude.js`, so there is
one answer to what is visible, offered (visible and usable), text, disabled, an element's id and how
long the page has been still (a `fw` object in the script; prelude.js says what each one means).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, Union

from flowwalk.browser.errors import translating
from flowwalk.browser.locate import locate
from flowwalk.browser.scripts import compose, script

if TYPE_CHECKING:
    # the Playwright types the rest of flowwalk names (walk/ imports no Playwright, not even for types)
    from playwright.sync_api import Frame, Locator
    from playwright.sync_api import Page as Page

    #: what a reader reads: a page, or one of its frames
    Where = Union[Page, Frame]
    #: an element an act works on (a Playwright locator)
    Element = Locator

__all__ = ["CandidatesRead", "ElementQuery", "ElementRead", "FrameName", "Inspection", "Match", "PROBE_JS", "PageReader",
           "Quiet", "Reader", "Seen", "Seq", "UrlState", "gated"]

# --- the scripts (browser/js/, put together by browser/scripts.py) -----------------------------------

#: for `locate(..., probe=PROBE_JS)`: the count the walker needs and the first match's fingerprint,
#: in the one round trip the count took on its own
PROBE_JS = "(els) => ({ n: els.length, fp: els.length ? (" + script("fingerprint") + ")(els[0]) : null })"
_OWNS_JS = compose("/* global fw */ (el, id) => { return fw.hasId(el, id); }")
_SELECTED_JS = "el => Array.from(el.selectedOptions || []).map(o => [o.value, o.label])"
_BODY_TEXT_JS = "(n) => (document.body ? document.body.innerText : '').slice(0, n)"
_URL_JS = "() => location.href"
_URL_STATE_JS = compose("/* global fw */ () => { return { url: location.href, quiet: fw.quiet('dom') }; }")


def gated(probe: str | None) -> str:
    """A `locate` probe that also asks `PageReader.may_show` of the CSS selectors given as its
    argument, in the same round trip: `{n, gate: [True|False|None per selector], ...probe's}`.
    An act's count and its interrupts' gate are then one read instead of two."""
    inner = probe or "(els) => ({ n: els.length })"
    return f"(els, gate) => Object.assign(({inner})(els), {{ gate: ({script('may_show')})(gate) }})"


# --- the records ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ElementQuery:
    """What one read of a selector's matches asks (`PageReader.elements`).

    `kind`: `count` (only how many), `text` (the first match whose text contains `value`,
    case-insensitive), `exact_text` (whose text is exactly `value`), `texts` (the first 20
    matches' texts), `visible` (how many are visible), `disabled`, `checked`, `value` (the
    first match's input value) or `attribute` (the first match's attribute `attr`). `quiet`: also
    how long the page has been still (`Quiet`): '' (not asked), 'dom' or 'layout'.
    """

    kind: str
    value: str = ""
    attr: str = ""
    quiet: str = ""


@dataclass(frozen=True)
class Seq:
    """Where a read stood in the page's record of changes: its count, and the page's clock (ms)."""

    n: int
    at: float

    @classmethod
    def of(cls, raw: Any) -> "Seq | None":
        if not isinstance(raw, Mapping) or not isinstance(raw.get("n"), (int, float)):
            return None
        return cls(n=int(raw["n"]), at=float(raw.get("at") or 0.0))


@dataclass(frozen=True)
class Quiet:
    """How long the page had been still when it was read (`fw.quiet`, see the module docstring)."""

    #: ms since the last DOM mutation, input or change event, or URL change
    ms: float
    #: ms since the last URL change
    url_ms: float
    #: 'layout' reads only: an animation or a transition was running
    animating: bool = False
    #: 'layout' reads only: the document, its fonts and its images had finished loading
    settled: bool = True

    @classmethod
    def of(cls, raw: Any) -> "Quiet | None":
        """None when the page has no record (a document the init script did not reach)."""
        if not isinstance(raw, Mapping) or raw.get("ms") is None:
            return None
        return cls(ms=float(raw["ms"]), url_ms=float(raw.get("url_ms", raw["ms"])),
                   animating=bool(raw.get("animating", False)), settled=bool(raw.get("settled", True)))


@dataclass(frozen=True)
class UrlState:
    """The document's URL and how long it has been that URL (`PageReader.url_state`)."""

    url: str
    quiet: Quiet | None


@dataclass(frozen=True)
class ElementRead:
    """One read of a selector's matches: how many, and what the query asked about them."""

    #: how many elements match
    n: int
    #: text / exact_text: a match has the text; `text` is the snippet around it, or the first
    #: match's text (clipped) when none has it
    hit: bool = False
    text: str = ""
    #: texts: the first 20 matches' texts
    texts: tuple[str, ...] = ()
    #: visible: how many matches are visible
    visible: int = 0
    #: disabled: the first match is disabled (None without a match)
    disabled: bool | None = None
    #: disabled, value: the first match's tag
    tag: str = ""
    #: checked: 'checked', 'unchecked', 'mixed' or 'not checkable' (None without a match)
    checked: str | None = None
    #: value: the first match's input value (None when it has none); attribute: its value (None
    #: when the attribute is absent)
    value: str | None = None
    #: when the query asked (`ElementQuery.quiet`): how long the page had been still
    quiet: Quiet | None = None
    #: the page's change count at this read (`PageReader.changed`); None without a record
    seq: Seq | None = None

    @classmethod
    def of(cls, raw: Any) -> "ElementRead":
        """The record of what `js/elements.js` returned."""
        r = raw if isinstance(raw, Mapping) else {}
        value = r.get("value")
        disabled = r.get("disabled")
        checked = r.get("checked")
        return cls(n=int(r.get("n", 0) or 0), hit=bool(r.get("hit")), text=str(r.get("text", "")),
                   texts=tuple(str(t) for t in r.get("texts", ()) or ()), visible=int(r.get("visible", 0) or 0),
                   disabled=None if disabled is None else bool(disabled), tag=str(r.get("tag") or ""),
                   checked=None if checked is None else str(checked),
                   value=None if value is None else str(value), quiet=Quiet.of(r.get("quiet")),
                   seq=Seq.of(r.get("seq")))


@dataclass(frozen=True)
class Seen:
    """An element a target re-resolution found: its id, and how it looks."""

    id: int
    visible: bool
    enabled: bool
    role: str


@dataclass(frozen=True)
class Inspection:
    """A selector's matches as re-resolution ranks them: the count and the first few, looked at."""

    count: int
    items: tuple[Seen, ...]


@dataclass(frozen=True)
class CandidatesRead:
    """The healer's read of one page or frame: the best elements as plain records (heal/meaning.py
    `PageElement.from_record` reads and checks them) and how many elements were looked at."""

    items: tuple[Mapping[str, Any], ...]
    scanned: int


@dataclass(frozen=True)
class Match:
    """A (pipe, scoped) selector's outcome: the alternative used, how many it matches, what was tried."""

    used: str
    count: int
    tried: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class FrameName:
    """A frame's name and URL, for a message that names it."""

    name: str
    url: str


class Reader(Protocol):
    """What the judges read a page through: `PageReader`, or a test's recorded reads."""

    def url(self) -> str: ...

    def url_state(self) -> UrlState: ...

    def elements(self, selector: str, query: ElementQuery) -> ElementRead: ...

    def child_frames(self, limit: int) -> list["Reader"]: ...

    def detached(self) -> bool: ...

    def frame_name(self) -> FrameName | None: ...

    def inspect(self, selector: str, limit: int) -> Inspection: ...

    def near(self, selector: str, css: str) -> list[str]: ...

    def match(self, selector: str, scope: str | None = None) -> Match: ...

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None: ...

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool: ...

    def body_text(self, limit: int) -> str: ...


# --- the reader -----------------------------------------------------------------------------------


class PageReader:
    """Reads of one page or frame (see the module docstring). Every method raises only flowwalk's
    errors: `PageGone`, `TimedOut`, `PageUnreadable` (all `PageError`) and `InvalidSelector`."""

    def __init__(self, where: "Where"):
        self.where = where

    def url(self) -> str:
        """The document's URL (`location.href`), from the page itself."""
        with translating():
            return str(self.where.evaluate(_URL_JS))

    def url_state(self) -> UrlState:
        """The URL and how long it has been the URL, in one read."""
        with translating():
            raw = self.where.evaluate(_URL_STATE_JS)
        r = raw if isinstance(raw, Mapping) else {}
        return UrlState(str(r.get("url", "")), Quiet.of(r.get("quiet")))

    def changed(self, seq: Seq, *, gap_ms: float, cap_ms: float) -> bool | None:
        """Wait in the page for the first change its record counts after the read at `seq` (a
        mutation, an input, a URL change, a stylesheet, image or font that loaded, an animation
        that started), but not past `gap_ms` after that read if it came sooner: True; False when
        `cap_ms` passed with none; None when the page has no record (then nothing was waited)."""
        arg = {"n": seq.n, "at": seq.at, "gap": max(gap_ms, 0.0), "cap": max(cap_ms, 0.0)}
        with translating():
            raw = self.where.evaluate(script("changed"), arg)
        return raw if isinstance(raw, bool) else None

    def elements(self, selector: str, query: ElementQuery) -> ElementRead:
        """One read of every element `selector` (one alternative, no pipes) matches now."""
        arg = {"k": query.kind, "v": query.value, "a": query.attr, "q": query.quiet}
        with translating(selector):
            return ElementRead.of(self.where.locator(selector).evaluate_all(script("elements"), arg))

    def may_show(self, selectors: Sequence[str]) -> list[bool | None]:
        """For each CSS selector, in one read: could a match be visible now (True), is none (False),
        or is it not plain CSS, so only Playwright can tell (None)? A gate in front of the visible
        checks of each match: False is certain, True only a maybe."""
        with translating():
            raw = self.where.evaluate(script("may_show"), list(selectors))
        out = list(raw) if isinstance(raw, list) else []
        return [v if isinstance(v, bool) else None for v in out] + [None] * (len(selectors) - len(out))

    def child_frames(self, limit: int) -> list[Reader]:
        """Up to `limit` of the page's frames other than the main one, in document order; no round
        trip (Playwright keeps the frame tree). Only a page has them: a frame's list is empty."""
        with translating():
            frames = [f for f in getattr(self.where, "frames", ()) if f.parent_frame is not None][:limit]
        return [PageReader(f) for f in frames]

    def detached(self) -> bool:
        """Has this frame left its page? (A page never has.)"""
        is_detached = getattr(self.where, "is_detached", None)
        with translating():
            return bool(is_detached()) if is_detached is not None else False

    def frame_name(self) -> FrameName | None:
        """This frame's name and URL; None when it went away."""
        try:
            return FrameName(str(getattr(self.where, "name", "") or ""), str(self.where.url or ""))
        except Exception:  # noqa: BLE001 - a frame that went away has no name
            return None


    def inspect(self, selector: str, limit: int) -> Inspection:
        """Every element `selector` matches: the count, and the first `limit` with their ids,
        visibility, enabled state and role."""
        with translating(selector):
            raw = self.where.locator(selector).evaluate_all(script("inspect"), limit)
        r = raw if isinstance(raw, Mapping) else {}
        items = tuple(Seen(int(i["id"]), bool(i.get("visible")), bool(i.get("enabled")), str(i.get("role") or ""))
                      for i in r.get("items", ()) or () if isinstance(i, Mapping))
        return Inspection(int(r.get("n", 0) or 0), items)

    def near(self, selector: str, css: str) -> list[str]:
        """CSS paths of the one element matching `css` beside each of the first 5 matches of
        `selector` (in its nearest container that has any, or the control a `<label>` names)."""
        with translating(selector):
            paths = self.where.locator(selector).evaluate_all(script("near"), css)
        return [p for p in paths or () if isinstance(p, str)]

    def match(self, selector: str, scope: str | None = None) -> Match:
        """The first pipe alternative of `selector` (within `scope`) that matches, and its count:
        one count per alternative tried."""
        with translating(selector):
            found = locate(self.where, selector, scope)
        return Match(found.used, found.count, tuple(found.tried))

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None:
        """The healer's read (`js/candidates.js`): of the first `scanned` actionable elements under
        `scope` (the document without one), the best `limit` by how many of `words` (stemmed, see
        heal/meaning.py `cheap_words`) they and their ancestors say, in full. Each record's `key` is
        its element id. With `position` (the target's ordinal: 1, 2 ..., -1 for the last), each
        record also has `css_position`, a positional selector free of the row's data
        (`js/css_position.js`). None when the scope matches nothing. One round trip, plus the scope's count."""
        arg = {"words": list(words), "tag": tag, "limit": limit, "scanned": scanned, "fingerprints": fingerprints,
               "position": position}
        with translating(scope):
            if scope:
                found = locate(self.where, scope)
                if found.count == 0:
                    return None
                raw = found.locator.first.evaluate(script("candidates"), arg)
            else:
                raw = self.where.evaluate(f"(arg) => ({script('candidates')})(document, arg)", arg)
        r = raw if isinstance(raw, Mapping) else {}
        return CandidatesRead(tuple(i for i in r.get("items", ()) or () if isinstance(i, Mapping)),
                              int(r.get("scanned", 0) or 0))

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool:
        """Does `selector` (within `scope`) match exactly one element, the one with this id?"""
        with translating(selector):
            found = locate(self.where, selector, scope)
            return found.count == 1 and bool(found.locator.evaluate(_OWNS_JS, element_id))

    def body_text(self, limit: int) -> str:
        """The first `limit` characters of the body's rendered text."""
        with translating():
            return str(self.where.evaluate(_BODY_TEXT_JS, limit) or "")

    def document_title(self) -> str:
        """The document's title."""
        with translating():
            return str(self.where.title())

    def first_text(self, selector: str, scope: str | None, timeout_ms: int) -> str | None:
        """The rendered text (Playwright's `inner_text`, trimmed) of the first element `selector`
        (pipes allowed, within `scope`) matches; None when it matches nothing."""
        with translating(selector):
            found = locate(self.where, selector, scope)
            if found.count == 0:
                return None
            return str(found.locator.first.inner_text(timeout=timeout_ms)).strip()

    # --- reads of the element an act worked on (walk/verifiers.py's read_after_write) -------------

    def field_value(self, element: "Element", timeout_ms: int) -> str:
        """The value of `element` (an input, textarea or select)."""
        with translating():
            return str(element.input_value(timeout=timeout_ms))

    def checked(self, element: "Element", timeout_ms: int) -> bool:
        """Whether `element` (a checkbox or radio) is checked."""
        with translating():
            return bool(element.is_checked(timeout=timeout_ms))

    def selected_options(self, element: "Element") -> list[tuple[str, str]]:
        """The (value, label) of each option `element` (a select) has selected."""
        with translating():
            raw = element.evaluate(_SELECTED_JS)
        return [(str(pair[0]), str(pair[1])) for pair in raw or ()
                if isinstance(pair, (list, tuple)) and len(pair) == 2]

