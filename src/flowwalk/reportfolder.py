"""The report folder's layout: every file and folder a run writes into it, named once.

A run writes emit.jsonl as it goes, then the reports rebuilt from it (`REPORTS`), and, on a
pull_request event, pr.json; the walker saves screenshots, traces, failure context files and
candidate baselines in `ARTIFACTS`, which the records name by relative path. A new run (and a
merge) replaces those and leaves anything else in the folder alone.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

__all__ = ["ReportFolder"]


@dataclass(frozen=True)
class ReportFolder:
    """`ReportFolder(path)`: the names, and the paths in `path`, of a report folder's files."""

    EMIT: ClassVar[str] = "emit.jsonl"
    VERDICT: ClassVar[str] = "verdict.json"
    JUNIT: ClassVar[str] = "junit.xml"
    SUMMARY: ClassVar[str] = "summary.md"
    HTML: ClassVar[str] = "report.html"
    #: the pull request a run on a pull_request event was for (the fork-safe publish workflow)
    PR_CONTEXT: ClassVar[str] = "pr.json"
    #: rebuilt from emit.jsonl alone, in the order they are built
    REPORTS: ClassVar[tuple[str, ...]] = (VERDICT, JUNIT, SUMMARY, HTML)
    SCREENSHOTS: ClassVar[str] = "screenshots"
    TRACES: ClassVar[str] = "traces"
    #: the failure context files a test's record points to
    CONTEXT: ClassVar[str] = "context"
    #: candidate baselines and comparison images of aria_snapshot and screenshot checks
    BASELINES: ClassVar[str] = "baselines"
    #: folders of files the records reference by relative path (merge copies them)
    ARTIFACTS: ClassVar[tuple[str, ...]] = (SCREENSHOTS, TRACES, CONTEXT, BASELINES)
    #: a folder holding either is a report folder (emit.jsonl alone: a run still going, or cut)
    MARKERS: ClassVar[tuple[str, ...]] = (VERDICT, EMIT)

    path: Path

    @property
    def emit(self) -> Path:
        return self.path / self.EMIT

    @property
    def verdict(self) -> Path:
        return self.path / self.VERDICT

    @property
    def summary(self) -> Path:
        return self.path / self.SUMMARY

    @property
    def pr_context(self) -> Path:
        return self.path / self.PR_CONTEXT

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
