"""The one sticky verdict comment on a pull request: finding it, and keeping it.

`upsert_comment(client, settings, verdict, links)` finds the comment by its hidden first line
(`<!-- flowwalk:verdict ... -->`, with the optional comment name and a digest of the verdict)
across every page of the PR's comments, edits it in place or creates it, removes duplicates left
by earlier races, and honours the comment modes (always / on-failure / on-change / off). A 422
"too long" is answered by rendering a shorter body and trying again. The body is
`github.render.render_comment`'s; every GitHub call goes through `github.client`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from flowwalk.github.client import GitHubClient, UnprocessableError, repo_path
from flowwalk.github.render import (
    COMMENT_LIMIT, CUT_MARK, HealStatus, RunLinks, links_from_settings, parse_marker, render_comment, verdict_digest,
)
from flowwalk.report.verdict_model import Verdict
from flowwalk.settings import GitHubSettings


# --- the sticky comment -----------------------------------------------------------------------------


@dataclass(frozen=True)
class CommentResult:
    #: created | updated | unchanged | skipped
    action: str
    reason: str = ""
    url: str | None = None
    comment_id: int | None = None
    deleted: tuple[int, ...] = ()
    length: int = 0
    shrunk: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def find_comments(client: GitHubClient, repository: str, pr_number: int,
                  name: str | None = None) -> list[dict[str, Any]]:
    """Every flowwalk comment with this name on the PR, oldest first, across all pages."""
    found = []
    for comment in client.paginate(f"{repo_path(repository)}/issues/{pr_number}/comments"):
        parsed = parse_marker(str(comment.get("body") or ""))
        if parsed is not None and parsed[0] == (name or None):
            found.append(comment)
    return sorted(found, key=lambda c: int(c.get("id") or 0))


def _is_passing(verdict: Verdict) -> bool:
    return verdict.exit_code == 0


def upsert_comment(client: GitHubClient, settings: GitHubSettings, verdict: Verdict,
                   links: RunLinks | None = None, *, mode: str | None = None,
                   heal_status: HealStatus | None = None) -> CommentResult:
    """Create or edit the one flowwalk comment on `settings.pr_number` according to the mode.

    - always: create or update it;
    - on-failure: create it only when the verdict fails; when a comment exists, update it even on
      success (a stale "failed" comment is worse than none);
    - on-change: create it when there is none, update it only when the result's digest differs
      from the one in the existing comment's marker;
    - off: touch nothing (no request at all).
    Raises the client's GitHubError when GitHub refuses; the caller reports it.
    """
    mode = mode or settings.comment_mode
    if mode == "off":
        return CommentResult("skipped", "comment-mode is off")
    if not settings.repository or not settings.pr_number:
        return CommentResult("skipped", "no pull request (not a pull_request event and no pr.json)")
    links = links or links_from_settings(settings)
    name = settings.comment_name
    existing = find_comments(client, settings.repository, settings.pr_number, name)
    newest = existing[-1] if existing else None
    digest = verdict_digest(verdict)

    if mode == "on-failure" and _is_passing(verdict) and newest is None:
        return CommentResult("skipped", "comment-mode on-failure and every test passed")
    if mode == "on-change" and newest is not None:
        parsed = parse_marker(str(newest.get("body") or ""))
        if parsed and parsed[1] == digest:
            deleted = _delete(client, settings.repository, existing[:-1])
            return CommentResult("unchanged", "comment-mode on-change and the result is the same",
                                 url=newest.get("html_url"), comment_id=newest.get("id"), deleted=deleted)

    limit = COMMENT_LIMIT
    shrunk = False
    notes: list[str] = []
    for _try in range(4):
        body = render_comment(verdict, links, name=name, limit=limit, heal_status=heal_status)
        try:
            if newest is not None:
                response = client.patch(f"{repo_path(settings.repository)}/issues/comments/{newest['id']}",
                                        {"body": body})
                action = "updated"
            else:
                response = client.post(f"{repo_path(settings.repository)}/issues/{settings.pr_number}/comments",
                                        {"body": body})
                action = "created"
        except UnprocessableError as error:
            if not error.too_long:
                raise
            # GitHub counts differently from len() at times: ask for clearly less, then retry
            limit = min(limit, len(body)) * 2 // 3
            shrunk = True
            notes.append(f"GitHub refused {len(body):,} characters as too long; retrying with at most {limit:,}")
            continue
        data = response.data or {}
        deleted = _delete(client, settings.repository, existing[:-1])
        return CommentResult(action, url=data.get("html_url"), comment_id=data.get("id"), deleted=deleted,
                             length=len(body), shrunk=shrunk or CUT_MARK in body, notes=tuple(notes))
    raise UnprocessableError(f"GitHub kept refusing the comment as too long (last try: {limit:,} characters)",
                             hint="the job summary and report.html still have the full verdict", status=422)


def _delete(client: GitHubClient, repository: str, comments: Iterable[Mapping[str, Any]]) -> tuple[int, ...]:
    """Remove older duplicates (from concurrent publishes); the newest one is the sticky comment."""
    deleted = []
    for comment in comments:
        client.delete(f"{repo_path(repository)}/issues/comments/{comment['id']}")
        deleted.append(int(comment["id"]))
    return tuple(deleted)


__all__ = ["CommentResult", "find_comments", "upsert_comment"]
