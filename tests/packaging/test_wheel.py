"""The package as a release ships it, and the composite action that installs it.

The sdist and the wheel are built as release.yml builds them (`python -m build`: the wheel from
the sdist; here without build isolation, so no download), checked with `twine check --strict`, and
the wheel is installed into a fresh virtual environment by composite/action.yml's own install step
(`FLOWWALK_PACKAGE` pointed at the wheel instead of the release on PyPI). From there, with nothing
of this checkout on the path, `flowwalk --version`, `flowwalk validate examples/` and a report
rebuilt from an emit.jsonl must work: the schemas and the report's CSS and JavaScript travel
inside the wheel.

The last test runs the composite action's remaining steps as the runner would (each input as the
`${{ inputs.* }}` it maps, each step's $GITHUB_OUTPUT read back into `steps.*.outputs`) over an
example flow in Chromium, and reads the action's outputs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest
import yaml

from flowwalk import __version__
from flowwalk.github.inputs import ACTION_INPUTS, ACTION_OUTPUTS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "github"))
from test_actions import parse_output_file  # noqa: E402  (reads $GITHUB_OUTPUT as the runner does)

COMPOSITE = ROOT / "composite"
SCHEMAS = sorted(p.name for p in (ROOT / "schemas").glob("*.json"))
ASSETS = ("report.css", "report.js")
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would put the checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GITHUB_ACTIONS")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return {**env, **extra}


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

    def run(self, step_id: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        step = self.steps[step_id]
        if "uses" in step:  # only setup-python: give it this interpreter, kept off PATH as asked
            assert str(step["uses"]).startswith("actions/setup-python@") and step["with"]["update-environment"] is False
            self.outputs[step_id] = {"python-path": sys.executable}
            return subprocess.CompletedProcess([], 0, "", "")
        assert step["shell"] == "bash"
        output_file = self.temp / f"output-{step_id}"
        env = {**self.env, **{k: self.evaluate(str(v)) for k, v in step.get("env", {}).items()},
               "GITHUB_ACTION_PATH": str(COMPOSITE), "GITHUB_OUTPUT": str(output_file),
               "GITHUB_WORKSPACE": str(self.workspace), "RUNNER_TEMP": str(self.temp), **extra_env}
        script = self.temp / f"step-{step_id}.sh"
        script.write_text(self.evaluate(step["run"]), encoding="utf-8")
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=self.workspace,
                              env=env, capture_output=True, text=True, timeout=600)
        self.outputs[step_id] = parse_output_file(output_file.read_text(encoding="utf-8")) if output_file.exists() else {}
        return done

    def action_outputs(self) -> dict[str, str]:
        return {name: self.evaluate(value) for name, value in self.output_values.items()}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=300, env=_clean_env())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("flowwalk-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CompositeRunner]:
    """The wheel in a fresh virtual environment, installed by the composite action's own steps."""
    temp = tmp_path_factory.mktemp("runner-temp")
    runner = CompositeRunner({"token": ""}, ROOT, temp, _clean_env(FLOWWALK_PACKAGE=str(wheel)))
    runner.run("python")
    done = runner.run("install")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"installing {wheel}" in done.stdout
    yield runner


def _venv_python(runner: CompositeRunner) -> Path:
    return Path(runner.outputs["install"]["python"])


def test_the_sdist_and_the_wheel_pass_twine_check(dist: Path) -> None:
    files = sorted(map(str, dist.iterdir()))
    assert [Path(f).name for f in files] == [f"flowwalk-{__version__}-py3-none-any.whl", f"flowwalk-{__version__}.tar.gz"]
    done = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files], capture_output=True, text=True,
                          timeout=120, env=_clean_env())
    assert done.returncode == 0 and done.stdout.count("PASSED") == 2, done.stdout + done.stderr


