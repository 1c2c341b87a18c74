"""The console reporter: one line per test as its scenario's final attempt finishes, then totals.

It is an event handler like the emit writer. Passed steps stay quiet; a failure line carries
what a reader needs to act without opening a file: the failure class and `step N (text)`.
A retried scenario gets one dim line per failed attempt, and its tests are printed once, as
they finally ended; a test that passed through a healed selector says so. `finish(verdict)` adds
the verdict, how to keep the run's heals, and where the reports are.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Mapping, TextIO

from flowwalk.events import Event, RuleFinished, RunFinished, RunStarted, ScenarioFinished, tally
from flowwalk.report.summary import gate_lead, healed_items, outcome_words, written_baselines
from flowwalk.report.verdict import failure_message
from flowwalk.report.verdict_model import Verdict
from flowwalk.reportfolder import ReportFolder

_SYMBOLS = {"passed": "✓", "failed": "✗", "skipped": "-", "flaky": "~"}
_ASCII = {"passed": "ok   ", "failed": "FAIL ", "skipped": "skip ", "flaky": "flaky"}
_COLORS = {"passed": "32", "failed": "31", "skipped": "33", "flaky": "35", "dim": "2", "bold": "1"}


def _wants_color(stream: TextIO, color: bool | str, env: Mapping[str, str]) -> bool:
    if isinstance(color, bool):
        return color
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR") or env.get("GITHUB_ACTIONS") == "true":  # Actions logs render ANSI colour
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _can_encode(stream: TextIO, text: str) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return True
    except (UnicodeEncodeError, LookupError):
        return False


#: lines of a list check's diff printed under its failure (report.html has all of them)
DIFF_SHOWN = 12


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f}s"


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: the written baselines the console names at the end of a run (summary.md names them all)
BASELINES_LISTED = 20


class ConsoleReporter:
    """`ConsoleReporter(stream, color="auto", report_dir=None)`; call it with each event."""

    def __init__(self, stream: TextIO, color: bool | str = "auto", report_dir: str | None = None,
                 env: Mapping[str, str] | None = None):
        self.stream = stream
        self.report_dir = report_dir
        self.color = _wants_color(stream, color, os.environ if env is None else env)
        self.symbols = _SYMBOLS if _can_encode(stream, "".join(_SYMBOLS.values()) + "…·") else _ASCII
        self._lock = threading.Lock()
        self._pending: dict[tuple[str, int], list[RuleFinished]] = {}
        self._names: dict[str, str] = {}
        #: the final status of each test shown, in order (counted by events.tally at the end)
        self.statuses: list[str] = []
        self._width = 0
        self._closed = False   # the stream's reader went away

    # -- output --------------------------------------------------------------------------------

    def _paint(self, text: str, what: str) -> str:
        return f"\033[{_COLORS[what]}m{text}\033[0m" if self.color else text

    def _print(self, text: str) -> None:
        if self.symbols is not _SYMBOLS:
            text = text.replace("…", "...").replace("·", "-")
        if self._closed:
            return
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except BrokenPipeError:   # `flowwalk run | head`: the reader left; the run and its reports go on
            self._closed = True

    # -- events --------------------------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        with self._lock:
            if isinstance(event, RunStarted):
                self._started(event)
            elif isinstance(event, RuleFinished):
                self._pending.setdefault((event.scenario_id, event.attempt), []).append(event)
            elif isinstance(event, ScenarioFinished):
                self._scenario_finished(event)
            elif isinstance(event, RunFinished):
                self._run_finished(event)

    def _started(self, event: RunStarted) -> None:
        plan = event.plan or {}
        scenarios = [s for s in plan.get("scenarios") or () if isinstance(s, dict)]
        # a plan without `assigned` runs all its scenarios; a shard's may be empty (more shards than scenarios)
        assigned = set(plan["assigned"]) if isinstance(plan.get("assigned"), list) else {s.get("id") for s in scenarios}
        tests = [tid for s in scenarios if s.get("id") in assigned for tid in s.get("test_ids") or ()]
        self._width = min(max((len(t) for t in tests), default=0), 70)
        shard = event.shard or {}
        sharded = int(shard.get("total", 1) or 1) > 1
        where = f" (shard {shard.get('index')}/{shard.get('total')})" if sharded else ""
        n = len(assigned)
        # the workers the run can use (no more than it has scenarios), now that the default depends on the CPUs
        workers = max(1, min(int((event.settings or {}).get("workers") or 1), n))
        count = f"{n} of {len(scenarios)} scenario{'s' * (len(scenarios) != 1)}" if sharded else \
            f"{n} scenario{'s' * (n != 1)}"
        self._print(self._paint(f"flowwalk: {count}, {len(tests)} test"
                                f"{'s' * (len(tests) != 1)}, {workers} worker{'s' * (workers != 1)}{where}",
                                "bold"))
        if event.root:
            self._print(self._paint(f"root: {event.root} (test ids and folder hooks are relative to it)", "dim"))

    def _scenario_finished(self, event: ScenarioFinished) -> None:
        rules = self._pending.pop((event.scenario_id, event.attempt), [])
        if not event.final:
            self._print(self._paint(f"  ↻ {event.scenario_id}: attempt {event.attempt} {event.status}, retrying"
                                    if self.symbols is _SYMBOLS else
                                    f"  retry {event.scenario_id}: attempt {event.attempt} {event.status}", "dim"))
            return
        for rule in rules:
            self.statuses.append(rule.status)
            self._print(self._line(rule, rule.status))
            if rule.status == "failed" and rule.failure is not None and rule.failure.diff:
                self._diff(rule.failure.diff)

    def _diff(self, diff: str) -> None:
        """A list check's diff under its failure line: the first DIFF_SHOWN lines, `-` expected, `+` observed."""
        lines = diff.splitlines()
        for line in lines[:DIFF_SHOWN]:
            what = "failed" if line.startswith("+ ") else "passed" if line.startswith("- ") else "dim"
            self._print("      " + self._paint(line[:200], what))
        if len(lines) > DIFF_SHOWN:
            self._print("      " + self._paint(f"… {len(lines) - DIFF_SHOWN} more line(s) in report.html", "dim"))

    def _line(self, rule: RuleFinished, status: str) -> str:
        symbol = self._paint(self.symbols.get(status, "?"), status)
        head = f"  {symbol} {rule.test_id.ljust(self._width)}"
        if status == "skipped":
            reason: str = rule.reason or "skipped"
            if rule.reason == "parent_failed" and rule.failure and rule.failure.parent:
                reason += f": {rule.failure.parent}"
            elif rule.reason == "session_failed" and rule.failure and rule.failure.evidence().setup:
                reason += f": setup {rule.failure.evidence().setup}"
            return f"{head}  {self._paint(_one_line(reason), 'skipped')}"
        line = f"{head}  {self._paint(_seconds(rule.duration_ms), 'dim')}"
        if status == "flaky":
            return f"{line}  {self._paint(f'flaky: passed on attempt {rule.attempt}', 'flaky')}"
        if status == "failed":
            failure = rule.failure
            if failure is None:
                return f"{line}  {self._paint('failed (no failure recorded)', 'failed')}"
            detail = failure_message(failure)
            return f"{line}  {self._paint(failure.failure_class, 'failed')}  {_one_line(detail)}"
        heals = [f.heal for f in rule.findings if f.kind == "healed" and f.heal is not None]
        if heals:
            first = heals[0]
            more = f" (+{len(heals) - 1} more)" if len(heals) > 1 else ""
            line += "  " + self._paint(_one_line(f"healed {first.old_selector!r} -> {first.new_selector!r}{more}"),
                                       "skipped")
        written = [f.baseline.path for f in rule.findings if f.kind == "baseline_written" and f.baseline is not None]
        if written:
            what = f"wrote {written[0]}" if len(written) == 1 else f"wrote {len(written)} baselines"
            line += "  " + self._paint(_one_line(what), "skipped")
        warnings = [f for f in rule.findings
                    if f.severity in ("critical", "warning") and f.kind not in ("healed", "baseline_written")]
        if warnings:
            line += "  " + self._paint(f"{len(warnings)} warning{'s' * (len(warnings) != 1)}", "skipped")
        return line

    def _run_finished(self, event: RunFinished) -> None:
        t = tally(self.statuses)
        parts = [self._paint(f"{t['passed']} passed", "passed") if t["passed"] else "0 passed",
                 self._paint(f"{t['failed']} failed", "failed") if t["failed"] else "0 failed",
                 f"{t['skipped']} skipped"]
        if t["flaky"]:
            parts.append(self._paint(f"{t['flaky']} flaky", "flaky"))
        cancelled = " (cancelled)" if event.cancelled else ""
        self._print("")
        self._print(f"{t['total']} test{'s' * (t['total'] != 1)}: {', '.join(parts)} in "
                    f"{_seconds(event.duration_ms)}{cancelled}")

    def finish(self, verdict: Verdict) -> None:
        """After the reports are built: the verdict and where to look."""
        with self._lock:
            outcome = verdict.outcome
            text = f"verdict: {outcome_words(verdict)} (exit {verdict.exit_code})"
            self._print(self._paint(text, "passed" if outcome == "passed" else "failed"))
            lead = gate_lead(verdict).replace("**", "").replace("`", "")
            if lead:
                self._print(lead)
            heals = len(healed_items(verdict))
            if heals:
                self._print(f"healed: {heals} selector{'s' * (heals != 1)} for this run only; "
                            f"`flowwalk heal --report {self.report_dir or 'REPORT'}` shows the diff, "
                            "`--apply` keeps it")
            written = [path for path, _test in written_baselines(verdict)]
            if written:
                self._print(f"baselines written: {len(written)}, by --update-snapshots; review them (git diff) "
                            "and commit them:")
                for path in written[:BASELINES_LISTED]:
                    self._print(f"  {path}")
                if len(written) > BASELINES_LISTED:
                    self._print(f"  … and {len(written) - BASELINES_LISTED} more (summary.md lists them all)")
            if self.report_dir:
                folder = Path(self.report_dir)
                present = ReportFolder(folder).listing()
                self._print(f"report: {folder}/ ({', '.join(present)})" if present else f"report: {folder}/")
