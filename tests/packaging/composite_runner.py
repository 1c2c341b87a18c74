"""composite/action.yml's steps, run one at a time the way GitHub's runner runs them.

Each input becomes the `${{ inputs.* }}` it maps, each step's $GITHUB_OUTPUT is read back into
`steps.*.outputs`, and `actions/setup-python` is stood in for by an interpreter the caller names.
`execute` runs a step's script on this machine; tests/container/ runs it inside a container.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Mapping

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "github"))
from test_actions import parse_output_file  # noqa: E402  (reads $GITHUB_OUTPUT as the runner does)

COMPOSITE = ROOT / "composite"
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class CompositeRunner:
    """composite/action.yml's steps, run one at a time the way the runner runs them."""

    def __init__(self, inputs: Mapping[str, str], workspace: Path, temp: Path, env: Mapping[str, str]):
        action = yaml.safe_load((COMPOSITE / "action.yml").read_text(encoding="utf-8"))
        self.steps = {step["id"]: step for step in action["runs"]["steps"]}
        self.output_values = {name: spec["value"] for name, spec in action["outputs"].items()}
        defaults = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
        self.inputs = {**defaults, **inputs}
        self.workspace, self.temp, self.env = workspace, temp, dict(env)
        self.outputs: dict[str, dict[str, str]] = {}

    def evaluate(self, text: str) -> str:
        def value(match: re.Match[str]) -> str:
            parts = match.group(1).split(".")
            if parts[0] == "inputs" and len(parts) == 2:
                return self.inputs[parts[1]]
            if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
                return self.outputs[parts[1]][parts[3]]
            raise AssertionError(f"the test's runner does not know the expression {match.group(0)!r}")
        return _EXPRESSION.sub(value, text)

    #: what actions/setup-python hands over, and where the runner keeps the action's files
    python_path = sys.executable
    action_path = COMPOSITE

    def run(self, step_id: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        step = self.steps[step_id]
        if "uses" in step:  # only setup-python: give it this interpreter, kept off PATH as asked
            assert str(step["uses"]).startswith("actions/setup-python@") and step["with"]["update-environment"] is False
            self.outputs[step_id] = {"python-path": str(self.python_path)}
            return subprocess.CompletedProcess([], 0, "", "")
        assert step["shell"] == "bash"
        output_file = self.temp / f"output-{step_id}"
        env = {**self.env, **{k: self.evaluate(str(v)) for k, v in step.get("env", {}).items()},
               "GITHUB_ACTION_PATH": str(self.action_path), "GITHUB_OUTPUT": str(output_file),
               "GITHUB_WORKSPACE": str(self.workspace), "RUNNER_TEMP": str(self.temp), **extra_env}
        script = self.temp / f"step-{step_id}.sh"
        script.write_text(self.evaluate(step["run"]), encoding="utf-8")
        done = self.execute(script, env)
        self.outputs[step_id] = parse_output_file(output_file.read_text(encoding="utf-8")) if output_file.exists() else {}
        return done

    def execute(self, script: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
        """A step's script, as the runner runs `shell: bash`."""
        return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.workspace,
                              env=dict(env), capture_output=True, text=True, timeout=600)

    def action_outputs(self) -> dict[str, str]:
        return {name: self.evaluate(value) for name, value in self.output_values.items()}