def test_the_wheel_and_the_sdist_carry_the_schemas_and_the_report_assets(dist: Path, wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for schema in SCHEMAS:
        assert f"flowwalk/schemas/{schema}" in names, schema
        assert zipfile.ZipFile(wheel).read(f"flowwalk/schemas/{schema}") == (ROOT / "schemas" / schema).read_bytes()
    for asset in ASSETS:
        assert f"flowwalk/report/{asset}" in names
    assert "flowwalk/py.typed" in names
    assert not [n for n in names if n.startswith(("tests/", "examples/", "bench/"))]
    (sdist,) = dist.glob("*.tar.gz")
    members = set(tarfile.open(sdist).getnames())
    prefix = f"flowwalk-{__version__}/src/flowwalk"
    assert {f"{prefix}/schemas/{s}" for s in SCHEMAS} | {f"{prefix}/report/{a}" for a in ASSETS} <= members


def test_the_installed_flowwalk_is_the_wheels_not_this_checkout(installed: CompositeRunner, tmp_path: Path) -> None:
    python = _venv_python(installed)
    assert python.is_relative_to(installed.temp)
    where = subprocess.run([str(python), "-c", "import flowwalk; print(flowwalk.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, env=_clean_env(), timeout=60)
    assert Path(where.stdout.strip()).is_relative_to(python.parents[1]), where.stdout + where.stderr
    version = subprocess.run([str(python.parent / "flowwalk"), "--version"], cwd=tmp_path, capture_output=True,
                             text=True, env=_clean_env(), timeout=60)
    assert version.returncode == 0 and version.stdout.strip() == f"flowwalk, version {__version__}"


def test_the_wheel_alone_validates_the_examples(installed: CompositeRunner) -> None:
    done = subprocess.run([str(_venv_python(installed).parent / "flowwalk"), "validate", "examples/",
                           "--secret", "DEMO_PASSWORD"], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=_clean_env(DEMO_PASSWORD="correct-horse-battery"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^ok: \d+ files, \d+ scenarios, \d+ rules; no errors$", done.stdout, re.M), done.stdout


def test_the_wheel_alone_rebuilds_a_report_with_its_assets_and_ships_the_schemas(installed: CompositeRunner,
                                                                                 tmp_path: Path) -> None:
    from flowwalk.plan.shard import plan_run
    from sample_run import sample_events, sample_suites, write_sample_run
    from flowwalk.settings import Settings

    report = tmp_path / "report"  # a run's emit.jsonl as the walker writes it, made by this checkout
    suites = sample_suites()
    write_sample_run(report, sample_events(suites, plan_run(suites, Settings()).record()))
    python = _venv_python(installed)
    done = subprocess.run([str(python.parent / "flowwalk"), "report", str(report)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=_clean_env())
    assert (report / "report.html").is_file(), done.stdout + done.stderr
    html = (report / "report.html").read_text(encoding="utf-8")
    css = (ROOT / "src" / "flowwalk" / "report" / "report.css").read_text(encoding="utf-8")
    assert css.strip().splitlines()[-1] in html, "report.css is inlined from the wheel"
    shipped = subprocess.run(
        [str(python), "-c", "import json, importlib.resources as r; "
         "print(json.dumps(sorted(p.name for p in r.files('flowwalk').joinpath('schemas').iterdir())))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, env=_clean_env())
    assert json.loads(shipped.stdout) == SCHEMAS, shipped.stderr


@pytest.mark.browser
def test_the_composite_action_walks_an_example_in_the_runners_browser(installed: CompositeRunner,
                                                                       tmp_path: Path) -> None:
    from flowwalk.settings import default_executable

    chromium = default_executable()
    bin_dir = tmp_path / "bin"  # the runner's browser, found on PATH as google-chrome
    bin_dir.mkdir()
    (bin_dir / "google-chrome").symlink_to(chromium)
    runner = CompositeRunner({"paths": "examples/flows/home.flow.yaml", "serve": "examples/site",
                              "output-dir": str(tmp_path / "report"), "comment-mode": "off", "token": ""},
                             ROOT, installed.temp, _clean_env())
    runner.outputs.update(installed.outputs)
    env = {k: v for k, v in _clean_env().items() if k not in ("FLOWWALK_CHROMIUM", "CHROME_BIN")}
    runner.env = {**env, "PATH": f"{bin_dir}{os.pathsep}{env['PATH']}"}
    found = runner.run("browser")
    assert found.returncode == 0, found.stderr
    assert runner.outputs["browser"]["executable"] == str(bin_dir / "google-chrome")
    walked = runner.run("flowwalk")
    assert walked.returncode == 0, walked.stdout[-3000:] + walked.stderr[-3000:]
    outputs = runner.action_outputs()
    assert set(outputs) == set(ACTION_OUTPUTS)
    assert outputs["verdict"] == "passed" and outputs["exit-code"] == "0" and int(outputs["total"]) >= 1
    assert outputs["report-dir"] == str(tmp_path / "report") and (tmp_path / "report" / "report.html").is_file()
    # the entrypoint mapped the inputs
    assert "--serve examples/site" in walked.stdout and "--comment-mode off" in walked.stdout
    assert {item.name for item in ACTION_INPUTS} == set(runner.inputs)
