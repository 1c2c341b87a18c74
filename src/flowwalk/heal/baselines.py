"""Baselines as a patch for review: what `flowwalk heal` shows and writes for aria_snapshot and
screenshot checks.

A run that finds a baseline missing or different from the page saves what the page showed in the
report folder (`baselines/<baseline path>`) and records it (`events.Baseline`, status `missing`
or `mismatch`). `plan_baselines` turns the report's records into changes of the checkout: the
report's file becomes the baseline. The diff is what `git diff` would show: a unified diff for
an aria snapshot (`.yml`), a `GIT binary patch` for a PNG, so `git apply` takes either and a
reviewer sees every baseline change in one place. A change is skipped, with its reason, when the
report's copy is not the file the run recorded (its sha256), or its path leaves the root.

Baselines that `--update-snapshots` wrote (status `written`) are already in the checkout: they are
listed, not patched (`git diff` and `git status` show them).
"""

from __future__ import annotations

import base64
import hashlib
import zlib
from dataclasses import dataclass
from pathlib import Path

from flowwalk.events import Baseline
from flowwalk.report.records import read_run
from flowwalk.snapshots.store import write_baseline

__all__ = ["BaselineChange", "BaselinePlan", "apply_baselines", "plan_baselines"]


@dataclass(frozen=True)
class BaselineChange:
    """One baseline file to write: `path` (relative to the root) gets `data`, replacing `old`."""

    path: str
    data: bytes
    old: bytes | None
    status: str            # missing | mismatch
    tests: tuple[str, ...]

    def render(self) -> str:
        what = "new baseline" if self.old is None else "changed baseline"
        return f"{self.path}: {what} ({len(self.data)} bytes; {', '.join(self.tests)})"


@dataclass(frozen=True)
class BaselinePlan:
    root: Path
    changes: tuple[BaselineChange, ...]
    #: (baseline path, why it is not in the patch)
    skipped: tuple[tuple[str, str], ...] = ()
    #: baselines --update-snapshots already wrote into the checkout
    written: tuple[str, ...] = ()

    @property
    def diff(self) -> str:
        return "".join(_file_diff(c) for c in self.changes)


def plan_baselines(report_dir: Path, root: Path, *, confine: bool = True) -> BaselinePlan:
    """The report's candidate baselines as changes of the files under `root`."""
    run = read_run(report_dir)
    found: dict[str, tuple[Baseline, list[str]]] = {}
    written: list[str] = []
    for test in run.tests:
        records = [f.baseline for f in test.findings if f.baseline is not None]
        if test.failure is not None and test.failure.baseline is not None:
            records.append(test.failure.baseline)
        for record in records:
            if record.status == "written":
                if record.path not in written:
                    written.append(record.path)
                continue
            if record.status not in ("missing", "mismatch") or not record.observed:
                continue
            entry = found.setdefault(record.path, (record, []))
            if test.test_id not in entry[1]:
                entry[1].append(test.test_id)
    changes: list[BaselineChange] = []
    skipped: list[tuple[str, str]] = []
    resolved_root = root.resolve()
    for path, (record, tests) in sorted(found.items()):
        target = (root / path).resolve()
        if confine and resolved_root not in target.parents:
            skipped.append((path, f"outside {root}"))
            continue
        source = (report_dir / str(record.observed))
        if ".." in Path(str(record.observed)).parts or not source.is_file():
            skipped.append((path, f"the report has no {record.observed}"))
            continue
        data = source.read_bytes()
        if record.sha256 and hashlib.sha256(data).hexdigest() != record.sha256:
            skipped.append((path, f"{record.observed} is not the file the run recorded (sha256 differs)"))
            continue
        old = target.read_bytes() if target.is_file() else None
        if old == data:
            continue   # already kept
        changes.append(BaselineChange(path=_rel(target, resolved_root, path), data=data, old=old,
                                      status=record.status, tests=tuple(tests)))
    return BaselinePlan(root=root, changes=tuple(changes), skipped=tuple(skipped), written=tuple(written))


def _rel(target: Path, root: Path, given: str) -> str:
    try:
        return target.relative_to(root).as_posix()
    except ValueError:
        return given


def apply_baselines(plan: BaselinePlan) -> list[Path]:
    """Write every change (atomically, one file at a time); the paths written."""
    out = []
    for change in plan.changes:
        write_baseline(plan.root / change.path, change.data)
        out.append(plan.root / change.path)
    return out


# --- the diff, as git writes it ----------------------------------------------------------------


def _blob_id(data: bytes | None) -> str:
    if data is None:
        return "0" * 40
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _file_diff(change: BaselineChange) -> str:
    head = [f"diff --git a/{change.path} b/{change.path}\n"]
    if change.old is None:
        head.append("new file mode 100644\n")
    head.append(f"index {_blob_id(change.old)}..{_blob_id(change.data)}" + ("\n" if change.old is None else
                                                                            " 100644\n"))
    text = _text(change.data), _text(change.old) if change.old is not None else ""
    if change.path.endswith(".yml") and text[0] is not None and text[1] is not None:
        from flowwalk.heal.patch import unified_diff

        body = unified_diff(change.path, text[1], text[0])
        if change.old is None:
            body = body.replace(f"--- a/{change.path}\n", "--- /dev/null\n", 1)
        # unified_diff starts with its own ---/+++ lines: keep git's header above them
        return "".join(head) + body
    return "".join(head) + _binary_patch(change.data, change.old)


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _binary_patch(new: bytes, old: bytes | None) -> str:
    """git's `GIT binary patch`: the new content as a literal, then the old one (the reverse hunk)."""
    return "GIT binary patch\n" + _literal(new) + "\n" + _literal(old or b"") + "\n"


def _literal(data: bytes) -> str:
    deflated = zlib.compress(data, 9)
    lines = [f"literal {len(data)}\n"]
    for start in range(0, len(deflated), 52):
        chunk = deflated[start:start + 52]
        size = len(chunk)
        mark = chr(ord("A") + size - 1) if size <= 26 else chr(ord("a") + size - 27)
        lines.append(mark + base64.b85encode(chunk, pad=True).decode("ascii") + "\n")
    return "".join(lines)
