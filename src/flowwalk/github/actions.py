"""What a GitHub Actions step shows besides the PR comment (contract.md sections 2 and 5).

- the job summary: Markdown appended to the file `GITHUB_STEP_SUMMARY` names, kept under GitHub's
  1 MiB per step (past it GitHub drops the whole summary, so we cut and say so);
- step outputs: `name<<DELIMITER` blocks appended to `GITHUB_OUTPUT`, with a random delimiter that
  cannot occur in the value;
- annotations: `::error file=..,line=..,title=..::message` workflow commands on the spec line that
  failed, most important first (the site misbehaving, then specs needing review, then
  infrastructure; root causes before the tests skipped because of them; flaky tests last), since
  GitHub shows only 10 errors and 10 warnings per step; a `::notice::` counts the rest;
- optionally a check run (created, then updated with annotations 50 per request, which GitHub
  appends, and concluded from the verdict) or a commit status (state, description of at most
  140 characters, link to the run).
"""

from __future__ import annotations

import os
import posixpath
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence, TextIO

from flowwalk.github.client import GitHubClient, repo_path
from flowwalk.github.render import CLASS_GROUPS, RunLinks, failure_group, root_causes
from flowwalk.github.render import headline as render_headline
from flowwalk.report.verdict_model import Verdict
from flowwalk.settings import GitHubSettings

SUMMARY_LIMIT = 1024 * 1024            # bytes per step
ANNOTATIONS_PER_LEVEL = 10             # shown per step for each of error and warning
CHECK_ANNOTATIONS_PER_REQUEST = 50     # output.annotations maxItems
CHECK_ANNOTATIONS_MAX = 1000           # 20 requests: enough for any human, bounded for rate limits
CHECK_TEXT_LIMIT = 65_535              # output.summary / output.text maxLength
STATUS_DESCRIPTION_LIMIT = 140
WORKSPACE = "/github/workspace"        # where a Docker action sees the repository


# --- job summary ------------------------------------------------------------------------------------


def append_job_summary(path: str | Path, markdown: str, *, limit: int = SUMMARY_LIMIT) -> int:
    """Append `markdown` to the step's summary file, cut to what still fits; returns bytes written."""
    target = Path(path)
    used = target.stat().st_size if target.exists() else 0
    room = limit - used
    data = markdown.encode("utf-8")
    if len(data) > room:
        note = (f"\n\n> ✂️ Cut to fit GitHub's {limit // 1024} KiB job-summary limit; "
                "report.html in the report artifact has everything.\n").encode("utf-8")
        if room <= len(note):
            return 0
        cut = data[: room - len(note)]
        # end on a whole block (a table whole, not cut mid-way) when there is one, else on a whole line
        block = cut.rfind(b"\n\n")
        cut = cut[: block + 1] if block > 0 else cut[: cut.rfind(b"\n") + 1] or cut
        data = cut.decode("utf-8", errors="ignore").encode("utf-8") + note
    with target.open("ab") as handle:
        handle.write(data)
    return len(data)


# --- step outputs -----------------------------------------------------------------------------------

_OUTPUT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def format_outputs(outputs: Mapping[str, Any]) -> str:
    """`name<<delim\\nvalue\\ndelim` blocks; None values are left out."""
    chunks = []
    for name, value in outputs.items():
        if value is None:
            continue
        if not _OUTPUT_NAME.match(name):
            raise ValueError(f"step output name {name!r} is not valid")
        text = str(value).lower() if isinstance(value, bool) else str(value)
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
        while delimiter in text:  # practically never; guarantees the block cannot end early
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
        chunks.append(f"{name}<<{delimiter}\n{text}\n{delimiter}\n")
    return "".join(chunks)


def write_outputs(path: str | Path, outputs: Mapping[str, Any]) -> None:
    with Path(path).open("a", encoding="utf-8") as handle:
        handle.write(format_outputs(outputs))


def verdict_outputs(verdict: Verdict, report_dir: str, comment_url: str | None = None,
                    check_run_url: str | None = None) -> dict[str, Any]:
    """The step outputs the Action declares (flowwalk.github.inputs.ACTION_OUTPUTS)."""
    counts = verdict.counts
    return {
        "verdict": verdict.outcome, "exit-code": verdict.exit_code,
        "total": counts.total, "passed": counts.passed, "failed": counts.failed,
        "skipped": counts.skipped, "flaky": counts.flaky,
        "report-dir": report_dir, "comment-url": comment_url or "", "check-run-url": check_run_url or "",
    }


# --- annotations ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Annotation:
    level: str          # error | warning | notice
    path: str
    line: int
    title: str
    message: str
    col: int | None = None


