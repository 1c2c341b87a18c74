"""`flowwalk publish` in a GitLab CI job: the verdict as one sticky merge request note.

GitLab shows the JUnit report itself (`artifacts: reports: junit:` in `.gitlab-ci.yml`), so
publishing adds what it lacks: one note on the merge request with the verdict, found again by its
hidden first line across every page of the notes and edited in place, in the comment modes of the
GitHub comment (always / on-failure / on-change / off). The body is `github.render`'s, linked to
GitLab's pages. A note needs a token with the `api` scope (`GITLAB_TOKEN`); without one, on a
pipeline that is not a merge request's, or when GitLab refuses, publish says so and the verdict's
exit code stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, TextIO

from flowwalk.github.gitlab_client import GitLabClient, GitLabError, project_path
from flowwalk.github.render import RunLinks, parse_marker, render_comment, verdict_digest
from flowwalk.report.verdict_model import Verdict

#: GitLab's limit for a note's body (characters)
NOTE_LIMIT = 1_000_000


@dataclass(frozen=True)
class GitLabSettings:
    """What a GitLab CI job's environment says, read once (`gitlab_settings_from_env`)."""

    token: str | None = field(default=None, repr=False)
    api_url: str = "https://gitlab.com/api/v4"
    server_url: str = "https://gitlab.com"
    project_id: str | None = None
    project_path: str | None = None
    merge_request_iid: int | None = None
    sha: str | None = None
    pipeline_url: str | None = None
    job_url: str | None = None
    comment_mode: str = "always"
    comment_name: str | None = None


def on_gitlab(env: Mapping[str, str]) -> bool:
    return env.get("GITLAB_CI") == "true" and env.get("GITHUB_ACTIONS") != "true"


def gitlab_settings_from_env(env: Mapping[str, str], overrides: Mapping[str, Any] | None = None) -> GitLabSettings:
    """The job's GitLab settings from its predefined variables; `overrides` (the CLI's `token`,
    `comment_mode`, `comment_name`) win. The token: `--token`, else `FLOWWALK_GITLAB_TOKEN`, else
    `GITLAB_TOKEN` (never CI_JOB_TOKEN, which cannot write notes)."""
    given = {k: v for k, v in (overrides or {}).items() if v is not None}

    def text(name: str) -> str | None:
        return env.get(name, "").strip() or None

    iid = text("CI_MERGE_REQUEST_IID")
    return GitLabSettings(
        token=given.get("token") or text("FLOWWALK_GITLAB_TOKEN") or text("GITLAB_TOKEN"),
        api_url=(text("CI_API_V4_URL") or GitLabSettings.api_url).rstrip("/"),
        server_url=(text("CI_SERVER_URL") or GitLabSettings.server_url).rstrip("/"),
        project_id=text("CI_PROJECT_ID"), project_path=text("CI_PROJECT_PATH"),
        merge_request_iid=int(iid) if iid and iid.isdigit() else None,
        sha=text("CI_COMMIT_SHA"), pipeline_url=text("CI_PIPELINE_URL"), job_url=text("CI_JOB_URL"),
        comment_mode=str(given.get("comment_mode") or text("FLOWWALK_COMMENT_MODE") or "always"),
        comment_name=given.get("comment_name") or text("FLOWWALK_COMMENT_NAME"))


def gitlab_links(settings: GitLabSettings, base_url: str | None = None) -> RunLinks:
    """Where the note points: the pipeline, the job's artifacts, spec lines at the commit."""
    return RunLinks(server_url=settings.server_url, repository=settings.project_path, sha=settings.sha,
                    run_url=settings.pipeline_url, blob_route="-/blob", base_url=base_url,
                    artifact_url=f"{settings.job_url}/artifacts/browse" if settings.job_url else None)


@dataclass(frozen=True)
class NoteResult:
    #: created | updated | unchanged | skipped
    action: str
    reason: str = ""
    url: str | None = None
    note_id: int | None = None


