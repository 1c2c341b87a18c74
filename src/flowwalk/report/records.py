"""Reading emit.jsonl back: the one parser every report (and merge, and publish) builds on.

`read_run(path)` turns the event stream into `RunRecords`: one section per `run_started` (a
shard), every test of the plan in plan order with its final attempt, all its steps and emits, its
earlier attempts (for flaky), and the run's timing. Tests are ordered by the plan recorded in
`run_started`, never by arrival, so concurrent workers, shards and merges all read the same.

It is forgiving where a real run can leave damage: a truncated or corrupt line (a killed job) is
skipped and reported in `problems`, a shard given twice keeps its later run, tests the plan
assigned but nobody finished are reported as not run (`shard_missing`, `cancelled`, `not_run`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping

from flowwalk.errors import UsageError
from flowwalk.events import Heal

EMIT_FILE = "emit.jsonl"
KNOWN_EVENTS = ("run_started", "scenario_started", "step_finished", "emit_recorded", "rule_finished",
                "scenario_finished", "run_cancelled", "run_finished", "model_called")
#: reasons given to tests the plan assigned but no shard finished
NOT_RUN_REASONS = ("shard_missing", "cancelled", "not_run")


class ReportError(UsageError):
    """A report folder or emit.jsonl that cannot be read at all (not one bad line: those are tolerated)."""


# --- records -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One attempt of one test: its `rule_finished` record."""

    attempt: int
    status: str
    duration_ms: float
    record: Mapping[str, Any]

    @property
    def failure(self) -> Mapping[str, Any] | None:
        failure = self.record.get("failure")
        return failure if isinstance(failure, dict) else None


@dataclass(frozen=True)
class TestRecord:
    """One test (a flow, or one rule of a rule DAG) as the run ended it."""

    __test__ = False  # not a pytest class, whatever its name

    test_id: str
    scenario_id: str
    rule: str
    name: str
    source: str
    line: int
    kind: str
    #: passed | failed | skipped | flaky (failed on an earlier attempt, passed on the final one)
    status: str
    reason: str
    duration_ms: float
    #: attempts of the scenario this test took part in (1 without retries)
    attempts: int
    shard: int | None
    #: plan position (scenario, then rule): the order of every report
    order: int
    #: `rule_finished` of the final attempt (None when the test never ran)
    final: Mapping[str, Any] | None = None
    #: `step_finished` records of the final attempt, in step order
    steps: tuple[Mapping[str, Any], ...] = ()
    #: every attempt that finished, earliest first (the last one is `final`)
    history: tuple[Attempt, ...] = ()
    #: `emit_recorded` records of this rule in the final attempt
    emits: tuple[Mapping[str, Any], ...] = ()
    #: parents of this rule in its DAG (from the plan)
    parents: tuple[str, ...] = ()

    @property
    def failure(self) -> Mapping[str, Any] | None:
        failure = (self.final or {}).get("failure")
        return failure if isinstance(failure, dict) else None

    @property
    def findings(self) -> list[Mapping[str, Any]]:
        return list((self.final or {}).get("findings") or [])

    @property
    def heals(self) -> list[Heal]:
        """The heals of the final attempt (its `healed` findings), in step order."""
        return [heal for heal in (read_heal(f) for f in self.findings) if heal is not None]

    @property
    def skipped_steps(self) -> list[str]:
        return [str(s) for s in (self.final or {}).get("skipped_steps") or []]

    @property
    def screenshots(self) -> list[str]:
        shots = [str(s) for s in (self.final or {}).get("screenshots") or []]
        failure = self.failure
        if failure and failure.get("screenshot") and failure["screenshot"] not in shots:
            shots.append(str(failure["screenshot"]))
        return shots

    @property
    def earlier_failures(self) -> list[Attempt]:
        """Failed attempts before the final one (what made a flaky test flaky)."""
        return [a for a in self.history[:-1] if a.status == "failed"]


@dataclass(frozen=True)
class ScenarioRecord:
    scenario_id: str
    name: str
    source: str
    kind: str
    line: int
    shard: int | None
    order: int
    #: `scenario_finished` records, earliest attempt first
    attempts: tuple[Mapping[str, Any], ...] = ()

    @property
    def final(self) -> Mapping[str, Any] | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def status(self) -> str:
        """passed | failed | skipped | flaky | not_run."""
        if not self.attempts:
            return "not_run"
        last = str(self.attempts[-1].get("status", ""))
        if last == "passed" and any(a.get("status") == "failed" for a in self.attempts[:-1]):
            return "flaky"
        return last

    @property
    def duration_ms(self) -> float:
        """Every attempt's time: what the scenario cost its shard."""
        return round(sum(float(a.get("duration_ms") or 0.0) for a in self.attempts), 3)


