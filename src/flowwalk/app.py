"""What each command does, end to end: settings, loading, planning, running, reports, publishing.

`cli.py` parses and calls exactly one function here. Each returns the process exit code.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import traceback
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, TextIO

from flowwalk.errors import Problem, UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.settings import Settings

#: files a run writes into its report folder; a new run replaces them (nothing else is touched)
REPORT_FILES = ("emit.jsonl", "junit.xml", "verdict.json", "summary.md", "report.html", "pr.json")


def print_problems(problems: Iterable[Problem], stream: Any = None) -> None:
    """Every problem as `path:line:col: error: ...` + hint; under Actions also an ::error annotation."""
    stream = stream or sys.stderr
    problems = list(problems)
    for problem in problems:
        print(problem.render(), file=stream)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for problem in problems[:50]:
            print(problem.annotation(), file=sys.stdout)
    files = len({p.loc.path for p in problems})
    print(f"\n{len(problems)} error{'s' * (len(problems) != 1)} in {files} file{'s' * (files != 1)}; "
          f"nothing was run.", file=stream)


def report_crash(error: BaseException) -> None:
    """A bug in flowwalk: one clear line for the user, the traceback in a file for the bug report."""
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"flowwalk-crash-{os.getpid()}.txt"
    try:
        path.write_text("".join(traceback.format_exception(error)))
        where = f"details in {path}"
    except OSError:
        where = "no details could be written"
    print(f"flowwalk: internal error: {type(error).__name__}: {error} ({where}); "
          f"this is a bug in flowwalk, please report it", file=sys.stderr)


# --- settings --------------------------------------------------------------------------------


def _settings(options: Mapping[str, Any], env: Mapping[str, str] | None = None) -> Settings:
    from flowwalk.spec.config import settings_for  # the spec layer loads lazily, as before

    return settings_for({k: v for k, v in options.items() if k != "config_path"},
                        os.environ if env is None else env, options.get("config_path"))


def _load(settings: Settings) -> list[Any]:
    from flowwalk.spec.loader import load_suites

    return load_suites(list(settings.paths), settings)


def _with_paths(options: Mapping[str, Any]) -> dict[str, Any]:
    opts = dict(options)
    opts["paths"] = tuple(opts.get("paths") or ())
    return opts


# --- commands --------------------------------------------------------------------------------


def load(options: Mapping[str, Any]) -> tuple[Settings, list[Any]]:
    """The settings and every suite the options name; SpecError (every problem) or UsageError.
    What `validate` checks, without printing: the MCP server's `validate` tool calls it too."""
    settings = _settings(_with_paths(options))
    return settings, _load(settings)


#: words in a variable's name that mark it as a secret wherever it is not declared one
SECRET_WORDS = ("PASS", "PWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE", "CREDENTIAL", "AUTH", "SESSION",
                "COOKIE")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS) or upper.endswith("PIN")


def missing_variables(options: Mapping[str, Any], *, base_url_later: bool = False
                      ) -> list[tuple[str, Any, bool]]:
    """(name, location, secret) of every `{{NAME}}` the named specs need that the run cannot
    supply, first use each, in file order: the walker's own check (walk/preflight.py), before any
    browser. `secret`: declared a secret (config, the spec) or named like one. `base_url_later`:
    `--serve` sets BASE_URL when the run starts. Specs that do not load give none (the run reports
    them). The MCP server asks the person for the values of those that are not secrets."""
    from flowwalk.errors import SpecError
    from flowwalk.walk.context import run_variables
    from flowwalk.walk.preflight import check_variables

    try:
        settings, suites = load(options)
    except (SpecError, UsageError):
        return []
    available = run_variables(settings)
    if base_url_later:
        available.setdefault("BASE_URL", "http://127.0.0.1")
    found: dict[str, tuple[str, Any, bool]] = {}
    for suite in suites:
        for scenario in suite.scenarios:
            declared = set(settings.secret_names) | set(scenario.secrets)
            for loc, name in check_variables(scenario, settings, available):
                if name not in found:
                    found[name] = (name, loc, name in declared or looks_secret(name))
    return list(found.values())


