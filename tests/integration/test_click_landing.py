"""Where a click really landed, said by the failure it explains.

Playwright checks that the mouse-down of a click hits its element, not where the mouse-up lands.
Content that arrives between the two moves the page; the mouse-up lands on another element and
the `click` event goes to their common ancestor, so no handler of the element runs, nothing
navigates, and the click is reported done. The step after it fails much later with nothing saying
why. The page tests/site/pages/walker/click-landing.html makes that race deterministic: the
pointerdown handler of '#more' inserts a tall card above the button at once.

A failure after a click carries `context["last_click"]`: the selector aimed at, what the click and
pointerdown events reached, and (plain CSS only) a sentence when the click missed. It is read from
the page only on the failure path, with the rest of the evidence: a passing flow never asks.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from flowwalk import events as ev
from flowwalk.browser import PageSession
from flowwalk.report.build import build_reports
from flowwalk.report.emit import EmitWriter
from flowwalk.report.html import report_data
from flowwalk.report.records import read_run
from flowwalk.report.verdict import build_verdict
from flowwalk.serve import StaticServer
from flowwalk.settings import Secrets
from flowwalk.walk.context import RunContext
from flowwalk.walk.run import run_plan
from flowwalk.walk.evidence import LAST_CLICK_TIMEOUT_MS, TITLE_TIMEOUT_MS, plain_css

from test_walker import act, click, dump, expect, fill, flow, make_settings, rules_of, walk  # the walker's builders

pytestmark = pytest.mark.browser

PAGE = "walker/click-landing.html"
#: the sentence for the race on this page (step 1 clicks '#more', the click event reaches main#stage)
MISSED = ("the click on step 1 reached `main#stage.stage`, not '#more': the page moved under the pointer between "
          "mouse-down and mouse-up (the mouse-down was on `button#more[data-testid=\"load-more\"]`)")


@pytest.fixture()
def url(site: StaticServer) -> str:
    return f"{site.url}/{PAGE}"


def _failure(events: list[ev.Event], name: str) -> ev.Failure:
    failure = rules_of(events)[name].failure
    assert failure is not None, dump(events)
    return failure


# --- the race -----------------------------------------------------------------------------------


def test_a_click_the_page_moved_under_says_where_it_landed(flowwalk_browser: Any, tmp_path: Path, url: str) -> None:
    sc = flow("moved", [click("#more"), expect("text_contains", "More stories loaded", "#status", timeout_ms=500)],
              url)
    outcome, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = _failure(events, "moved")
    assert outcome.status == "failed"
    assert (failure.step_index, failure.runtime_code) == (2, "EXPECT_STATE_MISMATCH")
    landing = failure.context["last_click"]
    assert landing["step"] == 1 and landing["action"] == "click" and landing["selector"] == "#more"
    assert landing["click"]["element"] == "main#stage.stage"   # the common ancestor of the button and the card
    assert landing["click"]["text"].startswith("Who Nothing clicked yet A customer story that arrived late")
    assert landing["pointerdown"] == {"element": 'button#more[data-testid="load-more"]', "text": "Load more stories"}
    assert landing["on_target"] is False and landing["click_on_pointerdown_element"] is False
    assert landing["note"] == MISSED
    assert failure.message.endswith(f"; {MISSED}")   # where the console, the summary and the PR show it
    # the click step itself passed: Playwright reported it done
    click_step = next(e for e in events if isinstance(e, ev.StepFinished) and e.index == 1)
    assert click_step.status == "passed"


def test_the_landing_reaches_emit_jsonl_and_the_html_report_data(tmp_path: Path, url: str) -> None:
    out = tmp_path / "report"
    settings = make_settings(out)
    sc = flow("moved-run", [click("#more"), expect("text_contains", "More stories loaded", "#status",
                                                   timeout_ms=500)], url)
    with EmitWriter(out) as writer:
        summary = run_plan([sc], settings, writer)
    assert summary.launch_errors == ()
    lines = [json.loads(line) for line in (out / "emit.jsonl").read_text(encoding="utf-8").splitlines()]
    finished = [r for r in lines if r.get("event") == "rule_finished"]
    assert len(finished) == 1 and finished[0]["failure"]["context"]["last_click"]["note"] == MISSED
    build_reports(out, warn=False)
    records = read_run(out)
    data = report_data(build_verdict(records), records)
    # report.js shows every context key it does not know under its own heading: this one included
    assert data["tests"][0]["failure"]["context"]["last_click"]["note"] == MISSED
    assert (out / "report.html").is_file()


def test_a_selector_that_is_not_css_reports_the_targets_without_a_verdict(flowwalk_browser: Any, tmp_path: Path,
                                                                          url: str) -> None:
    sc = flow("moved-text", [click("text=Load more stories"),
                             expect("text_contains", "More stories loaded", "#status", timeout_ms=500)], url)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    landing = _failure(events, "moved-text").context["last_click"]
    assert landing["selector"] == "text=Load more stories"
    assert landing["click"]["element"] == "main#stage.stage"
    assert landing["pointerdown"]["element"] == 'button#more[data-testid="load-more"]'
    assert landing["click_on_pointerdown_element"] is False   # a fact about the two events, not a selector match
    assert "note" not in landing and "on_target" not in landing


def test_a_later_failing_act_still_gets_the_landing_of_the_click_before_it(flowwalk_browser: Any, tmp_path: Path,
                                                                           url: str) -> None:
    # the click should have revealed something the next act needs
    sc = flow("moved-then-act", [click("#more"), act("fill", "#revealed", "x")], url)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", action_timeout_ms=500))
    failure = _failure(events, "moved-then-act")
    assert (failure.step_index, failure.runtime_code) == (2, "ELEMENT_NOT_FOUND")
    assert failure.context["last_click"]["note"] == MISSED


# --- clicks that landed -------------------------------------------------------------------------------


def test_a_failure_after_a_click_that_landed_has_no_sentence(flowwalk_browser: Any, tmp_path: Path, url: str) -> None:
    sc = flow("landed", [click("#steady"), expect("text_contains", "Something else", "#status", timeout_ms=500)], url)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    landing = _failure(events, "landed").context["last_click"]
    assert landing["click"] == {"element": "button#steady", "text": "Steady button"}
    assert landing["pointerdown"] == landing["click"]
    assert landing["on_target"] is True and landing["click_on_pointerdown_element"] is True
    assert "note" not in landing and "the page moved" not in _failure(events, "landed").message
    assert "Steady clicked" in _failure(events, "landed").observed   # the click did its work


def test_a_passing_flow_never_asks_the_page_where_the_click_landed(flowwalk_browser: Any, tmp_path: Path,
                                                                   url: str) -> None:
    out = tmp_path / "report"
    sc = flow("passes", [click("#steady"), expect("text_contains", "Steady clicked", "#status")], url)
    outcome, events = walk(sc, flowwalk_browser, make_settings(out, trace="on"))
    assert outcome.status == "passed"
    assert "last_click" not in dump(events)
    # the trace lists the calls flowwalk made to the browser: the passing flow read the document
    # element (the title, the landing: `locator(':root').evaluate`) never
    assert _root_reads(out, events) == []
    # the same flow failing: the title (2 s bound) and the landing (its own bound), once each
    failing = flow("fails", [click("#steady"), expect("text_contains", "Nope", "#status", timeout_ms=300)], url)
    outcome, events = walk(failing, flowwalk_browser, make_settings(out, trace="on"))
    assert outcome.status == "failed" and "last_click" in _failure(events, "fails").context
    assert sorted(_root_reads(out, events)) == sorted([TITLE_TIMEOUT_MS, LAST_CLICK_TIMEOUT_MS])


def _root_reads(out: Path, events: list[ev.Event]) -> list[Any]:
    """The timeouts of the reads of ':root' in the scenario's Playwright trace, in order."""
    finished = next(e for e in events if isinstance(e, ev.ScenarioFinished))
    assert finished.trace, dump(events)
    reads = []
    with zipfile.ZipFile(out / finished.trace) as archive:
        for name in archive.namelist():
            if not name.endswith(".trace"):
                continue
            for line in archive.read(name).decode("utf-8").splitlines():
                call = json.loads(line)
                params = call.get("params") or {}
                if call.get("type") == "before" and params.get("selector") == ":root":
                    reads.append(params.get("timeout"))
    return reads


