"""Heals as review comments with a suggestion block (github/review.py, `flowwalk publish`): posted on
the spec line of the PR's head commit, validated against GitHub's description by the fake; never
twice, past pages of other review comments; a line outside the diff (422) is reported, not fatal."""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from fake_github import HEAD_SHA, REPOSITORY, TOKEN, FakeGitHub, pull_request_env
from flowwalk.events import Heal
from flowwalk.github.client import GitHubClient, RetryPolicy
from flowwalk.github.review import MARKER, Suggestion, code_span, post_suggestions, render_suggestion
from flowwalk.report.build import build_reports
from sample_run import healed_events, write_sample_run
from flowwalk.settings import GitHubSettings

SETTINGS = GitHubSettings(token=TOKEN, repository=REPOSITORY, pr_number=7, sha=HEAD_SHA, event_name="pull_request")
SPEC = "checks/sign-in.flow.yaml"


def suggestion(line: int = 11, new: str = "role=button[name=\"Sign in\"]", start: int | None = None) -> Suggestion:
    return Suggestion(path=SPEC, start_line=start or line, line=line,
                      lines=(f"    selector: '{new}'   # pinned",) * ((line - (start or line)) + 1),
                      old_selector="#submit", new_selector=new, method="deterministic", score=0.91,
                      target="the Sign in button", tests=(f"{SPEC}#sign in",))


def client_for(github: FakeGitHub, clock) -> GitHubClient:  # type: ignore[no-untyped-def]
    return GitHubClient(github.url, TOKEN, clock=clock, jitter=lambda: 0.5, policy=RetryPolicy())


def test_the_comment_holds_a_suggestion_block_whatever_the_backticks() -> None:
    body = render_suggestion(suggestion())
    assert body.startswith(f"{MARKER}{suggestion().key} -->\n**flowwalk healed this selector.** `#submit` "
                           "matched nothing, so the step used `role=button[name=\"Sign in\"]` for "
                           "`the Sign in button` (deterministic, score 0.91) in `checks/sign-in.flow.yaml#sign in`.")
    assert body.endswith("\n```suggestion\n    selector: 'role=button[name=\"Sign in\"]'   # pinned\n```\n")
    # a line holding a fence gets a longer one, so the block cannot end early
    fenced = render_suggestion(replace(suggestion(), lines=("    selector: 'a```b'",)))
    assert "\n````suggestion\n    selector: 'a```b'\n````\n" in fenced
    assert code_span("a`b") == "``a`b``" and code_span("`x") == "`` `x ``"
    # the key is the change: another selector or line is another suggestion
    assert suggestion().key != suggestion(new="#go").key != suggestion(line=12).key


def test_posted_once_even_past_a_page_of_other_review_comments(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7, diff={SPEC: range(1, 40)})
    for n in range(130):  # more than one page (100) of reviewers' comments first
        github.add_review_comment(7, f"nit {n}", SPEC, 3)
    client = client_for(github, clock)
    first = post_suggestions(client, SETTINGS, [suggestion(), suggestion(line=20, start=18, new="#go")])
    assert len(first.posted) == 2 and first.not_in_diff == () and len(first.urls) == 2
    (single,) = github.calls("pulls/create-review-comment")[:1]
    assert single.body == {"body": render_suggestion(suggestion()), "commit_id": HEAD_SHA, "path": SPEC,
                           "line": 11, "side": "RIGHT"}
    multi = github.calls("pulls/create-review-comment")[1].body
    assert (multi["start_line"], multi["line"], multi["start_side"]) == (18, 20, "RIGHT")
    # a re-run (another commit of the same PR) finds both by their marker on page 2 and posts nothing
    for _ in range(2):
        again = post_suggestions(client, replace(SETTINGS, sha=HEAD_SHA), [suggestion(), suggestion(20, "#go", 18)])
        assert again.posted == () and len(again.already) == 2
    assert len(github.calls("pulls/create-review-comment")) == 2
    pages = [r.query.get("page", ["1"])[-1] for r in github.calls("pulls/list-review-comments")]
    assert pages == ["1", "2", "1", "2", "1", "2"]
    assert len(github.review_comments[7]) == 132


def test_a_line_outside_the_diff_is_reported_not_raised(github: FakeGitHub, clock) -> None:  # type: ignore[no-untyped-def]
    github.add_pull(7, diff={SPEC: [11]})
    result = post_suggestions(client_for(github, clock), SETTINGS, [suggestion(30), suggestion(11)])
    assert [s.line for s in result.not_in_diff] == [30] and [s.line for s in result.posted] == [11]
    refused = [r for r in github.calls("pulls/create-review-comment") if r.status == 422]
    assert len(refused) == 1 and refused[0].body["line"] == 30


# --- flowwalk publish, as the Action runs it -------------------------------------------------------

FLOW = """\
spec_version: "1"
name: sign in
url: /login.html
steps:
  - type: goto
    url: /login.html
  # the submit button moved into the form footer
  - type: act
    action: click
    target: the Sign in button
    selector: '#submit'   # pinned
"""


