"""`flowwalk publish`: a finished report folder -> the pull request, the job summary, the outputs.

`publish(report_dir, settings)` reads `verdict.json` (and the base URL from `emit.jsonl`), then
does each of these on its own, so that one failing never stops the others:

1. the job summary (`summary.md`, or the rendered verdict) appended to `GITHUB_STEP_SUMMARY`;
2. `::error` / `::warning` annotations on the failing spec lines (only inside a workflow run);
3. each heal as a review comment with a suggestion block (`heal-suggestions`, github/review.py),
   then the sticky PR comment (`comment-mode`), then the optional check run and commit status;
4. the step outputs in `GITHUB_OUTPUT` (verdict, counts, report dir, comment URL).

A failure to publish is printed with what to do and kept in `PublishResult.errors`; it never
changes the exit code, which is always the verdict's own (`PublishResult.exit_code`).

Fork pull requests get a read-only token, so the fork-safe pattern splits the work: the
`pull_request` workflow runs the checks and uploads the report folder, which carries `pr.json`
(`write_pr_context`, called by `flowwalk run`); a `workflow_run` workflow downloads it and runs
`flowwalk publish`, which takes the PR number from `pr.json` after checking it (an integer, a
40-hex SHA equal to the triggering run's head SHA, the same repository, and the PR's current head
through the API). Everything in the artifact is treated as untrusted data.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Sequence, TextIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from flowwalk.errors import UsageError
from flowwalk.github.actions import (
    CheckRunResult, StatusResult, append_job_summary, collect_annotations, print_annotations,
    publish_check_run, publish_commit_status, verdict_outputs, write_outputs,
)
from flowwalk.github.client import (
    FORK_HINT, GitHubClient, GitHubError, ReadOnlyTokenError, repo_path,
)
from flowwalk.github.comment import CommentResult, upsert_comment
from flowwalk.github.env import PR_EVENTS, github_settings_from_env, read_event
from flowwalk.github.render import RunLinks, links_from_settings, render_markdown
from flowwalk.github.review import Suggestion, SuggestionResult, post_suggestions, suggestion_status
from flowwalk.report.verdict_json import read_verdict
from flowwalk.report.verdict_model import Verdict
from flowwalk.reportfolder import ReportFolder
from flowwalk.settings import GitHubSettings

PR_CONTEXT_SCHEMA = "flowwalk.pr/1"


# --- pr.json: the PR a report belongs to (fork-safe two-workflow pattern) ----------------------------


class PrContext(BaseModel):
    """pr.json. Written by `flowwalk run` on pull_request; read, as untrusted input, by publish."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    schema_: Literal["flowwalk.pr/1"] = Field(alias="schema", default="flowwalk.pr/1")
    pr_number: int = Field(gt=0, lt=2**31)
    head_sha: str = Field(pattern=r"^[0-9a-f]{40}$")
    repository: str | None = Field(default=None, pattern=r"^[\w.-]+/[\w.-]+$")
    run_id: str | None = Field(default=None, pattern=r"^\d{1,20}$")


def write_pr_context(report_dir: str | Path, settings: GitHubSettings | None = None) -> Path | None:
    """Write `pr.json` into the report folder on a pull_request event; None (nothing written) otherwise.

    With `settings` None the Actions environment is read. Never raises for a missing or odd
    environment: a run must not fail because of it.
    """
    if settings is None:
        try:
            settings = github_settings_from_env(os.environ)
        except UsageError:
            return None
    if settings.event_name not in PR_EVENTS or not settings.pr_number or not settings.sha:
        return None
    try:
        context = PrContext(pr_number=settings.pr_number, head_sha=settings.sha,
                            repository=settings.repository, run_id=settings.run_id)
    except ValidationError:
        return None
    path = ReportFolder(Path(report_dir)).pr_context
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(context.model_dump_json(by_alias=True, indent=2) + "\n", encoding="utf-8")
    return path


def read_pr_context(report_dir: str | Path) -> PrContext | None:
    """The report's pr.json, validated; None when there is none. Raises UsageError when it is bad."""
    path = ReportFolder(Path(report_dir)).pr_context
    if not path.is_file():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return PrContext.model_validate(raw)
    except (ValueError, ValidationError) as error:
        first = str(error).splitlines()
        detail = first[1].strip() + ": " + first[2].strip() if len(first) > 2 else (first[0] if first else "")
        raise UsageError(f"{path}:1:1: error: pr.json is not a valid {PR_CONTEXT_SCHEMA} file ({detail})\n"
                         f"  hint: it is written by `flowwalk run` on a pull_request event; do not edit it") from None


# --- the verdict ----------------------------------------------------------------------------------------


