"""The composite action (composite/action.yml) on a runner-like machine: a clean container.

The container (runner.Containerfile) is the local base plus what a GitHub-hosted runner brings: a
system Chromium named by CHROME_BIN, a Python for setup-python's place, the `runner` user. The
action's steps run in it one by one, as the runner runs them (tests/packaging/composite_runner.py):
`install` pip-installs `flowwalk==<the pinned version>` exactly as on a runner, except that pip's
index is a local one (PIP_INDEX_URL) serving the wheel this checkout builds and its dependencies,
as PyPI would; `browser` finds the system Chromium through CHROME_BIN; `flowwalk` walks the
examples and publishes to the fake GitHub on loopback.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Iterator, Mapping

import pytest
from fake_github import TOKEN, FakeGitHub
from runner import HEAD_SHA, REPOSITORY

from engine import ROOT, Podman

sys.path.insert(0, str(ROOT / "tests" / "packaging"))
from composite_runner import COMPOSITE, CompositeRunner  # noqa: E402

RUNNER_IMAGE = "localhost/flowwalk-test-runner:latest"
WORK = "/home/runner/work"
WORKSPACE, TEMP = f"{WORK}/shop/shop", f"{WORK}/_temp"
ACTION_PATH = f"{WORK}/_actions/flowwalk/flowwalk/v0/composite"
DEMO_PASSWORD = "correct-horse-battery"
#: three of the examples, one signing in with the secret (the Docker action's test walks them all)
FLOWS = ("examples/flows/home.flow.yaml", "examples/flows/login.flow.json", "examples/flows/notes.flow.yaml")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.fixture(scope="module")
def package_index(checkout_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PEP 503 simple index on 127.0.0.1: the wheel of this checkout (tests/conftest.py builds it
    once a suite run) and every dependency's wheel."""
    dist = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    (built,) = checkout_dist.glob("flowwalk-*.whl")
    wheel = Path(shutil.copy(built, dist))
    # the dependencies as pip would fetch them from PyPI for the container's Python (3.11, glibc, x86-64 or arm64)
    fetched = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
                              "--dest", str(dist), str(wheel)], capture_output=True, text=True, timeout=600, env=env)
    assert fetched.returncode == 0, fetched.stdout[-3000:] + fetched.stderr[-3000:]
    simple = tmp_path_factory.mktemp("index") / "simple"
    for found in dist.glob("*.whl"):
        project = simple / _normalize(found.name.split("-")[0])
        project.mkdir(parents=True, exist_ok=True)
        (project / found.name).symlink_to(found)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(simple.parent))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/simple/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def runner_image(podman: Podman) -> str:
    """Built once per machine: the layer stays cached until runner.Containerfile changes."""
    podman.build(RUNNER_IMAGE, dockerfile=Path(__file__).parent / "runner.Containerfile", context=Path(__file__).parent)
    return RUNNER_IMAGE


class ContainerRunner(CompositeRunner):
    """The steps run by `podman exec` in the runner container, as the `runner` user, with the
    runner's paths: the host folders are mounted at them, so every path in a step is the runner's."""

    python_path = "/usr/bin/python3"
    action_path = Path(ACTION_PATH)

    def __init__(self, podman: Podman, container: str, *args: object, **kwargs: object):
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.podman, self.container = podman, container

    def _inside(self, value: str) -> str:
        return value.replace(str(self.temp), TEMP).replace(str(self.workspace), WORKSPACE)

    def execute(self, script: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
        args = ["exec", "--workdir", WORKSPACE]
        for name, value in env.items():
            args += ["-e", f"{name}={self._inside(value)}"]
        return self.podman(*args, self.container, "bash", "--noprofile", "--norc", "-eo", "pipefail",
                           self._inside(str(script)), check=False, timeout=900)


def test_the_composite_steps_install_the_wheel_and_publish_from_a_clean_runner(
        podman: Podman, runner_image: str, package_index: str, tmp_path: Path) -> None:
    workspace, temp = tmp_path / "workspace", tmp_path / "temp"
    shutil.copytree(ROOT / "examples", workspace / "examples")  # the checkout
    temp.mkdir()
    os.chown(workspace, 1001, 1001)
    os.chown(temp, 1001, 1001)
    event = temp / "event.json"
    event.write_text(json.dumps({"number": 7, "pull_request": {
        "number": 7, "head": {"sha": HEAD_SHA, "repo": {"full_name": REPOSITORY}},
        "base": {"repo": {"full_name": REPOSITORY}}}, "repository": {"full_name": REPOSITORY}}))
    name = f"flowwalk-test-runner-{uuid.uuid4().hex[:12]}"
    podman("run", "--detach", "--name", name, "--network=host",
           "-v", f"{workspace}:{WORKSPACE}", "-v", f"{temp}:{TEMP}", "-v", f"{COMPOSITE}:{ACTION_PATH}:ro",
           runner_image, "sleep", "infinity")
    try:
        with FakeGitHub() as github:
            github.add_pull(7)
            env = {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_API_URL": github.url,
                   "GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": REPOSITORY,
                   "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "9" * 40,
                   "GITHUB_RUN_ID": "808", "GITHUB_STEP_SUMMARY": str(temp / "step_summary"),
                   "PIP_INDEX_URL": package_index, "DEMO_PASSWORD": DEMO_PASSWORD}
            inputs = {"paths": " ".join(FLOWS), "serve": "examples/site", "variables": "DEMO_USER=ada@example.com",
                      "secret-names": "DEMO_PASSWORD", "comment-mode": "always", "token": TOKEN}
            runner = ContainerRunner(podman, name, inputs, workspace, temp, env)
            runner.run("python")
            installed = runner.run("install")
            assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
            assert "installing flowwalk==" in installed.stdout  # the pinned release, not a path
            assert runner.outputs["install"]["python"] == f"{TEMP}/flowwalk-venv/bin/python"
            found = runner.run("browser")
            assert found.returncode == 0, found.stderr
            assert runner.outputs["browser"]["executable"] == "/usr/bin/chromium"  # CHROME_BIN
            walked = runner.run("flowwalk")
            assert walked.returncode == 0, walked.stdout[-4000:] + walked.stderr[-3000:]
            outputs = runner.action_outputs()
            assert outputs["verdict"] == "passed" and outputs["exit-code"] == "0"
            assert outputs["total"] == outputs["passed"] == str(len(FLOWS))
            (comment,) = github.flowwalk_comments(7)
            assert "flowwalk: all checks passed" in comment["body"] and outputs["comment-url"] == comment["html_url"]
            assert github.problems == []
            assert "all checks passed" in (temp / "step_summary").read_text()
            assert (workspace / "flowwalk-report" / "verdict.json").is_file()
            for request in github.requests:
                assert DEMO_PASSWORD not in json.dumps([request.path, request.query, request.body], default=str)
            assert DEMO_PASSWORD not in walked.stdout + walked.stderr
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)
