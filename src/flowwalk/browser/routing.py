"""Requests a spec answers itself (`routes:`): a canned response, an abort, or a HAR file's
recording; each answered request recorded for the walker to report.

`Router` installs one Playwright route on the session's context, after the session's own (so it
is asked first): a request on a host the session may reach (`request_allowed`: loopback, the
entry host, the allowed hosts) that matches a spec route is answered as that route says, the
first match winning; any other request falls back to the session's policy (offline routing,
vendors answered locally). A HAR route answers from the file's entry with the same method and
URL (the first not yet used, then the last; a route written as a path compares paths and queries
only, so a recording made on one host replays on another base URL), and lets a request the file
lacks go on. A delay is
waited on Playwright's loop, so other workers' pages go on meanwhile.
"""

from __future__ import annotations

import base64
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.network import host_of, request_allowed
from flowwalk.browser.recording import MAX_URL, clip
from flowwalk.model import Route

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page, Request
    from playwright.sync_api import Route as PlaywrightRoute

__all__ = ["Routed", "Router", "route_regex"]


@dataclass(frozen=True)
class Routed:
    """One request a spec route answered."""

    route: Route
    method: str
    url: str
    #: fulfilled | aborted
    answer: str
    status: int | None
    #: seconds since the router was installed
    t: float


def route_regex(url: str) -> re.Pattern[str]:
    """A route's `url` as a regular expression over a request's URL: a path (`/api/*`) matches the
    path (and query, when it has a `?`) on any host; an absolute URL the whole URL; `*` stays
    within a path segment, `**` crosses them."""
    out = []
    i = 0
    while i < len(url):
        if url.startswith("**", i):
            out.append(".*")
            i += 2
        elif url[i] == "*":
            out.append("[^/?#]*")
            i += 1
        else:
            out.append(re.escape(url[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class Router:
    """The spec routes of one session (see the module docstring)."""

    def __init__(self, context: "BrowserContext", page: "Page", routes: Sequence[Route], entry_host: str | None,
                 allowed_hosts: Sequence[str]):
        self._page = page
        self._routes = [(r, route_regex(r.url)) for r in routes]
        self._entry_host, self._allowed = entry_host, tuple(allowed_hosts)
        self._hars: dict[str, list[dict[str, Any]]] = {}
        self._used: set[int] = set()
        self._t0 = time.monotonic()
        #: requests answered since the walker last took them (`take`)
        self._answered: list[Routed] = []
        context.route(self._wanted, self._handle)

    def take(self) -> list[Routed]:
        """The requests answered since the last call, oldest first."""
        answered, self._answered = self._answered, []
        return answered

    def _match(self, url: str, method: str | None) -> Route | None:
        if not request_allowed(host_of(url), self._entry_host, self._allowed):
            return None
        parts = urlsplit(url)
        for route, regex in self._routes:
            if method is not None and route.method is not None and route.method != method:
                continue
            subject = url if not route.url.startswith("/") else \
                parts.path + (f"?{parts.query}" if "?" in route.url and parts.query else "")
            if route.url.startswith("**"):
                subject = url
            if regex.match(subject):
                return route
        return None

    def _wanted(self, url: str) -> bool:
        # the method is known only in the handler
        return self._match(url, None) is not None

    def _handle(self, pw_route: "PlaywrightRoute", request: "Request") -> None:
        # runs inside Playwright's dispatcher: it must never raise
        try:
            route = self._match(request.url, request.method)
            if route is None:
                pw_route.fallback()
                return
            if route.delay_ms:
                self._page.wait_for_timeout(route.delay_ms)
            if route.har is not None:
                entry = self._har_entry(route.har, request.method, request.url, by_path=not route.url.lower().startswith("http"))
                if entry is None:
                    pw_route.fallback()
                    return
                status = int(entry["response"].get("status", 200))
                pw_route.fulfill(status=status, headers=_har_headers(entry), body=_har_body(entry))
                self._note(route, request, "fulfilled", status)
            elif route.abort:
                pw_route.abort()
                self._note(route, request, "aborted", None)
            else:
                headers = dict(route.headers)
                if route.json and not any(k.lower() == "content-type" for k in headers):
                    headers["content-type"] = "application/json"
                body: str | bytes = Path(route.file).read_bytes() if route.file else (route.body or "")
                pw_route.fulfill(status=route.status, headers=headers, body=body)
                self._note(route, request, "fulfilled", route.status)
        except (PlaywrightError, OSError, ValueError, KeyError, TypeError):
            try:
                pw_route.fallback()
            except PlaywrightError:
                pass

    def _note(self, route: Route, request: "Request", answer: str, status: int | None) -> None:
        self._answered.append(Routed(route=route, method=request.method, url=clip(request.url, MAX_URL),
                                     answer=answer, status=status, t=round(time.monotonic() - self._t0, 3)))

    def _har_entry(self, har: str, method: str, url: str, *, by_path: bool) -> dict[str, Any] | None:
        entries = self._hars.get(har)
        if entries is None:
            entries = self._hars[har] = list(json.loads(Path(har).read_text(encoding="utf-8"))["log"]["entries"])
        key = _path_of(url) if by_path else url
        found = [(i, e) for i, e in enumerate(entries) if e.get("request", {}).get("method") == method
                 and (_path_of(str(e["request"].get("url", ""))) if by_path else e["request"].get("url")) == key]
        for i, entry in found:
            if i not in self._used:
                self._used.add(i)
                return entry
        return found[-1][1] if found else None


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _har_headers(entry: dict[str, Any]) -> dict[str, str]:
    skip = ("content-length", "content-encoding", "transfer-encoding")
    return {h["name"]: h["value"] for h in entry["response"].get("headers", []) if h["name"].lower() not in skip}


def _har_body(entry: dict[str, Any]) -> bytes:
    content = entry["response"].get("content", {})
    text = content.get("text") or ""
    return base64.b64decode(text) if content.get("encoding") == "base64" else text.encode("utf-8")
