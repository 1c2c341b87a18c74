"""Heals as pull request review comments with a GitHub suggestion block, accepted in one click.

Each `Suggestion` is one healed selector as a change of spec lines (built by `app.publish.publish` from
`flowwalk.heal.patch`; this package never reads a spec). `post_suggestions` posts each one as a
review comment on those lines of the PR's head commit, with a ```suggestion block holding the
new lines. Every comment carries a hidden marker with a hash of the change, and the PR's review
comments are read first (every page): a re-run never posts the same suggestion twice.

GitHub answers 422 when a line is not part of the PR's diff (the usual case when the PR changed
the site and not the spec). Such a suggestion is returned in `not_in_diff`, for the sticky
comment to list instead; it never fails the publish.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from flowwalk.github.client import GitHubClient, GitHubError, UnprocessableError, repo_path
from flowwalk.settings import GitHubSettings

MARKER = "<!-- flowwalk:heal-suggestion "
#: review comments posted per publish at most: the rest are listed in the sticky comment
MAX_SUGGESTIONS = 20


@dataclass(frozen=True)
class Suggestion:
    """One heal as lines of a spec file: `start_line`..`line` become `lines`."""

    path: str
    start_line: int
    line: int
    lines: tuple[str, ...]
    old_selector: str
    new_selector: str
    method: str
    score: float
    target: str = ""
    tests: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Stable across runs and commits: the file, the lines and the change."""
        text = "\0".join([self.path, str(self.start_line), str(self.line), self.old_selector, self.new_selector,
                          *self.lines])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


@dataclass(frozen=True)
class SuggestionResult:
    posted: tuple[Suggestion, ...] = ()
    #: already on the PR from an earlier run (found by marker): not posted again
    already: tuple[Suggestion, ...] = ()
    #: GitHub refused the lines (422: not part of the PR's diff)
    not_in_diff: tuple[Suggestion, ...] = ()
    #: past MAX_SUGGESTIONS, or another error; (suggestion, why)
    left_out: tuple[tuple[Suggestion, str], ...] = ()
    urls: tuple[str, ...] = ()


def suggestion_status(result: SuggestionResult) -> dict[tuple[str, str, str], str]:
    """What became of each heal's suggestion, for the sticky comment, by (path, old, new selector)."""
    status: dict[tuple[str, str, str], str] = {}
    for group, text in ((result.posted, "suggested on the diff"), (result.already, "suggested on the diff earlier"),
                        (result.not_in_diff, "no suggestion: the spec line is not part of this PR's diff")):
        for suggestion in group:
            status[(suggestion.path, suggestion.old_selector, suggestion.new_selector)] = text
    for suggestion, why in result.left_out:
        status[(suggestion.path, suggestion.old_selector, suggestion.new_selector)] = f"no suggestion: {why}"
    return status


def code_span(text: str) -> str:
    """`text` as Markdown inline code, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def render_suggestion(suggestion: Suggestion) -> str:
    """The review comment's body: marker, what happened, the suggestion block."""
    longest = max((len(run) for line in suggestion.lines for run in re.findall(r"`{3,}", line)), default=0)
    fence = "`" * max(3, longest + 1)
    tests = ", ".join(code_span(t) for t in suggestion.tests[:3])
    if len(suggestion.tests) > 3:
        tests += f" and {len(suggestion.tests) - 3} more"
    target = f" for {code_span(suggestion.target)}" if suggestion.target else ""
    return (f"{MARKER}{suggestion.key} -->\n"
            f"**flowwalk healed this selector.** {code_span(suggestion.old_selector)} matched nothing, so the "
            f"step used {code_span(suggestion.new_selector)}{target} ({suggestion.method}, score "
            f"{suggestion.score:.2f})" + (f" in {tests}" if tests else "") + ". "
            "Accept the suggestion to keep it in the spec; until then every run heals it again.\n\n"
            f"{fence}suggestion\n" + "\n".join(suggestion.lines) + f"\n{fence}\n")


def _posted_keys(client: GitHubClient, settings: GitHubSettings) -> set[str]:
    keys: set[str] = set()
    path = f"{repo_path(settings.repository or '')}/pulls/{settings.pr_number}/comments"
    for comment in client.paginate(path):
        body = comment.get("body") if isinstance(comment, dict) else None
        if isinstance(body, str) and body.startswith(MARKER):
            keys.add(body[len(MARKER):].split(" ", 1)[0])
    return keys


def post_suggestions(client: GitHubClient, settings: GitHubSettings,
                     suggestions: list[Suggestion] | tuple[Suggestion, ...]) -> SuggestionResult:
    """Post each suggestion not already on the PR. Raises GitHubError only when the PR's review
    comments cannot be listed (nothing was posted then); a refused suggestion is reported, not raised."""
    if not suggestions or not settings.pr_number or not settings.repository or not settings.sha:
        return SuggestionResult()
    existing = _posted_keys(client, settings)
    posted: list[Suggestion] = []
    already: list[Suggestion] = []
    not_in_diff: list[Suggestion] = []
    left_out: list[tuple[Suggestion, str]] = []
    urls: list[str] = []
    path = f"{repo_path(settings.repository)}/pulls/{settings.pr_number}/comments"
    for suggestion in suggestions:
        if suggestion.key in existing:
            already.append(suggestion)
            continue
        if len(posted) >= MAX_SUGGESTIONS:
            left_out.append((suggestion, f"more than {MAX_SUGGESTIONS} suggestions in one run"))
            continue
        body: dict[str, object] = {"body": render_suggestion(suggestion), "commit_id": settings.sha,
                                   "path": suggestion.path, "line": suggestion.line, "side": "RIGHT"}
        if suggestion.start_line != suggestion.line:
            body.update(start_line=suggestion.start_line, start_side="RIGHT")
        try:
            answer = client.post(path, body).data or {}
        except UnprocessableError:
            not_in_diff.append(suggestion)
            continue
        except GitHubError as error:
            if error.status in (401, 403):
                raise  # the token cannot comment at all: the caller says so once
            left_out.append((suggestion, error.message))
            continue
        existing.add(suggestion.key)
        posted.append(suggestion)
        if isinstance(answer, dict) and answer.get("html_url"):
            urls.append(str(answer["html_url"]))
    return SuggestionResult(posted=tuple(posted), already=tuple(already), not_in_diff=tuple(not_in_diff),
                            left_out=tuple(left_out), urls=tuple(urls))
