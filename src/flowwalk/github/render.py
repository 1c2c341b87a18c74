"""The verdict comment's text, rendered from verdict.json alone: a pure function, no GitHub call.

`render_comment(verdict, links)` turns a `flowwalk.verdict/1` dict into GitHub-flavoured Markdown:
the verdict line, counts, shards reported, failures grouped by class (the site misbehaved / a spec
needs review / infrastructure) and by root cause (with the tests skipped because of each), each
with the failing step as written, expected vs observed, and the spec file and line linked to the
blob at the head commit; the healed selectors; the flaky tests; the slowest tests; links to the
run and the report artifact; a command to reproduce locally. It is cut to GitHub's comment limit
(65,536 characters, contract.md section 2) by dropping detail in a fixed order, and says what it
cut. Its first line is a hidden marker (`marker`, `parse_marker`) naming the comment and a digest
of the result (`verdict_digest`), which `github.comment` uses to find and compare it.

Text that comes from the site under test (messages, observed values) is untrusted: it only ever
appears inside code spans, so it cannot mention people, inject links or break the layout.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from flowwalk import __version__
from flowwalk.report.summary import (CATEGORIES, HEAL_MEANING, OUTCOME_ICONS, evidence_markdown, gate_lead,
                                     gate_sections, healed_items, leads, outcome_words, refactor_of,
                                     render_written_baselines,
                                     written_baselines)
from flowwalk.report.verdict_model import RootCause, TestVerdict, Verdict
from flowwalk.settings import GitHubSettings

COMMENT_LIMIT = 65_536
MARKER_PREFIX = "<!-- flowwalk:verdict"
_MARKER = re.compile(r"^<!-- flowwalk:verdict(?: name=(?P<name>[^\s>]+))?(?: digest=(?P<digest>[0-9a-f]+))? -->")

#: failure classes grouped the way a reviewer acts on them: summary.md's categories, so the PR
#: comment, the annotations and the job summary group and order failures alike
CLASS_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = tuple(
    (key, title, classes) for key, title, _meaning, classes in CATEGORIES)

#: what the comment adds to an outcome's words: what a reviewer can do about it
_COMMENT_ADVICE = {"infrastructure_failed": " (rerunning may pass)", "cancelled": "; this covers what ran"}


def headline(verdict: Verdict) -> tuple[str, str]:
    """(icon, words) of the comment's and the check run's headline: the outcome in words
    (`summary.outcome_words`) and what a reviewer can do about it."""
    outcome = verdict.outcome
    words = outcome_words(verdict) if outcome in OUTCOME_ICONS else outcome.replace("_", " ")
    return OUTCOME_ICONS.get(outcome, "❔"), words + _COMMENT_ADVICE.get(outcome, "")


# --- links ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunLinks:
    """Where the comment points: the run, the report artifact, spec lines at the head commit."""

    server_url: str = "https://github.com"
    repository: str | None = None
    sha: str | None = None
    run_url: str | None = None
    artifact_url: str | None = None
    #: the base URL the run used, for the reproduce command (None: a placeholder is shown)
    base_url: str | None = None
    #: the route of a file at a commit under the repository's URL (GitLab's is `-/blob`)
    blob_route: str = "blob"

    def blob(self, path: str | None, line: int | None) -> str | None:
        if not (path and self.repository and self.sha) or path.startswith("/"):
            return None
        anchor = f"#L{line}" if line else ""
        return f"{self.server_url}/{self.repository}/{self.blob_route}/{self.sha}/{quote(path)}{anchor}"


def links_from_settings(settings: GitHubSettings, *, base_url: str | None = None) -> RunLinks:
    run_url = None
    if settings.repository and settings.run_id:
        run_url = f"{settings.server_url}/{settings.repository}/actions/runs/{settings.run_id}"
        if settings.run_attempt and settings.run_attempt not in ("", "1"):
            run_url += f"/attempts/{settings.run_attempt}"
    artifact_url = settings.artifact_url or (f"{run_url}#artifacts" if run_url else None)
    return RunLinks(server_url=settings.server_url, repository=settings.repository, sha=settings.sha,
                    run_url=run_url, artifact_url=artifact_url, base_url=base_url)


# --- digest and marker ------------------------------------------------------------------------------


def verdict_digest(verdict: Verdict) -> str:
    """What a reviewer would call "the result": outcome, counts, shards and each test's status and
    failure. Timings, run ids and observed page text are left out, so a rerun with the same
    result has the same digest (on-change mode keeps quiet)."""
    tests = sorted(
        (t.test_id, t.status, t.failure.failure_class if t.failure else "", str((t.failure.line if t.failure else None)
                                                                                 or ""))
        for t in verdict.tests)
    key = {"outcome": verdict.outcome, "counts": asdict(verdict.counts),
           "shards": [verdict.shards.total, sorted(verdict.shards.reported)], "tests": tests}
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


def marker(name: str | None = None, digest: str | None = None) -> str:
    return MARKER_PREFIX + (f" name={name}" if name else "") + (f" digest={digest}" if digest else "") + " -->"


def parse_marker(body: str) -> tuple[str | None, str | None] | None:
    """(name, digest) when the body's first line is a flowwalk marker, else None."""
    match = _MARKER.match(body.lstrip("\ufeff"))
    return (match["name"], match["digest"]) if match else None


