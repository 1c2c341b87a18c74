"""Reading emit.jsonl back into typed records: the one parser every report (and merge, and heal) builds on.

`read_run(path)` returns `RunRecords`: one `ShardSection` per `run_started` (a shard), every test
of the plan in plan order as a `TestRecord` (its final attempt, that attempt's steps and emits, its
earlier attempts), every scenario as a `ScenarioRecord`, and the run's timing. Each line is read
back into the event it was written from (`events.from_json`), so a report reads
`test.failure.step_text`, never a string key. Tests are ordered by the plan recorded in
`run_started`, never by arrival, so concurrent workers, shards and merges all read the same.

It is forgiving where a real run can leave damage: a truncated or corrupt line (a killed job), or
a record without a field it needs, is skipped and reported in `problems`; a shard given twice
keeps its later run; tests the plan assigned but nobody finished are reported as not run
(`shard_missing`, `cancelled`, `not_run`).

What the records cover: a shard job's own folder (every section is shard K of N > 1) covers only
the scenarios the plan assigned to shard K, with their totals, so each matrix job reports its own
work, as Playwright and pytest-split do; the whole plan stays in `run_started`. A merge covers the
whole plan (`whole_run=True`), and it alone names a missing or duplicated shard and reports the
missing shard's tests as not run (`shard_missing`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping, Sequence, TypeVar

from flowwalk import events as ev
from flowwalk.errors import UsageError
from flowwalk.reportfolder import ReportFolder

KNOWN_EVENTS = tuple(ev.EVENT_TYPES)
#: why a test the plan assigned has no result: its shard never reported, the run was cancelled
#: first, or nobody ran it
NotRunReason = Literal["shard_missing", "cancelled", "not_run"]
NOT_RUN_REASONS: tuple[NotRunReason, ...] = ("shard_missing", "cancelled", "not_run")
_E = TypeVar("_E", bound=ev.Event)


class ReportError(UsageError):
    """A report folder or emit.jsonl that cannot be read at all (not one bad line: those are tolerated)."""


# --- records -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Attempt:
    """One attempt of one test: its `rule_finished` event."""

    attempt: int
    status: str  # a Status
    duration_ms: float
    record: ev.RuleFinished

    @property
    def failure(self) -> ev.Failure | None:
        return self.record.failure


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
    #: a Status: passed | failed | skipped | flaky (failed on an earlier attempt, passed on the final one)
    status: str
    #: why a skipped test was skipped ("" otherwise): a SkipReason or a NotRunReason
    reason: str
    duration_ms: float
    #: attempts of the scenario this test took part in (1 without retries)
    attempts: int
    shard: int | None
    #: plan position (scenario, then rule): the order of every report
    order: int
    #: `rule_finished` of the final attempt (None when the test never ran)
    final: ev.RuleFinished | None = None
    #: `step_finished` events of the final attempt, in step order
    steps: tuple[ev.StepFinished, ...] = ()
    #: every attempt that finished, earliest first (the last one is `final`)
    history: tuple[Attempt, ...] = ()
    #: `emit_recorded` events of this rule in the final attempt
    emits: tuple[ev.EmitRecorded, ...] = ()
    #: `request_routed` events of the final attempt: requests the spec answered itself
    routed: tuple[ev.RequestRouted, ...] = ()
    #: parents of this rule in its DAG (from the plan)
    parents: tuple[str, ...] = ()
    #: the test's tags (its scenario's and its rule's, from the plan)
    tags: tuple[str, ...] = ()

    @property
    def failure(self) -> ev.Failure | None:
        return self.final.failure if self.final else None

    @property
    def findings(self) -> tuple[ev.Finding, ...]:
        return self.final.findings if self.final else ()

    @property
    def heals(self) -> list[ev.Heal]:
        """The heals of the final attempt (its `healed` findings), in step order."""
        return [heal for heal in map(read_heal, self.findings) if heal is not None]

    @property
    def skipped_steps(self) -> list[str]:
        return list(self.final.skipped_steps) if self.final else []

    @property
    def screenshots(self) -> list[str]:
        shots = list(self.final.screenshots) if self.final else []
        failure = self.failure
        if failure and failure.screenshot and failure.screenshot not in shots:
            shots.append(failure.screenshot)
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
    #: `scenario_finished` events, earliest attempt first
    attempts: tuple[ev.ScenarioFinished, ...] = ()

    @property
    def final(self) -> ev.ScenarioFinished | None:
        return self.attempts[-1] if self.attempts else None

    @property
    def status(self) -> str:
        """passed | failed | skipped | flaky | not_run (the final attempt's, as the walker wrote it)."""
        if not self.attempts:
            return "not_run"
        return self.attempts[-1].status

    @property
    def duration_ms(self) -> float:
        """Every attempt's time: what the scenario cost its shard."""
        return round(sum(a.duration_ms for a in self.attempts), 3)


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
    finished: ev.RunFinished | None = None
    cancelled: ev.RunCancelled | None = None
    #: the latest `t` seen (seconds since the run started), for runs that never finished
    last_t: float = 0.0
    #: `run_started.gate`: quarantine, base report, fail_on (exitcodes.JobGate); None: none
    gate: Mapping[str, Any] | None = None
    #: `run_started.readiness`: what the readiness wait saw (readiness.py); None: it did not wait
    readiness: Mapping[str, Any] | None = None
    #: `run_started.root`: the project root the run's spec paths are relative to; None: not recorded
    root: str | None = None

    @property
    def was_cancelled(self) -> bool:
        """A run_cancelled was recorded, or run_finished says the run was cancelled."""
        return self.cancelled is not None or (self.finished is not None and self.finished.cancelled)

    @property
    def assigned(self) -> tuple[str, ...]:
        return tuple(str(s) for s in self.plan.get("assigned") or ())

    @property
    def duration_ms(self) -> float:
        if self.finished:
            return self.finished.duration_ms
        return round(self.last_t * 1000, 1)


@dataclass(frozen=True)
class RunRecords:
    path: Path
    sections: tuple[ShardSection, ...]
    tests: tuple[TestRecord, ...]
    scenarios: tuple[ScenarioRecord, ...]
    #: every `emit_recorded`, in file order
    emits: tuple[ev.EmitRecorded, ...]
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
    #: the shard these records cover alone (a shard job's own report); None: the whole run
    shard: int | None = None
    #: the project root of record (the lowest shard's `run_started.root`); None: not recorded
    root: str | None = None

    @property
    def run_id(self) -> str:
        return self.sections[0].run_id if self.sections else ""

    @property
    def gate(self) -> Mapping[str, Any] | None:
        """The gate of record (the lowest shard's run_started.gate): what decides which failures
        fail the job, and what each result is compared with."""
        return self.sections[0].gate if self.sections else None

    @property
    def readiness(self) -> tuple[dict[str, Any], ...]:
        """What each shard's readiness wait saw (with its `shard`), for the shards that waited."""
        return tuple({"shard": s.index, **s.readiness} for s in self.sections if s.readiness is not None)

    @cached_property
    def by_id(self) -> dict[str, TestRecord]:
        return {t.test_id: t for t in self.tests}

    def test(self, test_id: str) -> TestRecord | None:
        return self.by_id.get(test_id)


def read_heal(finding: ev.Finding) -> ev.Heal | None:
    """The Heal a `healed` finding carries, or None (another kind, or a heal without its step)."""
    heal = finding.heal
    if finding.kind != "healed" or heal is None or heal.line <= 0 or heal.step_index <= 0:
        return None
    return heal


# --- parsing -------------------------------------------------------------------------------------


@dataclass
class RawSection:
    """A section as read: its run_started, its lines and its parsed records, or (read to be merged)
    only where its lines are in its file."""

    start: dict[str, Any]
    line: int
    source: str
    lines: list[str] = field(default_factory=list)
    records: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: the 0-based indexes of its lines (run_started first) among its file's lines
    at: list[int] = field(default_factory=list)


def emit_path(path: str | Path) -> Path:
    """The emit.jsonl of a report folder, or the file itself."""
    p = Path(path)
    return ReportFolder(p).emit if p.is_dir() else p


def split_sections(path: str | Path, *, keep: bool = True) -> tuple[list[RawSection], list[str]]:
    """Parse an emit.jsonl into its sections (one per run_started). Returns (sections, problems).
    `keep=False` keeps of each section its run_started and where its lines are (`RawSection.at`),
    not its lines or records: merge reads them again one section at a time (`section_lines`).

    Raises ReportError only when the file is missing or holds no run at all.
    """
    p = emit_path(path)
    try:
        text = read_lines_text(p)
    except FileNotFoundError:
        what = f"'{path}' has no {ReportFolder.EMIT}" if Path(path).is_dir() else f"'{path}': no such file or folder"
        raise ReportError(f"{what}\n  hint: pass a report folder written by `flowwalk run` "
                          f"(it holds {ReportFolder.EMIT})") from None
    except OSError as error:
        raise ReportError(f"'{p}': cannot read it ({error})") from None
    name = str(p)
    lines = text.split("\n")
    del text
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
            sections.append(RawSection(start=record, line=number, source=name, lines=[line] if keep else [], at=[i]))
            continue
        if not sections:
            orphans += 1
            continue
        if event not in KNOWN_EVENTS and event not in unknown:
            unknown.add(event)
            problems.append(f"{name}:{number}: unknown event '{event}' (a newer flowwalk?); such records were ignored")
        if keep:
            sections[-1].lines.append(line)
            sections[-1].records.append((number, record))
        sections[-1].at.append(i)
    if orphans:
        problems.append(f"{name}: {orphans} record{'s' * (orphans != 1)} before the first run_started were ignored")
    if not sections:
        raise ReportError(f"'{p}': no run_started record, so there is no run to report\n"
                          f"  hint: emit.jsonl is written by `flowwalk run`; was the run stopped before it began?")
    return sections, problems


def read_lines_text(path: Path) -> str:
    """An emit.jsonl's text as `split_sections` splits it into lines."""
    return path.read_text(encoding="utf-8", errors="replace")


def section_lines(section: RawSection, lines: Sequence[str]) -> list[str]:
    """The lines of a section read with `keep=False`, from its file's `lines` (read again)."""
    return [lines[i] for i in section.at]


def _preview(line: str) -> str:
    line = line.strip()
    return repr(line[:60] + ("..." if len(line) > 60 else ""))


def as_dict(value: Any) -> dict[str, Any]:
    """A JSON object from the log, or {} when the field is missing or of another type."""
    return value if isinstance(value, dict) else {}


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


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

    attempts: dict[int, ev.RuleFinished] = field(default_factory=dict)
    steps: dict[int, list[ev.StepFinished]] = field(default_factory=dict)
    routed: dict[int, list[ev.RequestRouted]] = field(default_factory=dict)
    shard: int | None = None


def _scenario_of(result: _Result) -> str | None:
    for attempt in result.attempts.values():
        return attempt.scenario_id
    for steps in result.steps.values():
        return steps[0].scenario_id if steps else None
    return None


#: which of a setup's results, from the shards that each walked it, the merged report keeps: the worst
_STATUS_RANK = {"passed": 0, "flaky": 1, "skipped": 2, "failed": 3}


@dataclass
class SectionRead:
    """One section's events, grouped (mutable while reading)."""

    section: ShardSection
    results: dict[str, _Result]
    #: (scenario id, rule) -> attempt -> that rule's emits: emit records name the rule, not the test
    emits: dict[tuple[str, str], dict[int, list[ev.EmitRecorded]]]
    scenario_attempts: dict[str, dict[int, ev.ScenarioFinished]]
    all_emits: list[ev.EmitRecorded]


def _read(cls: type[_E], number: int, record: dict[str, Any], raw: RawSection, problems: list[str]) -> _E | None:
    """The event on line `number`, or None (said in `problems`) when it lacks a field it needs."""
    try:
        return ev.from_json(cls, record)
    except ev.RecordError as error:
        problems.append(f"{raw.source}:{number}: a {record['event']} record without a usable '{error}'; "
                        f"it was ignored")
        return None


def read_section(raw: RawSection, problems: list[str]) -> SectionRead:
    """One section's events, grouped; what is wrong with its records goes to `problems`."""
    start = raw.start
    shard = as_dict(start.get("shard"))
    index, total = _int(shard.get("index"), 1), _int(shard.get("total"), 1)
    read = SectionRead(section=None,  # type: ignore[arg-type]  # set below, once the end of the section is known
                 results={}, emits={}, scenario_attempts={}, all_emits=[])
    current: dict[str, int] = {}
    finished: ev.RunFinished | None = None
    cancelled: ev.RunCancelled | None = None
    last_t = 0.0
    for number, rec in raw.records:
        event = rec["event"]
        if isinstance(rec.get("t"), (int, float)):
            last_t = max(last_t, float(rec["t"]))
        if event == "scenario_started":
            if (started := _read(ev.ScenarioStarted, number, rec, raw, problems)) is not None:
                current[started.scenario_id] = started.attempt
        elif event == "step_finished":
            if (step := _read(ev.StepFinished, number, rec, raw, problems)) is not None:
                res = read.results.setdefault(step.test_id, _Result(shard=index))
                res.steps.setdefault(step.attempt, []).append(step)
        elif event == "request_routed":
            if (routed := _read(ev.RequestRouted, number, rec, raw, problems)) is not None:
                read.results.setdefault(routed.test_id, _Result(shard=index)).routed.setdefault(
                    routed.attempt, []).append(routed)
        elif event == "rule_finished":
            if (rule := _read(ev.RuleFinished, number, rec, raw, problems)) is not None:
                read.results.setdefault(rule.test_id, _Result(shard=index)).attempts[rule.attempt] = rule
        elif event == "emit_recorded":
            if (emitted := _read(ev.EmitRecorded, number, rec, raw, problems)) is not None:
                read.all_emits.append(emitted)
                attempt = current.get(emitted.scenario_id, 1)
                read.emits.setdefault((emitted.scenario_id, emitted.rule), {}).setdefault(attempt, []).append(emitted)
        elif event == "scenario_finished":
            if (done := _read(ev.ScenarioFinished, number, rec, raw, problems)) is not None:
                read.scenario_attempts.setdefault(done.scenario_id, {})[done.attempt] = done
        elif event == "run_cancelled":
            cancelled = _read(ev.RunCancelled, number, rec, raw, problems) or cancelled
        elif event == "run_finished":
            finished = _read(ev.RunFinished, number, rec, raw, problems) or finished
    read.section = ShardSection(index=index, total=total, run_id=str(start.get("run_id", "")),
                                started_at=str(start.get("started_at", "")),
                                flowwalk_version=str(start.get("flowwalk_version", "")),
                                plan=as_dict(start.get("plan")), settings=as_dict(start.get("settings")),
                                line=raw.line, records=len(raw.records) + 1, source=raw.source, finished=finished,
                                cancelled=cancelled, last_t=last_t,
                                gate=start["gate"] if isinstance(start.get("gate"), dict) else None,
                                readiness=start["readiness"] if isinstance(start.get("readiness"), dict) else None,
                                root=start["root"] if isinstance(start.get("root"), str) else None)
    return read


def _planned(plan: Mapping[str, Any]) -> tuple[dict[str, TestRecord], dict[str, ScenarioRecord]]:
    """Every test and scenario the plan knows, in plan order, as not run yet."""
    tests: dict[str, TestRecord] = {}
    scenarios: dict[str, ScenarioRecord] = {}
    for scenario in plan.get("scenarios") or ():
        if not isinstance(scenario, dict) or "id" not in scenario:
            continue
        sid = str(scenario["id"])
        sc = scenarios[sid] = ScenarioRecord(scenario_id=sid, name=str(scenario.get("name", sid)),
                                             source=str(scenario.get("source", "")),
                                             kind=str(scenario.get("kind", "flow")), line=_int(scenario.get("line"), 1),
                                             shard=_shard(scenario.get("shard")), order=0)
        for rule in (r for r in scenario.get("rules") or () if isinstance(r, dict)):
            name, tid = str(rule.get("name", "")), str(rule.get("test_id") or sid)
            tests[tid] = replace(_not_run(tid, sid, name, sc.name if sc.kind == "flow" else name, sc.source,
                                          _int(rule.get("line"), 1), sc.kind, sc.shard,
                                          tuple(str(p) for p in rule.get("parents") or ())),
                                 tags=tuple(str(t) for t in rule.get("tags") or () if isinstance(t, str)))
    return tests, scenarios


def _not_run(test_id: str, scenario_id: str, rule: str, name: str, source: str, line: int, kind: str,
             shard: int | None, parents: tuple[str, ...] = ()) -> TestRecord:
    return TestRecord(test_id=test_id, scenario_id=scenario_id, rule=rule, name=name, source=source, line=line,
                      kind=kind, status="skipped", reason="not_run", duration_ms=0.0, attempts=0, shard=shard,
                      order=0, parents=parents)


def _shard(value: Any) -> int | None:
    return _int(value, 0) or None


def read_run(path: str | Path, *, whole_run: bool | None = None) -> RunRecords:
    """Read a report folder's emit.jsonl (or an emit.jsonl path) into RunRecords.

    `whole_run=None` covers what the file holds: one shard's own scenarios when every section is
    the same shard K of N > 1, else the whole plan. `True` (merge) always covers the whole plan.
    """
    raws, problems = split_sections(path)
    return records_from_sections(raws, problems, emit_path(path), whole_run=whole_run)


def records_from_sections(raws: Iterable[RawSection], problems: Iterable[str], path: Path, *,
                          whole_run: bool | None = None) -> RunRecords:
    """RunRecords from parsed sections (merge hands in sections from several files)."""
    problems = list(problems)
    return records_from_reads([read_section(raw, problems) for raw in raws], problems, path, whole_run=whole_run)


def records_from_reads(parsed: list[SectionRead], problems: list[str], path: Path, *,
                       whole_run: bool | None = None) -> RunRecords:
    """RunRecords from sections already grouped (`read_section`), in the order they were read;
    `problems`: what reading found so far, added to."""
    # shard order; a shard given twice keeps file order, so the later run comes last and wins
    parsed.sort(key=lambda p: (p.section.index, p.section.started_at))
    sections = tuple(p.section for p in parsed)
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
    own = reported[0] if whole_run is None and shard_total > 1 and len(reported) == 1 else None
    # a shard's own report: the other shards are not missing, they are other jobs' work
    missing = () if own else tuple(k for k in range(1, shard_total + 1) if k not in seen)
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

    planned, scenario_records = _planned(plan)
    if own is not None:
        mine = set(reference.assigned) or {sid for sid, sc in scenario_records.items() if sc.shard == own}
        scenario_records = {sid: sc for sid, sc in scenario_records.items() if sid in mine}
        planned = {tid: test for tid, test in planned.items() if test.scenario_id in mine}

    # the results: later sections overwrite earlier ones (a duplicated shard's later run wins); a
    # setup walked by several shards keeps the shard where it went worst, whose dependants it held back
    results: dict[str, _Result] = {}
    emits: dict[tuple[str, str], dict[int, list[ev.EmitRecorded]]] = {}
    scen_attempts: dict[str, dict[int, ev.ScenarioFinished]] = {}
    all_emits: list[ev.EmitRecorded] = []
    kept: dict[str, tuple[int, int]] = {}   # scenario id -> (shard, rank of its final status) kept
    for read in parsed:
        index = read.section.index
        passed_over: set[str] = set()
        for sid, finished_by_attempt in read.scenario_attempts.items():
            rank = _STATUS_RANK.get(finished_by_attempt[max(finished_by_attempt)].status, 0)
            held = kept.get(sid)
            if held is not None and held[0] != index and held[1] > rank:
                passed_over.add(sid)
            else:
                kept[sid] = (index, rank)
        results.update({tid: res for tid, res in read.results.items() if _scenario_of(res) not in passed_over})
        emits.update({key: value for key, value in read.emits.items() if key[0] not in passed_over})
        scen_attempts.update({sid: a for sid, a in read.scenario_attempts.items() if sid not in passed_over})
        all_emits.extend(read.all_emits)

    # tests that ran but are not in the plan (should not happen) go last, by id
    for tid in sorted(t for t in results if t not in planned):
        attempts = results[tid].attempts
        final = attempts[max(attempts)] if attempts else None
        sid = final.scenario_id if final else tid
        source = final.path if final else ""
        planned[tid] = _not_run(tid, sid, final.rule if final else "", final.rule if final else tid, source,
                                final.line if final else 1, "flow", results[tid].shard)
        if sid not in scenario_records:
            scenario_records[sid] = ScenarioRecord(scenario_id=sid, name=sid, source=source, kind="flow", line=1,
                                                   shard=results[tid].shard, order=0)

    cancelled_sections = {s.index for s in sections if s.was_cancelled}
    cancelled = bool(cancelled_sections)
    tests: list[TestRecord] = []
    for order, (tid, m) in enumerate(planned.items()):
        found = results.get(tid)
        if found is None or not found.attempts:
            reason: NotRunReason
            if m.shard in missing:
                reason = "shard_missing"
            elif cancelled and (m.shard in cancelled_sections or m.shard is None or shard_total == 1):
                reason = "cancelled"
            else:
                reason = "not_run"
            tests.append(replace(m, reason=reason, order=order))
            continue
        numbers = sorted(found.attempts)
        final_no = numbers[-1]
        final = found.attempts[final_no]
        history = tuple(Attempt(n, found.attempts[n].status, found.attempts[n].duration_ms, found.attempts[n])
                        for n in numbers)
        status = final.status  # flaky as the walker wrote it (events.Status)
        steps = tuple(sorted(found.steps.get(final_no, []), key=lambda s: s.index))
        tests.append(replace(
            m, rule=m.rule or final.rule, source=m.source or final.path, line=final.line, status=status,
            reason=final.reason, duration_ms=final.duration_ms,
            attempts=max(final_no, max(scen_attempts.get(m.scenario_id, {0: None}))),
            shard=found.shard or m.shard, order=order, final=final, steps=steps, history=history,
            emits=tuple(emits.get((m.scenario_id, m.rule), {}).get(final_no, [])),
            routed=tuple(found.routed.get(final_no, []))))

    scenarios = tuple(
        replace(sc, order=order, attempts=tuple(by_attempt[n] for n in sorted(by_attempt)))
        for order, (sid, sc) in enumerate(scenario_records.items()) for by_attempt in (scen_attempts.get(sid, {}),))

    starts = [(s, _parse_time(s.started_at)) for s in sections]
    timed = [(t, s.duration_ms) for s, t in starts if t is not None]
    if len(sections) == 1 or not timed:
        duration = max(s.duration_ms for s in sections)
    else:
        begin = min(t for t, _ in timed)
        end = max(t.timestamp() * 1000 + d for t, d in timed)
        duration = round(end - begin.timestamp() * 1000, 1)
    started_at = min((s.started_at for s in sections), default="")
    signal = next((s.cancelled.signal for s in sections if s.cancelled and s.cancelled.signal), None)
    return RunRecords(path=path, sections=sections, tests=tuple(tests), scenarios=scenarios, emits=tuple(all_emits),
                      problems=tuple(problems), plan=plan, settings=reference.settings, shard_total=shard_total,
                      reported=reported, missing=missing, duplicated=duplicated, mismatched=mismatched,
                      started_at=started_at, duration_ms=duration, cancelled=cancelled, cancel_signal=signal,
                      finished=all(s.finished is not None for s in sections), shard=own, root=reference.root)
