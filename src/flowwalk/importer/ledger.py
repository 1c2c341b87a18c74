"""The ledger of an import: a row for every call expression of a test, a hook or a helper (and for
every statement around calls that flowwalk holds no equivalent of), saying what it became.

Each row is `converted` (a step that does what the call does), `approximated` (a step that does
nearly that, and how it differs) or `not_converted` (why not). `ledger.json` is `Ledger.as_json()`,
held to `schemas/import-ledger.v1.schema.json`; `ledger.md` is `render_markdown`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict

__all__ = ["LEDGER_SCHEMA", "LEDGER_VERSION", "LedgerRecord", "generate_schemas", "OUTCOMES", "Figures", "Ledger", "Outcome", "Row", "render_markdown", "summary_lines"]

LEDGER_VERSION = "1"
LEDGER_SCHEMA = "import-ledger.v1.schema.json"
Outcome = Literal["converted", "approximated", "not_converted"]
OUTCOMES: tuple[Outcome, ...] = ("converted", "approximated", "not_converted")


@dataclass(frozen=True)
class Row:
    """One call (or statement) of the source and what it became."""

    path: str
    line: int
    col: int
    #: the call as written, on one line (shortened past 160 characters)
    call: str
    outcome: Outcome
    #: what it became (converted), how it differs (approximated) or why not (not_converted)
    detail: str
    #: `call` for a call expression, `statement` for a statement with no call of its own counted
    kind: Literal["call", "statement"] = "call"

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    def as_json(self) -> dict[str, Any]:
        return {"at": self.where, "path": self.path, "line": self.line, "col": self.col, "kind": self.kind,
                "call": self.call, "outcome": self.outcome, "detail": self.detail}


def one_line(text: str, limit: int = 160) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[:limit - 3] + "..."


@dataclass
class Figures:
    """What the import kept, over every file: tests written whole and checks kept."""

    files: int = 0
    files_refused: int = 0
    tests: int = 0
    tests_whole: int = 0
    checks: int = 0
    checks_kept: int = 0

    def as_json(self) -> dict[str, int]:
        return dict(vars(self))


@dataclass
class Ledger:
    """Every row of an import, in source order per file, and the figures."""

    rows: list[Row] = field(default_factory=list)
    #: `path:line:col: error: ...` of each file that could not be imported at all
    refused: list[str] = field(default_factory=list)
    figures: Figures = field(default_factory=Figures)
    #: test title -> (spec written, whole) per test, in source order
    tests: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {outcome: sum(r.outcome == outcome for r in self.rows) for outcome in OUTCOMES}

    def as_json(self) -> dict[str, Any]:
        """The ledger as `ledger.json` holds it (checked against `LedgerRecord`, the schema's model)."""
        data = self._data()
        LedgerRecord.model_validate(data)
        return data

    def _data(self) -> dict[str, Any]:
        return {"ledger_version": LEDGER_VERSION, "figures": self.figures.as_json(), "counts": self.counts(),
                "refused": list(self.refused), "tests": list(self.tests), "rows": [r.as_json() for r in self.rows]}


def summary_lines(ledger: Ledger) -> list[str]:
    """The console's summary of an import."""
    f, c = ledger.figures, ledger.counts()
    lines = [f"imported {f.files - f.files_refused} of {f.files} file(s): {f.tests_whole} of {f.tests} test(s) written whole, "
             f"{f.checks_kept} of {f.checks} check(s) kept",
             f"ledger: {len(ledger.rows)} row(s): {c['converted']} converted, {c['approximated']} approximated, "
             f"{c['not_converted']} not converted"]
    lines += [f"  {r.where}: not converted: {r.call}\n    why: {r.detail}"
              for r in ledger.rows if r.outcome == "not_converted"][:20]
    lines += [f"  {t['at']}: not written: {t['title']}\n    why: {t['why']}" for t in ledger.tests if not t["file"]]
    lines += ledger.refused
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _not_whole(test: dict[str, Any]) -> str:
    return f"no: needs review ({_cell(test['why'])})" if test.get("why") else "no: needs review"


def render_markdown(ledger: Ledger) -> str:
    """`ledger.md`: the figures, then a table of every row."""
    out = ["# Import ledger", "", *summary_lines(ledger)[:2], ""]
    if ledger.refused:
        out += ["## Files not imported", "", *[f"- `{line.splitlines()[0]}`" for line in ledger.refused], ""]
    out += ["## Tests", "", "| test | written to | whole |", "|---|---|---|"]
    out += [f"| {_cell(t['title'])} | `{t['file']}` | {'yes' if t['whole'] else _not_whole(t)} |"
            for t in ledger.tests]
    out += ["", "## Calls", "", "| at | call | outcome | detail |", "|---|---|---|---|"]
    out += [f"| `{r.where}` | `{_cell(r.call)}` | {r.outcome.replace('_', ' ')} | {_cell(r.detail)} |"
            for r in ledger.rows]
    return "\n".join(out) + "\n"


# --- ledger.json's model, which schemas/import-ledger.v1.schema.json is generated from ---------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RowRecord(_Model):
    """One call (or statement) of the source and what it became."""

    #: `path:line:col` of the call's start (line and column from 1)
    at: str
    path: str
    line: int
    col: int
    kind: Literal["call", "statement"]
    #: the call as written, on one line
    call: str
    outcome: Outcome
    #: what it became, how it differs, or why it was not converted
    detail: str


class ImportedTestRecord(_Model):
    """One test of the source: the file it was written to and whether it is whole."""

    title: str
    at: str
    #: relative to the output folder; empty when nothing could be written (`why`)
    file: str
    whole: bool
    checks: Optional[int] = None
    kept: Optional[int] = None
    why: Optional[str] = None


class FiguresRecord(_Model):
    files: int
    files_refused: int
    tests: int
    tests_whole: int
    #: upstream's checks (each expect; a hook's once per test it runs for; a helper's once per call)
    checks: int
    #: of them, kept in tests written whole
    checks_kept: int


class LedgerRecord(_Model):
    """import/ledger.json"""

    model_config = ConfigDict(extra="forbid", strict=True, title="flowwalk import ledger")
    ledger_version: Literal["1"]
    figures: FiguresRecord
    counts: dict[Outcome, int]
    #: `path:line:col: error: ...` (and a hint line) of each file not imported
    refused: list[str]
    tests: list[ImportedTestRecord]
    rows: list[RowRecord]


def generate_schemas() -> dict[str, dict[str, Any]]:
    """The ledger's schema, in the form `spec.schemas` gives the input schemas."""
    from flowwalk.spec.schemas import generate_schema

    return {LEDGER_SCHEMA: generate_schema(LedgerRecord, LEDGER_SCHEMA, "flowwalk import ledger",
                                           "import/ledger.json: every call of an imported suite and what it "
                                           "became, the tests written and the figures (`flowwalk import`).")}
