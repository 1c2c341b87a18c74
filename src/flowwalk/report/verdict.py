"""verdict.json: the machine verdict of a run, and the exit code every command derives from it.

Built from `RunRecords` alone (so a merge of shards rebuilds it). The shape is fixed in
docs/architecture.md and `schemas/verdict.v1.schema.json`. The outcome and exit code follow
`exitcodes.decide_outcome` (so `run_finished` and verdict.json agree). Rules, in order:

- a cancelled run is `cancelled` (exit 5), whatever else happened;
- any failed test of class `assertion_failed`: the site misbehaved (exit 1), the only alerting one;
- else tests not walked because the site never came up (the readiness wait ran out: `readiness`
  says what it answered): `site_not_ready` (exit 7);
- else any `infrastructure_error`, or tests cut short (run timeout, a crashed browser, a missing
  shard, never run):
  infrastructure failed (exit 6) - rerunning may pass, and a partial run never reads as a pass;
- else any other failure class: a spec needs review (exit 2);
- else flaky tests fail the run only under `flaky_policy: fail` (exit 2), and tests that passed
  through a healed selector only under `heal_policy: fail` (exit 2); otherwise it passed (0).

Root causes are the failed tests that did not fail because a parent did, each with every test
skipped (transitively) because of it: one broken login reads as one failure with its dependents,
not as thirty failures.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Mapping, cast

from flowwalk.events import Baseline, Failure, Status, Violation, tally
from flowwalk.exitcodes import JobGate, Outcome, decide_outcome
from flowwalk.model import FAILURE_CLASSES
from flowwalk.report.records import RunRecords, TestRecord
from flowwalk.report.verdict_model import (VERDICT_SCHEMA, ByClass, Counts, Gate, GateBase, GateChanges, GateQuarantine,
                                           QuarantineEntry, QuarantineRef, ReadinessWait, RootCause, Shards, Slow,
                                           TestKind, TestVerdict, Verdict)

__all__ = ["VERDICT_SCHEMA", "build_verdict", "describe_test", "decide", "failure_class", "failure_message"]
#: skip reasons that mean "another test of this scenario failed before anything could run"
SETUP_REASONS = ("setup_failed", "credential_rejected", "browser_crashed")
SLOWEST = 10


def failure_class(test: TestRecord) -> str | None:
    """The failure class of a failed test. A failed test without a failure record is flowwalk's
    own fault, so it counts as `infrastructure_error` rather than being lost."""
    if test.status != "failed":
        return None
    return test.failure.failure_class if test.failure else "infrastructure_error"


def is_parent_failed(test: TestRecord) -> bool:
    return test.reason == "parent_failed" or (test.failure is not None and test.failure.step_kind == "parent_failed")


def step_label(failure: Failure | None) -> str:
    """`step 5 (expect text_contains 'Saved')`: the failing step by its 1-based index and its text."""
    if failure is None:
        return ""
    index, text = failure.step_index, failure.step_text
    if index is not None and text:
        return f"step {index} ({text})"
    if index is not None:
        return f"step {index}"
    if text:
        return text
    kind = failure.step_kind
    return {"assertion": "a flow assertion", "run_timeout": "the run timeout", "setup": "before the browser started",
            "parent_failed": f"parent '{failure.parent}'" if failure.parent else "a parent"}.get(kind, kind)


def failure_message(failure: Failure | None) -> str:
    """`step 5 (expect text_contains 'Saved'): <message>` (the JUnit message, the console line)."""
    if failure is None:
        return ""
    label, message = step_label(failure), failure.message.strip()
    return f"{label}: {message}" if label and message else (label or message)


#: help links of axe-core's rules; a link elsewhere in a record is shown as text, never linked
HELP_PREFIX = "https://dequeuniversity.com/rules/axe/"


def help_link(url: Any) -> str | None:
    """A violation's help URL when it is axe-core's own, else None (records are read from a file)."""
    return url if isinstance(url, str) and url.startswith(HELP_PREFIX) and " " not in url else None


def violation_text(v: Violation, targets: int = 5) -> str:
    """`image-alt (critical, 2 elements: img.hero, img.logo): Images must have alternative text`"""
    count = v.count
    shown = [str(t) for t in v.targets][:targets]
    more = ", …" if count > len(shown) else ""
    where = f", {count} element{'s' * (count != 1)}" + (f": {', '.join(shown)}{more}" if shown else "")
    page = f" on {v.url}" if v.url else ""
    return f"{v.rule} ({v.impact}{where}){page}: {v.help}".rstrip(": ")


def baseline_lines(b: Baseline) -> list[str]:
    """A baseline's evidence as plain lines: which file, what happened, where the copies are."""
    status = {"missing": "missing", "mismatch": "differs from the page", "written": "written by --update-snapshots",
              "invalid": "unreadable"}.get(b.status, b.status)
    lines = [f"baseline: {b.path} ({status})"]
    if b.diff_pixels is not None:
        ratio = b.diff_ratio
        lines.append(f"pixels differing: {b.diff_pixels}" + (f" ({float(ratio):.2%})" if ratio is not None else ""))
    for label, value in (("expected image", b.expected), ("observed", b.observed), ("difference image", b.diff)):
        if value:
            lines.append(f"{label}: {value} (in the report folder)")
    return lines


