"""Earlier reports a run reads: `--last-failed` (what to run again) and `--base-report` (what to
compare with). Both take a report folder, its emit.jsonl, or a merged report of a sharded run,
and read it with `records.read_run` like every report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flowwalk.report.records import ReportError, RunRecords, read_run

__all__ = ["base_statuses", "not_passed"]

#: skip reasons of a test that decided, on its own, not to run: not a failure to run again
DECIDED_SKIPS = ("guard_failed",)


def _read(path: str | Path, flag: str) -> RunRecords:
    try:
        return read_run(path)
    except ReportError as error:
        raise ReportError(f"{flag} {error}") from None


def did_not_pass(status: str, reason: str) -> bool:
    """A test a rerun should cover: it failed, or was not run to its end (cut short, a parent or
    its setup failed, never started); flaky counts as passed, a failed guard as decided."""
    return status == "failed" or (status == "skipped" and reason not in DECIDED_SKIPS)


def not_passed(path: str | Path, origin: str = "--last-failed") -> tuple[frozenset[str], frozenset[str]]:
    """`--last-failed REPORT`: the ids of the tests that did not pass in that report, and of all its
    tests (`origin`: where it was named, for messages)."""
    records = _read(path, origin)
    return (frozenset(t.test_id for t in records.tests if did_not_pass(t.status, t.reason)),
            frozenset(t.test_id for t in records.tests))


def base_statuses(path: str | Path, test_ids: set[str] | None = None, origin: str = "--base-report") -> dict[str, Any]:
    """`--base-report REPORT`: the record a run keeps of the base branch's report (run_started.gate):
    where it came from and each test's final status there (only the tests of `test_ids`, when given:
    the plan's). A test the base did not run to its end is left out: there is nothing to compare."""
    records = _read(path, origin)
    statuses = {t.test_id: t.status for t in records.tests
                if t.status in ("passed", "failed", "flaky") and (test_ids is None or t.test_id in test_ids)}
    return {"path": str(path), "run_id": records.run_id, "started_at": records.started_at,
            "tests": dict(sorted(statuses.items()))}