def load_verdict(report_dir: str | Path) -> Verdict:
    """The report folder's verdict.json (`verdict_json.read_verdict`); UsageError when there is none."""
    path = ReportFolder(Path(report_dir)).verdict
    if not path.is_file():
        raise UsageError(f"{path}: no verdict to publish\n  hint: run `flowwalk run --out {report_dir}` first, or "
                         f"point --report at the folder `flowwalk merge --out` wrote")
    return read_verdict(path)


def shard_name(verdict: Verdict, name: str | None) -> str | None:
    """The comment name a verdict publishes under: a shard job's own verdict (`shards.shard`, see
    records.read_run) speaks for that shard alone, so its comment, check run and status are named
    `shard-K-of-N` (after --comment-name) and never replace the merged verdict's or another shard's."""
    shard, total = verdict.shards.shard, verdict.shards.total
    if shard is None:
        return name
    own = f"shard-{shard}-of-{total}"
    return f"{name}/{own}" if name else own


def for_shard(verdict: Verdict, settings: GitHubSettings) -> GitHubSettings:
    named = shard_name(verdict, settings.comment_name)
    return settings if named == settings.comment_name else replace(settings, comment_name=named)


def run_base_url(report_dir: Path) -> str | None:
    """The base URL the run used (from emit.jsonl's first record), for the reproduce command."""
    try:
        with ReportFolder(report_dir).emit.open(encoding="utf-8") as handle:
            first = json.loads(handle.readline() or "{}")
    except (OSError, ValueError):
        return None
    value = (first.get("settings") or {}).get("base_url") if isinstance(first, dict) else None
    return str(value) if value else None


# --- publish --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PublishResult:
    """What publish did. `exit_code` is the verdict's; publishing problems are in `errors` only."""

    exit_code: int
    outcome: str
    comment: CommentResult | None = None
    check_run: CheckRunResult | None = None
    commit_status: StatusResult | None = None
    suggestions: SuggestionResult | None = None
    summary_bytes: int = 0
    outputs_written: bool = False
    annotations_printed: int = 0
    errors: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    pr_number: int | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def comment_url(self) -> str | None:
        return self.comment.url if self.comment else None


@dataclass
class _Progress:
    errors: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    read_only: bool = False


def publish(report_dir: str | Path, settings: GitHubSettings, *, client: GitHubClient | None = None,
            stdout: TextIO | None = None, stderr: TextIO | None = None, annotate: bool | None = None,
            workspace: str | None = None, suggestions: Sequence[Suggestion] = ()) -> PublishResult:
    """Publish the report folder's verdict. Raises UsageError only when there is no readable verdict.

    `annotate` (default: inside a workflow run, i.e. `settings.run_id` is set) prints the
    annotation commands on `stdout`. `client` lets tests point at a fake GitHub with a fake clock.
    `suggestions` are the report's heals as spec lines (see `app.publish.publish`), posted as review
    comments when `settings.heal_suggestions` is on and there is a PR.
    """
    report = Path(report_dir)
    out, err = stdout or sys.stdout, stderr or sys.stderr
    verdict = load_verdict(report)
    settings = for_shard(verdict, settings)
    progress = _Progress()
    event = read_event(settings.event_name, settings.event_path)
    if event.problem:
        progress.notices.append(event.problem)

    settings = _with_pr_context(report, settings, progress)
    links = links_from_settings(settings, base_url=run_base_url(report))
    annotations = collect_annotations(verdict, workspace)

    # 1. the job summary
    summary_bytes = 0
    summary_md = _summary_markdown(report, verdict, links)
    if settings.step_summary:
        summary_bytes = _guard(progress, "job summary",
                               lambda: append_job_summary(settings.step_summary or "", summary_md)) or 0

    # 2. annotations on the spec lines
    printed = 0
    if annotate if annotate is not None else settings.run_id is not None:
        printed = _guard(progress, "annotations", lambda: print_annotations(annotations, out)) or 0

    # 3. GitHub API: comment, check run, commit status
    comment = check = status = None
    suggested: SuggestionResult | None = None
    wants = (settings.comment_mode != "off", settings.check_run, settings.commit_status,
             bool(settings.heal_suggestions and suggestions and settings.pr_number))
    own_client = client is None
    if any(wants):
        missing = [what for what, value in (("a token (--token, the Action's token input or GITHUB_TOKEN)",
                                             settings.token),
                                            ("GITHUB_REPOSITORY", settings.repository)) if not value]
        if missing and client is None:
            progress.notices.append("not posting to GitHub: it needs " + " and ".join(missing))
        else:
            api = client or GitHubClient(settings.api_url, settings.token)
            try:
                settings = _confirm_pr_head(api, settings, progress)
                settings = _deployed_pull(api, settings, progress)
                if settings.heal_suggestions and suggestions and settings.pr_number:
                    # before the sticky comment, which lists the heals GitHub would not take as suggestions
                    suggested = _api_step(progress, "heal suggestions", event.is_fork,
                                          lambda: post_suggestions(api, settings, list(suggestions)))
                    if suggested is not None:
                        progress.notices.extend(_suggestion_notes(suggested))
                if wants[0]:
                    comment = _api_step(progress, "PR comment", event.is_fork,
                                        lambda: upsert_comment(api, settings, verdict, links, heal_status=(
                                            suggestion_status(suggested) if suggested is not None else None)))
                    if comment is not None and comment.action == "skipped":
                        progress.notices.append(f"PR comment: not posted ({comment.reason})")
                    if comment is not None:
                        progress.notices.extend(comment.notes)
                for wanted, label, step in (
                        (wants[1], "check run", lambda: publish_check_run(api, settings, verdict, annotations,
                                                                          summary_md, links)),
                        (wants[2], "commit status", lambda: publish_commit_status(api, settings, verdict, links))):
                    if not wanted:
                        continue
                    if not settings.sha:
                        progress.notices.append(f"{label}: skipped, no commit SHA (GITHUB_SHA or the event's head)")
                        continue
                    if progress.read_only:
                        progress.notices.append(f"{label}: skipped, the token is read-only")
                        continue
                    result = _api_step(progress, label, event.is_fork, step)
                    if label == "check run":
                        check = result
                    else:
                        status = result
                progress.notices.extend(api.log)
            finally:
                if own_client:
                    api.close()

    # 4. step outputs
    outputs_written = False
    if settings.output:
        outputs = verdict_outputs(verdict, str(report_dir), comment.url if comment else None,
                                  check.url if check else None)

        def write() -> bool:
            write_outputs(settings.output or "", outputs)
            return True

        outputs_written = _guard(progress, "step outputs", write) or False

    result = PublishResult(
        exit_code=verdict.exit_code, outcome=verdict.outcome, comment=comment, check_run=check,
        commit_status=status, suggestions=suggested, summary_bytes=summary_bytes, outputs_written=outputs_written,
        annotations_printed=printed, errors=tuple(progress.errors), notices=tuple(progress.notices),
        pr_number=settings.pr_number)
    _report(result, err, on_actions=settings.run_id is not None, stdout=out)
    return result