def repo_relative(path: str, workspace: str | None = None, root: str | None = None) -> str:
    """Annotation paths must be relative to the repository root: the container's workspace is
    stripped, and a path relative to the run's project root (`root`, absolute) is first placed under
    it, so a root in a subfolder of the repository still names the file GitHub knows. A root outside
    every workspace (a report read on another machine) leaves the path as the report has it."""
    text = path.replace("\\", "/")
    placed = posixpath.join(root.replace("\\", "/"), text) if root and not posixpath.isabs(text) else text
    for base in (workspace, os.environ.get("GITHUB_WORKSPACE"), WORKSPACE):
        if base and placed.startswith(base.rstrip("/") + "/"):
            text = posixpath.normpath(placed[len(base.rstrip("/")) + 1:])
            break
    while text.startswith("./"):
        text = text[2:]
    return text


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def collect_annotations(verdict: Verdict, workspace: str | None = None) -> list[Annotation]:
    """Every annotation for the verdict, most important first."""
    tests = {t.test_id: t for t in verdict.tests}
    root = verdict.root
    causes = root_causes(verdict)
    order = [key for key, _t, _c in CLASS_GROUPS]

    def excused(test_id: str) -> str:
        return tests[test_id].excused if test_id in tests else ""

    def change(test_id: str) -> str:
        return tests[test_id].change if test_id in tests else ""

    # the failures that fail the job first, the new ones before those failing on the base; then by class
    causes.sort(key=lambda c: (bool(excused(c.test_id)), change(c.test_id) == "still_failing",
                               order.index(failure_group(c.failure_class))))
    out: list[Annotation] = []
    dependents: list[tuple[str, str]] = []
    for cause in causes:
        test_id = cause.test_id
        test = tests.get(test_id)
        path = cause.path or (test.source if test is not None else "")
        line = cause.line or (test.line if test is not None else 0) or 1
        if not path:
            continue
        parts = []
        if cause.step_text:
            parts.append(f"step: {cause.step_text}")
        if cause.expected:
            parts.append(f"expected: {cause.expected}")
        if cause.observed:
            parts.append(f"observed: {cause.observed}")
        if cause.message:
            parts.append(cause.message)
        if cause.dependents:
            parts.append(f"{len(cause.dependents)} dependent test(s) skipped because of it")
        failure_class = cause.failure_class or "failed"
        # a failure the gate excuses (quarantined, or not new under fail-on new) did not fail the job
        why = {"quarantined": "quarantined, did not fail the job: ",
               "not_new": "failing on the base too, did not fail the job: "}.get(excused(test_id), "")
        if change(test_id) == "new":
            failure_class = f"new {failure_class}"
        out.append(Annotation("warning" if why else "error", repo_relative(path, workspace, root), line,
                              _cap(f"{why}{failure_class}: {test_id}", 255), _cap("\n".join(parts), 4000)))
        dependents += [(d, test_id) for d in cause.dependents]
    for dependent, cause_id in dependents:
        skipped = tests.get(dependent)
        if skipped is not None and skipped.source:
            out.append(Annotation("warning", repo_relative(skipped.source, workspace, root), skipped.line or 1,
                                  _cap(f"skipped: {dependent}", 255), f"not run because {cause_id} failed"))
    for test_id in verdict.flaky:
        flaky = tests.get(test_id)
        if flaky is not None and flaky.source:
            out.append(Annotation("warning", repo_relative(flaky.source, workspace, root), flaky.line or 1,
                                  _cap(f"flaky: {test_id}", 255),
                                  f"failed, then passed on attempt {flaky.attempts or 2}"))
    return out


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(annotation: Annotation) -> str:
    props = [f"file={_escape_property(annotation.path)}", f"line={annotation.line}"]
    if annotation.col:
        props.append(f"col={annotation.col}")
    props.append(f"title={_escape_property(annotation.title)}")
    return f"::{annotation.level} {','.join(props)}::{_escape_data(annotation.message)}"


def annotation_commands(annotations: Sequence[Annotation], per_level: int = ANNOTATIONS_PER_LEVEL) -> list[str]:
    """The commands to print: the first `per_level` of each level, then a notice counting the rest."""
    shown: dict[str, int] = {}
    lines, left = [], 0
    for annotation in annotations:
        if shown.get(annotation.level, 0) >= per_level:
            left += 1
            continue
        shown[annotation.level] = shown.get(annotation.level, 0) + 1
        lines.append(workflow_command(annotation))
    if left:
        lines.append(f"::notice title=flowwalk::{left} more annotation(s) not shown (GitHub shows "
                     f"{per_level} errors and {per_level} warnings per step); see the job summary and report.html")
    return lines