# --- rendering --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Detail:
    """How much to show; render_comment walks down these until the body fits."""

    max_failures: int = 50
    max_dependents: int = 20
    max_flaky: int = 50
    max_slowest: int = 10
    field_cap: int = 400
    max_reproduce: int = 5


_LEVELS = (
    _Detail(),
    _Detail(max_dependents=8, max_flaky=30, max_slowest=5, field_cap=200),
    _Detail(max_dependents=3, max_flaky=10, max_slowest=0, field_cap=120, max_reproduce=3),
)


def _clip(text: str, cap: int) -> str:
    text = " ⏎ ".join(part.strip() for part in str(text).splitlines() if part.strip())
    return text if len(text) <= cap else text[: cap - 1] + "…"


def code(text: str, cap: int = 400) -> str:
    """A code span that holds any text safely (untrusted text never renders as Markdown)."""
    text = _clip(text, cap)
    if not text:
        return "` `"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _link_text(text: str) -> str:
    return re.sub(r"([\[\]\\`*_<>|])", r"\\\1", text)


def _seconds(ms: Any) -> str:
    try:
        value = float(ms) / 1000
    except (TypeError, ValueError):
        return "?"
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def failure_group(failure_class: str | None) -> str:
    for key, _title, classes in CLASS_GROUPS:
        if failure_class in classes:
            return key
    return "spec"  # an unknown class needs a human look, not an alert


def root_causes(verdict: Verdict) -> list[RootCause]:
    """The verdict's root causes, or (for a verdict without them) every failed test's failure."""
    if verdict.root_causes:
        return list(verdict.root_causes)
    out = []
    for test in verdict.tests:
        failure = test.failure
        if test.status == "failed" and (failure is None or failure.step_kind != "parent_failed"):
            out.append(RootCause(
                test_id=test.test_id, failure_class=failure.failure_class if failure else "",
                message=failure.message if failure else "", step_text=failure.step_text if failure else "",
                path=(failure.path if failure else None) or test.source,
                line=(failure.line if failure else None) or test.line,
                expected=failure.expected if failure else "", observed=failure.observed if failure else "",
                dependents=()))
    return out


CUT_MARK = "✂️"


@dataclass
class _Cuts:
    failures: int = 0
    dependents: int = 0
    flaky: int = 0
    slowest: bool = False
    fields: bool = False

    def note(self, limit: int, artifact_url: str | None = None) -> str:
        """What was cut, said once at the end, with the link to where all of it is."""
        parts = []
        if self.failures:
            parts.append(f"{self.failures} failure{'s' if self.failures != 1 else ''}")
        if self.dependents:
            parts.append(f"{self.dependents} names of skipped dependents")
        if self.flaky:
            parts.append(f"{self.flaky} flaky test names")
        if self.slowest:
            parts.append("the slowest tests")
        if self.fields:
            parts.append("long messages (shortened)")
        if not parts:
            return ""
        return (f"{CUT_MARK} Cut to fit GitHub's comment limit ({limit:,} characters): {', '.join(parts)}. "
                f"The job summary and {_report_link(artifact_url, '`report.html` in the report artifact')} "
                "have everything.")


def _report_link(artifact_url: str | None, text: str = "report.html") -> str:
    """`text` linked to the report artifact, when the run has one."""
    return f"[{text}]({artifact_url})" if artifact_url else text


def _test_index(verdict: Verdict) -> dict[str, TestVerdict]:
    return {t.test_id: t for t in verdict.tests}


