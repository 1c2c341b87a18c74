"""`flowwalk publish` in a GitLab CI job, against the fake GitLab over HTTP: one sticky merge request
note found across pages and edited in place, the comment modes, and every way it cannot be written
said plainly, with the verdict's exit code kept."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest
from verdicts import failing_verdict, passing_verdict, typed, write_report

from fake_gitlab import PROJECT_PATH, READ_ONLY_TOKEN, FakeGitLab, merge_request_env
from flowwalk.github.gitlab import NoteResult, gitlab_settings_from_env, publish_to_gitlab
from flowwalk.github.gitlab_client import GitLabClient

ROOT = Path(__file__).resolve().parents[2]
IID = 12


@pytest.fixture()
def gitlab() -> Iterator[FakeGitLab]:
    with FakeGitLab() as fake:
        fake.add_merge_request(IID)
        yield fake
        assert fake.problems == [], "flowwalk sent requests GitLab would refuse"


def publish(gitlab: FakeGitLab, clock, verdict: dict, **env_changes: str | None) -> tuple[NoteResult | None, str]:  # type: ignore[no-untyped-def]
    env = {k: v for k, v in {**merge_request_env(gitlab.api_url), **env_changes}.items() if v is not None}
    settings = gitlab_settings_from_env(env)
    err = io.StringIO()
    client = GitLabClient(settings.api_url, settings.token, clock=clock, jitter=lambda: 0.5)
    return publish_to_gitlab(typed(verdict), settings, client=client, err=err, base_url="https://preview.example"), \
        err.getvalue()


def test_publishing_twice_leaves_one_note_past_a_page_of_other_notes(gitlab: FakeGitLab, clock) -> None:  # type: ignore[no-untyped-def]
    for n in range(130):   # more than a page of 100, system notes among them
        gitlab.add_note(IID, f"added {n} commits" if n % 10 == 0 else f"nit {n}", system=n % 10 == 0)
    first, err = publish(gitlab, clock, failing_verdict())
    assert first is not None and first.action == "created", err
    assert f"/{PROJECT_PATH}/-/merge_requests/{IID}#note_{first.note_id}" in (first.url or "")
    second, _ = publish(gitlab, clock, passing_verdict())
    assert second is not None and second.action == "updated" and second.note_id == first.note_id
    [ours] = gitlab.flowwalk_notes(IID)
    assert "all checks passed" in ours["body"]
    # every page was read both times (the note was on the second), through the Link header
    pages = [r.query.get("page", ["1"])[0] for r in gitlab.requests if r.method == "GET"]
    assert pages == ["1", "2", "1", "2"]
    assert [r.method for r in gitlab.requests if r.method != "GET"] == ["POST", "PUT"]


def test_the_note_links_the_pipeline_the_artifacts_and_the_spec_lines_in_gitlab(gitlab: FakeGitLab, clock) -> None:  # type: ignore[no-untyped-def]
    publish(gitlab, clock, failing_verdict())
    [note] = gitlab.flowwalk_notes(IID)
    server = gitlab.api_url.rsplit("/api/v4", 1)[0]
    assert f"{server}/{PROJECT_PATH}/-/pipelines/77" in note["body"]
    assert f"{server}/{PROJECT_PATH}/-/jobs/991/artifacts/browse" in note["body"]
    assert f"{server}/{PROJECT_PATH}/-/blob/{'a1b2c3d4' * 5}/examples/" in note["body"]


def test_on_change_keeps_quiet_when_the_result_is_the_same(gitlab: FakeGitLab, clock) -> None:  # type: ignore[no-untyped-def]
    publish(gitlab, clock, failing_verdict(), FLOWWALK_COMMENT_MODE="on-change")
    again, _ = publish(gitlab, clock, failing_verdict(), FLOWWALK_COMMENT_MODE="on-change")
    assert again is not None and again.action == "unchanged"
    assert [r.method for r in gitlab.requests if r.method != "GET"] == ["POST"]


@pytest.mark.parametrize("changes, said", [
    ({"GITLAB_TOKEN": None}, "it needs a token with the api scope in GITLAB_TOKEN"),
    ({"GITLAB_TOKEN": READ_ONLY_TOKEN}, "GitLab answered 403"),
    ({"GITLAB_TOKEN": "glpat-revoked"}, "GitLab answered 401"),
    ({"CI_MERGE_REQUEST_IID": None}, "not a merge request pipeline"),
])
def test_a_note_that_cannot_be_written_is_said_without_an_error(gitlab: FakeGitLab, clock, changes: dict,  # type: ignore[no-untyped-def]
                                                               said: str) -> None:
    env = merge_request_env(gitlab.api_url)
    result, err = publish(gitlab, clock, failing_verdict(), **{k: changes.get(k, env.get(k)) for k in changes})
    assert said in err and "no merge request note" in err
    assert result is None or result.action == "skipped"
    assert gitlab.flowwalk_notes(IID) == []


def test_server_errors_are_retried_and_a_rate_limit_waited_out(gitlab: FakeGitLab, clock) -> None:  # type: ignore[no-untyped-def]
    gitlab.fail(502, method="GET")
    gitlab.fail(429, method="POST", headers={"Retry-After": "7"})
    result, err = publish(gitlab, clock, failing_verdict())
    assert result is not None and result.action == "created", err
    assert 7.0 in clock.sleeps and len(clock.sleeps) == 2


def test_flowwalk_publish_in_a_gitlab_job_writes_the_note_and_exits_with_the_verdict(
        gitlab: FakeGitLab, tmp_path: Path) -> None:
    report = write_report(tmp_path / "flowwalk-report", failing_verdict())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "FLOWWALK_", "CI_"))}
    env.update(merge_request_env(gitlab.api_url))
    done = subprocess.run([sys.executable, "-m", "flowwalk", "publish", "--report", str(report)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "flowwalk publish: merge request note created" in done.stderr
    assert len(gitlab.flowwalk_notes(IID)) == 1
    # without a token: said, and the exit code is still the verdict's
    env.pop("GITLAB_TOKEN")
    done = subprocess.run([sys.executable, "-m", "flowwalk", "publish", "--report", str(report)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "no merge request note" in done.stderr
