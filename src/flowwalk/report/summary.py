"""summary.md: the human verdict, and the failure grouping the PR comment reuses.

`group_failures(verdict)` sorts root causes into three groups by what a reader should do: the
site misbehaved (`assertion_failed`: look at the site), a spec needs review (unresolvable step,
credential, model or quota trouble: look at the spec) and infrastructure (rerun). Each item is
one root cause with the tests skipped because of it, so a broken login reads as one problem.
GitHub publishing renders the same groups under GitHub's own size limit.

`healed_items(verdict)` lists the selectors the run healed (the `healed` findings): the summary,
report.html and the PR comment each show them with the way to keep them.

`render_summary` writes the Markdown for `GITHUB_STEP_SUMMARY` and the report folder; it stays
under 1 MiB (the job-summary cap) by cutting whole items and saying how many were cut.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from flowwalk.events import Failure
from flowwalk.exitcodes import INCOMPLETE_REASONS, OUTCOME_WORDS
from flowwalk.report.records import RunRecords
from flowwalk.report.verdict import baseline_lines, help_link
from flowwalk.report.verdict_model import ReadinessWait, RootCause, TestVerdict, Verdict

#: GitHub's job summary limit per step (bytes)
SUMMARY_LIMIT = 1024 * 1024

#: (key, title, what the reader should do, failure classes) in the order a reader needs them
CATEGORIES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("site", "The site misbehaved", "a required check failed on the live page",
     ("assertion_failed",)),
    ("spec", "A spec needs review", "the spec could not be carried out as written",
     ("spec_step_unresolvable", "credential_rejected", "agent_uncertain", "quota_exceeded")),
    ("infrastructure", "Infrastructure", "the browser or the run broke; a rerun may pass",
     ("infrastructure_error",)),
)

OUTCOME_ICONS: Mapping[str, str] = {"passed": "✅", "site_misbehaved": "❌", "spec_needs_review": "⚠️",
                                     "infrastructure_failed": "🛠️", "cancelled": "⏹️", "site_not_ready": "⏳"}


@dataclass(frozen=True)
class FailureItem:
    """One root cause: a failed test that did not fail because of a parent."""

    test_id: str
    name: str
    failure_class: str
    #: `step 5 (expect text_contains 'Saved')`, or "" when no step is named
    step: str
    step_text: str
    message: str
    expected: str
    observed: str
    path: str
    line: int | None
    screenshot: str | None
    #: tests skipped (transitively) because of this one, in plan order
    dependents: tuple[str, ...]

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class FailureGroup:
    key: str
    title: str
    meaning: str
    classes: tuple[str, ...]
    items: tuple[FailureItem, ...]

    @property
    def affected(self) -> int:
        """Tests this group accounts for: its root causes and everything they took down."""
        return len(self.items) + sum(len(i.dependents) for i in self.items)


def _category(cls: str) -> str:
    for key, _title, _meaning, classes in CATEGORIES:
        if cls in classes:
            return key
    return "spec"  # a class this version does not know needs a person, not an alert


def leads(test: TestVerdict | None) -> bool:
    """Does this failed test's root cause lead the report? Yes unless it is excused (quarantined,
    or not new under fail-on: new) or it was failing on the base branch too: those are listed
    after, compactly (`gate_sections`), so the reader sees first what this change broke."""
    if test is None:
        return True
    return not test.excused and test.change != "still_failing"


def leading_causes(verdict: Verdict) -> list[RootCause]:
    """The root causes that lead the report (`leads`), in verdict order."""
    tests = {t.test_id: t for t in verdict.tests}
    return [c for c in verdict.root_causes if leads(tests.get(c.test_id))]


def group_failures(verdict: Verdict) -> list[FailureGroup]:
    """The verdict's leading root causes grouped by category (only non-empty groups, most urgent
    first). Within a group: by failure class (contract order), then the cause that took most tests
    down first, then plan order.
    """
    tests: dict[str, tuple[int, TestVerdict | None]] = {t.test_id: (n, t) for n, t in enumerate(verdict.tests)}
    class_rank = {cls: n for n, (_k, _t, _m, classes) in enumerate(CATEGORIES) for cls in classes}
    items: dict[str, list[tuple[tuple[int, int, int], FailureItem]]] = {}
    for cause in leading_causes(verdict):
        position, test = tests.get(cause.test_id, (1 << 30, None))
        failure = test.failure if test is not None else None
        index = failure.step_index if failure is not None else None
        step_text = cause.step_text or (failure.step_text if failure is not None else "")
        step = f"step {index} ({step_text})" if isinstance(index, int) and step_text else step_text
        cls = cause.failure_class or "infrastructure_error"
        item = FailureItem(test_id=cause.test_id, name=(test.name if test is not None else "") or cause.test_id,
                           failure_class=cls, step=step, step_text=step_text, message=cause.message,
                           expected=cause.expected, observed=cause.observed,
                           path=cause.path or (test.source if test is not None else ""), line=cause.line,
                           screenshot=(failure.screenshot if failure is not None else None)
                           or next(iter(test.screenshots if test is not None else ()), None),
                           dependents=cause.dependents)
        rank = (class_rank.get(cls, len(class_rank)), -len(item.dependents), position)
        items.setdefault(_category(cls), []).append((rank, item))
    groups = []
    for key, title, meaning, classes in CATEGORIES:
        if key in items:
            ordered = tuple(item for _rank, item in sorted(items[key], key=lambda p: p[0]))
            groups.append(FailureGroup(key=key, title=title, meaning=meaning, classes=classes, items=ordered))
    return groups


def site_lead(wait: ReadinessWait) -> str:
    """What a readiness wait that ran out saw (verdict.json `readiness`), in one sentence."""
    tries = wait.attempts
    shard = f"shard {wait.shard}: " if wait.shard and wait.shard != 1 else ""
    return (f"**{shard}{code(wait.url, 200)} never came up**: it answered {plain(wait.last, 200)} "
            f"for {plain(wait.waited_s)} s ({tries} tr{'ies' if tries != 1 else 'y'}; expected "
            f"{plain(wait.expected, 200)}); no flow was walked")


def gate_lead(verdict: Verdict) -> str:
    """One line under the headline: a site that never came up, what the run was compared with, and
    what did not count. "" when the site came up (or the run did not wait), and the run had no base
    report, no quarantine and fail-on any."""
    gate = verdict.gate
    parts: list[str] = [site_lead(wait) for wait in verdict.readiness if not wait.ready and not wait.cancelled]
    changes = gate.changes
    if changes is not None:
        new = len(changes.new)
        parts.append(f"**{new} new failure{'s' * (new != 1)}** against the base branch's last report"
                     f" (run {code((gate.base.run_id if gate.base else None) or '?', 40)})")
        for key, label in (("still_failing", "still failing"), ("newly_flaky", "newly flaky"), ("fixed", "fixed")):
            if changes.of(key):
                parts.append(f"{len(changes.of(key))} {label}")
    quarantine = gate.quarantine
    if quarantine is not None and quarantine.excused:
        n = len(quarantine.excused)
        parts.append(f"{n} quarantined failure{'s' * (n != 1)} did not fail the job")
    if quarantine is not None and quarantine.expired:
        n = len(quarantine.expired)
        parts.append(f"**{n} quarantine{'s' * (n != 1)} expired**: {'they fail' if n != 1 else 'it fails'} the job again")
    if gate.not_new:
        n = len(gate.not_new)
        parts.append(f"fail-on new: {n} failure{'s' * (n != 1)} that {'are' if n != 1 else 'is'} not new did not "
                     f"fail the job")
    elif gate.fail_on == "new" and changes is None:
        parts.append("fail-on new without a base report: every failure counts as new")
    return " · ".join(parts)


@dataclass(frozen=True)
class GateSection:
    """A list of what did not lead the report (still failing, quarantined, newly flaky, fixed ...):
    its title, what it means, and a row per test: the test id and, as plain text, what to say of it
    (after `sep`). Each report renders it its own way (`markdown`, report.html)."""

    title: str
    note: str
    rows: tuple[tuple[str, str], ...]
    #: rows left out past the limit
    more: int = 0
    sep: str = ": "

    @property
    def count(self) -> int:
        return len(self.rows) + self.more

    def markdown(self, heading: str = "###") -> str:
        lines = [f"{heading} {self.title} ({self.count})", "", f"_{plain(self.note, 1000)}_", ""]
        lines += [f"- {code(tid, 200)}" + (f"{self.sep}{plain(detail, 1000)}" if detail else "")
                  for tid, detail in self.rows]
        if self.more:
            lines.append(f"- … and {self.more} more")
        return "\n".join(lines) + "\n"


def gate_sections(verdict: Verdict, limit: int = 50) -> list[GateSection]:
    """What does not lead: failures still failing on the base, quarantined failures (with owner,
    reason, expiry), expired quarantines, newly flaky and fixed tests. The job summary, the PR
    comment and report.html all show them, after the new failures."""
    tests = {t.test_id: t for t in verdict.tests}
    gate = verdict.gate
    causes = {c.test_id: c for c in verdict.root_causes}
    out: list[GateSection] = []

    def listing(title: str, note: str, ids: Sequence[str], detail: Any = lambda tid: "", sep: str = ": ") -> None:
        if ids:
            out.append(GateSection(title, note, tuple((tid, detail(tid)) for tid in ids[:limit]),
                                   max(0, len(ids) - limit), sep))

    def why(tid: str) -> str:
        cause, test = causes.get(tid), tests.get(tid)
        failure = test.failure if test is not None else None
        message = (cause.message if cause else "") or (failure.message if failure else "")
        return ((cause.failure_class if cause else "") or (failure.failure_class if failure else "") or "failed") + (
            f": {clipped(message, 200)}" if message else "")

    def entry(tid: str) -> str:
        test = tests.get(tid)
        q = test.quarantine if test is not None else None
        return (f"({test.status if test is not None else None}): owner {clipped(q.owner if q else None, 100)}, "
                f"{'expired' if q and q.expired else 'expires'} {clipped(q.expires if q else None, 20)}: "
                f"{clipped(q.reason if q else None, 200)}")

    quarantine, changes = gate.quarantine, gate.changes
    listing("Quarantine expired: fails the job again", "the quarantine file lists these tests, but their expiry "
            "date has passed: fix them, or renew the entry with a new date", quarantine.expired if quarantine else (),
            entry, " ")
    still = [t for t in (changes.still_failing if changes else ())
             if (tests[t].excused if t in tests else "") != "quarantined"]
    listing("Still failing: failed on the base branch too",
            "not caused by this change" + ("; with fail-on new they do not fail the job"
                                            if gate.fail_on == "new" else "; they still fail the job"),
            still, why)
    listing("Quarantined: did not fail the job", "known flaky, listed in " + clipped(
            (quarantine.path if quarantine else None) or "the quarantine file", 200) + "; they ran and are reported",
            quarantine.excused if quarantine else (), entry, " ")
    listing("Newly flaky", "passed only on a retry here, not flaky on the base branch",
            changes.newly_flaky if changes else ())
    listing("Fixed", "failed on the base branch, pass now", changes.fixed if changes else ())
    listing("Quarantine entries that match no test", "renamed or removed tests? these entries quarantine nothing",
            quarantine.unknown if quarantine else ())
    return out


def not_run(verdict: Verdict) -> list[TestVerdict]:
    """Tests the plan had but the run did not finish (missing shard, cancelled, timed out, stopped
    by --max-failures)."""
    return [t for t in verdict.tests
            if t.status == "skipped" and t.reason in (*INCOMPLETE_REASONS, "cancelled", "max_failures")]


@dataclass(frozen=True)
class HealItem:
    """One healed selector of a test's final attempt, as the verdict records it."""

    test_id: str
    old_selector: str
    new_selector: str
    method: str
    score: float
    target: str
    path: str
    line: int
    step_index: int
    screenshot: str | None
    #: the ids and classes a refactor renamed, as this heal showed them (heal/rename.py)
    renames: tuple[tuple[str, str], ...] = ()

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


