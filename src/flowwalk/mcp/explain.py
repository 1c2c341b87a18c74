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
import json
import re
from pathlib import Path
from typing import Any, Mapping

from flowwalk.mcp.answers import ExplainAnswer
from flowwalk.mcp.bounds import trim_snapshot
from flowwalk.mcp.workspace import report_uri
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


def failure_label(failure: Mapping[str, Any] | None) -> str | None:
    """The deterministic label of a failure record (see the module docstring), or None."""
    if not failure:
        return None
    code = str(failure.get("runtime_code") or "")
    if code == "AMBIGUOUS_TARGET":
        candidates = failure.get("candidates") or ()
        count = len(candidates)
        if not count:  # the count from the message, when the walker kept no candidates
            found = re.search(r"(\d+) (?:candidates|elements)", str(failure.get("message") or ""))
            count = int(found.group(1)) if found else 0
        return f"ambiguous({count})"
    return _LABELS.get(code)


def read_verdict(report_dir: Path) -> dict[str, Any]:
    path = ReportFolder(report_dir).verdict
    if not path.is_file():
        raise FileNotFoundError(f"{path.name} is missing in the report folder (the run is going, or it never "
                                f"finished)\n  hint: wait for the run, or rebuild it with `flowwalk report DIR`")
    loaded = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} is not a verdict object")
    return loaded


def find_test(verdict: Mapping[str, Any], test_id: str) -> dict[str, Any]:
    tests = [t for t in verdict.get("tests") or () if isinstance(t, dict)]
    for test in tests:
        if test.get("test_id") == test_id:
            return test
    ids = [str(t.get("test_id")) for t in tests]
    close = difflib.get_close_matches(test_id, ids, n=3, cutoff=0.3)
    failed = [str(t.get("test_id")) for t in tests if t.get("status") == "failed"][:5]
    hint = (f"did you mean '{close[0]}'?" if close else
            f"failed tests in this report: {', '.join(failed)}" if failed else "this report has no failed test")
    raise UnknownTestError(f"the report has no test '{test_id}'\n  hint: {hint}")


def _network(entries: list[Any]) -> list[dict[str, Any]]:
    """Failed requests (no status, or 400 and above) first, then the most recent others."""
    rows = [e for e in entries if isinstance(e, dict)]
    bad = [e for e in rows if not isinstance(e.get("status"), int) or e["status"] >= 400]
    good = [e for e in rows if e not in bad]
    kept = bad[:NETWORK_LIMIT]
    return kept + good[-(NETWORK_LIMIT - len(kept)):] if len(kept) < NETWORK_LIMIT else kept


def explain(report_dir: Path, report_name: str, test_id: str) -> ExplainAnswer:
    """The failure context of `test_id` in the report at `report_dir` (named `report_name` to clients)."""
    verdict = read_verdict(report_dir)
    test = find_test(verdict, test_id)
    status = str(test.get("status") or "")
    failure = test.get("failure") if isinstance(test.get("failure"), dict) else None
    if failure is None:
        reason = str(test.get("reason") or "")
        return ExplainAnswer(report_dir=report_name, test_id=test_id, status=status,
                             note=f"this test {status}{f' ({reason})' if reason else ''}: there is no failure "
                                  f"to explain", skipped_steps=list(test.get("skipped_steps") or []))
    if failure.get("step_kind") == "parent_failed":
        # the record carries the parent's class and code (one cause reads as one); the context,
        # snapshot and screenshot are the parent's to show
        parent = str(failure.get("parent") or "")
        cause = next((str(t.get("test_id")) for t in verdict.get("tests") or () if isinstance(t, dict)
                      and t.get("scenario_id") == test.get("scenario_id") and t.get("rule") == parent), parent)
        return ExplainAnswer(report_dir=report_name, test_id=test_id, status=status,
                             failure_class=failure.get("failure_class"), runtime_code="PARENT_FAILED",
                             message=str(failure.get("message") or ""), path=failure.get("path"),
                             line=failure.get("line"), col=failure.get("col"),
                             expected=str(failure.get("expected") or ""), observed=str(failure.get("observed") or ""),
                             note=f"not walked: its parent rule did not pass; call explain_failure with test_id "
                                  f"'{cause}' for the cause")
    context = failure.get("context") if isinstance(failure.get("context"), dict) else {}
    assert isinstance(context, dict)
    step = str(failure.get("step_text") or "")
    index = failure.get("step_index")
    snapshot, trimmed = trim_snapshot(str(context.get("a11y_snapshot") or ""), step,
                                      str(failure.get("expected") or ""))
    shot = failure.get("screenshot")
    screenshot = f"{report_name}/{shot}" if isinstance(shot, str) and shot else None
    return ExplainAnswer(
        report_dir=report_name,
        test_id=test_id,
        status=status,
        failure_class=failure.get("failure_class"),
        runtime_code=failure.get("runtime_code"),
        label=failure_label(failure),
        message=str(failure.get("message") or ""),
        step=f"step {index} ({step})" if isinstance(index, int) and step else step,
        step_index=index if isinstance(index, int) else None,
        path=failure.get("path"),
        line=failure.get("line"),
        col=failure.get("col"),
        expected=str(failure.get("expected") or ""),
        observed=str(failure.get("observed") or ""),
        url=str(context.get("url") or ""),
        title=str(context.get("title") or ""),
        console=[c if isinstance(c, dict) else {"text": str(c)} for c in (context.get("console") or [])][-CONSOLE_LIMIT:],
        page_errors=list(context.get("page_errors") or [])[-CONSOLE_LIMIT:],
        network=_network(list(context.get("network") or [])),
        blocked=list(context.get("blocked") or [])[:NETWORK_LIMIT],
        snapshot=snapshot,
        snapshot_trimmed=trimmed,
        candidates=[c for c in failure.get("candidates") or [] if isinstance(c, dict)][:10],
        recovery=[r for r in failure.get("recovery") or [] if isinstance(r, dict)],
        last_click=context.get("last_click") if isinstance(context.get("last_click"), dict) else None,
        skipped_steps=list(test.get("skipped_steps") or []),
        screenshot=screenshot,
        screenshot_uri=report_uri(report_name, f"screenshots/{Path(shot).name}") if screenshot else None,
    )
