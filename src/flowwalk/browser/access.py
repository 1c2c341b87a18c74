"""The run's HTTP headers and credentials in a context: sent to the base URL's origin, nowhere else.

Playwright's context-wide `extra_http_headers` would send them to every host a page touches, and
a header set with `route.continue_(headers=...)` goes along every redirect that request follows,
to whatever host it leads (Playwright carries the overrides over to each hop). So:

- **credentials** are Playwright's `http_credentials` with `origin` set: Chromium answers a 401
  challenge of that origin only;
- **headers**: each request to the origin is routed here and first made by Playwright itself
  (`route.fetch`: the context's cookies, the headers added, no redirect followed). Then:
  - a GET or HEAD whose redirects all stay on the origin (followed here hop by hop, the headers
    only to the origin) is sent by the browser itself with the headers, which go along that same
    chain: a protected site's own redirects (`/` to `/login`) keep working. A page navigation is
    always sent by the browser (so a GET navigation reaches the site twice): Chromium blocks a
    page it did not load from the network from reaching private addresses (Local Network Access),
    which would break a preview on a private network that loads from another private origin;
  - anything else gets the answer Playwright fetched (`route.fulfill`): a redirect off the origin
    reaches the browser as it is, and its next hop carries no header; a POST is never sent twice
    (its redirect's hop goes without the headers).

WebSockets and requests a service worker makes are not routed (service workers are blocked in
every context): they carry no header.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from playwright.sync_api import Error as PlaywrightError

from flowwalk.readiness import MAX_REDIRECTS, HttpAccess, origin_of

if TYPE_CHECKING:
    from playwright.sync_api import APIResponse, BrowserContext, Request, Route

__all__ = ["HeaderRoute", "credentials_option"]

_IDEMPOTENT = ("GET", "HEAD")


def credentials_option(access: HttpAccess) -> dict[str, Any]:
    """The `http_credentials` context option for the access's origin ({} without credentials)."""
    if access.credentials is None or access.origin is None:
        return {}
    user, password = access.credentials
    return {"http_credentials": {"username": user, "password": password, "origin": access.origin}}


class HeaderRoute:
    """The route that adds the run's headers to the requests of one context to the origin."""

    def __init__(self, access: HttpAccess, timeout_ms: float):
        self.access = access
        self.timeout_ms = timeout_ms
        self.pattern = re.compile("^" + re.escape(access.origin or "\0") + "(?:[/?#]|$)", re.IGNORECASE)
        self._context: "BrowserContext | None" = None

    def install(self, context: "BrowserContext") -> None:
        if self.access.headers and self.access.origin:
            self._context = context
            context.route(self.pattern, self.handle)

    def handle(self, route: "Route", request: "Request") -> None:
        headers = {**request.headers, **dict(self.access.headers)}
        try:
            response = route.fetch(headers=headers, max_redirects=0, timeout=self.timeout_ms)
            location = _location(response)
            if request.method.upper() in _IDEMPOTENT and (location or request.is_navigation_request()) \
                    and self._stays(response.url, location):
                response.dispose()
                route.continue_(headers=headers)
                return
            route.fulfill(response=response)
        except PlaywrightError:  # the site did not answer, or the page closed meanwhile
            try:
                route.abort("failed")
            except PlaywrightError:
                pass

    def _stays(self, url: str, location: str | None) -> bool:
        """Do all the redirects from this answer (`location`: where it points, None: no redirect)
        stay on the origin? Followed one by one (the headers only to the origin), so that the
        browser's own request may carry them along the same chain."""
        if location is None:
            return True
        if self._context is None:
            return False
        for _ in range(MAX_REDIRECTS):
            url = urljoin(url, location)
            if origin_of(url) != self.access.origin:
                return False
            hop = self._context.request.get(url, headers=dict(self.access.headers), max_redirects=0,
                                            timeout=self.timeout_ms)
            location = _location(hop)
            hop.dispose()
            if location is None:
                return True
        return False


def _location(response: "APIResponse") -> str | None:
    """Where a redirect answer points (None: not a redirect)."""
    if response.status in (301, 302, 303, 307, 308):
        return response.headers.get("location") or None
    return None