#: what a heal means to a reader, in every report
HEAL_MEANING = ("passed only because flowwalk found the element again from the step's target; the spec still "
                "pins the old selector, so every run heals it again until the spec changes")


def healed_items(verdict: Verdict) -> list[HealItem]:
    """Every `healed` finding of the verdict's tests (their final attempts), in test order."""
    items: list[HealItem] = []
    for test in verdict.tests:
        for finding in test.findings:
            heal = finding.heal if finding.kind == "healed" else None
            if heal is None:
                continue
            items.append(HealItem(
                test_id=test.test_id, old_selector=heal.old_selector, new_selector=heal.new_selector,
                method=heal.method or "deterministic", score=float(heal.score), target=heal.target,
                path=heal.path or test.source, line=heal.line, step_index=heal.step_index,
                screenshot=heal.screenshot, renames=tuple(sorted(heal.renames.items()))))
    return items


_COUNTS = ("No", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten")


@dataclass(frozen=True)
class Refactor:
    """The run's heals that renamed ids and classes, as one finding: each rename, the tests that used
    it, and the selectors to change (the diff `flowwalk heal --apply` writes)."""

    #: (old, new, how many tests used it, how many steps it healed), most used first
    renames: tuple[tuple[str, str, int, int], ...]
    #: (spec path, line, old selector, new selector): each place once
    edits: tuple[tuple[str, int, str, str], ...]
    tests: int

    @property
    def headline(self) -> str:
        """In Markdown: `Five selectors changed: `#a` → `#b` (used in 25 specs), …`."""
        return self.said(lambda s: code(s, 120))

    def said(self, shown_as: Callable[[str], str]) -> str:
        """The headline, each selector shown by `shown_as` (Markdown code, HTML <code>)."""
        n = len(self.renames)
        count = _COUNTS[n] if n < len(_COUNTS) else str(n)
        shown = ", ".join(f"{shown_as(old)} → {shown_as(new)} (used in {tests} spec{'s' * (tests != 1)})"
                          for old, new, tests, _ in self.renames[:8])
        more = f" and {n - 8} more" if n > 8 else ""
        return f"{count} selector{'s' * (n != 1)} changed: {shown}{more}"

    def diff(self, limit: int = 60) -> str:
        """The selector changes file by file, as a diff a reader can check (`flowwalk heal --apply`
        writes them into the files)."""
        lines: list[str] = []
        path = None
        for where, line, old, new in self.edits[:limit]:
            if where != path:
                lines += [f"--- a/{where}", f"+++ b/{where}"]
                path = where
            lines += [f"@@ line {line} @@", f"-{old}", f"+{new}"]
        if len(self.edits) > limit:
            lines.append(f"# … and {len(self.edits) - limit} more selector(s)")
        return "\n".join(lines)


def refactor_of(items: Sequence[HealItem]) -> Refactor | None:
    """The heals that renamed ids and classes, as one finding (None: no heal renamed any)."""
    renamed = [item for item in items if item.renames]
    if not renamed:
        return None
    tests: dict[tuple[str, str], set[str]] = {}
    steps: dict[tuple[str, str], int] = {}
    for item in renamed:
        for rename in item.renames:
            tests.setdefault(rename, set()).add(item.test_id)
            steps[rename] = steps.get(rename, 0) + 1
    ranked = sorted(tests, key=lambda r: (-len(tests[r]), r))
    edits = sorted({(i.path, i.line, i.old_selector, i.new_selector) for i in renamed})
    return Refactor(tuple((old, new, len(tests[(old, new)]), steps[(old, new)]) for old, new in ranked),
                    tuple(edits), len({i.test_id for i in renamed}))


def heal_policy_text(policy: str) -> str:
    return ("they fail this run (heal policy: fail)" if policy == "fail"
            else "counted as passed (heal policy: pass)")


# --- Markdown ------------------------------------------------------------------------------------


def code(text: Any, limit: int = 300) -> str:
    """Inline code that survives backticks and newlines in the value."""
    value = " ".join(str(text).split())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    if not value:
        return "` `"
    fence = "`"
    while fence in value:
        fence += "`"
    pad = " " if value.startswith("`") or value.endswith("`") or fence != "`" else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def clipped(text: Any, limit: int = 500) -> str:
    """`text` on one line, cut to `limit` characters."""
    value = " ".join(str(text).split())
    return value[: limit - 1] + "…" if len(value) > limit else value


def plain(text: Any, limit: int = 500) -> str:
    """Text outside code: HTML-escaped (GitHub renders HTML), Markdown emphasis neutralised."""
    value = html.escape(clipped(text, limit), quote=False)
    for char in ("\\", "*", "_", "[", "]", "`", "|"):
        value = value.replace(char, "\\" + char)
    return value


def _duration(ms: float) -> str:
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes} min {rest:02d} s"