def validate(options: Mapping[str, Any]) -> int:
    settings_used, suites = load(options)
    quarantine_of(settings_used, suites)   # a bad quarantine file is refused here too
    scenarios = sum(len(s.scenarios) for s in suites)
    rules = sum(len(sc.rules) for s in suites for sc in s.scenarios)
    print(f"ok: {len(suites)} file{'s' * (len(suites) != 1)}, {scenarios} scenario"
          f"{'s' * (scenarios != 1)}, {rules} rule{'s' * (rules != 1)}; no errors")
    return ExitCode.OK


def last_failed_ids(settings: Settings) -> frozenset[str] | None:
    """`--last-failed REPORT`: the ids of the tests that did not pass there (None: not asked)."""
    if not settings.last_failed:
        return None
    from flowwalk.report.history import not_passed

    return not_passed(settings.last_failed)


def plan_of(settings: Settings, suites: list[Any]) -> Any:
    """The run's plan: what `flowwalk plan` prints is what `flowwalk run` walks, selection included."""
    from flowwalk.plan.shard import plan_run

    return plan_run(suites, settings, last_failed_ids=last_failed_ids(settings))


def quarantine_of(settings: Settings, suites: list[Any]) -> dict[str, Any] | None:
    """The quarantine file's record for this run (spec/quarantine.py), or None without a file.
    Entries map onto every test loaded, selected or not, and expire by today's date (UTC)."""
    import datetime

    from flowwalk.spec.quarantine import find_quarantine, load_quarantine

    path = find_quarantine(settings.quarantine_file)
    if path is None:
        return None
    scenarios = {sc.id: [sc.test_id(r) for r in sc.rules] for suite in suites for sc in suite.scenarios}
    return load_quarantine(path, scenarios, datetime.datetime.now(datetime.timezone.utc).date())


def base_of(settings: Settings, the_plan: Any) -> dict[str, Any] | None:
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


def gate_of(settings: Settings, suites: list[Any], the_plan: Any) -> dict[str, Any] | None:
    """What decides which failures fail the job (exitcodes.Gate), as run_started.gate records it."""
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


def plan(options: Mapping[str, Any]) -> int:
    from flowwalk.plan.shard import render_plan

    settings = _settings(_with_paths(options))
    the_plan = plan_of(settings, _load(settings))
    if options.get("as_json"):
        print(json.dumps(the_plan.record(), indent=2))
    else:
        print(render_plan(the_plan))
    return ExitCode.OK


def _notice(settings: Settings, title: str, message: str) -> None:
    """Something a user should know that changes nothing of the verdict: on stderr, and as a
    notice annotation on the job's summary page when on GitHub Actions."""
    print(f"flowwalk: notice: {message}", file=sys.stderr)
    if settings.on_github_actions:
        text = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        print(f"::notice title={title}::{text}", flush=True)


def _clear_report_dir(out: Path) -> None:
    """A new run replaces the previous run's artifacts in the folder (`REPORT_FILES` and
    `flowwalk.report.records.ARTIFACT_DIRS`), and only those."""
    import shutil

    from flowwalk.report.records import ARTIFACT_DIRS

    out.mkdir(parents=True, exist_ok=True)
    for name in REPORT_FILES:
        (out / name).unlink(missing_ok=True)
    for name in ARTIFACT_DIRS:
        if (out / name).is_dir():
            shutil.rmtree(out / name)


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


