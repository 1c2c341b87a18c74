"""The crawl state and its records: every page found and what was found on it, the queue, the links,
what was left alone and why, the loops, the journeys.

Frozen records, passed between discover's modules as they are: the in-page functions return them,
the crawler (crawl.py, the only writer of the state during the crawl) keeps them in `CrawlState`,
features.py, generate.py and record.py read them. `CrawlState.to_json` writes the state as
`discover.state.json` after every page, and `from_json` reads it back (`--resume`) with the types
it was written with. A spec step (`Step`) is the flow-spec's own mapping; generate.py validates a
spec of them into the flow-spec tree, which spec/writer.py writes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Literal, Mapping, Optional

from pydantic import TypeAdapter
from typing_extensions import TypedDict

from flowwalk.browser.explored import Survey

__all__ = ["ControlRecord", "CrawlState", "CrawledPage", "Dismissal", "Edge", "Effect", "Journey", "ListCount",
           "ListMove", "ListView", "Loop", "Move", "Outline", "Queued", "STATE_VERSION", "SearchRecord", "Skipped",
           "Step", "SubmitRecord", "Via"]

#: the version of discover.state.json: a state file of another version is not resumed
STATE_VERSION = 2


class Step(TypedDict, total=False):
    """A flow-spec step as a generated spec holds it (`act`, `expect`, `goto`); the writer puts its
    keys in the documented order."""

    type: str
    action: str
    kind: str
    target: str
    selector: str
    name: str
    url: str
    value: str
    equals: int | str
    contains: str
    keep_whitespace: bool


# --- how a page was reached, and what was left alone ----------------------------------------------------


@dataclass(frozen=True)
class Via:
    """How a page was reached: a link on page `from_`, or (`route`) a control of the page at
    `from_url` whose click changed the URL without loading a document."""

    kind: Literal["link", "route"]
    from_: str
    selector: str = ""
    name: str = ""
    from_url: str = ""
    #: a destructive link to a delete confirmation, followed only to see what it asks
    confirm: bool = False


@dataclass(frozen=True)
class Queued:
    """A URL waiting to be visited; `goal`: how many of --goal's words its link says."""

    url: str
    depth: int
    via: Optional[Via] = None
    goal: int = 0


@dataclass(frozen=True)
class Edge:
    from_: str
    to: str
    kind: Literal["link", "route"]
    selector: str
    name: str


@dataclass(frozen=True)
class Skipped:
    """What was not followed or clicked from page `from_` ('' when not known), and why."""

    from_: str
    what: str
    reason: str


@dataclass(frozen=True)
class Loop:
    page: str
    action: str
    signature: str


@dataclass(frozen=True)
class Dismissal:
    """A cookie banner's accept button: clicked once, the first step of every spec."""

    selector: str
    target: str
    banner: str
    text: str


# --- what the in-page passes found ----------------------------------------------------------------------


@dataclass(frozen=True)
class ListCount:
    """A list or table as a survey saw it: how many items show, of how many, and the first few."""

    selector: str
    item_tag: str
    count: int
    total: int
    first_item: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class ControlRecord:
    """An in-page control clicked from a fresh load, and what it changed."""

    selector: str
    target: str
    name: str
    role: str
    controls: str
    pressed: Optional[str]
    expanded: Optional[str]
    url_before: str
    url_after: str
    signature_after: str
    new_text: tuple[str, ...]
    lists: tuple[ListCount, ...]
    #: the control's own aria-pressed, -expanded and -selected after the click
    attrs_after: Mapping[str, Optional[str]]
    #: the URL the click led to (a hash route, a pushState route), when it left the page's
    route: str = ""


@dataclass(frozen=True)
class SearchRecord:
    """A word typed into a search or filter field, and what the lists showed then."""

    form: int
    selector: str
    target: str
    term: str
    lists: tuple[ListCount, ...]


@dataclass(frozen=True)
class SubmitRecord:
    """A form submitted (`empty`, or one field given `value` and Enter), and what it answered."""

    form: int
    kind: Literal["empty", "enter"]
    selector: str
    target: str
    url_after: str
    lists: tuple[ListCount, ...]
    new_text: tuple[str, ...] = ()
    value: str = ""


@dataclass(frozen=True)
class ListMove:
    """One way to turn a list, and what it then showed."""

    kind: Literal["sort", "page", "filter", "search"]
    name: str                       # 'the Author header', 'page 2', "'Yes' (available)", "search 'Herbert'"
    selector: str                   # the link clicked, or the search field
    value: str = ""                 # the word searched
    url: str = ""                   # where it led
    shown: str = ""                 # a row it shows (its first cell)
    left_out: str = ""              # a row of the list at rest it leaves out
    first: tuple[str, ...] = ()     # its first rows, in order
    count: int = -1                 # rows that are not the crawl's own (-1: not checkable)


@dataclass(frozen=True)
class ListView:
    """A page's main table at rest and the moves that turn it."""

    table: str
    body: str
    headers: tuple[str, ...]
    first: tuple[str, ...]
    count: int
    #: the table shows one page of several (so its row count is the page size)
    paged: bool
    moves: tuple[ListMove, ...]


@dataclass(frozen=True)
class Outline:
    """What a page's DOM signature hashes (signature.py)."""

    landmarks: tuple[str, ...]
    headings: tuple[str, ...]
    fields: tuple[str, ...]
    buttons: tuple[str, ...]
    links: tuple[str, ...]


