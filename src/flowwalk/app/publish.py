"""`flowwalk publish`: the verdict on the pull request, and the report's heals as review suggestions;
in a GitLab CI job, the verdict as the merge request's note (github/gitlab.py)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path

from flowwalk.github.actions import repo_relative
from flowwalk.github.env import github_settings_from_env
from flowwalk.github.gitlab import gitlab_settings_from_env, on_gitlab, publish_to_gitlab
from flowwalk.github.publish import PublishResult, load_verdict, publish as publish_report, run_base_url
from flowwalk.github.review import Suggestion
from flowwalk.heal.patch import plan_patch
from flowwalk.report.records import ReportError

__all__ = ["PublishRequest", "publish"]


@dataclass(frozen=True)
class PublishRequest:
    """What `flowwalk publish` is asked; the rest comes from the GitHub Actions environment. Each
    option is named after the `GitHubSettings` field it sets; None: not given."""

    report_dir: Path = Path("flowwalk-report")
    token: str | None = field(default=None, repr=False)
    comment_mode: str | None = None
    check_run: bool | None = None
    commit_status: bool | None = None
    comment_name: str | None = None
    heal_suggestions: bool | None = None


def publish(request: PublishRequest) -> PublishResult:
    given = {f.name: getattr(request, f.name) for f in fields(request) if f.name != "report_dir"}
    if on_gitlab(os.environ):
        return _publish_to_gitlab(request.report_dir, given)
    gh = github_settings_from_env(os.environ, given)
    load_verdict(request.report_dir)  # a folder with no verdict is refused as that, before its heals are read
    suggestions = _heal_suggestions(request.report_dir) if gh.heal_suggestions and gh.pr_number else []
    return publish_report(request.report_dir, gh, suggestions=suggestions)


def _publish_to_gitlab(report_dir: Path, given: dict[str, object]) -> PublishResult:
    """The merge request note; GitLab reads junit.xml as its test report itself. The verdict's exit
    code stands whatever GitLab answers (each answer is said on stderr)."""
    verdict = load_verdict(report_dir)
    settings = gitlab_settings_from_env(os.environ, {k: given[k] for k in ("token", "comment_mode", "comment_name")})
    publish_to_gitlab(verdict, settings, base_url=run_base_url(report_dir))
    return PublishResult(exit_code=verdict.exit_code, outcome=verdict.outcome)


def _heal_suggestions(report_dir: Path) -> list[Suggestion]:
    """The report's heals as review suggestions, read against the spec files of the checkout (the
    report's project root); heals whose spec line is not there as the run saw it are left out."""
    from flowwalk.app.heal import heal_root

    root = heal_root(report_dir)
    try:
        patch = plan_patch(report_dir, root)
    except ReportError:
        return []  # publish says what is wrong with the report itself
    for skipped in patch.skipped:
        print(f"flowwalk publish: note: no heal suggestion for {skipped.render()}", file=sys.stderr)
    # review comments name files relative to the repository, the patch relative to the project root
    top = str(root.resolve())
    return [Suggestion(path=repo_relative(e.path, root=top), start_line=e.first_line, line=e.last_line, lines=e.new_lines,
                       old_selector=e.heal.old_selector, new_selector=e.heal.new_selector, method=e.heal.method,
                       score=e.heal.score, target=e.heal.target, tests=e.tests) for e in patch.edits]
