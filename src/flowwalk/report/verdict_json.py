"""verdict.json on disk: the one writer, the one reader, and the schema both follow.

`write_verdict(path, verdict)` writes a `Verdict` (report/verdict_model.py) as verdict.json;
`read_verdict(path)` reads one back into the same records, validated, or raises `UsageError` naming
the field that is wrong. `verdict_data` and `parse_verdict` are the same pair over JSON data (the
MCP resources and the tests). `verdict_schema()` is `schemas/verdict.v1.schema.json`, generated from
the records; a test holds the committed file to it.

The bytes are fixed: fields in declaration order, two-space indent, non-ASCII kept, one newline at
the end, `shards.shard` left out when the verdict covers the whole run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from flowwalk.errors import UsageError
from flowwalk.events import to_json
from flowwalk.report.atomic import write_atomic
from flowwalk.report.verdict_model import VERDICT_SCHEMA, Shards, Verdict

__all__ = ["parse_verdict", "read_verdict", "shards_data", "verdict_data", "verdict_schema", "verdict_text", "write_verdict"]

SCHEMA_FILE = "verdict.v1.schema.json"
_ID = "https://flowwalk.dev/schemas/" + SCHEMA_FILE
#: records verdict.json carries as emit.jsonl writes them: the schema refers to the emit schema's definition
_EMIT_DEFS = {"Failure": "failure", "Finding": "finding"}
_ADAPTER: TypeAdapter[Verdict] = TypeAdapter(Verdict)


def verdict_data(verdict: Verdict) -> dict[str, Any]:
    """The verdict as the JSON object verdict.json holds."""
    data: dict[str, Any] = to_json(verdict)
    data["shards"] = shards_data(verdict.shards)
    return data


def shards_data(shards: Shards) -> dict[str, Any]:
    """`shards` as verdict.json holds it: `shard` left out when the verdict covers the whole run."""
    data: dict[str, Any] = to_json(shards)
    if data["shard"] is None:
        del data["shard"]
    return data


def verdict_text(verdict: Verdict) -> str:
    """verdict.json's text."""
    return json.dumps(verdict_data(verdict), indent=2, ensure_ascii=False) + "\n"


def write_verdict(path: str | Path, verdict: Verdict) -> Path:
    """Write verdict.json atomically (a reader never sees half of it); the path written."""
    return write_atomic(Path(path), verdict_text(verdict))


def parse_verdict(data: Any, where: str = "verdict.json", folder: str = "DIR") -> Verdict:
    """The Verdict a JSON object holds; UsageError (`where:1:1: error: ...`, the field and what is
    wrong with it, and `flowwalk report FOLDER` to rebuild it) when it is not a flowwalk.verdict/1 object."""
    if isinstance(data, dict) and data.get("schema") != VERDICT_SCHEMA:
        raise UsageError(f"{where}:1:1: error: schema {json.dumps(data.get('schema'))} is not {VERDICT_SCHEMA}\n"
                         f"  hint: rebuild it with `flowwalk report {folder}`")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the top level"
        more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
        raise UsageError(f"{where}:1:1: error: not a {VERDICT_SCHEMA} file: {field}: {first['msg']}{more}\n"
                         f"  hint: rebuild it with `flowwalk report {folder}`") from None


def read_verdict(path: str | Path) -> Verdict:
    """verdict.json read back into its records. A missing file raises FileNotFoundError (the caller
    knows what to suggest); a file that is not JSON or not a verdict raises UsageError."""
    file = Path(path)
    text = file.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except ValueError as error:
        line, col = getattr(error, "lineno", 1), getattr(error, "colno", 1)
        raise UsageError(f"{file}:{line}:{col}: error: verdict.json is not JSON ({error})\n"
                         f"  hint: rebuild it with `flowwalk report {file.parent}`") from None
    return parse_verdict(data, str(file), str(file.parent))


def verdict_schema() -> dict[str, Any]:
    """schemas/verdict.v1.schema.json: the JSON Schema of `Verdict`, a test's failure and findings
    referring to emit-event.v1.schema.json's definitions."""
    body = _ADAPTER.json_schema(mode="validation", ref_template="#/$defs/{model}")
    defs: dict[str, Any] = body.pop("$defs", {})
    for name, emit_name in _EMIT_DEFS.items():
        defs[name] = {"$ref": f"emit-event.v1.schema.json#/$defs/{emit_name}"}
    used = _referenced(body, defs)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": _ID, **_clean(body),
              "title": f"flowwalk verdict.json ({VERDICT_SCHEMA})"}
    schema["$defs"] = {name: _clean(defs[name]) for name in sorted(used)}
    return schema


def _referenced(node: Any, defs: dict[str, Any]) -> set[str]:
    """The $defs names reachable from the schema's own properties."""
    seen: set[str] = set()
    stack = [node["properties"]]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in seen:
                seen.add(ref[8:])
                stack.append(defs[ref[8:]])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return seen


def _clean(node: Any) -> Any:
    """The schema without the titles pydantic makes up for each property."""
    if isinstance(node, dict):
        return {key: ({name: _clean({k: v for k, v in prop.items() if k != "title"}) for name, prop in value.items()}
                      if key == "properties" and isinstance(value, dict) else _clean(value))
                for key, value in node.items()}
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node