def _suggestion_notes(result: SuggestionResult) -> list[str]:
    notes = []
    if result.already:
        notes.append(f"heal suggestions: {len(result.already)} already on the PR from an earlier run, not posted again")
    for suggestion in result.not_in_diff:
        notes.append(f"heal suggestion for {suggestion.path}:{suggestion.line} not posted: the line is not part of "
                     f"the PR's diff (GitHub answered 422); run `flowwalk heal --report DIR --apply` to keep it")
    for suggestion, why in result.left_out:
        notes.append(f"heal suggestion for {suggestion.path}:{suggestion.line} not posted: {why}")
    return notes


def _summary_markdown(report: Path, verdict: Verdict, links: RunLinks) -> str:
    summary = ReportFolder(report).summary
    try:
        text = summary.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if text.strip():
        return text if text.endswith("\n") else text + "\n"
    return render_markdown(verdict, links, limit=10**9)


def _with_pr_context(report: Path, settings: GitHubSettings, progress: _Progress) -> GitHubSettings:
    """On workflow_run (or with no PR in the environment) take the PR from the report's pr.json."""
    if settings.event_name in PR_EVENTS:
        return settings  # the environment is authoritative; pr.json is for the other workflow
    try:
        context = read_pr_context(report)
    except UsageError as error:
        progress.errors.append(str(error))
        return replace(settings, pr_number=None)
    if context is None:
        return settings
    if settings.repository and context.repository and context.repository.lower() != settings.repository.lower():
        progress.errors.append(f"pr.json names repository {context.repository}, this workflow runs in "
                               f"{settings.repository}: not publishing to a PR\n  hint: download the "
                               f"artifact of a run of this repository")
        return replace(settings, pr_number=None)
    if settings.sha and settings.event_name == "workflow_run" and context.head_sha != settings.sha:
        progress.errors.append(f"pr.json is for commit {context.head_sha[:12]} but the workflow_run is for "
                               f"{settings.sha[:12]}: not publishing to PR #{context.pr_number}\n  hint: "
                               f"download the artifact of the triggering run "
                               f"(run-id: ${{{{ github.event.workflow_run.id }}}})")
        return replace(settings, pr_number=None)
    if settings.pr_number and settings.pr_number != context.pr_number:
        progress.errors.append(f"pr.json says PR #{context.pr_number}, the event says #{settings.pr_number}: "
                               f"not publishing to a PR")
        return replace(settings, pr_number=None)
    return replace(settings, pr_number=context.pr_number, sha=settings.sha or context.head_sha)


