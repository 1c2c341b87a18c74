"""Typing key by key, drag and drop, dispatched events, dialogs and routed requests, walked as a user runs them.

tests/e2e/interact/ holds one flow per behaviour of tests/site/pages/interact/shop.html (a search
filtered on keyup, a board with HTML5 drag and drop, an email checked on blur, a cart counting a
custom event's detail, a basket that confirms, prompts and alerts, offers fetched from the shop's
API, answered by the spec's routes or a HAR file). Against the page as written
every flow passes; against copies with a bug planted, each flow fails at the check written for that
behaviour, and junit.xml, report.html and the PR comment say what was expected and observed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from flowwalk.serve import StaticServer

from _cli import ROOT, flowwalk, reports_say_what_was_expected_and_observed

pytestmark = pytest.mark.browser

FLOWS = "tests/e2e/interact"
PAGE = ROOT / "tests" / "site" / "pages" / "interact" / "shop.html"

#: bugs a shop like this one ships: (what the page says, what the bug makes of it)
BUGS = [
    ("search.addEventListener('keyup'", "search.addEventListener('keydown'"),   # reads the value a key late
    ("lane.addEventListener('dragover', (e) => { e.preventDefault(); });",     # no drop allowed
     "lane.addEventListener('dragover', () => {});"),
    ("email.addEventListener('blur'", "email.addEventListener('focus'"),
    ("+ e.detail.qty", "+ e.detail.quantity"),
    ("confirm(`Delete \"${name}\" from the basket?`)", "confirm(`Remove ${name}?`)"),
    ("fetch('/api/offers?store=corner'", "fetch('/api/v2/offers?store=corner'"),   # the API moved
]
NO_CONFIRM = [("if (confirm(`Delete \"${name}\" from the basket?`)) milk.remove();", "milk.remove();")]


def _serve_copy(tmp_path: Path, bugs: list[tuple[str, str]]) -> StaticServer:
    root = tmp_path / "site"
    (root / "interact").mkdir(parents=True)
    text = PAGE.read_text()
    for old, new in bugs:
        assert old in text, f"the page changed: {old!r}"
        text = text.replace(old, new)
    (root / "interact" / "shop.html").write_text(text)
    return StaticServer(root)


def _walk(tmp_path: Path, bugs: list[tuple[str, str]], *files: str) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / "report"
    with _serve_copy(tmp_path, bugs) as site:
        done = flowwalk("run", *(f"{FLOWS}/{f}" for f in files), "--base-url", site.url, "--out", str(out),
                        timeout=180)
    assert done.returncode == (1 if bugs else 0), done.stdout + done.stderr
    return out, dict(json.loads((out / "verdict.json").read_text()))


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]


def _test(verdict: dict[str, Any], file: str) -> dict[str, Any]:
    return dict(next(t for t in verdict["tests"] if t["source"] == f"{FLOWS}/{file}"))


def _failure(verdict: dict[str, Any], file: str) -> dict[str, Any]:
    test = _test(verdict, file)
    assert test["status"] == "failed" and test["failure"]["failure_class"] == "assertion_failed", test
    return dict(test["failure"])


def test_every_flow_passes_against_the_page_and_an_unasked_alert_is_reported(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, [], "typing.flow.yaml", "drag.flow.yaml", "events.flow.yaml",
                         "dialogs.flow.yaml", "unasked.flow.yaml", "offers.flow.yaml", "offers-down.flow.yaml",
                         "offers-har.flow.yaml")
    assert verdict["counts"]["passed"] == 8, verdict["counts"]
    records = _records(out)
    answered = [r["detail"]["dialog"] for r in records
                if r["event"] == "step_finished" and "dialog" in r.get("detail", {})]
    assert answered == [
        {"type": "prompt", "message": 'New name for "Milk"', "action": "accepted"},
        {"type": "confirm", "message": 'Delete "Oat milk" from the basket?', "action": "dismissed"},
        {"type": "confirm", "message": 'Delete "Oat milk" from the basket?', "action": "accepted"}]
    # an alert no act answered was dismissed (Playwright's default), and says so as a warning
    [finding] = _test(verdict, "unasked.flow.yaml")["findings"]
    assert finding["kind"] == "dialog" and finding["severity"] == "warning"
    assert finding["message"].startswith("an alert 'Basket saved' opened during step 2 (expect visible '#saved') "
                                         "and was dismissed; to answer it, add dialog: to the act"), finding
    assert "an alert 'Basket saved' opened" in (out / "report.html").read_text()
    assert "an alert 'Basket saved' opened" in (out / "junit.xml").read_text()
    # each request a route answered is an event, and a row of its test in report.html
    routed = {r["test_id"].split("#")[0].rsplit("/", 1)[1]: r for r in records if r["event"] == "request_routed"}
    assert sorted(routed) == ["offers-down.flow.yaml", "offers-har.flow.yaml", "offers.flow.yaml"]
    offers = routed["offers.flow.yaml"]
    assert (offers["method"], offers["answer"], offers["status"], offers["delay_ms"], offers["line"]) == \
        ("GET", "fulfilled", 200, 200, 5) and offers["url"].endswith("/api/offers?store=corner")
    assert (routed["offers-har.flow.yaml"]["source"], routed["offers-down.flow.yaml"]["status"]) == ("har", 503)
    assert '"route":"/api/offers?store=*"' in (out / "report.html").read_text()


def test_each_planted_bug_fails_the_check_written_for_it(tmp_path: Path) -> None:
    out, verdict = _walk(tmp_path, BUGS, "typing.flow.yaml", "drag.flow.yaml", "events.flow.yaml",
                         "dialogs.flow.yaml", "offers.flow.yaml", "offers-har.flow.yaml", "offers-down.flow.yaml")
    typed = _failure(verdict, "typing.flow.yaml")
    # filtered on keydown, the list lags a key behind: 'ch', not 'che'
    assert typed["observed"] == "3 item(s) match '#results li': ['cheese', 'cherries', 'chips']", typed
    dragged = _failure(verdict, "drag.flow.yaml")
    assert dragged["step_index"] == 2 and dragged["observed"] == "0 item(s) match '#done .card': []", dragged
    events = _failure(verdict, "events.flow.yaml")
    assert events["step_index"] == 3 and "#email-error" in events["expected"], events
    asked = _failure(verdict, "dialogs.flow.yaml")
    assert asked["step_index"] == 3 and asked["runtime_code"] == "EXPECT_STATE_MISMATCH", asked
    assert asked["message"].startswith("the confirm said 'Remove Oat milk?', not 'Delete \"Oat milk\" from the "
                                       "basket?' (it was dismissed)"), asked
    assert asked["expected"] == "a dialog 'Delete \"Oat milk\" from the basket?', dismissed"
    assert asked["observed"] == "a confirm 'Remove Oat milk?'"
    # the page asks the moved API: no route answers it, nor the HAR file, and the offers stay empty;
    # a route that still matches the new path keeps answering
    for file in ("offers.flow.yaml", "offers-har.flow.yaml"):
        assert _failure(verdict, file)["observed"] == "0 item(s) match '#offers li': []"
    assert _test(verdict, "offers-down.flow.yaml")["status"] == "passed"
    records = _records(out)
    assert not [r for r in records if r["event"] == "request_routed" and r["route"] != "/api/**"]
    reports_say_what_was_expected_and_observed(out, verdict, asked)
    reports_say_what_was_expected_and_observed(out, verdict, typed)


def test_a_detail_the_page_misreads_and_a_confirm_never_asked_fail(tmp_path: Path) -> None:
    _, verdict = _walk(tmp_path, [BUGS[3], *NO_CONFIRM], "events.flow.yaml", "dialogs.flow.yaml")
    counted = _failure(verdict, "events.flow.yaml")
    assert counted["step_index"] == 5 and counted["observed"].endswith("'NaN'"), counted
    unasked = _failure(verdict, "dialogs.flow.yaml")
    assert unasked["step_index"] == 3 and unasked["message"].startswith("click opened no dialog within "), unasked
    assert unasked["observed"] == "no dialog"