@dataclass(frozen=True)
class ShardSection:
    """One `run_started` and everything that followed it: the events of one shard's run."""

    index: int
    total: int
    run_id: str
    started_at: str
    flowwalk_version: str
    plan: Mapping[str, Any]
    settings: Mapping[str, Any]
    #: 1-based line of the run_started record, and how many records the section holds
    line: int
    records: int
    #: the file it came from (merge reads several)
    source: str
    finished: Mapping[str, Any] | None = None
    cancelled: Mapping[str, Any] | None = None
    #: the latest `t` seen (seconds since the run started), for runs that never finished
    last_t: float = 0.0

    @property
    def assigned(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.plan.get("assigned") or ())

    @property
    def duration_ms(self) -> float:
        if self.finished and isinstance(self.finished.get("duration_ms"), (int, float)):
            return float(self.finished["duration_ms"])
        return round(self.last_t * 1000, 1)


@dataclass(frozen=True)
class RunRecords:
    path: Path
    sections: tuple[ShardSection, ...]
    tests: tuple[TestRecord, ...]
    scenarios: tuple[ScenarioRecord, ...]
    #: every `emit_recorded`, in file order
    emits: tuple[Mapping[str, Any], ...]
    #: damage found while reading (each "emit.jsonl:LINE: what"); reports show them
    problems: tuple[str, ...]
    #: the plan of record: the lowest shard's `run_started.plan`
    plan: Mapping[str, Any]
    settings: Mapping[str, Any]
    shard_total: int
    reported: tuple[int, ...]
    missing: tuple[int, ...]
    duplicated: tuple[int, ...]
    #: shards whose recorded plan differs from the plan of record
    mismatched: tuple[int, ...]
    started_at: str
    duration_ms: float
    cancelled: bool
    cancel_signal: str | None = None
    finished: bool = True

    @property
    def run_id(self) -> str:
        return self.sections[0].run_id if self.sections else ""

    @cached_property
    def by_id(self) -> dict[str, TestRecord]:
        return {t.test_id: t for t in self.tests}

    def test(self, test_id: str) -> TestRecord | None:
        return self.by_id.get(test_id)


# --- parsing -------------------------------------------------------------------------------------


@dataclass
class RawSection:
    """A section as read: its run_started, its lines (for merge) and its parsed records."""

    start: dict[str, Any]
    line: int
    source: str
    lines: list[str] = field(default_factory=list)
    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def emit_path(path: str | Path) -> Path:
    """The emit.jsonl of a report folder, or the file itself."""
    p = Path(path)
    return p / EMIT_FILE if p.is_dir() else p


def split_sections(path: str | Path) -> tuple[list[RawSection], list[str]]:
    """Parse an emit.jsonl into its sections (one per run_started). Returns (sections, problems).

    Raises ReportError only when the file is missing or holds no run at all.
    """
    p = emit_path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        what = f"'{path}' has no {EMIT_FILE}" if Path(path).is_dir() else f"'{path}': no such file or folder"
        raise ReportError(f"{what}\n  hint: pass a report folder written by `flowwalk run` "
                          f"(it holds {EMIT_FILE})") from None
    except OSError as error:
        raise ReportError(f"'{p}': cannot read it ({error})") from None
    name = str(p)
    lines = text.split("\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    problems: list[str] = []
    sections: list[RawSection] = []
    orphans = 0
    unknown: set[str] = set()
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        number = i + 1
        try:
            record = json.loads(line)
        except ValueError:
            what = "the last line is truncated or corrupt" if i == last else "a corrupt line"
            problems.append(f"{name}:{number}: {what} ({_preview(line)}); it was ignored")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("event"), str):
            problems.append(f"{name}:{number}: not an event record ({_preview(line)}); it was ignored")
            continue
        event = record["event"]
        if event == "run_started":
            sections.append(RawSection(start=record, line=number, source=name, lines=[line]))
            continue
        if not sections:
            orphans += 1
            continue
        if event not in KNOWN_EVENTS and event not in unknown:
            unknown.add(event)
            problems.append(f"{name}:{number}: unknown event '{event}' (a newer flowwalk?); such records were ignored")
        sections[-1].lines.append(line)
        sections[-1].records.append((number, record))
    if orphans:
        problems.append(f"{name}: {orphans} record{'s' * (orphans != 1)} before the first run_started were ignored")
    if not sections:
        raise ReportError(f"'{p}': no run_started record, so there is no run to report\n"
                          f"  hint: emit.jsonl is written by `flowwalk run`; was the run stopped before it began?")
    return sections, problems


