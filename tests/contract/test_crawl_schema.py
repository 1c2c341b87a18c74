"""schemas/crawl.v1.schema.json is the one generated from discover's crawl.json model."""

from __future__ import annotations

from pathlib import Path

from jsonschema import Draft202012Validator

from flowwalk.discover.record import CRAWL_SCHEMA, generate_schemas
from flowwalk.spec.schemas import render

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_committed_crawl_schema_equals_the_generated_one() -> None:
    committed = SCHEMAS / CRAWL_SCHEMA
    assert committed.is_file(), f"schemas/{CRAWL_SCHEMA} is missing: run `flowwalk schema`"
    assert committed.read_text(encoding="utf-8") == render(generate_schemas()[CRAWL_SCHEMA]), (
        f"schemas/{CRAWL_SCHEMA} drifted from discover/record.py: run `flowwalk schema` and commit the result")


def test_crawl_schema_is_draft_2020_12_with_an_id() -> None:
    schema = generate_schemas()[CRAWL_SCHEMA]
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(CRAWL_SCHEMA)