def _failure_lines(cause: RootCause, test: TestVerdict | None, links: RunLinks,
                   detail: _Detail, cuts: _Cuts) -> list[str]:
    test_id = cause.test_id
    path = cause.path or (test.source if test is not None else None)
    line = cause.line or (test.line if test is not None else None)
    where = f"{path}:{line}" if path and line else str(path or "")
    url = links.blob(path, line)
    location = f"[{_link_text(where)}]({url})" if url else (code(where) if where else "")
    lines = [f"- **{code(test_id, 200)}**" + (f" at {location}" if location else "")
             + f" · `{cause.failure_class or 'failed'}`"]
    full = detail.field_cap >= _LEVELS[0].field_cap

    def field_line(label: str, value: Any) -> None:
        if value:
            if len(str(value)) > detail.field_cap and not full:
                cuts.fields = True
            lines.append(f"  - {label}: {code(str(value), detail.field_cap)}")

    field_line("step", cause.step_text)
    field_line("expected", cause.expected)
    field_line("observed", cause.observed)
    field_line("message", cause.message)
    shots = [s for s in (test.screenshots if test is not None else ()) if s]
    failure = test.failure if test is not None else None
    if failure is not None and failure.screenshot and failure.screenshot not in shots:
        shots.insert(0, failure.screenshot)
    if shots:
        lines.append("  - screenshot: " + ", ".join(code(s, 200) for s in shots[:3])
                     + (" (in the report artifact)" if links.artifact_url else ""))
    evidence = evidence_markdown(failure, indent="  ", diff_lines=20 if full else 8) if failure is not None else []
    if evidence and failure is not None:
        lines.extend(evidence)
        if failure.baseline is not None:
            where = f"[the report artifact]({links.artifact_url})" if links.artifact_url else "the report artifact"
            lines.append(f"  - the diff is in `report.html` in {where}; `flowwalk heal --report <it>` shows "
                         "and writes the new baseline for review")
    dependents = list(cause.dependents)
    if dependents:
        shown = dependents[: detail.max_dependents]
        cuts.dependents += len(dependents) - len(shown)
        more = f" and {len(dependents) - len(shown)} more" if len(shown) < len(dependents) else ""
        lines.append(f"  - {len(dependents)} skipped because of it: "
                     + ", ".join(code(d, 200) for d in shown) + more)
    return lines


def _reproduce(causes: Sequence[RootCause], verdict: Verdict, links: RunLinks, detail: _Detail) -> list[str]:
    files: list[str] = []
    tests = _test_index(verdict)
    for cause in causes:
        source = (tests[cause.test_id].source if cause.test_id in tests else "") or cause.path
        if source and source not in files:
            files.append(source)
    if not files:
        return []
    base = links.base_url
    if not base or re.match(r"^https?://(127\.|localhost|\[::1\])", base):
        base = "<URL>"  # a loopback server of the CI job does not exist on the reader's machine
    base_arg = f"'{base}'" if base != "<URL>" else "<URL>"
    commands = [f"flowwalk run {_shell_word(f)} --base-url {base_arg}" for f in files[: detail.max_reproduce]]
    if len(files) > detail.max_reproduce:
        commands.append(f"# and {len(files) - detail.max_reproduce} more files: see report.html")
    block = "\n".join(commands).replace("```", "'''")
    return ["<details><summary>Reproduce locally</summary>", "", "```sh", block, "```", "", "</details>"]


def _shell_word(text: str) -> str:
    return text if re.match(r"^[\w./@%+=:,-]+$", text) else "'" + text.replace("'", "'\\''") + "'"


#: what publish could do with each heal, by (spec path, old selector, new selector)
HealStatus = Mapping[tuple[str, str, str], str]


