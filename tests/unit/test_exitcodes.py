"""One exit-code rule: `exitcodes.decide_outcome`, which the run's `run_finished` and verdict.json both use.

The table pins the rule; the agreement test writes each kind of final result to a real emit.jsonl
and checks that the exit code the run computes from its `rule_finished` events is the one
verdict.json gives for every failure class and every skip reason the walker or a merge writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from flowwalk import events as ev
from flowwalk.exitcodes import INCOMPLETE_REASONS, ExitCode, decide_outcome
from flowwalk.model import FAILURE_CLASSES
from flowwalk.report.emit import EmitWriter
from flowwalk.report.records import NOT_RUN_REASONS, read_run
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import verdict_data

PASS, FLAKY = ("passed", "", None), ("flaky", "", None)

#: class -> the exit code a run whose only failure is of that class ends with
CLASS_EXIT = {
    "assertion_failed": ExitCode.SITE_MISBEHAVED,
    "spec_step_unresolvable": ExitCode.SPEC_NEEDS_REVIEW,
    "credential_rejected": ExitCode.SPEC_NEEDS_REVIEW,
    "agent_uncertain": ExitCode.SPEC_NEEDS_REVIEW,
    "quota_exceeded": ExitCode.SPEC_NEEDS_REVIEW,
    "infrastructure_error": ExitCode.INFRASTRUCTURE_FAILED,
}
#: every skip reason the walker writes, and those the report reader gives tests no shard finished
SKIP_REASONS = tuple(r for r in dict.fromkeys((*get_args(ev.SkipReason), *NOT_RUN_REASONS)) if r)


def code(rows: list[tuple[str, str, str | None]], *, cancelled: bool = False, flaky_policy: str = "pass") -> ExitCode:
    return decide_outcome(rows, cancelled=cancelled, flaky_policy=flaky_policy)[1]


def test_every_failure_class_has_its_exit_code() -> None:
    assert set(CLASS_EXIT) == set(FAILURE_CLASSES)
    for cls, expected in CLASS_EXIT.items():
        assert code([PASS, ("failed", "", cls)]) == expected, cls


def test_the_first_rule_that_applies_decides() -> None:
    assert decide_outcome([PASS], cancelled=False, flaky_policy="pass") == ("passed", ExitCode.OK)
    assert code([PASS, FLAKY]) == ExitCode.OK
    assert code([PASS, FLAKY], flaky_policy="fail") == ExitCode.SPEC_NEEDS_REVIEW
    # a pass through a healed selector fails the job only under heal_policy: fail, and only as "review the spec"
    assert decide_outcome([PASS], cancelled=False, flaky_policy="pass", healed=True)[1] == ExitCode.OK
    assert decide_outcome([PASS], cancelled=False, flaky_policy="pass", heal_policy="fail", healed=True) == \
        ("spec_needs_review", ExitCode.SPEC_NEEDS_REVIEW)
    assert decide_outcome([PASS], cancelled=False, flaky_policy="pass", heal_policy="fail", healed=False)[1] == \
        ExitCode.OK
    assert decide_outcome([PASS, ("failed", "", "assertion_failed")], cancelled=False, flaky_policy="pass",
                          heal_policy="fail", healed=True)[1] == ExitCode.SITE_MISBEHAVED
    assert code([("failed", "", "spec_step_unresolvable"), ("failed", "", "assertion_failed")]) == ExitCode.SITE_MISBEHAVED
    assert code([("failed", "", "credential_rejected"), ("failed", "", "infrastructure_error")]) == \
        ExitCode.INFRASTRUCTURE_FAILED
    assert code([("failed", "", "assertion_failed"), ("skipped", "run_timeout", None)]) == ExitCode.SITE_MISBEHAVED
    assert code([("failed", "", "assertion_failed")], cancelled=True) == ExitCode.CANCELLED
    for heal_policy, expected in (("pass", ExitCode.OK), ("fail", ExitCode.SPEC_NEEDS_REVIEW)):
        assert decide_outcome([PASS], cancelled=False, flaky_policy="pass", heal_policy=heal_policy,
                              healed=True)[1] == expected
    # a failed test without a class is flowwalk's own fault
    assert code([("failed", "", None)]) == ExitCode.INFRASTRUCTURE_FAILED
    # a site that never came up is its own verdict, after an assertion (a merge of shards) and a cancel
    not_ready = ("skipped", "site_not_ready", None)
    assert code([not_ready, ("skipped", "run_timeout", None)]) == ExitCode.SITE_NOT_READY
    assert code([not_ready, ("failed", "", "assertion_failed")]) == ExitCode.SITE_MISBEHAVED
    assert code([not_ready], cancelled=True) == ExitCode.CANCELLED


@pytest.mark.parametrize("reason", SKIP_REASONS)
def test_a_test_cut_short_never_reads_as_a_pass(reason: str) -> None:
    expected = ExitCode.INFRASTRUCTURE_FAILED if reason in INCOMPLETE_REASONS else ExitCode.OK
    if reason == "site_not_ready":
        expected = ExitCode.SITE_NOT_READY
    assert code([PASS, ("skipped", reason, None)]) == expected
    assert set(INCOMPLETE_REASONS) == {"run_timeout", "shard_missing", "not_run", "browser_crashed"}


def _final(status: str, reason: str, cls: str | None) -> tuple[str, str, ev.Failure | None]:
    failure = None
    if cls is not None:
        failure = ev.Failure(failure_class=cls, runtime_code="X", retryable=False, step_kind="action",
                             message=f"{cls} here", step_index=1, path="a.flow.yaml", line=3)
    return status, reason, failure


CASES = [
    *[("class " + cls, [("failed", "", cls)]) for cls in FAILURE_CLASSES],
    *[("skip " + reason, [("skipped", reason, None)]) for reason in SKIP_REASONS],
    ("failed without a failure record", [("failed", "", None)]),
    ("flaky", [("flaky", "", None)]),
    ("passed", [("passed", "", None)]),
    ("assertion and a crash", [("failed", "", "assertion_failed"), ("skipped", "browser_crashed", None)]),
]


@pytest.mark.parametrize("policy", ["pass", "fail"])
@pytest.mark.parametrize("cancelled", [False, True])
@pytest.mark.parametrize(("name", "results"), CASES, ids=[c[0] for c in CASES])
def test_the_run_and_verdict_json_agree(tmp_path: Path, name: str, results: list[tuple[str, str, str | None]],
                                        cancelled: bool, policy: str) -> None:
    ids = [f"f{i}.flow.yaml" for i in range(len(results) + 1)]
    plan = {"scenarios": [{"id": sid, "name": sid, "source": sid, "kind": "flow", "line": 1,
                           "rules": [{"name": sid, "test_id": sid, "line": 1, "parents": []}],
                           "test_ids": [sid], "shard": 1} for sid in ids],
            "assigned": ids, "shard": {"index": 1, "total": 1}, "shards": [{"index": 1, "scenarios": ids}]}
    finished: list[ev.RuleFinished] = []
    with EmitWriter(tmp_path) as write:
        write(ev.RunStarted(run_id="r", started_at="2026-01-01T00:00:00Z", flowwalk_version="0",
                            shard={"index": 1, "total": 1}, plan=plan, settings={"flaky_policy": policy}))
        # one passed test, then one test per result
        for sid, (status, reason, failure) in zip(ids, [_final("passed", "", None)] + [_final(*r) for r in results]):
            rule = ev.RuleFinished(scenario_id=sid, rule=sid, test_id=sid, attempt=1, status=status, duration_ms=1.0,
                                   path=sid, line=1, reason=reason, failure=failure)
            finished.append(rule)
            write(ev.ScenarioStarted(scenario_id=sid, attempt=1, worker=1, t=0.0))
            write(rule)
            write(ev.ScenarioFinished(scenario_id=sid, attempt=1, status=status, duration_ms=1.0))
        if cancelled:
            write(ev.RunCancelled(signal="SIGTERM", t=1.0))
        # what walk.run.run_plan reads from each rule_finished it emits, and the code it writes
        run_code = code([(r.status, r.reason, r.failure.failure_class if r.failure else None) for r in finished],
                        cancelled=cancelled, flaky_policy=policy)
        write(ev.RunFinished(finished_at="2026-01-01T00:00:01Z", duration_ms=1000.0, exit_code=int(run_code),
                             counts={}, cancelled=cancelled))
    verdict = verdict_data(build_verdict(read_run(tmp_path)))
    assert verdict["exit_code"] == run_code, name
    if cancelled:
        assert run_code == ExitCode.CANCELLED
    elif name.startswith("class "):
        assert run_code == CLASS_EXIT[name.removeprefix("class ")]


# --- the gate: quarantine and fail_on: new (issue 27) ----------------------------------------------

from flowwalk.exitcodes import JobGate  # noqa: E402

BASE = {"a": "failed", "b": "passed", "c": "flaky"}
FAILED_A = ("failed", "", "assertion_failed", "a")


def gated(rows: list[tuple[str, str, str | None, str]], gate: JobGate, flaky_policy: str = "pass") -> ExitCode:
    return decide_outcome(rows, cancelled=False, flaky_policy=flaky_policy, gate=gate)[1]


@pytest.mark.parametrize("test_id, status, change", [
    ("a", "failed", "still_failing"), ("b", "failed", "new"), ("new-test", "failed", "new"),
    ("b", "flaky", "newly_flaky"), ("c", "flaky", "still_flaky"), ("a", "flaky", "fixed"),
    ("a", "passed", "fixed"), ("b", "passed", ""), ("a", "skipped", ""),
])
def test_each_result_compares_with_the_base(test_id: str, status: str, change: str) -> None:
    assert JobGate(base=BASE).change(test_id, status) == change
    assert JobGate().change(test_id, status) == ""   # no base report: nothing to say


def test_a_quarantined_failure_does_not_fail_the_job_and_an_expired_one_does() -> None:
    record = {"fail_on": "any", "quarantine": {"entries": [
        {"id": "a", "tests": ["a"], "expired": False}, {"id": "b", "tests": ["b"], "expired": True}]}}
    gate = JobGate.from_record(record)
    assert gate.quarantined == frozenset({"a"})
    assert gated([FAILED_A], gate) == ExitCode.OK
    assert gated([FAILED_A, ("failed", "", "spec_step_unresolvable", "b")], gate) == ExitCode.SPEC_NEEDS_REVIEW
    # quarantine excuses a flaky result under flaky_policy: fail too, never a run cut short
    assert gated([("flaky", "", None, "a")], gate, flaky_policy="fail") == ExitCode.OK
    assert gated([("skipped", "run_timeout", None, "a")], gate) == ExitCode.INFRASTRUCTURE_FAILED


def test_fail_on_new_fails_the_job_only_on_new_failures() -> None:
    gate = JobGate.from_record({"fail_on": "new", "base": {"tests": BASE}})
    assert gated([FAILED_A], gate) == ExitCode.OK                                   # still failing
    assert gated([("failed", "", "assertion_failed", "b")], gate) == ExitCode.SITE_MISBEHAVED
    assert gated([("failed", "", "assertion_failed", "brand-new")], gate) == ExitCode.SITE_MISBEHAVED
    assert gated([("flaky", "", None, "c")], gate, flaky_policy="fail") == ExitCode.OK
    assert gated([("flaky", "", None, "b")], gate, flaky_policy="fail") == ExitCode.SPEC_NEEDS_REVIEW
    # without a base report, every failure is new
    assert gated([FAILED_A], JobGate.from_record({"fail_on": "new"})) == ExitCode.SITE_MISBEHAVED
    # fail_on any: a failure that was failing on the base still fails the job
    assert gated([FAILED_A], JobGate.from_record({"fail_on": "any", "base": {"tests": BASE}})) == ExitCode.SITE_MISBEHAVED
