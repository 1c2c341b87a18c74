"""A run whose failures were all excused (quarantined, or not new under fail-on new) says so in
every headline, and report.html lists what did not fail the job as text, not as Markdown."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path
from typing import Any

from flowwalk.events import RunStarted
from flowwalk.github.render import RunLinks, render_comment
from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.console import ConsoleReporter
from flowwalk.report.verdict_model import Verdict
from flowwalk.settings import Settings
from sample_run import sample_events, sample_suites, write_sample_run

CHECKOUT = "examples/flows/checkout.flow.yaml#Checkout saves the order"
ACCOUNT = "examples/flows/account.flow.yaml#Account settings"
LOGIN = "examples/rules/shop.rules.yaml#shop/login"


def excused_run(folder: Path) -> Verdict:
    """The sample run, its checkout failure quarantined and the other two failing on the base too,
    under fail-on new: nothing fails the job."""
    suites = sample_suites()
    events = sample_events(suites, plan_run(suites, Settings()).record())
    gate = {"fail_on": "new", "base": {"path": "base", "run_id": "base-1", "tests": {ACCOUNT: "failed", LOGIN: "failed"}},
            "quarantine": {"path": "flowwalk-quarantine.yaml", "today": "2026-01-01", "unknown": [], "entries": [
                {"id": CHECKOUT, "owner": "@ada", "reason": "slow_ci [tracked]", "expires": "2099-12-31",
                 "expired": False, "line": 3, "tests": [CHECKOUT]}]}}
    assert isinstance(events[0], RunStarted)
    events[0] = dataclasses.replace(events[0], gate=gate)
    write_sample_run(folder, events)
    return build_reports(folder, warn=False)


def test_every_headline_says_what_was_excused_not_all_checks_passed(tmp_path: Path) -> None:
    verdict = excused_run(tmp_path)
    assert (verdict.outcome, verdict.exit_code, verdict.counts.failed) == ("passed", 0, 3)
    words = "passed, 3 failures excused (1 quarantined, 2 not new)"
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith(f"## ✅ flowwalk: {words}: 3 of 14 tests failed (exit 0)\n")
    assert f"<h1>✅ flowwalk: {words}: 3 of 14 tests failed (exit 0)</h1>" in (tmp_path / "report.html").read_text()
    assert render_comment(verdict, RunLinks()).count(f"### ✅ flowwalk: {words}\n") == 1
    console = io.StringIO()
    ConsoleReporter(console, color=False).finish(verdict)
    assert f"verdict: {words} (exit 0)" in console.getvalue()
    for text in (summary, (tmp_path / "report.html").read_text(), console.getvalue()):
        assert "all checks passed" not in text


def test_report_html_lists_what_did_not_fail_the_job_as_text(tmp_path: Path) -> None:
    excused_run(tmp_path)
    html = (tmp_path / "report.html").read_text()
    gate = html[html.index('<section class="gate">'):]
    gate = gate[:gate.index("</section>")]
    assert "\\_" not in gate and "\\[" not in gate           # no Markdown escapes printed
    still = re.search(r"<h2>Still failing: failed on the base branch too <small>2: (.*?)</small></h2><ul>(.*?)</ul>",
                      gate, re.S)
    assert still is not None, gate
    assert "not caused by this change" in still.group(1)    # the caption is the heading's, not a row
    rows = re.findall(r"<li>(.*?)</li>", still.group(2))
    assert len(rows) == 2 and all(": spec_step_unresolvable: " in r or ": credential_rejected: " in r for r in rows)
    quarantined = re.search(r"<h2>Quarantined: did not fail the job <small>1: .*?</small></h2><ul>(.*?)</ul>", gate, re.S)
    assert quarantined is not None and "owner @ada, expires 2099-12-31: slow_ci [tracked]" in quarantined.group(1)
    # summary.md keeps its Markdown, escaped for GitHub
    assert "slow\\_ci \\[tracked\\]" in (tmp_path / "summary.md").read_text()