@dataclass(frozen=True)
class CrawledPage:
    """A page the crawl found: where and how, its survey, and what its in-page passes found."""

    id: str
    slug: str
    url: str
    path: str
    title: str
    #: the document's HTTP status when the browser reported it
    status: Optional[int]
    depth: int
    signature: str
    template: str
    outline: Outline
    survey: Survey
    #: every URL that turned out to be this page (a template's instances)
    visits: tuple[str, ...]
    reached_by: Optional[Via] = None
    banner: Optional[Dismissal] = None
    console_errors: int = 0
    controls: tuple[ControlRecord, ...] = ()
    searches: tuple[SearchRecord, ...] = ()
    submits: tuple[SubmitRecord, ...] = ()
    #: with --submit-forms: its main table, read and turned (listview.py)
    list: Optional[ListView] = None
    #: a delete confirmation, seen and never used
    confirmation: bool = False
    #: sub-resources that did not load (a missing favicon): findings for index.md
    failed_resources: tuple[str, ...] = ()
    snapshot: str = ""
    screenshot: str = ""

    @property
    def start(self) -> str:
        """The URL a fresh visit loads: a route's page (whose control then opens it), else its own."""
        return self.reached_by.from_url if self.reached_by is not None and self.reached_by.kind == "route" \
            else self.url


# --- journeys -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Effect:
    """One observed change. `check` is the expect step that asserts it (None: recorded, not checked)."""

    kind: str
    what: str
    check: Optional[Step] = None
    #: lower is more telling; an action keeps its most telling checks (effects.checks_per_move)
    rank: int = 5
    #: what must be equal in two walks for the effect to count (kind, selector and value)
    key: str = ""


@dataclass(frozen=True)
class Move:
    """One user action of a journey, as the spec steps that perform it."""

    name: str
    steps: tuple[Step, ...]
    #: what makes two moves the same control (a move is taken once per page)
    key: str
    #: the text this move typed (the journey's own), and the field it typed it into
    typed: Optional[str] = None
    field: Optional[str] = None
    #: a reload: its checks are what is still there, not what changed
    reload: bool = False
    #: the text of the journey's own item this move deletes: its first checks are that the lists
    #: which last showed the item show it no longer (effects.removal_checks)
    removes: Optional[str] = None

    @property
    def pressed(self) -> str | None:
        """The selector of the control the move clicks (None: it types, selects or reloads)."""
        last = self.steps[-1] if self.steps else Step()
        return last.get("selector") if last.get("action") in ("click", "check", "uncheck") else None


@dataclass(frozen=True)
class Journey:
    """A chain of moves from a page's start state, each with the checks both walks agreed on, most
    telling first."""

    id: str
    page: str
    name: str
    why: str
    moves: tuple[Move, ...]
    effects: tuple[tuple[Effect, ...], ...]
    #: effects one walk saw and the other did not (or saw with another value)
    dropped: tuple[str, ...] = ()
    #: effects recorded but not checkable in a spec (storage, requests)
    noted: tuple[str, ...] = ()
    #: the page id of the form a journey across pages created its item through
    through: str = ""
    #: how many walks saw every check (a refusal chain is walked once: its spec's two verification
    #: runs are the others)
    walks: int = 2

    def covers(self) -> list[str]:
        """One line per move: what it did and what its checks assert."""
        return [f"{move.name}: " + ("; ".join(e.what for e in effects if e.check is not None) or "no checkable change")
                for move, effects in zip(self.moves, self.effects)]


# --- the state --------------------------------------------------------------------------------------------


@dataclass
class CrawlState:
    """Everything the crawl knows; JSON as `discover.state.json` between pages."""

    start_url: str
    queue: list[Queued] = field(default_factory=list)
    pages: list[CrawledPage] = field(default_factory=list)
    #: url key -> page id, for every URL that was loaded ('' for a URL that answered an error)
    seen: dict[str, str] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    #: "signature|action" -> the signature that action led to (loop detection); "submit|..." -> a form submitted
    transitions: dict[str, str] = field(default_factory=dict)
    #: how often each signature was reached
    signature_visits: dict[str, int] = field(default_factory=dict)
    dismiss: list[Dismissal] = field(default_factory=list)
    #: the journeys explored with --submit-forms, in page order
    journeys: list[Journey] = field(default_factory=list)
    #: the URL key of the page an in-page login (a single-page app) left the session at
    login_landing: str = ""
    actions: int = 0
    elapsed_s: float = 0.0
    stopped_reason: str = ""
    version: int = STATE_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> "CrawlState":
        """The state `to_json` wrote; ValueError when `text` is not one of this version."""
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION or "start_url" not in data:
            raise ValueError("not a discover state file of this version")
        state: CrawlState = TypeAdapter(cls).validate_python(data)
        return state

    def page(self, page_id: str) -> CrawledPage:
        return next(p for p in self.pages if p.id == page_id)

    def put(self, page: CrawledPage) -> None:
        """Keep `page` in place of the record of the same id (or last, when it is new)."""
        at = next((i for i, p in enumerate(self.pages) if p.id == page.id), len(self.pages))
        self.pages[at:at + 1] = [page]
