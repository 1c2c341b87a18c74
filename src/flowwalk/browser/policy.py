"""Where a session's page may go and what it may fetch: the allowlist, offline routing, and the
analytics vendors answered locally.

`NetworkPolicy` is the part of `PageSession` that decides about requests:

* top-level navigations obey the allowlist (flow-spec v1 `allowed_hosts`): `is_allowed` answers
  for `goto`; a link, form, script or redirect that tries to leave is stopped in the browser (the
  page stays where it was) and remembered for `check_navigation` to raise `NavigationBlocked`;
* offline routing (default): subresource requests to hosts outside loopback, the entry host and
  the allowed hosts are aborted and listed in `blocked`;
* analytics vendors' hosts are always answered locally with 204 and never leave the machine.

One route carries all of it (`route_pattern`): made before the page when `Browser` can tell the
hosts (`RouteForward`, on its spare context), else once the page exists.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.errors import NavigationBlocked
from flowwalk.browser.network import host_of, navigation_allowed, outside_pattern, request_allowed, vendor_pattern
from flowwalk.browser.recording import MAX_RECORDS, MAX_URL, clip

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Request, Route

__all__ = ["NetworkPolicy", "RouteForward", "route_pattern"]

_VENDOR = vendor_pattern()


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


class NetworkPolicy:
    """The allowlist and the route of one session (see the module docstring)."""

    playwright_context: "BrowserContext"
    playwright_page: "Page"

    def _init_policy(self, entry_url: str | None, allowed_hosts: tuple[str, ...], offline: bool) -> None:
        self.entry_url = entry_url
        self.entry_host: str | None = host_of(entry_url) if entry_url else None
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        self.offline = offline
        self.blocked: list[dict[str, Any]] = []
        self._blocked_navigation: NavigationBlocked | None = None
        #: the route in place: (its pattern, its handler)
        self._route: tuple[re.Pattern[str], Callable[..., None]] | None = None

    if TYPE_CHECKING:
        def t(self) -> float: ...

    @property
    def route_key(self) -> tuple[str | None, tuple[str, ...]]:
        """What this session's route is made for: its entry host and its allowed hosts."""
        return self.entry_host, self.allowed_hosts

    def _route_outside_hosts(self) -> None:
        """One route for the vendor hosts and the hosts outside the allowlist: a route made once
        the page exists costs a round trip to Chromium, on the scenario's path (Browser makes the
        next one with its spare context, before the page, when it can tell the hosts)."""
        if self._route is not None:
            self.playwright_context.unroute(*self._route)
        self._route = (route_pattern(*self.route_key), self._handle_routed)
        self.playwright_context.route(*self._route)

    def _handle_routed(self, route: "Route", request: "Request") -> None:
        # vendors first: they never leave the machine, even when a vendor host is also allowed
        if _VENDOR.match(request.url):
            self._answer_vendor(route, request)
        else:
            self._handle_outside(route, request)

    def is_allowed(self, url: str) -> bool:
        """May the top-level page go to `url`? (http/https only; about:blank always.)"""
        if url.startswith("about:"):
            return True
        if not url.lower().startswith(("http://", "https://")):
            return False
        return navigation_allowed(host_of(url), self.entry_host, self.allowed_hosts)

    def _record_blocked(self, url: str, kind: str, reason: str) -> None:
        if len(self.blocked) < MAX_RECORDS:
            self.blocked.append({"url": clip(url, MAX_URL), "kind": kind, "reason": reason, "t": round(self.t(), 3)})

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

    def _opens_popup(self, request: "Request") -> bool:
        """Is `request` the first navigation of a popup, issued before its page exists (Playwright
        then has no frame for it)?"""
        if request.resource_type != "document" or not request.is_navigation_request():
            return False
        try:
            request.frame
        except PlaywrightError:
            return True
        return False

    def _is_own_document(self, request: "Request") -> bool:
        """Is `request` a navigation of this page's main frame (not a popup's, not a frame's)?"""
        if request.resource_type != "document":   # cheap: most requests stop here
            return False
        try:
            return self._is_top_level(request) and request.frame.page == self.playwright_page
        except PlaywrightError:
            return False

    def _check_redirect(self, request: "Request", url: str, host: str) -> None:
        """A redirect hop (never routed): the offline proxy stops it, this records it, and blocks a
        top-level one that leaves the allowlist."""
        if self._is_top_level(request) and not navigation_allowed(host, self.entry_host, self.allowed_hosts):
            if request.frame.page == self.playwright_page:
                self._block_navigation(url, "redirect")
            else:
                self._record_blocked(url, "navigation", "popup outside the allowlist")
        elif self.offline and not request_allowed(host, self.entry_host, self.allowed_hosts):
            self._record_blocked(url, "subresource", "offline: third-party host (redirect)")

    def _handle_outside(self, route: "Route", request: "Request") -> None:
        """A request to a host outside the navigation allowlist (the pattern pre-filters)."""
        url = request.url
        host = host_of(url)
        try:
            if self._is_top_level(request):
                if navigation_allowed(host, self.entry_host, self.allowed_hosts):
                    route.continue_()
                    return
                if request.frame.page == self.playwright_page:
                    self._block_navigation(url, "navigation")
                else:
                    self._record_blocked(url, "navigation", "popup outside the allowlist")
                # ERR_ABORTED cancels a navigation without committing an error page: the page stays
                route.abort("aborted")
            elif self._opens_popup(request):
                self._record_blocked(url, "navigation", "popup outside the allowlist")
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
