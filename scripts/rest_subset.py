"""Add operations to tests/github/data/rest-subset.json from GitHub's own OpenAPI description.

The description comes from the npm package @octokit/openapi (`generated/api.github.com.json`, the
same document as github/rest-api-description plus `x-octokit` extensions, which are dropped):

    cd "$(mktemp -d)" && npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
    python scripts/rest_subset.py "$PWD/package" pulls/list-review-comments pulls/create-review-comment

Each named operation is copied with every component it references (recursively). Components the
subset already holds are kept as they are, so the operations already in it do not change; the
`x-subset` key records what was added and from which package version.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SUBSET = Path(__file__).resolve().parents[1] / "tests" / "github" / "data" / "rest-subset.json"


def _strip(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip(v) for k, v in node.items() if k != "x-octokit"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/"):
            found.add(ref)
        for value in node.values():
            found |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            found |= _refs(value)
    return found


def main(package: Path, operation_ids: list[str]) -> None:
    source = json.loads((package / "generated" / "api.github.com.json").read_text(encoding="utf-8"))
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    subset = json.loads(SUBSET.read_text(encoding="utf-8"))
    wanted = set(operation_ids)
    for path, item in source["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") in wanted:
                subset["paths"].setdefault(path, {})[method] = _strip(operation)
                wanted.discard(operation["operationId"])
    if wanted:
        raise SystemExit(f"not in the description: {', '.join(sorted(wanted))}")
    todo = _refs(subset["paths"])
    seen: set[str] = set()
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        _, _, kind, name = ref.split("/", 3)
        held = subset["components"].setdefault(kind, {})
        if name not in held:
            held[name] = _strip(source["components"][kind][name])
        todo |= _refs(held[name])
    info = subset["x-subset"]
    info["operationIds"] = list(dict.fromkeys([*info["operationIds"], *operation_ids]))
    added = info.setdefault("added_from_npm", [])
    added.append({"package": f"@octokit/openapi@{version}", "path": "generated/api.github.com.json",
                  "operationIds": operation_ids})
    SUBSET.write_text(json.dumps(subset, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:])