def _install_cancel_handlers(cancel: threading.Event) -> Callable[[], None]:
    """SIGINT/SIGTERM (what CI sends on cancel or timeout) stop the run cleanly; a second one
    kills at once. Returns a function that restores the previous handlers."""
    previous: dict[int, Any] = {}

    def handle(signum: int, _frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        cancel.signal_name = signal.Signals(signum).name  # type: ignore[attr-defined]
        print(f"\nflowwalk: {signal.Signals(signum).name} received: finishing the reports for what ran",
              file=sys.stderr)

    for sig in (signal.SIGINT, signal.SIGTERM):
        previous[sig] = signal.signal(sig, handle)

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


def run(options: Mapping[str, Any]) -> int:
    verdict = execute_run(options, console=sys.stdout)
    return int(verdict["exit_code"])


def execute_run(options: Mapping[str, Any], *, console: TextIO, cancel: threading.Event | None = None,
                on_event: Callable[[Any], None] | None = None, color: bool | str = "auto") -> dict[str, Any]:
    """One run, end to end: serve, load, plan, walk, write the report folder; returns verdict.json.

    `flowwalk run` calls it with the terminal and SIGINT/SIGTERM as the cancel. The MCP server's
    `run` tool calls it from a worker thread with its own `cancel` (no signal handlers there: only
    the main thread may install them), the console lines into a buffer and `on_event` to follow
    the run; both therefore walk exactly the same way.
    """
    from flowwalk.walk.prelaunch import Prelaunch

    options = _with_paths(options)
    serve_dir = options.pop("serve_dir", None)
    with ExitStack() as stack:
        # worker 1 starts Playwright's driver now and launches its Chromium as soon as the settings
        # are known, while the specs load (walk/prelaunch.py); refused input stops it again before
        # it opened a page
        prelaunch = Prelaunch()
        stack.callback(prelaunch.close)
        if serve_dir:
            from flowwalk.serve import StaticServer  # http.server only when asked to serve

            server = stack.enter_context(StaticServer(serve_dir))
            if not options.get("base_url"):
                options["base_url"] = server.url
            print(f"serving {serve_dir} at {server.url}", file=sys.stderr)
        settings = _settings(options)
        prelaunch.launch(settings)
        if settings.shard_source:
            print(f"flowwalk: shard {settings.shard_index}/{settings.shard_total}, from {settings.shard_source}",
                  file=sys.stderr)
        suites = _load(settings)
        the_plan = plan_of(settings, suites)
        gate = gate_of(settings, suites, the_plan)
        wait_url = _check_preview_settings(settings)
        if the_plan.durations.missing:
            from flowwalk.plan.shard import missing_durations_notice

            _notice(settings, "flowwalk durations", missing_durations_notice(str(the_plan.durations.path)))
        out = Path(settings.out_dir)
        _clear_report_dir(out)
        _write_pr_context(out, settings)
        # imported after the prelaunch started: the walker imports Playwright, which the
        # launching thread is importing meanwhile
        from flowwalk.report.build import build_reports
        from flowwalk.report.console import ConsoleReporter
        from flowwalk.report.emit import EmitWriter
        from flowwalk.walk.run import run_plan

        if cancel is None:
            cancel = threading.Event()
            stack.callback(_install_cancel_handlers(cancel))
        writer = EmitWriter(out)
        stack.callback(writer.close)
        reporter = ConsoleReporter(console, color=color, report_dir=str(out))
        handlers: list[Callable[[Any], None]] = [writer, reporter]
        if on_event is not None:
            handlers.append(on_event)
        readiness = _wait_for_site(settings, wait_url, cancel) if wait_url else None
        run_plan(the_plan, settings, Handlers(handlers), cancel=cancel, prelaunched=prelaunch, gate=gate,
                 readiness=readiness)
        writer.close()
        verdict: dict[str, Any] = build_reports(out)
        reporter.finish(verdict)
        return verdict
    raise AssertionError("unreachable: ExitStack does not swallow")  # pragma: no cover


def _check_preview_settings(settings: Settings) -> str | None:
    """A run's HTTP headers and credentials must all have their values and an origin to go to, and a
    relative `--wait-for` a base URL (UsageError otherwise, before anything waits); returns the URL
    to wait for (None: no wait)."""
    from flowwalk.readiness import access_from, readiness_url

    access_from(dict(settings.http_headers), settings.http_credentials,
                {name: settings.secrets.get(name) for name in settings.secret_names}, settings.base_url)
    return readiness_url(settings.wait_for, settings.base_url) if settings.wait_for else None


def _wait_for_site(settings: Settings, url: str, cancel: threading.Event) -> dict[str, Any]:
    """The readiness wait (readiness.py), its progress on stderr; returns its record for run_started."""
    from flowwalk.readiness import parse_statuses, wait_until_ready
    from flowwalk.spec.variables import Redactor

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
    try:
        from flowwalk.github.publish import write_pr_context
    except ImportError:  # pragma: no cover
        return
    write_pr_context(out, None)


def merge(dirs: Iterable[str], out_dir: str) -> int:
    from flowwalk.report.merge import merge_reports

    result = merge_reports([Path(d) for d in dirs], Path(out_dir))
    for warning in getattr(result, "warnings", ()):
        print(f"flowwalk: warning: {warning}", file=sys.stderr)
    verdict = result.verdict
    counts = verdict["counts"]
    print(f"merged {len(list(dirs))} report folders into {out_dir}: {counts['total']} tests, "
          f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped, "
          f"{counts['flaky']} flaky")
    return int(verdict["exit_code"])


def rebuild(report_dir: str) -> int:
    from flowwalk.report.build import build_reports

    verdict = build_reports(Path(report_dir))
    print(f"rebuilt the reports in {report_dir}: {verdict['outcome']}")
    return int(verdict["exit_code"])


def publish(options: Mapping[str, Any]) -> int:
    from flowwalk.github.gitlab import on_gitlab

    if on_gitlab(os.environ):
        return _publish_gitlab(options)
    from flowwalk.github.env import github_settings_from_env
    from flowwalk.github.publish import publish as publish_report

    overrides = {k: v for k, v in options.items() if k != "report_dir" and v is not None}
    gh = github_settings_from_env(os.environ, overrides)
    report_dir = Path(options["report_dir"])
    suggestions = _heal_suggestions(report_dir) if gh.heal_suggestions and gh.pr_number else []
    result = publish_report(report_dir, gh, suggestions=suggestions)
    return int(result.exit_code)


def _publish_gitlab(options: Mapping[str, Any]) -> int:
    """`flowwalk publish` in a GitLab CI job: the merge request note (github/gitlab.py); GitLab reads
    junit.xml as its test report itself. Exits with the verdict's code whatever GitLab answers."""
    from flowwalk.github.gitlab import gitlab_settings_from_env, publish_to_gitlab
    from flowwalk.github.publish import load_verdict, run_base_url

    report_dir = Path(options["report_dir"])
    verdict = load_verdict(report_dir)
    settings = gitlab_settings_from_env(os.environ, {k: options.get(k) for k in ("token", "comment_mode",
                                                                                   "comment_name")})
    publish_to_gitlab(verdict, settings, base_url=run_base_url(report_dir))
    return int(verdict["exit_code"])


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


def heal(options: Mapping[str, Any]) -> int:
    """`flowwalk heal`: the report's heals and new or changed baselines as a diff on stdout, or written
    (--apply).

    Exit codes (cli.HEAL_EXIT_CODES_HELP): OK when every heal of the report is in the patch (or
    there are none), SPEC_NEEDS_REVIEW when some could not be (each reason on stderr; the rest are
    still printed or written), INPUT_REFUSED when the report cannot be read.
    """
    from flowwalk.heal.baselines import apply_baselines, plan_baselines
    from flowwalk.heal.patch import PatchConflictError, apply_patch, describe, plan_patch

    report_dir = Path(options.get("report_dir") or "flowwalk-report")
    root = Path(options.get("root") or ".")
    if not root.is_dir():
        from flowwalk.spec.source import escape

        raise UsageError(f"--root '{escape(root)}' is not a folder\n  hint: pass the folder the run ran in "
                         f"(spec paths in the report are relative to it)")
    # spec paths are as the run wrote them (relative to where it ran, `../` included); an explicit
    # --root confines the patch to that folder
    patch = plan_patch(report_dir, root, confine=options.get("root") is not None)
    # the report's new and changed baselines (aria_snapshot, screenshot) go in the same patch
    baselines = plan_baselines(report_dir, root, confine=options.get("root") is not None)
    for skipped in patch.skipped:
        print(f"flowwalk heal: {skipped.render()}", file=sys.stderr)
    for path, why in baselines.skipped:
        print(f"flowwalk heal: baseline {path}: not in the patch: {why}", file=sys.stderr)
    if baselines.written:
        print(f"flowwalk heal: {len(baselines.written)} baseline(s) --update-snapshots already wrote (review them "
              f"with git diff): {', '.join(baselines.written)}", file=sys.stderr)
    files = len(patch.texts)
    done = f"{len(patch.edits)} heal{'s' * (len(patch.edits) != 1)} in {files} file{'s' * (files != 1)}"
    if baselines.changes:
        count = len(baselines.changes)
        done += f" and {count} baseline{'s' * (count != 1)}"
    left = f"; {len(patch.skipped) + len(baselines.skipped)} skipped (see above)" \
        if patch.skipped or baselines.skipped else ""
    if patch.kept:
        left += f"; {len(patch.kept)} already in the spec files"
    code = ExitCode.SPEC_NEEDS_REVIEW if patch.skipped or baselines.skipped else ExitCode.OK
    if not patch.edits and not baselines.changes:
        why = "the report has no heals" if not (patch.skipped or patch.kept) else "no heal is left to apply"
        print(f"flowwalk heal: nothing to change: {why}{left}", file=sys.stderr)
        return code
    if not options.get("apply"):
        sys.stdout.write(patch.diff + baselines.diff)
        print(f"flowwalk heal: {done}{left}; `flowwalk heal --apply` (or `git apply`) writes it", file=sys.stderr)
        return code
    try:
        apply_patch(patch)
    except PatchConflictError as conflict:
        written = {str(p) for p in conflict.written}
        for line in describe(e for e in patch.edits if str(patch.root / e.path) in written):
            print(f"patched {line}")
        for path in conflict.paths:
            print(f"flowwalk heal: {path}: changed while the patch was made; not written, run flowwalk heal "
                  f"again", file=sys.stderr)
        return ExitCode.SPEC_NEEDS_REVIEW
    for line in describe(patch.edits):
        print(f"patched {line}")
    apply_baselines(baselines)
    for change in baselines.changes:
        print(f"wrote {change.render()}")
    print(f"flowwalk heal: wrote {done}{left}", file=sys.stderr)
    return code


def generated_schemas() -> dict[str, dict[str, Any]]:
    """Every schema `flowwalk schema` writes, by file name: the inputs' (spec/) and discover's
    crawl.json, an output generated from its model the same way."""
    from flowwalk.discover.record import generate_schemas as crawl_schemas
    from flowwalk.spec.schemas import generate_schemas as input_schemas

    return {**input_schemas(), **crawl_schemas()}


def write_schemas(out_dir: str) -> int:
    """`flowwalk schema --out DIR`: write every generated schema into DIR."""
    from flowwalk.spec.schemas import render

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for name, schema in generated_schemas().items():
        path = folder / name
        path.write_text(render(schema), encoding="utf-8")
        print(f"wrote {path}")
    return ExitCode.OK


def discover(options: Mapping[str, Any]) -> int:
    """`flowwalk discover URL --out DIR`: the crawl prints as it goes; exit 0 when it ran (specs in
    needs-review/ are part of its answer), 5 when cancelled, 6 when the start URL did not load."""
    from flowwalk.discover import DiscoverOptions, discover as run_discover

    opts = DiscoverOptions(
        url=str(options["url"]), out_dir=Path(options["out_dir"]), allow_hosts=tuple(options.get("allow_hosts") or ()),
        max_pages=_number(options, "max_pages", 50), max_depth=_number(options, "max_depth", 4),
        max_actions=_number(options, "max_actions", 200),
        budget_s=float(options.get("budget_min") or 10.0) * 60, resume=bool(options.get("resume")),
        submit_forms=bool(options.get("submit_forms")),
        login=Path(options["login"]) if options.get("login") else None, goal=str(options.get("goal") or ""),
        variables=tuple(_assignments(options.get("variables") or ())), secret_names=tuple(options.get("secret_names") or ()),
        destructive_add=tuple(options.get("destructive_add") or ()),
        destructive_remove=tuple(options.get("destructive_remove") or ()),
        verify=not options.get("no_verify"), use_model=not options.get("no_model"),
        config_path=Path(options["config_path"]) if options.get("config_path") else None,
        executable=options.get("executable") or None)
    cancel = threading.Event()
    restore = _install_cancel_handlers(cancel)
    try:
        result = run_discover(opts, progress=lambda line: print(line, file=sys.stderr, flush=True), cancel=cancel)
    finally:
        restore()
    print(f"discover: {result.pages} pages, {result.features} features; {len(result.specs_written)} specs written, "
          f"{len(result.needs_review)} need review; crawl {result.stopped_reason} in {result.duration_s:.1f} s")
    print(f"next: flowwalk run {result.out_dir}/   (what was found: {result.discover_dir}/index.md)")
    if result.stopped_reason == "cancelled":
        return ExitCode.CANCELLED
    if result.stopped_reason == "unreachable":
        return ExitCode.INFRASTRUCTURE_FAILED
    return ExitCode.OK


def _number(options: Mapping[str, Any], name: str, default: int) -> int:
    value = options.get(name)
    return default if value is None else int(value)


def _assignments(pairs: Iterable[str]) -> list[tuple[str, str]]:
    from flowwalk.settings import parse_assignments

    return sorted(parse_assignments(list(pairs)).items())
