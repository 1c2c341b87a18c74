"""`validate`, `plan` and `run`: one request (`RunRequest`), their functions, and the run's start.

`execute_run` starts Playwright's driver (`Prelaunch`) before anything heavy is imported: the
specs' models, the planner, the walker and the reports are imported inside the functions that use
them, after it. `flowwalk validate` never imports the walker.
"""

from __future__ import annotations

import datetime
import os
import signal
import sys
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, TextIO

from flowwalk.cooperative import CancelToken
from flowwalk.model import Suite
from flowwalk.readiness import parse_statuses, readiness_url, refuse_unusable, wait_until_ready
from flowwalk.settings import Overrides, Settings
from flowwalk.spec.config import settings_for
from flowwalk.spec.quarantine import find_quarantine, load_quarantine
from flowwalk.walk.prelaunch import Prelaunch

if TYPE_CHECKING:
    from flowwalk.plan.model import Plan
    from flowwalk.report.verdict_model import Verdict
    from flowwalk.walk.prelaunch import BrowserHost

__all__ = ["Loaded", "RunRequest", "cancelled_by_signals", "execute_run", "load", "plan", "validate", "walk_suites"]


@dataclass(frozen=True)
class RunRequest:
    """What `validate`, `plan` and `run` are asked (the CLI's options, the MCP tools' arguments): what
    the settings are told, the flowwalk.yaml to read (None: ./flowwalk.yaml when present) and a
    folder to serve on 127.0.0.1 for the run (its URL is the base URL unless one is given). One
    request plans the same for `plan` and for `run`."""

    overrides: Overrides = field(default_factory=Overrides)
    config_path: str | None = None
    serve_dir: str | None = None


@dataclass(frozen=True)
class Loaded:
    """The settings and every suite a request names, as `flowwalk validate` checks them."""

    settings: Settings
    suites: list[Suite]
    #: the steps files among the named files, each checked on its own (`validate` counts them)
    steps_files: int = 0

    @property
    def scenarios(self) -> int:
        return sum(len(s.scenarios) for s in self.suites)

    @property
    def rules(self) -> int:
        return sum(len(sc.rules) for s in self.suites for sc in s.scenarios)


def _suites(settings: Settings) -> list[Suite]:
    from flowwalk.spec.loader import load_suites   # pydantic: after the prelaunch started

    return load_suites(list(settings.paths), settings)


def load(request: RunRequest) -> Loaded:
    """The settings and every suite the request names; SpecError (every problem) or UsageError."""
    settings = settings_for(request.overrides, os.environ, request.config_path)
    return Loaded(settings, _suites(settings))


def validate(request: RunRequest) -> Loaded:
    """What `flowwalk validate` checks: every file the request names, and the quarantine file."""
    from flowwalk.spec.loader import discover, file_kind

    loaded = load(request)
    quarantine_of(loaded.settings, loaded.suites)
    named = discover(list(loaded.settings.paths), exclude=[loaded.settings.out_dir])
    return replace(loaded, steps_files=sum(1 for path in named if file_kind(path.name) == "steps"))


def plan_of(settings: Settings, suites: list[Suite]) -> Plan:
    """The run's plan: what `flowwalk plan` prints is what `flowwalk run` walks, selection included."""
    from flowwalk.plan.shard import plan_run   # yaml: after the prelaunch started
    from flowwalk.report.history import not_passed

    if not settings.last_failed:
        return plan_run(suites, settings)
    failed, tested = not_passed(settings.last_failed, settings.origin("last_failed"))
    return plan_run(suites, settings, last_failed_ids=failed, last_report_ids=tested)


def plan(request: RunRequest) -> Plan:
    loaded = load(request)
    return plan_of(loaded.settings, loaded.suites)


def quarantine_of(settings: Settings, suites: list[Suite]) -> dict[str, Any] | None:
    """The quarantine file's record for this run (spec/quarantine.py), or None without a file.
    Entries map onto every test loaded, selected or not, and expire by today's date (UTC)."""
    path = find_quarantine(settings.quarantine_file, settings.origin("quarantine_file"), settings.root)
    if path is None:
        return None
    scenarios = {sc.id: [sc.test_id(r) for r in sc.rules] for suite in suites for sc in suite.scenarios}
    return load_quarantine(path, scenarios, datetime.datetime.now(datetime.timezone.utc).date(),
                           settings.root)


