"""Baselines inside the Action's image: written by one run, equal on the next (issue 28).

Screenshots differ between machines (fonts, their hinting, anti-aliasing), so baselines are made
and compared in one environment: this image. A job with `update-snapshots: true` writes them into
the workspace (and the report's baselines/ folder), a second job compares against them and passes
with nothing to review; a third, on a changed page, fails assertion_failed with the difference
images in the report. docs/snapshots.md says how to make baselines this way.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Iterator

import pytest
from conftest import Image
from fake_github import TOKEN, FakeGitHub
from runner import RunnerLayout, run_action

from engine import ROOT, Podman

#: the round trip the end-to-end test walks on the test machine
FLOW = ROOT / "tests" / "corpus" / "flows" / "good" / "baselines-round-trip.flow.yaml"
INPUTS = {"paths": "checks", "serve": "site", "comment-mode": "off", "output-dir": "flowwalk-report"}


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def _job(podman: Podman, image: Image, github: FakeGitHub, base: Path, workspace: Path, **inputs: str):
    layout = RunnerLayout(base, github.url, TOKEN)
    shutil.rmtree(layout.workspace)
    shutil.copytree(workspace, layout.workspace)
    done = run_action(podman, layout, image.id, {**INPUTS, **inputs})
    shutil.rmtree(workspace)
    shutil.copytree(layout.workspace, workspace)   # what the next job checks out
    return done


def test_baselines_written_in_the_image_compare_equal_in_the_image(
        podman: Podman, image: Image, github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7)
    workspace = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "snapshots" / "site", workspace / "site")
    (workspace / "checks").mkdir()
    shutil.copyfile(FLOW, workspace / "checks" / "pricing.flow.yaml")
    baselines = workspace / "checks" / "pricing.flow.yaml.snapshots"

    first = _job(podman, image, github, tmp_path / "job1", workspace, **{"update-snapshots": "true"})
    assert first.code == 0, first.output[-4000:]
    assert sorted(p.name for p in baselines.iterdir()) == ["cards.png", "page.png", "step-1.yml"]
    written = {p.name: p.read_bytes() for p in baselines.iterdir()}
    assert "baseline_written" in (workspace / "flowwalk-report" / "emit.jsonl").read_text()

    second = _job(podman, image, github, tmp_path / "job2", workspace)
    assert second.code == 0, second.output[-4000:]
    assert not (workspace / "flowwalk-report" / "baselines").exists()
    assert {p.name: p.read_bytes() for p in baselines.iterdir()} == written

    changed = (workspace / "site" / "pricing-changed.html").read_text()
    (workspace / "site" / "pricing.html").write_text(changed)
    third = _job(podman, image, github, tmp_path / "job3", workspace)
    assert third.code == 1, third.output[-4000:]
    verdict = json.loads((workspace / "flowwalk-report" / "verdict.json").read_text())
    failure = verdict["tests"][0]["failure"]
    assert failure["failure_class"] == "assertion_failed" and failure["baseline"]
    assert {p.name: p.read_bytes() for p in baselines.iterdir()} == written   # never written silently


def test_the_committed_example_baselines_in_the_image(
        podman: Podman, image: Image, github: FakeGitHub, tmp_path: Path) -> None:
    """examples/snapshots/pricing.flow.yaml's baselines were made on the test machine, outside the
    image (Debian's Chromium and fonts-liberation from the same install script): the image renders
    the example's pixels the same, so the committed example holds in the Action too."""
    github.add_pull(7)
    workspace = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "snapshots", workspace / "examples" / "snapshots")
    done = _job(podman, image, github, tmp_path / "job", workspace,
                paths="examples/snapshots/pricing.flow.yaml", serve="examples/snapshots/site")
    assert done.code == 0, done.output[-4000:]
