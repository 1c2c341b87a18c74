"""The emit.jsonl and verdict.json schemas: every record we write validates, and the schemas track
the dataclasses in events.py (a field added there without the schema fails here)."""

from __future__ import annotations

import dataclasses
import json
import typing
from pathlib import Path
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from flowwalk import events
from flowwalk.exitcodes import OUTCOME_EXIT, Outcome
from flowwalk.model import FAILURE_CLASSES, STEP_KINDS
from flowwalk.plan.shard import plan_run
from flowwalk.report.merge import merge_reports
from flowwalk.report.records import read_run
from sample_run import sample_events, sample_suites, write_sample_run
from flowwalk.report.verdict import build_verdict
from flowwalk.report.verdict_json import verdict_data
from flowwalk.settings import Settings

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
EMIT = json.loads((SCHEMAS / "emit-event.v1.schema.json").read_text())
VERDICT = json.loads((SCHEMAS / "verdict.v1.schema.json").read_text())
REGISTRY = Registry().with_resources([(EMIT["$id"], Resource.from_contents(EMIT)),
                                      (VERDICT["$id"], Resource.from_contents(VERDICT))])
EMIT_VALIDATOR = Draft202012Validator(EMIT, registry=REGISTRY, format_checker=Draft202012Validator.FORMAT_CHECKER)
VERDICT_VALIDATOR = Draft202012Validator(VERDICT, registry=REGISTRY)


def runs(tmp_path: Path) -> list[Path]:
    suites = sample_suites(extra=30)
    folders = []
    for name, (k, n), kw in [("plain", (1, 1), {}), ("cancelled", (1, 1), {"cancel_after": 4}),
                             ("no-retries", (1, 1), {"retries": 0, "flaky_policy": "fail"}),
                             ("s1", (1, 3), {}), ("s3", (3, 3), {})]:
        plan = plan_run(suites, Settings(shard_index=k, shard_total=n))
        write_sample_run(tmp_path / name, sample_events(suites, plan.record(), **kw))  # type: ignore[arg-type]
        folders.append(tmp_path / name)
    merge_reports([tmp_path / "s1", tmp_path / "s3"], tmp_path / "merged")
    return [*folders, tmp_path / "merged"]


def test_the_schemas_are_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(EMIT)
    Draft202012Validator.check_schema(VERDICT)


def test_every_record_of_every_synthetic_run_validates(tmp_path: Path) -> None:
    seen: set[str] = set()
    for folder in runs(tmp_path):
        for number, line in enumerate((folder / "emit.jsonl").read_text().splitlines(), start=1):
            record = json.loads(line)
            errors = [e.message for e in EMIT_VALIDATOR.iter_errors(record)]
            assert not errors, f"{folder.name}/emit.jsonl:{number}: {errors[:3]}"
            seen.add(record["event"])
    assert seen == set(events._EVENT_NAMES.values())  # every kind of record was exercised


def test_every_verdict_validates(tmp_path: Path) -> None:
    for folder in runs(tmp_path):
        verdict = verdict_data(build_verdict(read_run(folder)))
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in VERDICT_VALIDATOR.iter_errors(verdict)]
        assert not errors, f"{folder.name}: {errors[:3]}"


def _fields(cls: type) -> tuple[set[str], set[str]]:
    every = {f.name for f in dataclasses.fields(cls)}
    required = {f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    return every, required


@pytest.mark.parametrize("cls, name", sorted(events._EVENT_NAMES.items(), key=lambda p: p[1]))
def test_each_event_schema_matches_its_dataclass(cls: type, name: str) -> None:
    every, required = _fields(cls)
    definition = EMIT["$defs"][name]
    assert set(definition["properties"]) == every | {"event"}
    assert set(definition["required"]) >= required | {"event"}
    assert definition["additionalProperties"] is False
    assert {"$ref": f"#/$defs/{name}"} in EMIT["oneOf"]


@pytest.mark.parametrize("cls, name", [(events.Failure, "failure"), (events.Finding, "finding"),
                                       (events.Heal, "heal"), (events.RecoveryAttempt, "recovery")])
def test_each_result_schema_matches_its_dataclass(cls: type, name: str) -> None:
    every, required = _fields(cls)
    assert set(EMIT["$defs"][name]["properties"]) == every
    assert set(EMIT["$defs"][name]["required"]) == required


def test_a_steps_evidence_and_a_failures_context_are_documented_key_by_key() -> None:
    # declared once (events.StepEvidence, events.FailureContext); the schema documents each key
    detail = EMIT["$defs"]["step_finished"]["properties"]["detail"]["properties"]
    assert list(detail) == list(typing.get_type_hints(events.StepEvidence))
    assert all(entry.get("description") for entry in detail.values())
    context = EMIT["$defs"]["failure"]["properties"]["context"]["properties"]
    assert list(context) == [f.name for f in dataclasses.fields(events.FailureContext)]


@pytest.mark.parametrize("where, vocabulary", [
    ("failure/failure_class", events.FailureClass),
    ("failure/step_kind", events.FailureStepKind),
    ("step_finished/kind", events.StepKind),
    ("step_finished/role", events.Role),
    ("step_finished/status", events.StepStatus),
    ("rule_finished/status", events.Status),
    ("rule_finished/reason", events.SkipReason),
    ("scenario_finished/status", events.Status),
    ("finding/severity", events.Severity),
    ("finding/source", events.FindingSource),
    ("recovery/outcome", events.RecoveryOutcome),
])
def test_each_enum_is_its_vocabulary_in_events(where: str, vocabulary: Any) -> None:
    definition, field = where.split("/")
    assert EMIT["$defs"][definition]["properties"][field]["enum"] == list(get_args(vocabulary))


def test_the_verdict_outcomes_are_the_exit_rules() -> None:
    assert VERDICT["properties"]["outcome"]["enum"] == list(get_args(Outcome))
    assert VERDICT["properties"]["exit_code"]["enum"] == sorted({int(c) for c in OUTCOME_EXIT.values()})


def test_vocabularies_are_the_models() -> None:
    failure = EMIT["$defs"]["failure"]["properties"]
    assert failure["failure_class"]["enum"] == list(FAILURE_CLASSES)
    assert failure["step_kind"]["enum"] == list(STEP_KINDS)
    assert VERDICT["$defs"]["ByClass"]["required"] == list(FAILURE_CLASSES)


@pytest.mark.parametrize("change, complaint", [
    ({"status": "done"}, "'done' is not one of"),
    ({"surprise": 1}, "Additional properties are not allowed"),
    ({"attempt": 0}, "0 is less than the minimum of 1"),
])
def test_a_wrong_record_is_refused(change: dict[str, Any], complaint: str) -> None:
    record = events.RuleFinished(scenario_id="a#a", rule="a", test_id="a#a", attempt=1, status="passed",
                                 duration_ms=1.0, path="a.flow.yaml", line=1).record()
    assert EMIT_VALIDATOR.is_valid(record)
    record.update(change)
    # oneOf reports "not valid under any"; the detail is in the rule_finished branch
    messages = [sub.message for error in EMIT_VALIDATOR.iter_errors(record) for sub in (error.context or [error])]
    assert any(complaint in m for m in messages), messages
