"""Sharding: every job computes the same plan; shards are balanced by learned durations."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flowwalk.errors import Location, SpecError, UsageError
from flowwalk.model import Expect, Rule, Scenario, Suite
from flowwalk.plan.shard import assign_shards, load_durations, plan_run, render_plan
from flowwalk.report.emit import EmitWriter
from sample_run import sample_events, sample_suites
from flowwalk.settings import Settings


def flow(path: str, name: str, line: int = 1) -> Scenario:
    loc = Location(path, line, 1)
    step = Expect(loc=Location(path, line + 2, 5), text="expect url_contains '/'", kind="url_contains", value="/")
    rule = Rule(name=name, loc=loc, steps=(step,), guards_enabled=False)
    return Scenario(id=f"{path}#{name}", name=name, source=path, kind="flow", loc=loc, entry_url="/", rules=(rule,))


def corpus(n: int) -> list[Suite]:
    scenarios = [flow(f"specs/f{i % 7}.flow.yaml", f"flow {i:03d}", 1 + i) for i in range(n)]
    by_file: dict[str, list[Scenario]] = {}
    for sc in scenarios:
        by_file.setdefault(sc.source, []).append(sc)
    return [Suite(path, "flow", tuple(scs)) for path, scs in by_file.items()]


def settings(k: int = 1, n: int = 1, durations: Path | None = None) -> Settings:
    return Settings(shard_index=k, shard_total=n, durations_file=str(durations) if durations else None)


def test_plan_lists_every_scenario_in_id_order_whatever_the_file_order() -> None:
    suites = sample_suites()
    forward = plan_run(suites, settings(1, 2))
    backward = plan_run(list(reversed(suites)), settings(1, 2))
    ids = [s.id for s in forward.scenarios]
    assert ids == sorted(ids)
    assert forward.record() == backward.record()


def test_shards_split_the_plan_exactly_once_and_keep_rule_dags_whole() -> None:
    suites = sample_suites()
    plans = [plan_run(suites, settings(k, 3)) for k in (1, 2, 3)]
    assigned = [set(p.assigned) for p in plans]
    everything = {s.id for s in plans[0].scenarios}
    assert set().union(*assigned) == everything
    assert sum(len(a) for a in assigned) == len(everything)
    # every job agrees on the assignment of every shard, not only its own
    assert plans[0].record()["shards"] == plans[1].record()["shards"] == plans[2].record()["shards"]
    # a rule DAG is one unit: all its test ids travel with its scenario
    shop = next(s for s in plans[0].record()["scenarios"] if s["kind"] == "rules")
    assert len(shop["test_ids"]) == 7
    assert shop["id"] in plans[shop["shard"] - 1].assigned


def test_without_durations_shards_are_balanced_by_count() -> None:
    plan = plan_run(corpus(23), settings(2, 4))
    sizes = sorted(len(ids) for ids in plan.shards)
    assert sizes == [5, 6, 6, 6]
    assert plan.record()["durations"]["source"] == "none"
    assert "balanced by count" in render_plan(plan)


TESTS = Path(__file__).resolve().parents[1]  # where sample_run.py lives
SCRIPT = textwrap.dedent("""
    import json, sys
    from flowwalk.plan.shard import plan_run
    from flowwalk.settings import Settings
    from sample_run import sample_suites
    suites = sample_suites(extra=40)
    print(json.dumps(plan_run(suites, Settings(shard_index=2, shard_total=3,
                                               durations_file=sys.argv[1])).record(), sort_keys=True))