def test_no_landing_after_another_act_or_a_navigation(flowwalk_browser: Any, tmp_path: Path, url: str) -> None:
    # the most recent act is a fill, not the click
    sc = flow("then-fill", [click("#more"), fill("#who", "ann"),
                            expect("text_contains", "More stories loaded", "#status", timeout_ms=300)], url)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    assert "last_click" not in _failure(events, "then-fill").context
    # the click navigated: the new document saw no click, so there is nothing to say about it
    sc = flow("left", [click("#away"), expect("text_contains", "Nope", timeout_ms=300)], url)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = _failure(events, "left")
    assert failure.context["url"].endswith("/walker/done.html") and "last_click" not in failure.context


# --- bounded like the rest of the evidence ------------------------------------------------------------


def test_skipped_evidence_skips_the_landing_too(flowwalk_browser: Any, tmp_path: Path, url: str) -> None:
    settings = make_settings(tmp_path / "report", run_timeout_s=2.5, rule_timeout_ms=30_000)
    sc = flow("spent", [click("#more"), expect("text_contains", "More stories loaded", "#status")], url)
    _, events = walk(sc, flowwalk_browser, settings, run=RunContext.create(settings))
    failure = _failure(events, "spent")
    assert failure.runtime_code == "RUN_TIMEOUT" and "a11y_snapshot" in failure.context["evidence_skipped"]
    assert "last_click" not in failure.context