def base_of(settings: Settings, the_plan: Plan) -> dict[str, Any] | None:
    """The base branch's last report as the run keeps it (report/history.py): `--base-report`, else
    the durations file when it is a report (the last run's report a CI job downloads); None without."""
    from flowwalk.report.history import base_statuses
    from flowwalk.report.records import ReportError

    tests = {tid for sc in the_plan.scenarios for tid in (sc.test_id(r) for r in sc.rules)}
    if settings.base_report:
        return base_statuses(settings.base_report, tests, settings.origin("base_report"))
    if settings.durations_file:
        try:
            return base_statuses(settings.durations_file, tests)
        except ReportError:
            return None  # a JSON of durations, not a report: nothing to compare with
    return None


def gate_of(settings: Settings, suites: list[Suite], the_plan: Plan) -> dict[str, Any] | None:
    """What decides which failures fail the job (exitcodes.JobGate), as run_started.gate records it."""
    quarantine = quarantine_of(settings, suites)
    base = base_of(settings, the_plan)
    if quarantine is None and base is None and settings.fail_on == "any":
        return None
    for entry in (quarantine or {}).get("entries", ()):
        where = f"{quarantine['path']}:{entry['line']}" if quarantine else ""
        if entry["expired"] and entry["tests"]:
            print(f"flowwalk: warning: {where}: the quarantine of '{entry['id']}' expired on {entry['expires']} "
                  f"(owner {entry['owner']}): its failures fail the job again", file=sys.stderr)
        elif not entry["tests"]:
            print(f"flowwalk: warning: {where}: '{entry['id']}' names no test of this run, so it quarantines "
                  f"nothing (renamed or removed?)", file=sys.stderr)
    if settings.fail_on == "new" and base is None:
        print("flowwalk: warning: --fail-on new without a base report (--base-report, or --durations with the "
              "base branch's last report): every failure counts as new", file=sys.stderr)
    return {"fail_on": settings.fail_on, "quarantine": quarantine, "base": base}


def _notice(settings: Settings, title: str, message: str) -> None:
    """Something a user should know that changes nothing of the verdict: on stderr, and as a
    notice annotation on the job's summary page when on GitHub Actions."""
    print(f"flowwalk: notice: {message}", file=sys.stderr)
    if settings.on_github_actions:
        text = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        print(f"::notice title={title}::{text}", flush=True)


class Handlers:
    """Fans each event out to every handler; a handler that breaks is reported once and dropped,
    so a broken reporter cannot kill the run (the emit writer is never dropped silently)."""

    def __init__(self, handlers: list[Callable[[Any], None]]):
        self._handlers = list(handlers)
        self._lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        with self._lock:
            for handler in list(self._handlers):
                try:
                    handler(event)
                except Exception as error:  # noqa: BLE001 - isolation is the point
                    self._handlers.remove(handler)
                    print(f"flowwalk: warning: {type(handler).__name__} failed and was turned off: "
                          f"{type(error).__name__}: {error}", file=sys.stderr)


