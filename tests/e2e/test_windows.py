"""Popups and iframes, walked as a user runs them.

tests/site/pages/windows/desk.html is a help desk: a guide that opens in a new tab, a chat window
that rates the conversation through its opener, a button that opens a page on a host no flow
allows, a FAQ in a same-origin iframe, a payment form in an iframe served from a second server
(another port: another origin, on a host the allowlist permits) and an ad frame on `localhost`,
which no flow here allows. Against the page as written the popup and frame flows pass and the two
that reach outside the allowlist are refused, saying why; against a copy with bugs planted, each
flow fails at the check written for it, and junit.xml, report.html and the PR comment say what was
expected and observed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator

import pytest

from flowwalk.serve import StaticServer

from _cli import ROOT, flowwalk, reports_say_what_was_expected_and_observed

pytestmark = pytest.mark.browser

FLOWS = "tests/e2e/windows"
PAGES = ROOT / "tests" / "site" / "pages" / "windows"

#: a desk whose guide link opens in the same tab, and a payment widget that shows the card's first digits
BUGS = [("desk.html", 'href="guide.html" target="_blank"', 'href="guide.html"'),
        ("widget.html", "number.slice(-4)", "number.slice(0, 4)")]


def _walk(tmp_path: Path, bugs: list[tuple[str, str, str]], *files: str, exit_code: int = 1) -> tuple[Path, dict[str, Any]]:
    root = tmp_path / "site"
    (root / "windows").mkdir(parents=True)
    with StaticServer(root) as site, StaticServer(root) as widgets:
        for page in PAGES.iterdir():
            text = page.read_text()
            for name, old, new in bugs:
                if name == page.name:
                    assert old in text, f"the page changed: {old!r}"
                    text = text.replace(old, new)
            text = text.replace("WIDGET_ORIGIN", widgets.url).replace("AD_ORIGIN",
                                                                     widgets.url.replace("127.0.0.1", "localhost"))
            (root / "windows" / page.name).write_text(text)
        out = tmp_path / "report"
        done = flowwalk("run", *(f"{FLOWS}/{f}" for f in files), "--base-url", site.url, "--out", str(out),
                        "--workers", "1", timeout=180)
    assert done.returncode == exit_code, done.stdout + done.stderr
    return out, dict(json.loads((out / "verdict.json").read_text()))


def _test(verdict: dict[str, Any], file: str) -> dict[str, Any]:
    return dict(next(t for t in verdict["tests"] if t["source"] == f"{FLOWS}/{file}"))


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]


def _steps(out: Path, file: str) -> list[dict[str, Any]]:
    return [r for r in _records(out) if r["event"] == "step_finished" and r["path"] == f"{FLOWS}/{file}"]


def test_popups_and_frames_are_walked_and_outside_hosts_refused(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, [], "popups.flow.yaml", "frames.flow.yaml", "ads-frame.flow.yaml",
                         "status-popup.flow.yaml", exit_code=2)   # a flow that leaves the allowlist needs review
    assert _test(verdict, "popups.flow.yaml")["status"] == "passed", _test(verdict, "popups.flow.yaml")
    assert _test(verdict, "frames.flow.yaml")["status"] == "passed", _test(verdict, "frames.flow.yaml")
    steps = _steps(out, "popups.flow.yaml")
    # the popup's steps are the act's block: under it in emit.jsonl, report.html and junit.xml
    inside = [s["index"] for s in steps if [f["kind"] for f in s["frames"]] == ["popup"]]
    assert inside == [2, 3, 4, 9, 10, 11], steps
    assert steps[0]["detail"]["popup"]["url"].endswith("/windows/guide.html")
    [case] = [c for c in ET.parse(out / "junit.xml").iter("testcase") if "own" in (c.get("name") or "")]
    tree = case.findtext("system-out") or ""
    assert "  popup of click '#guide' (line 8)\n    step 2 passed: expect url_contains '/windows/guide.html'" in tree, tree
    frames = _steps(out, "frames.flow.yaml")
    assert [f["title"] for f in frames[0]["frames"]] == ["frame '#faq'"]
    healed = frames[3]
    assert healed["status"] == "passed" and healed["frames"][0]["selector"] == "#pay", healed
    assert healed["detail"]["selector"] == "#pay-now", healed
    [heal] = [f["heal"] for r in _records(out) if r["event"] == "rule_finished" for f in r["findings"]
              if f["kind"] == "healed" and f["heal"]["path"] == f"{FLOWS}/frames.flow.yaml"]
    assert (heal["step_index"], heal["new_selector"]) == (healed["index"], "#pay-now"), heal
    ads = _test(verdict, "ads-frame.flow.yaml")["failure"]
    assert ads["runtime_code"] == "NAVIGATION_BLOCKED", ads
    assert ads["message"].startswith("the frame '#ads' shows 'http://localhost:"), ads
    assert ads["observed"] == "localhost" and "127.0.0.1" in ads["expected"], ads
    status = _test(verdict, "status-popup.flow.yaml")["failure"]
    assert status["runtime_code"] == "NAVIGATION_BLOCKED" and status["step_index"] == 1, status
    assert status["message"] == "the popup went to 'http://status.example.invalid/', outside the allowlist", status


def test_a_link_that_opens_no_popup_and_a_bug_inside_a_frame_fail(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, BUGS, "popups.flow.yaml", "frames.flow.yaml")
    none = _test(verdict, "popups.flow.yaml")["failure"]
    assert none["step_index"] == 1 and none["runtime_code"] == "EXPECT_STATE_MISMATCH", none
    assert none["message"].startswith("click opened no popup within "), none
    assert none["observed"] == "none opened" and none["expected"].startswith("a popup (a new tab or window)")
    framed = _test(verdict, "frames.flow.yaml")["failure"]
    assert framed["step_index"] == 5 and framed["step_text"].startswith("frame '#pay' › expect has_text"), framed
    assert framed["observed"].endswith("'4242'"), framed
    for failure in (none, framed):
        reports_say_what_was_expected_and_observed(out, verdict, failure)