def skip_message(test: TestRecord) -> str:
    """`parent_failed: login`, `guard_failed: step 1 (...)`, `shard_missing: shard 2`."""
    reason = test.reason or "skipped"
    failure = test.failure
    if reason == "parent_failed":
        parent = (failure.parent if failure else None) or next(iter(test.parents), "")
        return f"parent_failed: {parent}" if parent else reason
    if reason == "shard_missing" and test.shard:
        return f"shard_missing: shard {test.shard} did not report"
    detail = failure_message(failure)
    return f"{reason}: {detail}" if detail else reason


def _dependents(records: RunRecords) -> dict[str, list[str]]:
    """test id -> the tests that were not run (or failed) directly because of it."""
    by_rule = {(t.scenario_id, t.rule): t for t in records.tests}
    children: dict[str, list[str]] = {}
    # the failed test a scenario's setup-skipped tests are blamed on: its setup failure, if any
    setup_cause: dict[str, str] = {}
    for test in records.tests:
        if test.status == "failed" and not is_parent_failed(test):
            kind = test.failure.step_kind if test.failure else None
            if test.scenario_id not in setup_cause or kind in ("setup", "run_timeout"):
                setup_cause[test.scenario_id] = test.test_id
    for test in records.tests:
        setup = test.failure.evidence().setup if test.failure is not None else None
        if test.status == "skipped" and test.reason == "session_failed" and isinstance(setup, str):
            # not run because the setup of its session did not pass: blamed on that setup
            children.setdefault(setup, []).append(test.test_id)
            continue
        if test.status == "skipped" and test.reason in SETUP_REASONS and not is_parent_failed(test):
            cause = setup_cause.get(test.scenario_id)
            if cause is not None and cause != test.test_id:
                children.setdefault(cause, []).append(test.test_id)
            continue
        if test.status == "passed" or not is_parent_failed(test):
            continue
        named = test.failure.parent if test.failure else None
        parents = [named] if named else [p for p in test.parents
                                              if by_rule.get((test.scenario_id, p)) is not None
                                              and by_rule[(test.scenario_id, p)].status not in ("passed", "flaky")]
        for parent in parents:
            parent_test = by_rule.get((test.scenario_id, parent))
            if parent_test is not None:
                children.setdefault(parent_test.test_id, []).append(test.test_id)
    return children


def _transitive(root: str, children: Mapping[str, list[str]], order: Mapping[str, int]) -> list[str]:
    seen: set[str] = set()
    queue = deque(children.get(root, ()))
    while queue:
        tid = queue.popleft()
        if tid in seen or tid == root:
            continue
        seen.add(tid)
        queue.extend(children.get(tid, ()))
    return sorted(seen, key=lambda t: order.get(t, 1 << 30))


def quarantine_entries(records: RunRecords) -> dict[str, Mapping[str, Any]]:
    """test id -> the quarantine entry that covers it (active or expired), from run_started.gate."""
    quarantine = (records.gate or {}).get("quarantine") or {}
    out: dict[str, Mapping[str, Any]] = {}
    for entry in quarantine.get("entries") or ():
        if isinstance(entry, Mapping):
            for tid in entry.get("tests") or ():
                out.setdefault(str(tid), entry)
    return out