#: why a failure did not fail the job (a test's `excused`), in words
EXCUSE_WORDS: Mapping[str, str] = {"quarantined": "quarantined", "not_new": "not new"}


def outcome_words(verdict: Verdict) -> str:
    """The outcome in words (exitcodes.OUTCOME_WORDS); a pass over failures that did not fail the job
    says how many and why (`passed, 3 failures excused (2 quarantined, 1 not new)`): every report's
    headline, so none says "all checks passed" above a table of failures."""
    outcome = verdict.outcome
    excused = [t.excused for t in verdict.tests if t.status == "failed" and t.excused]
    if outcome != "passed" or not excused:
        return OUTCOME_WORDS.get(outcome, outcome)
    why = ", ".join(f"{excused.count(reason)} {words}" for reason, words in EXCUSE_WORDS.items() if reason in excused)
    return f"passed, {len(excused)} failure{'s' * (len(excused) != 1)} excused ({why})"


def verdict_headline(verdict: Verdict) -> str:
    """`❌ flowwalk: the site misbehaved: 3 of 14 tests failed (exit 1)`."""
    icon = OUTCOME_ICONS.get(verdict.outcome, "❔")
    total, failed = verdict.counts.total, verdict.counts.failed
    detail = f"{failed} of {total} test{'s' * (total != 1)} failed" if failed else f"{total} test{'s' * (total != 1)}"
    return f"{icon} flowwalk: {outcome_words(verdict)}: {detail} (exit {verdict.exit_code})"