def print_annotations(annotations: Sequence[Annotation], stream: TextIO) -> int:
    lines = annotation_commands(annotations)
    for line in lines:
        print(line, file=stream)
    stream.flush()
    return len(lines)


# --- check run and commit status --------------------------------------------------------------------


def _utc(text: Any = None) -> str:
    moment = datetime.now(timezone.utc)
    if text:
        try:
            parsed = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
            moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def conclusion_of(verdict: Verdict) -> str:
    code = verdict.exit_code
    if code == 0:
        return "success"
    if code == 5:
        return "cancelled"
    return "failure"


def status_state_of(verdict: Verdict) -> str:
    code = verdict.exit_code
    if code == 0:
        return "success"
    if code in (1, 2):
        return "failure"
    return "error"  # infrastructure, cancelled, internal: the checks did not get to judge the site


def headline(verdict: Verdict) -> str:
    counts = verdict.counts
    _icon, text = render_headline(verdict)
    numbers = f"{counts.failed} failed, {counts.passed} passed"
    if counts.skipped:
        numbers += f", {counts.skipped} skipped"
    if counts.flaky:
        numbers += f", {counts.flaky} flaky"
    return f"{numbers}: {text}"


def _check_level(level: str) -> str:
    return {"error": "failure", "warning": "warning"}.get(level, "notice")


def _check_annotation(annotation: Annotation) -> dict[str, Any]:
    return {"path": annotation.path, "start_line": annotation.line, "end_line": annotation.line,
            "annotation_level": _check_level(annotation.level), "title": _cap(annotation.title, 255),
            "message": _cap(annotation.message, 60_000)}


@dataclass(frozen=True)
class CheckRunResult:
    check_run_id: int
    url: str | None
    annotations_sent: int
    requests: int
    conclusion: str


def publish_check_run(client: GitHubClient, settings: GitHubSettings, verdict: Verdict,
                      annotations: Sequence[Annotation], summary_markdown: str, links: RunLinks) -> CheckRunResult:
    """Create the check run, add the annotations 50 at a time, conclude it from the verdict."""
    assert settings.repository and settings.sha, "publish checks these first"
    base = f"{repo_path(settings.repository)}/check-runs"
    name = "flowwalk" + (f" ({settings.comment_name})" if settings.comment_name else "")
    title = _cap(f"flowwalk: {headline(verdict)}", 255)
    summary = summary_markdown if len(summary_markdown) <= CHECK_TEXT_LIMIT else (
        summary_markdown[: CHECK_TEXT_LIMIT - 80] + "\n\n✂️ Cut to GitHub's limit; see report.html.\n")
    items = [_check_annotation(a) for a in annotations[:CHECK_ANNOTATIONS_MAX]]
    batches = [items[i:i + CHECK_ANNOTATIONS_PER_REQUEST] for i in range(0, len(items), CHECK_ANNOTATIONS_PER_REQUEST)]
    create: dict[str, Any] = {"name": name, "head_sha": settings.sha, "status": "in_progress",
                              "started_at": _utc(verdict.started_at),
                              "output": {"title": title, "summary": summary,
                                         "annotations": batches[0] if batches else []}}
    if links.run_url:
        create["details_url"] = links.run_url
    if verdict.run_id:
        create["external_id"] = verdict.run_id
    created = client.post(base, create)
    run_id = int(created.data["id"])
    requests = 1
    for batch in batches[1:]:  # each update appends its annotations to the run's
        client.patch(f"{base}/{run_id}", {"output": {"title": title, "summary": summary, "annotations": batch}})
        requests += 1
    conclusion = conclusion_of(verdict)
    final = client.patch(f"{base}/{run_id}", {"status": "completed", "conclusion": conclusion,
                                              "completed_at": _utc()})
    requests += 1
    url = (final.data or {}).get("html_url") or (created.data or {}).get("html_url")
    return CheckRunResult(run_id, url, len(items), requests, conclusion)


@dataclass(frozen=True)
class StatusResult:
    state: str
    description: str
    context: str


def publish_commit_status(client: GitHubClient, settings: GitHubSettings, verdict: Verdict,
                          links: RunLinks) -> StatusResult:
    assert settings.repository and settings.sha, "publish checks these first"
    state = status_state_of(verdict)
    description = _cap(headline(verdict), STATUS_DESCRIPTION_LIMIT)
    context = "flowwalk" + (f"/{settings.comment_name}" if settings.comment_name else "")
    body: dict[str, Any] = {"state": state, "description": description, "context": context}
    if links.run_url:
        body["target_url"] = links.run_url
    client.post(f"{repo_path(settings.repository)}/statuses/{settings.sha}", body)
    return StatusResult(state, description, context)

