"""Analytics beacons captured from a real page, for every vendor and every way a page sends them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flowwalk.browser import Browser, PageSession
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.walk.checks import run_check

pytestmark = pytest.mark.browser

LOC = Location("tests/beacons.flow.yaml", 12, 5)


def beacon(vendor: str, event: str | None = None) -> Expect:
    return Expect(loc=LOC, text=f"expect beacon {vendor} {event}", kind="beacon", vendor=vendor, event=event)


def results(session: PageSession) -> dict[str, Any]:
    text = session.playwright_page.text_content("#results") or "{}"
    return json.loads(text) if text.strip() else {}


def click_and_wait(session: PageSession, button: str, key: str) -> Any:
    """Click, then wait until the page saw its request answered (or sent, for sendBeacon)."""
    session.playwright_page.click(f"#{button}")
    session.playwright_page.wait_for_function(f"() => document.getElementById('results').textContent.includes('\"{key}\"')")
    return results(session)[key]


@pytest.fixture()
def beacons_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/beacons.html", timeout_ms=10_000)
    return session


def seen(session: PageSession) -> list[tuple[str, str | None]]:
    session.pump()
    return [(b.vendor, b.event) for b in session.beacons]


def test_ga4_page_view_sent_on_load_is_captured_case_insensitively(beacons_page: PageSession) -> None:
    result = run_check(beacons_page, beacon("ga4", "PAGE_VIEW"), scope=None, timeout_ms=3_000,
                       stabilize=Stabilize(interval_ms=100))
    assert result.passed
    assert result.expected == "a ga4 beacon with event 'PAGE_VIEW'"
    assert result.observed.startswith("captured ga4 beacon 'page_view' at ")


def test_ga4_batch_sent_by_send_beacon_gives_one_beacon_per_line(beacons_page: PageSession) -> None:
    assert click_and_wait(beacons_page, "ga4-batch", "ga4-batch") is True
    beacons_page.wait(100)
    assert [e for v, e in seen(beacons_page) if v == "ga4"] == ["page_view", "sign_up", "scroll", "Purchase"]
    assert run_check(beacons_page, beacon("GA4", "purchase"), scope=None, timeout_ms=1_000,
                     stabilize=Stabilize(interval_ms=100)).passed


def test_ga4_image_request(beacons_page: PageSession) -> None:
    click_and_wait(beacons_page, "ga4-img", "ga4-img")
    assert ("ga4", "view_item") in seen(beacons_page)


def test_segment_track_by_fetch_is_answered_204_locally(beacons_page: PageSession) -> None:
    assert click_and_wait(beacons_page, "segment-track", "segment-track") == 204
    assert ("segment", "Signed Up") in seen(beacons_page)
    assert run_check(beacons_page, beacon("segment", "signed up"), scope=None, timeout_ms=1_000,
                     stabilize=Stabilize(interval_ms=100)).passed
    # CORS headers on the local answer: the page's fetch saw 204, the console stayed clean
    assert beacons_page.console_errors == []


def test_segment_page_call_by_send_beacon_blob(beacons_page: PageSession) -> None:
    click_and_wait(beacons_page, "segment-page", "segment-page")
    beacons_page.wait(100)
    assert ("segment", "page") in seen(beacons_page)


def test_plausible_event_by_xhr(beacons_page: PageSession) -> None:
    assert click_and_wait(beacons_page, "plausible", "plausible") == 204
    assert ("plausible", "Signup") in seen(beacons_page)
    assert beacons_page.console_errors == []


def test_meta_pixel_image(beacons_page: PageSession) -> None:
    click_and_wait(beacons_page, "meta", "meta")
    assert ("meta", "Lead") in seen(beacons_page)
    assert run_check(beacons_page, beacon("facebook", "lead"), scope=None, timeout_ms=1_000,
                     stabilize=Stabilize(interval_ms=100)).passed


def test_vendor_requests_never_leave_the_machine(beacons_page: PageSession) -> None:
    click_and_wait(beacons_page, "segment-track", "segment-track")
    click_and_wait(beacons_page, "meta", "meta")
    beacons_page.pump()
    vendor_calls = [n for n in beacons_page.evidence()["network"]
                    if "google-analytics" in n["url"] or "segment.io" in n["url"] or "facebook.com" in n["url"]]
    assert vendor_calls, "the vendor requests are in the network log"
    assert all(n["status"] == 204 for n in vendor_calls), vendor_calls
    # answered, not blocked: offline routing leaves vendors to the local answer
    assert not [b for b in beacons_page.blocked if "segment" in b["url"] or "facebook" in b["url"]]


def test_a_vendor_host_in_allowed_hosts_is_still_answered_locally(flowwalk_browser: Browser,
                                                                  site: StaticServer) -> None:
    session = flowwalk_browser.new_session(entry_url=f"{site.url}/",
                                           allowed_hosts=("google-analytics.com", "segment.io"))
    try:
        session.goto(f"{site.url}/browser/beacons.html", timeout_ms=10_000)
        assert click_and_wait(session, "segment-track", "segment-track") == 204
        assert ("ga4", "page_view") in seen(session)
    finally:
        session.close()


def test_missing_beacon_fails_and_lists_what_was_captured(beacons_page: PageSession) -> None:
    click_and_wait(beacons_page, "segment-track", "segment-track")
    result = run_check(beacons_page, beacon("segment", "Checkout Completed"), scope=None, timeout_ms=300,
                       stabilize=Stabilize(interval_ms=100))
    assert not result.passed
    assert result.runtime_code == "EXPECT_STATE_MISMATCH"
    assert result.expected == "a segment beacon with event 'Checkout Completed'"
    assert result.observed == "captured only: ga4 'page_view', segment 'Signed Up'"
    nothing = run_check(beacons_page, beacon("plausible"), scope=None, timeout_ms=0, stabilize=Stabilize())
    assert not nothing.passed and nothing.expected == "a plausible beacon"


def test_a_beacon_sent_after_the_check_started_is_waited_for(beacons_page: PageSession) -> None:
    beacons_page.playwright_page.evaluate("""() => setTimeout(() => navigator.sendBeacon(
        'https://plausible.io/api/event', JSON.stringify({n: 'late_event'})), 300)""")
    result = run_check(beacons_page, beacon("plausible", "late_event"), scope=None, timeout_ms=5_000,
                       stabilize=Stabilize(interval_ms=100))
    assert result.passed
    assert result.reads >= 3
    assert result.duration_ms >= 250