def workspace(tmp_path: Path) -> Path:
    """A checkout holding the spec, and the report of a run that healed its selector."""
    root = tmp_path / "workspace"
    (root / "checks").mkdir(parents=True)
    (root / SPEC).write_text(FLOW)
    heal = Heal(old_selector="#submit", new_selector="form >> text=Sign in", method="deterministic", score=0.91,
                target="the Sign in button", step_index=2, path=SPEC, line=8, screenshot="screenshots/heal.png")
    write_sample_run(root / "flowwalk-report", healed_events([(f"{SPEC}#sign in", heal)]))
    build_reports(root / "flowwalk-report")
    return root


def publish_cli(root: Path, github: FakeGitHub, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flowwalk.cli", "publish", *args], cwd=root,
                          env=pull_request_env(tmp_path, github.url), capture_output=True, text=True, timeout=120)


def test_publish_posts_the_heal_as_a_suggestion_once(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7, diff={SPEC: range(1, 12)})
    root = workspace(tmp_path)
    first = publish_cli(root, github, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "1 heal suggestion posted" in first.stderr
    (posted,) = github.review_comments[7]
    assert (posted["path"], posted["line"], posted["commit_id"]) == (SPEC, 11, HEAD_SHA)
    assert posted["body"].endswith("```suggestion\n    selector: 'form >> text=Sign in'   # pinned\n```\n")
    # the sticky comment lists the heal, linked to the spec line at the head commit, and says it is suggested
    (sticky,) = github.flowwalk_comments(7)
    assert "#### Healed selectors (1)" in sticky["body"]
    assert (f"- `{SPEC}#sign in` step 2 at [{SPEC}:8](https://github.example/{REPOSITORY}/blob/{HEAD_SHA}/{SPEC}#L8): "
            "`#submit` → `form >> text=Sign in` (deterministic, score 0.91) · suggested on the diff · screenshot "
            "`screenshots/heal.png`") in sticky["body"]
    assert "Keep them: accept the suggestions on the diff, or run `flowwalk heal --report <report folder> --apply`" \
        in sticky["body"]
    second = publish_cli(root, github, tmp_path)
    assert second.returncode == 0 and "1 already on the PR from an earlier run, not posted again" in second.stderr
    assert len(github.review_comments[7]) == 1 and len(github.flowwalk_comments(7)) == 1
    # turned off (the Action's heal-suggestions: false), nothing is even looked up
    github.review_comments[7].clear()
    off = publish_cli(root, github, tmp_path, "--no-heal-suggestions")
    assert off.returncode == 0 and github.review_comments[7] == []
    assert len(github.calls("pulls/list-review-comments")) == 2


def test_a_spec_line_outside_the_diff_never_fails_the_publish(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7, diff={"site/login.html": [3]})  # the PR changed the site, not the spec
    root = workspace(tmp_path)
    done = publish_cli(root, github, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert (f"heal suggestion for {SPEC}:11 not posted: the line is not part of the PR's diff (GitHub answered "
            "422); run `flowwalk heal --report DIR --apply` to keep it") in done.stderr
    assert github.review_comments[7] == [] and len(github.flowwalk_comments(7)) == 1
    assert "error" not in done.stderr
    # the sticky comment says so instead
    body = github.flowwalk_comments(7)[0]["body"]
    assert "· no suggestion: the spec line is not part of this PR's diff ·" in body
    assert "Keep them: run `flowwalk heal --report <report folder> --apply`" in body


def test_a_spec_that_changed_since_the_run_gets_no_suggestion(github: FakeGitHub, tmp_path: Path) -> None:
    github.add_pull(7, diff={SPEC: range(1, 12)})
    root = workspace(tmp_path)
    (root / SPEC).write_text(FLOW.replace("'#submit'", "'#submit-button'"))
    done = publish_cli(root, github, tmp_path)
    assert done.returncode == 0
    assert (f"flowwalk publish: note: no heal suggestion for {SPEC}:8: skipped: the selector at this step is now "
            "'#submit-button', not '#submit'") in done.stderr
    assert github.review_comments[7] == [] and github.calls("pulls/list-review-comments") == []


def test_the_publish_function_reports_what_it_suggested(github: FakeGitHub, clock, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from flowwalk.github.publish import publish

    github.add_pull(7, diff={SPEC: [11]})
    root = workspace(tmp_path)
    err = io.StringIO()
    result = publish(root / "flowwalk-report", replace(SETTINGS, api_url=github.url), client=client_for(github, clock),
                     stdout=io.StringIO(), stderr=err, suggestions=[suggestion(), suggestion(line=5)])
    assert result.exit_code == 0 and result.errors == ()
    assert result.suggestions is not None
    assert [s.line for s in result.suggestions.posted] == [11] and [s.line for s in result.suggestions.not_in_diff] == [5]
