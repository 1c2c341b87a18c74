"""Build every report of a folder from its emit.jsonl alone: verdict.json, junit.xml, summary.md,
report.html. `flowwalk run`, `flowwalk report DIR` and `flowwalk merge` all end here.

Each report is built and written on its own: a reporter that breaks is reported on stderr and
the others are still written (a bad HTML template must not cost a team its JUnit results).
Files are replaced atomically, so a reader never sees half a report. Only when the verdict itself
cannot be built does this raise, after writing what it could: the exit code comes from it.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Callable, TextIO

from flowwalk.report.atomic import write_atomic
from flowwalk.report.html import render_html
from flowwalk.report.junit import render_junit
from flowwalk.report.records import RunRecords, read_run
from flowwalk.report.summary import render_summary
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import write_verdict
from flowwalk.report.verdict_model import Verdict
from flowwalk.reportfolder import ReportFolder

__all__ = ["build_reports", "write_atomic"]


def _report_failure(name: str, error: BaseException, stream: TextIO) -> None:
    frame = traceback.extract_tb(error.__traceback__)[-1:] if error.__traceback__ else []
    where = f" ({frame[0].filename.rsplit('/', 1)[-1]}:{frame[0].lineno})" if frame else ""
    print(f"flowwalk: error: could not write {name}: {type(error).__name__}: {error}{where}; "
          f"the other reports were written", file=stream)


def build_reports(out_dir: str | Path, *, warn: bool = True, stderr: TextIO | None = None,
                  whole_run: bool | None = None, records: RunRecords | None = None) -> Verdict:
    """Rebuild the folder's reports from its emit.jsonl; returns the verdict.

    `warn=False` leaves the reading problems (truncated line, missing shard, ...) to the caller;
    they are in `verdict.warnings` either way. A shard job's folder reports that shard's own
    scenarios; `whole_run=True` (merge) reports the whole plan (`records.read_run`). `records`:
    the folder's emit.jsonl already read (merge has them in hand).
    """
    out = Path(out_dir)
    stream = stderr or sys.stderr
    records = records if records is not None else read_run(out, whole_run=whole_run)
    if warn:
        for problem in records.problems:
            print(f"flowwalk: warning: {problem}", file=stream)

    verdict: Verdict | None = None
    verdict_error: BaseException | None = None
    try:
        verdict = build_verdict(records)
        write_verdict(out / ReportFolder.VERDICT, verdict)
    except Exception as error:  # noqa: BLE001 - isolation is the point
        verdict_error = error
        _report_failure(ReportFolder.VERDICT, error, stream)

    builders: list[tuple[str, Callable[[], str]]] = [(ReportFolder.JUNIT, lambda: render_junit(records))]
    if verdict is not None:
        done = verdict
        builders.append((ReportFolder.SUMMARY, lambda: render_summary(done, records)))
        builders.append((ReportFolder.HTML, lambda: render_html(done, records)))
    for name, build in builders:
        try:
            write_atomic(out / name, build())
        except Exception as error:  # noqa: BLE001
            _report_failure(name, error, stream)

    if verdict is None:
        assert verdict_error is not None
        raise verdict_error
    return verdict
