"""The frozen Plan of a run: every scenario in plan order, and which ones each shard runs.

`plan.shard.plan_run` builds it (a pure function of the suites and the settings); the walker
runs `Plan.assigned`; `Plan.record()` is stored as `run_started.plan` in emit.jsonl, which is how
the reports order tests by plan (never by arrival) and how `merge` checks that the shards agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from flowwalk.model import Scenario

#: the version of the dict `Plan.record()` returns (stored in emit.jsonl)
PLAN_RECORD_VERSION = 1


@dataclass(frozen=True)
class DurationSource:
    """Where the durations used for balancing came from, for people and for the record."""

    #: "none" (count-balanced), "emit" (an earlier run's emit.jsonl) or "json" ({scenario id: seconds})
    kind: str = "none"
    path: str | None = None
    #: scenarios of this plan whose duration was known / estimated with `default_s`
    known: int = 0
    unknown: int = 0
    #: the estimate given to scenarios with no known duration (the median of the known ones)
    default_s: float | None = None
    #: the durations file named was not there (a first run, or no earlier report was downloaded):
    #: a notice, and the plan is balanced by count
    missing: bool = False


@dataclass(frozen=True)
class Plan:
    #: every scenario of the run (all shards), sorted by scenario id: the plan order
    scenarios: tuple[Scenario, ...]
    #: ids of the scenarios this shard runs, in plan order
    assigned: tuple[str, ...]
    shard_index: int = 1
    shard_total: int = 1
    #: `--shard auto`: the CI variables this job's shard came from (None: given as K/N)
    shard_source: str | None = None
    #: scenario ids of every shard (index 0 is shard 1), each in plan order; a setup that saves a
    #: session is in every shard that holds a scenario starting from it
    shards: tuple[tuple[str, ...], ...] = ()
    #: the duration (seconds) each scenario was balanced with; None in a count-balanced plan
    estimates: Mapping[str, float] = field(default_factory=dict)
    #: scenario ids whose estimate was measured in an earlier run (the rest got the median)
    measured: frozenset[str] = frozenset()
    durations: DurationSource = DurationSource()
    #: what `--grep`, `--grep-invert`, `--tag`, `--last-failed` selected (plan/select.py); None: all
    selection: Mapping[str, Any] | None = None
    #: the browser's environment of each scenario, as reports show it (environment.describe)
    environments: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def assigned_scenarios(self) -> tuple[Scenario, ...]:
        """The scenarios of this shard, in plan order."""
        mine = set(self.assigned)
        return tuple(s for s in self.scenarios if s.id in mine)

    def walk_order(self) -> tuple[Scenario, ...]:
        """The scenarios of this shard in the order its workers take them: the longest first when
        durations are known (the longest-first rule, as the shards are packed), so that no worker
        is left with a long scenario while the others have finished; plan order otherwise, and
        between scenarios of the same estimate. The reports keep plan order either way."""
        mine = self.assigned_scenarios()
        if not self.estimates:
            return mine
        return tuple(sorted(mine, key=lambda s: -self.estimates.get(s.id, 0.0)))

    def shard_of(self, scenario_id: str) -> int:
        """The 1-based shard that runs a scenario."""
        for number, ids in enumerate(self.shards, start=1):
            if scenario_id in ids:
                return number
        raise KeyError(scenario_id)

    def shard_estimates(self) -> tuple[float, ...]:
        """Estimated seconds of each shard (0 for all in a count-balanced plan)."""
        return tuple(round(sum(self.estimates.get(i, 0.0) for i in ids), 3) for ids in self.shards)

    def record(self) -> dict[str, Any]:
        """The JSON-ready dict stored in `run_started.plan`.

        It lists every scenario of the whole run (not just this shard), so that any one shard's
        emit.jsonl knows the full plan order and what the other shards were meant to run.
        """
        # a setup walked in several shards (plan/shard.py) is recorded with the first of them
        shard_by_id: dict[str, int] = {}
        for n, ids in enumerate(self.shards, start=1):
            for sid in ids:
                shard_by_id.setdefault(sid, n)
        scenarios: list[dict[str, Any]] = []
        for sc in self.scenarios:
            scenarios.append({
                "id": sc.id,
                "name": sc.name,
                "source": sc.source,
                "kind": sc.kind,
                "line": sc.loc.line,
                "rules": [{"name": r.name, "test_id": sc.test_id(r), "line": r.loc.line,
                           "parents": list(r.parents), "tags": list(sc.test_tags(r))} for r in sc.rules],
                "tags": list(sc.tags),
                "test_ids": [sc.test_id(r) for r in sc.rules],
                "project": sc.project,
                "environment": dict(self.environments.get(sc.id, {})),
                "session": sc.session,
                "saves_sessions": [name for name, _ in sc.saves],
                "duration_s": self.estimates.get(sc.id),
                "duration_measured": sc.id in self.measured,
                "shard": shard_by_id.get(sc.id, 1),
            })
        return {
            "version": PLAN_RECORD_VERSION,
            "order": "scenario_id",
            "scenarios": scenarios,
            "assigned": list(self.assigned),
            "shard": {"index": self.shard_index, "total": self.shard_total,
                      **({"from": self.shard_source} if self.shard_source else {})},
            "shards": [{"index": n, "scenarios": list(ids),
                        "estimated_s": est if self.durations.kind != "none" else None}
                       for n, (ids, est) in enumerate(zip(self.shards, self.shard_estimates()), start=1)],
            "durations": {"source": self.durations.kind, "path": self.durations.path,
                          "known": self.durations.known, "unknown": self.durations.unknown,
                          "default_s": self.durations.default_s},
            "selection": dict(self.selection) if self.selection is not None else None,
        }
