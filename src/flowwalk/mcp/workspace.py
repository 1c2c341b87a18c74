"""The folder the MCP server may touch: paths confined to it, report folders found in it.

Every path a client names (spec files, report folders, the folder to serve, the config) is
resolved here, symlinks included, and refused when it lands outside the working directory the
server was started in. Report folders are named to clients by their path relative to that root
(`flowwalk-report`, `runs/login`), which is also the `{dir}` of the resource URIs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from flowwalk.discover import DISCOVER_DIR
from flowwalk.errors import FlowwalkError
from flowwalk.reportfolder import ReportFolder
from flowwalk.spec.loader import SKIP_DIRS

#: how deep `reports()` looks for report folders below the root (the default one sits at depth 1)
REPORT_SEARCH_DEPTH = 4
#: what a discover folder's resources read (besides the specs its crawl.json lists)
DISCOVER_LEAVES = ("index.md", "crawl.json")


class OutsideRootError(FlowwalkError):
    """A client named a path outside the server's working directory."""


@dataclass(frozen=True)
class Workspace:
    """`Workspace(root)`: the server's working directory, resolved once."""

    root: Path

    @classmethod
    def at(cls, root: str | Path) -> Workspace:
        return cls(Path(os.path.realpath(root)))

    def confine(self, given: str | Path, what: str = "path") -> Path:
        """The real path of `given` (relative to the root, or absolute) when it is inside the root."""
        text = str(given)
        if "\0" in text:
            raise OutsideRootError(f"{what} '{text!r}' holds a NUL byte\n  hint: name a file or folder "
                                   f"inside {self.root}")
        candidate = Path(text) if os.path.isabs(text) else self.root / text
        real = Path(os.path.realpath(candidate))
        if real != self.root and self.root not in real.parents:
            raise OutsideRootError(
                f"{what} '{text}' is outside the server's working directory {self.root}\n"
                f"  hint: name a path inside it (relative paths are read from there), or start "
                f"`flowwalk mcp` in a folder that contains it")
        return real

    def relative(self, path: Path) -> str:
        """The path as clients see it: relative to the root, with '/' ('.' for the root itself)."""
        rel = os.path.relpath(path, self.root)
        return rel.replace(os.sep, "/")

    def report_dir(self, name: str) -> Path:
        """The report folder `name` (as `list_reports` gives it), which must exist and hold a report."""
        path = self.confine(name, "report folder")
        if not path.is_dir():
            raise FileNotFoundError(f"report folder '{name}' does not exist\n  hint: call list_reports "
                                    f"for the report folders there are, or run first")
        if not ReportFolder(path).is_report():
            raise FileNotFoundError(f"'{name}' is not a report folder (no verdict.json or emit.jsonl)\n"
                                    f"  hint: call list_reports for the report folders there are")
        return path

    def reports(self) -> list[Path]:
        """Every report folder under the root (a folder holding verdict.json or emit.jsonl), sorted."""
        return self._folders()[0]

    def crawls(self) -> list[Path]:
        """Every discover folder under the root (`<out_dir>/discover` holding crawl.json), sorted."""
        return self._folders()[1]

    def _folders(self) -> tuple[list[Path], list[Path]]:
        reports: list[Path] = []
        crawls: list[Path] = []
        base_depth = len(self.root.parts)
        for current, dirs, files in os.walk(self.root):
            here = Path(current)
            if any(marker in files for marker in ReportFolder.MARKERS):
                reports.append(here)
            if here.name == DISCOVER_DIR and "crawl.json" in files and here != self.root:
                crawls.append(here)
            if len(here.parts) - base_depth >= REPORT_SEARCH_DEPTH + 1:
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        depth_ok = [r for r in reports if len(r.parts) - base_depth <= REPORT_SEARCH_DEPTH]
        return sorted(depth_ok, key=self.relative), sorted(crawls, key=self.relative)


def report_uri(name: str, leaf: str) -> str:
    """`flowwalk://reports/{dir}/{leaf}`; a nested folder's '/' is percent-encoded into one segment."""
    return f"flowwalk://reports/{quote(name, safe='')}/{leaf}"


def discover_uri(out_dir: str, leaf: str) -> str:
    """`flowwalk://discover/{dir}/{leaf}` for the crawl written under `out_dir` (index.md, crawl.json,
    or `spec/{path}` for a spec it wrote, the path relative to out_dir in one segment)."""
    return f"flowwalk://discover/{quote(out_dir, safe='')}/{leaf}"


def spec_leaf(path: str) -> str:
    """The leaf of a discover spec resource: `spec/` and the path (relative to out_dir) as one segment."""
    return f"spec/{quote(path, safe='')}"


def resource_leaves(folder: Path) -> list[str]:
    """The names (under `folder`) of the files its resources read: a report folder's summary.md,
    verdict.json and screenshots, or a discover folder's index.md, crawl.json and, as `spec/...`,
    the specs its crawl.json lists (those live in the out_dir, the folder's parent)."""
    if folder.name == DISCOVER_DIR and not ReportFolder(folder).is_report():
        names = [leaf for leaf in DISCOVER_LEAVES if (folder / leaf).is_file()]
        names += [f"../{path}" for path in crawl_spec_paths(folder)]
        return names
    names = [ReportFolder.SUMMARY, ReportFolder.VERDICT]
    shots = folder / ReportFolder.SCREENSHOTS
    if shots.is_dir():
        names += [f"{ReportFolder.SCREENSHOTS}/{p.name}" for p in sorted(shots.iterdir())]
    return names


def crawl_spec_paths(folder: Path) -> list[str]:
    """The spec paths (relative to the out_dir) a discover folder's crawl.json lists."""
    try:
        record = json.loads((folder / "crawl.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    specs = record.get("specs") if isinstance(record, dict) else None
    return [str(s["path"]) for s in specs or () if isinstance(s, dict) and isinstance(s.get("path"), str)]


def folder_uri(folder: Path, name: str, leaf: str) -> str:
    """The resource URI of `leaf` of a watched folder named `name` (relative to the root)."""
    if folder.name == DISCOVER_DIR and not ReportFolder(folder).is_report():
        out_dir = name.rsplit("/", 1)[0] if "/" in name else "."
        if leaf.startswith("../"):
            return discover_uri(out_dir, spec_leaf(leaf[3:]))
        return discover_uri(out_dir, leaf)
    return report_uri(name, leaf)
