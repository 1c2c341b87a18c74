"""`flowwalk merge`, `flowwalk report` and `flowwalk schema`: the commands over report folders and
the generated schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from flowwalk.discover.record import generate_schemas as crawl_schemas
from flowwalk.importer.ledger import generate_schemas as ledger_schemas
from flowwalk.report.build import build_reports
from flowwalk.report.merge import MergeResult, merge_reports
from flowwalk.report.verdict_json import SCHEMA_FILE as VERDICT_SCHEMA_FILE, verdict_schema
from flowwalk.report.verdict_model import Verdict
from flowwalk.spec.schemas import generate_schemas as input_schemas, render

__all__ = ["merge", "rebuild", "schema_texts", "write_schemas"]


def merge(dirs: Sequence[str | Path], out_dir: str | Path) -> MergeResult:
    return merge_reports(dirs, out_dir)


def rebuild(report_dir: str | Path) -> Verdict:
    """`flowwalk report DIR`: every report rebuilt from the folder's emit.jsonl; the verdict."""
    return build_reports(Path(report_dir))


def schema_texts() -> dict[str, str]:
    """Every schema `flowwalk schema` writes, as its file's text, by file name: the inputs' (spec/),
    and the outputs generated from their models the same way: discover's crawl.json, verdict.json and
    import's ledger.json."""
    outputs = {**crawl_schemas(), VERDICT_SCHEMA_FILE: verdict_schema(), **ledger_schemas()}
    return {name: render(schema) for name, schema in {**input_schemas(), **outputs}.items()}


def write_schemas(out_dir: str | Path) -> list[Path]:
    """`flowwalk schema --out DIR`: write every schema into DIR; the files written."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_texts().items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written
