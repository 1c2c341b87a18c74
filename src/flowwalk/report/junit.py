"""junit.xml from the run records: what Jenkins, GitLab and GitHub test reporters read.

One `<testsuite>` per spec file (plan order), one `<testcase>` per test id: the flow, or each
rule of a rule DAG (classname = the file of a flow, the scenario of a rule, so rules of two scenarios
in one file stay apart; with projects, prefixed `[project] ` as the test id is).
A failure's `type` is its failure class and its message names the step: `step 5 (expect
text_contains 'Saved'): ...`; expected, observed, recovery and context go in the body. Skipped
tests say why (`parent_failed: login`). Skipped steps, findings, flaky history and emits go in
system-out, screenshots as `[[ATTACHMENT|path]]` lines (the Jenkins attachments convention,
paths relative to the report folder). Built with the junit-xml library, then normalised so
that every testcase carries `time` and the document is stable for the same records.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any, Sequence

from junit_xml import TestCase, TestSuite, to_xml_report_string

from flowwalk.events import Failure, StepFinished
from flowwalk.exitcodes import JobGate
from flowwalk.report.records import RunRecords, TestRecord
from flowwalk.report.verdict import (baseline_lines, failure_class, failure_message, help_link, quarantine_entries,
                                     skip_message, step_label, violation_text)


def _lines_for_failure(failure: Failure) -> list[str]:
    lines: list[str] = []
    where = failure.path
    if where:
        where = f"{where}:{failure.line or 1}" + (f":{failure.col}" if failure.col else "")
    label = step_label(failure)
    if label or where:
        lines.append(" at ".join(x for x in (label, where) if x))
    if failure.message:
        lines.append(failure.message)
    for key, value in (("expected", failure.expected), ("observed", failure.observed)):
        if value:
            lines.append(f"{key}: {value}")
    if failure.diff:
        lines.append("items (- expected, + observed):")
        lines.extend(f"  {line}" for line in failure.diff.splitlines())
    if failure.runtime_code:
        lines.append(f"runtime code: {failure.runtime_code} (retryable: {'yes' if failure.retryable else 'no'})")
    if failure.parent:
        lines.append(f"parent: {failure.parent}")
    url = failure.evidence().url
    if url:
        lines.append(f"url: {url}")
    if failure.recovery:
        lines.append("recovery:")
        lines.extend(f"  - {r.strategy}: {r.outcome}" + (f" ({r.detail})" if r.detail else "")
                     for r in failure.recovery)
    if failure.candidates:
        lines.append("candidates seen:")
        lines.extend(f"  - {json.dumps(c, ensure_ascii=False, sort_keys=True)}" for c in failure.candidates[:10])
    if failure.violations:
        lines.append(f"accessibility violations ({len(failure.violations)}):")
        for v in failure.violations:
            link = help_link(v.help_url)
            lines.append(f"  - {violation_text(v)}" + (f" ({link})" if link else ""))
    if failure.baseline is not None:
        lines.extend(baseline_lines(failure.baseline))
        if failure.baseline.text_diff:
            lines.append("aria snapshot diff (baseline -> page):")
            lines.extend(f"  {line}" for line in failure.baseline.text_diff.splitlines()[:80])
    if failure.screenshot:
        lines.append(f"screenshot: {failure.screenshot}")
    return lines


def step_tree(steps: Sequence[StepFinished], source: str) -> list[str]:
    """A test's steps nested under the blocks they ran in (calls, groups, hooks), a line each:
    `  use steps/add-todo.steps.yaml (line 12)`, then `    step 3 passed: act fill '#new-todo'
    (steps/add-todo.steps.yaml:7)`."""
    lines: list[str] = []
    open_ids: list[int] = []
    for step in steps:
        ids = [f.id for f in step.frames]
        same = 0
        while same < min(len(open_ids), len(ids)) and open_ids[same] == ids[same]:
            same += 1
        open_ids = ids[:same]
        for depth, frame in enumerate(step.frames[same:], start=same):
            where = f"line {frame.line}" if frame.path == source else f"{frame.path}:{frame.line}"
            args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in frame.args.items())
            lines.append(f"{'  ' * (depth + 1)}{frame.title} ({where})" + (f" with {args}" if args else ""))
            open_ids.append(frame.id)
        where = f"line {step.line}" if step.path == source else f"{step.path}:{step.line}"
        lines.append(f"{'  ' * (len(ids) + 1)}step {step.index} {step.status}: {step.text} ({where})")
    return lines


#: what a test's comparison with the base report says, in system-out
CHANGE_TEXT = {"new": "new: failed here, not on the base branch", "still_failing": "still failing: failed on the base "
               "branch too", "newly_flaky": "newly flaky: not flaky on the base branch", "still_flaky": "still flaky: "
               "flaky on the base branch too", "fixed": "fixed: failed on the base branch"}


def _system_out(test: TestRecord, gate: JobGate | None = None, entry: Any = None) -> str:
    lines: list[str] = []
    if test.tags:
        lines.append(f"tags: {', '.join(test.tags)}")
    change = gate.change(test.test_id, test.status) if gate is not None else ""
    if change:
        lines.append(f"change: {CHANGE_TEXT[change]}")
    if entry is not None:
        state = "expired" if entry.get("expired") else "expires"
        excused = gate is not None and gate.excuse(test.test_id, test.status) == "quarantined"
        lines.append(f"quarantined ({state} {entry.get('expires')}, owner {entry.get('owner')}): {entry.get('reason')}"
                     + ("; this result did not fail the job" if excused else ""))
    elif gate is not None and gate.excuse(test.test_id, test.status) == "not_new":
        lines.append("fail-on new: not new, so this result did not fail the job")
    if any(step.frames for step in test.steps):
        lines.append("steps:")
        lines.extend(step_tree(test.steps, test.source))
    if test.skipped_steps:
        lines.append("skipped steps:")
        lines.extend(f"  {s}" for s in test.skipped_steps)
    if test.findings:
        lines.append("findings:")
        for f in test.findings:
            where = f" (step {f.step_index})" if f.step_index else ""
            lines.append(f"  {f.severity}{where}: {f.message}")
    earlier = test.earlier_failures
    if test.status == "flaky" and earlier:
        first = earlier[0]
        lines.append(f"flaky: failed on attempt {first.attempt} "
                     f"({first.failure.failure_class if first.failure else 'failed'}: "
                     f"{failure_message(first.failure)}), passed on attempt {test.history[-1].attempt}")
    elif test.status == "failed" and len(test.history) > 1:
        lines.append(f"failed on all {len(test.history)} attempts")
    for emit in test.emits:
        lines.append(f"emit {emit.name}: {json.dumps(emit.fields, ensure_ascii=False, sort_keys=True)}")
    for shot in test.screenshots:
        lines.append(f"[[ATTACHMENT|{shot}]]")
    return "\n".join(lines)


def _case(test: TestRecord, gate: JobGate | None = None, entry: Any = None) -> TestCase:
    # a flow's class is its file, a rule's its scenario; either with the project's `[name] ` prefix
    # (a scenario's id is `[project] file#name`), so a test in two projects is two test cases
    classname = test.scenario_id[:test.scenario_id.find(test.source) + len(test.source)] \
        if test.kind == "flow" else test.scenario_id
    case = TestCase(test.name, classname=classname, elapsed_sec=round(test.duration_ms / 1000, 3),
                    file=test.source, line=str(test.line), stdout=_system_out(test, gate, entry) or None)
    if test.status == "failed":
        failure = test.failure
        message = failure_message(failure) or "failed without a failure record (a flowwalk bug)"
        case.add_failure_info(message=message, output="\n".join(_lines_for_failure(failure) if failure else ()) or None,
                              failure_type=failure_class(test))
    elif test.status == "skipped":
        case.add_skipped_info(message=skip_message(test))
    return case


def gate_properties(records: RunRecords) -> dict[str, str]:
    """Each testsuite's properties: what decided which failures fail the job (docs/quarantine.md)."""
    record = records.gate or {}
    if not record:
        return {}
    out = {"flowwalk.fail_on": str(record.get("fail_on") or "any")}
    base = record.get("base") or {}
    if base:
        out["flowwalk.base_report"] = str(base.get("path") or "")
        out["flowwalk.base_run_id"] = str(base.get("run_id") or "")
    quarantine = record.get("quarantine") or {}
    if quarantine:
        out["flowwalk.quarantine"] = str(quarantine.get("path") or "")
    return out