def counts_line(verdict: Verdict) -> str:
    counts = verdict.counts
    parts = [f"{getattr(counts, k)} {k}" for k in ("passed", "failed", "skipped", "flaky")]
    return f"{counts.total} tests: " + " · ".join(parts)


def shards_line(verdict: Verdict) -> str:
    """`2 of 3 shards reported (missing: 3)`, or `shard 2 of 3: ...` for a shard job's own report;
    "" for an unsharded run."""
    shards = verdict.shards
    total = shards.total or 1
    reported = shards.reported
    if shards.shard:
        return f"shard {shards.shard} of {total}: this job's tests only (`flowwalk merge` reports the whole run)"
    if total <= 1 and not shards.duplicated and not shards.missing:
        return ""
    line = f"{len(reported)} of {total} shards reported"
    notes = []
    if shards.missing:
        notes.append("missing: " + ", ".join(str(k) for k in shards.missing))
    if shards.duplicated:
        notes.append("reported twice: " + ", ".join(str(k) for k in shards.duplicated))
    if shards.mismatched:
        notes.append("different plan: " + ", ".join(str(k) for k in shards.mismatched))
    return line + (f" ({'; '.join(notes)})" if notes else "")


def _cell(text: str) -> str:
    """Markdown table cell text: a `|` would end the cell, even inside code."""
    return text.replace("|", "\\|")


