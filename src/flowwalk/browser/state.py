"""State beyond the DOM, read from a page: web storage, cookies, a JavaScript value, the requests it made.

The typed reads behind the storage, storage_count, cookie, js and request checks (walk/checks.py
judges them; docs/flow-spec.md, "State beyond the page"). Each read is one round trip, or none for
requests (the session records them as they go out, `RequestLog`), and raises only flowwalk's
`PageError`s, like every read of browser/probe.py.

A cookie read carries the value's length and whether it satisfied the check's comparison, never the
value itself: the value is compared here, in the browser layer, so that nothing above it ever holds
it to write into a report.
"""

from __future__ import annotations

import json
import re
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from playwright.sync_api import Error as PlaywrightError

from flowwalk.browser.errors import translating

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page, Request

__all__ = ["CookieRead", "JsRead", "RequestLog", "SentRequest", "StateReader", "StorageRead"]

#: the most storage entries one read returns, and the characters kept of each value
STORAGE_MAX = 1000
VALUE_CLIP = 4000
#: requests a session keeps (the oldest go first), and the characters kept of a request body
REQUESTS_KEPT = 500
BODY_CLIP = 16_000

_STORAGE_JS = """([area, max, clip]) => {
  const s = area === 'session' ? window.sessionStorage : window.localStorage;
  const out = [];
  for (let i = 0; i < s.length && out.length < max; i++) {
    const k = s.key(i);
    const v = s.getItem(k);
    out.push([k, v === null ? '' : v.slice(0, clip)]);
  }
  return {n: s.length, entries: out};
}"""

# the expression runs as an indirect eval (global scope); a promise is awaited; the value comes back
# as JSON text, so that undefined, functions and cycles read as what they are instead of failing
_JS_VALUE = """async (expr) => {
  let v;
  try { v = await (0, eval)(expr); } catch (e) { return {error: String(e && e.message || e)}; }
  if (v === undefined) return {text: 'undefined'};
  if (typeof v === 'string') return {text: v, string: true};
  if (typeof v === 'function') return {text: 'function'};
  try { return {text: JSON.stringify(v)}; } catch (e) { return {text: String(v)}; }
}"""


@dataclass(frozen=True)
class StorageRead:
    """One storage area's entries, in key order of the area (at most STORAGE_MAX of `n`)."""

    n: int
    entries: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class JsRead:
    """An expression's value as text (a string as it is, anything else as JSON), or why it threw."""

    text: str = ""
    error: str | None = None


@dataclass(frozen=True)
class CookieRead:
    """A cookie of the page's URL, without its value: the value's length and whether the check's
    comparison held of it (None: no comparison was asked)."""

    name: str
    length: int
    value_ok: bool | None
    http_only: bool
    secure: bool
    same_site: str
    #: seconds since the epoch; -1 for a session cookie
    expires: float
    domain: str
    path: str


@dataclass(frozen=True)
class SentRequest:
    """A request the page sent, and its response's status once it came (None: no answer yet, or it failed)."""

    method: str
    url: str
    body: str | None
    status: int | None = None
    failure: str | None = None


class RequestLog:
    """Every request the page sends, in order (the last REQUESTS_KEPT), answered as responses arrive.
    Fed by the session's event handlers: nothing here raises or asks the page."""

    def __init__(self) -> None:
        self.sent: deque[SentRequest] = deque(maxlen=REQUESTS_KEPT)
        self._index: dict[int, int] = {}
        self._count = 0

    def add(self, request: "Request") -> None:
        try:
            body = request.post_data
        except (UnicodeDecodeError, PlaywrightError):
            body = None
        self.sent.append(SentRequest(request.method, request.url, body[:BODY_CLIP] if body else None))
        self._index[id(request)] = self._count
        self._count += 1
        if len(self._index) > REQUESTS_KEPT:
            self._index.pop(next(iter(self._index)))

    def answer(self, request: "Request", status: int | None, failure: str | None) -> None:
        at = self._index.pop(id(request), None)
        if at is None:
            return
        pos = at - (self._count - len(self.sent))
        if 0 <= pos < len(self.sent):
            old = self.sent[pos]
            self.sent[pos] = SentRequest(old.method, old.url, old.body, status, failure)


class StateReader:
    """The state reads of one page and its context (see the module docstring)."""

    def __init__(self, page: "Page | Frame", context: "BrowserContext", requests: RequestLog, *,
                 crashed: Callable[[BaseException], bool] | None = None):
        self.page = page
        self.context = context
        self.requests = requests
        self._crashed = crashed

    def storage(self, area: str) -> StorageRead:
        """Every entry of localStorage (`area` "local") or sessionStorage ("session") of the page's origin."""
        with translating(crashed=self._crashed):
            raw = self.page.evaluate(_STORAGE_JS, [area, STORAGE_MAX, VALUE_CLIP])
        entries = tuple((str(k), str(v)) for k, v in raw.get("entries", ())) if isinstance(raw, dict) else ()
        return StorageRead(int(raw.get("n", len(entries))) if isinstance(raw, dict) else 0, entries)

    def js(self, expr: str) -> JsRead:
        """The value of `expr` evaluated in the page (awaited when it is a promise)."""
        with translating(crashed=self._crashed):
            raw = self.page.evaluate(_JS_VALUE, expr)
        if not isinstance(raw, dict):
            return JsRead(error="the page returned nothing")
        if raw.get("error") is not None:
            return JsRead(error=str(raw["error"]))
        return JsRead(text=str(raw.get("text", "")))

    def cookies(self, name: str, holds: Callable[[str], bool] | None) -> list[CookieRead]:
        """The cookies named `name` that the page's URL would send (or, for a page without an http(s)
        URL, every one of the context), each with whether `holds(value)` was true."""
        with translating(crashed=self._crashed):
            url = self.page.url
            found = self.context.cookies([url] if url.startswith(("http://", "https://")) else [])
        out = []
        for c in found:
            if c.get("name") != name:
                continue
            value = str(c.get("value", ""))
            out.append(CookieRead(name=name, length=len(value), value_ok=None if holds is None else holds(value),
                                  http_only=bool(c.get("httpOnly")), secure=bool(c.get("secure")),
                                  same_site=str(c.get("sameSite", "Lax")), expires=float(c.get("expires", -1)),
                                  domain=str(c.get("domain", "")), path=str(c.get("path", "/"))))
        return out

    def sent(self) -> list[SentRequest]:
        """The requests the page sent so far, oldest first (no round trip)."""
        return list(self.requests.sent)


def json_at(text: str, path: str) -> tuple[bool, Any]:
    """(found, value) at the JSON `path` (`items.0.sku`, `[0].title`) of the JSON `text`; (False,
    why) when the text is not JSON or the path leads nowhere."""
    try:
        node: Any = json.loads(text)
    except ValueError:
        return False, "not JSON"
    for part in re.findall(r"\[(\d+)\]|([^.\[\]]+)", path):
        index, key = part
        if isinstance(node, list) and (index or key.isdigit()):
            i = int(index or key)
            if i >= len(node):
                return False, f"no item {i}"
            node = node[i]
        elif isinstance(node, dict) and key in node:
            node = node[key]
        else:
            return False, f"no {index or key!s}"
    return True, node


def as_text(value: Any) -> str:
    """A JSON value as a check compares it: a string as it is, anything else as JSON writes it."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
