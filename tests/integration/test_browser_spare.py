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
    first.page.evaluate("() => { localStorage.setItem('left', 'behind'); document.cookie = 'crumb=1'; }")
    first.close()
    second = spare_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=(), offline=False)
    try:
        assert second.context is not first.context and second.page.url == "about:blank"
        second.goto(f"{site.url}/", timeout_ms=10_000)
        assert second.page.evaluate("() => [localStorage.getItem('left'), document.cookie]") == [None, ""]
        # the spare carries the click recorder, as a context opened on the spot does
        second.page.evaluate("() => document.body.insertAdjacentHTML('beforeend', '<button id=b>b</button>')")
        second.page.click("#b")
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
