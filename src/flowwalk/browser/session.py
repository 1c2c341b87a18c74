"""One scenario attempt's browser context and page, and everything observed in it.

A `PageSession` owns a fresh context + page (made by `Browser.new_session`) and records, from
the moment it opens: analytics beacons from every request the page makes (`sendBeacon`, fetch,
XHR, images), console errors and uncaught page errors, the last network requests with status
and timing, blocked requests and navigations, dialogs and popups. Nothing here judges a step:
the walker asks (`check_navigation`, `beacons`, `console_errors`) and decides.

Behaviour a user sees, on purpose:

* Top-level navigations obey the allowlist (flow-spec v1 `allowed_hosts`): `goto` refuses an
  outside host before navigating; a link, form, script or redirect that tries to leave is stopped
  in the browser (the page stays where it was; for a server redirect the browser shows its error
  page) and `check_navigation()` raises `NavigationBlocked`.
* Offline routing (default): subresource requests to hosts outside loopback, the entry host and
  the allowed hosts are aborted and listed in `evidence()["blocked"]`. Analytics vendors' hosts are
  always answered locally with 204 and never leave the machine.
* Dialogs are answered at once and recorded: alert, confirm and prompt are dismissed (confirm ->
  false, prompt -> null); a `beforeunload` prompt is accepted, because a step that navigates away
  means to leave, and staying would turn it into a confusing timeout.
* Popups (`window.open`, `target=_blank`) are recorded with their URL and closed; the scenario
  stays on its page.
* Where clicks land: one init script notes, for the last trusted `pointerdown` and `click` of each
  document, what the event reached (tag, id, a few classes, data-testid, the start of its text) and
  when. It only listens (capture phase on `window`, passive) and never throws; nothing reads it on
  the passing path. `last_click()` reads it in one bounded call, for a failure's evidence.
"""

from __future__ import annotations

import re
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from flowwalk.browser.errors import (
    BrowserCrashed,
    NavigationBlocked,
    PageError,
    PlaywrightError,
    first_line,
    is_closed_error,
)
from flowwalk.browser.probe import QUIET_INIT_JS, PageReader
from flowwalk.browser.network import (
    Beacon,
    host_of,
    navigation_allowed,
    outside_pattern,
    parse_beacons,
    request_allowed,
    vendor_for_host,
    vendor_pattern,
)

if TYPE_CHECKING:
    from playwright.sync_api import (
        BrowserContext,
        ConsoleMessage,
        Dialog,
        Frame,
        Page,
        Request,
        Response,
        Route,
    )

__all__ = ["Beacon", "NavigationBlocked", "PageSession", "SNAPSHOT_LIMIT"]

_MASK_ATTRIBUTE = "data-flowwalk-secret"
#: marks the fields whose value, and the elements whose own text, hold a secret (in every open
#: shadow root too); returns how many it marked
_MARK_SECRETS = """(secrets) => {
  let marked = 0;
  const holds = (text) => !!text && secrets.some((s) => text.includes(s));
  const mark = (el) => { if (!el.hasAttribute('%s')) { el.setAttribute('%s', ''); marked++; } };
  const visit = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (('value' in el && typeof el.value === 'string' && holds(el.value))
          || Array.from(el.childNodes).some((n) => n.nodeType === 3 && holds(n.nodeValue))
          || holds(el.getAttribute('title')) || holds(el.getAttribute('placeholder'))) mark(el);
      if (el.shadowRoot) visit(el.shadowRoot);
    }
  };
  visit(document);
  return marked;
}""" % (_MASK_ATTRIBUTE, _MASK_ATTRIBUTE)
_UNMARK_SECRETS = """() => { for (const el of document.querySelectorAll('[%s]')) el.removeAttribute('%s'); }""" % (
    _MASK_ATTRIBUTE, _MASK_ATTRIBUTE)