def written_baselines(verdict: Verdict) -> list[tuple[str, str]]:
    """(baseline path, test id) of every baseline --update-snapshots wrote in the run, once each."""
    out: list[tuple[str, str]] = []
    for test in verdict.tests:
        for finding in test.findings:
            baseline = finding.baseline
            if finding.kind == "baseline_written" and baseline is not None and baseline.path:
                item = (baseline.path, test.test_id)
                if all(item[0] != seen for seen, _ in out):
                    out.append(item)
    return out


#: what every report says under the written baselines
WRITTEN_MEANING = ("written by --update-snapshots instead of compared: review them and commit them "
                   "(copies in the report folder's baselines/)")


def render_written_baselines(items: Sequence[tuple[str, str]], limit: int = 50) -> str:
    lines = [f"### Baselines written ({len(items)})", "", f"_{plain(WRITTEN_MEANING)}_", ""]
    lines.extend(f"- {code(path, 300)} ({code(test_id, 200)})" for path, test_id in items[:limit])
    if len(items) > limit:
        lines.append(f"- … and {len(items) - limit} more (report.html lists them all)")
    return "\n".join(lines) + "\n"


def render_refactor(refactor: Refactor) -> str:
    """A refactor's heals as one finding (summary.md; the PR comment says the same)."""
    lines = [f"### A refactor: {refactor.headline}", "",
             f"_{sum(r[3] for r in refactor.renames)} step(s) of {refactor.tests} test(s) found their elements "
             "under the new names, each checked against what it saw in the earlier run; the specs still pin the "
             "old ones._", "", "```diff", refactor.diff(), "```", "",
             "Keep them: `flowwalk heal --report <this report folder> --apply` writes exactly these selector "
             "changes."]
    return "\n".join(lines) + "\n"


