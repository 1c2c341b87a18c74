"""JSON Schemas (Draft 2020-12) of the input formats, generated from the pydantic models.

`flowwalk schema` writes them into `schemas/`; a contract test fails when the committed files and
the generated ones differ, so the schemas and the validator cannot drift. The schemas enforce shape
and limits; the cross-field rules they cannot express are listed in `docs/flow-spec.md`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from flowwalk.spec.models import ConfigModel, FlowSpecModel, QuarantineFileModel, RulesFileModel, StepsFileModel

DRAFT = "https://json-schema.org/draft/2020-12/schema"
#: the same base as the other schemas in schemas/ (emit-event, verdict, crawl)
ID_BASE = "https://flowwalk.dev/schemas/"

#: file name -> (model, title, description)
INPUT_SCHEMAS: dict[str, tuple[type[BaseModel], str, str]] = {
    "flow-spec.v1.schema.json": (
        FlowSpecModel, "flow-spec v1",
        "One browser flow (flow-spec v1; spec_version \"1.1\" adds the documented v1.x step additions)."),
    "rules.v1.schema.json": (
        RulesFileModel, "flowwalk rule file v1",
        "A verification: scenarios, each an entry URL and a DAG of rules (*.rules.yaml)."),
    "steps.v1.schema.json": (
        StepsFileModel, "flowwalk steps file v1",
        "Steps a flow or a rule runs with `use:` (*.steps.yaml), and the typed parameters they take; a number, "
        "boolean or list field of a step may hold a whole placeholder of a parameter (\"{{count}}\")."),
    "config.v1.schema.json": (
        ConfigModel, "flowwalk.yaml",
        "Run defaults for flowwalk; command-line options and environment variables win over them."),
    "quarantine.v1.schema.json": (
        QuarantineFileModel, "flowwalk quarantine file v1",
        "Known-flaky tests (flowwalk-quarantine.yaml): each still runs and is reported, but does not fail the job "
        "until its expiry."),
}


def _clean(node: Any) -> Any:
    """Pure JSON Schema: drop OpenAPI's `discriminator` and the auto-generated property titles."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "discriminator":
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _clean({k: v for k, v in prop.items() if k != "title"})
                            for name, prop in value.items()}
                continue
            out[key] = _clean(value)
        # dict fields with constrained keys: pydantic emits patternProperties; other keys must fail too
        if "patternProperties" in out and "additionalProperties" not in out:
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


#: a whole-value placeholder of a parameter: what a steps file may write where a number, a boolean or
#: a list goes (spec/calls.py binds the argument itself there)
PLACEHOLDER_PATTERN = r"^\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}$"
_TYPED = ("integer", "number", "boolean", "array")


def _typed(node: dict[str, Any]) -> bool:
    return node.get("type") in _TYPED or any(isinstance(a, dict) and a.get("type") in _TYPED
                                             for a in node.get("anyOf", ()))


def _placeholders_allowed(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with a whole placeholder accepted in every typed field of a step (not at the top
    level: a spec's own keys take no placeholder)."""
    for name, definition in schema.get("$defs", {}).items():
        if name in ("ParamModel", "StabilizeModel", "ViewportModel", "GeolocationModel"):
            continue
        for key, prop in (definition.get("properties") or {}).items():
            if key != "steps" and isinstance(prop, dict) and _typed(prop):
                definition["properties"][key] = {"anyOf": [
                    {k: v for k, v in prop.items() if k != "default"},
                    {"type": "string", "pattern": PLACEHOLDER_PATTERN}], **(
                    {"default": prop["default"]} if "default" in prop else {})}
    return schema


def generate_schema(model: type[BaseModel], name: str, title: str, description: str) -> dict[str, Any]:
    body = _clean(model.model_json_schema(mode="validation"))
    if model in (StepsFileModel, FlowSpecModel):
        # a data table's column or a parameter may fill a typed field (the validator checks which)
        body = _placeholders_allowed(body)
    body["title"] = title
    body["description"] = description
    return {"$schema": DRAFT, "$id": ID_BASE + name, **body}


def generate_schemas() -> dict[str, dict[str, Any]]:
    """The input schemas by file name. `app.reports.schema_texts` adds discover's crawl.json; the
    verdict schema comes from report/verdict_model.py; the emit-event schema is hand-written."""
    return {name: generate_schema(model, name, title, desc) for name, (model, title, desc) in INPUT_SCHEMAS.items()}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"