def test_the_landing_is_redacted_like_the_rest_of_the_evidence(flowwalk_browser: Any, tmp_path: Path,
                                                               url: str) -> None:
    secret = "hunter2-token"
    settings = make_settings(tmp_path / "report", secrets=Secrets({"WHO": secret}))
    # the page echoes the typed secret into the text of the element the click lands on
    sc = flow("echo", [fill("#who", "{{WHO}}"), click("#more"),
                       expect("text_contains", "More stories loaded", "#status", timeout_ms=500)], url)
    _, events = walk(sc, flowwalk_browser, settings)
    landing = _failure(events, "echo").context["last_click"]
    assert landing["click"]["text"].startswith("Who Hello *** A customer story")
    assert landing["note"] == MISSED.replace("step 1", "step 2")
    assert secret not in dump(events)


# --- the browser layer --------------------------------------------------------------------------------


def test_the_session_reads_the_record_in_one_call_and_never_raises(session: PageSession, url: str) -> None:
    page = session.playwright_page
    session.goto(url, timeout_ms=10_000)
    assert session.last_click() == {"click": None, "pointerdown": None, "in_pointerdown": None, "matches": None,
                                    "invalid_selector": False}
    page.click("#steady")
    page.evaluate("document.getElementById('more').click()")   # untrusted: not where a pointer landed
    record = session.last_click("#steady")
    assert record is not None and record["click"]["id"] == "steady" and record["click"]["inside"] is True
    assert record["pointerdown"]["id"] == "steady" and record["in_pointerdown"] is True
    assert record["matches"] == 1
    assert session.last_click("text=Steady")["invalid_selector"] is True   # the page reads CSS only
    assert page.evaluate("document.getElementById('status').textContent") == "More stories loaded"
    # hidden from the page's own enumeration, and the page cannot replace it
    assert page.evaluate("Object.keys(window).filter((k) => k.includes('flowwalk'))") == []
    assert page.evaluate("() => { for (const k in window) if (k.includes('flowwalk')) return k; return null; }") is None
    session.close()
    assert session.last_click("#steady") is None


@pytest.mark.parametrize("selector, css", [
    ("#more", True), ("button.primary > span", True), ("[data-testid=help-link]", True), ("a[href='x=y']", True),
    ("input:checked", True), ("text=Load more", False), ("role=button[name='Go']", False),
    ("internal:role=button", False), ("data-testid=go", False), ("#list >> .item", False),
    ("//button", False), ('"Load more"', False), ("button:has-text('Go')", False), ("li:visible", False),
    ("", False), (None, False),
])
def test_only_plain_css_is_compared(selector: str | None, css: bool) -> None:
    assert plain_css(selector) is css
