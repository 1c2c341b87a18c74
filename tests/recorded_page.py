"""Recorded page reads: the judges in walk/ (checks, healing) run on these without Chromium.

`RecordedReader` answers `browser.records.Reader` from handlers and recordings, as httpx's
MockTransport answers a client: each read is looked up (a selector's recorded `ElementRead`, or
a list of them consumed one read at a time: the page changing under the check), an exception
recorded in its place is raised (`PageGone`, `PageUnreadable`, `InvalidSelector`, or
`BrowserCrashed` for a browser that died), and every read is logged in `calls`, so a test counts
the round trips a judge took. `RecordedSession` is the part of a `PageSession` a check asks (its
`page`, beacons, wait, pump, crashed), on a fake clock that `wait` advances.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from flowwalk.browser.network import Beacon
from flowwalk.browser.records import (
    CandidatesRead,
    ElementQuery,
    ElementRead,
    FrameName,
    ItemsRead,
    Match,
    Quiet,
    Reader,
    Seq,
    UrlState,
)

Recorded = Any   # an answer, a list of answers (one per read, the last repeats) or an exception


def _answer(slot: dict[str, Recorded], key: str, default: Any) -> Any:
    if key not in slot:
        return default
    value = slot[key]
    if isinstance(value, list):
        value = value.pop(0) if len(value) > 1 else value[0]
    if isinstance(value, BaseException):
        raise value
    return value


@dataclass
class RecordedReader:
    """A page (or frame) whose reads are recorded; see the module docstring."""

    url_now: Recorded = "about:blank"
    #: what `url_state` says of how long the URL has held (None: no record)
    url_quiet: Quiet | None = None
    #: every ElementQuery asked, in order
    queries: list[ElementQuery] = field(default_factory=list)
    #: selector -> ElementRead (or a list, or an exception); a selector not listed matches nothing
    elements_of: dict[str, Recorded] = field(default_factory=dict)
    #: selector -> ItemsRead (or a list, or an exception); a selector not listed matches nothing
    items_of: dict[str, Recorded] = field(default_factory=dict)
    frames: list["RecordedReader"] = field(default_factory=list)
    name: FrameName | None = None
    gone: bool = False
    matches: dict[str, Recorded] = field(default_factory=dict)
    #: the healer's read: candidate records as `Page.candidates` returns them (None: the
    #: scope matches nothing), or the exception the read raises
    candidate_records: list[dict[str, Any]] | BaseException | None = None
    #: (selector, element id) pairs `owns` answers True for
    owned: set[tuple[str, int]] = field(default_factory=set)
    body: str = ""
    calls: list[tuple[str, ...]] = field(default_factory=list)
    #: the `position` each candidates read asked for (the target's ordinal, or None)
    positions: list[int | None] = field(default_factory=list)

    def changed(self, seq: Seq, *, gap_ms: float, cap_ms: float) -> bool | None:
        """A still page: nothing changes, so the wait lasts `cap_ms` (`_Timed` moves the clock on)."""
        self.calls.append(("changed", str(seq.n), str(gap_ms), str(cap_ms)))
        return False

    def url(self) -> str:
        self.calls.append(("url",))
        return str(_answer({"u": self.url_now}, "u", "about:blank"))

    def last_url(self) -> str:
        return str(self.url_now) if isinstance(self.url_now, str) else ""

    def url_state(self) -> UrlState:
        self.calls.append(("url_state",))
        return UrlState(str(_answer({"u": self.url_now}, "u", "about:blank")), self.url_quiet)

    def elements(self, selector: str, query: ElementQuery) -> ElementRead:
        self.calls.append(("elements", selector, query.kind))
        self.queries.append(query)
        result: ElementRead = _answer(self.elements_of, selector, ElementRead(0))
        return result

    def items(self, selector: str, *, raw_text: bool = False, quiet: str = "",
              fingerprint: bool = False) -> ItemsRead:
        self.calls.append(("items", selector, "raw" if raw_text else "text"))
        result: ItemsRead = _answer(self.items_of, selector, ItemsRead(0))
        return result

    def child_frames(self, limit: int) -> list[Reader]:
        return list(self.frames[:limit])

    def detached(self) -> bool:
        return self.gone

    def frame_name(self) -> FrameName | None:
        return self.name

    def match(self, selector: str, scope: str | None = None, *, fingerprint: bool = False,
              gate: Sequence[str] = (), shown: bool = False) -> Match:
        self.calls.append(("match", selector))
        result: Match = _answer(self.matches, selector, Match(selector, 0, (selector,)))
        return result

    def candidates(self, words: Sequence[str], *, tag: str = "", fingerprints: bool = False, limit: int = 50,
                   scanned: int = 3000, scope: str | None = None,
                   position: int | None = None) -> CandidatesRead | None:
        self.calls.append(("candidates", tag))
        self.positions.append(position)
        if self.candidate_records is None:
            return None
        if isinstance(self.candidate_records, BaseException):
            raise self.candidate_records
        return CandidatesRead(tuple(self.candidate_records[:limit]), len(self.candidate_records))

    def owns(self, selector: str, scope: str | None, element_id: int) -> bool:
        self.calls.append(("owns", selector))
        return (selector, element_id) in self.owned

    def body_text(self, limit: int) -> str:
        self.calls.append(("body_text",))
        return self.body[:limit]


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        #: how long each read takes (seconds): a busy page's reads are slow
        self.read_s = 0.005

    def __call__(self) -> float:
        return self.now


class RecordedSession:
    """What a check asks of a PageSession, answered from a RecordedReader on a fake clock."""

    def __init__(self, reader: RecordedReader, clock: FakeClock | None = None, *,
                 beacons: Sequence[Beacon] = (), crashed: bool = False):
        self.page = _Timed(reader, clock or FakeClock())
        self.clock = self.page.clock
        self.beacons = list(beacons)
        self.crashed = crashed
        self.waited_ms: list[float] = []
        self.dialog_count = 0
        self.dialog_plan = None
        self.router = None

    def wait(self, ms: float) -> None:
        self.waited_ms.append(ms)
        self.clock.now += ms / 1000

    def pump(self) -> None:
        pass

    # what the step envelope and a failure's evidence ask (walk/step.py, walk/evidence.py)
    def check_navigation(self, pump: bool = True) -> None:
        pass

    def uncommitted(self) -> str | None:
        return None

    def evidence(self, timeout_ms: float | None = 2000) -> dict[str, Any]:
        return {"url": self.recorded.url_now if isinstance(self.recorded.url_now, str) else "", "title": ""}

    def a11y_snapshot(self, selector: str | None = None, limit: int = 0, timeout_ms: float = 0) -> str:
        return ""

    def last_click(self, selector: str | None = None, timeout_ms: float = 0) -> dict[str, Any] | None:
        return None

    def screenshot(self, *args: Any, **kw: Any) -> bool:
        return False

    @property
    def recorded(self) -> RecordedReader:
        return self.page.recorded


class _Timed:
    """A reader whose every read takes `clock.read_s` of the fake clock."""

    def __init__(self, reader: RecordedReader, clock: FakeClock):
        self.recorded = reader
        self.clock = clock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.recorded, name)
        if not callable(value) or name in ("child_frames", "detached", "frame_name"):
            return value

        def timed(*args: Any, **kw: Any) -> Any:
            self.clock.now += self.clock.read_s
            answer = value(*args, **kw)
            if name == "changed" and answer is False:
                self.clock.now += kw["cap_ms"] / 1000   # the page stayed still for the whole wait
            return answer
        return timed


def read(n: int, **kw: Any) -> ElementRead:
    """An ElementRead of `n` matches (the other fields as keywords)."""
    return ElementRead(n, **kw)