def render_heals(items: Sequence[HealItem], policy: str = "pass") -> str:
    """The healed selectors as a Markdown section (summary.md); a refactor's as one finding first."""
    refactor = refactor_of(items)
    head = render_refactor(refactor) + "\n" if refactor else ""
    items = [i for i in items if not i.renames]
    if not items:
        return head
    count = len(items)
    lines = [f"### Healed selectors: {count}", "",
             f"_{count} step{'s' * (count != 1)} {plain(HEAL_MEANING)}; {heal_policy_text(policy)}_", "",
             "| test | step | old selector → new selector | found by | screenshot |", "|---|---|---|---|---|"]
    for item in items[:100]:
        shot = code(item.screenshot, 200) if item.screenshot else "—"
        lines.append(f"| {_cell(code(item.test_id, 150))} | {_cell(code(item.location, 200))} step {item.step_index} "
                     f"| {_cell(code(item.old_selector, 200))} → {_cell(code(item.new_selector, 200))} "
                     f"| {plain(item.method)}, score {item.score:.2f} | {_cell(shot)} |")
    if count > 100:
        lines.append(f"\n… and {count - 100} more in report.html")
    lines += ["", "Keep them in the specs: `flowwalk heal --report <this report folder> --apply` writes exactly "
                  "these selector changes (or accept the suggestions on the pull request)."]
    return head + "\n".join(lines) + "\n"


def screenshot_missing(failure: Failure) -> str:
    """Why a failure has no screenshot, when its rule wanted one and none was saved (the failure
    context's `evidence_skipped`: skipped, or tried and not finished in time); '' otherwise."""
    if failure.screenshot:
        return ""
    return failure.evidence().evidence_skipped.screenshot