def upsert_note(client: GitLabClient, settings: GitLabSettings, verdict: Verdict,
                links: RunLinks) -> NoteResult:
    """Create or edit the one flowwalk note on the merge request, by the comment mode. Raises
    GitLabError when GitLab refuses."""
    mode = settings.comment_mode
    if mode == "off":
        return NoteResult("skipped", "comment-mode is off")
    if not settings.project_id or settings.merge_request_iid is None:
        return NoteResult("skipped", "not a merge request pipeline (no CI_MERGE_REQUEST_IID): no note; run the "
                                     "job in merge request pipelines (rules: if: $CI_PIPELINE_SOURCE == "
                                     "\"merge_request_event\") to get one")
    notes = f"{project_path(settings.project_id)}/merge_requests/{settings.merge_request_iid}/notes"
    name = settings.comment_name
    ours = sorted((n for n in client.paginate(notes, {"sort": "asc", "order_by": "created_at"})
                   if isinstance(n, dict) and not n.get("system")
                   and (parse_marker(str(n.get("body") or "")) or ("", ""))[0] == (name or None)),
                  key=lambda n: int(n.get("id") or 0))
    newest = ours[-1] if ours else None
    passing = verdict.exit_code == 0
    if mode == "on-failure" and passing and newest is None:
        return NoteResult("skipped", "comment-mode on-failure and every test passed")
    if mode == "on-change" and newest is not None and \
            (parse_marker(str(newest.get("body") or "")) or ("", ""))[1] == verdict_digest(verdict):
        return NoteResult("unchanged", "comment-mode on-change and the result is the same",
                          url=_note_url(settings, newest.get("id")), note_id=newest.get("id"))
    body = render_comment(verdict, links, name=name, limit=NOTE_LIMIT)
    if newest is not None:
        data = client.request("PUT", f"{notes}/{newest['id']}", body={"body": body}).data or {}
        action = "updated"
    else:
        data = client.request("POST", notes, body={"body": body}).data or {}
        action = "created"
    for duplicate in ours[:-1]:   # left by two jobs that published at once
        client.request("DELETE", f"{notes}/{duplicate['id']}")
    return NoteResult(action, url=_note_url(settings, data.get("id")), note_id=data.get("id"))


def _note_url(settings: GitLabSettings, note_id: Any) -> str | None:
    if not (settings.project_path and settings.merge_request_iid is not None and note_id):
        return None
    return f"{settings.server_url}/{settings.project_path}/-/merge_requests/{settings.merge_request_iid}#note_{note_id}"


def publish_to_gitlab(verdict: Verdict, settings: GitLabSettings, *, base_url: str | None = None,
                      client: GitLabClient | None = None, err: TextIO | None = None) -> NoteResult | None:
    """The merge request note, said on `err`; never raises for GitLab's answers (the verdict stands).
    None when there was nothing to try (no token, not a merge request pipeline: both said)."""
    import sys

    err = err or sys.stderr
    if settings.comment_mode != "off" and not settings.token:
        print("flowwalk publish: note: no merge request note: it needs a token with the api scope in GITLAB_TOKEN "
              "(a project access token with the Reporter role; CI_JOB_TOKEN cannot write notes). GitLab's own "
              "test report shows junit.xml as it is", file=err)
        return None
    api = client or GitLabClient(settings.api_url, settings.token)
    try:
        result = upsert_note(api, settings, verdict, gitlab_links(settings, base_url))
    except GitLabError as error:
        print(f"flowwalk publish: note: no merge request note: {error}", file=err)
        return None
    finally:
        for line in api.log:
            print(f"flowwalk publish: note: {line}", file=err)
        if client is None:
            api.close()
    if result.action == "skipped":
        print(f"flowwalk publish: note: no merge request note: {result.reason}", file=err)
    else:
        print(f"flowwalk publish: merge request note {result.action}" + (f" ({result.url})" if result.url else ""),
              file=err)
    return result


__all__ = ["GitLabSettings", "NoteResult", "gitlab_links", "gitlab_settings_from_env", "on_gitlab",
           "publish_to_gitlab", "upsert_note"]
