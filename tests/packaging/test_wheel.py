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
from typing import Iterator

import pytest

from flowwalk import __version__
from flowwalk.github.inputs import ACTION_INPUTS, ACTION_OUTPUTS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
from composite_runner import CompositeRunner  # noqa: E402

# one worker takes the module: the wheel is installed (`installed`) once a suite run
pytestmark = [pytest.mark.xdist_group("wheel"), pytest.mark.long]

SCHEMAS = sorted(p.name for p in (ROOT / "schemas").glob("*.json"))
ASSETS = ("report.css", "report.js")


def _clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would put the checkout on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GITHUB_ACTIONS")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return {**env, **extra}


@pytest.fixture(scope="module")
def dist(checkout_dist: Path) -> Path:
    """The sdist and the wheel (tests/conftest.py builds them once a suite run)."""
    return checkout_dist


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
    page_scripts = sorted(p.name for p in (ROOT / "src" / "flowwalk" / "browser" / "js").glob("*.js"))
    assert page_scripts and {f"flowwalk/browser/js/{name}" for name in page_scripts} <= names
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
    assert re.search(r"^ok: \d+ files, \d+ scenarios, \d+ rules(, \d+ steps files)?; no errors$", done.stdout, re.M), done.stdout


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
