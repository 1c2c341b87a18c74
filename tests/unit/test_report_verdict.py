"""verdict.json: outcome and exit code rules, root causes with their dependents, flaky policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk.events import Failure, Heal, RuleFinished, RunCancelled, RunFinished, RunStarted, ScenarioFinished, ScenarioStarted
from flowwalk.plan.shard import plan_run
from flowwalk.report.emit import EmitWriter
from flowwalk.report.records import read_run
from sample_run import healed_events, sample_events, sample_suites, typed, write_sample_run
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import verdict_data
from flowwalk.settings import Settings


def sample_verdict(tmp_path: Path, **kw: Any) -> dict[str, Any]:
    suites = sample_suites()
    write_sample_run(tmp_path, sample_events(suites, plan_run(suites, Settings()).record(), **kw))
    return verdict_data(build_verdict(read_run(tmp_path)))


def failure(cls: str, step: int = 2) -> Failure:
    return Failure(failure_class=cls, runtime_code="X", retryable=False, step_kind="action", message=f"{cls} here",
                   step_index=step, step_text="act click '#go'", path="a.flow.yaml", line=7)


def mini_run(tmp_path: Path, outcomes: list[tuple[str, Failure | None]], *, flaky: bool = False,
             flaky_policy: str = "pass", cancelled: bool = False) -> dict[str, Any]:
    """One flow per outcome: ('passed', None), ('failed', Failure), ('skipped', None)."""
    ids = [f"f{i}.flow.yaml#flow {i}" for i in range(len(outcomes))]
    plan = {"scenarios": [{"id": sid, "name": sid.split("#")[1], "source": sid.split("#")[0], "kind": "flow",
                           "line": 1, "rules": [{"name": sid.split("#")[1], "test_id": sid, "line": 1, "parents": []}],
                           "test_ids": [sid], "shard": 1} for sid in ids],
            "assigned": ids, "shard": {"index": 1, "total": 1}, "shards": [{"index": 1, "scenarios": ids}]}
    with EmitWriter(tmp_path) as write:
        write(RunStarted(run_id="r", started_at="2024-05-01T12:00:00Z", flowwalk_version="0", shard={"index": 1, "total": 1},
                         plan=plan, settings={"flaky_policy": flaky_policy}))
        for sid, (status, fail) in zip(ids, outcomes):
            # as the walker writes them: the pass after a failed attempt is flaky
            attempts = ([("failed", failure("assertion_failed")), ("flaky" if status == "passed" else status, fail)]
                        if flaky else [(status, fail)])
            for n, (st, fl) in enumerate(attempts, start=1):
                write(ScenarioStarted(scenario_id=sid, attempt=n, worker=1, t=0.0))
                write(RuleFinished(scenario_id=sid, rule=sid.split("#")[1], test_id=sid, attempt=n, status=st,
                                   duration_ms=10.0, path=sid.split("#")[0], line=1, failure=fl,
                                   reason="run_timeout" if st == "skipped" else ""))
                write(ScenarioFinished(scenario_id=sid, attempt=n, status=st, duration_ms=10.0,
                                       final=n == len(attempts)))
        if cancelled:
            write(RunCancelled(signal="SIGINT", t=1.0))
        write(RunFinished(finished_at="2024-05-01T12:00:01Z", duration_ms=1000.0, exit_code=0, counts={},
                          cancelled=cancelled))
    return verdict_data(build_verdict(read_run(tmp_path)))


def test_the_sample_run_has_the_documented_shape(tmp_path: Path) -> None:
    verdict = sample_verdict(tmp_path)
    assert verdict["schema"] == "flowwalk.verdict/1"
    assert (verdict["outcome"], verdict["exit_code"]) == ("site_misbehaved", 1)
    assert verdict["counts"] == {"total": 14, "passed": 6, "failed": 3, "skipped": 4, "flaky": 1}
    assert {k: v for k, v in verdict["by_class"].items() if v} == \
        {"assertion_failed": 1, "spec_step_unresolvable": 1, "credential_rejected": 1}
    assert verdict["flaky"] == ["examples/suites/search.robot#Search finds products/results"]
    assert verdict["shards"] == {"total": 1, "reported": [1], "missing": [], "duplicated": [], "mismatched": []}
    keys = {"test_id", "scenario_id", "rule", "name", "source", "line", "kind", "tags", "status", "reason", "duration_ms",
            "attempts", "failure", "findings", "skipped_steps", "screenshots", "change", "quarantine", "excused",
            "blocking"}
    assert all(set(t) == keys for t in verdict["tests"])
    slow = [s["duration_ms"] for s in verdict["slowest"]]
    assert slow == sorted(slow, reverse=True) and len(slow) == 10


def test_one_broken_login_is_one_root_cause_with_its_dependents(tmp_path: Path) -> None:
    verdict = sample_verdict(tmp_path)
    causes = {c["test_id"]: c for c in verdict["root_causes"]}
    login = causes["examples/rules/shop.rules.yaml#shop/login"]
    # checkout depends on cart, which depends on login: transitive
    assert login["dependents"] == ["examples/rules/shop.rules.yaml#shop/cart",
                                   "examples/rules/shop.rules.yaml#shop/checkout",
                                   "examples/rules/shop.rules.yaml#shop/profile"]
    assert login["failure_class"] == "spec_step_unresolvable"
    assert (login["path"], login["line"], login["step_text"]) == \
        ("examples/rules/shop.rules.yaml", 18, "act click 'the sign in button'")
    # skipped dependents and the guard-skipped rule are never root causes
    assert set(causes) == {"examples/flows/account.flow.yaml#Account settings",
                           "examples/flows/checkout.flow.yaml#Checkout saves the order",
                           "examples/rules/shop.rules.yaml#shop/login"}
    checkout = causes["examples/flows/checkout.flow.yaml#Checkout saves the order"]
    assert checkout["expected"] == "'#status' contains 'Saved' (case-insensitive)"
    assert checkout["observed"] == "'#status' reads 'Saving failed, try again'"


def test_credential_rejected_is_reported_like_any_failure(tmp_path: Path) -> None:
    verdict = sample_verdict(tmp_path)
    account = next(t for t in verdict["tests"] if t["test_id"] == "examples/flows/account.flow.yaml#Account settings")
    assert account["status"] == "failed" and account["failure"]["failure_class"] == "credential_rejected"
    assert account["skipped_steps"] == ["step 1 (goto '/login')", "step 3 (act click 'Sign in')",
                                        "step 4 (expect url_contains '/account')"]


@pytest.mark.parametrize("outcomes, expected", [
    ([("passed", None), ("passed", None)], ("passed", 0)),
    ([("failed", failure("spec_step_unresolvable")), ("failed", failure("assertion_failed"))], ("site_misbehaved", 1)),
    ([("failed", failure("credential_rejected"))], ("spec_needs_review", 2)),
    ([("failed", failure("agent_uncertain")), ("failed", failure("quota_exceeded"))], ("spec_needs_review", 2)),
    ([("failed", failure("infrastructure_error")), ("failed", failure("spec_step_unresolvable"))],
     ("infrastructure_failed", 6)),
    ([("passed", None), ("skipped", None)], ("infrastructure_failed", 6)),  # cut by the run timeout
    ([("failed", None)], ("infrastructure_failed", 6)),  # failed with no failure record: flowwalk's fault
])
def test_outcome_and_exit_code_rules(tmp_path: Path, outcomes: list[tuple[str, Failure | None]],
                                     expected: tuple[str, int]) -> None:
    verdict = mini_run(tmp_path, outcomes)
    assert (verdict["outcome"], verdict["exit_code"]) == expected


def test_cancelled_wins_over_everything(tmp_path: Path) -> None:
    verdict = mini_run(tmp_path, [("failed", failure("assertion_failed"))], cancelled=True)
    assert (verdict["outcome"], verdict["exit_code"]) == ("cancelled", 5)


@pytest.mark.parametrize("policy, expected", [("pass", ("passed", 0)), ("fail", ("spec_needs_review", 2))])
def test_flaky_passes_unless_the_policy_says_fail(tmp_path: Path, policy: str, expected: tuple[str, int]) -> None:
    verdict = mini_run(tmp_path, [("passed", None)], flaky=True, flaky_policy=policy)
    assert verdict["counts"]["flaky"] == 1 and verdict["counts"]["passed"] == 0
    assert (verdict["outcome"], verdict["exit_code"]) == expected


def test_tests_skipped_because_their_scenario_could_not_start_are_dependents(tmp_path: Path) -> None:
    # a rule file whose entry URL needs a variable the run cannot supply: the walker fails its first
    # rule (credential_rejected, before any browser) and skips the others as setup_failed
    sid = "r.rules.yaml#app"
    names = ["open", "login", "logout"]
    plan = {"scenarios": [{"id": sid, "name": "app", "source": "r.rules.yaml", "kind": "rules", "line": 1,
                           "rules": [{"name": n, "test_id": f"{sid}/{n}", "line": 3 + i, "parents": []}
                                     for i, n in enumerate(names)],
                           "test_ids": [f"{sid}/{n}" for n in names], "shard": 1}],
            "assigned": [sid], "shard": {"index": 1, "total": 1}, "shards": [{"index": 1, "scenarios": [sid]}]}
    setup = Failure(failure_class="credential_rejected", runtime_code="VARIABLE_MISSING", retryable=False,
                    step_kind="setup", message="no value for {{BASE}}", path="r.rules.yaml", line=2)
    with EmitWriter(tmp_path) as write:
        write(RunStarted(run_id="r", started_at="2024-05-01T12:00:00Z", flowwalk_version="0",
                         shard={"index": 1, "total": 1}, plan=plan, settings={}))
        write(ScenarioStarted(scenario_id=sid, attempt=1, worker=0, t=0.0))
        for i, name in enumerate(names):
            write(RuleFinished(scenario_id=sid, rule=name, test_id=f"{sid}/{name}", attempt=1,
                               status="failed" if i == 0 else "skipped", duration_ms=0.0, path="r.rules.yaml",
                               line=3 + i, failure=setup if i == 0 else None, reason="" if i == 0 else "setup_failed"))
        write(ScenarioFinished(scenario_id=sid, attempt=1, status="failed", duration_ms=0.0))
        write(RunFinished(finished_at="2024-05-01T12:00:00Z", duration_ms=5.0, exit_code=2, counts={}))
    verdict = verdict_data(build_verdict(read_run(tmp_path)))
    assert [(c["test_id"], c["dependents"]) for c in verdict["root_causes"]] == \
        [(f"{sid}/open", [f"{sid}/login", f"{sid}/logout"])]
    assert (verdict["outcome"], verdict["exit_code"]) == ("spec_needs_review", 2)


@pytest.mark.parametrize("policy, attempts, expected", [("pass", 1, ("passed", 0)), ("fail", 1, ("spec_needs_review", 2)),
                                                        ("fail", 2, ("spec_needs_review", 2))])
def test_a_healed_pass_fails_only_under_heal_policy_fail(tmp_path: Path, policy: str, attempts: int,
                                                         expected: tuple[str, int]) -> None:
    heal = Heal(old_selector="#old", new_selector="#new", method="deterministic", score=0.9, target="the button",
                step_index=2, path="a.flow.yaml", line=5)
    write_sample_run(tmp_path, healed_events([("a.flow.yaml#a", heal)], heal_policy=policy, attempts=attempts))
    verdict = verdict_data(build_verdict(read_run(tmp_path)))
    assert (verdict["outcome"], verdict["exit_code"]) == expected


def test_only_tests_that_walked_are_among_the_slowest(tmp_path: Path) -> None:
    from flowwalk.report.summary import render_summary

    suites = [s for s in sample_suites() if s.path.endswith("shop.rules.yaml")]
    write_sample_run(tmp_path, sample_events(suites, plan_run(suites, Settings()).record()))
    verdict = verdict_data(build_verdict(read_run(tmp_path)))
    never = {t["test_id"] for t in verdict["tests"] if t.get("reason") == "parent_failed"}
    assert len(never) == 3
    slowest = [s["test_id"] for s in verdict["slowest"]]
    assert slowest and not never & set(slowest)
    assert all(s["duration_ms"] > 0 for s in verdict["slowest"])
    section = render_summary(typed(verdict)).split("### Slowest", 1)[1]
    assert not any(tid in section for tid in never)