@contextmanager
def cancelled_by_signals(cancel: CancelToken) -> Iterator[CancelToken]:
    """SIGINT/SIGTERM (what CI sends on cancel or timeout) cancel the token, naming the signal; a
    second one kills at once. The previous handlers are back after the block (main thread only)."""
    def handle(signum: int, _frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.cancel(signal.Signals(signum).name)
        print(f"\nflowwalk: {signal.Signals(signum).name} received: finishing the reports for what ran",
              file=sys.stderr)

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield cancel
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def execute_run(request: RunRequest, *, console: TextIO, cancel: CancelToken | None = None,
                on_event: Callable[[Any], None] | None = None, color: bool | str = "auto") -> Verdict:
    """One run, end to end: serve, load, plan, walk, write the report folder; returns its verdict.

    `flowwalk run` calls it with the terminal, and SIGINT/SIGTERM cancel it (`cancel` None). The MCP
    server's `run` tool calls it from a worker thread with its own `cancel` (only the main thread may
    install signal handlers), the console lines into a buffer and `on_event` to follow the run; both
    therefore walk exactly the same way.
    """
    with ExitStack() as stack:
        # worker 1 starts Playwright's driver now and launches its Chromium as soon as the settings
        # are known, while the specs load (walk/prelaunch.py); refused input stops it again before
        # it opened a page
        prelaunch = Prelaunch()
        stack.callback(prelaunch.close)
        overrides = request.overrides
        if request.serve_dir:
            from flowwalk.serve import StaticServer  # http.server only when asked to serve

            server = stack.enter_context(StaticServer(request.serve_dir))
            if not overrides.base_url:
                overrides = replace(overrides, base_url=server.url)
        settings = settings_for(overrides, os.environ, request.config_path)
        prelaunch.launch(settings)
        if settings.shard_source:
            print(f"flowwalk: shard {settings.shard_index}/{settings.shard_total}, from {settings.shard_source}",
                  file=sys.stderr)
        suites = _suites(settings)
        the_plan = plan_of(settings, suites)
        gate = gate_of(settings, suites, the_plan)
        wait_url = check_preview_settings(settings)
        if request.serve_dir:   # said once the input is accepted: a refused run serves nothing
            print(f"serving {request.serve_dir} at {server.url}", file=sys.stderr)
        from flowwalk.plan.shard import missing_durations_notice   # imported by plan_of already
        from flowwalk.reportfolder import ReportFolder   # shutil: not before the prelaunch

        if the_plan.durations.missing:
            _notice(settings, "flowwalk durations", missing_durations_notice(str(the_plan.durations.path)))
        out = ReportFolder(Path(settings.out_dir))
        out.clear()
        out.pr_context.unlink(missing_ok=True)
        _write_pr_context(out.path, settings)
        # imported after the prelaunch started: the walker imports Playwright, which the
        # launching thread is importing meanwhile
        from flowwalk.report.build import build_reports
        from flowwalk.report.emit import EmitWriter

        if cancel is None:
            cancel = stack.enter_context(cancelled_by_signals(CancelToken()))
        writer = EmitWriter(out.path)
        stack.callback(writer.close)
        readiness = _wait_for_site(settings, wait_url, cancel) if wait_url else None

        def report() -> Verdict:
            writer.close()
            return build_reports(out.path)

        return walk_suites(settings, the_plan, host=prelaunch, sink=writer, report=report, console=console,
                           cancel=cancel, gate=gate, readiness=readiness, on_event=on_event, color=color)
    raise AssertionError("unreachable: ExitStack does not swallow")  # pragma: no cover


def walk_suites(settings: Settings, the_plan: Plan, *, host: BrowserHost, sink: Callable[[Any], None],
                report: Callable[[], Verdict], console: TextIO, cancel: CancelToken,
                gate: dict[str, Any] | None = None, readiness: dict[str, Any] | None = None,
                on_event: Callable[[Any], None] | None = None, color: bool | str = "auto") -> Verdict:
    """Walk a plan of loaded suites on the browser `host` holds (started already): each event to
    `sink` (what records the walk), to the console and to `on_event`; then `report()` writes the
    report folder and returns its verdict, which the console prints last. A one-shot run
    (`execute_run`) and each walk of a watch (app/watch.py) go through here, so both print the
    same lines."""
    from flowwalk.report.console import ConsoleReporter
    from flowwalk.walk.run import run_plan

    reporter = ConsoleReporter(console, color=color, report_dir=str(Path(settings.out_dir)))
    handlers: list[Callable[[Any], None]] = [sink, reporter]
    if on_event is not None:
        handlers.append(on_event)
    run_plan(the_plan, settings, Handlers(handlers), cancel=cancel, prelaunched=host, gate=gate, readiness=readiness)
    verdict = report()
    reporter.finish(verdict)
    return verdict


def check_preview_settings(settings: Settings) -> str | None:
    """A run's HTTP headers and credentials must all have their values and an origin to go to, and a
    relative `--wait-for` a base URL (UsageError otherwise, before anything waits); returns the URL
    to wait for (None: no wait)."""
    refuse_unusable(settings.http_access)
    return readiness_url(settings.wait_for, settings.base_url) if settings.wait_for else None


def _wait_for_site(settings: Settings, url: str, cancel: CancelToken) -> dict[str, Any]:
    """The readiness wait (readiness.py), its progress on stderr; returns its record for run_started."""
    from flowwalk.spec.variables import Redactor   # the specs' models: after the prelaunch started

    redact = Redactor(settings.secrets.values()).text
    result = wait_until_ready(url, statuses=parse_statuses(settings.wait_status), text=settings.wait_text,
                              timeout_s=settings.wait_timeout_s, interval_s=settings.wait_interval_s,
                              access=settings.http_access, cancel=cancel,
                              log=lambda line: print(redact(line), file=sys.stderr, flush=True))
    return result.record()


def _write_pr_context(out: Path, settings: Settings) -> None:
    """On a pull_request event, remember the PR in the report for the fork-safe publish workflow."""
    if not settings.on_github_actions:
        return
    from flowwalk.github.publish import write_pr_context   # pydantic and requests: on Actions only

    write_pr_context(out, None)
