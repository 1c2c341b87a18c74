"""The checks of state beyond the DOM: storage, storage_count, cookie, js, request (issue 36 phase B).

Their rows of `walk/checks.py` KINDS read through `PageSession.state` (browser/state.py) and
judge here, purely: `expected` says in words what the spec asks, `judge` turns one read into
(verdict, observed). They are polled like every check (`run_check`), so a value the page writes a
moment after the action is waited for, within the check's timeout, as Playwright's `expect.poll`.

A cookie's value never appears in what these return: the browser layer compares it and hands back
whether it matched and its length (browser/state.py).
"""

from __future__ import annotations

from typing import Any, Callable

from flowwalk.browser.state import CookieRead, JsRead, SentRequest, StateReader, StorageRead, as_text, json_at
from flowwalk.model import Expect, StateQuery
from flowwalk.spec.source import escape

__all__ = ["expected", "judge", "read"]

#: entries, values, requests listed in an observation at most
LISTED = 5
SHOWN = 120
_OPS: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "eq": ("exactly", lambda n, c: n == c), "gte": ("at least", lambda n, c: n >= c),
    "lte": ("at most", lambda n, c: n <= c)}


def _q(text: str) -> str:
    text = escape(text)
    return f"'{text if len(text) <= SHOWN else text[:SHOWN - 1] + '…'}'"


def _query(e: Expect) -> StateQuery:
    assert e.state is not None, f"expect {e.kind} has no state query"
    return e.state


def _area(q: StateQuery) -> str:
    return "sessionStorage" if q.area == "session" else "localStorage"


def holds(e: Expect) -> Callable[[str], bool] | None:
    """The check's comparison of a text (equals, contains, matches), or None when it asks none."""
    if e.value is None:
        return None
    value, pattern = e.value, e.pattern
    if e.match == "matches" and pattern is not None:
        return lambda text: pattern.search(text) is not None
    if e.match == "contains":
        return lambda text: value in text
    return lambda text: text == value


def _comparison(e: Expect) -> str:
    if e.value is None:
        return ""
    if e.match == "matches":
        return f" matching /{e.value}/"
    return f" {'containing' if e.match == 'contains' else 'equal to'} {_q(e.value)}"