def evidence_markdown(failure: Failure, *, indent: str = "", diff_lines: int = 40) -> list[str]:
    """A failure's list diff (expected items against observed ones), accessibility violations (rule
    linked to its help, impact, elements) and baseline (file, status, the report's copies, the aria
    diff) as Markdown list items."""
    lines: list[str] = []
    items = failure.diff
    if items:
        lines.append(f"{indent}- items (`-` expected, `+` observed):")
        lines.extend(_fenced(items, indent, diff_lines))
    for v in failure.violations:
        link = help_link(v.help_url)
        rule = f"[{code(v.rule, 60)}]({link})" if link else code(v.rule, 60)
        targets = [str(t) for t in v.targets][:5]
        count = v.count
        where = ", ".join(code(t, 120) for t in targets) + (", …" if count > len(targets) else "")
        lines.append(f"{indent}- {rule} **{plain(v.impact, 20)}**, {count} element{'s' * (count != 1)}"
                     + (f": {where}" if where else "") + f" · {plain(v.help, 200)}")
    baseline = failure.baseline
    if baseline is not None:
        head, *rest = baseline_lines(baseline)
        lines.append(f"{indent}- {code(head, 300)}")
        lines.extend(f"{indent}  - {code(line, 300)}" for line in rest)
        text_diff = baseline.text_diff
        if text_diff:
            lines.extend(_fenced(text_diff, indent, diff_lines))
    return lines


def _fenced(diff: str, indent: str, limit: int) -> list[str]:
    """A diff as a fenced `diff` block under a list item, its first `limit` lines."""
    shown = diff.splitlines()[:limit]
    fence = "```"
    while fence in diff:
        fence += "`"
    return [f"{indent}  {fence}diff", *(f"{indent}  {line}" for line in shown), f"{indent}  {fence}"]


def render_item(item: FailureItem, tests: Mapping[str, TestVerdict]) -> str:
    """One root cause as Markdown (the failing step as written, expected vs observed, file:line)."""
    lines = [f"#### {code(item.test_id, 200)}", ""]
    head = f"**{item.failure_class}**"
    if item.step:
        head += f" at {code(item.step, 200)}"
    head += f" · {code(item.location, 200)}"
    lines.append(head)
    lines.append("")
    if item.message:
        lines.append(f"> {plain(item.message)}")
        lines.append("")
    if item.expected or item.observed:
        lines.append(f"- expected: {code(item.expected) if item.expected else '—'}")
        lines.append(f"- observed: {code(item.observed) if item.observed else '—'}")
    test = tests.get(item.test_id)
    failure = test.failure if test is not None else None
    if item.screenshot:
        lines.append(f"- screenshot: {code(item.screenshot, 200)}")
    missing = screenshot_missing(failure) if failure is not None else ""
    if missing:
        lines.append(f"- no screenshot at the failure: {plain(missing, 300)}")
    if failure is not None:
        lines.extend(evidence_markdown(failure))
    if item.dependents:
        names = [code((tests[d].name if d in tests else "") or d, 80) for d in item.dependents[:20]]
        more = f" and {len(item.dependents) - 20} more" if len(item.dependents) > 20 else ""
        lines.append(f"- skipped because of it ({len(item.dependents)}): {', '.join(names)}{more}")
    lines.append("")
    return "\n".join(lines)


class _Budget:
    """Collects blocks until the byte budget is spent, then counts what it had to leave out."""

    def __init__(self, limit: int):
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.cut = 0

    def add(self, text: str) -> bool:
        size = len(text.encode("utf-8")) + 1
        if self.cut or self.size + size > self.limit:
            self.cut += 1
            return False
        self.parts.append(text)
        self.size += size
        return True


