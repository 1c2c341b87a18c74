"""The folder the MCP server may touch: paths confined to it, report folders found in it.

Every path a client names (spec files, report folders, the folder to serve, the config) is
resolved here, symlinks included, and refused when it lands outside the working directory the
server was started in. Report folders are named to clients by their path relative to that root
(`flowwalk-report`, `runs/login`), which is also the `{dir}` of the resource URIs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from flowwalk.errors import FlowwalkError
from flowwalk.spec.loader import SKIP_DIRS

#: how deep `reports()` looks for report folders below the root (the default one sits at depth 1)
REPORT_SEARCH_DEPTH = 4
#: the files that make a folder a report folder
REPORT_MARKERS = ("verdict.json", "emit.jsonl")


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
        if not any((path / marker).is_file() for marker in REPORT_MARKERS):
            raise FileNotFoundError(f"'{name}' is not a report folder (no verdict.json or emit.jsonl)\n"
                                    f"  hint: call list_reports for the report folders there are")
        return path

    def reports(self) -> list[Path]:
        """Every report folder under the root (a folder holding verdict.json or emit.jsonl), sorted."""
        found: list[Path] = []
        base_depth = len(self.root.parts)
        for current, dirs, files in os.walk(self.root):
            here = Path(current)
            if any(marker in files for marker in REPORT_MARKERS):
                found.append(here)
            if len(here.parts) - base_depth >= REPORT_SEARCH_DEPTH:
                dirs[:] = []
                continue
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        return sorted(found, key=self.relative)


def report_uri(name: str, leaf: str) -> str:
    """`flowwalk://reports/{dir}/{leaf}`; a nested folder's '/' is percent-encoded into one segment."""
    return f"flowwalk://reports/{quote(name, safe='')}/{leaf}"