def _heal_lines(verdict: Verdict, links: RunLinks, detail: _Detail, status: HealStatus) -> list[str]:
    """The healed selectors: where, old -> new, how found, and whether a suggestion is on the diff."""
    items = healed_items(verdict)
    if not items:
        return []
    refactor = refactor_of(items)
    out: list[str] = []
    if refactor is not None:
        # a refactor is one finding with its diff, not a line per step it healed
        out += ["", f"#### A refactor: {refactor.headline}", "", "```diff", refactor.diff(detail.max_flaky * 2), "```"]
        items = [i for i in items if not i.renames]
        if not items:
            return out + ["", "Keep them: run `flowwalk heal --report <report folder> --apply` on the report"
                          + (f" ([artifact]({links.artifact_url}))" if links.artifact_url else "")
                          + ": it changes only these selectors."]
    count = len(items)
    show = items[: detail.max_flaky]
    out += ["", f"#### Healed selectors ({count})", "",
            f"_{count} step{'s' * (count != 1)} {HEAL_MEANING}._", ""]
    for item in show:
        where = code(f"{item.location}", detail.field_cap)
        blob = links.blob(item.path, item.line)
        if blob:
            where = f"[{_link_text(item.location)}]({blob})"
        line = (f"- {code(item.test_id, detail.field_cap)} step {item.step_index} at {where}: "
                f"{code(item.old_selector, detail.field_cap)} → {code(item.new_selector, detail.field_cap)} "
                f"({_link_text(item.method)}, score {item.score:.2f})")
        state = status.get((item.path, item.old_selector, item.new_selector))
        if state:
            line += f" · {state}"
        if item.screenshot:
            line += f" · screenshot {code(item.screenshot, 200)}"
        out.append(line)
    if len(show) < count:
        out.append(f"- … and {count - len(show)} more (see the job summary)")
    keep = ("accept the suggestions on the diff, or run " if any(s.startswith("suggested") for s in status.values())
            else "run ")
    out += ["", f"Keep them: {keep}`flowwalk heal --report <report folder> --apply` on the report"
                + (f" ([artifact]({links.artifact_url}))" if links.artifact_url else "")
                + ": it changes only these selectors."]
    return out


def render_markdown(verdict: Verdict, links: RunLinks, *, detail: _Detail | None = None,
                    shown_failures: int | None = None, limit: int = COMMENT_LIMIT,
                    cuts: _Cuts | None = None, heal_status: HealStatus | None = None) -> str:
    """The verdict as Markdown (no marker): the comment's body, also the job summary's fallback."""
    detail = detail or _LEVELS[0]
    cuts = cuts if cuts is not None else _Cuts()
    icon, words = headline(verdict)
    counts = verdict.counts
    total = counts.total
    out: list[str] = [f"### {icon} flowwalk: {words}", ""]

    parts = [f"**{counts.failed} failed**" if counts.failed else "0 failed",
             f"{counts.passed} passed", f"{counts.skipped} skipped"]
    if counts.flaky:
        parts.append(f"{counts.flaky} flaky")
    summary = f"{total} tests: " + ", ".join(parts)
    shards = verdict.shards
    shard_total = shards.total or 1
    if shards.shard:  # a shard job's own verdict, published from that job
        summary += f" · shard {shards.shard} of {shard_total} only"
    elif shard_total > 1 or shards.missing:
        summary += f" · shards reported: {len(set(shards.reported))} of {shard_total}"
    summary += f" · {_seconds(verdict.duration_ms)}"
    out.append(summary)
    lead = gate_lead(verdict)
    if lead:
        out += ["", lead]
    link_parts = []
    if links.run_url:
        link_parts.append(f"[the run]({links.run_url})")
    if links.artifact_url:
        link_parts.append(f"[report.html and screenshots (artifact)]({links.artifact_url})")
    if link_parts:
        out += ["", " · ".join(link_parts)]
    if shards.missing:
        missing = ", ".join(str(m) for m in shards.missing)
        out += ["", f"> [!WARNING]\n> Shard{'s' if len(shards.missing) > 1 else ''} {missing} of {shard_total} "
                    f"did not report: the tests assigned to {'them' if len(shards.missing) > 1 else 'it'} are not in this verdict."]
    if shards.duplicated:
        out += ["", f"> [!WARNING]\n> Shard(s) {', '.join(str(d) for d in shards.duplicated)} reported twice; "
                    "the last report of each test was kept."]
    if shards.mismatched:
        out += ["", f"> [!WARNING]\n> Shard(s) {', '.join(str(m) for m in shards.mismatched)} planned other "
                    "files than the rest: were all jobs given the same paths and the same commit?"]
    others = [w for w in verdict.warnings if not w.startswith("shard ")]
    if others:
        out += ["", "<details><summary>Report warnings</summary>", ""]
        out += [f"- {code(w, detail.field_cap)}" for w in others[:10]]
        out += [f"- … and {len(others) - 10} more" if len(others) > 10 else "", "</details>"]

    tests = _test_index(verdict)
    # the new failures lead; what was failing on the base, or is excused, follows compactly
    causes = [c for c in root_causes(verdict) if leads(tests.get(c.test_id))]
    if causes:
        ordered = [c for key, _t, _c in CLASS_GROUPS for c in causes if failure_group(c.failure_class) == key]
        budget = min(len(ordered), detail.max_failures)
        if shown_failures is not None and shown_failures < budget:
            cuts.failures = budget - shown_failures
            budget = shown_failures
        shown_ids = {id(c) for c in ordered[:budget]}
        for key, title, _classes in CLASS_GROUPS:
            group = [c for c in ordered if failure_group(c.failure_class) == key]
            if not group:
                continue
            out += ["", f"#### {title} ({len(group)})", ""]
            for cause in group:
                if id(cause) in shown_ids:
                    out += _failure_lines(cause, tests.get(cause.test_id), links, detail, cuts)
            hidden = sum(1 for c in group if id(c) not in shown_ids)
            if hidden:
                out.append(f"- … and {hidden} more (see {_report_link(links.artifact_url)})")

    for section in gate_sections(verdict, limit=detail.max_flaky):
        out += ["", section.markdown("####").rstrip("\n")]

    out += _heal_lines(verdict, links, detail, heal_status or {})
    written = written_baselines(verdict)
    if written:
        out += ["", render_written_baselines(written, limit=detail.max_flaky).replace("### ", "#### ", 1).rstrip()]

    flaky = list(verdict.flaky)
    if flaky:
        show = flaky[: detail.max_flaky]
        cuts.flaky += len(flaky) - len(show)
        out += ["", f"#### Flaky: passed on a retry ({len(flaky)})", ""]
        for test_id in show:
            attempts = tests[test_id].attempts if test_id in tests else None
            out.append(f"- {code(test_id, 200)}" + (f" (attempt {attempts})" if attempts else ""))
        if len(show) < len(flaky):
            out.append(f"- … and {len(flaky) - len(show)} more")

    slowest = verdict.slowest
    if slowest and detail.max_slowest:
        out += ["", "<details><summary>Slowest tests</summary>", "", "| test | time |", "|---|---:|"]
        for item in slowest[: detail.max_slowest]:
            name = code(item.test_id, 150).replace("|", "\\|")
            out.append(f"| {name} | {_seconds(item.duration_ms)} |")
        out += ["", "</details>"]
    elif slowest:
        cuts.slowest = True

    reproduce = _reproduce(causes, verdict, links, detail)
    if reproduce:
        out += [""] + reproduce
    note = cuts.note(limit, links.artifact_url)
    if note:
        out += ["", note]
    out += ["", f"<sub>flowwalk {__version__}"
            + (f" · run `{_clip(verdict.run_id, 40)}`" if verdict.run_id else "")
            + (f" · commit {links.sha[:7]}" if links.sha else "") + "</sub>"]
    return "\n".join(out) + "\n"


