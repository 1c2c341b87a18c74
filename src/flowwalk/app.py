"""The commands, one typed function each: a request in, a result out, for the CLI and the MCP server.

`cli.py` fills a request from its options and prints the result; `mcp/` fills the same request from
a tool's arguments and answers with the same result, so a command cannot behave differently behind
the two. A run prints its progress to the console it is given; nothing else here prints, except the
warnings a run gives before it starts (stderr).

Imports of the walker, the specs' models, the reports and GitHub stay inside the functions that
use them: `execute_run` starts Playwright's driver (`Prelaunch`) before any of them is imported,
and `flowwalk validate` never imports the walker.
"""

from __future__ import annotations

import datetime
import os
import signal
import sys
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TextIO

from flowwalk.cooperative import CancelToken
from flowwalk.errors import Location, SpecError, UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.model import Suite
from flowwalk.reportfolder import ReportFolder
from flowwalk.settings import Overrides, Settings
from flowwalk.spec.config import settings_for

if TYPE_CHECKING:
    from flowwalk.events import Heal
    from flowwalk.github.publish import PublishResult
    from flowwalk.heal.baselines import BaselinePlan
    from flowwalk.heal.patch import HealPatch
    from flowwalk.plan.model import Plan
    from flowwalk.report.merge import MergeResult


# --- validate, plan, run ---------------------------------------------------------------------


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

    @property
    def scenarios(self) -> int:
        return sum(len(s.scenarios) for s in self.suites)

    @property
    def rules(self) -> int:
        return sum(len(sc.rules) for s in self.suites for sc in s.scenarios)


def settings_of(request: RunRequest) -> Settings:
    return settings_for(request.overrides, os.environ, request.config_path)


def _suites(settings: Settings) -> list[Suite]:
    from flowwalk.spec.loader import load_suites   # pydantic: after the prelaunch started

    return load_suites(list(settings.paths), settings)


def load(request: RunRequest) -> Loaded:
    """The settings and every suite the request names; SpecError (every problem) or UsageError."""
    settings = settings_of(request)
    return Loaded(settings, _suites(settings))


def validate(request: RunRequest) -> Loaded:
    """What `flowwalk validate` checks: every file the request names, and the quarantine file."""
    loaded = load(request)
    quarantine_of(loaded.settings, loaded.suites)
    return loaded


#: words in a variable's name that mark it as a secret wherever it is not declared one
SECRET_WORDS = ("PASS", "PWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE", "CREDENTIAL", "AUTH", "SESSION",
                "COOKIE")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS) or upper.endswith("PIN")


def missing_variables(request: RunRequest) -> list[tuple[str, Location, bool]]:
    """(name, location, secret) of every `{{NAME}}` the named specs need that the run cannot
    supply, first use each, in file order: the walker's own check (walk/preflight.py), before any
    browser. `secret`: declared a secret (config, the spec) or named like one. A folder to serve
    supplies BASE_URL when the run starts. Specs that do not load give none (the run reports
    them). The MCP server asks the person for the values of those that are not secrets."""
    from flowwalk.walk.context import run_variables   # the walker: only when asked
    from flowwalk.walk.preflight import check_variables

    try:
        loaded = load(request)
    except (SpecError, UsageError):
        return []
    available = run_variables(loaded.settings)
    if request.serve_dir:
        available.setdefault("BASE_URL", "http://127.0.0.1")
    found: dict[str, tuple[str, Location, bool]] = {}
    for suite in loaded.suites:
        for scenario in suite.scenarios:
            declared = set(loaded.settings.secret_names) | set(scenario.secrets)
            for loc, name in check_variables(scenario, loaded.settings, available):
                if name not in found:
                    found[name] = (name, loc, name in declared or looks_secret(name))
    return list(found.values())


def plan_of(settings: Settings, suites: list[Suite]) -> Plan:
    """The run's plan: what `flowwalk plan` prints is what `flowwalk run` walks, selection included."""
    from flowwalk.plan.shard import plan_run   # yaml: after the prelaunch started
    from flowwalk.report.history import not_passed

    return plan_run(suites, settings, last_failed_ids=not_passed(settings.last_failed) if settings.last_failed
                    else None)


def plan(request: RunRequest) -> Plan:
    settings = settings_of(request)
    return plan_of(settings, _suites(settings))


def quarantine_of(settings: Settings, suites: list[Suite]) -> dict[str, Any] | None:
    """The quarantine file's record for this run (spec/quarantine.py), or None without a file.
    Entries map onto every test loaded, selected or not, and expire by today's date (UTC)."""
    from flowwalk.spec.quarantine import find_quarantine, load_quarantine

    path = find_quarantine(settings.quarantine_file)
    if path is None:
        return None
    scenarios = {sc.id: [sc.test_id(r) for r in sc.rules] for suite in suites for sc in suite.scenarios}
    return load_quarantine(path, scenarios, datetime.datetime.now(datetime.timezone.utc).date())