#: the window property the click recorder keeps its record in: non-enumerable, read-only, and a
#: name no site uses
_CLICK_RECORD = "__flowwalk_click_record_5c3e81"
#: runs first in every document of the context (add_init_script). For the last trusted pointerdown
#: and click it keeps a short description of the target and Date.now() (the function as it was
#: before any page script could replace it), and a weak reference to the element, so a failure can
#: compare it with the intended one. Listens only: passive, capture phase, never throws.
_RECORD_CLICKS = """(() => {
  try {
    const name = '%s';
    if (Object.prototype.hasOwnProperty.call(window, name)) return;
    const record = Object.create(null);
    record.pointerdown = null;
    record.click = null;
    Object.defineProperty(window, name, { value: record, enumerable: false, configurable: false, writable: false });
    const now = Date.now;
    const Ref = typeof WeakRef === 'function' ? WeakRef : null;
    const clip = (text, n) => (typeof text === 'string' && text.length > n ? text.slice(0, n - 1) + '\\u2026' : text);
    const textOf = (el) => {
      let out = '';
      try {
        const walker = (el.ownerDocument || document).createTreeWalker(el, 4);
        let seen = 0, node;
        while (out.length <= 80 && seen < 200 && (node = walker.nextNode())) {
          seen++;
          const parent = node.parentElement;
          if (parent && (parent.localName === 'script' || parent.localName === 'style')) continue;
          out = (out + ' ' + String(node.nodeValue || '').slice(0, 200)).replace(/\\s+/g, ' ');
        }
      } catch (e) { /* an unusual node: no text */ }
      return clip(out.trim(), 80);
    };
    const note = (type) => (event) => {
      try {
        if (!event.isTrusted) return;
        let el = event.target;
        if (el && el.nodeType !== 1) el = el.parentElement || el;
        const entry = { t: now.call(Date), tag: '', id: '', classes: [], testid: '', text: '', ref: null };
        if (el && el.nodeType === 1) {
          entry.tag = String(el.localName || el.nodeName || '').toLowerCase();
          entry.id = clip(el.id || '', 60);
          entry.classes = Array.prototype.slice.call(el.classList || [], 0, 3).map((c) => clip(c, 40));
          entry.testid = clip(el.getAttribute('data-testid') || '', 60);
          entry.text = textOf(el);
          entry.ref = Ref ? new Ref(el) : null;
        } else {
          entry.tag = el && el.nodeName ? String(el.nodeName).toLowerCase() : 'window';
        }
        record[type] = entry;
      } catch (e) { /* never disturb the page */ }
    };
    window.addEventListener('pointerdown', note('pointerdown'), { capture: true, passive: true });
    window.addEventListener('click', note('click'), { capture: true, passive: true });
  } catch (e) { /* never disturb the page */ }
})();""" % _CLICK_RECORD
#: the init script every scenario context carries (the click recorder); `Browser` adds it to the
#: contexts it opens ahead of their scenario
#: every context's init script: the click recorder, and the record of when the page last changed
#: (browser/probe.py QUIET_INIT_JS)
CONTEXT_SCRIPT = _RECORD_CLICKS + "\n" + QUIET_INIT_JS
_VENDOR = vendor_pattern()
#: reads the record (one call, failure path only). With a CSS selector it also says whether each
#: target is inside an element the selector matches now (or inside the button or link around it,
#: which is what Playwright's click aims at); `in_pointerdown` says whether the click reached the
#: element that took the mouse-down (or one inside it).
_READ_CLICKS = """/* flowwalk: where the last click landed */ (root, selector) => {
  const record = window['%s'];
  if (!record) return null;
  let zones = null, invalid = false;
  if (selector) {
    try {
      zones = Array.from(document.querySelectorAll(selector))
        .map((m) => m.closest('button, [role=button], a, [role=link]') || m);
    } catch (e) { invalid = true; }
  }
  const element = (entry) => {
    try { return entry && entry.ref ? entry.ref.deref() || null : null; } catch (e) { return null; }
  };
  const show = (entry) => {
    if (!entry) return null;
    const el = element(entry);
    const out = { t: entry.t, tag: entry.tag, id: entry.id, classes: entry.classes.slice(), testid: entry.testid,
                  text: entry.text, connected: !!(el && el.isConnected) };
    if (zones && zones.length && out.connected) out.inside = zones.some((z) => z === el || z.contains(el));
    return out;
  };
  const down = element(record.pointerdown), hit = element(record.click);
  return { click: show(record.click), pointerdown: show(record.pointerdown),
           in_pointerdown: down && hit ? (down === hit || down.contains(hit)) : null,
           matches: zones ? zones.length : null, invalid_selector: invalid };
}""" % _CLICK_RECORD
#: the most a read of the click record may take
LAST_CLICK_TIMEOUT_MS = 1_000

