"""Baseline files: where they are, reading and writing them, and the report's copies.

A baseline is `<spec>.snapshots/<name>.yml` (aria snapshot) or `.png` (screenshot), its path
relative to the run's working directory (the `baseline` of a `model.Snapshot`). The run writes one only
under `--update-snapshots`; otherwise a missing or changed baseline fails the check, and what the
page showed is saved in the report folder under `baselines/`, at the baseline's own path, so that
`flowwalk heal --report DIR` can offer it as a change to review (heal/baselines.py).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
from pathlib import Path

from flowwalk.reportfolder import ReportFolder

__all__ = ["read_baseline", "report_name", "save_report_file", "sha256", "write_baseline"]


def report_name(baseline: str, variant: str = "") -> str:
    """The report-relative name of a baseline's copy: `baselines/<baseline path>`, with
    `.expected` / `.diff` before the suffix for the variants. A path that climbs out of the working
    directory (`../specs/x.flow.yaml.snapshots/a.png`) keeps its shape inside the folder."""
    parts = [("__up" if p == ".." else p) for p in baseline.replace("\\", "/").split("/") if p not in ("", ".")]
    if variant:
        stem, dot, suffix = parts[-1].rpartition(".")
        parts[-1] = f"{stem}.{variant}.{suffix}" if dot else f"{parts[-1]}.{variant}"
    return "/".join([ReportFolder.BASELINES, *parts])


def read_baseline(path: str | Path) -> bytes | None:
    """The baseline's bytes, or None when there is no such file."""
    try:
        return Path(path).read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def write_baseline(path: str | Path, data: bytes) -> None:
    """Write a baseline atomically (a reader never sees half a file), creating its folder. It is a
    file of the repository: one it replaces keeps its mode, a new one gets the mode every new file
    gets (0666 less the umask, as git checkout gives it), never a temporary file's private 0600."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)   # the kernel applies the umask
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        if target.exists():
            os.chmod(tmp, stat.S_IMODE(target.stat().st_mode))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def save_report_file(out_dir: str | Path, name: str, data: bytes) -> str:
    """Write `data` at `name` (report-relative) in the report folder; returns `name`."""
    target = Path(out_dir) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return name


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
