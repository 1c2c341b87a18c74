"""The context opened ahead (Browser.keep_spare): each scenario still gets a context nothing else used.

The spare is opened while the previous session runs and handed to the next `new_session`; what a
user can tell is only that nothing carries over (storage, cookies, the page) and that every
session records clicks and answers beacons as before.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from flowwalk.browser.launch import Browser
from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser


@pytest.fixture()
def spare_browser(flowwalk_browser: Browser) -> Iterator[Browser]:
    flowwalk_browser.keep_spare = True
    try:
        yield flowwalk_browser
    finally:
        flowwalk_browser.keep_spare = False
        flowwalk_browser._settle()


def test_a_spare_context_shares_nothing_with_the_session_before(spare_browser: Browser, site: StaticServer) -> None:
    first = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    assert spare_browser._spare is not None   # the next one is on its way
    first.goto(f"{site.url}/", timeout_ms=10_000)
    first.playwright_page.evaluate("() => { localStorage.setItem('left', 'behind'); document.cookie = 'crumb=1'; }")
    first.close()
    second = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    try:
        assert second.playwright_context is not first.playwright_context and second.playwright_page.url == "about:blank"
        second.goto(f"{site.url}/", timeout_ms=10_000)
        assert second.playwright_page.evaluate("() => [localStorage.getItem('left'), document.cookie]") == [None, ""]
        # the spare carries the click recorder, as a context opened on the spot does
        second.playwright_page.evaluate("() => document.body.insertAdjacentHTML('beforeend', '<button id=b>b</button>')")
        second.playwright_page.click("#b")
        landed: Any = second.last_click("#b", timeout_ms=2000)
        assert landed is not None and landed.get("click") is not None
    finally:
        second.close()


def test_a_traced_session_is_opened_on_the_spot_and_keeps_the_spare(spare_browser: Browser,
                                                                     site: StaticServer) -> None:
    plain = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    plain.close()
    spare = spare_browser._spare
    traced = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), trace=True, offline=False)
    try:
        assert spare_browser._spare is spare   # not taken: the trace needs a context of its own
        traced.goto(f"{site.url}/", timeout_ms=10_000)
    finally:
        traced.close()


class _FakeRoute:
    def __init__(self) -> None:
        self.fell_back = False

    def fallback(self) -> None:
        self.fell_back = True


def test_the_spare_comes_routed_for_the_last_sessions_hosts(spare_browser: Browser, site: StaticServer) -> None:
    first = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=("docs.example.org",), offline=False)
    first.close()
    second = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=("docs.example.org",), offline=False)
    try:
        pattern, handler = second._route or (None, None)
        forward = getattr(handler, "__self__", None)
        # the route was made with the context, before its page: the session did not route again
        assert forward is not None and forward.target == second._handle_routed
        assert pattern is not None and pattern.match("https://www.google-analytics.com/g/collect?v=2")
        assert not pattern.match(f"{site.url}/index.html") and not pattern.match("https://docs.example.org/a")
        # and it answers vendors for this session: a beacon from its page is fulfilled locally
        second.goto(f"{site.url}/browser/beacons.html", timeout_ms=10_000)
        second.playwright_page.wait_for_function("() => document.getElementById('results') !== null")
        status = second.playwright_page.evaluate(
            "() => fetch('https://www.google-analytics.com/g/collect?v=2&tid=G-TEST&en=spare_check',"
            " {method: 'POST', mode: 'no-cors'}).then(() => 'answered', () => 'failed')")
        assert status == "answered"
    finally:
        second.close()


def test_a_session_for_other_hosts_replaces_the_spares_route(spare_browser: Browser, site: StaticServer) -> None:
    first = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    first.close()
    other = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=("docs.example.org",), offline=False)
    try:
        pattern, handler = other._route or (None, None)
        assert handler == other._handle_routed           # routed anew, for its own hosts
        assert pattern is not None and not pattern.match("https://docs.example.org/a")
        # the spare's forward, left without a session, hands anything it still sees back
        route = _FakeRoute()
        from flowwalk.browser.session import RouteForward
        RouteForward((None, ())).handle(route, None)  # type: ignore[arg-type]
        assert route.fell_back
    finally:
        other.close()


def test_a_spare_is_taken_only_by_a_session_of_the_same_environment(spare_browser: Browser,
                                                                    site: StaticServer) -> None:
    french = {"locale": "fr-FR", "viewport": {"width": 400, "height": 700}}
    plain = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    plain.close()
    # the spare was made for the plain environment: a French session opens its own context; the
    # next spare is made for it, and a second French session takes it, still French
    for _ in range(2):
        french_session = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False,
                                                   context_options=french)
        try:
            french_session.goto(f"{site.url}/", timeout_ms=10_000)
            assert french_session.playwright_page.evaluate("() => [navigator.language, innerWidth]") == ["fr-FR", 400]
        finally:
            french_session.close()
        assert spare_browser._spare is not None


def test_a_session_starts_from_a_saved_storage_state(spare_browser: Browser, site: StaticServer) -> None:
    first = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    try:
        first.goto(f"{site.url}/", timeout_ms=10_000)
        first.playwright_page.evaluate("() => { localStorage.setItem('who', 'ada'); document.cookie = 'sid=42'; }")
        state = first.storage_state()
    finally:
        first.close()
    assert {c["name"] for c in state["cookies"]} == {"sid"}
    signed_in = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False,
                                          storage_state=state)
    try:
        signed_in.goto(f"{site.url}/", timeout_ms=10_000)
        assert signed_in.playwright_page.evaluate("() => [localStorage.getItem('who'), document.cookie]") == ["ada", "sid=42"]
    finally:
        signed_in.close()