#: aria snapshots go into failure evidence; a whole page's tree can be megabytes
SNAPSHOT_LIMIT = 20_000
MAX_CONSOLE_ERRORS = 200
MAX_RECORDS = 100          # blocked requests, dialogs, popups
MAX_MESSAGE = 2000         # characters kept of one console message or page error
MAX_URL = 500
NETWORK_KEPT = 30
CONSOLE_KEPT = 20
# Chromium logs a failed subresource; when it failed on flowwalk's own offline sink it is noise.
_OWN_BLOCK_MARKERS = ("net::ERR_PROXY_CONNECTION_FAILED", "net::ERR_BLOCKED_BY_CLIENT")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def route_pattern(entry_host: str | None, allowed_hosts: tuple[str, ...]) -> re.Pattern[str]:
    """The URLs a session routes to Python: the analytics vendors and the hosts outside its allowlist."""
    outside = outside_pattern(entry_host, allowed_hosts)
    return re.compile(f"(?:{_VENDOR.pattern})|(?:{outside.pattern})", re.IGNORECASE)


class RouteForward:
    """A route registered before its session exists (Browser's spare context, before its page:
    then it costs no round trip to a page), handing each routed request to the session that
    takes the context. `key` is the (entry host, allowed hosts) the pattern was made for."""

    def __init__(self, key: tuple[str | None, tuple[str, ...]]):
        self.key = key
        self.pattern = route_pattern(*key)
        self.target: Callable[["Route", "Request"], None] | None = None

    def handle(self, route: "Route", request: "Request") -> None:
        if self.target is not None:
            self.target(route, request)
        else:
            route.fallback()