def render_summary(verdict: Verdict, records: RunRecords | None = None, limit: int = SUMMARY_LIMIT) -> str:
    """summary.md for a verdict (records add the flaky history; everything else is in the verdict)."""
    tests = {t.test_id: t for t in verdict.tests}
    footer_parts = [f"run {verdict.run_id or '?'}", f"started {verdict.started_at or '?'}",
                    _duration(verdict.duration_ms)]
    shard_text = shards_line(verdict)
    if shard_text:
        footer_parts.append(shard_text)
    footer = "\n<sub>" + plain(" · ".join(footer_parts), 1000) + "</sub>\n"
    cut_note_reserve = 400
    budget = _Budget(limit - len(footer.encode("utf-8")) - cut_note_reserve)

    budget.add(f"## {verdict_headline(verdict)}\n")
    lead = gate_lead(verdict)
    if lead:
        budget.add(lead + "\n")
    counts = verdict.counts
    budget.add("| total | passed | failed | skipped | flaky |\n|---:|---:|---:|---:|---:|\n"
               f"| {counts.total} | {counts.passed} | {counts.failed} | {counts.skipped} | {counts.flaky} |\n")
    warnings = verdict.warnings
    if warnings:
        budget.add("> [!WARNING]\n" + "\n".join(f"> {plain(w)}  " for w in warnings[:20]) + "\n")

    groups = group_failures(verdict)
    for group in groups:
        causes = len(group.items)
        title = (f"### {group.title}: {causes} root cause{'s' * (causes != 1)}"
                 + (f", {group.affected} tests affected" if group.affected != causes else ""))
        budget.add(f"{title}\n\n_{plain(group.meaning)}_\n")
        for item in group.items:
            budget.add(render_item(item, tests))

    for section in gate_sections(verdict):
        budget.add(section.markdown())

    heals = healed_items(verdict)
    if heals:
        budget.add(render_heals(heals, str((records.settings if records else {}).get("heal_policy", "pass"))))
    written = written_baselines(verdict)
    if written:
        budget.add(render_written_baselines(written))

    missing = not_run(verdict)
    if missing:
        reasons: dict[str, int] = {}
        for t in missing:
            reasons[t.reason] = reasons.get(t.reason, 0) + 1
        explained = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
        lines = [f"### Did not run: {len(missing)} test{'s' * (len(missing) != 1)} ({explained})", ""]
        lines.extend(f"- {code(t.test_id, 200)}: {plain(t.reason)}" for t in missing[:50])
        if len(missing) > 50:
            lines.append(f"- … and {len(missing) - 50} more")
        budget.add("\n".join(lines) + "\n")

    flaky = verdict.flaky
    if flaky:
        policy = str((records.settings if records else {}).get("flaky_policy", "pass"))
        lines = [f"### Flaky: {len(flaky)}", "",
                 "_failed, then passed on a retry; "
                 + ("they fail this run (flaky policy: fail)_" if policy == "fail" else "counted as passed_"), ""]
        for tid in flaky:
            note = ""
            record = records.test(tid) if records else None
            if record and record.earlier_failures:
                first = record.earlier_failures[0]
                failure = first.failure
                note = (f" — attempt {first.attempt}: {plain(failure.failure_class if failure else 'failed')} at "
                        f"{code((failure.step_text if failure else '') or '?', 120)}; "
                        f"passed on attempt {record.history[-1].attempt}")
            lines.append(f"- {code(tid, 200)}{note}")
        budget.add("\n".join(lines) + "\n")

    slowest = verdict.slowest[:5]
    if slowest:
        lines = ["### Slowest", "", "| test | duration |", "|---|---:|"]
        lines.extend(f"| {code(s.test_id, 150)} | {_duration(s.duration_ms)} |" for s in slowest)
        budget.add("\n".join(lines) + "\n")

    text = "\n".join(budget.parts)
    if budget.cut:
        text += (f"\n_… {budget.cut} more section{'s' * (budget.cut != 1)} cut to stay under "
                 f"{limit // 1024} KiB: see junit.xml and report.html in the report folder._\n")
    return text + footer



__all__: Sequence[str] = ("CATEGORIES", "FailureGroup", "FailureItem", "Refactor", "refactor_of", "render_refactor",
                          "group_failures", "not_run", "render_item",
                          "render_summary", "verdict_headline", "counts_line", "shards_line", "code",
                          "plain")
