"""Exploring a page, for discover: one object over a `PageSession` whose every method speaks flowwalk's errors.

`ExplorePage` is what the crawl and the journeys do to a page: load a URL and let it settle (and
say the document's HTTP status), click, fill, press, select or tick the first element a selector
finds, read the page (its survey, its observed state, its tables, a form's asks, its text, its
messages, how many elements a selector matches), wait, and hand over the evidence the session keeps
(network, console errors, snapshot, screenshot). It is the session and its page API
(`PageSession.page`, browser/page.py) put together for discover, so a caller meets flowwalk's
errors only: `PageError` (the page is gone, timed out or unreadable), `InvalidSelector` and
`NavigationBlocked`. Reads that have a sensible empty answer (the page's text, its messages, a
selector's count) give it instead of raising.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from flowwalk.browser.errors import InvalidSelector, PageError
from flowwalk.browser.explored import Acted, FormAsks, Observation, Request, Survey, Tables, read
from flowwalk.browser.survey import TABLE_ROWS

if TYPE_CHECKING:
    from flowwalk.browser.page import Page
    from flowwalk.browser.session import PageSession

__all__ = ["Action", "ExplorePage", "IDLE_MS", "Mark"]

#: how long a load or a click may keep the network busy before the page counts as settled
IDLE_MS = 1_500
#: how long a journey's move may keep requests in flight, and how long none must be before it is read
QUIET_MAX_MS = 2_000
QUIET_MS = 150

Action = Literal["click", "dblclick", "hover", "fill", "press", "select", "check"]
_ACTIONS = frozenset(get_args(Action))

#: the requests a session had recorded at one moment (`ExplorePage.mark`)
Mark = frozenset[int]


class ExplorePage:
    """One page being explored (see the module docstring); `session` stays the caller's to close."""

    def __init__(self, session: "PageSession", *, action_timeout_ms: int, navigation_timeout_ms: int):
        self.session = session
        self.action_timeout_ms = action_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms

    @property
    def _page(self) -> "Page":
        return self.session.page

    @property
    def url(self) -> str:
        return self._page.last_url()

    # --- loading ----------------------------------------------------------------------------------

    def goto(self, url: str) -> None:
        """Load `url` (raises NavigationBlocked off the allowed hosts, PageError when it fails)."""
        self.session.goto(url, timeout_ms=self.navigation_timeout_ms)

    def load(self, url: str) -> int | None:
        """`goto`, `settle`, and the document's HTTP status when the page knows it."""
        self.goto(url)
        self.settle()
        return self.status()

    def status(self) -> int | None:
        """The HTTP status of the document now shown, when the browser reports it."""
        try:
            return self._page.navigation_status()
        except (PageError, InvalidSelector):
            return None

    def settle(self, idle_ms: int = IDLE_MS) -> None:
        """Network idle (up to `idle_ms`: a page that keeps polling is settled enough), then 100 ms."""
        try:
            self._page.wait_for_load("networkidle", idle_ms)
        except (PageError, InvalidSelector):
            pass
        self.wait(100)

    def settle_quiet(self, max_ms: int = QUIET_MAX_MS, quiet_ms: int = QUIET_MS) -> None:
        """Until no request has been in flight for `quiet_ms` (at most `max_ms`), then the load event."""
        deadline = time.monotonic() + max_ms / 1000
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            self.wait(50)
            if self.session.in_flight():
                quiet_since = time.monotonic()
            elif (time.monotonic() - quiet_since) * 1000 >= quiet_ms:
                break
        try:
            self._page.wait_for_load("load", max_ms)
        except (PageError, InvalidSelector):
            pass

    def wait(self, ms: float) -> None:
        self.session.wait(ms)

    # --- acting -----------------------------------------------------------------------------------

    def act(self, action: Action, selector: str, value: str = "", *, then_ms: float = 0) -> Acted:
        """Do `action` on the first element `selector` finds (`value`: what fill types, the key press
        presses, the option select picks), then wait `then_ms`. `found` is False when nothing matched
        (nothing was done); a navigation off the allowed hosts (by then) raises NavigationBlocked, a
        failed action PageError."""
        if action not in _ACTIONS:
            raise ValueError(f"no action {action!r}")
        found = self._page.match(selector)
        if found.count == 0:
            return Acted(False, self.url)
        self._page.act(found.element, action, value, self.action_timeout_ms)
        if then_ms:
            self.session.wait(then_ms)
        self.session.check_navigation()
        return Acted(True, self.url)

    def tap(self, selector: str) -> bool:
        """Click the first element `selector` finds; False when none is there or the click failed
        (a navigation off the allowed hosts still raises NavigationBlocked)."""
        try:
            return self.act("click", selector).found
        except (PageError, InvalidSelector):
            return False

    # --- reading ----------------------------------------------------------------------------------

    def survey(self) -> Survey:
        """What the page offers (`Page.survey`); PageError when it cannot answer."""
        return self._page.survey()

    def observe(self) -> Observation:
        """The page's state now (`Page.observe`); PageError when it cannot answer."""
        return self._page.observe()

    def tables(self, limit: int = TABLE_ROWS) -> Tables:
        """The page's tables and the links that turn its list's pages; PageError when it cannot answer."""
        return self._page.tables(limit)

    def form(self, selector: str) -> FormAsks | None:
        """What the fields of the form `selector` finds (or holds) ask, and the errors shown; None when
        nothing matches."""
        return self._page.form(selector)

    def text(self) -> str:
        """The page body's visible text ('' when it cannot be read)."""
        return self._page.text()

    def raw_texts(self, selector: str) -> tuple[str, ...]:
        """The textContent of each element `selector` (one alternative) matches, as the DOM holds it:
        outer spaces kept (() when nothing matches or it cannot be read)."""
        try:
            return self._page.items(selector, raw_text=True).texts
        except (PageError, InvalidSelector):
            return ()

    def messages(self) -> list[str]:
        """The visible alerts, live regions and error messages ([] when none can be read)."""
        return self._page.messages()

    def count(self, selector: str) -> int:
        """How many elements `selector` (CSS or `text=`) matches now; -1 when it cannot be counted."""
        return self._page.count(selector)

    # --- the session's evidence -------------------------------------------------------------------

    @property
    def console_errors(self) -> int:
        return self.session.console_error_count

    def mark(self) -> Mark:
        """The requests recorded so far, for `requests(since=...)`."""
        return frozenset(id(entry) for entry in self.session.network)

    def requests(self, since: Mark = frozenset()) -> tuple[Request, ...]:
        """The requests the session recorded after `since` (oldest first), each as it stands now."""
        return tuple(read(Request, entry) for entry in list(self.session.network) if id(entry) not in since)

    def snapshot(self) -> str:
        return self.session.a11y_snapshot()

    def screenshot(self, path: Path) -> bool:
        return self.session.screenshot(path)

    def close(self) -> None:
        self.session.close()
