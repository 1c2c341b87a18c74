"""Popups and iframes in a `.robot` suite, walked as a user runs them.

tests/e2e/windows/desk.robot walks the help desk test_windows.py serves: the guide that opens in a
new tab (closed after its steps), the chat window (left open, rating through its opener), the FAQ
in an iframe of the page's origin and the payment form in an iframe of another origin, paid
through a user keyword inside a GROUP inside the frame. Against the desk as written every rule
passes, its steps nested under their blocks in emit.jsonl, junit.xml and report.html; against the
copy with test_windows.py's bugs planted, the popup's click and the check in the payment frame
fail, and the reports say what was expected and observed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from _cli import reports_say_what_was_expected_and_observed
from test_windows import BUGS, FLOWS, _steps, _walk

pytestmark = pytest.mark.browser

SUITE = "desk.robot"


def _rules(verdict: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["test_id"].rsplit("/", 1)[1]: t for t in verdict["tests"] if t["source"] == f"{FLOWS}/{SUITE}"}


def test_a_robot_suite_walks_popups_and_frames_with_its_steps_nested_under_them(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, [], SUITE, exit_code=0)
    rules = _rules(verdict)
    assert {name: t["status"] for name, t in rules.items()} == dict.fromkeys(
        ["guide", "chat", "questions", "payment"], "passed"), rules
    steps = _steps(out, SUITE)
    where = [(s["line"], [f["title"] for f in s["frames"]]) for s in steps]
    assert where == [
        (11, []), (12, ["popup of click '#guide'"]), (13, ["popup of click '#guide'"]),
        (14, ["popup of click '#guide'"]), (16, []),
        (19, []), (20, ["popup of click '#chat'"]), (21, ["popup of click '#chat'"]),
        (22, ["popup of click '#chat'"]), (24, []), (25, []),
        (31, ["frame '#faq'"]), (32, ["frame '#faq'"]),
        (48, ["frame '#pay'", "Paying by card", "Pay With Card"]),
        (49, ["frame '#pay'", "Paying by card", "Pay With Card"]),
        (39, ["frame '#pay'"]), (40, ["frame '#pay'"]), (42, []), (43, [])], where
    assert steps[0]["detail"]["popup"]["url"].endswith("/windows/guide.html")
    cases = {c.get("name"): c.findtext("system-out") or "" for c in ET.parse(out / "junit.xml").iter("testcase")}
    guide = next(text for name, text in cases.items() if name and name.endswith("guide"))
    assert "  popup of click '#guide' (line 11)\n    step 2 passed: Then url contains" in guide, guide
    payment = next(text for name, text in cases.items() if name and name.endswith("payment"))
    assert ("  frame '#pay' (line 35)\n    Paying by card (line 36)\n      Pay With Card (line 37) with "
            'number="4242 4242 4242 1881"\n        step 1 passed: When I type') in payment, payment
    html = (out / "report.html").read_text()
    assert "popup of click '#guide'" in html.replace("\\u0027", "'") and "Paying by card" in html


def test_a_link_that_opens_no_popup_and_a_bug_inside_a_frame_fail_the_robot_suite(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, BUGS, SUITE)
    rules = _rules(verdict)
    guide = rules["guide"]["failure"]
    assert guide["step_index"] == 1 and guide["runtime_code"] == "EXPECT_STATE_MISMATCH", guide
    assert guide["observed"] == "none opened" and guide["line"] == 11, guide
    assert rules["chat"]["status"] == "skipped", rules["chat"]   # its parent failed
    assert rules["questions"]["status"] == "passed", rules["questions"]
    paid = rules["payment"]["failure"]
    assert paid["step_text"].startswith("frame '#pay' › Then locator \"#last4\" has text \"1881\""), paid
    assert paid["observed"].endswith("'4242'") and paid["line"] == 39, paid
    for failure in (guide, paid):
        reports_say_what_was_expected_and_observed(out, verdict, failure)
