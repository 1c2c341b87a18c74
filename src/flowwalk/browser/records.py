"""What the page API returns and raises: frozen records, the errors a call raises, and the `Reader`
protocol the judges read a page through.

Every method of `browser.page.Page` answers one of these (or a plain value: a URL, a text, a count),
never a Playwright object, and raises one of the errors below (browser/errors.py `translating`
makes them from Playwright's). The judges (walk/checks.py, heal/find.py, heal/mend.py) read through
`Reader`, so they run on recorded reads without Chromium (tests/recorded_page.py, as httpx's tests
use a mock transport). A new read or action is one method on `Page` and, when it returns more than a
plain value, one record here. This module imports the standard library only (held by
tests/contract/test_code_rules.py), so that heal/ may read it without the browser layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence

__all__ = ["AriaRead", "CandidatesRead", "Element", "ElementQuery", "ElementRead", "FrameName", "ITEMS_MAX", "ITEM_CLIP",
           "InvalidSelector", "ItemsRead", "Match", "PageError", "PageGone", "PageUnreadable", "Quiet", "Reader", "Seq",
           "TimedOut", "UrlState"]


class InvalidSelector(ValueError):
    """Playwright could not parse a selector; retrying cannot help."""

    def __init__(self, selector: str, detail: str):
        self.selector = selector
        self.detail = detail
        super().__init__(f"invalid selector '{selector}': {detail}")


class PageError(Exception):
    """The page could not do or answer a call (browser/errors.py names the kinds)."""

    #: the name of Playwright's error class, for messages (`walk.boundary.short`)
    origin = "Error"

    def __init__(self, detail: str, *, navigating: bool = False, origin: str | None = None,
                 covered_by: str | None = None):
        #: Playwright's first message line
        self.detail = detail
        #: the page was navigating (its execution context was destroyed, a frame detached)
        self.navigating = navigating
        #: the element that took the action's pointer events, as Playwright's call log shows it
        #: (`<div id="cover" class="modal">Cookies</div>`), when another element covered the target
        self.covered_by = covered_by
        if origin is not None:
            self.origin = origin
        super().__init__(detail)


class PageGone(PageError):
    """The page, its context or the browser closed under the call."""


class PageUnreadable(PageError):
    """The page could not do or answer it this time: navigating, a destroyed context, a script error."""


class TimedOut(PageError):
    """The call ran out of time."""

    origin = "TimeoutError"


@dataclass(frozen=True)
class Element:
    """The element an action works on: the first match, in document order, of one Playwright
    selector (one pipe alternative, its scope applied). A name, not a handle: each use finds the
    element anew, as a Playwright locator does."""

    selector: str


@dataclass(frozen=True)
class ElementQuery:
    """What one read of a selector's matches asks (`Page.elements`).

    `kind`: `count` (only how many), `text` (the first match whose text contains `value`,
    case-insensitive unless `match_case`), `exact_text` (whose text is exactly `value`, both
    normalised; with `raw` the textContent as the DOM holds it, whitespace kept, equals `value`
    as written), `texts` (the first 20 matches' texts), `visible` (how many are visible),
    `disabled`, `checked`, `value` (the first match's input value) or `attribute` (the first
    match's attribute `attr`). `quiet`: also how long the page has been still (`Quiet`): ''
    (not asked), 'dom' or 'layout'. `fingerprint`: also the first match's fingerprint.
    """

    kind: str
    value: str = ""
    attr: str = ""
    quiet: str = ""
    match_case: bool = False
    raw: bool = False
    fingerprint: bool = False


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
    """The document's URL and how long it has been that URL (`Page.url_state`)."""

    url: str
    quiet: Quiet | None


def _fingerprint(r: Mapping[str, Any]) -> Mapping[str, Any] | None:
    fp = r.get("fp")
    return fp if isinstance(fp, Mapping) else None


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
    #: the page's change count at this read (`Page.changed`); None without a record
    seq: Seq | None = None
    #: when the query asked (`ElementQuery.fingerprint`) and an element matched: the first's fingerprint
    fingerprint: Mapping[str, Any] | None = None

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
                   seq=Seq.of(r.get("seq")), fingerprint=_fingerprint(r))


#: an items read returns at most this many matches, each text or class clipped to ITEM_CLIP characters
ITEMS_MAX = 1000
ITEM_CLIP = 10_000


@dataclass(frozen=True)
class ItemsRead:
    """One read of every element a selector matches, item by item (`Page.items`)."""

    #: how many elements match
    n: int
    #: the first ITEMS_MAX matches' texts, in document order: rendered and normalised (`fw.textOf`),
    #: or the textContent as the DOM holds it when the read asked for raw text
    texts: tuple[str, ...] = ()
    #: their class attributes, as written ('' for an element without one)
    classes: tuple[str, ...] = ()
    #: when the read asked (`quiet`): how long the page had been still
    quiet: Quiet | None = None
    #: the page's change count at this read (`Page.changed`); None without a record
    seq: Seq | None = None
    #: when the read asked and an element matched: the first's fingerprint
    fingerprint: Mapping[str, Any] | None = None

    @classmethod
    def of(cls, raw: Any) -> "ItemsRead":
        """The record of what `js/items.js` returned."""
        r = raw if isinstance(raw, Mapping) else {}
        return cls(n=int(r.get("n", 0) or 0), texts=tuple(str(t) for t in r.get("texts", ()) or ()),
                   classes=tuple(str(c) for c in r.get("classes", ()) or ()), quiet=Quiet.of(r.get("quiet")),
                   seq=Seq.of(r.get("seq")), fingerprint=_fingerprint(r))


@dataclass(frozen=True)
class CandidatesRead:
    """The healer's read of one page or frame: the best elements as plain records (heal/meaning.py
    `PageElement.from_record` reads and checks them) and how many elements were looked at."""

    items: tuple[Mapping[str, Any], ...]
    scanned: int


@dataclass(frozen=True)
class Match:
    """A (pipe, scoped) selector's outcome: the alternative used, how many it matches, what was tried;
    and what the same read was asked besides (`Page.match`)."""

    used: str
    count: int
    tried: tuple[str, ...] = field(default=())
    #: asked with `fingerprint=True`: the first match's fingerprint as the page read it (heal/fingerprint.py
    #: bounds it); None without a match
    fingerprint: Mapping[str, Any] | None = None
    #: asked with `gate=selectors`: for each, could a match be visible now (`Page.may_show`)
    gate: tuple[bool | None, ...] | None = None
    #: asked with `shown=True`: the first match is visible (True is certain; False means "ask
    #: Playwright", whose visible is a little wider: `Page.is_visible`)
    shown: bool = False

    @property
    def element(self) -> Element:
        """The element an action on this match works on: the first match of the alternative used."""
        return Element(self.used)


@dataclass(frozen=True)
class FrameName:
    """A frame's name and URL, for a message that names it."""

    name: str
    url: str


@dataclass(frozen=True)
class AriaRead:
    """One answer of Playwright's aria matcher: did the element match, and if the template does not
    parse, Playwright's own error (line and column in the template)."""

    matches: bool
    template_error: str | None = None


class Reader(Protocol):
    """What the judges read a page through: `browser.page.Page`, or a test's recorded reads."""

    def url(self) -> str: ...
    def url_state(self) -> UrlState: ...
    def elements(self, selector: str, query: ElementQuery) -> ElementRead: ...
    def items(self, selector: str, *, raw_text: bool = False, quiet: str = "",
              fingerprint: bool = False) -> ItemsRead: ...
    def child_frames(self, limit: int) -> list["Reader"]: ...
    def detached(self) -> bool: ...
    def frame_name(self) -> FrameName | None: ...
    def last_url(self) -> str: ...
    def match(self, selector: str, scope: str | None = None, *, fingerprint: bool = False,
              gate: Sequence[str] = (), shown: bool = False) -> Match: ...
    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None: ...
    def owns(self, selector: str, scope: str | None, element_id: int) -> bool: ...
    def body_text(self, limit: int) -> str: ...
