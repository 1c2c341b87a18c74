"""One scenario attempt's browser context and page, and everything observed in it.

A `PageSession` owns a fresh context + page (made by `Browser.new_session`) and records, from
the moment it opens: analytics beacons from every request the page makes (`sendBeacon`, fetch,
XHR, images), console errors and uncaught page errors, the last network requests with status
and timing, blocked requests and navigations, dialogs and popups. Nothing here judges a step:
the walker asks (`check_navigation`, `beacons`, `console_errors`) and decides.

It is built from one part per concern, each in its own module: `policy.NetworkPolicy` (the
allowlist, offline routing, vendors answered locally), `recording.Recorder` (what the page's
events leave), `page_evidence.PageEvidence` (screenshots, snapshots, the last click, the
evidence of a failure) and, here, the session's life: wiring, liveness (`crashed`, `crashed_by`,
`translating`), navigation (`goto`, `check_navigation`, `uncommitted`), waiting and closing. Every
read of the page and every action on it goes through `page` (browser/page.py); Playwright's own
page and context (`playwright_page`, `playwright_context`) are the browser layer's alone.

Behaviour a user sees, on purpose:

* Top-level navigations obey the allowlist (flow-spec v1 `allowed_hosts`): `goto` refuses an
  outside host before navigating; a link, form, script or redirect that tries to leave is stopped
  in the browser (the page stays where it was; for a server redirect the browser shows its error
  page) and `check_navigation()` raises `NavigationBlocked`.
* Offline routing (default): subresource requests to hosts outside loopback, the entry host and
  the allowed hosts are aborted and listed in `evidence()["blocked"]`. Analytics vendors' hosts are
  always answered locally with 204 and never leave the machine.
* Dialogs are answered at once and recorded: as the act that opens one says (`dialog_plan`), else
  alert, confirm and prompt are dismissed (confirm -> false, prompt -> null, Playwright's default);
  a `beforeunload` prompt is accepted, because a step that navigates away means to leave, and
  staying would turn it into a confusing timeout.
* Popups (`window.open`, `target=_blank`) are recorded with their URL and closed; the scenario
  stays on its page. An act that says it opens one goes into it instead (browser/windows.py).
* Where clicks land: one init script notes, for the last trusted `pointerdown` and `click` of each
  document, what the event reached (tag, id, a few classes, data-testid, the start of its text) and
  when. It only listens (capture phase on `window`, passive) and never throws; nothing reads it on
  the passing path. `last_click()` reads it in one bounded call, for a failure's evidence.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from flowwalk.browser.errors import BrowserCrashed, NavigationBlocked, PageError, closed, translating
from flowwalk.browser.network import host_of
from flowwalk.browser.page import Page
from flowwalk.browser.page_evidence import PageEvidence
from flowwalk.browser.policy import NetworkPolicy, RouteForward
from flowwalk.browser.recording import MAX_URL, Recorder, clip
from flowwalk.browser.routing import Router
from flowwalk.browser.scripts import context_script
from flowwalk.browser.state import RequestLog, StateReader
from flowwalk.browser.windows import Windows
from flowwalk.model import Route

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Request, Response
    from playwright.sync_api import Page as PlaywrightPage

__all__ = ["PageSession", "RouteForward"]


class PageSession(NetworkPolicy, Recorder, PageEvidence, Windows):
    """A fresh browser context + page for one scenario attempt (see the module docstring)."""

    playwright_page: "PlaywrightPage"
    #: the spec's own answers to requests (`answer`), when it has any
    router: Router | None = None
    #: where the first navigation landed (after its redirects): the history's first page
    first_page: str | None = None

    def __init__(self, *, context: "BrowserContext", page: "PlaywrightPage", entry_url: str | None,
                 allowed_hosts: tuple[str, ...], offline: bool = True, tracing: bool = False,
                 browser_alive: Callable[[], bool] = lambda: True, scripted: bool = False,
                 close_context: Callable[["BrowserContext"], None] | None = None,
                 routed: RouteForward | None = None, init_script: str | None = None):
        self.playwright_context = context
        self.playwright_page = page
        self._init_policy(entry_url, allowed_hosts, offline)
        self._init_records()
        #: every request the page sent, for request checks (browser/state.py)
        self.request_log = RequestLog()
        self._state: StateReader | None = None
        self._tracing = tracing
        self._browser_alive = browser_alive
        #: the URL of this page's main-frame navigation that has no answer yet (`uncommitted`)
        self._document_pending: str | None = None
        self._crashed = False
        self._closed = False
        #: every read and action on the page (browser/page.py)
        self.page = Page(page, self.crashed_by)
        self._init_windows()
        #: closes the context without waiting for it (Browser.new_session), else close() waits
        self._close_context = close_context
        #: the pages this session listens to (`_wire_page`), which `release` leaves
        self._wired: list["PlaywrightPage"] = []
        self._install(scripted, routed, init_script or context_script())

    # --- wiring -----------------------------------------------------------------------------------

    def _install(self, scripted: bool, routed: RouteForward | None, init_script: str) -> None:
        """Listeners, the context's init script (`init_script`: the run's test-id attributes and the
        click recorder, `context_script`; unless `scripted`: the context has it already) and the route (unless `routed`, the context's own, was made for this session's hosts)."""
        context, page = self.playwright_context, self.playwright_page
        context.on("request", self._on_request)
        context.on("response", self._on_response)
        context.on("requestfailed", self._on_request_failed)
        self._wire_page(page)
        page.on("crash", self._on_crash)
        # where clicks land, for a failure's evidence (see last_click); never read on the passing path
        if not scripted:
            context.add_init_script(script=init_script)
        if routed is not None:
            self._route = (routed.pattern, routed.handle)
            if routed.key == self.route_key:
                routed.target = self._handle_routed
                return
        self._route_outside_hosts()

    def _wire_page(self, page: "PlaywrightPage") -> None:
        """The listeners of a page: the session's, and a popup's an act kept (browser/windows.py)."""
        self._wired.append(page)
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("framenavigated", self._on_frame_navigated)
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)

    def answer(self, routes: tuple[Route, ...]) -> None:
        """From now on, answer the requests `routes` match as they say (browser/routing.py)."""
        self.router = Router(self.playwright_context, self.playwright_page, routes, self.entry_host,
                             self.allowed_hosts)

    # --- event handlers (run inside Playwright's dispatcher: they must never raise) ---------------

    def _on_request(self, request: "Request") -> None:
        url = request.url
        host = host_of(url)
        if self._is_own_document(request):
            self._document_pending = url
        self._record_request(request, url, host)
        self.request_log.add(request)
        if request.redirected_from is not None and url.lower().startswith(("http://", "https://")):
            self._check_redirect(request, url, host)

    def _finish(self, request: "Request", status: int | None, failure: str | None) -> None:
        if self._document_pending is not None and request.url == self._document_pending \
                and self._is_own_document(request):
            self._document_pending = None
        self._record_finished(request, status, failure)
        self.request_log.answer(request, status, failure)

    def _on_response(self, response: "Response") -> None:
        self._finish(response.request, response.status, None)
        self._record_framing(response)

    def _on_request_failed(self, request: "Request") -> None:
        self._finish(request, None, request.failure or "failed")

    def _on_frame_navigated(self, frame: "Frame") -> None:
        if frame.parent_frame is not None:
            return
        url = frame.url
        # a safety net for an answer whose event went missing: the pending document committed
        # (a same-document navigation, pushState or a fragment, does not end a pending one)
        if self._document_pending is not None and url.split("#")[0] == self._document_pending.split("#")[0]:
            self._document_pending = None
        self.navigations.append(clip(url, MAX_URL))
        # A navigation the routes could not stop (offline off and a redirect): the page is there now.
        if url.lower().startswith(("http://", "https://")) and not self.is_allowed(url):
            self._block_navigation(url, "navigation")

    def _on_crash(self, _page: "PlaywrightPage") -> None:
        self._crashed = True

    # --- liveness ---------------------------------------------------------------------------------

    @property
    def state(self) -> StateReader:
        """Reads of what the page keeps beyond its DOM: storage, cookies, JS values, requests (browser/state.py)."""
        if self._state is None:
            self._state = StateReader(self.state_target(), self.playwright_context, self.request_log,
                                      crashed=self.crashed_by)
        return self._state

    @property
    def crashed(self) -> bool:
        """The renderer crashed or the browser is gone."""
        return self._crashed or not self._browser_alive()

    def crashed_by(self, exc: BaseException) -> bool:
        """Does `exc`, a Playwright error, mean the browser or the renderer is gone? Yes when it
        crashed; yes for a closed page, context or browser that neither flowwalk nor the site closed."""
        return self.crashed or (closed(exc) and not self._closed and not self._page_closed_by_site())

    def translating(self, selector: str | None = None) -> AbstractContextManager[None]:
        """The one translation of Playwright's errors (browser/errors.py), with this session's answer
        to "is it a crash?"."""
        return translating(selector, crashed=self.crashed_by)

    def _page_closed_by_site(self) -> bool:
        """window.close() closes the page while the browser lives on: not a crash.

        The context answering a call is the proof: asking only the client-side flags would race
        with the events of a browser that is dying right now.
        """
        try:
            if not self.playwright_page.is_closed() or self._crashed:
                return False
            self.playwright_context.cookies()
        except Exception:  # noqa: BLE001 - the context is gone with the browser
            return False
        return True

    def raise_if_crashed(self) -> None:
        if self.crashed:
            raise BrowserCrashed("the browser or page crashed")

    def pump(self) -> None:
        """Let Playwright deliver pending events (requests, navigations, console) to the listeners."""
        self.wait(0)

    def wait(self, ms: float) -> None:
        """Sleep `ms` while Playwright keeps delivering events (beacons, navigations) meanwhile."""
        self.raise_if_crashed()
        if self._closed or self.playwright_page.is_closed():
            time.sleep(ms / 1000)
            return
        with self.translating():
            self.playwright_page.wait_for_timeout(ms)

    # --- navigation -------------------------------------------------------------------------------

    def goto(self, url: str, timeout_ms: int, wait_until: str = "load") -> None:
        """Navigate the page. Raises NavigationBlocked for a host outside the allowlist (before
        navigating) or a redirect that tried to leave it; BrowserCrashed when the browser died;
        `TimedOut` / `PageError` for a slow or failing page."""
        self.raise_if_crashed()
        if self.entry_host is None and url.lower().startswith(("http://", "https://")):
            # a scenario without an entry URL: its first goto defines the entry host
            self.entry_host = host_of(url)
            self._route_outside_hosts()
        if not self.is_allowed(url):
            self._record_blocked(url, "navigation", "goto outside the allowlist")
            raise NavigationBlocked(host_of(url), url, "goto")
        with self._navigating():
            self.playwright_page.goto(url, timeout=timeout_ms, wait_until=wait_until)  # type: ignore[arg-type]
        if self.first_page is None:
            self.first_page = self.playwright_page.url

    @contextmanager
    def _navigating(self) -> Iterator[None]:
        """Around a navigation of the page: a crash is BrowserCrashed, a stop at the allowlist
        NavigationBlocked (raised for an error the stop caused, and after it when none did)."""
        self._blocked_navigation = None
        try:
            with self.translating():
                yield
        except PageError as exc:
            if self._blocked_navigation is not None:
                blocked, self._blocked_navigation = self._blocked_navigation, None
                raise blocked from exc
            raise
        self.check_navigation(pump=False)

    def history(self, move: str, timeout_ms: int) -> str | None:
        """The browser's back or forward button (`move` "go_back", "go_forward") or its reload
        ("reload"), waiting for the page to load (a same-document move: to commit). None when it
        moved; the URL the page stayed at when there was no page to go back or forward to (nothing
        navigated and the URL is the same; or, going back, the entry before is the blank page the
        context opened with, which no step navigated to). Raises like `goto`."""
        self.raise_if_crashed()
        page = self.playwright_page
        before = page.url
        moved = True
        with self._navigating():
            if move == "go_back" and not self._has_page_before():
                return before
            if move == "reload":
                page.reload(timeout=timeout_ms, wait_until="load")
            else:
                go = page.go_back if move == "go_back" else page.go_forward
                moved = go(timeout=timeout_ms, wait_until="load") is not None or page.url != before
        return None if moved else before

    def _has_page_before(self) -> bool:
        """Whether the history holds a page before the current entry other than the context's first
        about:blank (Chromium's own history: Playwright does not show it)."""
        cdp = self.playwright_context.new_cdp_session(self.playwright_page)
        try:
            history = cdp.send("Page.getNavigationHistory")
        finally:
            cdp.detach()
        index = int(history["currentIndex"])
        return index > 0 and str(history["entries"][index - 1]["url"]) != "about:blank"

    def check_navigation(self, pump: bool = True) -> None:
        """Raise NavigationBlocked if a top-level navigation since the last check left the allowlist."""
        if pump and not self._closed and not self.playwright_page.is_closed() and not self.crashed:
            try:
                self.pump()
            except PageError:
                pass
        if self._blocked_navigation is not None:
            blocked, self._blocked_navigation = self._blocked_navigation, None
            raise blocked

    def uncommitted(self) -> str | None:
        """Why the page has no committed document to show, or None when it has one. While a
        main-frame navigation waits for its answer the browser holds an accessibility snapshot or
        a screenshot until the new document commits (30 s for a document that takes 30 s), so
        failure evidence is skipped then. Kept from the events as they arrive: no round trip."""
        if self._document_pending is not None:
            return (f"the page has not committed a document: the navigation to "
                    f"'{self._document_pending[:300]}' has no answer yet")
        try:
            url = self.playwright_page.url
        except Exception:  # noqa: BLE001
            return None
        if url == "about:blank":
            return "the page has not committed a document (it is still about:blank)"
        return None

    # --- the context ------------------------------------------------------------------------------

    def release(self) -> None:
        """Stop listening to the context and its pages and stop routing its requests, leaving both
        open to whoever owns them (a recording walks a spec in its own context, then takes it back:
        record/walked.py). The session is closed from here on; closing the context is the owner's."""
        self._closed = True
        context = self.playwright_context
        handlers: tuple[tuple[str, Callable[..., None]], ...]
        handlers = (("console", self._on_console), ("pageerror", self._on_page_error),
                    ("framenavigated", self._on_frame_navigated), ("dialog", self._on_dialog),
                    ("popup", self._on_popup))
        for event, handler in (("request", self._on_request), ("response", self._on_response),
                               ("requestfailed", self._on_request_failed)):
            context.remove_listener(event, handler)
        for page in self._wired:
            for event, handler in handlers:
                page.remove_listener(event, handler)
        if self._wired:
            self._wired[0].remove_listener("crash", self._on_crash)   # the first page's (`_install`)
        self._wired.clear()
        if self._route is not None:
            try:
                context.unroute(*self._route)
            except Exception:  # noqa: BLE001 - a closed context has no route left to take off
                pass
            self._route = None

    def storage_state(self) -> dict[str, Any]:
        """The context's cookies and local storage (Playwright's storage state), as data: never
        written to a file (a saved session holds credentials in effect)."""
        with self.translating():
            state = self.playwright_context.storage_state()
        return dict(state)

    def stop_trace(self, trace_path: Path) -> bool:
        """Stop tracing and save the trace to `trace_path`, leaving the context open (its state can
        still be read). Never raises: False when there is no trace (not tracing, closed, a dead browser)."""
        if not self._tracing or self._closed:
            return False
        self._tracing = False
        try:
            Path(trace_path).parent.mkdir(parents=True, exist_ok=True)
            self.playwright_context.tracing.stop(path=str(trace_path))
        except Exception:  # noqa: BLE001 - a dead browser has no trace to give
            return False
        return Path(trace_path).is_file()

    def close(self, trace_path: Path | None = None) -> None:
        """Close the context, saving the trace to `trace_path` when tracing. Idempotent, never raises."""
        if self._closed:
            return
        self._closed = True
        if self._tracing:
            try:
                if trace_path is not None:
                    Path(trace_path).parent.mkdir(parents=True, exist_ok=True)
                    self.playwright_context.tracing.stop(path=str(trace_path))
                else:
                    self.playwright_context.tracing.stop()
            except Exception:  # noqa: BLE001 - a dead browser has no trace to give
                pass
        try:
            if self._close_context is not None and not self._tracing:
                self._close_context(self.playwright_context)
            else:
                self.playwright_context.close()
        except Exception:  # noqa: BLE001
            pass