def judge(records: RunRecords) -> JobGate:
    return JobGate.from_record(records.gate)


def blocking(test: TestRecord, gate: JobGate, flaky_policy: str) -> bool:
    """Does this test's own result fail the job (before the run-level rules: cancelled, cut short)?"""
    counts = test.status == "failed" or (test.status == "flaky" and flaky_policy == "fail")
    return counts and not gate.excuse(test.test_id, test.status)


def describe_test(test: TestRecord, gate: JobGate | None = None, entry: Mapping[str, Any] | None = None,
                  flaky_policy: str = "pass") -> TestVerdict:
    gate = gate or JobGate()
    failure = test.failure if test.status in ("failed", "skipped") else None
    return TestVerdict(
        test_id=test.test_id, scenario_id=test.scenario_id, rule=test.rule, name=test.name,
        source=test.source, line=test.line, kind=cast(TestKind, test.kind), tags=tuple(test.tags),
        status=cast(Status, test.status), reason=test.reason,
        duration_ms=round(test.duration_ms, 1), attempts=test.attempts,
        failure=failure, findings=tuple(test.findings),
        skipped_steps=tuple(test.skipped_steps), screenshots=tuple(test.screenshots),
        change=gate.change(test.test_id, test.status),
        quarantine=(QuarantineRef(id=str(entry.get("id", "")), owner=str(entry.get("owner", "")),
                                  reason=str(entry.get("reason", "")), expires=str(entry.get("expires", "")),
                                  expired=bool(entry.get("expired")))
                    if entry is not None else None),
        excused=gate.excuse(test.test_id, test.status),
        blocking=blocking(test, gate, flaky_policy),
    )


def decide(records: RunRecords) -> tuple[Outcome, int]:
    """(outcome, exit code) of the run, by `exitcodes.decide_outcome` (the walker's run_finished uses it too)."""
    outcome, code = decide_outcome(((t.status, t.reason, failure_class(t), t.test_id) for t in records.tests),
                                   cancelled=records.cancelled,
                                   flaky_policy=str(records.settings.get("flaky_policy", "pass")),
                                   heal_policy=str(records.settings.get("heal_policy", "pass")),
                                   healed=any(t.heals for t in records.tests if t.status in ("passed", "flaky")),
                                   gate=judge(records))
    return outcome, int(code)


def build_verdict(records: RunRecords) -> Verdict:
    """The verdict of a run (see the module docstring and docs/architecture.md)."""
    tests = records.tests
    order = {t.test_id: t.order for t in tests}
    by_class: dict[str, int] = {cls: 0 for cls in FAILURE_CLASSES}
    for test in tests:
        cls = failure_class(test)
        if cls:
            by_class[cls] = by_class.get(cls, 0) + 1

    children = _dependents(records)
    root_causes: list[RootCause] = []
    for test in tests:
        if test.status != "failed" or is_parent_failed(test):
            continue
        failure = test.failure
        root_causes.append(RootCause(
            test_id=test.test_id,
            failure_class=failure_class(test) or "infrastructure_error",
            message=(failure.message if failure else "") or "failed without a failure record (a flowwalk bug)",
            step_text=failure.step_text if failure else "",
            path=(failure.path if failure else None) or test.source,
            line=failure.line if failure and failure.line is not None else test.line,
            expected=failure.expected if failure else "",
            observed=failure.observed if failure else "",
            dependents=tuple(_transitive(test.test_id, children, order)),
        ))

    outcome, exit_code = decide(records)
    gate = judge(records)
    flaky_policy = str(records.settings.get("flaky_policy", "pass"))
    entries = quarantine_entries(records)
    described = tuple(describe_test(t, gate, entries.get(t.test_id), flaky_policy) for t in tests)
    # the walker gives a test it never walked (a parent failed, a missing variable, the site never
    # came up, a stop) 0 ms: only tests that walked can be slow
    ran = [t for t in tests if t.final is not None and t.duration_ms > 0]
    slowest = sorted(ran, key=lambda t: (-t.duration_ms, t.order))[:SLOWEST]
    return Verdict(
        schema=VERDICT_SCHEMA,
        outcome=outcome,
        exit_code=exit_code,  # type: ignore[arg-type]
        run_id=records.run_id,
        root=records.root,
        started_at=records.started_at,
        duration_ms=round(records.duration_ms, 1),
        shards=Shards(total=records.shard_total, reported=tuple(records.reported), missing=tuple(records.missing),
                      duplicated=tuple(records.duplicated), mismatched=tuple(records.mismatched),
                      shard=records.shard),
        counts=Counts(**tally(test.status for test in tests)),
        by_class=ByClass(**by_class),
        tests=described,
        root_causes=tuple(root_causes),
        flaky=tuple(t.test_id for t in tests if t.status == "flaky"),
        slowest=tuple(Slow(test_id=t.test_id, duration_ms=round(t.duration_ms, 1)) for t in slowest),
        warnings=tuple(records.problems),
        gate=gate_summary(records, described),
        readiness=tuple(_readiness(wait) for wait in records.readiness),
    )


