"""Why one test failed, read back from a report folder: the failure context and a deterministic label.

The label comes from the failure's runtime code alone (the walker's one table of codes, in
`walk/recovery.py`), so the same report always gets the same label:

    not_found           ELEMENT_NOT_FOUND, STALE_REFERENCE: nothing matched the target
    ambiguous(n)        AMBIGUOUS_TARGET: n candidates and none unique
    timeout             TIMEOUT, RUN_TIMEOUT: the page did not get there in time
    assertion_mismatch  EXPECT_STATE_MISMATCH, VERIFICATION_FAILED: the page showed something else
    off_allowlist       NAVIGATION_BLOCKED: the page went to a host outside the allowlist

Every other code (a missing variable, a browser crash, a cancelled run) has no label (null):
the failure class and runtime code say what it was.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from flowwalk.events import Failure, to_json
from flowwalk.mcp.answers import ExplainAnswer
from flowwalk.mcp.bounds import trim_snapshot
from flowwalk.mcp.workspace import report_uri
from flowwalk.report import verdict_json
from flowwalk.report.verdict_model import TestVerdict, Verdict
from flowwalk.reportfolder import ReportFolder

_LABELS = {
    "ELEMENT_NOT_FOUND": "not_found",
    "STALE_REFERENCE": "not_found",
    "TIMEOUT": "timeout",
    "RUN_TIMEOUT": "timeout",
    "EXPECT_STATE_MISMATCH": "assertion_mismatch",
    "VERIFICATION_FAILED": "assertion_mismatch",
    "NAVIGATION_BLOCKED": "off_allowlist",
}
#: the most network entries and console messages an explanation carries
NETWORK_LIMIT = 25
CONSOLE_LIMIT = 25


class UnknownTestError(LookupError):
    """The report has no test with the id the client gave."""


def failure_label(failure: Failure | None) -> str | None:
    """The deterministic label of a failure record (see the module docstring), or None."""
    if failure is None:
        return None
    code = failure.runtime_code
    if code == "AMBIGUOUS_TARGET":
        count = len(failure.candidates)
        if not count:  # the count from the message, when the walker kept no candidates
            found = re.search(r"(\d+) (?:candidates|elements)", failure.message)
            count = int(found.group(1)) if found else 0
        return f"ambiguous({count})"
    return _LABELS.get(code)


def read_verdict(report_dir: Path) -> Verdict:
    """The report folder's verdict.json (`verdict_json.read_verdict`); FileNotFoundError saying why
    it may be missing."""
    path = ReportFolder(report_dir).verdict
    if not path.is_file():
        raise FileNotFoundError(f"{path.name} is missing in the report folder (the run is going, or it never "
                                f"finished)\n  hint: wait for the run, or rebuild it with `flowwalk report DIR`")
    return verdict_json.read_verdict(path)


def find_test(verdict: Verdict, test_id: str) -> TestVerdict:
    found = verdict.test(test_id)
    if found is not None:
        return found
    ids = [t.test_id for t in verdict.tests]
    close = difflib.get_close_matches(test_id, ids, n=3, cutoff=0.3)
    failed = [t.test_id for t in verdict.tests if t.status == "failed"][:5]
    hint = (f"did you mean '{close[0]}'?" if close else
            f"failed tests in this report: {', '.join(failed)}" if failed else "this report has no failed test")
    raise UnknownTestError(f"the report has no test '{test_id}'\n  hint: {hint}")


def explain(report_dir: Path, report_name: str, test_id: str) -> ExplainAnswer:
    """The failure context of `test_id` in the report at `report_dir` (named `report_name` to clients)."""
    verdict = read_verdict(report_dir)
    test = find_test(verdict, test_id)
    status = test.status
    failure = test.failure
    if failure is None:
        reason = test.reason
        return ExplainAnswer(report_dir=report_name, test_id=test_id, status=status,
                             note=f"this test {status}{f' ({reason})' if reason else ''}: there is no failure "
                                  f"to explain", skipped_steps=list(test.skipped_steps))
    if failure.step_kind == "parent_failed":
        # the record carries the parent's class and code (one cause reads as one); the context,
        # snapshot and screenshot are the parent's to show
        parent = failure.parent or ""
        cause = next((t.test_id for t in verdict.tests
                      if t.scenario_id == test.scenario_id and t.rule == parent), parent)
        return ExplainAnswer(report_dir=report_name, test_id=test_id, status=status,
                             failure_class=failure.failure_class, runtime_code="PARENT_FAILED",
                             message=failure.message, path=failure.path, line=failure.line, col=failure.col,
                             expected=failure.expected, observed=failure.observed,
                             note=f"not walked: its parent rule did not pass; call explain_failure with test_id "
                                  f"'{cause}' for the cause")
    context = failure.evidence()
    step = failure.step_text
    index = failure.step_index
    snapshot, trimmed = trim_snapshot(context.a11y_snapshot, step, failure.expected)
    shot = failure.screenshot
    screenshot = f"{report_name}/{shot}" if shot else None
    return ExplainAnswer(
        report_dir=report_name,
        test_id=test_id,
        status=status,
        failure_class=failure.failure_class,
        runtime_code=failure.runtime_code,
        label=failure_label(failure),
        message=failure.message,
        step=f"step {index} ({step})" if index is not None and step else step,
        step_index=index,
        path=failure.path,
        line=failure.line,
        col=failure.col,
        expected=failure.expected,
        observed=failure.observed,
        url=context.url,
        title=context.title,
        console=[c if isinstance(c, dict) else {"text": str(c)} for c in context.console][-CONSOLE_LIMIT:],
        page_errors=list(context.page_errors)[-CONSOLE_LIMIT:],
        network=context.requests(NETWORK_LIMIT),
        blocked=list(context.blocked)[:NETWORK_LIMIT],
        snapshot=snapshot,
        snapshot_trimmed=trimmed,
        candidates=[c for c in failure.candidates if isinstance(c, dict)][:10],
        recovery=[to_json(r) for r in failure.recovery],
        last_click=context.last_click,
        skipped_steps=list(test.skipped_steps),
        screenshot=screenshot,
        screenshot_uri=report_uri(report_name, f"screenshots/{Path(shot).name}") if screenshot and shot else None,
    )
