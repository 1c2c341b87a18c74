"""`import_suite`: the one function behind `flowwalk import` and the MCP tool: files found, parsed,
walked by their front end, written, and the ledger written beside them.

A file that does not parse, or that no front end recognises as a test file, is refused with
`path:line:col`, what and how to fix it; the other files are still imported.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from flowwalk.importer.core import Frontend, Walk
from flowwalk.importer.cypress import Cypress
from flowwalk.importer.ledger import Ledger
from flowwalk.importer.output import NEEDS_REVIEW, Written, write_file_import, write_ledger
from flowwalk.importer.playwright import PlaywrightTest
from flowwalk.importer.syntax import LANGUAGES, Source, SyntaxProblem, parse

__all__ = ["ImportRequest", "ImportResult", "find_sources", "import_suite"]

#: what a folder's test files are called (Playwright Test's default testMatch, Cypress's specPattern)
_TEST_MARKS = (".spec.", ".test.", ".cy.")
#: where a Cypress project keeps its custom commands, beside its tests' folder
_SUPPORT = ("support/commands.js", "support/commands.ts", "support/commands.mjs")


@dataclass(frozen=True)
class ImportRequest:
    sources: tuple[Path, ...]
    out: Path
    #: (prefix, replacement) of URLs: `https://demo.example.com` -> `` writes paths against --base-url
    urls: tuple[tuple[str, str], ...] = ()
    test_id_attribute: str = "data-testid"
    #: (a test's `path:line:col`, why): tests sent to needs-review/ though they converted whole
    #: (`flowwalk import --run`: they failed when walked against the app)
    held: tuple[tuple[str, str], ...] = ()


@dataclass
class ImportResult:
    ledger: Ledger
    written: Written = field(default_factory=Written)


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def find_sources(paths: Sequence[Path]) -> tuple[list[Path], list[str]]:
    """The files to import (a folder's test files, recursively) and a refusal for each path that is none."""
    found: list[Path] = []
    refused: list[str] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in LANGUAGES
                            and any(m in p.name for m in _TEST_MARKS) and "node_modules" not in p.parts)
            if not inside:
                refused.append(f"{_display(path)}:1:1: error: no test files in this folder\n"
                               f"  hint: Playwright Test files are named *.spec.ts, *.test.ts (or .js, .mjs), "
                               f"Cypress files *.cy.js, *.cy.ts")
            found.extend(inside)
        elif path.is_file():
            found.append(path)
        else:
            refused.append(f"{_display(path)}:1:1: error: no such file or folder\n  hint: check the path")
    return found, refused


def import_suite(request: ImportRequest) -> ImportResult:
    """Every source imported into `request.out` (its needs-review/ and import/ folders rewritten)."""
    ledger = Ledger()
    result = ImportResult(ledger)
    files, ledger.refused = find_sources(request.sources)
    request.out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(request.out / NEEDS_REVIEW, ignore_errors=True)
    playwright = PlaywrightTest(request.test_id_attribute)
    cypress = Cypress()
    parsed_files: list[tuple[Path, Source]] = []
    for path in [*_support_files(files), *files]:
        if any(path.resolve() == p.resolve() for p, _ in parsed_files):
            continue
        ledger.figures.files += 1
        parsed = parse(_display(path), path.read_bytes())
        if isinstance(parsed, SyntaxProblem):
            ledger.refused.append(str(parsed))
            ledger.figures.files_refused += 1
            continue
        parsed_files.append((path, parsed))
    # a suite's support files first: their commands are every test file's
    for _, source in sorted(parsed_files, key=lambda item: not Cypress.is_support(item[1])):
        if Cypress.is_support(source):
            walk = Walk(source, cypress)
            walk.run()
            ledger.rows.extend(sorted(walk.rows.values(), key=lambda r: (r.line, r.col, r.kind)))
            continue
        frontend: Frontend | None = cypress if cypress.recognises(source) else \
            playwright if playwright.recognises(source) else None
        if frontend is None:
            ledger.refused.append(f"{source.path}:1:1: error: not a Playwright Test file (it neither imports "
                                  "'@playwright/test' nor calls test(...) with a page) nor a Cypress file (it calls "
                                  "no cy command)\n"
                                  "  hint: pass the suite's test files, e.g. tests/*.spec.ts or cypress/e2e/*.cy.js")
            ledger.figures.files_refused += 1
            continue
        _import_one(source, frontend, request, result)
    result.written.files += write_ledger(ledger, request.out)
    return result


def _support_files(files: Sequence[Path]) -> list[Path]:
    """The custom commands' files of the Cypress projects the files are in (`cypress/support/commands.js`
    of the nearest folder above a file that has one)."""
    found: list[Path] = []
    for path in files:
        if ".cy." not in path.name:
            continue
        for folder in path.resolve().parents:
            candidates = [folder / s for s in _SUPPORT] + [folder / "cypress" / s for s in _SUPPORT]
            hit = next((c for c in candidates if c.is_file()), None)
            if hit is not None:
                if hit not in found:
                    found.append(hit)
                break
    return found


def _import_one(source: Source, frontend: Frontend, request: ImportRequest, result: ImportResult) -> None:
    walk = Walk(source, frontend)
    imported = walk.run()
    write_file_import(walk, imported, request.out, request.urls, result.written, result.ledger, dict(request.held))