def _readiness(wait: Mapping[str, Any]) -> ReadinessWait:
    """One shard's readiness record (`readiness.Readiness.record` with its `shard`), as written."""
    return ReadinessWait(shard=wait["shard"], url=str(wait.get("url", "")), expected=str(wait.get("expected", "")),
                         ready=bool(wait.get("ready")), attempts=wait.get("attempts", 0),
                         waited_s=wait.get("waited_s", 0.0), last=str(wait.get("last", "")),
                         timeout_s=wait.get("timeout_s", 0.0), cancelled=bool(wait.get("cancelled")))


def gate_summary(records: RunRecords, described: tuple[TestVerdict, ...]) -> Gate:
    """verdict.json's `gate`: what this run was compared with and which failures were excused.

    `changes` (only with a base report) lists test ids by how they compare with the base: `new`
    failures, `still_failing`, `newly_flaky`, `still_flaky`, `fixed`. `quarantine` lists the
    tests whose failure its active entries excused (`excused`), the failing tests whose entry has
    expired (`expired`: they fail the job again) and entries naming no test (`unknown`).
    """
    record = records.gate or {}
    base = record.get("base") if isinstance(record.get("base"), Mapping) else None
    changes: GateChanges | None = None
    if base is not None:
        by_change: dict[str, list[str]] = {key: [] for key in ("new", "still_failing", "newly_flaky", "still_flaky",
                                                               "fixed")}
        for test in described:
            if test.change:
                by_change[test.change].append(test.test_id)
        changes = GateChanges(**{key: tuple(ids) for key, ids in by_change.items()})
    quarantine = record.get("quarantine") if isinstance(record.get("quarantine"), Mapping) else None
    q_out: GateQuarantine | None = None
    if quarantine is not None:
        failing = [t for t in described if t.quarantine and t.status in ("failed", "flaky")]
        q_out = GateQuarantine(
            path=quarantine.get("path"), today=quarantine.get("today"),
            entries=tuple(QuarantineEntry(id=str(e.get("id", "")), owner=str(e.get("owner", "")),
                                          reason=str(e.get("reason", "")), expires=str(e.get("expires", "")),
                                          expired=bool(e.get("expired")), line=int(e.get("line") or 0),
                                          tests=tuple(str(t) for t in e.get("tests") or ()))
                          for e in quarantine.get("entries") or () if isinstance(e, Mapping)),
            excused=tuple(t.test_id for t in failing if t.excused == "quarantined"),
            expired=tuple(t.test_id for t in failing if t.quarantine is not None and t.quarantine.expired),
            unknown=tuple(quarantine.get("unknown") or ()))
    return Gate(fail_on=str(record.get("fail_on") or records.settings.get("fail_on") or "any"),  # type: ignore[arg-type]
                base=(GateBase(path=base.get("path"), run_id=base.get("run_id"), started_at=base.get("started_at"),
                               tests=len(base.get("tests") or {})) if base is not None else None),
                changes=changes, quarantine=q_out,
                not_new=tuple(t.test_id for t in described if t.excused == "not_new"))
