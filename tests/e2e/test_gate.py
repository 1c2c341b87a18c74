"""What this pull request changed, and the quarantine, over examples/selection as CI runs them:
a base report marks each failure new or still failing and lists fixed tests, `--fail-on new`
fails the job only on new failures, a quarantined test runs and is reported but does not fail the
job until its expiry, and every report (emit.jsonl, verdict.json, junit.xml, summary.md,
report.html, the PR comment) carries it. The comment leads with the new failures."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _cli import flowwalk, verdict

from flowwalk.github.render import RunLinks, render_comment
from flowwalk.report.verdict_json import parse_verdict

# one worker takes the module, so the base branch's run (`base`) is walked once a suite run
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("gate")]

SELECTION = ["examples/selection", "--serve", "examples/site", "--grep-invert", "help"]
NEW = "examples/failing/assertion-failed.flow.yaml#report is e-mailed (fails, assertion_failed)"
STILL = "examples/selection/emailed-report.rules.yaml#weekly report/emailed"
HOME = "examples/selection/home.flow.yaml#home page answers"
QUARANTINE = "examples/selection/flowwalk-quarantine.yaml"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The base branch's last report: the rule `emailed` fails there already, home passes."""
    out = tmp_path_factory.mktemp("base") / "report"
    result = flowwalk("run", *SELECTION, "--out", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    return out


def test_failures_are_new_or_still_failing_and_fail_on_new_counts_only_the_new(base: Path, tmp_path: Path) -> None:
    out = tmp_path / "pr"
    result = flowwalk("run", *SELECTION, "examples/failing/assertion-failed.flow.yaml", "--out", str(out),
                      "--base-report", str(base), "--fail-on", "new")
    assert result.returncode == 1, result.stdout + result.stderr   # the new failure fails the job
    seen = verdict(out)
    gate = seen["gate"]
    assert gate["fail_on"] == "new" and gate["base"]["path"] == str(base)
    assert gate["changes"]["new"] == [NEW] and gate["changes"]["still_failing"] == [STILL]
    assert gate["not_new"] == [STILL]
    tests = {t["test_id"]: t for t in seen["tests"]}
    assert (tests[NEW]["change"], tests[NEW]["blocking"]) == ("new", True)
    assert (tests[STILL]["change"], tests[STILL]["excused"], tests[STILL]["blocking"]) == ("still_failing", "not_new",
                                                                                          False)
    # emit.jsonl keeps what the reports were built from
    first = json.loads((out / "emit.jsonl").read_text().splitlines()[0])
    assert first["gate"]["base"]["tests"][STILL] == "failed" and first["gate"]["fail_on"] == "new"
    summary = (out / "summary.md").read_text()
    assert "**1 new failure** against the base branch's last report" in summary
    assert summary.index(NEW) < summary.index("### Still failing: failed on the base branch too (1)")
    junit = ET.parse(out / "junit.xml").getroot()
    props = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert props["flowwalk.fail_on"] == "new" and props["flowwalk.base_report"] == str(base)
    assert "change: still failing: failed on the base branch too" in (out / "junit.xml").read_text()
    assert "still_failing" in (out / "report.html").read_text()
    # the PR comment leads with the new failure; the one failing on the base comes after
    comment = render_comment(parse_verdict(seen), RunLinks())
    assert "**1 new failure**" in comment
    assert comment.index(NEW) < comment.index("#### Still failing: failed on the base branch too (1)")

    # only failures that were failing on the base: the job passes under fail-on new, and a run
    # that names no --base-report compares with its --durations report (what CI downloads)
    again = tmp_path / "again"
    result = flowwalk("run", *SELECTION, "--out", str(again), "--durations", str(base / "emit.jsonl"),
                      "--fail-on", "new")
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdict(again)["gate"]["changes"]["still_failing"] == [STILL]


def test_a_quarantined_failure_is_reported_and_does_not_fail_the_job_until_it_expires(tmp_path: Path) -> None:
    out = tmp_path / "q"
    result = flowwalk("run", *SELECTION, "--out", str(out), "--quarantine", QUARANTINE)
    assert result.returncode == 0, result.stdout + result.stderr
    seen = verdict(out)
    tests = {t["test_id"]: t for t in seen["tests"]}
    assert tests[STILL]["status"] == "failed" and tests[STILL]["excused"] == "quarantined"
    assert tests[STILL]["quarantine"]["owner"] == "@acme/notes-team"
    assert seen["gate"]["quarantine"]["excused"] == [STILL]
    assert "### Quarantined: did not fail the job (1)" in (out / "summary.md").read_text()

    expired = tmp_path / "flowwalk-quarantine.yaml"
    expired.write_text(Path(QUARANTINE).read_text().replace("2099-12-31", "2020-01-31"))
    out = tmp_path / "expired"
    result = flowwalk("run", *SELECTION, "--out", str(out), "--quarantine", str(expired))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "expired on 2020-01-31 (owner @acme/notes-team): its failures fail the job again" in result.stderr
    seen = verdict(out)
    assert seen["gate"]["quarantine"]["expired"] == [STILL]
    comment = render_comment(parse_verdict(seen), RunLinks())
    assert "**1 quarantine expired**: it fails the job again" in comment
    assert "#### Quarantine expired: fails the job again (1)" in comment


def test_a_bad_quarantine_file_is_refused_at_its_line_by_run_and_validate(tmp_path: Path) -> None:
    bad = tmp_path / "q.yaml"
    bad.write_text('quarantine_version: "1"\ntests:\n  - id: x\n    owner: me\n    reason: r\n    expires: 2026-13-01\n')
    for command in (["validate", "examples/selection"], ["run", *SELECTION, "--out", str(tmp_path / "r")]):
        result = flowwalk(*command, "--quarantine", str(bad))
        assert result.returncode == 3, result.stdout + result.stderr
        assert "q.yaml:6:14: error: 'expires' in entry 1 of 'tests' is '2026-13-01', not a day of the calendar" \
            in result.stderr
        assert "Traceback" not in result.stderr
        assert "serving" not in result.stderr   # a refused run serves nothing, and says nothing of it
