"""Checks and iframes: what only a child frame shows is a spec that cannot reach it, not a site at fault.

Reads look at the main frame only. A check that fails there looks once in the child frames; when
one has the text (or matches the selector) the check fails `ELEMENT_NOT_FOUND`
(spec_step_unresolvable) and names the frame. Where no frame has it, the failure is unchanged.
The page is tests/site/pages/hostile/frames.html: '#total' in the main frame, a payment iframe
('pay-frame', frame-child.html: '#card', '#pay' "Pay now") and a srcdoc iframe ("Inline frame text").
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from flowwalk.browser import PageSession
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.walk.checks import CheckResult, run_check
from flowwalk.walk.recovery import classify

from test_walker import expect as expect_step, flow, make_settings, rules_of, walk  # the walker's builders

pytestmark = pytest.mark.browser

LOC = Location("tests/frames.flow.yaml", 3, 5)
FAST = Stabilize(interval_ms=100)


def expect(kind: str, **fields: Any) -> Expect:
    return Expect(loc=LOC, text=f"expect {kind}", kind=kind, **fields)


def check(session: PageSession, e: Expect) -> CheckResult:
    return run_check(session, e, scope=None, timeout_ms=0, stabilize=FAST)


@pytest.fixture()
def frames_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/hostile/frames.html", timeout_ms=10_000)
    # the frames load with the page (load waits for them); be sure both have their text
    for frame in session.playwright_page.frames[1:]:
        frame.wait_for_load_state("load", timeout=5_000)
    return session


def test_page_text_shown_only_in_an_iframe_fails_unresolvable_and_names_the_frame(frames_page: PageSession) -> None:
    result = check(frames_page, expect("text_contains", value="Pay now"))
    assert not result.passed
    assert result.runtime_code == "ELEMENT_NOT_FOUND"
    assert classify(result.runtime_code).failure_class == "spec_step_unresolvable"
    assert result.frame is not None and "pay-frame" in result.frame and "/hostile/frame-child.html" in result.frame
    assert "Checkout" in result.observed and "only inside the frame" in result.observed


def test_a_srcdoc_frame_and_a_regex_are_looked_at_too(frames_page: PageSession) -> None:
    inline = check(frames_page, expect("text_contains", value="inline FRAME text"))
    assert inline.runtime_code == "ELEMENT_NOT_FOUND" and inline.frame is not None and "inline" in inline.frame
    regex = check(frames_page, expect("text_matches", value=r"Pay\s+now", pattern=re.compile(r"Pay\s+now")))
    assert regex.runtime_code == "ELEMENT_NOT_FOUND" and regex.frame is not None and "pay-frame" in regex.frame


@pytest.mark.parametrize("kind, fields", [
    ("visible", dict(selector="#pay")),
    ("has_text", dict(selector="#pay", value="Pay now")),
    ("selector_exists", dict(selector="#card")),
    ("count", dict(selector="#card", count=1, op="eq")),
    ("enabled", dict(selector=".nothing | #pay")),
])
def test_a_selector_that_matches_only_inside_a_frame_names_the_frame(frames_page: PageSession, kind: str,
                                                                     fields: dict[str, Any]) -> None:
    result = check(frames_page, expect(kind, **fields))
    assert not result.passed
    assert result.runtime_code == "ELEMENT_NOT_FOUND", result
    assert result.frame is not None and "pay-frame" in result.frame


@pytest.mark.parametrize("kind, fields, code", [
    ("text_contains", dict(value="Refund issued"), "EXPECT_STATE_MISMATCH"),    # in no frame at all
    ("text_contains", dict(selector="#total", value="Pay now"), "EXPECT_STATE_MISMATCH"),  # the element is here
    ("selector_exists", dict(selector="#nowhere"), "EXPECT_STATE_MISMATCH"),
    ("visible", dict(selector="#nowhere"), "ELEMENT_NOT_FOUND"),
])
def test_a_genuine_failure_stays_what_it_was(frames_page: PageSession, kind: str, fields: dict[str, Any],
                                             code: str) -> None:
    result = check(frames_page, expect(kind, **fields))
    assert not result.passed
    assert result.runtime_code == code
    assert result.frame is None
    assert "frame" not in result.observed


def test_a_passing_check_is_unchanged(frames_page: PageSession) -> None:
    result = check(frames_page, expect("text_contains", value="Total: 42.00"))
    assert result.passed and result.frame is None
    assert (result.stability, result.reads) in (("reads", 2), ("quiet", 1), ("quiet", 2)), result


def test_the_walker_says_the_text_is_in_a_frame_and_how_to_reach_it(flowwalk_browser: Any, tmp_path: Path,
                                                                    site: StaticServer) -> None:
    sc = flow("frame-text", [expect_step("text_contains", "Pay now")], f"{site.url}/hostile/frames.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", expect_timeout_ms=500))
    failure = rules_of(events)["frame-text"].failure
    assert failure is not None
    assert (failure.failure_class, failure.runtime_code) == ("spec_step_unresolvable", "ELEMENT_NOT_FOUND")
    assert "frame 'pay-frame'" in failure.message and "/hostile/frame-child.html" in failure.message
    assert "do not cross into frames" in failure.message and "hint:" in failure.message