def render_comment(verdict: Verdict, links: RunLinks, *, name: str | None = None,
                   limit: int = COMMENT_LIMIT, heal_status: HealStatus | None = None) -> str:
    """The whole comment body, marker first, at most `limit` characters."""
    head = marker(name, verdict_digest(verdict)) + "\n"

    def attempt(detail: _Detail, shown: int | None = None) -> str:
        return head + render_markdown(verdict, links, detail=detail, shown_failures=shown, limit=limit, cuts=_Cuts(),
                                      heal_status=heal_status)

    for detail in _LEVELS:
        body = attempt(detail)
        if len(body) <= limit:
            return body
    # still too long: show fewer failures, as many as fit (binary search; each render is cheap)
    detail = _LEVELS[-1]
    lo, hi = 0, min(len(root_causes(verdict)), detail.max_failures)
    best = attempt(detail, 0)
    while lo <= hi:
        mid = (lo + hi) // 2
        body = attempt(detail, mid)
        if len(body) <= limit:
            best, lo = body, mid + 1
        else:
            hi = mid - 1
    if len(best) <= limit:
        return best
    # only a pathological verdict (a huge header) gets here: a hard cut that keeps the marker
    tail = "\n\n✂️ Cut to fit GitHub's comment limit; see the job summary and report.html.\n"
    cut = best[: max(len(head), limit - len(tail))]
    block = cut.rfind("\n\n")   # end on a whole block, so that no table is cut mid-way
    return (cut[:block] if block >= len(head) else cut) + tail


__all__ = ["COMMENT_LIMIT", "CLASS_GROUPS", "CUT_MARK", "HealStatus", "RunLinks", "code",
           "failure_group", "links_from_settings", "marker", "parse_marker", "render_comment", "render_markdown",
           "root_causes", "verdict_digest"]
