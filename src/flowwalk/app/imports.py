"""`flowwalk import`: foreign test files (Playwright Test, Cypress) imported into flow specs, with the ledger
of every call (importer/suite.py does the work; this is the command's request and answer, which the
CLI prints and the MCP server can return)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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


@dataclass(frozen=True)
class ImportAnswer:
    result: ImportResult
    #: the console's summary: figures, counts, each call not converted, each file refused
    lines: tuple[str, ...]
    exit_code: int


def run_import(command: ImportCommand) -> ImportAnswer:
    """The import written under `command.out`. Exit 0 when every file was imported (tests in
    needs-review/ are part of the answer), 3 when a file was refused (the others are imported)."""
    base = command.base_url.rstrip("/")
    urls = ((base, ""),) if base else ()
    result = import_suite(ImportRequest(command.sources, command.out, urls, command.test_id_attribute))
    code = ExitCode.INPUT_REFUSED if result.ledger.refused else ExitCode.OK
    return ImportAnswer(result, tuple(summary_lines(result.ledger)), int(code))
