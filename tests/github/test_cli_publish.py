"""`flowwalk publish` as a user runs it: a real process, the Actions environment, the fake GitHub.

Its exit code is the verdict's, whatever happens while publishing (docs/publishing.md).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from verdicts import failing_verdict, passing_verdict, write_report

from fake_github import TOKEN, FakeGitHub, pull_request_env


def _run(report: Path, api_url: str, tmp_path: Path, *args: str, token: str = TOKEN) -> subprocess.CompletedProcess[str]:
    env = pull_request_env(tmp_path, api_url, token=token)
    return subprocess.run([sys.executable, "-m", "flowwalk.cli", "publish", "--report", str(report), *args],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("verdict,code", [(failing_verdict(), 1), (passing_verdict(), 0)])
def test_publish_comments_and_exits_with_the_verdicts_code(github: FakeGitHub, tmp_path: Path,
                                                           verdict: dict, code: int) -> None:  # type: ignore[type-arg]
    github.add_pull(7)
    done = _run(write_report(tmp_path / "report", verdict), github.url, tmp_path)
    assert done.returncode == code, done.stderr
    assert len(github.flowwalk_comments(7)) == 1
    assert "comment created (https://github.example/octo-org/shop/pull/7#issuecomment-" in done.stderr
    assert "verdict<<ghadelimiter_" in (tmp_path / "output").read_text()


def test_a_read_only_token_does_not_change_the_exit_code(tmp_path: Path) -> None:
    with FakeGitHub(read_only=True) as github:
        github.add_pull(7)
        passing = _run(write_report(tmp_path / "ok", passing_verdict()), github.url, tmp_path, "--check-run")
        failing = _run(write_report(tmp_path / "bad", failing_verdict()), github.url, tmp_path)
        assert github.problems == []
    assert passing.returncode == 0 and failing.returncode == 1
    for done in (passing, failing):
        assert "Resource not accessible by integration" in done.stderr
        assert "the verdict stands" in done.stderr and "Traceback" not in done.stderr


def test_a_refused_token_does_not_change_the_exit_code(github: FakeGitHub, tmp_path: Path) -> None:
    github.expect_problems = True
    github.add_pull(7)
    done = _run(write_report(tmp_path / "r", failing_verdict()), github.url, tmp_path, token="ghs_revoked")
    assert done.returncode == 1
    assert "401 Bad credentials" in done.stderr and "Traceback" not in done.stderr


def test_no_verdict_is_input_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = _run(tmp_path / "empty", "http://127.0.0.1:9", tmp_path)
    assert done.returncode == 3 and "no verdict to publish" in done.stderr
