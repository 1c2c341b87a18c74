"""The report folder's layout: every file and folder a run writes into it, named once.

A run writes emit.jsonl as it goes, then the reports rebuilt from it (`REPORTS`) and, on a
pull_request event, pr.json; the walker saves the files the records name by relative path in
`ARTIFACTS`. A new run (and a merge) replaces those and leaves anything else in the folder alone.
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["ReportFolder"]


class ReportFolder:
    """`ReportFolder(path)`: the names of a report folder's files, and their paths in `path`."""

    EMIT, VERDICT, JUNIT, SUMMARY, HTML = "emit.jsonl", "verdict.json", "junit.xml", "summary.md", "report.html"
    #: the pull request a run on a pull_request event was for (the fork-safe publish workflow)
    PR_CONTEXT = "pr.json"
    #: rebuilt from emit.jsonl alone, in the order they are built
    REPORTS = (VERDICT, JUNIT, SUMMARY, HTML)
    #: `context`: a failure's context files; `baselines`: candidate baselines and comparison images
    SCREENSHOTS, TRACES, CONTEXT, BASELINES = "screenshots", "traces", "context", "baselines"
    #: folders of files the records name by relative path (merge copies them)
    ARTIFACTS = (SCREENSHOTS, TRACES, CONTEXT, BASELINES)
    #: a folder holding either is a report folder (emit.jsonl alone: a run still going, or cut)
    MARKERS = (VERDICT, EMIT)

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.emit, self.verdict = self.path / self.EMIT, self.path / self.VERDICT
        self.summary, self.pr_context = self.path / self.SUMMARY, self.path / self.PR_CONTEXT

    def is_report(self) -> bool:
        return any((self.path / marker).is_file() for marker in self.MARKERS)

    def clear(self) -> None:
        """Make the folder (when missing) and remove what a run or a merge writes: emit.jsonl, the
        reports and the artifact folders; pr.json and everything else stay."""
        self.path.mkdir(parents=True, exist_ok=True)
        for name in (self.EMIT, *self.REPORTS):
            (self.path / name).unlink(missing_ok=True)
        for name in self.ARTIFACTS:
            if (self.path / name).is_dir():
                shutil.rmtree(self.path / name)

    def listing(self) -> list[str]:
        """The files present that a person opens, the readable ones first (the console names them)."""
        return [name for name in (self.SUMMARY, self.HTML, self.JUNIT, self.VERDICT, self.EMIT)
                if (self.path / name).exists()]