def _fields(fields: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{path} = {_q(value)}" for path, value in fields)


# --- in words --------------------------------------------------------------------------------------


def expected(e: Expect) -> str:
    """What the check asks, in words."""
    q = _query(e)
    if e.kind == "storage":
        if q.absent:
            return f"no key {_q(q.key)} in {_area(q)}"
        at = f" at {q.path}" if q.path else ""
        return f"{_area(q)} {_q(q.key)}{at}{_comparison(e)}"
    if e.kind == "storage_count":
        where = f" holding {_fields(q.fields)}" if q.fields else ""
        return f"{_OPS[e.op][0]} {e.count} {_area(q)} key(s) starting with {_q(q.key)}{where}"
    if e.kind == "cookie":
        if q.absent:
            return f"no cookie {_q(q.key)}"
        wanted = [_cookie_attr(name, value) for name, value in q.attrs]
        if e.value is not None:
            how = {"matches": "matching the spec's pattern", "contains": "containing the spec's text"}.get(
                e.match, "equal to the spec's")
            wanted.append(f"its value {how} (values are never shown)")
        return f"cookie {_q(q.key)}" + (": " + ", ".join(wanted) if wanted else "")
    if e.kind == "js":
        return f"js {_q(q.expr)}{_comparison(e)}"
    return _expected_request(e, q)


def _cookie_attr(name: str, value: str) -> str:
    if name == "same_site":
        return f"sameSite {value}"
    if name == "expires":
        return "a session cookie" if value == "session" else "a persistent cookie"
    if name == "expires_after_s":
        return f"expiring {value} s or more from now"
    shown = {"http_only": "httpOnly", "secure": "secure"}[name]
    return shown if value == "True" else f"not {shown}"


def _expected_request(e: Expect, q: StateQuery) -> str:
    what = f"{q.method + ' ' if q.method else ''}request to a URL containing {_q(q.url)}"
    if q.absent:
        return f"no {what}"
    body = f" with JSON body {_fields(q.fields)}" if q.fields else ""
    status = f", answered {q.status}" if q.status is not None else ""
    return f"a {what}{body}{status}"


# --- reading ---------------------------------------------------------------------------------------


def read(reader: StateReader, e: Expect) -> Any:
    """One read of what the check looks at (raises PageError as every page read does)."""
    q = _query(e)
    if e.kind in ("storage", "storage_count"):
        return reader.storage(q.area)
    if e.kind == "cookie":
        return reader.cookies(q.key, holds(e))
    if e.kind == "js":
        return reader.js(q.expr)
    return reader.sent()


# --- judging (pure) --------------------------------------------------------------------------------


def judge(e: Expect, got: Any, now: float) -> tuple[bool, str]:
    """(passed, observed) of one read `got` (`now`: seconds since the epoch, for cookie expiry)."""
    if e.kind == "storage":
        return _judge_storage(e, got)
    if e.kind == "storage_count":
        return _judge_count(e, got)
    if e.kind == "cookie":
        return _judge_cookie(e, got, now)
    if e.kind == "js":
        return _judge_js(e, got)
    return _judge_requests(e, got)


def _keys(read: StorageRead) -> str:
    keys = [_q(k) for k, _ in read.entries[:LISTED]]
    more = ", …" if read.n > LISTED else ""
    return f"{read.n} key(s)" + (f": {', '.join(keys)}{more}" if keys else "")


def _judge_storage(e: Expect, read: StorageRead) -> tuple[bool, str]:
    q = _query(e)
    value = next((v for k, v in read.entries if k == q.key), None)
    if value is None:
        return q.absent, f"no key {_q(q.key)} in {_area(q)} ({_keys(read)})"
    if q.absent:
        return False, f"{_area(q)} {_q(q.key)} is set: {_q(value)}"
    if q.path:
        found, at = json_at(value, q.path)
        if not found:
            return False, f"{_area(q)} {_q(q.key)} has nothing at {q.path} ({at}): {_q(value)}"
        value = as_text(at)
    check = holds(e)
    shown = f" at {q.path}" if q.path else ""
    return check is not None and check(value), f"{_area(q)} {_q(q.key)}{shown}: {_q(value)}"


def _judge_count(e: Expect, read: StorageRead) -> tuple[bool, str]:
    q = _query(e)
    prefixed = [(k, v) for k, v in read.entries if k.startswith(q.key)]
    counted, seen = prefixed, []
    if q.fields:
        counted = []
        for key, value in prefixed:
            held = [json_at(value, path) for path, _ in q.fields]
            seen.append(", ".join(as_text(v) if ok else "-" for ok, v in held))
            if all(ok and as_text(v) == want for (ok, v), (_, want) in zip(held, q.fields)):
                counted.append((key, value))
    observed = f"{len(prefixed)} {_area(q)} key(s) start with {_q(q.key)}"
    if q.fields:
        paths = ", ".join(p for p, _ in q.fields)
        listed = "; ".join(seen[:LISTED * 2]) + ("; …" if len(seen) > LISTED * 2 else "")
        observed += f", {len(counted)} holding {_fields(q.fields)}" + (f" ({paths}: {listed})" if seen else "")
    return _OPS[e.op][1](len(counted), int(e.count or 0)), observed


def _judge_cookie(e: Expect, cookies: list[CookieRead], now: float) -> tuple[bool, str]:
    q = _query(e)
    if not cookies:
        return q.absent, f"no cookie {_q(q.key)} for the page's URL"
    c = cookies[0]
    session = c.expires < 0
    facts = [f"value of {c.length} character(s)" + ("" if c.value_ok is None else
                                                   " that matches" if c.value_ok else " that does not match"),
             "httpOnly" if c.http_only else "not httpOnly", "secure" if c.secure else "not secure",
             f"sameSite {c.same_site}",
             "a session cookie" if session else f"expiring in {int(c.expires - now)} s"]
    observed = f"cookie {_q(q.key)} ({c.domain}{c.path}): " + ", ".join(facts)
    if q.absent:
        return False, observed
    ok = c.value_ok is not False
    for name, want in q.attrs:
        if name == "http_only":
            ok = ok and c.http_only == (want == "True")
        elif name == "secure":
            ok = ok and c.secure == (want == "True")
        elif name == "same_site":
            ok = ok and c.same_site == want
        elif name == "expires":
            ok = ok and session == (want == "session")
        elif name == "expires_after_s":
            ok = ok and not session and c.expires - now >= int(want)
    return ok, observed


def _judge_js(e: Expect, read: JsRead) -> tuple[bool, str]:
    q = _query(e)
    if read.error is not None:
        return False, f"js {_q(q.expr)} threw: {_q(read.error)}"
    check = holds(e)
    return check is not None and check(read.text), f"js {_q(q.expr)}: {_q(read.text)}"


def _shown_request(r: SentRequest) -> str:
    answer = f" -> {r.status}" if r.status is not None else f" -> failed ({r.failure})" if r.failure else \
        " -> no answer yet"
    body = f" body {_q(r.body)}" if r.body else ""
    return f"{r.method} {_q(r.url)}{answer}{body}"


def _request_fits(q: StateQuery, r: SentRequest) -> bool:
    if q.status is not None and r.status != q.status:
        return False
    for path, want in q.fields:
        found, value = json_at(r.body or "", path)
        if not found or as_text(value) != want:
            return False
    return True


def _judge_requests(e: Expect, sent: list[SentRequest]) -> tuple[bool, str]:
    q = _query(e)
    to_url = [r for r in sent if q.url in r.url and (q.method is None or r.method == q.method)]
    if not to_url:
        return q.absent, f"no such request among the {len(sent)} the page sent"
    listed = "; ".join(_shown_request(r) for r in to_url[-LISTED:])
    observed = f"{len(to_url)} such request(s): {listed}"
    if q.absent:
        return False, observed
    return any(_request_fits(q, r) for r in to_url), observed
