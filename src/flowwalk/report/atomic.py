"""Files replaced atomically: a reader (a CI upload, a teammate, the MCP server) never sees half a report."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable


def write_atomic(path: Path, text: str | Iterable[str]) -> Path:
    """Write text (or its pieces, in order) to path through a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            if isinstance(text, str):
                handle.write(text)
            else:
                handle.writelines(text)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; reports are read by CI uploads and teammates
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