def base_of(settings: Settings, the_plan: Plan) -> dict[str, Any] | None:
    """The base branch's last report as the run keeps it (report/history.py): `--base-report`, else
    the durations file when it is a report (the last run's report a CI job downloads); None without."""
    from flowwalk.report.history import base_statuses
    from flowwalk.report.records import ReportError

    tests = {tid for sc in the_plan.scenarios for tid in (sc.test_id(r) for r in sc.rules)}
    if settings.base_report:
        return base_statuses(settings.base_report, tests)
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
                on_event: Callable[[Any], None] | None = None, color: bool | str = "auto") -> dict[str, Any]:
    """One run, end to end: serve, load, plan, walk, write the report folder; returns verdict.json.

    `flowwalk run` calls it with the terminal, and SIGINT/SIGTERM cancel it (`cancel` None). The MCP
    server's `run` tool calls it from a worker thread with its own `cancel` (only the main thread may
    install signal handlers), the console lines into a buffer and `on_event` to follow the run; both
    therefore walk exactly the same way.
    """
    from flowwalk.walk.prelaunch import Prelaunch

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
            print(f"serving {request.serve_dir} at {server.url}", file=sys.stderr)
        settings = settings_for(overrides, os.environ, request.config_path)
        prelaunch.launch(settings)
        suites = _suites(settings)
        the_plan = plan_of(settings, suites)
        gate = gate_of(settings, suites, the_plan)
        if the_plan.durations.missing:
            from flowwalk.plan.shard import missing_durations_notice

            _notice(settings, "flowwalk durations", missing_durations_notice(str(the_plan.durations.path)))
        out = ReportFolder(Path(settings.out_dir))
        out.clear()
        out.pr_context.unlink(missing_ok=True)
        _write_pr_context(out.path, settings)
        # imported after the prelaunch started: the walker imports Playwright, which the
        # launching thread is importing meanwhile
        from flowwalk.report.build import build_reports
        from flowwalk.report.console import ConsoleReporter
        from flowwalk.report.emit import EmitWriter
        from flowwalk.walk.run import run_plan

        if cancel is None:
            cancel = stack.enter_context(cancelled_by_signals(CancelToken()))
        writer = EmitWriter(out.path)
        stack.callback(writer.close)
        reporter = ConsoleReporter(console, color=color, report_dir=str(out.path))
        handlers: list[Callable[[Any], None]] = [writer, reporter]
        if on_event is not None:
            handlers.append(on_event)
        run_plan(the_plan, settings, Handlers(handlers), cancel=cancel, prelaunched=prelaunch, gate=gate)
        writer.close()
        verdict: dict[str, Any] = build_reports(out.path)
        reporter.finish(verdict)
        return verdict
    raise AssertionError("unreachable: ExitStack does not swallow")  # pragma: no cover


def _write_pr_context(out: Path, settings: Settings) -> None:
    """On a pull_request event, remember the PR in the report for the fork-safe publish workflow."""
    if not settings.on_github_actions:
        return
    from flowwalk.github.publish import write_pr_context   # pydantic and requests: on Actions only

    write_pr_context(out, None)


# --- reports -----------------------------------------------------------------------------------


def merge(dirs: Sequence[str | Path], out_dir: str | Path) -> MergeResult:
    from flowwalk.report.merge import merge_reports

    return merge_reports(dirs, out_dir)


def rebuild(report_dir: str | Path) -> dict[str, Any]:
    """`flowwalk report DIR`: every report rebuilt from the folder's emit.jsonl; the verdict."""
    from flowwalk.report.build import build_reports

    return build_reports(Path(report_dir))


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
    from flowwalk.github.env import github_settings_from_env   # pydantic and requests: publish only
    from flowwalk.github.publish import publish as publish_report

    given = {f.name: getattr(request, f.name) for f in fields(request) if f.name != "report_dir"}
    gh = github_settings_from_env(os.environ, given)
    suggestions = _heal_suggestions(request.report_dir) if gh.heal_suggestions and gh.pr_number else []
    return publish_report(request.report_dir, gh, suggestions=suggestions)


def _heal_suggestions(report_dir: Path) -> list[Any]:
    """The report's heals as review suggestions, read against the spec files of the checkout (the
    current folder); heals whose spec line is not there as the run saw it are left out."""
    from flowwalk.github.review import Suggestion
    from flowwalk.heal.patch import plan_patch
    from flowwalk.report.records import ReportError

    try:
        patch = plan_patch(report_dir, Path("."))
    except ReportError:
        return []  # publish says what is wrong with the report itself
    for skipped in patch.skipped:
        print(f"flowwalk publish: note: no heal suggestion for {skipped.render()}", file=sys.stderr)
    return [Suggestion(path=e.path, start_line=e.first_line, line=e.last_line, lines=e.new_lines,
                       old_selector=e.heal.old_selector, new_selector=e.heal.new_selector, method=e.heal.method,
                       score=e.heal.score, target=e.heal.target, tests=e.tests) for e in patch.edits]


