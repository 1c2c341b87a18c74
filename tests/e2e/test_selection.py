"""Run selection over examples/selection as a user runs it: --tag, --grep-invert, --max-failures,
--last-failed (also from a merged sharded report), and plan agreeing with what a shard walks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import flowwalk, verdict

pytestmark = pytest.mark.browser

FLOWS = "examples/selection"
HOME = "examples/selection/home.flow.yaml#home page answers"
HELP = "examples/selection/help.flow.yaml#help center answers"
REPORT = "examples/selection/emailed-report.rules.yaml#weekly report"


def statuses(out: Path) -> dict[str, tuple[str, str]]:
    return {t["test_id"]: (t["status"], t["reason"]) for t in verdict(out)["tests"]}


def test_a_tag_expression_runs_only_the_tests_it_selects(tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(out), "--tag", "smoke and not slow")
    assert result.returncode == 0, result.stdout + result.stderr
    assert statuses(out) == {HOME: ("passed", "")}
    (test,) = verdict(out)["tests"]
    assert test["tags"] == ["smoke"]
    assert "tags: smoke" in (out / "junit.xml").read_text()
    first = json.loads((out / "emit.jsonl").read_text().splitlines()[0])
    assert first["plan"]["selection"]["tag"] == "smoke and not slow"


@pytest.mark.long
def test_max_failures_stops_and_last_failed_reruns_what_did_not_pass(tmp_path: Path) -> None:
    first = tmp_path / "first"
    # one worker walks in plan order (by id): the failing rule file first; after its failure
    # nothing else starts
    result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(first), "--workers", "1",
                      "--max-failures", "1")
    assert result.returncode == 1, result.stdout + result.stderr
    seen = statuses(first)
    assert seen[f"{REPORT}/emailed"][0] == "failed"
    assert seen[HELP] == seen[HOME] == ("skipped", "max_failures")
    assert "### Did not run: 2 tests (2 max_failures)" in (first / "summary.md").read_text()

    # the plan of a shard names what that shard then walks: only what did not pass
    plan = flowwalk("plan", FLOWS, "--last-failed", str(first), "--grep-invert", "help", "--shard", "1/2", "--json")
    assert plan.returncode == 0, plan.stderr
    record = json.loads(plan.stdout)
    assert [s["id"] for s in record["scenarios"]] == [REPORT, HOME]
    assert record["selection"]["last_failed_tests"] == 3

    again = tmp_path / "again"
    result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(again), "--last-failed", str(first),
                      "--grep-invert", "help")
    assert result.returncode == 1, result.stdout + result.stderr
    assert statuses(again) == {f"{REPORT}/generate": ("passed", ""), f"{REPORT}/emailed": ("failed", ""),
                               HOME: ("passed", "")}

    # nothing failed in a passing report: nothing to run, and that passes
    result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(tmp_path / "none"),
                      "--last-failed", str(again), "--grep", "home")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_misspelt_tag_and_out_of_range_retries_are_refused(tmp_path: Path) -> None:
    result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(tmp_path / "x"), "--tag", "smok")
    assert result.returncode == 3
    assert "--tag 'smok' selects none of the 3 scenarios found" in result.stderr
    assert "the tags of these tests: email, reports, slow, smoke" in result.stderr
    result = flowwalk("run", FLOWS, "--out", str(tmp_path / "y"), "--retries", "9")
    assert result.returncode == 3 and "--retries 9: out of range" in result.stderr
    result = flowwalk("plan", FLOWS, "--tag", "smoke and")
    assert result.returncode == 3 and "it ends where a tag or '(' should come" in result.stderr


def test_last_failed_takes_a_merged_sharded_report_and_reshards_only_those(tmp_path: Path) -> None:
    shards = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}"
        result = flowwalk("run", FLOWS, "--serve", "examples/site", "--out", str(out), "--shard", f"{k}/2")
        assert result.returncode in (0, 1), result.stdout + result.stderr
        shards.append(out)
    merged = tmp_path / "merged"
    result = flowwalk("merge", *map(str, shards), "--out", str(merged))
    assert result.returncode == 1, result.stdout + result.stderr
    # the rerun plans only the failed scenario, alone in shard 1 of 2; shard 2 has nothing to do
    plans = [json.loads(flowwalk("plan", FLOWS, "--last-failed", str(merged), "--shard", f"{k}/2", "--json").stdout)
             for k in (1, 2)]
    assert [p["assigned"] for p in plans] == [[REPORT], []]
    assert plans[0]["selection"]["last_failed"] == str(merged)
