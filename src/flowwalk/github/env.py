"""Reading the GitHub Actions environment, once, into a frozen `GitHubSettings`.

`github_settings_from_env(env, overrides)` is the one pure-ish function that does it (it reads the
event payload file that `GITHUB_EVENT_PATH` names, nothing else). Tests call it with plain dicts.

Where the PR number and the commit to report on come from depends on the event (contract.md 5.2):
on `pull_request` / `pull_request_target` the payload's PR and its *head* SHA (`GITHUB_SHA` is the
test merge commit there, which is not on the PR); on `workflow_run` the triggering run's head SHA,
and the PR number only when GitHub lists it (it does not for fork PRs: `publish` then takes it from
the report's `pr.json`); on `deployment_status` the deployed commit, and the PR whose head it is is
looked up when publishing (github/publish.py); on anything else `GITHUB_SHA` and no PR.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict, ValidationError

from flowwalk.errors import UsageError
from flowwalk.settings import COMMENT_MODES, GitHubSettings

PR_EVENTS = ("pull_request", "pull_request_target")
_SHA = re.compile(r"^[0-9a-f]{40}$")
#: goes inside an HTML comment (the marker), so no `--`, no `>` and no spaces
_COMMENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$")


# --- the event payload: only the fields flowwalk reads; GitHub sends far more --------------------


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Repo(_Loose):
    full_name: str | None = None
    fork: bool | None = None


class _Ref(_Loose):
    sha: str | None = None
    repo: _Repo | None = None  # null once a fork is deleted, whatever the schema says


class _PullRequest(_Loose):
    number: int | None = None
    head: _Ref | None = None
    base: _Ref | None = None


class _RunPullRequest(_Loose):
    number: int


class _WorkflowRun(_Loose):
    id: int | None = None
    head_sha: str | None = None
    run_attempt: int | None = None
    event: str | None = None
    html_url: str | None = None
    pull_requests: list[_RunPullRequest] = []
    head_repository: _Repo | None = None


class _Deployment(_Loose):
    sha: str | None = None


class _Payload(_Loose):
    deployment: _Deployment | None = None
    number: int | None = None
    pull_request: _PullRequest | None = None
    workflow_run: _WorkflowRun | None = None
    after: str | None = None
    repository: _Repo | None = None


@dataclass(frozen=True)
class EventContext:
    """What the event payload says about the PR and the commit, plus any problem reading it."""

    pr_number: int | None = None
    head_sha: str | None = None
    is_fork: bool = False
    #: workflow_run: the run that ran the tests (its artifacts and its page are what users want)
    source_run_id: str | None = None
    source_run_attempt: str | None = None
    problem: str | None = None


def read_event(event_name: str | None, event_path: str | None) -> EventContext:
    """Parse the payload at `event_path`. Never raises: a problem is returned for the caller to report."""
    if not event_path:
        return EventContext()
    try:
        raw = json.loads(Path(event_path).read_text(encoding="utf-8"))
        payload = _Payload.model_validate(raw)
    except (OSError, ValueError, ValidationError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        return EventContext(problem=f"cannot read the event payload {event_path!r}: {first}")

    if event_name in PR_EVENTS and payload.pull_request is not None:
        pr = payload.pull_request
        number = payload.number or pr.number
        head = pr.head.sha if pr.head else None
        head_repo = pr.head.repo.full_name if pr.head and pr.head.repo else None
        base_repo = (pr.base.repo.full_name if pr.base and pr.base.repo else None) or (
            payload.repository.full_name if payload.repository else None)
        # a deleted fork leaves head.repo null: still not the base repository
        is_fork = bool(pr.head and pr.head.repo and pr.head.repo.fork) or head_repo != base_repo
        return EventContext(pr_number=number, head_sha=_sha_or_none(head), is_fork=is_fork)
    if event_name == "workflow_run" and payload.workflow_run is not None:
        run = payload.workflow_run
        number = run.pull_requests[0].number if run.pull_requests else None
        head_repo = run.head_repository.full_name if run.head_repository else None
        base_repo = payload.repository.full_name if payload.repository else None
        return EventContext(
            pr_number=number, head_sha=_sha_or_none(run.head_sha),
            is_fork=head_repo is not None and base_repo is not None and head_repo != base_repo,
            source_run_id=str(run.id) if run.id is not None else None,
            source_run_attempt=str(run.run_attempt) if run.run_attempt is not None else None)
    if event_name == "deployment_status" and payload.deployment is not None:
        # the deployed commit; the PR (none is in the payload) is looked up when publishing
        return EventContext(head_sha=_sha_or_none(payload.deployment.sha))
    if event_name == "push" and payload.after:
        return EventContext(head_sha=_sha_or_none(payload.after))
    return EventContext()


def _sha_or_none(value: str | None) -> str | None:
    return value if value and _SHA.match(value) else None


# --- settings --------------------------------------------------------------------------------------


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise UsageError(f"{name} '{value}' is not true or false\n  hint: use true or false")


_FIELDS = {f.name for f in fields(GitHubSettings)}


def github_settings_from_env(env: Mapping[str, str], overrides: Mapping[str, Any] | None = None) -> GitHubSettings:
    """Build the GitHub settings from `GITHUB_*` / `FLOWWALK_*` variables; `overrides` (CLI options) win.

    Token precedence: `overrides["token"]` (`--token`), then `INPUT_TOKEN` (the Action's input),
    then `GITHUB_TOKEN`. Keys of `overrides` that are not GitHubSettings fields are ignored (the
    CLI passes its whole option dict) and None values mean "not given".
    """
    given = {k: v for k, v in (overrides or {}).items() if k in _FIELDS and v is not None}
    event_name = _text(env, "GITHUB_EVENT_NAME")
    event_path = _text(env, "GITHUB_EVENT_PATH")
    event = read_event(event_name, event_path)

    values: dict[str, Any] = {
        "token": _text(env, "INPUT_TOKEN") or _text(env, "GITHUB_TOKEN"),
        "api_url": (_text(env, "GITHUB_API_URL") or GitHubSettings.api_url).rstrip("/"),
        "server_url": (_text(env, "GITHUB_SERVER_URL") or GitHubSettings.server_url).rstrip("/"),
        "repository": _text(env, "GITHUB_REPOSITORY"),
        "pr_number": event.pr_number,
        "sha": event.head_sha or _text(env, "GITHUB_SHA"),
        # on workflow_run the tests ran in another run: link there, that is where the artifacts are
        "run_id": event.source_run_id or _text(env, "GITHUB_RUN_ID"),
        "run_attempt": event.source_run_attempt if event.source_run_id else _text(env, "GITHUB_RUN_ATTEMPT"),
        "event_name": event_name,
        "event_path": event_path,
        "step_summary": _text(env, "GITHUB_STEP_SUMMARY"),
        "output": _text(env, "GITHUB_OUTPUT"),
        "comment_mode": _text(env, "FLOWWALK_COMMENT_MODE") or GitHubSettings.comment_mode,
        "check_run": _flag("FLOWWALK_CHECK_RUN", env.get("FLOWWALK_CHECK_RUN", "")),
        "commit_status": _flag("FLOWWALK_COMMIT_STATUS", env.get("FLOWWALK_COMMIT_STATUS", "")),
        "artifact_url": _text(env, "FLOWWALK_ARTIFACT_URL"),
        "comment_name": _text(env, "FLOWWALK_COMMENT_NAME"),
        "heal_suggestions": _flag("FLOWWALK_HEAL_SUGGESTIONS", env.get("FLOWWALK_HEAL_SUGGESTIONS", "true")),
    }
    values.update(given)
    if isinstance(values["token"], str) and not values["token"].strip():
        values["token"] = None
    for name in ("check_run", "commit_status", "heal_suggestions"):
        values[name] = _flag(f"--{name.replace('_', '-')}", values[name])

    def named(key: str) -> str:   # where the value came from, for a message
        return f"--{key.replace('_', '-')} " if key in given else f"FLOWWALK_{key.upper()}="

    if values["comment_mode"] not in COMMENT_MODES:
        raise UsageError(f"{named('comment_mode')}'{values['comment_mode']}' is not one of "
                         f"{', '.join(COMMENT_MODES)}\n  hint: on-failure comments only when something failed; off "
                         f"never comments")
    name = values["comment_name"]
    if name is not None and not _COMMENT_NAME.match(str(name)):
        raise UsageError(f"{named('comment_name')}'{name}' must be letters, digits, '.', '_', '-' or '/' (at most "
                         f"63)\n  hint: for example {named('comment_name')}e2e-chrome")
    repo = values["repository"]
    if repo is not None and not re.match(r"^[\w.-]+/[\w.-]+$", str(repo)):
        raise UsageError(f"GITHUB_REPOSITORY '{repo}' is not owner/name\n  hint: for example octo-org/shop")
    pr_number = values["pr_number"]
    if pr_number is not None:
        try:
            values["pr_number"] = int(pr_number)
        except (TypeError, ValueError):
            raise UsageError(f"PR number '{pr_number}' is not a whole number") from None
    return GitHubSettings(**values)