def read_heal(finding: Any) -> Heal | None:
    """The Heal a `healed` finding carries, or None (another kind, or a record too damaged to use)."""
    if not isinstance(finding, dict) or finding.get("kind") != "healed":
        return None
    heal = as_dict(finding.get("heal"))
    old, new, path = heal.get("old_selector"), heal.get("new_selector"), heal.get("path")
    line, index = _int(heal.get("line"), 0), _int(heal.get("step_index"), 0)
    if not (isinstance(old, str) and isinstance(new, str) and isinstance(path, str) and line > 0 and index > 0):
        return None
    shot = heal.get("screenshot")
    return Heal(old_selector=old, new_selector=new, method=str(heal.get("method") or "deterministic"),
                score=_float(heal.get("score")), target=str(heal.get("target") or ""), step_index=index,
                path=path, line=line, screenshot=shot if isinstance(shot, str) else None,
                candidates=tuple(c for c in heal.get("candidates") or () if isinstance(c, dict)))


def _preview(line: str) -> str:
    line = line.strip()
    return repr(line[:60] + ("..." if len(line) > 60 else ""))


def as_dict(value: Any) -> dict[str, Any]:
    """A JSON object from the log, or {} when the field is missing or of another type."""
    return value if isinstance(value, dict) else {}


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None


def plan_fingerprint(plan: Mapping[str, Any]) -> tuple[Any, ...]:
    """What shards must agree on: the scenarios and tests of the run, and who runs which."""
    scenarios = tuple((str(s.get("id")), tuple(s.get("test_ids") or ())) for s in plan.get("scenarios") or ()
                      if isinstance(s, dict))
    shards = tuple(tuple(s.get("scenarios") or ()) for s in plan.get("shards") or () if isinstance(s, dict))
    total = (plan.get("shard") or {}).get("total") if isinstance(plan.get("shard"), dict) else None
    return scenarios, shards, total


@dataclass
class _Result:
    """Everything one section recorded for one test (mutable while reading)."""

    attempts: dict[int, dict[str, Any]] = field(default_factory=dict)
    steps: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    emits: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    shard: int | None = None


def _section(raw: RawSection) -> tuple[ShardSection, dict[str, _Result], dict[str, dict[int, dict[str, Any]]],
                                        list[dict[str, Any]]]:
    start = raw.start
    shard = as_dict(start.get("shard"))
    index, total = _int(shard.get("index"), 1), _int(shard.get("total"), 1)
    results: dict[str, _Result] = {}
    scenario_attempts: dict[str, dict[int, dict[str, Any]]] = {}
    current: dict[str, int] = {}
    emits: list[dict[str, Any]] = []
    finished = cancelled = None
    last_t = 0.0
    for _number, rec in raw.records:
        event = rec["event"]
        if isinstance(rec.get("t"), (int, float)):
            last_t = max(last_t, float(rec["t"]))
        if event == "scenario_started":
            current[str(rec.get("scenario_id"))] = _int(rec.get("attempt"), 1)
        elif event == "step_finished":
            res = results.setdefault(str(rec.get("test_id")), _Result(shard=index))
            res.steps.setdefault(_int(rec.get("attempt"), 1), []).append(rec)
        elif event == "rule_finished":
            res = results.setdefault(str(rec.get("test_id")), _Result(shard=index))
            res.attempts[_int(rec.get("attempt"), 1)] = rec
        elif event == "emit_recorded":
            emits.append({**rec, "shard": index})
            sid = str(rec.get("scenario_id"))
            attempt = current.get(sid, 1)
            # emit records name the rule, not the test id; the test id is rebuilt from the plan later
            key = f"\0{sid}\0{rec.get('rule')}"
            results.setdefault(key, _Result(shard=index)).emits.setdefault(attempt, []).append(rec)
        elif event == "scenario_finished":
            sid = str(rec.get("scenario_id"))
            scenario_attempts.setdefault(sid, {})[_int(rec.get("attempt"), 1)] = rec
        elif event == "run_cancelled":
            cancelled = rec
        elif event == "run_finished":
            finished = rec
    plan = as_dict(start.get("plan"))
    settings = as_dict(start.get("settings"))
    section = ShardSection(index=index, total=total, run_id=str(start.get("run_id", "")),
                           started_at=str(start.get("started_at", "")),
                           flowwalk_version=str(start.get("flowwalk_version", "")), plan=plan, settings=settings,
                           line=raw.line, records=len(raw.records) + 1, source=raw.source, finished=finished,
                           cancelled=cancelled or (finished if finished and finished.get("cancelled") else None),
                           last_t=last_t)
    return section, results, scenario_attempts, emits


