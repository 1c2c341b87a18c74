"""junit.xml from the run records: what Jenkins, GitLab and GitHub test reporters read.

One `<testsuite>` per spec file (plan order), one `<testcase>` per test id: the flow, or each
rule of a rule DAG (classname = the scenario, so rules of two scenarios in one file stay apart).
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

from junit_xml import TestCase, TestSuite, to_xml_report_string

from flowwalk.events import Failure
from flowwalk.report.records import RunRecords, TestRecord
from flowwalk.report.verdict import failure_class, failure_message, skip_message, step_label

JUNIT_FILE = "junit.xml"


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
    if failure.runtime_code:
        lines.append(f"runtime code: {failure.runtime_code} (retryable: {'yes' if failure.retryable else 'no'})")
    if failure.parent:
        lines.append(f"parent: {failure.parent}")
    if failure.context.get("url"):
        lines.append(f"url: {failure.context['url']}")
    if failure.recovery:
        lines.append("recovery:")
        lines.extend(f"  - {r.strategy}: {r.outcome}" + (f" ({r.detail})" if r.detail else "")
                     for r in failure.recovery)
    if failure.candidates:
        lines.append("candidates seen:")
        lines.extend(f"  - {json.dumps(c, ensure_ascii=False, sort_keys=True)}" for c in failure.candidates[:10])
    if failure.screenshot:
        lines.append(f"screenshot: {failure.screenshot}")
    return lines


def _system_out(test: TestRecord) -> str:
    lines: list[str] = []
    if test.tags:
        lines.append(f"tags: {', '.join(test.tags)}")
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


def _case(test: TestRecord) -> TestCase:
    classname = test.source if test.kind == "flow" else test.scenario_id
    case = TestCase(test.name, classname=classname, elapsed_sec=round(test.duration_ms / 1000, 3),
                    file=test.source, line=str(test.line), stdout=_system_out(test) or None)
    if test.status == "failed":
        failure = test.failure
        message = failure_message(failure) or "failed without a failure record (a flowwalk bug)"
        case.add_failure_info(message=message, output="\n".join(_lines_for_failure(failure) if failure else ()) or None,
                              failure_type=failure_class(test))
    elif test.status == "skipped":
        case.add_skipped_info(message=skip_message(test))
    return case


def render_junit(records: RunRecords) -> str:
    """The junit.xml document for a run, as text."""
    suites: dict[str, list[TestCase]] = {}
    for test in records.tests:
        suites.setdefault(test.source, []).append(_case(test))
    stamp = records.started_at.replace("Z", "") if records.started_at else None
    junit_suites = [TestSuite(name=source or "(unknown file)", test_cases=cases, timestamp=stamp, file=source or None)
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

