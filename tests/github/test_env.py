"""Reading the Actions environment: which PR, which commit, which API, which token."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowwalk.errors import UsageError
from flowwalk.github.env import github_settings_from_env, read_event

HEAD = "1111111111111111111111111111111111111111"
MERGE = "2222222222222222222222222222222222222222"


def _event(tmp_path: Path, payload: dict) -> str:  # type: ignore[type-arg]
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return str(path)


def _env(tmp_path: Path, event_name: str, payload: dict, **extra: str) -> dict[str, str]:  # type: ignore[type-arg]
    env = {"GITHUB_API_URL": "https://api.github.com", "GITHUB_SERVER_URL": "https://github.com",
           "GITHUB_REPOSITORY": "octo-org/shop", "GITHUB_SHA": MERGE, "GITHUB_RUN_ID": "555",
           "GITHUB_RUN_ATTEMPT": "2", "GITHUB_EVENT_NAME": event_name,
           "GITHUB_EVENT_PATH": _event(tmp_path, payload), "GITHUB_STEP_SUMMARY": "/tmp/summary",
           "GITHUB_OUTPUT": "/tmp/output", "GITHUB_TOKEN": "ghs_env"}
    env.update(extra)
    return env


def _pull_request(fork: bool = False) -> dict:  # type: ignore[type-arg]
    return {"number": 12, "pull_request": {
        "number": 12, "head": {"sha": HEAD, "repo": {"full_name": "someone/shop" if fork else "octo-org/shop",
                                                       "fork": fork}},
        "base": {"sha": "3" * 40, "repo": {"full_name": "octo-org/shop"}}}, "repository": {"full_name": "octo-org/shop"}}


def test_pull_request_reports_on_the_head_commit_not_the_merge_commit(tmp_path: Path) -> None:
    settings = github_settings_from_env(_env(tmp_path, "pull_request", _pull_request()))
    assert settings.pr_number == 12 and settings.sha == HEAD != MERGE
    assert settings.repository == "octo-org/shop" and settings.run_id == "555" and settings.run_attempt == "2"
    assert settings.step_summary == "/tmp/summary" and settings.output == "/tmp/output"
    assert settings.token == "ghs_env"
    assert "ghs_env" not in repr(settings)  # the token never shows in a repr


def test_a_fork_pull_request_is_recognised(tmp_path: Path) -> None:
    env = _env(tmp_path, "pull_request", _pull_request(fork=True))
    assert read_event("pull_request", env["GITHUB_EVENT_PATH"]).is_fork
    assert not read_event("pull_request", _env(tmp_path, "pull_request", _pull_request())["GITHUB_EVENT_PATH"]).is_fork


def test_workflow_run_takes_the_triggering_runs_commit_and_links(tmp_path: Path) -> None:
    payload = {"workflow_run": {"id": 987, "run_attempt": 3, "head_sha": HEAD, "pull_requests": [],
                                "head_repository": {"full_name": "someone/shop"}},
               "repository": {"full_name": "octo-org/shop"}}
    settings = github_settings_from_env(_env(tmp_path, "workflow_run", payload))
    assert settings.pr_number is None  # GitHub leaves it empty for forks: publish reads pr.json
    assert settings.sha == HEAD and settings.run_id == "987" and settings.run_attempt == "3"
    payload["workflow_run"]["pull_requests"] = [{"number": 44}]
    assert github_settings_from_env(_env(tmp_path, "workflow_run", payload)).pr_number == 44


def test_push_has_no_pr(tmp_path: Path) -> None:
    settings = github_settings_from_env(_env(tmp_path, "push", {"after": HEAD}))
    assert settings.pr_number is None and settings.sha == HEAD


def test_github_enterprise_urls_and_token_precedence(tmp_path: Path) -> None:
    env = _env(tmp_path, "push", {}, GITHUB_API_URL="https://ghe.example.com/api/v3/",
               GITHUB_SERVER_URL="https://ghe.example.com/", INPUT_TOKEN="ghs_input")
    settings = github_settings_from_env(env)
    assert settings.api_url == "https://ghe.example.com/api/v3" and settings.server_url == "https://ghe.example.com"
    assert settings.token == "ghs_input"
    assert github_settings_from_env(env, {"token": "ghs_flag"}).token == "ghs_flag"


def test_cli_options_override_and_unknown_keys_are_ignored(tmp_path: Path) -> None:
    env = _env(tmp_path, "push", {}, FLOWWALK_COMMENT_MODE="on-change", FLOWWALK_CHECK_RUN="true")
    settings = github_settings_from_env(env, {"comment_mode": "off", "report_dir": "x", "commit_status": True,
                                              "check_run": None, "comment_name": "e2e"})
    assert (settings.comment_mode, settings.check_run, settings.commit_status, settings.comment_name) == (
        "off", True, True, "e2e")


@pytest.mark.parametrize("overrides,message", [
    ({"comment_mode": "sometimes"}, "--comment-mode 'sometimes' is not one of always, on-failure, on-change, off"),
    ({"comment_name": "a b -->"}, "--comment-name 'a b -->' must be"),
])
def test_bad_options_are_refused_with_a_hint(tmp_path: Path, overrides: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(UsageError) as caught:
        github_settings_from_env(_env(tmp_path, "push", {}), overrides)
    assert message in str(caught.value) and "hint:" in str(caught.value)


def test_an_unreadable_event_payload_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    env = _env(tmp_path, "pull_request", {})
    Path(env["GITHUB_EVENT_PATH"]).write_text("{not json")
    settings = github_settings_from_env(env)
    assert settings.pr_number is None and settings.sha == MERGE
    assert "cannot read the event payload" in (read_event("pull_request", env["GITHUB_EVENT_PATH"]).problem or "")
