"""`flowwalk publish`: the verdict on the pull request, and the report's heals as review suggestions."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path

from flowwalk.github.env import github_settings_from_env
from flowwalk.github.publish import PublishResult, publish as publish_report
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
    gh = github_settings_from_env(os.environ, given)
    suggestions = _heal_suggestions(request.report_dir) if gh.heal_suggestions and gh.pr_number else []
    return publish_report(request.report_dir, gh, suggestions=suggestions)


def _heal_suggestions(report_dir: Path) -> list[Suggestion]:
    """The report's heals as review suggestions, read against the spec files of the checkout (the
    current folder); heals whose spec line is not there as the run saw it are left out."""
    try:
        patch = plan_patch(report_dir, Path("."))
    except ReportError:
        return []  # publish says what is wrong with the report itself
    for skipped in patch.skipped:
        print(f"flowwalk publish: note: no heal suggestion for {skipped.render()}", file=sys.stderr)
    return [Suggestion(path=e.path, start_line=e.first_line, line=e.last_line, lines=e.new_lines,
                       old_selector=e.heal.old_selector, new_selector=e.heal.new_selector, method=e.heal.method,
                       score=e.heal.score, target=e.heal.target, tests=e.tests) for e in patch.edits]