# --- heal ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HealRequest:
    """What `flowwalk heal` and the MCP server's `propose_heal` are asked."""

    report_dir: Path = Path("flowwalk-report")
    #: the folder the run ran in: spec paths in the report are relative to it, and only files
    #: inside it change; None: the current folder, and a path the run wrote is taken as it is
    root: Path | None = None
    #: heals chosen for steps that did not heal (an agent's answers to the MCP server), with their tests
    extra: tuple[tuple[Heal, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class HealPlan:
    """A report's heals (`patch`) and its new or changed baselines (`baselines`), as one change
    of the checkout: `diff` is what `git apply` takes, `skipped` what is left out and why."""

    patch: HealPatch
    baselines: BaselinePlan

    @property
    def diff(self) -> str:
        return self.patch.diff + self.baselines.diff

    @property
    def skipped(self) -> list[str]:
        return [s.render() for s in self.patch.skipped] + [
            f"baseline {path}: not in the patch: {why}" for path, why in self.baselines.skipped]

    @property
    def files(self) -> list[str]:
        """Every file the diff changes."""
        return sorted(self.patch.texts) + [c.path for c in self.baselines.changes]

    @property
    def heals(self) -> list[str]:
        """One line per selector the patch changes: `path:line: 'old' -> 'new' (method, score)`."""
        from flowwalk.heal.patch import describe

        return describe(self.patch.edits)

    @property
    def done(self) -> str:
        """What the diff holds, in words: `2 heals in 1 file and 1 baseline`."""
        files = len(self.patch.texts)
        edits = len(self.patch.edits)
        text = f"{edits} heal{'s' * (edits != 1)} in {files} file{'s' * (files != 1)}"
        if self.baselines.changes:
            count = len(self.baselines.changes)
            text += f" and {count} baseline{'s' * (count != 1)}"
        return text

    @property
    def nothing(self) -> str:
        """Why there is nothing to change, or "" when there is."""
        if self.patch.edits or self.baselines.changes:
            return ""
        return "the report has no heals" if not (self.patch.skipped or self.patch.kept) \
            else "no heal is left to apply"

    @property
    def exit_code(self) -> ExitCode:
        """OK when everything is in the diff, SPEC_NEEDS_REVIEW when something had to be left out."""
        return ExitCode.SPEC_NEEDS_REVIEW if self.patch.skipped or self.baselines.skipped else ExitCode.OK


def plan_heal(request: HealRequest) -> HealPlan:
    """The report's heals and baselines as a change of the spec files under the root; writes nothing."""
    from flowwalk.heal.baselines import plan_baselines   # yaml: heal only
    from flowwalk.heal.patch import plan_patch

    root = request.root or Path(".")
    if not root.is_dir():
        from flowwalk.spec.source import escape

        raise UsageError(f"--root '{escape(root)}' is not a folder\n  hint: pass the folder the run ran in "
                         f"(spec paths in the report are relative to it)")
    # spec paths are as the run wrote them (relative to where it ran, `../` included); a root that
    # was given confines the patch to that folder
    confine = request.root is not None
    return HealPlan(plan_patch(request.report_dir, root, confine=confine, extra=request.extra),
                    plan_baselines(request.report_dir, root, confine=confine))


@dataclass(frozen=True)
class HealWritten:
    """What `apply_heal` wrote: one line per selector and per baseline; `conflicts`: spec files
    that changed while the patch was made, not written (then no baseline is written either)."""

    patched: list[str]
    baselines: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)


def apply_heal(plan: HealPlan) -> HealWritten:
    """Write the plan's spec files, then its baselines."""
    from flowwalk.heal.baselines import apply_baselines
    from flowwalk.heal.patch import PatchConflictError, apply_patch, describe

    patch = plan.patch
    try:
        apply_patch(patch)
    except PatchConflictError as conflict:
        written = {str(p) for p in conflict.written}
        return HealWritten(patched=describe(e for e in patch.edits if str(patch.root / e.path) in written),
                           conflicts=list(conflict.paths))
    apply_baselines(plan.baselines)
    return HealWritten(patched=plan.heals, baselines=[change.render() for change in plan.baselines.changes])


# --- schemas -------------------------------------------------------------------------


def schema_texts() -> dict[str, str]:
    """Every schema `flowwalk schema` writes, as its file's text, by file name: the inputs' (spec/)
    and discover's crawl.json, an output generated from its model the same way."""
    from flowwalk.discover.record import generate_schemas as crawl_schemas   # pydantic: schema only
    from flowwalk.spec.schemas import generate_schemas as input_schemas, render

    return {name: render(schema) for name, schema in {**input_schemas(), **crawl_schemas()}.items()}


def write_schemas(out_dir: str | Path) -> list[Path]:
    """`flowwalk schema --out DIR`: write every schema into DIR; the files written."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_texts().items():
        (folder / name).write_text(text, encoding="utf-8")
        written.append(folder / name)
    return written
