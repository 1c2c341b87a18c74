"""The committed JSON Schemas are the generated ones, and schemas and models agree on the corpus.

Bad corpus files are named by what refuses them: `parse-*` (not a document at all), `shape-*`
(shape and limits: the models AND the JSON Schema refuse them) and `rule-*` (rules JSON Schema
cannot express; the models refuse them, the schema may not: listed in docs/flow-spec.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from flowwalk.errors import SpecError
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites
from flowwalk.app.reports import schema_texts, write_schemas
from flowwalk.spec.schemas import INPUT_SCHEMAS, generate_schemas, render
from flowwalk.spec.source import load_source

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
CORPUS = REPO / "tests" / "corpus"
SETTINGS = Settings(secret_names=("PASSWORD", "API_TOKEN"))
SCHEMA_OF = {"flows": "flow-spec.v1.schema.json", "rules": "rules.v1.schema.json", "steps": "steps.v1.schema.json"}
KINDS = list(SCHEMA_OF)


def files(kind: str, verdict: str, prefix: str = "") -> list[Path]:
    folder = CORPUS / kind / verdict
    return sorted(p for p in folder.iterdir()
                  if p.suffix in (".yaml", ".yml", ".json") and p.name.startswith(prefix))


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(generate_schemas()[SCHEMA_OF[kind]])


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


@pytest.mark.parametrize("name", sorted(INPUT_SCHEMAS))
def test_committed_schema_equals_the_generated_one(name: str) -> None:
    committed = SCHEMAS / name
    assert committed.is_file(), f"schemas/{name} is missing: run `flowwalk schema`"
    assert committed.read_text(encoding="utf-8") == render(generate_schemas()[name]), (
        f"schemas/{name} drifted from the models: run `flowwalk schema` and commit the result")


@pytest.mark.parametrize("name", sorted(INPUT_SCHEMAS))
def test_schemas_are_valid_draft_2020_12_with_an_id(name: str) -> None:
    schema = generate_schemas()[name]
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(name)
    assert "discriminator" not in json.dumps(schema)  # an OpenAPI keyword, not JSON Schema


def test_write_schemas_writes_what_is_committed(tmp_path: Path) -> None:
    assert tmp_path / "crawl.v1.schema.json" in write_schemas(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(schema_texts())
    for name in schema_texts():
        assert (tmp_path / name).read_text(encoding="utf-8") == (SCHEMAS / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", KINDS)
def test_good_corpus_is_valid_under_models_and_schema(kind: str) -> None:
    check = validator(kind)
    called = sorted(p for p in (CORPUS / "flows" / "steps").iterdir()
                    if not p.name.startswith("loop-")) if kind == "steps" else []
    for path in files(kind, "good") + called:
        rel = path.relative_to(REPO).as_posix()
        load_suites([rel], SETTINGS)  # raises on any problem
        errors = [e.message for e in check.iter_errors(load_source(path, rel).data)]
        assert errors == [], f"{rel}: {errors}"


@pytest.mark.parametrize("kind", KINDS)
def test_shape_errors_are_refused_by_models_and_schema(kind: str) -> None:
    check = validator(kind)
    shape = files(kind, "bad", "shape-")
    assert shape, "the corpus has shape errors"
    for path in shape:
        rel = path.relative_to(REPO).as_posix()
        with pytest.raises(SpecError):
            load_suites([rel], SETTINGS)
        assert list(check.iter_errors(load_source(path, rel).data)), f"{rel} passes the JSON Schema"


@pytest.mark.parametrize("kind", KINDS)
def test_model_only_rules_are_refused_by_the_models(kind: str) -> None:
    for path in files(kind, "bad", "rule-"):
        rel = path.relative_to(REPO).as_posix()
        with pytest.raises(SpecError):
            load_suites([rel], SETTINGS)


def test_every_bad_file_says_what_refuses_it() -> None:
    for kind in KINDS:
        for path in files(kind, "bad"):
            assert path.name.split("-", 1)[0] in ("parse", "shape", "rule"), path.name


def test_config_schema_accepts_a_full_config_and_refuses_unknown_keys() -> None:
    check = Draft202012Validator(generate_schemas()["config.v1.schema.json"])
    good = {"base_url": "https://staging.example.com", "variables": {"A": 1, "B": "x"}, "secrets": ["TOKEN"],
            "workers": 2, "stabilize": {"window_ms": 800}, "comment_mode": "on-failure", "run_timeout_s": 90.5}
    assert list(check.iter_errors(good)) == []
    assert list(check.iter_errors({"retires": 2}))
    assert list(check.iter_errors({"variables": {"bad-name": "x"}}))