""")


def test_assignment_is_identical_across_python_processes(tmp_path: Path) -> None:
    durations = {s.id: 1 + (i * 7919) % 23 for i, s in enumerate(sc for su in sample_suites(extra=40)
                                                                   for sc in su.scenarios)}
    path = tmp_path / "durations.json"
    path.write_text(json.dumps(durations))
    outputs = set()
    for seed in ("1", "987654"):  # hash() is salted per process; the plan must not care
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True, text=True,
                              env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin", "PYTHONPATH": str(TESTS)},
                              check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def best_makespan(weights: list[int], n: int) -> int:
    """The optimum by brute force (first item pinned to shard 0: shards are interchangeable)."""
    best = sum(weights)
    for rest in itertools.product(range(n), repeat=len(weights) - 1):
        loads = [0] * n
        loads[0] = weights[0]
        for w, k in zip(weights[1:], rest):
            loads[k] += w
        best = min(best, max(loads))
    return best


def makespan(weights: dict[str, int], n: int) -> int:
    return max(sum(weights[s] for s in shard) for shard in assign_shards(weights, n))


@pytest.mark.parametrize("seed", range(12))
def test_longest_shard_is_within_ten_percent_of_the_best_split_on_small_corpora(seed: int) -> None:
    rng = random.Random(seed)
    n = 2 + seed % 2
    count = 9 if n == 2 else 8
    weights = [rng.choice([rng.randint(300, 2_000), rng.randint(2_000, 30_000)]) for _ in range(count)]
    named = {f"s{i:02d}": w for i, w in enumerate(weights)}
    assert makespan(named, n) <= 1.10 * best_makespan(weights, n)


def test_a_case_where_plain_longest_first_is_far_from_best_is_fixed() -> None:
    # LPT alone puts 3+2+2 on one shard (7) where 3+3 | 2+2+2 (6) is possible
    weights = {"a": 3000, "b": 3000, "c": 2000, "d": 2000, "e": 2000}
    assert makespan(weights, 2) == 6000


@pytest.mark.parametrize("n", [2, 4, 7])
def test_longest_shard_is_within_ten_percent_of_a_lower_bound_on_a_large_corpus(n: int) -> None:
    rng = random.Random(n)
    # a realistic mix: many quick flows, some slow rule DAGs, a few very slow suites
    weights = {f"s{i:03d}": int(rng.lognormvariate(8.0, 0.9)) + 1 for i in range(400)}
    lower = max(max(weights.values()), sum(weights.values()) / n)
    assert makespan(weights, n) <= 1.10 * lower


def test_durations_are_learned_from_an_earlier_emit_jsonl(tmp_path: Path) -> None:
    suites = sample_suites()
    earlier = plan_run(suites, settings())
    with EmitWriter(tmp_path / "earlier") as writer:
        for event in sample_events(suites, earlier.record()):
            writer(event)
    durations, kind = load_durations(tmp_path / "earlier")  # a report folder works too
    assert kind == "emit"
    assert set(durations) == {s.id for s in earlier.scenarios}
    # a retried scenario costs its shard every attempt
    checkout = "examples/flows/checkout.flow.yaml#Checkout saves the order"
    lines = [json.loads(line) for line in (tmp_path / "earlier" / "emit.jsonl").read_text().splitlines()]
    attempts = [r["duration_ms"] for r in lines if r["event"] == "scenario_finished" and r["scenario_id"] == checkout]
    assert len(attempts) == 2 and durations[checkout] == pytest.approx(sum(attempts) / 1000)

    plan = plan_run(suites, settings(1, 2, tmp_path / "earlier" / "emit.jsonl"))
    record = plan.record()
    assert record["durations"] == {"source": "emit", "path": str(tmp_path / "earlier" / "emit.jsonl"),
                                   "known": 7, "unknown": 0, "default_s": record["durations"]["default_s"]}
    assert all(s["duration_measured"] for s in record["scenarios"])
    estimates = [s["estimated_s"] for s in record["shards"]]
    assert max(estimates) - min(estimates) < max(durations.values())


def test_unknown_durations_get_the_median_of_the_known_ones(tmp_path: Path) -> None:
    suites = corpus(5)
    ids = sorted(sc.id for su in suites for sc in su.scenarios)
    path = tmp_path / "d.json"
    path.write_text(json.dumps({ids[0]: 1.0, ids[1]: 3.0, ids[2]: 8.0, "gone/old.flow.yaml#removed": 99}))
    plan = plan_run(suites, settings(1, 2, path))
    assert plan.estimates[ids[3]] == plan.estimates[ids[4]] == 3.0
    assert plan.durations.known == 3 and plan.durations.unknown == 2 and plan.durations.default_s == 3.0
    text = render_plan(plan)
    assert f"balanced by durations from {path} (3 known, 2 estimated at 3.0 s, the median)" in text
    assert "(median, not measured)" in text
    assert "shard 1/2 (this job)" in text


def test_a_durations_file_for_other_scenarios_falls_back_to_count(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps({"elsewhere.flow.yaml#x": 5}))
    plan = plan_run(corpus(4), settings(1, 2, path))
    assert [len(s) for s in plan.shards] == [2, 2]
    assert f"no scenario of this plan has a duration in {path}" in render_plan(plan)


def test_a_missing_durations_file_is_a_notice_and_the_plan_is_balanced_by_count(tmp_path: Path) -> None:
    """A first run, or a CI job that found no earlier report to download: not an error."""
    for missing in (tmp_path / "last-report" / "emit.jsonl", tmp_path):  # no file; a folder without one
        plan = plan_run(corpus(4), settings(1, 2, missing))
        assert [len(s) for s in plan.shards] == [2, 2]
        assert plan.durations.kind == "none" and plan.durations.missing and plan.estimates == {}
        assert f"balanced by count (no durations file at {missing}" in render_plan(plan)


@pytest.mark.parametrize("content, message", [
    ('{"a.flow.yaml#a": "fast"}', "the duration of 'a.flow.yaml#a' is \"fast\", not a number of seconds >= 0"),
    ('{"a.flow.yaml#a": -1}', "is -1, not a number"),
    ("just some text\n", "neither an emit.jsonl nor a JSON object of durations"),
])
def test_a_bad_durations_file_is_refused_with_a_hint(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "durations.json"
    path.write_text(content)
    with pytest.raises(UsageError) as caught:
        plan_run(corpus(3), settings(1, 2, path))
    assert message in str(caught.value)
    assert "hint:" in str(caught.value)


def test_an_emit_jsonl_with_a_truncated_last_line_still_gives_durations(tmp_path: Path) -> None:
    path = tmp_path / "emit.jsonl"
    path.write_text('{"event":"run_started"}\n{"event":"scenario_finished","scenario_id":"a#a","duration_ms":1500}\n'
                    '{"event":"scenario_fini')
    assert load_durations(path) == ({"a#a": 1.5}, "emit")


def test_two_scenarios_with_one_id_are_refused() -> None:
    a, b = flow("x.flow.yaml", "same", 1), flow("x.flow.yaml", "same", 9)
    with pytest.raises(SpecError) as caught:
        plan_run([Suite("x.flow.yaml", "flow", (a, b))], settings())
    assert "x.flow.yaml:9:1: error: scenario id 'x.flow.yaml#same' is used twice (first at x.flow.yaml:1:1)" \
        in str(caught.value)


def test_shard_outside_one_to_n_is_refused() -> None:
    with pytest.raises(UsageError, match="K must be between 1 and N"):
        plan_run(corpus(2), settings(3, 2))


def test_plan_record_is_json_and_names_what_each_shard_runs() -> None:
    plan = plan_run(sample_suites(), settings(2, 2))
    record = json.loads(json.dumps(plan.record()))
    assert record["shard"] == {"index": 2, "total": 2}
    assert record["assigned"] == list(plan.assigned) == record["shards"][1]["scenarios"]
    assert [s["id"] for s in record["scenarios"]] == [s.id for s in plan.scenarios]
    assert {s["shard"] for s in record["scenarios"] if s["id"] in plan.assigned} == {2}
    shop = next(s for s in record["scenarios"] if s["kind"] == "rules")
    assert shop["rules"][1] == {"name": "login", "test_id": "examples/rules/shop.rules.yaml#shop/login", "line": 14,
                                "parents": ["home"], "tags": []}
    assert [sc.id for sc in plan.assigned_scenarios()] == list(plan.assigned)


def test_a_job_walks_its_longest_scenarios_first_when_durations_are_known(tmp_path: Path) -> None:
    suites = corpus(6)
    ids = sorted(sc.id for su in suites for sc in su.scenarios)
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({ids[0]: 0.4, ids[1]: 5.2, ids[2]: 1.0, ids[4]: 5.2, ids[5]: 0.3}))
    plan = plan_run(suites, settings(durations=path))
    # ids[3] gets the median (1.0) and keeps its plan place after ids[2], its equal; so do the two 5.2s
    assert [sc.id for sc in plan.walk_order()] == [ids[1], ids[4], ids[2], ids[3], ids[0], ids[5]]
    assert [sc.id for sc in plan.assigned_scenarios()] == ids


def test_without_durations_a_job_walks_in_plan_order() -> None:
    plan = plan_run(corpus(6), settings())
    assert plan.walk_order() == plan.assigned_scenarios()
