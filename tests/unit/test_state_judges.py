"""The pure judges of the state kinds (walk/state_checks.py), from recorded reads."""

from __future__ import annotations

import re
from dataclasses import replace

from flowwalk.browser.state import CookieRead, JsRead, SentRequest, StorageRead, json_at
from flowwalk.errors import Location
from flowwalk.model import Expect, StateQuery
from flowwalk.walk import state_checks

LOC = Location("x.flow.yaml", 3, 5)
TODOS = StorageRead(4, (("todos-backbone", "a,b,c"),
                        ("todos-backbone-a", '{"title": "buy some cheese", "completed": true}'),
                        ("todos-backbone-b", '{"title": "    feed the cat ", "completed": false}'),
                        ("todos-backbone-c", '{"title": "book", "completed": false}')))


def _e(kind: str, state: StateQuery, **fields: object) -> Expect:
    return Expect(loc=LOC, text=kind, kind=kind, state=state, **fields)  # type: ignore[arg-type]


def test_json_paths_reach_keys_and_items() -> None:
    assert json_at('{"items": [{"sku": "A-1"}]}', "items.0.sku") == (True, "A-1")
    assert json_at('[{"title": "x"}]', "[0].title") == (True, "x")
    assert json_at('{"items": []}', "items[0]") == (False, "no item 0")
    assert json_at("a,b", "x") == (False, "not JSON")


def test_storage_count_counts_the_prefixed_keys_holding_the_fields() -> None:
    done = _e("storage_count", StateQuery(key="todos-backbone-", fields=(("completed", "true"),)), count=1)
    assert state_checks.judge(done, TODOS, 0) == (
        True, "3 localStorage key(s) start with 'todos-backbone-', 1 holding completed = 'true' "
              "(completed: true; false; false)")
    # an exact title: an untrimmed one is not counted
    titled = _e("storage_count", StateQuery(key="todos-backbone-", fields=(("title", "feed the cat"),)), count=1,
                op="gte")
    assert state_checks.judge(titled, TODOS, 0)[0] is False
    assert state_checks.judge(_e("storage_count", StateQuery(key="todos-backbone-"), count=3), TODOS, 0)[0]


def test_storage_compares_a_key_or_a_path_and_says_what_is_there() -> None:
    index = _e("storage", StateQuery(key="todos-backbone"), value="a,b", match="contains")
    assert state_checks.judge(index, TODOS, 0) == (True, "localStorage 'todos-backbone': 'a,b,c'")
    path = _e("storage", StateQuery(key="todos-backbone-a", path="title"), value="^buy", match="matches",
              pattern=re.compile("^buy"))
    assert state_checks.judge(path, TODOS, 0)[0]
    missing = _e("storage", StateQuery(area="session", key="cart"), value="x")
    assert state_checks.judge(missing, StorageRead(0, ()), 0) == (False, "no key 'cart' in sessionStorage (0 key(s))")
    assert state_checks.judge(_e("storage", StateQuery(key="cart", absent=True)), StorageRead(0, ()), 0)[0]


def test_a_cookie_is_judged_without_its_value() -> None:
    cookie = CookieRead(name="sid", length=12, value_ok=False, http_only=True, secure=False, same_site="Lax",
                        expires=1_000_100.0, domain="127.0.0.1", path="/")
    e = _e("cookie", StateQuery(key="sid", attrs=(("http_only", "True"), ("expires_after_s", "60"))),
           value="not-this", match="equals")
    ok, observed = state_checks.judge(e, [cookie], 1_000_000.0)
    assert not ok and "not-this" not in observed and "not-this" not in state_checks.expected(e)
    assert observed == ("cookie 'sid' (127.0.0.1/): value of 12 character(s) that does not match, httpOnly, "
                        "not secure, sameSite Lax, expiring in 100 s")
    fits = _e("cookie", StateQuery(key="sid", attrs=(("expires_after_s", "60"),)))
    unasked = replace(cookie, value_ok=None)   # read without a comparison
    assert state_checks.judge(fits, [unasked], 1_000_000.0)[0]
    assert not state_checks.judge(fits, [unasked], 1_000_050.0)[0]


def test_js_values_and_errors() -> None:
    e = _e("js", StateQuery(expr="app.count"), value="3")
    assert state_checks.judge(e, JsRead(text="3"), 0) == (True, "js 'app.count': '3'")
    assert state_checks.judge(e, JsRead(error="app is not defined"), 0) == (
        False, "js 'app.count' threw: 'app is not defined'")


def test_requests_sent_answered_and_not_sent() -> None:
    sent = [SentRequest("GET", "http://x/api/cart", None, 200),
            SentRequest("POST", "http://x/api/cart", '{"sku": "A-1", "qty": 1}', 201)]
    posted = _e("request", StateQuery(url="/api/cart", method="POST", fields=(("qty", "1"),), status=201))
    assert state_checks.judge(posted, sent, 0)[0]
    refused = _e("request", StateQuery(url="/api/cart", method="POST", status=200))
    ok, observed = state_checks.judge(refused, sent, 0)
    assert not ok and observed == ("1 such request(s): POST 'http://x/api/cart' -> 201 body "
                                   "'{\"sku\": \"A-1\", \"qty\": 1}'")
    assert state_checks.judge(_e("request", StateQuery(url="/track", absent=True)), sent, 0) == (
        True, "no such request among the 2 the page sent")
    assert not state_checks.judge(_e("request", StateQuery(url="/api", absent=True)), sent, 0)[0]
