"""`flowwalk merge`: shard report folders in, the report one unsharded run would have written out.

The shards' emit.jsonl sections are concatenated in shard order (a folder may itself be an
earlier merge: sections are what count, not folders), screenshots, traces, baselines and failure context
files are copied beside them, and `build_reports` rebuilds every report from the merged
emit.jsonl's records (those just written, not read back). A shard's file is read twice: first for
its sections' run_started records and where their lines are, then, in shard order, one section at a
time, written out and grouped into events, so that the raw records of one shard are held at a time,
not of all. Because every report orders tests by the plan recorded in `run_started`, the result
equals an unsharded run test by test. Each shard's own folder reports only its own scenarios; the
merge reports the whole plan, so it is the one place where a missing shard (`2 of 3 reported`, its
tests not run), a shard given twice (the later run counts) and shards that planned differently are
said plainly: in the result's warnings, in `verdict.shards`, and in the reports.
"""

from __future__ import annotations

import filecmp
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from flowwalk.errors import UsageError
from flowwalk.report.build import build_reports, write_atomic
from flowwalk.report.records import (
    RawSection, SectionRead, as_dict, read_lines_text, read_section, records_from_reads, section_lines, split_sections,
)
from flowwalk.report.verdict_json import shards_data
from flowwalk.report.verdict_model import Verdict
from flowwalk.reportfolder import ReportFolder


@dataclass(frozen=True)
class MergeResult:
    out_dir: Path
    verdict: Verdict
    #: everything a person should know about the merge, one sentence each
    warnings: tuple[str, ...]
    #: verdict.json's shards: total, reported, missing, duplicated, mismatched
    shards: dict[str, Any]
    #: artifact files copied
    copied: int


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def merge_reports(dirs: Sequence[str | Path], out_dir: str | Path) -> MergeResult:
    """Merge shard report folders into out_dir and rebuild its reports; returns the result."""
    folders = [Path(d) for d in dirs]
    out = Path(out_dir)
    if not folders:
        raise UsageError("nothing to merge\n  hint: flowwalk merge shard-1/ shard-2/ --out merged/")
    for folder in folders:
        if _same_folder(folder, out):
            raise UsageError(f"--out '{out}' is also an input folder; merging into it would overwrite a shard\n"
                             f"  hint: merge into a new folder, e.g. --out merged-report")
        if not folder.is_dir():
            raise UsageError(f"'{folder}' is not a folder\n  hint: pass the report folders the shard jobs uploaded")

    warnings: list[str] = []
    sections: list[tuple[RawSection, int]] = []
    plans: list[Any] = []
    for n, folder in enumerate(folders):
        # each section's run_started and where its lines are: its records are read when it is merged
        found, problems = split_sections(folder, keep=False)
        warnings.extend(problems)
        for section in found:
            # every shard records the whole plan: equal plans share one copy (64 shards of a
            # 10,000-test plan would otherwise hold 64 of them)
            plan = section.start.get("plan")
            section.start["plan"] = next((p for p in plans if p == plan), plan)
            if section.start["plan"] is plan:
                plans.append(plan)
            sections.append((section, n))

    def shard_key(item: tuple[RawSection, int]) -> tuple[int, str, int]:
        index = as_dict(item[0].start.get("shard")).get("index")
        index = index if isinstance(index, int) else 1
        return index, str(item[0].start.get("started_at", "")), item[1]

    sections.sort(key=shard_key)

    merged = ReportFolder(out)
    merged.clear()
    read_problems: list[str] = []
    reads: list[SectionRead] = []

    def merged_lines() -> Iterator[str]:
        """The merged emit.jsonl's lines, section by section; each section's records grouped into
        `reads` once its lines are out, so that one shard's records are held at a time."""
        number = 1
        source, lines = "", []
        for section, _ in sections:
            if section.source != source:
                source, lines = section.source, read_lines_text(Path(section.source)).split("\n")
            own = section_lines(section, lines)
            start = number
            number += len(own)
            records = [(start + i, json.loads(line)) for i, line in enumerate(own[1:], 1)]
            for line in own:
                yield line + "\n"
            reads.append(read_section(RawSection(start=section.start, line=start, source=str(merged.emit),
                                                 records=records), read_problems))

    write_atomic(merged.emit, merged_lines())

    # artifacts, in the same order as the sections: a later run of a duplicated shard wins
    copied = 0
    origin: dict[Path, Path] = {}
    ordered_folders = list(dict.fromkeys(folders[n] for _, n in sections))
    for folder in ordered_folders:
        for name in ReportFolder.ARTIFACTS:
            base = folder / name
            if not base.is_dir():
                continue
            for source in sorted(p for p in base.rglob("*") if p.is_file()):
                relative = source.relative_to(folder)
                target = out / relative
                if target.exists():
                    if filecmp.cmp(source, target, shallow=False):
                        continue
                    warnings.append(f"{relative} differs between {origin.get(target, '?')} and {folder}; "
                                    f"kept the one from {folder}")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                origin[target] = folder
                copied += 1
    # the PR context `run` leaves for the fork-safe publish workflow: carried over as is
    for folder in ordered_folders:
        if ReportFolder(folder).pr_context.is_file() and not merged.pr_context.exists():
            shutil.copy2(ReportFolder(folder).pr_context, merged.pr_context)

    # the records are those just written: built from them, not read back
    verdict = build_reports(out, warn=False, whole_run=True,
                            records=records_from_reads(reads, read_problems, merged.emit, whole_run=True))
    # the reading problems (missing/duplicated shards, damaged lines) are in the verdict; keep
    # each sentence once, in a stable order
    for problem in verdict.warnings:
        if problem not in warnings:
            warnings.append(problem)
    return MergeResult(out_dir=out, verdict=verdict, warnings=tuple(warnings), shards=shards_data(verdict.shards),
                       copied=copied)

