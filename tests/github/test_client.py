"""The GitHub client against the fake GitHub over HTTP: headers, paging, retries, rate limits, errors."""

from __future__ import annotations

import pytest

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub, refused_url
from flowwalk.github.client import (
    API_VERSION, AuthenticationError, ConnectionFailedError, GitHubClient, NotFoundError,
    PermissionDeniedError, RateLimitedError, ReadOnlyTokenError, RetryPolicy, ServerError,
    UnprocessableError, repo_path,
)

COMMENTS = f"{repo_path(REPOSITORY)}/issues/7/comments"


def client_for(fake: FakeGitHub, clock, token: str = TOKEN, **policy) -> GitHubClient:  # type: ignore[no-untyped-def]
    return GitHubClient(fake.url, token, clock=clock, jitter=lambda: 0.5, policy=RetryPolicy(**policy))


def test_every_request_carries_the_headers_github_requires(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    client_for(github, clock).post(COMMENTS, {"body": "hello"})
    (call,) = github.requests
    assert call.headers["authorization"] == f"Bearer {TOKEN}"
    assert call.headers["accept"] == "application/vnd.github+json"
    assert call.headers["x-github-api-version"] == API_VERSION == "2022-11-28"
    assert call.headers["user-agent"].startswith("flowwalk/")


def test_pagination_follows_the_link_header_across_pages(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    for n in range(250):
        github.add_comment(7, f"comment {n}")
    bodies = [c["body"] for c in client_for(github, clock).paginate(COMMENTS)]
    assert bodies == [f"comment {n}" for n in range(250)]
    pages = github.calls("issues/list-comments")
    assert [r.query.get("page", ["1"])[0] for r in pages] == ["1", "2", "3"]
    assert all(r.query["per_page"] == ["100"] for r in pages)


def test_a_single_page_has_no_link_and_one_request(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.add_comment(7, "only one")
    assert len(list(client_for(github, clock).paginate(COMMENTS))) == 1
    assert len(github.requests) == 1


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_retried_with_growing_jittered_backoff(github: FakeGitHub, clock, status: int) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(status, path="/comments$", times=2)
    client = GitHubClient(github.url, TOKEN, clock=clock, jitter=lambda: 1.0)
    response = client.post(COMMENTS, {"body": "after two failures"})
    assert response.status == 201
    assert [r.status for r in github.requests] == [status, status, 201]
    assert clock.sleeps == [1.0, 2.0]  # 1 s, 2 s (jitter at its top); mutation spacing already covered
    assert len(github.flowwalk_comments(7)) == 0 and len(github.comments[7]) == 1
    assert any(f"{status}" in line for line in client.log)


def test_server_errors_give_up_after_the_attempts_with_a_clear_error(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(503, times=10)
    with pytest.raises(ServerError) as caught:
        client_for(github, clock, attempts=3).get(COMMENTS)
    assert "503" in str(caught.value) and "3 times" in str(caught.value)
    assert "githubstatus" in str(caught.value)
    assert len(github.requests) == 3


def test_the_total_wait_budget_caps_all_sleeping(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(502, times=10)
    with pytest.raises(ServerError):
        GitHubClient(github.url, TOKEN, clock=clock, jitter=lambda: 1.0,
                     policy=RetryPolicy(attempts=10, total_wait_s=5)).get(COMMENTS)
    assert sum(clock.sleeps) <= 5
    assert clock.sleeps == [1.0, 2.0]  # the next (4 s) would pass the 5 s budget


def test_429_waits_for_retry_after(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(429, headers={"Retry-After": "7"}, message="You have exceeded a secondary rate limit.")
    assert client_for(github, clock).get(COMMENTS).status == 200
    assert clock.sleeps == [7.0]


def test_403_secondary_rate_limit_honours_retry_after(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(403, headers={"retry-after": "12"},
                message="You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
    assert client_for(github, clock).post(COMMENTS, {"body": "x"}).status == 201
    assert clock.sleeps == [12.0]


def test_403_secondary_rate_limit_without_retry_after_waits_a_minute(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(403, message="You have exceeded a secondary rate limit.")
    assert client_for(github, clock).get(COMMENTS).status == 200
    assert clock.sleeps == [60.0]


def test_primary_rate_limit_sleeps_until_the_reset(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    reset = int(clock.now) + 30
    github.fail(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset),
                              "x-ratelimit-limit": "1000"}, message="API rate limit exceeded for installation.")
    assert client_for(github, clock).get(COMMENTS).status == 200
    assert clock.sleeps == [31.0]  # until the reset, plus a second


def test_a_rate_limit_longer_than_the_budget_is_not_waited_out(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(clock.now) + 3600)},
                message="API rate limit exceeded")
    with pytest.raises(RateLimitedError) as caught:
        client_for(github, clock).get(COMMENTS)
    assert clock.sleeps == []
    assert "budget" in str(caught.value) and "rerun the publish step" in str(caught.value)


def test_401_is_explained(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.expect_problems = True  # the wrong token is the point
    with pytest.raises(AuthenticationError) as caught:
        client_for(github, clock, token="ghs_wrong").get(COMMENTS)
    assert "Bad credentials" in str(caught.value)
    assert "github.token" in caught.value.hint and len(github.requests) == 1  # never retried


def test_404_is_explained(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as caught:
        client_for(github, clock).get(f"{repo_path(REPOSITORY)}/issues/999/comments")
    assert "GITHUB_REPOSITORY" in caught.value.hint and "/api/v3" in caught.value.hint


def test_plain_403_is_a_permission_problem_and_not_retried(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(403, message="Must have admin rights to Repository.")
    with pytest.raises(PermissionDeniedError) as caught:
        client_for(github, clock).post(COMMENTS, {"body": "x"})
    assert not isinstance(caught.value, ReadOnlyTokenError)
    assert "pull-requests: write" in caught.value.hint
    assert len(github.requests) == 1 and clock.sleeps == []


def test_a_fork_prs_read_only_token_is_recognised(clock) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(read_only=True) as github:
        github.add_pull(7)
        with pytest.raises(ReadOnlyTokenError) as caught:
            client_for(github, clock).post(COMMENTS, {"body": "x"})
    assert "Resource not accessible by integration" in str(caught.value)
    assert "workflow_run" in caught.value.hint and "fork-safe.yml" in caught.value.hint


def test_422_keeps_githubs_reason(clock) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(body_limit=100) as github:
        github.add_pull(7)
        with pytest.raises(UnprocessableError) as caught:
            client_for(github, clock).post(COMMENTS, {"body": "x" * 101})
    assert caught.value.too_long
    assert "body is too long (maximum is 100 characters)" in str(caught.value)


def test_connection_refused_is_retried_then_explained(clock) -> None:  # type: ignore[no-untyped-def]
    with refused_url() as url, pytest.raises(ConnectionFailedError) as caught:
        GitHubClient(url, TOKEN, clock=clock, jitter=lambda: 0.0).get("/repos/a/b/pulls/1")
    assert "connection refused" in str(caught.value) and url in str(caught.value)
    assert "GITHUB_API_URL" in caught.value.hint
    assert clock.sleeps == [0.5, 1.0, 2.0]  # three waits between four tries, jitter at its floor


def test_a_dropped_connection_is_retried(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    github.fail(0, drop=True)
    assert client_for(github, clock).get(COMMENTS).status == 200
    assert len(github.requests) == 2


def test_github_enterprise_base_url_is_used_as_given(clock) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(prefix="/api/v3") as ghe:
        ghe.add_pull(7)
        client = GitHubClient(ghe.url + "/", TOKEN, clock=clock)
        client.post(COMMENTS, {"body": "on GHE"})
        assert [c["body"] for c in client.paginate(COMMENTS)] == ["on GHE"]
        assert ghe.problems == []
        assert ghe.url.endswith("/api/v3")


def test_mutating_requests_are_spaced_a_second_apart(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7)
    client = client_for(github, clock)
    client.post(COMMENTS, {"body": "one"})
    client.get(COMMENTS)
    client.post(COMMENTS, {"body": "two"})
    assert clock.sleeps == [1.0]


def test_a_bad_body_is_refused_by_the_fake(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    """The fake is strict: a body GitHub's description refuses gets 422 and is recorded as a problem."""
    github.expect_problems = True
    client = client_for(github, clock)
    with pytest.raises(UnprocessableError):
        client.post(f"{repo_path(REPOSITORY)}/statuses/{HEAD_SHA}", {"state": "passed"})
    with pytest.raises(UnprocessableError):
        client.post(f"{repo_path(REPOSITORY)}/check-runs",
                    {"name": "flowwalk", "head_sha": HEAD_SHA, "status": "completed"})
    with pytest.raises(UnprocessableError):
        client.post(f"{repo_path(REPOSITORY)}/check-runs", {
            "name": "flowwalk", "head_sha": HEAD_SHA, "output": {"title": "t", "summary": "s", "annotations": [
                {"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "failure", "message": "m"}] * 51}})
    problems = github.problems
    assert any("'passed' is not one of" in p for p in problems)
    assert any("checks/create at (body)" in p for p in problems)
    assert any("is too long" in p and "annotations" in p for p in problems)
    assert len(problems) == 3


def test_a_redirected_post_is_sent_again_as_a_post_with_its_body(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    """requests alone would turn a 301/302 POST into a GET and lose the body (contract.md section 1)."""
    github.add_pull(7)
    github.fail(302, method="POST", headers={"Location": COMMENTS})
    response = client_for(github, clock).post(COMMENTS, {"body": "moved"})
    assert response.status == 201
    assert [(r.method, r.status) for r in github.requests] == [("POST", 302), ("POST", 201)]
    assert github.comments[7][0]["body"] == "moved"
