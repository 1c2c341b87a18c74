"""Where a session's reads and actions go: its page, a popup an act opened, or an iframe.

`Windows` is the part of `PageSession` that moves it. A session starts on its page. `expect_popup`,
armed before an act, keeps the next popup the page opens (any other is closed as it opens,
browser/recording.py); `enter_popup` then moves the session into it, and `enter_frame` into an
iframe of the page or frame it is in. `leave` goes back one place, closing a popup unless it was
entered to stay open. While in a place, `page` (browser/page.py) and `state` (browser/state.py)
read and act there; in a popup, navigations, history, dialogs, console errors and a failure's
evidence are the popup's too, and its requests are in the session's records as every page's of
the context are.

An iframe that shows Chromium's error page (chrome-error://) instead of its document raises
`FrameNotShown` with what the session recorded of why: the net error of its request, or what its
answer said against being framed (X-Frame-Options, CSP frame-ancestors).

The allowlist holds in every place: a popup or frame whose document is on a host outside the
navigation allowlist (the entry host and its subdomains, plus allowed_hosts) raises
`NavigationBlocked`, whether the session's route stopped the popup's navigation (it stays at
about:blank) or offline routing was off and it got there. about:blank, srcdoc and data: frames
belong to their parent. Ports never matter: a frame on 127.0.0.1:8001 in a page of 127.0.0.1:8000
is a cross-origin frame the allowlist permits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.errors import FrameNotShown, NavigationBlocked, NotAFrame, translating
from flowwalk.browser.locate import locate
from flowwalk.browser.network import host_of
from flowwalk.browser.page import Page

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from playwright.sync_api import BrowserContext, Frame
    from playwright.sync_api import Page as PlaywrightPage

    from flowwalk.browser.state import StateReader

__all__ = ["Windows"]

#: the reason browser/policy.py records for a popup's navigation it stopped
_POPUP_BLOCKED = "popup outside the allowlist"


@dataclass
class _Place:
    """Where the session was before it entered a place, and the popup it entered (to close)."""

    target: Any
    playwright_page: Any
    page: Page
    popup: Any = None
    close: bool = True


class Windows:
    """The session's place: its page, a popup, an iframe (see the module docstring)."""

    playwright_page: "PlaywrightPage"
    playwright_context: "BrowserContext"
    page: Page
    blocked: list[dict[str, Any]]
    _state: "StateReader | None"

    if TYPE_CHECKING:
        def crashed_by(self, exc: BaseException) -> bool: ...
        def is_allowed(self, url: str) -> bool: ...
        def load_failure(self, url: str) -> tuple[str | None, str | None]: ...
        def translating(self, selector: str | None = None) -> AbstractContextManager[None]: ...
        def _wire_page(self, page: "PlaywrightPage") -> None: ...

    def _init_windows(self) -> None:
        #: the Playwright page or frame reads and actions go to now
        self._target: Union["PlaywrightPage", "Frame"] = self.playwright_page
        self._places: list[_Place] = []
        #: the popups kept for `enter_popup` while an act that opens one is armed (None: not armed)
        self._held: list["PlaywrightPage"] | None = None
        self._blocked_before = 0

    # --- popups ------------------------------------------------------------------------------------

    def expect_popup(self) -> None:
        """Keep the next popup the page opens, for `enter_popup` (until `disarm_popup`)."""
        self._held = []
        self._blocked_before = len(self.blocked)

    def _hold_popup(self, popup: "PlaywrightPage") -> bool:
        """Keep `popup` when an act is armed for it (in Playwright's dispatcher: never raises)."""
        if self._held is None or self._held:
            return False
        self._held.append(popup)
        self._wire_page(popup)
        return True

    def popup_opened(self) -> bool:
        """Has the popup the act is armed for opened, or been stopped at the allowlist (then
        `enter_popup` raises)? No round trip."""
        return bool(self._held) or self._popup_stopped() is not None

    def _popup_stopped(self) -> str | None:
        """The URL of a popup's navigation the route stopped since `expect_popup`, if any."""
        return next((str(b["url"]) for b in self.blocked[self._blocked_before:] if b.get("reason") == _POPUP_BLOCKED),
                    None)

    def disarm_popup(self) -> None:
        """No popup is kept any more; one kept and not entered is closed."""
        held, self._held = self._held or [], None
        for popup in held:
            _close(popup)

    def enter_popup(self, timeout_ms: float, *, close: bool = True) -> str:
        """Move into the popup kept since `expect_popup`, once its document has loaded: its URL.
        `close`: `leave` closes it. Raises NavigationBlocked when it was sent outside the
        allowlist (it is closed), `TimedOut` when it does not load in time."""
        held, self._held = self._held or [], None
        stopped = self._popup_stopped()
        if stopped is not None:
            for popup in held:
                _close(popup)
            raise NavigationBlocked(host_of(stopped), stopped, "popup")
        assert held, "enter_popup without a popup"
        popup = held[0]
        try:
            with self.translating():
                popup.wait_for_load_state("load", timeout=timeout_ms)
        except Exception:
            _close(popup)
            raise
        url = popup.url
        if url.lower().startswith(("http://", "https://")) and not self.is_allowed(url):
            _close(popup)
            raise NavigationBlocked(host_of(url), url, "popup")
        self._places.append(_Place(self._target, self.playwright_page, self.page, popup, close))
        self.playwright_page, self._target = popup, popup
        self.page, self._state = Page(popup, self.crashed_by), None
        return url

    # --- frames ------------------------------------------------------------------------------------

    def enter_frame(self, selector: str, scope: str | None, timeout_ms: float) -> str:
        """Move into the iframe the first match of `selector` (within `scope`) is, once its document
        has loaded: its URL. Waits up to `timeout_ms` for the iframe to be attached. Raises
        `TimedOut` when it is not, NotAFrame when the element is no frame, NavigationBlocked when
        its document is outside the allowlist, FrameNotShown when it shows Chromium's error page."""
        with translating(selector, crashed=self.crashed_by):
            found = locate(self._target, selector, scope)
            element = found.locator.first
            handle = element.element_handle(timeout=timeout_ms)
            try:   # the handle pins the element in the page until it is let go
                frame = handle.content_frame()
                if frame is None:
                    raise NotAFrame(found.used, str(handle.evaluate("e => e.tagName.toLowerCase()")))
            finally:
                handle.dispose()
            frame.wait_for_load_state("load", timeout=timeout_ms)
            url = frame.url
            shown = url
            if url.startswith("chrome-error://"):
                # the error page stands in for the document the iframe asked for: name that one
                owner = frame.frame_element()
                try:
                    url = str(owner.evaluate("e => e.src"))
                finally:
                    owner.dispose()
        if url.lower().startswith(("http://", "https://")) and not self.is_allowed(url):
            raise NavigationBlocked(host_of(url), url, "frame")
        if shown != url:
            raise FrameNotShown(found.used, url, *self.load_failure(url))
        self._places.append(_Place(self._target, self.playwright_page, self.page))
        self._target, self.page, self._state = frame, Page(frame, self.crashed_by), None
        return url

    # --- back --------------------------------------------------------------------------------------

    @property
    def places(self) -> int:
        """How many places deep the session is (0: on its page)."""
        return len(self._places)

    def leave(self) -> None:
        """Back to where the session was before the last place it entered; a popup entered to be
        closed is closed (when the site has not closed it already). Never raises."""
        place = self._places.pop()
        if place.popup is not None and place.close:
            _close(place.popup)
        self._target, self.playwright_page, self.page = place.target, place.playwright_page, place.page
        self._state = None

    def state_target(self) -> Union["PlaywrightPage", "Frame"]:
        """What storage, cookie and JS reads go to: the page, popup or frame the session is in."""
        return self._target


def _close(popup: "PlaywrightPage") -> None:
    try:
        popup.close()
    except PlaywrightError:
        pass

