"""Element fingerprints: what a pinned selector's element looked like when the selector last worked.

A fingerprint is a small, bounded description of one element: tag, id, name, role and accessible
name, test id, classes, text, input type, link target, its position among same-tag siblings, a
short ancestor path and the text around it (its nearest ancestor's, for a checkbox whose row says
what it is). It never holds an input's value. It is taken in the same round trip that
finds the element for an act (`Page.match(..., fingerprint=True)` answers with the count the walker asks for anyway), cut to
the bounds below, passed through the run's redactor, and written into that act's `step_finished`
record in `emit.jsonl` (`detail.fingerprint`, with the pinned selector and its age in runs). A
fingerprint from an earlier run is carried forward unchanged (age + 1, no page call) until it is
REFRESH_RUNS runs old, then taken afresh: taking it costs a few milliseconds per act (see
docs/healing.md), paid on one run in five.

Where the last fingerprint comes from on a later run (`FingerprintStore`): an earlier run's
`emit.jsonl` (or report folder) given with `--fingerprints`, which defaults to the `--durations`
file (the last main-branch report a CI job downloads to balance its shards already holds both),
and fingerprints taken earlier in this same run (a retried scenario, another flow using the same
selector). Lookups are by spec file and pinned selector, the step's line breaking ties, so a spec
edited above the step still finds it.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from flowwalk.reportfolder import ReportFolder

__all__ = ["bound", "fresh", "FingerprintStore", "FIELDS", "MAX_TEXT", "REFRESH_RUNS"]

MAX_TEXT = 80
MAX_CLASSES = 8
MAX_ANCESTORS = 4
MAX_ATTR = 120
#: every key a fingerprint may hold (anything else a page could smuggle in is dropped)
FIELDS = ("tag", "id", "name", "role", "aname", "testid", "classes", "text", "type", "href", "nth", "ancestors",
          "context")

# The script that takes a fingerprint (browser/js/fingerprint.js, asked with a match's count by
# `Page.match(..., fingerprint=True)`) lives with every other page script, in browser/js/; this
# module bounds, stores and carries what it returns.


def _text(value: Any, limit: int) -> str:
    return " ".join(str(value).split())[:limit] if isinstance(value, (str, int, float)) else ""


def bound(raw: Any, redact: Callable[[str], str] = lambda s: s) -> dict[str, Any] | None:
    """A fingerprint as recorded: only known keys, every string cut and redacted. None if unusable."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("tag"), str) or not raw.get("tag"):
        return None
    out: dict[str, Any] = {}
    for key in FIELDS:
        value = raw.get(key)
        if key in ("classes", "ancestors"):
            limit = MAX_CLASSES if key == "classes" else MAX_ANCESTORS
            items = [redact(_text(v, 60)) for v in value[:limit]] if isinstance(value, list) else []
            out[key] = [v for v in items if v]
        elif key == "nth":
            out[key] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1
        else:
            out[key] = redact(_text(value, MAX_TEXT if key in ("text", "aname", "context") else MAX_ATTR))
    return out


#: a fingerprint carried over from an earlier run is taken afresh once it is this many runs old
REFRESH_RUNS = 5


def fresh(probed: Any, pinned: str, redact: Callable[[str], str]) -> dict[str, Any] | None:
    """The record for a fingerprint a match just took (age 0), or None."""
    fp = bound(probed.get("fp") if isinstance(probed, Mapping) else None, redact)
    return None if fp is None else {**fp, "pinned": pinned, "age": 0}


class FingerprintStore:
    """The last known fingerprint per (spec file, pinned selector). Thread-safe: workers share it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: (path, pinned selector) -> [(line, fingerprint)], latest last
        self._by_key: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
        self._by_selector: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._by_key.values())

    def put(self, path: str, line: int, pinned: str, fingerprint: Mapping[str, Any]) -> None:
        fp = dict(fingerprint)
        with self._lock:
            entries = self._by_key.setdefault((path, pinned), [])
            entries[:] = [e for e in entries if e[0] != line] + [(line, fp)]
            self._by_selector[pinned] = fp

    def get(self, path: str, line: int, pinned: str, *, exact: bool = False) -> dict[str, Any] | None:
        """The fingerprint for this step: same file and selector (nearest line), else same selector.
        `exact`: this step's own only (a check: what it saw there, its text, is its own)."""
        with self._lock:
            entries = self._by_key.get((path, pinned))
            if exact:
                return next((fp for at, fp in entries or () if at == line), None)
            if entries:
                return min(entries, key=lambda e: abs(e[0] - line))[1]
            return self._by_selector.get(pinned)

    def carry(self, path: str, line: int, pinned: str, *, exact: bool = False) -> dict[str, Any] | None:
        """The stored fingerprint for this step, one run older, while it is younger than
        REFRESH_RUNS; None when it must be taken afresh (none yet, or too old).

        This keeps the fingerprint's cost off most passing runs: the walker probes the element
        (one `evaluate_all` instead of a count, a few milliseconds) only every REFRESH_RUNS runs
        and writes the carried record otherwise, so the next run still finds it."""
        fp = self.get(path, line, pinned, exact=exact)
        if fp is None:
            return None
        age = fp.get("age")
        age = age if isinstance(age, int) and not isinstance(age, bool) and age >= 0 else REFRESH_RUNS
        if age + 1 >= REFRESH_RUNS:
            return None
        return {**fp, "pinned": pinned, "age": age + 1}

    def add_records(self, records: Iterable[Mapping[str, Any]]) -> int:
        """Take the fingerprints of passed steps from emit.jsonl records (`detail.fingerprint`, and
        `detail.fingerprints` of a step's further selectors); how many were taken."""
        taken = 0
        for record in records:
            if record.get("event") != "step_finished" or record.get("status") != "passed":
                continue
            detail = record.get("detail")
            if not isinstance(detail, Mapping):
                continue
            more = detail.get("fingerprints")
            for fp in [detail.get("fingerprint"), *(more if isinstance(more, list) else [])]:
                if isinstance(fp, Mapping):
                    taken += self._add(record, fp)
        return taken

    def _add(self, record: Mapping[str, Any], fp: Mapping[str, Any]) -> int:
        pinned = fp.get("pinned")
        clean = bound(fp)
        path, line = record.get("path"), record.get("line")
        if clean is None or not isinstance(pinned, str) or not isinstance(path, str) or not isinstance(line, int):
            return 0
        age = fp.get("age")
        clean["age"] = age if isinstance(age, int) and not isinstance(age, bool) and age >= 0 else 0
        self.put(path, line, pinned, clean)
        return 1

    @classmethod
    def load(cls, source: str | Path | None) -> "FingerprintStore":
        """From an earlier report folder or its emit.jsonl; an empty store when there is none.

        A file that is missing, unreadable or not JSON lines gives no fingerprints and no error:
        fingerprints only ever add healing evidence, and the run must not fail over an old file.
        """
        store = cls()
        if not source:
            return store
        path = Path(source)
        if path.is_dir():
            path = ReportFolder(path).emit
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return store
        records = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        store.add_records(records)
        return store
