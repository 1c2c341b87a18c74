"""The emit.jsonl writer: one event handler that appends each event's record as one JSON line.

emit.jsonl is the source of truth every report is rebuilt from, and it must stay readable when
a job is cancelled or killed mid-run: every line is flushed as soon as it is written, and lines
from concurrent workers never interleave (one lock around write + flush).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from flowwalk.events import Event, RunStarted
from flowwalk.reportfolder import ReportFolder


def dump_record(record: dict[str, Any]) -> str:
    """One compact JSON line (no newline). Values JSON cannot hold are written as text, never
    dropped and never fatal: losing the log over an odd detail value would be worse."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, default=str)


class EmitWriter:
    """`EmitWriter(out_dir)`: a handler writing `out_dir/emit.jsonl`; call it with each event."""

    def __init__(self, out_dir: str | Path, filename: str = ReportFolder.EMIT):
        self.path = Path(out_dir) / filename
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._file: IO[str] | None = self.path.open("w", encoding="utf-8", newline="\n")
        self._count = 0

    @property
    def count(self) -> int:
        """Records written so far."""
        return self._count

    def __call__(self, event: Event) -> None:
        with self._lock:
            if self._file is None:
                raise ValueError(f"{self.path} is closed; no event can be written after close()")
            if self._count == 0 and not isinstance(event, RunStarted):
                # the reader needs the plan and the shard before anything else
                raise ValueError(f"the first record of {self.path} must be run_started, "
                                 f"not {type(event).__name__}")
            self._file.write(dump_record(event.record()) + "\n")
            self._file.flush()
            self._count += 1

    def close(self) -> None:
        """Close the file; safe to call twice (the run closes it, and so does its cleanup)."""
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> "EmitWriter":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
