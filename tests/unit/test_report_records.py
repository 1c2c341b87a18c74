"""Reading emit.jsonl back: plan order, final attempts, flaky, damage tolerated, speed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from flowwalk.events import EVENT_TYPES, Finding, from_json, to_json
from flowwalk.plan.shard import plan_run
from flowwalk.report.records import ReportError, read_heal, read_run
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.settings import Settings

CHECKOUT = "examples/flows/checkout.flow.yaml#Checkout saves the order"
RESULTS = "examples/suites/search.robot#Search finds products/results"


def run_dir(base: Path, name: str = "run", shard: tuple[int, int] = (1, 1), extra: int = 0, **kw: Any) -> Path:
    suites = sample_suites(extra=extra)
    plan = plan_run(suites, Settings(shard_index=shard[0], shard_total=shard[1]))
    write_sample_run(base / name, sample_events(suites, plan.record(), **kw))
    return base / name


def test_tests_come_in_plan_order_not_arrival_order(tmp_path: Path) -> None:
    in_order = read_run(run_dir(tmp_path, "a"))
    reversed_arrival = read_run(run_dir(tmp_path, "b", arrival="reversed"))
    ids = [t.test_id for t in in_order.tests]
    assert ids == [t.test_id for t in reversed_arrival.tests]
    plan = in_order.plan
    assert ids == [tid for s in plan["scenarios"] for tid in s["test_ids"]]
    # rules keep their DAG file order inside the scenario
    assert [t.rule for t in in_order.tests if t.scenario_id.endswith("#shop")] == \
        ["home", "login", "cart", "checkout", "profile", "footer", "promo"]


def test_each_test_keeps_its_final_attempt_and_its_history(tmp_path: Path) -> None:
    run = read_run(run_dir(tmp_path))
    checkout = run.test(CHECKOUT)
    assert checkout is not None
    assert checkout.status == "failed" and checkout.attempts == 2
    assert [a.attempt for a in checkout.history] == [1, 2]
    assert checkout.final is not None and checkout.final.attempt == 2
    assert [s.index for s in checkout.steps] == [1, 2, 3, 4, 5, 6, 7]  # the final attempt's steps only
    assert checkout.screenshots == ["screenshots/examples-flows-checkout-flow-yaml-checkout-saves-the-order-a2-s5.png"]
    flaky = run.test(RESULTS)
    assert flaky is not None and flaky.status == "flaky"
    assert [a.status for a in flaky.history] == ["failed", "flaky"]
    assert flaky.earlier_failures[0].failure.failure_class == "assertion_failed"
    assert [e.fields for e in flaky.emits] == [{"n": 5}]  # the final attempt's emit, not the first one's
    home = run.test("examples/rules/shop.rules.yaml#shop/home")
    assert home is not None and home.status == "passed" and home.emits[0].name == "home_state"
    assert {s.scenario_id: s.status for s in run.scenarios}[RESULTS.rsplit("/", 1)[0]] == "flaky"


def test_a_truncated_last_line_is_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    folder = run_dir(tmp_path)
    emit = folder / "emit.jsonl"
    lines = emit.read_text().splitlines()
    emit.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])  # killed mid-write
    run = read_run(folder)
    assert len(run.tests) == 14
    assert len(run.problems) == 1
    assert run.problems[0].startswith(f"{emit}:{len(lines)}: the last line is truncated or corrupt ('")
    assert run.problems[0].endswith("); it was ignored")
    assert not run.finished  # run_finished was the line that got cut


def test_a_corrupt_line_in_the_middle_is_skipped_and_named(tmp_path: Path) -> None:
    folder = run_dir(tmp_path)
    emit = folder / "emit.jsonl"
    lines = emit.read_text().splitlines()
    lines.insert(3, "\x00\x00garbage")
    emit.write_text("\n".join(lines) + "\n")
    run = read_run(folder)
    assert len(run.tests) == 14
    assert len(run.problems) == 1 and run.problems[0].startswith(f"{emit}:4: a corrupt line")


def test_a_folder_without_emit_jsonl_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError) as caught:
        read_run(tmp_path)
    assert f"'{tmp_path}' has no emit.jsonl" in str(caught.value)
    assert "hint: pass a report folder written by `flowwalk run`" in str(caught.value)
    (tmp_path / "emit.jsonl").write_text('{"event":"scenario_started"}\n')
    with pytest.raises(ReportError, match="no run_started record"):
        read_run(tmp_path)


def test_a_cancelled_run_reports_what_ran_and_marks_the_rest(tmp_path: Path) -> None:
    run = read_run(run_dir(tmp_path, cancel_after=2))
    assert run.cancelled and run.cancel_signal == "SIGTERM"
    statuses = {t.test_id: (t.status, t.reason) for t in run.tests}
    assert statuses["examples/flows/about.flow.yaml#About page"] == ("passed", "")
    assert statuses[CHECKOUT] == ("skipped", "cancelled")


def test_a_shard_folder_covers_its_own_scenarios_and_the_whole_plan_stays_in_run_started(tmp_path: Path) -> None:
    first = run_dir(tmp_path, "s1", shard=(1, 2))
    run = read_run(first)
    assert run.shard == 1 and run.shard_total == 2 and run.reported == (1,) and run.missing == ()
    mine = set(run.sections[0].assigned)
    assert mine and {t.scenario_id for t in run.tests} == mine == {s.scenario_id for s in run.scenarios}
    assert all(t.shard == 1 and t.reason != "shard_missing" for t in run.tests)
    assert not [p for p in run.problems if "missing" in p]
    # the plan of every shard is still there, for merge
    planned = {str(s["id"]) for s in run.plan["scenarios"]}
    assert mine < planned


def test_read_as_the_whole_run_a_missing_shard_is_named(tmp_path: Path) -> None:
    first = run_dir(tmp_path, "s1", shard=(1, 2))
    run = read_run(first, whole_run=True)
    assert run.shard is None and run.shard_total == 2 and run.reported == (1,) and run.missing == (2,)
    not_run = [t for t in run.tests if t.reason == "shard_missing"]
    assert not_run and all(t.shard == 2 and t.status == "skipped" for t in not_run)
    assert "shard 2 of 2 is missing: its scenarios are reported as not run" in run.problems


def test_a_shard_given_twice_keeps_its_later_run(tmp_path: Path) -> None:
    early = run_dir(tmp_path, "early", shard=(1, 1), started_at="2024-05-01T12:00:00Z", run_id="early")
    late = run_dir(tmp_path, "late", shard=(1, 1), started_at="2024-05-01T13:00:00Z", run_id="late", retries=0)
    both = tmp_path / "both.jsonl"
    both.write_text((late / "emit.jsonl").read_text() + (early / "emit.jsonl").read_text())
    run = read_run(both)
    assert run.duplicated == (1,)
    checkout = run.test(CHECKOUT)
    assert checkout is not None and checkout.attempts == 1  # the 13:00 run had no retries
    assert any("shard 1 of 1 was reported 2 times" in p and "the last one counts" in p for p in run.problems)


def test_reading_a_thousand_scenarios_is_fast(tmp_path: Path) -> None:
    folder = run_dir(tmp_path, extra=1000)
    # CPU time, not wall time: on a machine shared with other jobs the wall clock measures them too
    began = time.process_time()
    run = read_run(folder)
    elapsed = time.process_time() - began
    assert len(run.scenarios) == 1007
    assert elapsed < 2.0, f"read_run took {elapsed:.2f} s of CPU for 1,007 scenarios"


def test_records_the_plan_does_not_know_are_kept_after_the_plan(tmp_path: Path) -> None:
    folder = run_dir(tmp_path)
    emit = folder / "emit.jsonl"
    stray = {"event": "rule_finished", "scenario_id": "zz.flow.yaml#z", "rule": "z", "test_id": "aa.flow.yaml#a",
             "attempt": 1, "status": "passed", "duration_ms": 5.0, "path": "aa.flow.yaml", "line": 3}
    lines = emit.read_text().splitlines()
    lines.insert(2, json.dumps(stray))
    emit.write_text("\n".join(lines) + "\n")
    run = read_run(folder)
    assert run.tests[-1].test_id == "aa.flow.yaml#a" and run.tests[-1].line == 3


def test_a_healed_finding_reads_back_as_a_heal(tmp_path: Path) -> None:
    run = read_run(run_dir(tmp_path))
    signup = run.test("examples/flows/signup.flow.yaml#Sign up")
    assert signup is not None and signup.status == "passed"
    (heal,) = signup.heals
    assert (heal.old_selector, heal.new_selector, heal.method) == ("#email", "input[name='email']", "deterministic")
    assert (heal.path, heal.step_index, heal.target) == ("examples/flows/signup.flow.yaml", 2, "the email field")
    assert heal.line == 6 and heal.score == 0.92 and heal.screenshot in signup.screenshots
    assert heal.candidates[0] == {"selector": "input[name='email']", "score": 0.92}
    # other findings are no heals; a heal record too damaged to patch from is dropped, not guessed
    newsletter = run.test("examples/flows/newsletter.flow.yaml#Newsletter sign-up")
    assert newsletter is not None and newsletter.findings and newsletter.heals == []
    written = to_json(signup.findings[0])
    damaged = from_json(Finding, {**written, "heal": {**written["heal"], "line": None}})
    assert damaged.heal is None and read_heal(damaged) is None
    assert read_heal(from_json(Finding, {**written, "heal": {**written["heal"], "line": 0}})) is None


def test_every_record_reads_back_as_the_event_it_was_written_from(tmp_path: Path) -> None:
    folder = run_dir(tmp_path, cancel_after=6)
    lines = [json.loads(line) for line in (folder / "emit.jsonl").read_text().splitlines()]
    assert {line["event"] for line in lines} == set(EVENT_TYPES)
    for line in lines:
        event = from_json(EVENT_TYPES[line["event"]], line)
        assert type(event) is EVENT_TYPES[line["event"]]
        assert event.record() == line   # the same JSON, key for key: nothing lost, nothing guessed


def test_a_record_without_a_field_it_needs_is_skipped_and_named(tmp_path: Path) -> None:
    folder = run_dir(tmp_path)
    emit = folder / "emit.jsonl"
    lines = emit.read_text().splitlines()
    number, record = next((n, json.loads(line)) for n, line in enumerate(lines, start=1)
                          if json.loads(line)["event"] == "rule_finished"
                          and json.loads(line)["test_id"] == "examples/flows/about.flow.yaml#About page")
    lines[number - 1] = json.dumps({**record, "attempt": "1"})
    emit.write_text("\n".join(lines) + "\n")
    run = read_run(folder)
    assert run.problems == (f"{emit}:{number}: a rule_finished record without a usable 'attempt'; it was ignored",)
    about = run.test("examples/flows/about.flow.yaml#About page")
    assert about is not None and (about.status, about.reason) == ("skipped", "not_run")
