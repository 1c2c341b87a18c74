"""`flowwalk import`: foreign test files (Playwright Test, Cypress) imported into flow specs, with the ledger
of every call (importer/suite.py does the work; this is the command's request and answer, which the
CLI prints and the MCP server returns).

With `run`, every spec written whole is walked once against `base_url` as `flowwalk run` walks it
(its report in `import/run/`), and the import is written again with each spec that did not pass in
needs-review/, the failure at its top and in the ledger: the folder that comes out is green.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from flowwalk.cooperative import CancelToken
from flowwalk.errors import UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.importer.ledger import summary_lines
from flowwalk.importer.suite import ImportRequest, ImportResult, import_suite

__all__ = ["ImportAnswer", "ImportCommand", "run_import"]


@dataclass(frozen=True)
class ImportCommand:
    """What `flowwalk import` is asked: the files or folders, the output folder, and the address
    the suite's absolute URLs start with (written as paths, so the specs run against any base URL)."""

    sources: tuple[Path, ...]
    out: Path
    base_url: str = ""
    test_id_attribute: str = "data-testid"
    #: walk each spec written whole once against base_url; those that fail go to needs-review/
    run: bool = False


@dataclass(frozen=True)
class ImportAnswer:
    result: ImportResult
    #: the console's summary: figures, counts, each call not converted, each file refused
    lines: tuple[str, ...]
    exit_code: int


#: where `run` writes the walk's report, inside the output folder
RUN_REPORT = posixpath.join("import", "run")


def run_import(command: ImportCommand, *, console: TextIO | None = None,
               cancel: CancelToken | None = None) -> ImportAnswer:
    """The import written under `command.out`. Exit 0 when every file was imported (tests in
    needs-review/ are part of the answer), 3 when a file was refused (the others are imported).
    With `command.run`, the walk's lines go to `console` and `cancel` stops it (None: SIGINT and
    SIGTERM do, as in `flowwalk run`)."""
    if command.run and not command.base_url:
        raise UsageError("--run walks the imported specs against the app, and no --base-url names it\n"
                         "  hint: flowwalk import ... --base-url http://127.0.0.1:8000 --run")
    base = command.base_url.rstrip("/")
    urls = ((base, ""),) if base else ()
    request = ImportRequest(command.sources, command.out, urls, command.test_id_attribute)
    result = import_suite(request)
    lines: list[str] = []
    if command.run and result.written.specs:
        failed = _walk_written(command, result, console, cancel)
        if failed:
            for rel in result.written.files:
                _remove(command.out, rel)
            result = import_suite(replace(request, held=tuple(sorted(failed.items()))))
        walked = len(result.written.specs) + len(failed)
        lines.append(f"walked {walked} spec(s) against {command.base_url}: {walked - len(failed)} passed, "
                     f"{len(failed)} moved to needs-review/ (the walk's report: {command.out}/{RUN_REPORT}/)")
    code = ExitCode.INPUT_REFUSED if result.ledger.refused else ExitCode.OK
    return ImportAnswer(result, tuple(summary_lines(result.ledger) + lines), int(code))


def _walk_written(command: ImportCommand, result: ImportResult, console: TextIO | None,
                  cancel: CancelToken | None) -> dict[str, str]:
    """Each spec written whole walked once against the base URL; why each that did not pass failed,
    by its test's `path:line:col` upstream."""
    import io

    from flowwalk.app.run import RunRequest, execute_run
    from flowwalk.events import RuleFinished
    from flowwalk.settings import Overrides

    out = command.out
    last: dict[str, RuleFinished] = {}

    def seen(event: Any) -> None:
        if isinstance(event, RuleFinished):
            last[event.test_id] = event

    overrides = Overrides(paths=tuple(str(out / rel) for rel in result.written.specs), root=str(out),
                          base_url=command.base_url, out_dir=str(out / RUN_REPORT), retries=0,
                          test_id_attribute=(command.test_id_attribute,))
    execute_run(RunRequest(overrides), console=console or io.StringIO(), cancel=cancel, on_event=seen)
    upstream = {t["file"]: t["at"] for t in result.ledger.tests if t["file"]}
    failed: dict[str, str] = {}
    for event in last.values():
        if event.status == "passed":
            continue
        why = f"did not pass when walked against {command.base_url} (flowwalk import --run): {event.status}"
        if event.failure is not None:
            step = f" at step {event.failure.step_index}" if event.failure.step_index else ""
            why += f"{step}: {event.failure.message.splitlines()[0] if event.failure.message else ''}"
        elif event.reason:
            why += f" ({event.reason})"
        failed.setdefault(upstream.get(event.path, event.path), why)
    return failed


def _remove(out: Path, rel: str) -> None:
    """A file the first pass wrote, and the folders it leaves empty (up to `out`)."""
    path = out / rel
    path.unlink(missing_ok=True)
    folder = path.parent
    while folder != out and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
