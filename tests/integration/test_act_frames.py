"""Acts and iframes: a target that only a child frame has is a spec that cannot reach it, named as such.

Selectors (and the re-resolution of a `target` description) look at the main frame only. An act
whose target the main frame does not have looks once, on that failure path only, in the child
frames (the helper checks use: at most 4 frames within 1 s); when one has it, the act fails
`ELEMENT_NOT_FOUND` (spec_step_unresolvable) with a message that names the frame (name and URL),
says selectors do not cross into frames, and gives a hint. Where no frame has it, the failure is
the one it always was. The page is tests/site/pages/hostile/frames.html: '#total' in the main
frame, a payment iframe ('pay-frame', frame-child.html: '#card' labelled "Card number", '#pay'
"Pay now") and a srcdoc iframe ('inline-frame', "Inline frame text").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk.browser.page import Page
from flowwalk import events as ev
from flowwalk.browser import PageSession
from flowwalk.serve import StaticServer
from flowwalk.heal.find import Lookup, find

from test_walker import act, click, fill, flow, make_settings, rules_of, steps_of, walk  # the walker's builders

pytestmark = pytest.mark.browser

ACTION_MS = 1500


def failure_of(browser: Any, tmp_path: Path, site: StaticServer, *steps: Any) -> tuple[ev.Failure, ev.StepFinished]:
    sc = flow("frame-act", list(steps), f"{site.url}/hostile/frames.html")
    _, events = walk(sc, browser, make_settings(tmp_path / "report", action_timeout_ms=ACTION_MS,
                                                rule_timeout_ms=2000))
    failure = rules_of(events)["frame-act"].failure
    assert failure is not None, "the act should have failed"
    return failure, steps_of(events)[-1]


def names_pay_frame(failure: ev.Failure) -> None:
    assert (failure.failure_class, failure.runtime_code) == ("spec_step_unresolvable", "ELEMENT_NOT_FOUND")
    assert "frame 'pay-frame' (http://127.0.0.1:" in failure.message, failure.message
    assert "/hostile/frame-child.html)" in failure.message, failure.message
    assert "do not cross into frames" in failure.message and "hint: " in failure.message, failure.message
    assert "only inside the frame 'pay-frame'" in failure.observed, failure.observed


@pytest.mark.parametrize("step", [click("#pay"), fill("#card", "4242"), act("hover", "#pay"),
                                  click(".nothing | #pay")], ids=["click", "fill", "hover", "pipe"])
def test_a_selector_that_matches_only_inside_a_frame_names_the_frame(flowwalk_browser: Any, tmp_path: Path,
                                                                     site: StaticServer, step: Any) -> None:
    failure, finished = failure_of(flowwalk_browser, tmp_path, site, step)
    names_pay_frame(failure)
    assert failure.message.startswith(f"no element matches '{step.selector}' within {ACTION_MS} ms; "
                                      "the main page does not have it, but the frame 'pay-frame'")
    assert failure.message.endswith("hint: put the step in a frame block (frame: <the iframe's selector>, with its "
                                    "steps), or act on what the main page itself shows")
    # the look is bounded: the action timeout, then at most 1 s for the frames (and slack)
    assert finished.duration_ms < ACTION_MS + 1000 + 1500, finished.duration_ms


def test_a_srcdoc_frame_is_named_by_its_id(flowwalk_browser: Any, tmp_path: Path, site: StaticServer) -> None:
    failure, _ = failure_of(flowwalk_browser, tmp_path, site, click("#inline"))
    assert failure.runtime_code == "ELEMENT_NOT_FOUND"
    assert "frame 'inline-frame' (about:srcdoc)" in failure.message, failure.message


def test_a_target_description_found_only_in_a_frame_names_the_frame(flowwalk_browser: Any, tmp_path: Path,
                                                                    site: StaticServer) -> None:
    # the page read shows the frame's button as the best candidate, and never acts on it
    failure, finished = failure_of(flowwalk_browser, tmp_path, site, click(target="the Pay now button"))
    names_pay_frame(failure)
    assert failure.message.startswith("could not resolve the target 'the Pay now button': the best candidate, "
                                      'button "Pay now" #pay [frame '), failure.message
    assert "acts do not cross into frames" in failure.message
    assert "; the main page does not have it, but the frame 'pay-frame'" in failure.message
    assert [a.strategy for a in failure.recovery] == ["re_resolve_target"]
    assert failure.recovery[0].outcome == "failed"
    assert finished.detail["candidates"][0]["element"].startswith('button "Pay now" #pay [frame ')


def test_a_pinned_selector_and_a_target_both_missing_from_the_main_page(flowwalk_browser: Any, tmp_path: Path,
                                                                      site: StaticServer) -> None:
    failure, _ = failure_of(flowwalk_browser, tmp_path, site, fill("#card", "4242", target="the card number field"))
    names_pay_frame(failure)
    assert "pinned selector '#card' matched nothing" in failure.recovery[0].detail


@pytest.mark.parametrize("step, start", [
    (click("#nowhere"), f"no element matches '#nowhere' within {ACTION_MS} ms"),
    (click(target="the Refund button"),
     "could not resolve the target 'the Refund button': no candidate reaches the threshold 0.65 (best 0.00)"),
], ids=["selector", "target"])
def test_a_target_no_frame_has_fails_as_it_always_did(flowwalk_browser: Any, tmp_path: Path, site: StaticServer,
                                                      step: Any, start: str) -> None:
    failure, _ = failure_of(flowwalk_browser, tmp_path, site, step)
    assert (failure.failure_class, failure.runtime_code) == ("spec_step_unresolvable", "ELEMENT_NOT_FOUND")
    assert failure.message.split(" (best: ")[0] == start, failure.message
    assert "frame" not in failure.observed


def test_an_act_the_main_page_can_do_is_unchanged(flowwalk_browser: Any, tmp_path: Path, site: StaticServer) -> None:
    sc = flow("frame-act", [click("#total")], f"{site.url}/hostile/frames.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", action_timeout_ms=ACTION_MS))
    assert rules_of(events)["frame-act"].status == "passed"
    assert steps_of(events)[-1].detail["selector"] == "#total"


def test_finding_a_target_answers_for_a_frame_too(session: PageSession, site: StaticServer) -> None:
    session.goto(f"{site.url}/hostile/frames.html", timeout_ms=10_000)
    child = next(f for f in session.playwright_page.frames if f.name == "pay-frame")
    child.wait_for_load_state("load", timeout=5_000)
    on_page = find(session.page, Lookup(target="the Pay now button"))
    # the page's read shows the frame's button, and never acts on it
    assert on_page.selector is None and "acts do not cross into frames" in on_page.reason, on_page.reason
    found = find(Page(child), Lookup(target="the Pay now button"))
    assert found.selector is not None, found.reason
    assert child.locator(found.selector).get_attribute("id") == "pay"