def read_run(path: str | Path) -> RunRecords:
    """Read a report folder's emit.jsonl (or an emit.jsonl path) into RunRecords."""
    raws, problems = split_sections(path)
    return records_from_sections(raws, problems, emit_path(path))


def records_from_sections(raws: Iterable[RawSection], problems: Iterable[str], path: Path) -> RunRecords:
    """RunRecords from parsed sections (merge hands in sections from several files)."""
    parsed = [_section(raw) for raw in raws]
    problems = list(problems)
    # shard order; a shard given twice keeps file order, so the later run comes last and wins
    parsed.sort(key=lambda p: (p[0].index, p[0].started_at))
    sections = tuple(p[0] for p in parsed)
    reference = sections[0]
    plan = reference.plan
    ref_print = plan_fingerprint(plan)
    plan_total = (plan.get("shard") or {}).get("total") if isinstance(plan.get("shard"), dict) else None
    shard_total = _int(plan_total, reference.total)
    seen: dict[int, int] = {}
    for s in sections:
        seen[s.index] = seen.get(s.index, 0) + 1
    reported = tuple(sorted(seen))
    duplicated = tuple(k for k in reported if seen[k] > 1)
    missing = tuple(k for k in range(1, shard_total + 1) if k not in seen)
    mismatched = tuple(sorted({s.index for s in sections[1:] if plan_fingerprint(s.plan) != ref_print
                               or s.total != shard_total}))
    for k in duplicated:
        runs = [s for s in sections if s.index == k]
        problems.append(f"shard {k} of {shard_total} was reported {len(runs)} times "
                        f"({', '.join(f'{s.source} run {s.run_id}' for s in runs)}); the last one counts")
    for k in missing:
        problems.append(f"shard {k} of {shard_total} is missing: its scenarios are reported as not run")
    for k in mismatched:
        problems.append(f"shard {k} recorded a different plan from shard {reference.index} (other files, "
                        f"--durations or --shard N?); its tests were taken as reported")

    # every test the plan knows, in plan order
    meta: dict[str, dict[str, Any]] = {}
    scenario_meta: dict[str, dict[str, Any]] = {}
    for scenario in plan.get("scenarios") or ():
        if not isinstance(scenario, dict) or "id" not in scenario:
            continue
        sid = str(scenario["id"])
        scenario_meta[sid] = {"scenario_id": sid, "name": str(scenario.get("name", sid)),
                              "source": str(scenario.get("source", "")), "kind": str(scenario.get("kind", "flow")),
                              "line": _int(scenario.get("line"), 1), "shard": scenario.get("shard")}
        rules = [r for r in scenario.get("rules") or () if isinstance(r, dict)]
        for rule in rules:
            tid = str(rule.get("test_id") or sid)
            kind = scenario_meta[sid]["kind"]
            meta[tid] = {"scenario_id": sid, "rule": str(rule.get("name", "")),
                         "name": scenario_meta[sid]["name"] if kind == "flow" else str(rule.get("name", "")),
                         "source": scenario_meta[sid]["source"], "line": _int(rule.get("line"), 1), "kind": kind,
                         "shard": scenario.get("shard"), "parents": tuple(str(p) for p in rule.get("parents") or ())}

    # the results: later sections overwrite earlier ones (a duplicated shard's later run wins)
    results: dict[str, _Result] = {}
    emit_results: dict[tuple[str, str], _Result] = {}
    scen_attempts: dict[str, dict[int, dict[str, Any]]] = {}
    all_emits: list[dict[str, Any]] = []
    for section, sec_results, sec_scenarios, sec_emits in parsed:
        for key, res in sec_results.items():
            if key.startswith("\0"):
                _, sid, rule_name = key.split("\0", 2)
                emit_results[(sid, rule_name)] = res
            else:
                results[key] = res
        scen_attempts.update(sec_scenarios)
        all_emits.extend(sec_emits)

    # tests that ran but are not in the plan (should not happen) go last, by id
    extra = sorted(t for t in results if t not in meta)
    for tid in extra:
        final = results[tid].attempts[max(results[tid].attempts)] if results[tid].attempts else {}
        sid = str(final.get("scenario_id", tid))
        meta[tid] = {"scenario_id": sid, "rule": str(final.get("rule", "")), "name": str(final.get("rule", tid)),
                     "source": str(final.get("path", "")), "line": _int(final.get("line"), 1), "kind": "flow",
                     "shard": results[tid].shard, "parents": ()}
        scenario_meta.setdefault(sid, {"scenario_id": sid, "name": sid, "source": str(final.get("path", "")),
                                       "kind": "flow", "line": 1, "shard": results[tid].shard})

    cancelled_sections = {s.index for s in sections if s.cancelled}
    cancelled = bool(cancelled_sections)
    tests: list[TestRecord] = []
    for order, (tid, m) in enumerate(meta.items()):
        found = results.get(tid)
        shard = _int(m.get("shard"), 0) or None
        if found is None or not found.attempts:
            if shard in missing:
                reason = "shard_missing"
            elif cancelled and (shard in cancelled_sections or shard is None or shard_total == 1):
                reason = "cancelled"
            else:
                reason = "not_run"
            tests.append(TestRecord(test_id=tid, scenario_id=m["scenario_id"], rule=m["rule"], name=m["name"],
                                    source=m["source"], line=m["line"], kind=m["kind"], status="skipped",
                                    reason=reason, duration_ms=0.0, attempts=0, shard=shard, order=order,
                                    parents=m["parents"]))
            continue
        numbers = sorted(found.attempts)
        final_no = numbers[-1]
        final = found.attempts[final_no]
        history = tuple(Attempt(n, str(found.attempts[n].get("status", "")), _float(found.attempts[n].get("duration_ms")),
                                found.attempts[n]) for n in numbers)
        status = str(final.get("status", "failed"))
        if status == "passed" and any(a.status == "failed" for a in history[:-1]):
            status = "flaky"
        steps = tuple(sorted(found.steps.get(final_no, []), key=lambda s: _int(s.get("index"), 0)))
        emits = emit_results.get((m["scenario_id"], m["rule"]))
        tests.append(TestRecord(
            test_id=tid, scenario_id=m["scenario_id"], rule=m["rule"] or str(final.get("rule", "")), name=m["name"],
            source=m["source"] or str(final.get("path", "")), line=_int(final.get("line"), m["line"]),
            kind=m["kind"], status=status, reason=str(final.get("reason") or ""),
            duration_ms=_float(final.get("duration_ms")),
            attempts=max(final_no, max(scen_attempts.get(m["scenario_id"], {0: None}))),
            shard=found.shard or shard, order=order, final=final, steps=steps, history=history,
            emits=tuple(emits.emits.get(final_no, [])) if emits else (), parents=m["parents"]))

    scenarios = tuple(
        ScenarioRecord(scenario_id=sid, name=sm["name"], source=sm["source"], kind=sm["kind"], line=sm["line"],
                       shard=_int(sm.get("shard"), 0) or None, order=order,
                       attempts=tuple(scen_attempts.get(sid, {})[n] for n in sorted(scen_attempts.get(sid, {}))))
        for order, (sid, sm) in enumerate(scenario_meta.items()))

    starts = [(s, _parse_time(s.started_at)) for s in sections]
    timed = [(t, s.duration_ms) for s, t in starts if t is not None]
    if len(sections) == 1 or not timed:
        duration = max(s.duration_ms for s in sections)
    else:
        begin = min(t for t, _ in timed)
        end = max(t.timestamp() * 1000 + d for t, d in timed)
        duration = round(end - begin.timestamp() * 1000, 1)
    started_at = min((s.started_at for s in sections), default="")
    signal = next((str(s.cancelled.get("signal")) for s in sections if s.cancelled and s.cancelled.get("signal")), None)
    return RunRecords(path=path, sections=sections, tests=tuple(tests), scenarios=scenarios, emits=tuple(all_emits),
                      problems=tuple(problems), plan=plan, settings=reference.settings, shard_total=shard_total,
                      reported=reported, missing=missing, duplicated=duplicated, mismatched=mismatched,
                      started_at=started_at, duration_ms=duration, cancelled=cancelled, cancel_signal=signal,
                      finished=all(s.finished is not None for s in sections))