def render_junit(records: RunRecords) -> str:
    """The junit.xml document for a run, as text."""
    suites: dict[str, list[TestCase]] = {}
    gate = JobGate.from_record(records.gate)
    entries = quarantine_entries(records)
    for test in records.tests:
        suites.setdefault(test.source, []).append(_case(test, gate, entries.get(test.test_id)))
    stamp = records.started_at.replace("Z", "") if records.started_at else None
    properties = gate_properties(records)
    junit_suites = [TestSuite(name=source or "(unknown file)", test_cases=cases, timestamp=stamp, file=source or None,
                              properties=properties or None)
                    for source, cases in suites.items()]
    root = ET.fromstring(to_xml_report_string(junit_suites, prettyprint=False))
    # normalise what junit-xml leaves out or formats loosely: a zero time, float sums, skipped totals
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for suite in root.iter("testsuite"):
        suite_time = 0.0
        for case in suite.iter("testcase"):
            seconds = float(case.get("time") or 0.0)
            case.set("time", f"{seconds:.3f}")
            suite_time += seconds
        suite.set("time", f"{suite_time:.3f}")
        suite.attrib.pop("disabled", None)
        total_time += suite_time
        for key in totals:
            totals[key] += int(suite.get(key, "0"))
    root.attrib.clear()
    root.set("name", "flowwalk")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=False).join(
        ('<?xml version="1.0" encoding="utf-8"?>\n', "\n"))

