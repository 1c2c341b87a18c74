"""The Action's image, built from the Dockerfile, run as GitHub's runner runs a Docker action.

A pull_request job against the fake GitHub on loopback (tests/github/fake_github.py) and the
examples' site served inside the container: the sticky comment is posted from inside the
container, the job summary and step outputs are written to the runner's file-command files, the
exit code is the verdict's, the report lands in the workspace readable by the next step, and no
secret shows anywhere. A `podman stop` (SIGTERM, SIGKILL 10 s later) still leaves a report.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest
from conftest import TIMINGS, Image
from fake_github import TOKEN, FakeGitHub
from runner import ANSI, HEAD_SHA, RESULT_LINE, RunnerLayout, run_action
from test_actions import parse_output_file

from engine import ROOT, Podman

DEMO_PASSWORD = "correct-horse-battery"  # the demo site's made-up account (examples/README.md)
# as examples/workflows/ give it: the base branch's last report, which a first run does not have
PASSING = {"paths": "examples/flows", "serve": "examples/site", "variables": "DEMO_USER=ada@example.com\n",
           "secret-names": "DEMO_PASSWORD", "comment-mode": "always", "commit-status": "true",
           "durations": "last-report/emit.jsonl"}


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake
        assert fake.problems == [], "flowwalk sent requests GitHub's description refuses"


def checkout(layout: RunnerLayout) -> None:
    """The workspace as actions/checkout leaves it: here, the repository's examples."""
    shutil.copytree(ROOT / "examples", layout.workspace / "examples")


def every_file(*folders: Path) -> Iterator[Path]:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                yield path


def assert_no_secret(layout: RunnerLayout, output: str, github: FakeGitHub) -> None:
    """Not in the log, not in a file the run wrote (examples/README.md itself names the demo
    password), not in a request, where the token may only be the Authorization header."""
    written = [p for p in layout.workspace.iterdir() if p.name != "examples"]
    for secret in (DEMO_PASSWORD, TOKEN):
        assert secret not in output, "a secret in the job log"
        for path in every_file(*written, layout.home, layout.file_commands):
            assert secret.encode() not in path.read_bytes(), f"a secret in {path.relative_to(layout.base)}"
    for request in github.requests:
        sent = json.dumps([request.path, request.query, request.body], default=str)
        assert DEMO_PASSWORD not in sent and TOKEN not in sent, f"a secret sent in {request.method} {request.path}"
        assert DEMO_PASSWORD not in json.dumps(request.headers)


def test_the_image_walks_the_examples_and_comments_from_inside_the_container(
        podman: Podman, image: Image, github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7)
    layout = RunnerLayout(tmp_path, github.url, TOKEN)
    checkout(layout)
    done = run_action(podman, layout, image.id, PASSING, {"DEMO_PASSWORD": DEMO_PASSWORD})
    assert done.code == 0, done.output[-4000:]
    # no earlier report: a notice, not a failure
    assert "::notice title=flowwalk durations::--durations 'last-report/emit.jsonl': no such file" in done.output
    if done.first_result is not None and done.verdict_line is not None:
        TIMINGS["podman run -> first result line (examples/flows)"] = f"{done.first_result:.1f} s"
        TIMINGS["podman run -> verdict line"] = f"{done.verdict_line:.1f} s"
        TIMINGS["podman run -> exit (after publishing)"] = f"{done.total:.1f} s"

    # the sticky comment, from inside the container, and the commit status
    (comment,) = github.flowwalk_comments(7)
    assert "flowwalk: all checks passed" in comment["body"]
    assert "https://github.example/octo-org/shop/actions/runs/808" in comment["body"]
    assert github.statuses[HEAD_SHA][0]["state"] == "success"
    # the step outputs and the job summary, in the runner's file-command files
    outputs = parse_output_file(layout.host_file("set_output").read_text())
    flows = len(list((ROOT / "examples" / "flows").glob("*.flow.*")))
    assert outputs["verdict"] == "passed" and outputs["exit-code"] == "0"
    assert outputs["total"] == outputs["passed"] == str(flows)
    assert outputs["comment-url"] == comment["html_url"] and outputs["report-dir"] == "flowwalk-report"
    assert "all checks passed" in layout.host_file("step_summary").read_text()
    # the report, in the workspace, readable by a next step running as another user
    report = layout.workspace / "flowwalk-report"
    for name in ("verdict.json", "junit.xml", "emit.jsonl", "summary.md", "report.html", "pr.json"):
        assert (report / name).is_file(), name
    for path in [report, *report.rglob("*")]:
        mode = path.stat().st_mode
        assert mode & stat.S_IROTH and (not path.is_dir() or mode & stat.S_IXOTH), f"{path} is not readable by others"
    assert json.loads((report / "verdict.json").read_text())["exit_code"] == 0
    assert_no_secret(layout, done.output, github)