def _confirm_pr_head(client: GitHubClient, settings: GitHubSettings, progress: _Progress) -> GitHubSettings:
    """workflow_run: the PR must still point at the commit the report is for (pulls/get)."""
    if settings.event_name != "workflow_run" or not settings.pr_number or not settings.repository:
        return settings
    try:
        pull = client.get(f"{repo_path(settings.repository)}/pulls/{settings.pr_number}").data or {}
    except GitHubError as error:
        progress.errors.append(f"could not check PR #{settings.pr_number}: {error}")
        return replace(settings, pr_number=None)
    head = ((pull.get("head") or {}).get("sha")) or ""
    if settings.sha and head != settings.sha:
        progress.notices.append(f"PR #{settings.pr_number} has moved on to {head[:12]} since this report's commit "
                                f"{settings.sha[:12]}: not commenting (the newer run will)")
        return replace(settings, pr_number=None)
    return settings


def _deployed_pull(client: GitHubClient, settings: GitHubSettings, progress: _Progress) -> GitHubSettings:
    """deployment_status: the event names the deployed commit, not a PR. The open PR whose head that
    commit is gets the comment; with none (a deployment of main, a PR moved on since), nothing does."""
    if settings.event_name != "deployment_status" or settings.pr_number or not settings.sha \
            or not settings.repository:
        return settings
    try:
        pulls = list(client.paginate(f"{repo_path(settings.repository)}/commits/{settings.sha}/pulls"))
    except GitHubError as error:
        progress.notices.append(f"could not find the pull request of commit {settings.sha[:12]}: {error}")
        return settings
    heads = sorted(int(p["number"]) for p in pulls if isinstance(p, dict) and p.get("state") == "open"
                   and (p.get("head") or {}).get("sha") == settings.sha and isinstance(p.get("number"), int))
    if not heads:
        progress.notices.append(f"no open pull request has the deployed commit {settings.sha[:12]} as its head: "
                                f"no PR comment (the job summary, annotations and outputs are written)")
        return settings
    if len(heads) > 1:
        progress.notices.append(f"the deployed commit {settings.sha[:12]} heads PRs "
                                f"{', '.join(f'#{n}' for n in heads)}: commenting on #{heads[0]}")
    return replace(settings, pr_number=heads[0])


def _guard(progress: _Progress, label: str, action: Callable[[], Any]) -> Any:
    """Run one local publishing step; any failure is recorded, never raised."""
    try:
        return action()
    except OSError as error:
        progress.errors.append(f"{label}: cannot write {getattr(error, 'filename', '') or ''}: {error.strerror or error}")
    except Exception as error:  # a flowwalk bug must not cost the user the verdict
        progress.errors.append(f"{label}: internal error {type(error).__name__}: {error}\n  hint: please report this")
    return None


def _api_step(progress: _Progress, label: str, is_fork: bool, action: Callable[[], Any]) -> Any:
    if progress.read_only:
        return None
    try:
        return action()
    except ReadOnlyTokenError as error:
        progress.read_only = True
        fork = " This pull request comes from a fork." if is_fork else ""
        progress.errors.append(f"{label}: {error.message}.{fork}\n  hint: {FORK_HINT}")
    except GitHubError as error:
        progress.errors.append(f"{label}: {error}")
    except Exception as error:  # a flowwalk bug must not cost the user the verdict
        progress.errors.append(f"{label}: internal error {type(error).__name__}: {error}\n  hint: please report this")
    return None


def _report(result: PublishResult, err: TextIO, *, on_actions: bool, stdout: TextIO) -> None:
    done = []
    if result.comment is not None and result.comment.action != "skipped":
        done.append(f"comment {result.comment.action}" + (f" ({result.comment.url})" if result.comment.url else ""))
    if result.suggestions is not None and result.suggestions.posted:
        count = len(result.suggestions.posted)
        done.append(f"{count} heal suggestion{'s' * (count != 1)} posted")
    if result.check_run is not None:
        done.append(f"check run {result.check_run.conclusion} with {result.check_run.annotations_sent} annotations")
    if result.commit_status is not None:
        done.append(f"commit status {result.commit_status.state}")
    if result.summary_bytes:
        done.append("job summary written")
    if result.outputs_written:
        done.append("step outputs set")
    if result.annotations_printed:
        done.append(f"{result.annotations_printed} annotations")
    print(f"flowwalk publish: {'; '.join(done) if done else 'nothing to publish'}", file=err)
    for notice in result.notices:
        print(f"flowwalk publish: note: {notice}", file=err)
    for error in result.errors:
        print(f"flowwalk publish: error: {error}", file=err)
        if on_actions:
            first = error.splitlines()[0].replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            print(f"::warning title=flowwalk publish::{first}", file=stdout)
    if result.errors:
        print(f"flowwalk publish: the verdict stands (exit code {result.exit_code}); "
              f"publishing problems never change it", file=err)
    err.flush()
