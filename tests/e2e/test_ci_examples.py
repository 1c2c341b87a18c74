"""The GitLab CI and CircleCI examples (examples/ci/), run as those CIs run them: the parallel jobs'
script at once, each under that CI's own variables (`--shard auto` reads them), then the merge job's
script. The shards together walk every check once, the merge equals one unsharded run, and on GitLab
the merge job writes the merge request note to a fake GitLab."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml
from _cli import DEMO_ENV, ROOT
from test_cli_examples import comparable_tests

sys.path.insert(0, str(ROOT / "tests" / "github"))
from fake_gitlab import FakeGitLab, merge_request_env  # noqa: E402

# both tests compare against one unsharded run (`unsharded`): one worker takes them, so it is walked
# once a suite run; they shard the examples over several runs each, so they start first
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("ci_examples"), pytest.mark.long]

EXAMPLES = ROOT / "examples" / "ci"


def workspace(tmp_path: Path) -> Path:
    """A project checkout as the examples expect it: its checks in checks/, its flowwalk.yaml."""
    project = tmp_path / "project"
    project.mkdir(parents=True)
    (project / "checks").symlink_to(ROOT / "examples" / "flows")
    (project / "flowwalk.yaml").write_text("variables:\n  DEMO_USER: ada@example.com\n")
    return project


def run_script(lines: list[str], project: Path, env: dict[str, str], shell: str = "sh") -> int:
    """A job's script as the CI runs it: one line after another, stopping at the first that fails."""
    for line in lines:
        done = subprocess.run([shell, "-c", line], cwd=project, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            return done.returncode
    return 0


def run_parallel_jobs(lines: list[str], project: Path, envs: list[dict[str, str]], shell: str = "sh") -> list[int]:
    """The parallel jobs of one CI job as the CI runs them: at once, each with its own variables."""
    with ThreadPoolExecutor(len(envs)) as pool:
        return list(pool.map(lambda env: run_script(lines, project, env, shell), envs))


def job_env(site_url: str, **ci: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "CI_", "CIRCLE"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **DEMO_ENV, "PREVIEW_URL": site_url, **ci}


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory: pytest.TempPathFactory, example_site: Any) -> Path:
    """The report of one unsharded run of the project's checks."""
    tmp_path = tmp_path_factory.mktemp("unsharded")
    out = tmp_path / "whole"
    project = workspace(tmp_path / "w")
    result = subprocess.run([sys.executable, "-m", "flowwalk", "run", "checks/", "--base-url", example_site.url,
                             "--secret", "DEMO_PASSWORD", "--out", str(out)], cwd=project,
                            env=job_env(example_site.url), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def test_the_gitlab_example_shards_merges_and_notes_the_merge_request(tmp_path: Path, example_site: Any,
                                                                      unsharded: Path) -> None:
    pipeline = yaml.safe_load((EXAMPLES / "gitlab-ci.yml").read_text())
    checks, verdict = pipeline["checks"], pipeline["verdict"]
    project = workspace(tmp_path)
    total = int(checks["parallel"])
    # GitLab names them checks 1/4 .. 4/4, CI_NODE_INDEX counting from 1
    envs = [job_env(example_site.url, GITLAB_CI="true", CI_NODE_INDEX=str(k), CI_NODE_TOTAL=str(total))
            for k in range(1, total + 1)]
    assert run_parallel_jobs(checks["script"], project, envs) == [0] * total
    for k in range(1, total + 1):
        shard = json.loads((project / f"flowwalk-shard-{k}" / "emit.jsonl").read_text().splitlines()[0])
        assert shard["plan"]["shard"]["from"] == f"GitLab CI (CI_NODE_INDEX={k}, CI_NODE_TOTAL={total})"
    with FakeGitLab() as gitlab:
        gitlab.add_merge_request(12)
        code = run_script(verdict["script"], project, job_env(example_site.url, **merge_request_env(gitlab.api_url)))
        notes = gitlab.flowwalk_notes(12)
        assert gitlab.problems == []
    assert code == 0
    assert len(notes) == 1 and "all checks passed" in notes[0]["body"]
    merged = project / verdict["artifacts"]["reports"]["junit"].split("/")[0]
    assert (merged / "junit.xml").is_file()
    assert comparable_tests(merged) == comparable_tests(unsharded)


def test_the_circleci_example_shards_and_its_verdict_job_merges(tmp_path: Path, example_site: Any,
                                                                unsharded: Path) -> None:
    config = yaml.safe_load((EXAMPLES / "circleci.yml").read_text())
    checks, verdict = config["jobs"]["checks"], config["jobs"]["verdict"]
    project = workspace(tmp_path)
    total = int(checks["parallelism"])
    command = next(s["run"]["command"] for s in checks["steps"] if isinstance(s, dict) and "run" in s)
    envs = [job_env(example_site.url, CIRCLECI="true", CIRCLE_NODE_INDEX=str(node), CIRCLE_NODE_TOTAL=str(total))
            for node in range(total)]   # CIRCLE_NODE_INDEX counting from 0
    assert run_parallel_jobs([command], project, envs, shell="bash") == [0] * total
    steps = [s["run"]["command"] for s in verdict["steps"] if isinstance(s, dict) and "run" in s]
    assert run_script(steps, project, job_env(example_site.url), shell="bash") == 0
    merged = project / "merged-report"
    assert json.loads((merged / "verdict.json").read_text())["shards"] == {
        "total": total, "reported": list(range(1, total + 1)), "missing": [], "duplicated": [], "mismatched": []}
    assert comparable_tests(merged) == comparable_tests(unsharded)
