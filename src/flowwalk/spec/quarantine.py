"""The quarantine file (`flowwalk-quarantine.yaml`): known-flaky tests that still run and are
reported, but do not fail the job until their expiry date (docs/quarantine.md).

`load_quarantine(path, test_ids, today)` validates the file like every input (unknown keys
refused, `path:line:col` errors, an expired or malformed date said plainly) and returns the record
the run keeps in `run_started.gate.quarantine`: each entry with the tests it covers (an id names a
test, or a scenario and so all its tests) and whether it has expired. An entry that names no test
of the run is kept and listed under `unknown`: it quarantines nothing, and the reports say so.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Mapping, Sequence

from flowwalk.errors import Problem, SpecError, UsageError

__all__ = ["find_quarantine", "load_quarantine"]

#: the file looked for in the project root when none is named
QUARANTINE_FILE = "flowwalk-quarantine.yaml"


def find_quarantine(named: str | None, origin: str = "--quarantine", root: str | Path = ".") -> Path | None:
    """The quarantine file to read: the one named (which must exist; `origin` says where it was
    named, `FLOWWALK_QUARANTINE` say), else flowwalk-quarantine.yaml in the project root when
    there is one."""
    if named:
        path = Path(named)
        if not path.is_file():
            from flowwalk.spec.source import escape

            raise UsageError(f"{origin} '{escape(named)}' does not exist\n  hint: name the quarantine file, "
                             f"e.g. {QUARANTINE_FILE} (docs/quarantine.md)")
        return path
    default = Path(root, QUARANTINE_FILE)
    return default if default.is_file() else None


def load_quarantine(path: str | Path, scenarios: Mapping[str, Sequence[str]], today: datetime.date,
                    root: str | Path = ".") -> dict[str, Any]:
    """The run's quarantine record; SpecError with every problem of the file, located.

    `scenarios` maps each scenario id of the run to its test ids (an entry may name either).
    """
    from pydantic import ValidationError

    from flowwalk.spec.loader import display_path
    from flowwalk.spec.models import QuarantineFileModel
    from flowwalk.spec.problems import errors_to_problems, merged, repeats
    from flowwalk.spec.source import SourceError, escape, load_source

    path = Path(path)
    display = escape(display_path(path, root))
    try:
        source = load_source(path, display)
    except SourceError as exc:
        raise SpecError([exc.problem]) from None
    twice = [Problem(source.loc(("tests", index, "id")), f"test id '{escape(tid)}' is quarantined twice (first at "
                     f"line {source.loc(('tests', first, 'id')).line})", "keep one entry per test id")
             for index, first, tid in repeats(source.get(("tests",)), "id")]
    try:
        model = QuarantineFileModel.model_validate(source.data)
    except ValidationError as exc:
        raise SpecError(merged(errors_to_problems(exc, source, QuarantineFileModel), twice)) from None
    if twice:
        raise SpecError(twice)
    tests = {tid for ids in scenarios.values() for tid in ids}
    entries: list[dict[str, Any]] = []
    unknown: list[str] = []
    for index, entry in enumerate(model.tests):
        covered = list(scenarios.get(entry.id, ())) or ([entry.id] if entry.id in tests else [])
        if not covered:
            unknown.append(entry.id)
        expires = datetime.date.fromisoformat(entry.expires)
        entries.append({"id": entry.id, "owner": entry.owner, "reason": entry.reason, "expires": entry.expires,
                        "expired": expires < today, "line": source.loc(("tests", index, "id")).line,
                        "tests": covered})
    return {"path": display, "today": today.isoformat(), "entries": entries, "unknown": unknown}