class PageSession:
    """A fresh browser context + page for one scenario attempt (see the module docstring)."""

    page: "Page"
    beacons: list[Beacon]
    console_errors: list[str]

    def __init__(self, *, context: "BrowserContext", page: "Page", entry_url: str | None,
                 allowed_hosts: tuple[str, ...], offline: bool = True, tracing: bool = False,
                 browser_alive: Callable[[], bool] = lambda: True, scripted: bool = False,
                 close_context: Callable[["BrowserContext"], None] | None = None,
                 routed: RouteForward | None = None):
        self.context = context
        self.page = page
        self.entry_url = entry_url
        self.entry_host: str | None = host_of(entry_url) if entry_url else None
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        self.offline = offline
        self.beacons = []
        self.console_errors = []
        #: how many console errors and page errors happened (the list keeps the last ones only)
        self.console_error_count = 0
        self.page_errors: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self.console: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self.network: deque[dict[str, Any]] = deque(maxlen=NETWORK_KEPT)
        self.blocked: list[dict[str, Any]] = []
        self.dialogs: list[dict[str, Any]] = []
        self.popups: list[dict[str, Any]] = []
        #: top-level URLs the page committed, in order (last 20)
        self.navigations: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self._tracing = tracing
        self._browser_alive = browser_alive
        self._t0 = time.monotonic()
        self._pending: dict["Request", tuple[dict[str, Any], float]] = {}
        self._blocked_navigation: NavigationBlocked | None = None
        #: the URL of this page's main-frame navigation that has no answer yet (`uncommitted`)
        self._document_pending: str | None = None
        self._crashed = False
        self._closed = False
        self._reader: PageReader | None = None
        #: the route in place: (its pattern, its handler)
        self._route: tuple[re.Pattern[str], Callable[..., None]] | None = None
        #: closes the context without waiting for it (Browser.new_session), else close() waits
        self._close_context = close_context
        self._install(scripted, routed)

    # --- wiring -----------------------------------------------------------------------------------

    def _install(self, scripted: bool, routed: RouteForward | None) -> None:
        """Listeners, the click recorder (unless `scripted`: the context has CONTEXT_SCRIPT already)
        and the route (unless `routed`, the context's own, was made for this session's hosts)."""
        context, page = self.context, self.page
        context.on("request", self._on_request)
        context.on("response", self._on_response)
        context.on("requestfailed", self._on_request_failed)
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)
        page.on("framenavigated", self._on_frame_navigated)
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        page.on("crash", self._on_crash)
        # where clicks land, for a failure's evidence (see last_click); never read on the passing path
        if not scripted:
            context.add_init_script(script=CONTEXT_SCRIPT)
        if routed is not None:
            self._route = (routed.pattern, routed.handle)
            if routed.key == self.route_key:
                routed.target = self._handle_routed
                return
        self._route_outside_hosts()

    @property
    def route_key(self) -> tuple[str | None, tuple[str, ...]]:
        """What this session's route is made for: its entry host and its allowed hosts."""
        return self.entry_host, self.allowed_hosts

    def _route_outside_hosts(self) -> None:
        """One route for the vendor hosts and the hosts outside the allowlist: a route made once
        the page exists costs a round trip to Chromium, on the scenario's path (Browser makes the
        next one with its spare context, before the page, when it can tell the hosts)."""
        if self._route is not None:
            self.context.unroute(*self._route)
        self._route = (route_pattern(*self.route_key), self._handle_routed)
        self.context.route(*self._route)

    def _handle_routed(self, route: "Route", request: "Request") -> None:
        # vendors first: they never leave the machine, even when a vendor host is also allowed
        if _VENDOR.match(request.url):
            self._answer_vendor(route, request)
        else:
            self._handle_outside(route, request)

    def t(self) -> float:
        """Seconds since the session opened."""
        return time.monotonic() - self._t0

    # --- allowlist --------------------------------------------------------------------------------

    def is_allowed(self, url: str) -> bool:
        """May the top-level page go to `url`? (http/https only; about:blank always.)"""
        if url.startswith("about:"):
            return True
        if not url.lower().startswith(("http://", "https://")):
            return False
        return navigation_allowed(host_of(url), self.entry_host, self.allowed_hosts)

    def _record_blocked(self, url: str, kind: str, reason: str) -> None:
        if len(self.blocked) < MAX_RECORDS:
            self.blocked.append({"url": _clip(url, MAX_URL), "kind": kind, "reason": reason, "t": round(self.t(), 3)})

    def _block_navigation(self, url: str, how: str) -> None:
        self._record_blocked(url, "navigation", "outside the allowlist")
        if self._blocked_navigation is None:
            self._blocked_navigation = NavigationBlocked(host_of(url), url, how)

    def _is_top_level(self, request: "Request") -> bool:
        try:
            frame = request.frame
        except PlaywrightError:   # service-worker requests have no frame
            return False
        return request.is_navigation_request() and frame.parent_frame is None

    # --- event handlers (run inside Playwright's dispatcher: they must never raise) ---------------

    def _is_own_document(self, request: "Request") -> bool:
        """Is `request` a navigation of this page's main frame (not a popup's, not a frame's)?"""
        if request.resource_type != "document":   # cheap: most requests stop here
            return False
        try:
            return self._is_top_level(request) and request.frame.page == self.page
        except PlaywrightError:
            return False

    def _on_request(self, request: "Request") -> None:
        url = request.url
        host = host_of(url)
        if self._is_own_document(request):
            self._document_pending = url
        if vendor_for_host(host) is not None:
            try:
                body = request.post_data
            except (UnicodeDecodeError, PlaywrightError):
                buffer = request.post_data_buffer
                body = buffer.decode("utf-8", "replace") if buffer else None
            self.beacons.extend(parse_beacons(url, request.method, body, self.t()))
        entry = {"method": request.method, "url": _clip(url, MAX_URL), "resource_type": request.resource_type,
                 "status": None, "duration_ms": None}
        self.network.append(entry)
        self._pending[request] = (entry, time.monotonic())
        if len(self._pending) > 500:   # long polls that never finish must not grow without bound
            self._pending.pop(next(iter(self._pending)))
        if request.redirected_from is not None and url.lower().startswith(("http://", "https://")):
            # redirect hops are never routed; the offline proxy stops them, this records them
            if self._is_top_level(request) and not navigation_allowed(host, self.entry_host, self.allowed_hosts):
                if request.frame.page == self.page:
                    self._block_navigation(url, "redirect")
                else:
                    self._record_blocked(url, "navigation", "popup outside the allowlist")
            elif self.offline and not request_allowed(host, self.entry_host, self.allowed_hosts):
                self._record_blocked(url, "subresource", "offline: third-party host (redirect)")

    def _finish(self, request: "Request", status: int | None, failure: str | None) -> None:
        if self._document_pending is not None and request.url == self._document_pending \
                and self._is_own_document(request):
            self._document_pending = None
        pending = self._pending.pop(request, None)
        if pending is None:
            return
        entry, started = pending
        entry["status"] = status
        if failure:
            entry["failure"] = failure
        timing = request.timing
        if status is not None and timing and timing.get("responseStart", -1) >= 0:
            entry["duration_ms"] = round(float(timing["responseStart"]), 1)
        else:
            entry["duration_ms"] = round((time.monotonic() - started) * 1000, 1)

    def _on_response(self, response: "Response") -> None:
        self._finish(response.request, response.status, None)

    def _on_request_failed(self, request: "Request") -> None:
        self._finish(request, None, request.failure or "failed")

    def _handle_outside(self, route: "Route", request: "Request") -> None:
        """A request to a host outside the navigation allowlist (the pattern pre-filters)."""
        url = request.url
        host = host_of(url)
        try:
            if self._is_top_level(request):
                if navigation_allowed(host, self.entry_host, self.allowed_hosts):
                    route.continue_()
                    return
                if request.frame.page == self.page:
                    self._block_navigation(url, "navigation")
                else:
                    self._record_blocked(url, "navigation", "popup outside the allowlist")
                # ERR_ABORTED cancels a navigation without committing an error page: the page stays
                route.abort("aborted")
            elif self.offline and not request_allowed(host, self.entry_host, self.allowed_hosts):
                self._record_blocked(url, "subresource", "offline: third-party host")
                route.abort("aborted")
            else:
                route.continue_()
        except PlaywrightError:  # the page or context closed while the request was paused
            pass

    def _answer_vendor(self, route: "Route", request: "Request") -> None:
        # Beacons were parsed from the request event; here the call is only answered. CORS headers
        # keep fetch/XHR callers (Segment, Plausible) from logging console errors about it.
        origin = request.headers.get("origin")
        headers = {"access-control-allow-origin": origin or "*", "cache-control": "no-store"}
        if origin:
            headers["access-control-allow-credentials"] = "true"
        try:
            route.fulfill(status=204, headers=headers, body="")
        except PlaywrightError:
            pass

    def _on_console(self, message: "ConsoleMessage") -> None:
        kind = message.type
        text = _clip(message.text, MAX_MESSAGE)
        self.console.append(f"{kind}: {text}")
        if kind == "error" and not any(marker in text for marker in _OWN_BLOCK_MARKERS):
            self._add_error(text)

    def _on_page_error(self, error: Any) -> None:
        name = getattr(error, "name", "") or "Error"
        message = getattr(error, "message", "") or str(error)
        text = _clip(f"{name}: {message}" if not message.startswith(name) else message, MAX_MESSAGE)
        self.page_errors.append(text)
        self._add_error(text)

    def _add_error(self, text: str) -> None:
        self.console_error_count += 1
        self.console_errors.append(text)
        if len(self.console_errors) > MAX_CONSOLE_ERRORS:
            del self.console_errors[0]

    def _on_frame_navigated(self, frame: "Frame") -> None:
        if frame.parent_frame is not None:
            return
        url = frame.url
        # a safety net for an answer whose event went missing: the pending document committed
        # (a same-document navigation, pushState or a fragment, does not end a pending one)
        if self._document_pending is not None and url.split("#")[0] == self._document_pending.split("#")[0]:
            self._document_pending = None
        self.navigations.append(_clip(url, MAX_URL))
        # A navigation the routes could not stop (offline off and a redirect): the page is there now.
        if url.lower().startswith(("http://", "https://")) and not self.is_allowed(url):
            self._block_navigation(url, "navigation")

    def _on_dialog(self, dialog: "Dialog") -> None:
        kind = dialog.type
        action = "accepted" if kind == "beforeunload" else "dismissed"
        if len(self.dialogs) < MAX_RECORDS:
            self.dialogs.append({"type": kind, "message": _clip(dialog.message, MAX_MESSAGE),
                                 "action": action, "t": round(self.t(), 3)})
        try:
            dialog.accept() if kind == "beforeunload" else dialog.dismiss()
        except PlaywrightError:
            pass

    def _on_popup(self, popup: "Page") -> None:
        if len(self.popups) < MAX_RECORDS:
            self.popups.append({"url": _clip(popup.url, MAX_URL), "t": round(self.t(), 3), "action": "closed"})
        try:
            popup.close()
        except PlaywrightError:
            pass

    def _on_crash(self, _page: "Page") -> None:
        self._crashed = True

    # --- liveness ---------------------------------------------------------------------------------

    @property
    def reader(self) -> PageReader:
        """Reads of this session's page (browser/probe.py)."""
        if self._reader is None:
            self._reader = PageReader(self.page)
        return self._reader

    @property
    def crashed(self) -> bool:
        """The renderer crashed or the browser is gone."""
        return self._crashed or not self._browser_alive()

    def translate(self, exc: BaseException) -> BaseException:
        """`BrowserCrashed` for an error caused by a dead browser or renderer, else `exc` itself."""
        if isinstance(exc, BrowserCrashed):
            return exc
        if isinstance(exc, (PlaywrightError, PageError)) and (self.crashed or (
                is_closed_error(exc) and not self._closed and not self._page_closed_by_site())):
            return BrowserCrashed(f"the browser or page crashed: {first_line(exc)}")
        return exc

    def _page_closed_by_site(self) -> bool:
        """window.close() closes the page while the browser lives on: not a crash.

        The context answering a call is the proof: asking only the client-side flags would race
        with the events of a browser that is dying right now.
        """
        try:
            if not self.page.is_closed() or self._crashed:
                return False
            self.context.cookies()
        except Exception:  # noqa: BLE001 - the context is gone with the browser
            return False
        return True

    @contextmanager
    def guard(self) -> Iterator[None]:
        """`with session.guard(): session.page.click(...)` turns a dead browser into BrowserCrashed."""
        try:
            yield
        except PlaywrightError as exc:
            translated = self.translate(exc)
            if translated is exc:
                raise
            raise translated from exc

    def in_flight(self) -> int:
        """How many of the page's requests have no answer yet (discover waits for none)."""
        return len(self._pending)

    def raise_if_crashed(self) -> None:
        if self.crashed:
            raise BrowserCrashed("the browser or page crashed")

    def pump(self) -> None:
        """Let Playwright deliver pending events (requests, navigations, console) to the listeners."""
        self.wait(0)

    def wait(self, ms: float) -> None:
        """Sleep `ms` while Playwright keeps delivering events (beacons, navigations) meanwhile."""
        self.raise_if_crashed()
        if self._closed or self.page.is_closed():
            time.sleep(ms / 1000)
            return
        with self.guard():
            self.page.wait_for_timeout(ms)

    # --- the interface the walker uses --------------------------------------------------------------

    def goto(self, url: str, timeout_ms: int, wait_until: str = "load") -> None:
        """Navigate the page. Raises NavigationBlocked for a host outside the allowlist (before
        navigating) or a redirect that tried to leave it; BrowserCrashed when the browser died;
        Playwright's TimeoutError / Error for a slow or failing page."""
        self.raise_if_crashed()
        if self.entry_host is None and url.lower().startswith(("http://", "https://")):
            # a scenario without an entry URL: its first goto defines the entry host
            self.entry_host = host_of(url)
            self._route_outside_hosts()
        if not self.is_allowed(url):
            self._record_blocked(url, "navigation", "goto outside the allowlist")
            raise NavigationBlocked(host_of(url), url, "goto")
        self._blocked_navigation = None
        try:
            with self.guard():
                self.page.goto(url, timeout=timeout_ms, wait_until=wait_until)  # type: ignore[arg-type]
        except PlaywrightError as exc:
            if self._blocked_navigation is not None:
                blocked, self._blocked_navigation = self._blocked_navigation, None
                raise blocked from exc
            raise
        self.check_navigation(pump=False)

    def check_navigation(self, pump: bool = True) -> None:
        """Raise NavigationBlocked if a top-level navigation since the last check left the allowlist."""
        if pump and not self._closed and not self.page.is_closed() and not self.crashed:
            try:
                self.pump()
            except PlaywrightError:
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
            url = self.page.url
        except Exception:  # noqa: BLE001
            return None
        if url == "about:blank":
            return "the page has not committed a document (it is still about:blank)"
        return None

    def screenshot(self, path: Path, full_page: bool = False, hide: Sequence[str] = (),
                   timeout_ms: float = 10_000) -> bool:
        """Save a PNG within `timeout_ms`. Never raises: False when it could not (crashed, closed, timed out).

        `hide` lists values (the run's secrets) that must not be in the picture: every field
        whose value holds one and every element whose own text holds one is painted over.
        """
        if self._closed or self.crashed:
            return False
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            masked = self.page.evaluate(_MARK_SECRETS, [v for v in hide if v]) if hide else 0
            mask = [self.page.locator(f"[{_MASK_ATTRIBUTE}]")] if masked else []
            self.page.screenshot(path=str(path), full_page=full_page, timeout=timeout_ms, mask=mask,
                                 mask_color="#444444")
        except Exception:  # noqa: BLE001 - evidence is best effort
            return False
        finally:
            if hide and not self._closed and not self.crashed:
                try:
                    self.page.evaluate(_UNMARK_SECRETS)
                except Exception:  # noqa: BLE001
                    pass
        return True

    def a11y_snapshot(self, selector: str | None = None, limit: int = SNAPSHOT_LIMIT, timeout_ms: float = 5_000) -> str:
        """The aria snapshot of the page (or of a selector's first match), at most `limit` characters,
        taken within `timeout_ms`. '' if none."""
        if self._closed or self.crashed:
            return ""
        from flowwalk.browser.locate import locate

        try:
            if selector:
                found = locate(self.page, selector)
                if found.count == 0:
                    return ""   # evidence never waits for an element that is not there
                locator = found.locator.first
            else:
                locator = self.page.locator("body")
            text = locator.aria_snapshot(timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return ""
        if len(text) <= limit:
            return text
        cut = text.rfind("\n", 0, limit)
        cut = cut if cut > 0 else limit
        return text[:cut] + f"\n# … truncated ({len(text) - cut} more characters)"

    def title(self, timeout_ms: float = 2_000) -> str:
        """The document's title, '' when the page cannot say within `timeout_ms` (a main thread
        that never yields would hold `page.title()` for as long as it spins)."""
        if self._closed or self.crashed:
            return ""
        try:
            return str(self.page.locator(":root").evaluate("() => document.title", timeout=timeout_ms))
        except Exception:  # noqa: BLE001
            return ""

    def last_click(self, selector: str | None = None,
                   timeout_ms: float = LAST_CLICK_TIMEOUT_MS) -> dict[str, Any] | None:
        """What the last trusted `click` and `pointerdown` of the current document reached, read in
        one call of at most `timeout_ms`. Never raises: None when there is nothing to read (no record
        in this document, a page that does not answer, closed or crashed).

        Each of `click` and `pointerdown` is None or a dict: `t` (the page's Date.now() at the event),
        `tag`, `id`, `classes`, `testid`, `text` (at most 80 characters), `connected` (the element is
        still in the document) and, when `selector` is given and is CSS the page can parse, `inside`
        (the element is inside a current match of `selector`, or inside the button or link around
        one). Also `in_pointerdown` (the click reached the element that took the mouse-down, or one
        inside it; None unless both are known), `matches` (how many elements `selector` matches now,
        None without one) and `invalid_selector` (the page could not parse `selector` as CSS).
        """
        if self._closed or self.crashed:
            return None
        try:
            raw = self.page.locator(":root").evaluate(_READ_CLICKS, selector or None, timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return None
        return raw if isinstance(raw, dict) else None

    def evidence(self, timeout_ms: float | None = 2_000) -> dict[str, Any]:
        """What a failure report shows about the page: never raises, and asks the page (its title)
        for at most `timeout_ms`, not at all when None; everything else was recorded from events."""
        try:
            url = self.page.url
        except Exception:  # noqa: BLE001
            url = ""
        return {
            "url": url,
            "title": self.title(timeout_ms) if timeout_ms is not None else "",
            "console": list(self.console),
            "page_errors": list(self.page_errors),
            "console_error_count": self.console_error_count,
            "network": [dict(entry) for entry in self.network],
            "blocked": list(self.blocked),
            "dialogs": list(self.dialogs),
            "popups": list(self.popups),
            "crashed": self.crashed,
        }

    def storage_state(self) -> dict[str, Any]:
        """The context's cookies and local storage (Playwright's storage state), as data: never
        written to a file (a saved session holds credentials in effect)."""
        with self.guard():
            state = self.context.storage_state()
        return dict(state)

    def close(self, trace_path: Path | None = None) -> None:
        """Close the context, saving the trace to `trace_path` when tracing. Idempotent, never raises."""
        if self._closed:
            return
        self._closed = True
        if self._tracing:
            try:
                if trace_path is not None:
                    Path(trace_path).parent.mkdir(parents=True, exist_ok=True)
                    self.context.tracing.stop(path=str(trace_path))
                else:
                    self.context.tracing.stop()
            except Exception:  # noqa: BLE001 - a dead browser has no trace to give
                pass
        try:
            if self._close_context is not None and not self._tracing:
                self._close_context(self.context)
            else:
                self.context.close()
        except Exception:  # noqa: BLE001
            pass
