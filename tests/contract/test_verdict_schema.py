"""verdict.json: the committed schema is the one generated from report/verdict_model.py, and the one
writer and reader keep a verdict's bytes and records through a round trip."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from flowwalk.errors import UsageError
from flowwalk.model import FAILURE_CLASSES
from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.report.verdict_json import (SCHEMA_FILE, parse_verdict, read_verdict, verdict_data, verdict_schema,
                                          verdict_text, write_verdict)
from flowwalk.report.verdict_model import ByClass, Verdict
from flowwalk.settings import Settings
from flowwalk.spec.schemas import render
from sample_run import sample_events, sample_suites, write_sample_run

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_committed_verdict_schema_equals_the_generated_one() -> None:
    committed = SCHEMAS / SCHEMA_FILE
    assert committed.read_text(encoding="utf-8") == render(verdict_schema()), (
        f"schemas/{SCHEMA_FILE} drifted from report/verdict_model.py: run `flowwalk schema` and commit the result")


def test_the_verdict_schema_is_draft_2020_12_and_refers_to_the_emit_records() -> None:
    schema = verdict_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$id"].endswith(SCHEMA_FILE)
    assert schema["$defs"]["Failure"] == {"$ref": "emit-event.v1.schema.json#/$defs/failure"}
    assert schema["$defs"]["Finding"] == {"$ref": "emit-event.v1.schema.json#/$defs/finding"}
    # the emit records' own parts are described there, not copied here
    assert "Heal" not in schema["$defs"] and "Baseline" not in schema["$defs"]


def test_by_class_holds_every_failure_class_in_order() -> None:
    assert [f.name for f in dataclasses.fields(ByClass)] == list(FAILURE_CLASSES)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("run")
    suites = sample_suites(extra=5)
    plan = plan_run(suites, Settings())
    write_sample_run(folder, sample_events(suites, plan.record()))  # type: ignore[arg-type]
    build_reports(folder, warn=False)
    return folder


def test_a_verdict_reads_back_into_the_records_it_was_written_from(run_folder: Path, tmp_path: Path) -> None:
    path = run_folder / "verdict.json"
    verdict = read_verdict(path)
    assert isinstance(verdict, Verdict) and verdict.tests and verdict.root_causes
    assert verdict_text(verdict) == path.read_text(encoding="utf-8")
    assert parse_verdict(json.loads(path.read_text(encoding="utf-8"))) == verdict
    copy = write_verdict(tmp_path / "verdict.json", verdict)
    assert copy.read_bytes() == path.read_bytes()
    # a whole-run verdict leaves `shards.shard` out; a shard's own verdict names it
    assert "shard" not in verdict_data(verdict)["shards"]
    shard = dataclasses.replace(verdict, shards=dataclasses.replace(verdict.shards, shard=2, total=3))
    assert verdict_data(shard)["shards"]["shard"] == 2 and parse_verdict(verdict_data(shard)) == shard


@pytest.mark.parametrize("change, complaint", [
    (lambda d: d["tests"][0].update(status="done"), "tests.0.status: Input should be"),
    (lambda d: d.update(surprise=1), "surprise: Unexpected keyword argument"),
    (lambda d: d["counts"].pop("total"), "counts.total: Field required"),
    (lambda d: d.update(schema="flowwalk.verdict/9"), 'schema "flowwalk.verdict/9" is not flowwalk.verdict/1'),
])
def test_a_wrong_verdict_is_refused_naming_the_field(run_folder: Path, tmp_path: Path, change, complaint) -> None:
    data = json.loads((run_folder / "verdict.json").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "verdict.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        read_verdict(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:1:1: error: ") and complaint in message
    assert f"hint: rebuild it with `flowwalk report {tmp_path}`" in message


def test_a_file_that_is_not_json_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "verdict.json"
    path.write_text('{"schema":\n  nope}', encoding="utf-8")
    with pytest.raises(UsageError, match=r"verdict.json:2:3: error: verdict.json is not JSON"):
        read_verdict(path)