def test_a_failing_run_exits_with_its_verdict_and_says_why(
        podman: Podman, image: Image, github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7)
    layout = RunnerLayout(tmp_path, github.url, TOKEN)
    checkout(layout)
    inputs = {**PASSING, "paths": "examples/failing/assertion-failed.flow.yaml examples/failing/goto-blocked.flow.yaml"}
    done = run_action(podman, layout, image.id, inputs, {"DEMO_PASSWORD": DEMO_PASSWORD})
    assert done.code == 1, done.output[-4000:]  # site_misbehaved
    outputs = parse_output_file(layout.host_file("set_output").read_text())
    assert outputs["verdict"] == "site_misbehaved" and outputs["exit-code"] == "1" and outputs["failed"] == "2"
    assert "::error file=examples/failing/assertion-failed.flow.yaml,line=" in done.output  # an annotation
    (comment,) = github.flowwalk_comments(7)
    assert "flowwalk: the site misbehaved" in comment["body"] and "**2 failed**" in comment["body"]
    assert any((layout.workspace / "flowwalk-report").rglob("*.png")), "a screenshot of the failure"
    assert_no_secret(layout, done.output, github)


def test_a_stopped_container_still_leaves_its_report(podman: Podman, image: Image, tmp_path: Path) -> None:
    """`podman stop` as a cancelled job does: SIGTERM to the entrypoint, SIGKILL 10 s later."""
    layout = RunnerLayout(tmp_path, "http://127.0.0.1:9", TOKEN)
    checkout(layout)
    # a flow slow enough to be stopped in the middle: wait steps between the example flows
    # (in a folder that sorts after examples/: one worker walks in plan order, home first)
    slow = layout.workspace / "slow-checks" / "slow.flow.yaml"
    slow.parent.mkdir()
    slow.write_text('spec_version: "1"\nname: a slow flow\nurl: /index.html\nsteps:\n'
                    "  - type: goto\n    url: /index.html\n" + "  - type: wait\n    ms: 3000\n" * 20)
    name = f"flowwalk-test-{uuid.uuid4().hex[:12]}"
    inputs = {"paths": "examples/flows/home.flow.yaml slow-checks", "serve": "examples/site", "comment-mode": "off",
              "workers": "1"}
    proc = podman.popen(*layout.run_args(image.id, layout.env(inputs), name),
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if RESULT_LINE.match(ANSI.sub("", line)):  # the first flow is done, the slow one runs
                break
        else:
            raise AssertionError("the run ended before its first result:\n" + "".join(lines)[-3000:])
        started = time.monotonic()
        stop = podman("stop", "--time", "10", name, check=False, timeout=60)
        stopped_in = time.monotonic() - started
        lines.extend(proc.stdout)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            podman("rm", "--force", name, check=False)
            proc.kill()
    output = "".join(lines)
    assert stop.returncode == 0, stop.stderr
    assert code == 5, output[-3000:]  # cancelled, from flowwalk itself: not 137 (SIGKILL)
    assert stopped_in < 10, f"the run took {stopped_in:.1f} s to stop: the SIGKILL would have come first"
    assert "SIGTERM received" in output
    verdict = json.loads((layout.workspace / "flowwalk-report" / "verdict.json").read_text())
    assert verdict["exit_code"] == 5 and verdict["counts"]["passed"] >= 1
    assert (layout.workspace / "flowwalk-report" / "junit.xml").is_file()
    outputs = parse_output_file(layout.host_file("set_output").read_text())
    assert outputs["verdict"] == "cancelled"


def test_the_image_holds_flowwalks_bytecode(podman: Podman, image: Image) -> None:
    """The image sets PYTHONDONTWRITEBYTECODE, so no job writes bytecode: the build must have, or
    every job compiles flowwalk's sources again before its first check."""
    modules = ("flowwalk.cli", "flowwalk.walk.run", "flowwalk.browser.session", "flowwalk.report.build")
    code = ("import importlib, os; "
            f"print([m for m in {modules!r} if not os.path.exists(importlib.import_module(m).__cached__)])")
    done = podman("run", "--rm", "--entrypoint", "/usr/local/bin/python", image.id, "-c", code)
    assert done.stdout.strip() == "[]", f"modules without bytecode in the image: {done.stdout.strip()}"
