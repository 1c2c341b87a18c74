"""`publish` end to end against the fake GitHub over HTTP: one sticky comment, modes, faults, forks.

Every test here runs with the `github` fixture, which fails the test if any request flowwalk sent
did not validate against GitHub's own description of the endpoint (tests/github/data).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_actions import parse_output_file
from verdicts import failing_verdict, many_failures, passing_verdict, typed, write_report

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub, refused_url
from flowwalk.errors import UsageError
from flowwalk.github.client import GitHubClient, RetryPolicy
from flowwalk.github.publish import PublishResult, publish, read_pr_context, write_pr_context
from flowwalk.settings import GitHubSettings

PR = 7


def settings_for(api_url: str, tmp_path: Path, **changes: Any) -> GitHubSettings:
    base = GitHubSettings(token=TOKEN, api_url=api_url, server_url="https://github.example", repository=REPOSITORY,
                          pr_number=PR, sha=HEAD_SHA, run_id="4242", run_attempt="1", event_name="pull_request",
                          step_summary=str(tmp_path / "step_summary.md"), output=str(tmp_path / "output"))
    return replace(base, **changes)


def run_publish(fake: FakeGitHub, clock, report: Path, settings: GitHubSettings,  # type: ignore[no-untyped-def]
                **kwargs: Any) -> tuple[PublishResult, str, str]:
    out, err = io.StringIO(), io.StringIO()
    client = GitHubClient(settings.api_url, settings.token, clock=clock, jitter=lambda: 0.5,
                          policy=kwargs.pop("policy", RetryPolicy()))
    result = publish(report, settings, client=client, stdout=out, stderr=err, **kwargs)
    return result, out.getvalue(), err.getvalue()


def test_publishing_twice_leaves_exactly_one_comment_past_a_page_of_other_comments(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    for n in range(130):  # more than one page of 100: the sticky comment lands on page 2
        github.add_comment(PR, f"LGTM {n}", login=f"reviewer{n % 3}")
    report = write_report(tmp_path / "report", failing_verdict())
    settings = settings_for(github.url, tmp_path)

    first, _, _ = run_publish(github, clock, report, settings)
    assert first.comment is not None and first.comment.action == "created"
    for n in range(130, 150):  # more people comment after ours
        github.add_comment(PR, f"nit {n}")
    fixed = passing_verdict()
    second, _, _ = run_publish(github, clock, write_report(tmp_path / "report2", fixed), settings)

    assert second.comment is not None and second.comment.action == "updated"
    ours = github.flowwalk_comments(PR)
    assert len(ours) == 1 and ours[0]["id"] == first.comment.comment_id
    assert "### ✅ flowwalk: all checks passed" in ours[0]["body"]
    assert len(github.comments[PR]) == 151
    listed_pages = [r.query.get("page", ["1"])[0] for r in github.calls("issues/list-comments")]
    assert listed_pages == ["1", "2", "1", "2"]  # every page read, both times
    assert [r.operation for r in github.requests if r.method != "GET"] == [
        "issues/create-comment", "issues/update-comment"]
    assert first.exit_code == 1 and second.exit_code == 0 and first.ok and second.ok


def test_older_duplicates_are_removed_and_the_newest_kept(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    old = github.add_comment(PR, "<!-- flowwalk:verdict digest=aaaa -->\nold", login="github-actions[bot]")
    github.add_comment(PR, "human in between")
    new = github.add_comment(PR, "<!-- flowwalk:verdict digest=bbbb -->\nnewer", login="github-actions[bot]")
    result, _, _ = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                               settings_for(github.url, tmp_path))
    assert result.comment is not None and result.comment.deleted == (old["id"],)
    assert [c["id"] for c in github.flowwalk_comments(PR)] == [new["id"]]


def test_named_comments_live_side_by_side(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    report = write_report(tmp_path / "r", failing_verdict())
    for name in ("chrome", "mobile", "chrome"):
        run_publish(github, clock, report, settings_for(github.url, tmp_path, comment_name=name))
    firsts = sorted(c["body"].splitlines()[0].split(" digest=")[0] for c in github.flowwalk_comments(PR))
    assert firsts == ["<!-- flowwalk:verdict name=chrome", "<!-- flowwalk:verdict name=mobile"]


def test_on_change_mode_writes_only_when_the_result_changes(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    settings = settings_for(github.url, tmp_path, comment_mode="on-change")
    verdict = failing_verdict()
    created, _, _ = run_publish(github, clock, write_report(tmp_path / "a", verdict), settings)
    verdict["duration_ms"] = 1234.0  # a rerun with the same result: only timings differ
    same, _, _ = run_publish(github, clock, write_report(tmp_path / "b", verdict), settings)
    changed, _, _ = run_publish(github, clock, write_report(tmp_path / "c", passing_verdict()), settings)
    assert (created.comment.action, same.comment.action, changed.comment.action) == (  # type: ignore[union-attr]
        "created", "unchanged", "updated")
    assert same.comment.url == created.comment.url  # type: ignore[union-attr]
    assert len(github.calls("issues/update-comment")) == 1 and len(github.calls("issues/create-comment")) == 1


def test_on_failure_mode_stays_quiet_on_success_but_corrects_an_old_failure(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    settings = settings_for(github.url, tmp_path, comment_mode="on-failure")
    quiet, _, err = run_publish(github, clock, write_report(tmp_path / "a", passing_verdict()), settings)
    assert quiet.comment is not None and quiet.comment.action == "skipped"
    assert "every test passed" in err and github.calls("issues/create-comment") == []
    run_publish(github, clock, write_report(tmp_path / "b", failing_verdict()), settings)
    fixed, _, _ = run_publish(github, clock, write_report(tmp_path / "c", passing_verdict()), settings)
    assert fixed.comment is not None and fixed.comment.action == "updated"
    assert "all checks passed" in github.flowwalk_comments(PR)[0]["body"]


def test_off_mode_sends_nothing_but_still_writes_summary_and_outputs(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    report = write_report(tmp_path / "r", failing_verdict(), summary="## the report's own summary\n")
    result, stdout, _ = run_publish(github, clock, report, settings_for(github.url, tmp_path, comment_mode="off"))
    assert github.requests == []
    assert result.comment is None and result.exit_code == 1
    assert (tmp_path / "step_summary.md").read_text() == "## the report's own summary\n"
    outputs = parse_output_file((tmp_path / "output").read_text())
    assert outputs["verdict"] == "site_misbehaved" and outputs["failed"] == "3"
    assert outputs["report-dir"] == str(report) and outputs["comment-url"] == ""
    assert stdout.startswith("::error file=examples/flows/checkout.flow.yaml,line=12,title=assertion_failed%3A")


def test_outputs_carry_the_comment_url(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    result, _, _ = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                               settings_for(github.url, tmp_path))
    outputs = parse_output_file((tmp_path / "output").read_text())
    assert outputs["comment-url"] == result.comment_url and "#issuecomment-" in outputs["comment-url"]


def test_without_a_summary_md_the_job_summary_is_the_rendered_verdict(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    report = write_report(tmp_path / "r", failing_verdict(), summary=None)
    run_publish(github, clock, report, settings_for(github.url, tmp_path, comment_mode="off"))
    text = (tmp_path / "step_summary.md").read_text()
    assert text.startswith("### ❌ flowwalk: the site misbehaved") and "<!--" not in text


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_during_publish_are_retried(github: FakeGitHub, clock, tmp_path: Path, status: int) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    github.fail(status, method="POST", times=2)
    result, _, err = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                                 settings_for(github.url, tmp_path))
    assert result.ok and result.comment.action == "created"  # type: ignore[union-attr]
    assert f"{status}" in err and "retrying in" in err


def test_a_persistent_outage_is_reported_and_the_exit_code_stays_the_verdicts(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    github.fail(503, times=100)
    report = write_report(tmp_path / "r", passing_verdict())
    result, stdout, err = run_publish(github, clock, report, settings_for(github.url, tmp_path, check_run=True))
    assert result.exit_code == 0 and not result.ok
    assert "PR comment: GitHub answered 503" in err and "githubstatus" in err
    assert "the verdict stands (exit code 0)" in err
    assert "::warning title=flowwalk publish::PR comment: GitHub answered 503" in stdout
    assert (tmp_path / "step_summary.md").exists() and (tmp_path / "output").exists()


@pytest.mark.parametrize("status,headers,message,waited", [
    (429, {"Retry-After": "3"}, "rate limited", [3.0]),
    (403, {"Retry-After": "9"}, "You have exceeded a secondary rate limit.", [9.0]),
])
def test_rate_limits_during_publish_are_waited_out(github: FakeGitHub, clock, tmp_path: Path, status: int,  # type: ignore[no-untyped-def]
                                                   headers: dict[str, str], message: str, waited: list[float]) -> None:
    github.add_pull(PR)
    github.fail(status, method="GET", headers=headers, message=message)
    result, _, err = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                                 settings_for(github.url, tmp_path))
    assert result.ok and result.comment.action == "created"  # type: ignore[union-attr]
    assert clock.sleeps[0] == waited[0] and "rate limited" in err


def test_a_wrong_token_is_explained(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.expect_problems = True
    github.add_pull(PR)
    result, _, err = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                                 settings_for(github.url, tmp_path, token="ghs_expired"))
    assert result.exit_code == 1 and not result.ok
    assert "GitHub refused the token (401 Bad credentials)" in err and "github.token" in err


def test_a_wrong_pr_number_is_explained(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result, _, err = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()),
                                 settings_for(github.url, tmp_path, pr_number=999))
    assert not result.ok and "404" in err and "check GITHUB_REPOSITORY and the PR number" in err


def test_a_comment_refused_as_too_long_is_shrunk_and_sent_again(clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # this GitHub counts more strictly than len(): the first body (under 65,536) is refused
    with FakeGitHub(body_limit=30_000) as github:
        github.add_pull(PR)
        result, _, err = run_publish(github, clock, write_report(tmp_path / "r", many_failures(300)),
                                     settings_for(github.url, tmp_path))
        assert github.problems == []
        posts = github.calls("issues/create-comment")
        assert [r.status for r in posts] == [422, 422, 201]
        assert len(posts[0].body["body"]) > len(posts[1].body["body"]) > len(posts[2].body["body"])
        assert len(github.flowwalk_comments(PR)[0]["body"]) <= 30_000
    assert result.ok and result.comment is not None and result.comment.shrunk
    assert "too long; retrying with at most" in err


def test_connection_refused_is_explained_and_changes_nothing(clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with refused_url() as url:
        result, _, err = run_publish(FakeGitHub(), clock, write_report(tmp_path / "r", failing_verdict()),
                                     settings_for(url, tmp_path))
    assert result.exit_code == 1 and not result.ok
    assert "cannot reach GitHub at" in err and "connection refused" in err and "GITHUB_API_URL" in err
    assert parse_output_file((tmp_path / "output").read_text())["verdict"] == "site_misbehaved"


def test_a_fork_prs_read_only_token_is_explained_and_the_rest_still_happens(clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": PR, "pull_request": {
        "number": PR, "head": {"sha": HEAD_SHA, "repo": {"full_name": "someone/shop", "fork": True}},
        "base": {"sha": "f" * 40, "repo": {"full_name": REPOSITORY}}}, "repository": {"full_name": REPOSITORY}}))
    with FakeGitHub(read_only=True) as github:
        github.add_pull(PR, fork=True)
        settings = settings_for(github.url, tmp_path, event_path=str(event), check_run=True, commit_status=True)
        result, stdout, err = run_publish(github, clock, write_report(tmp_path / "r", failing_verdict()), settings)
        assert github.problems == []
        writes = [r for r in github.requests if r.method != "GET"]
    assert len(writes) == 1 and writes[0].status == 403  # tried once, then stopped writing
    assert result.exit_code == 1 and len(result.errors) == 1
    assert "Resource not accessible by integration" in err and "This pull request comes from a fork" in err
    assert "workflow_run" in err and "examples/workflows/fork-safe.yml" in err
    assert "check run: skipped, the token is read-only" in err and "commit status: skipped" in err
    assert result.summary_bytes > 0 and result.outputs_written and stdout.startswith("::error ")


def test_a_check_run_gets_all_annotations_fifty_at_a_time(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    verdict = many_failures(4)  # 4 failures, 120 skipped dependents, 200 flaky: 324 annotations
    result, _, _ = run_publish(github, clock, write_report(tmp_path / "r", verdict),
                               settings_for(github.url, tmp_path, check_run=True, comment_mode="off"))
    creates, updates = github.calls("checks/create"), github.calls("checks/update")
    assert len(creates) == 1 and creates[0].body["status"] == "in_progress"
    assert creates[0].body["head_sha"] == HEAD_SHA
    assert creates[0].body["details_url"] == "https://github.example/octo-org/shop/actions/runs/4242"
    sizes = [len(creates[0].body["output"]["annotations"])] + [
        len(u.body["output"]["annotations"]) for u in updates if "output" in u.body]
    assert sizes == [50, 50, 50, 50, 50, 50, 24]
    assert updates[-1].body["conclusion"] == "failure" and updates[-1].body["status"] == "completed"
    (run,) = github.check_runs.values()
    assert run["status"] == "completed" and run["output"]["annotations_count"] == 324
    levels = [a["annotation_level"] for a in github.annotations[run["id"]]]
    assert levels[:4] == ["failure"] * 4 and set(levels[4:]) == {"warning"}
    assert result.check_run is not None and result.check_run.url == run["html_url"]


def test_a_passing_check_run_concludes_success(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    run_publish(github, clock, write_report(tmp_path / "r", passing_verdict()),
                settings_for(github.url, tmp_path, check_run=True, comment_mode="off"))
    (run,) = github.check_runs.values()
    assert run["conclusion"] == "success" and github.annotations[run["id"]] == []


def test_a_commit_status_has_a_short_description_and_links_the_run(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    verdict = many_failures(3)
    verdict["outcome"] = "spec_needs_review"
    run_publish(github, clock, write_report(tmp_path / "r", verdict),
                settings_for(github.url, tmp_path, commit_status=True, comment_mode="off", comment_name="e2e"))
    (status,) = github.statuses[HEAD_SHA]
    assert status["state"] == "failure" and status["context"] == "flowwalk/e2e"
    assert len(status["description"]) <= 140 and status["description"].startswith("3 failed, 0 passed, 90 skipped")
    assert status["target_url"] == "https://github.example/octo-org/shop/actions/runs/4242"


def test_github_enterprise_api_url_is_honoured(clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with FakeGitHub(prefix="/api/v3") as ghe:
        ghe.add_pull(PR)
        result, _, _ = run_publish(ghe, clock, write_report(tmp_path / "r", failing_verdict()),
                                   settings_for(ghe.url, tmp_path, commit_status=True))
        assert ghe.problems == [] and result.ok
        assert all(r.path.startswith("/repos/octo-org/shop/") for r in ghe.requests)
        assert len(ghe.flowwalk_comments(PR)) == 1 and ghe.statuses[HEAD_SHA]


def test_no_token_means_no_requests_and_a_note(github: FakeGitHub, tmp_path: Path) -> None:
    err = io.StringIO()
    result = publish(write_report(tmp_path / "r", failing_verdict()),
                     settings_for(github.url, tmp_path, token=None), stdout=io.StringIO(), stderr=err)
    assert github.requests == [] and result.exit_code == 1
    assert "not posting to GitHub: it needs a token (--token" in err.getvalue()


def test_a_missing_verdict_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        publish(tmp_path / "nothing", GitHubSettings())
    assert "no verdict to publish" in str(caught.value) and "hint: run `flowwalk run --out" in str(caught.value)


# --- the fork-safe two-workflow pattern ------------------------------------------------------------


def _workflow_run_event(tmp_path: Path, head_sha: str = HEAD_SHA, pull_requests: list[Any] | None = None) -> Path:
    event = tmp_path / "workflow_run.json"
    event.write_text(json.dumps({"workflow_run": {
        "id": 99, "head_sha": head_sha, "run_attempt": 1, "event": "pull_request",
        "pull_requests": pull_requests or [], "head_repository": {"full_name": "someone/shop"}},
        "repository": {"full_name": REPOSITORY}}))
    return event


def test_pr_context_is_written_on_pull_request_and_read_back(tmp_path: Path) -> None:
    settings = GitHubSettings(repository=REPOSITORY, pr_number=PR, sha=HEAD_SHA, run_id="99",
                              event_name="pull_request")
    path = write_pr_context(tmp_path, settings)
    assert path == tmp_path / "pr.json"
    assert json.loads(path.read_text()) == {"schema": "flowwalk.pr/1", "pr_number": PR, "head_sha": HEAD_SHA,
                                            "repository": REPOSITORY, "run_id": "99"}
    context = read_pr_context(tmp_path)
    assert context is not None and context.pr_number == PR
    assert write_pr_context(tmp_path / "push", replace(settings, event_name="push")) is None


@pytest.mark.parametrize("content,fragment", [
    ({"schema": "flowwalk.pr/1", "pr_number": "7; rm -rf /", "head_sha": HEAD_SHA}, "pr_number"),
    ({"schema": "flowwalk.pr/1", "pr_number": 7, "head_sha": "main"}, "head_sha"),
    ({"schema": "flowwalk.pr/1", "pr_number": 7, "head_sha": HEAD_SHA, "script": "x"}, "script"),
])
def test_a_tampered_pr_json_is_refused(tmp_path: Path, content: dict[str, Any], fragment: str) -> None:
    (tmp_path / "pr.json").write_text(json.dumps(content))
    with pytest.raises(UsageError) as caught:
        read_pr_context(tmp_path)
    assert "pr.json is not a valid flowwalk.pr/1 file" in str(caught.value) and fragment in str(caught.value)


def test_workflow_run_publishes_to_the_pr_named_in_the_report(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR, fork=True)
    report = write_report(tmp_path / "r", failing_verdict())
    write_pr_context(report, GitHubSettings(repository=REPOSITORY, pr_number=PR, sha=HEAD_SHA,
                                            event_name="pull_request", run_id="99"))
    settings = settings_for(github.url, tmp_path, event_name="workflow_run", pr_number=None,
                            event_path=str(_workflow_run_event(tmp_path)), commit_status=True)
    result, _, _ = run_publish(github, clock, report, settings)
    assert result.ok and result.pr_number == PR
    assert [r.operation for r in github.requests][:2] == ["pulls/get", "issues/list-comments"]
    assert len(github.flowwalk_comments(PR)) == 1 and github.statuses[HEAD_SHA][0]["state"] == "failure"


def test_workflow_run_refuses_a_report_for_another_commit(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    report = write_report(tmp_path / "r", failing_verdict())
    write_pr_context(report, GitHubSettings(repository=REPOSITORY, pr_number=PR, sha="e" * 40,
                                            event_name="pull_request"))
    settings = settings_for(github.url, tmp_path, event_name="workflow_run", pr_number=None)
    result, _, err = run_publish(github, clock, report, settings)
    assert github.calls("issues/create-comment") == [] and result.exit_code == 1
    assert "pr.json is for commit eeeeeeeeeeee but the workflow_run is for 0123456789ab" in err


def test_workflow_run_does_not_comment_when_the_pr_moved_on(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR, head_sha="a" * 40)  # a newer push: its own run will publish
    report = write_report(tmp_path / "r", failing_verdict())
    write_pr_context(report, GitHubSettings(repository=REPOSITORY, pr_number=PR, sha=HEAD_SHA,
                                            event_name="pull_request"))
    result, _, err = run_publish(github, clock, report,
                                 settings_for(github.url, tmp_path, event_name="workflow_run", pr_number=None))
    assert github.calls("issues/list-comments") == [] and result.ok
    assert "has moved on to aaaaaaaaaaaa" in err


def _deployment_status_event(tmp_path: Path, sha: str = HEAD_SHA) -> Path:
    """What GitHub sends when a preview deployment (Vercel's, say) succeeds: no PR in it."""
    path = tmp_path / "deployment_status.json"
    path.write_text(json.dumps({
        "deployment_status": {"state": "success", "environment_url": "https://shop-git-feature.vercel.app"},
        "deployment": {"sha": sha, "ref": "feature", "environment": "Preview"},
        "repository": {"full_name": REPOSITORY}}))
    return path


def test_deployment_status_comments_on_the_open_pr_whose_head_was_deployed(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(3, head_sha=HEAD_SHA)["state"] = "closed"   # an older PR of the same commit
    github.add_pull(PR, head_sha=HEAD_SHA)
    github.add_pull(9, head_sha="b" * 40)
    report = write_report(tmp_path / "r", failing_verdict())
    settings = settings_for(github.url, tmp_path, event_name="deployment_status", pr_number=None, sha=HEAD_SHA,
                            event_path=str(_deployment_status_event(tmp_path)), commit_status=True)
    result, _, err = run_publish(github, clock, report, settings)
    assert result.ok and result.pr_number == PR, err
    assert github.calls("repos/list-pull-requests-associated-with-commit")
    assert len(github.flowwalk_comments(PR)) == 1 and github.flowwalk_comments(3) == []
    assert github.statuses[HEAD_SHA][0]["state"] == "failure"


def test_a_deployment_no_open_pr_points_at_is_published_without_a_comment(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR, head_sha="a" * 40)   # the PR moved on since this commit was deployed
    report = write_report(tmp_path / "r", failing_verdict())
    settings = settings_for(github.url, tmp_path, event_name="deployment_status", pr_number=None, sha=HEAD_SHA,
                            event_path=str(_deployment_status_event(tmp_path)))
    result, _, err = run_publish(github, clock, report, settings)
    assert result.ok and result.pr_number is None and github.calls("issues/create-comment") == []
    assert "no open pull request has the deployed commit 0123456789ab as its head" in err
    assert (tmp_path / "step_summary.md").is_file()


def test_a_deployment_status_event_names_the_deployed_commit(tmp_path: Path) -> None:
    from flowwalk.github.env import github_settings_from_env

    settings = github_settings_from_env({"GITHUB_EVENT_NAME": "deployment_status", "GITHUB_SHA": "9" * 40,
                                         "GITHUB_EVENT_PATH": str(_deployment_status_event(tmp_path, "c" * 40))})
    assert settings.sha == "c" * 40 and settings.pr_number is None


def test_a_verdict_built_by_the_report_builder_publishes_with_its_root_causes(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Not a hand-written verdict: the sample run's emit.jsonl through the real build_reports."""
    from flowwalk.plan.shard import plan_run
    from flowwalk.report.build import build_reports
    from flowwalk.report.verdict_json import verdict_data
    from sample_run import sample_events, sample_suites, write_sample_run
    from flowwalk.settings import Settings

    suites = sample_suites()
    report = tmp_path / "sample"
    write_sample_run(report, sample_events(suites, plan_run(suites, Settings()).record()))
    verdict = verdict_data(build_reports(report))
    github.add_pull(PR)
    result, stdout, _ = run_publish(github, clock, report, settings_for(github.url, tmp_path, check_run=True))
    assert result.ok and result.exit_code == verdict["exit_code"]
    body = github.flowwalk_comments(PR)[0]["body"]
    for cause in verdict["root_causes"]:
        assert f"**`{cause['test_id']}`** at [{cause['path']}:{cause['line']}]" in body
        for dependent in cause["dependents"]:
            assert f"`{dependent}`" in body
    for test_id in verdict["flaky"]:
        assert f"`{test_id}`" in body
    # the site misbehaving comes first, whatever order the verdict lists its root causes in
    first = next(c for c in verdict["root_causes"] if c["failure_class"] == "assertion_failed")
    assert stdout.startswith(f"::error file={first['path']},line={first['line']},")
    (run,) = github.check_runs.values()
    assert run["output"]["annotations_count"] == len(collect(verdict))


def collect(verdict: dict[str, Any]) -> list[Any]:
    from flowwalk.github.actions import collect_annotations

    return collect_annotations(typed(verdict))


def test_a_shard_jobs_own_verdict_speaks_for_that_shard_and_never_replaces_the_merged_one(
        github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(PR)
    merged = passing_verdict()
    merged["shards"] = {"total": 2, "reported": [1, 2], "missing": [], "duplicated": [], "mismatched": []}
    run_publish(github, clock, write_report(tmp_path / "merged", merged), settings_for(github.url, tmp_path))
    for k in (1, 2):  # each matrix job publishes its own report, as a user may
        own = failing_verdict()
        own["shards"] = {"total": 2, "reported": [k], "missing": [], "duplicated": [], "mismatched": [], "shard": k}
        result, _, _ = run_publish(github, clock, write_report(tmp_path / f"shard{k}", own),
                                   settings_for(github.url, tmp_path, check_run=True, commit_status=True,
                                                comment_name="e2e" if k == 2 else None))
        assert result.comment is not None and result.comment.action == "created"

    bodies = [c["body"] for c in github.flowwalk_comments(PR)]
    assert len(bodies) == 3
    assert bodies[0].startswith("<!-- flowwalk:verdict digest=") and "shards reported: 2 of 2" in bodies[0]
    assert bodies[1].startswith("<!-- flowwalk:verdict name=shard-1-of-2 ") and "shard 1 of 2 only" in bodies[1]
    assert bodies[2].startswith("<!-- flowwalk:verdict name=e2e/shard-2-of-2 ")
    names = sorted(run["name"] for run in github.check_runs.values())
    assert names == ["flowwalk (e2e/shard-2-of-2)", "flowwalk (shard-1-of-2)"]
    assert sorted(s["context"] for s in github.statuses[HEAD_SHA]) == ["flowwalk/e2e/shard-2-of-2",
                                                                        "flowwalk/shard-1-of-2"]
