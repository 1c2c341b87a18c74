"""GitHub API faults against `flowwalk publish` as a process, in real time: what tests/github leaves out.

tests/github already proves each fault at the function level with a clock that never sleeps
(test_client.py, test_publish.py) and two faults through the process (test_cli_publish.py). Here
every fault of issue 7 goes through the real `python -m flowwalk.cli publish` against the real
fake server (`tests/github/fake_github.py`, reused, with a timestamp per request), with real
sleeping, so that the waits are measured and the exit code is the process's own:

- 500/502/503 are retried with growing backoff; a persistent 503 gives up within the budget;
- 403 secondary rate limit and 429 wait at least `Retry-After` before the next request;
- 401 and 404 are explained in one line with a hint; 422 "too long" is answered with a shorter body;
- connection refused is explained;
- and in every case the exit code is the verdict's (0, 1 or 6), never the publishing's.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "github"))

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub, refused_url  # noqa: E402
from verdicts import failing_verdict, many_failures, passing_verdict, write_report  # noqa: E402

from runkit import publish_cli  # noqa: E402

PR = 7


class TimedGitHub(FakeGitHub):
    """The fake, plus when each request arrived (monotonic seconds) and what it was answered."""

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.timeline: list[tuple[float, str, str, int]] = []

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes,
               host: str) -> tuple[int, dict[str, str], Any, bool]:
        answer = super().handle(method, raw_path, headers, raw_body, host)
        self.timeline.append((time.monotonic(), method, raw_path.split("?")[0], answer[0]))
        return answer

    def gaps_after(self, status: int) -> list[float]:
        """Seconds between each answer with `status` and the request that followed it."""
        out = []
        for (t, _, _, code), (t_next, _, _, _) in zip(self.timeline, self.timeline[1:]):
            if code == status:
                out.append(t_next - t)
        return out


def infra_verdict() -> dict[str, Any]:
    """A verdict whose exit code is 6 (infrastructure failed): publish must keep that too."""
    verdict = failing_verdict()
    verdict["outcome"], verdict["exit_code"] = "infrastructure_failed", 6
    for test in verdict["tests"]:
        if test.get("failure"):
            test["failure"]["failure_class"] = "infrastructure_error"
    verdict["by_class"] = {**dict.fromkeys(verdict["by_class"], 0),
                           "infrastructure_error": sum(1 for t in verdict["tests"] if t.get("failure"))}
    for cause in verdict["root_causes"]:
        cause["failure_class"] = "infrastructure_error"
    return verdict


VERDICTS = {0: passing_verdict, 1: failing_verdict, 6: infra_verdict}


def publish(report: Path, api_url: str, tmp_path: Path, *, token: str = TOKEN,
            timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], float]:
    return publish_cli(report, api_url, tmp_path, token=token, repository=REPOSITORY, head_sha=HEAD_SHA, pr=PR,
                       timeout=timeout)


def figure(text: str) -> None:
    print(f"\nFIGURE github: {text}")


# --- 5xx: retried with backoff ----------------------------------------------------------------------


@pytest.mark.parametrize("status,code", [(500, 0), (502, 1), (503, 6)])
def test_server_errors_are_retried_with_backoff_and_the_exit_code_is_the_verdicts(
        tmp_path: Path, status: int, code: int) -> None:
    with TimedGitHub() as github:
        github.add_pull(PR)
        github.fail(status, method="POST", path="/comments$", times=2)
        done, took = publish(write_report(tmp_path / "r", VERDICTS[code]()), github.url, tmp_path)
        posts = [t for t in github.timeline if t[1] == "POST"]
        assert [p[3] for p in posts] == [status, status, 201], "two failures, then the comment is created"
        gaps = github.gaps_after(status)
        assert github.problems == []
    assert done.returncode == code, done.stderr
    assert len(github.flowwalk_comments(PR)) == 1
    # equal-jitter exponential backoff from 1 s: the first wait is 0.5..1 s, the second 1..2 s
    assert 0.45 <= gaps[0] <= 1.6 and 0.95 <= gaps[1] <= 2.8 and gaps[1] > gaps[0] * 0.9, gaps
    assert "Traceback" not in done.stderr
    figure(f"{status} x2 on POST (verdict exit {code}): 2 retries, waits {gaps[0]:.2f} s + {gaps[1]:.2f} s, "
           f"comment created, exit {done.returncode}, {took:.1f} s")


@pytest.mark.parametrize("code", [0, 1, 6])
def test_a_persistent_outage_gives_up_within_its_budget_and_keeps_the_exit_code(tmp_path: Path, code: int) -> None:
    with TimedGitHub() as github:
        github.add_pull(PR)
        github.fail(503, times=1000)
        done, took = publish(write_report(tmp_path / "r", VERDICTS[code]()), github.url, tmp_path, timeout=200)
        requests_made = len(github.timeline)
    assert done.returncode == code, done.stderr
    assert "503" in done.stderr and f"the verdict stands (exit code {code})" in done.stderr
    assert "Traceback" not in done.stderr
    assert requests_made <= 8, f"{requests_made} requests against a dead API"
    assert took < 60
    figure(f"503 forever (verdict exit {code}): {requests_made} requests, gave up after {took:.1f} s, "
           f"exit {done.returncode}")


# --- rate limits: Retry-After honoured ----------------------------------------------------------------


@pytest.mark.parametrize("status,message", [(429, "API rate limit exceeded"),
                                            (403, "You have exceeded a secondary rate limit.")])
def test_rate_limits_wait_for_retry_after_in_real_time(tmp_path: Path, status: int, message: str) -> None:
    with TimedGitHub() as github:
        github.add_pull(PR)
        github.fail(status, method="POST", path="/comments$", headers={"Retry-After": "2"}, message=message)
        done, took = publish(write_report(tmp_path / "r", failing_verdict()), github.url, tmp_path)
        gaps = github.gaps_after(status)
        assert github.problems == []
    assert done.returncode == 1, done.stderr
    assert len(github.flowwalk_comments(PR)) == 1
    assert len(gaps) == 1 and 2.0 <= gaps[0] < 3.5, f"waited {gaps} s for Retry-After: 2"
    assert "rate limit" in done.stderr.lower() and "Traceback" not in done.stderr
    figure(f"{status} Retry-After 2: waited {gaps[0]:.2f} s, then the comment was created, exit 1")


# --- refusals: explained, the exit code kept -----------------------------------------------------------


def test_401_is_explained_and_the_exit_code_kept(tmp_path: Path) -> None:
    with TimedGitHub() as github:
        github.expect_problems = True
        github.add_pull(PR)
        done, _ = publish(write_report(tmp_path / "r", passing_verdict()), github.url, tmp_path, token="ghs_revoked")
        requests_made = len(github.timeline)
    assert done.returncode == 0
    assert "GitHub refused the token (401" in done.stderr and "the verdict stands (exit code 0)" in done.stderr
    assert requests_made <= 2, "a refused token is not retried"
    figure(f"401: explained, {requests_made} request(s), exit {done.returncode}")


def test_404_is_explained_and_the_exit_code_kept(tmp_path: Path) -> None:
    with TimedGitHub() as github:
        github.fail(404, times=10, message="Not Found")
        done, _ = publish(write_report(tmp_path / "r", failing_verdict()), github.url, tmp_path)
        requests_made = len(github.timeline)
    assert done.returncode == 1
    assert "404" in done.stderr and "GITHUB_REPOSITORY" in done.stderr and "Traceback" not in done.stderr
    figure(f"404: explained, {requests_made} request(s), exit {done.returncode}")


def test_a_comment_refused_as_too_long_is_shrunk(tmp_path: Path) -> None:
    with TimedGitHub(body_limit=30_000) as github:
        github.add_pull(PR)
        done, _ = publish(write_report(tmp_path / "r", many_failures(300)), github.url, tmp_path)
        posts = github.calls("issues/create-comment")
        sizes = [len(p.body["body"]) for p in posts]
        assert github.problems == []
        final = github.flowwalk_comments(PR)
    assert done.returncode == 1
    assert [p.status for p in posts][-1] == 201 and all(p.status == 422 for p in posts[:-1])
    assert sizes == sorted(sizes, reverse=True) and len(final) == 1 and len(final[0]["body"]) <= 30_000
    figure(f"422 too long (limit 30,000): bodies {', '.join(f'{s:,}' for s in sizes)} characters; exit 1")


@pytest.mark.parametrize("code", [0, 1, 6])
def test_connection_refused_is_explained_and_the_exit_code_kept(tmp_path: Path, code: int) -> None:
    with refused_url() as url:
        done, took = publish(write_report(tmp_path / "r", VERDICTS[code]()), url, tmp_path, timeout=200)
    assert done.returncode == code
    assert "cannot reach GitHub at" in done.stderr and "connection refused" in done.stderr
    assert "Traceback" not in done.stderr
    figure(f"connection refused (verdict exit {code}): explained after {took:.1f} s, exit {done.returncode}")
