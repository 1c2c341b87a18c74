"""The `flowwalk` command line: fills a command's request from the options, calls its one function
in `app` and prints the result; flowwalk's errors become messages and exit codes.

`app.run` (validate, plan, run) imports nothing heavy at its top; each other command's module is
imported by its command, so `flowwalk --help` and the first result of a run come quickly.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import click

from flowwalk import __version__
from flowwalk.app import run as app_run
from flowwalk.cooperative import CancelToken
from flowwalk.errors import BrowserLaunchError, FlowwalkError, Problem, SpecError, UsageError
from flowwalk.exitcodes import ExitCode
from flowwalk.settings import Overrides, parse_assignments

EXIT_CODES_HELP = """\b
Exit codes:
  0  every scenario passed
  1  the site misbehaved (an assertion_failed)
  2  a spec needs review (spec_step_unresolvable, credential_rejected, ...)
  3  input refused (a spec, rule file, suite, option or its value is invalid)
  4  flowwalk itself broke
  5  cancelled (SIGINT/SIGTERM); reports cover what ran
  6  infrastructure failed (browser crash, run timeout)
  7  the site never came up (--wait-for ran out); nothing was walked"""

HEAL_EXIT_CODES_HELP = """\b
Exit codes:
  0  every heal of the report is in the patch (or the report has none)
  2  some heals could not be patched (the spec changed since the run, a variable, ...);
     each reason is on stderr, the others are still printed or written
  3  the report folder cannot be read, or its heals name files the project root does not
     hold (nothing is changed)"""


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


def guarded(command: Callable[..., int]) -> Callable[..., None]:
    """The command, its exit code the process's; flowwalk's own errors become messages and exit
    codes, never tracebacks."""
    @functools.wraps(command)
    def guard(**options: Any) -> None:
        sys.exit(int(_exit_code(lambda: command(**options))))

    return guard


def _exit_code(action: Callable[[], int]) -> int:
    try:
        return action()
    except SpecError as error:
        print_problems(error.problems)
        return ExitCode.INPUT_REFUSED
    except UsageError as error:
        click.echo(f"flowwalk: error: {error}", err=True)
        return ExitCode.INPUT_REFUSED
    except BrowserLaunchError as error:
        click.echo(f"flowwalk: cannot start Chromium: {error}\n  hint: run scripts/install.sh, or set "
                   f"FLOWWALK_CHROMIUM to a Chromium executable", err=True)
        return ExitCode.INTERNAL_ERROR
    except FlowwalkError as error:
        click.echo(f"flowwalk: error: {error}", err=True)
        return ExitCode.INTERNAL_ERROR
    except KeyboardInterrupt:
        click.echo("flowwalk: cancelled", err=True)
        return ExitCode.CANCELLED
    except BrokenPipeError:   # `flowwalk plan | head`: the reader has what it wanted; not a bug
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # nothing more to write at exit
        return ExitCode.OK
    except Exception as error:  # a bug: say so plainly, keep the traceback out of the user's face
        report_crash(error)
        return ExitCode.INTERNAL_ERROR


class _Listened:
    """A standard stream whose reader may leave (`flowwalk run 2>&1 | head`): once its pipe is closed,
    what is written is dropped, so that a long command goes on to its reports and its exit code."""

    def __init__(self, stream: Any):
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return int(self._stream.write(text))
            except BrokenPipeError:
                self._leave()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._leave()

    def _leave(self) -> None:
        self._gone = True
        os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())   # nothing more to write at exit

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _readers_may_leave() -> Iterator[None]:
    with contextlib.redirect_stdout(_Listened(sys.stdout)), contextlib.redirect_stderr(_Listened(sys.stderr)):
        yield


def _many(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _run_request(options: dict[str, Any]) -> app_run.RunRequest:
    """The request of `validate`, `plan` and `run`: their options are named after its fields."""
    told = dict(options)
    config_path, serve_dir = told.pop("config_path", None), told.pop("serve_dir", None)
    told.pop("watch", None)  # how `run` walks, not a setting
    told["variables"] = parse_assignments(told.get("variables") or ())
    if "http_headers" in told:
        told["http_headers"] = parse_assignments(told["http_headers"], "--http-header", "NAME=SECRET",
                                                 "x-vercel-protection-bypass=BYPASS_SECRET")
    return app_run.RunRequest(Overrides(**told), config_path=config_path, serve_dir=serve_dir)


class _Commands(click.Group):
    """click's group, except that a command line click cannot parse (an unknown option, a value
    not among the choices, a word where a number goes, a missing argument or command) is bad input:
    exit INPUT_REFUSED (3), as the same mistake through a FLOWWALK_* variable is, never click's 2,
    which flowwalk's exit codes keep for a spec that needs review."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _refused():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _refused():
            return super().invoke(ctx)


@contextlib.contextmanager
def _refused() -> Iterator[None]:
    try:
        yield
    except click.UsageError as error:
        setattr(error, "exit_code", int(ExitCode.INPUT_REFUSED))   # this error's, over its class's 2
        raise


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="flowwalk")
def main() -> None:
    """Browser checks kept as data, walked headless in Chromium, reported on the pull request."""


paths_argument = click.argument("paths", nargs=-1, type=click.Path())
config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                             help="flowwalk.yaml to read [the project root's, when present].")
root_option = click.option("--root", type=click.Path(file_okay=False),
                           help="The project root test ids, folder hooks and verifiers are relative to [the nearest "
                                "folder above the paths holding flowwalk.yaml, else the repository's top].")
var_option = click.option("--var", "variables", multiple=True, metavar="NAME=VALUE",
                          help="A run variable for {{NAME}} placeholders (repeatable).")
secret_option = click.option("--secret", "secret_names", multiple=True, metavar="NAME",
                             help="Read the secret NAME from the environment variable NAME (repeatable).")
base_url_option = click.option("--base-url", help="Base URL that relative urls ('/login') resolve against.")
shard_option = click.option("--shard", metavar="K/N|auto",
                            help="Run only shard K of N (1-based); auto: from the CI's parallel job variables "
                                 "(GitLab, CircleCI, Buildkite, Azure Pipelines).")
def selection_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--grep, --grep-invert, --tag, --last-failed: on `run` and `plan`, so that a shard job walks
    exactly what `flowwalk plan` says (docs/selection.md)."""
    for option in reversed((
        click.option("--grep", metavar="REGEX", help="Run only scenarios with a test id matching REGEX."),
        click.option("--grep-invert", metavar="REGEX", help="Leave out scenarios whose test ids all match REGEX."),
        click.option("--tag", metavar="EXPR", help="Run only scenarios with a test whose tags satisfy EXPR, "
                                                   "e.g. 'smoke and not slow'."),
        click.option("--last-failed", metavar="REPORT", type=click.Path(),
                     help="Run only the scenarios with a test that did not pass in REPORT (a report folder, also "
                          "a merged one)."),
    )):
        command = option(command)
    return command


durations_option = click.option("--durations", "durations_file", type=click.Path(dir_okay=False),
                                help="An earlier emit.jsonl or a JSON {scenario id: seconds} to balance shards; "
                                     "each job then walks its longest scenarios first.")

project_option = click.option("--project", "projects", multiple=True, metavar="NAME",
                              help="Run only this project of flowwalk.yaml (repeat, or NAME,NAME) [all of them].")
test_id_option = click.option("--test-id-attribute", "test_id_attribute", multiple=True, metavar="ATTR",
                              help="An attribute that holds elements' test ids, first found first (repeat, or "
                                   "ATTR,ATTR) [data-testid, data-test-id, data-test, data-qa, data-cy].")


@main.command()
@paths_argument
@config_option
@root_option
@var_option
@secret_option
@base_url_option
@click.option("--quarantine", "quarantine_file", type=click.Path(dir_okay=False),
              help="The quarantine file to check too [flowwalk-quarantine.yaml when present].")
@guarded
def validate(**options: Any) -> int:
    """Check specs, rule files and .robot suites without starting a browser."""
    loaded = app_run.validate(_run_request(options))
    steps = f", {_many(loaded.steps_files, 'steps file')}" if loaded.steps_files else ""
    print(f"ok: {_many(len(loaded.suites), 'file')}, {_many(loaded.scenarios, 'scenario')}, "
          f"{_many(loaded.rules, 'rule')}{steps}; no errors")
    return ExitCode.OK


@main.command(epilog=EXIT_CODES_HELP)
@paths_argument
@config_option
@root_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Report folder [flowwalk-report].")
@var_option
@secret_option
@base_url_option
@click.option("--serve", "serve_dir", type=click.Path(file_okay=False, exists=True),
              help="Serve this folder on 127.0.0.1 for the run and use it as the base URL.")
@shard_option
@durations_option
@project_option
@test_id_option
@click.option("--fingerprints", "fingerprints_file", type=click.Path(),
              help="An earlier report folder or emit.jsonl whose element fingerprints help heal broken "
                   "selectors [the --durations file].")
@selection_options
@click.option("--max-failures", type=int, metavar="N",
              help="Stop starting scenarios after N have failed; the rest are not_run: max_failures.")
@click.option("--base-report", type=click.Path(),
              help="The base branch's last report folder: each failure is marked new or still failing, and "
                   "fixed tests are listed [the --durations file].")
@click.option("--fail-on", type=click.Choice(["any", "new"]),
              help="Which failures fail the job: any, or only new ones against --base-report [any].")
@click.option("--quarantine", "quarantine_file", type=click.Path(dir_okay=False),
              help="The quarantine file: tests that run and are reported but do not fail the job until their "
                   "expiry [flowwalk-quarantine.yaml when present].")
@click.option("--workers", type=int, help="Scenarios run concurrently, up to 4 on one browser [2 per CPU].")
@click.option("--retries", type=int, help="Rerun a failed scenario up to N times; passing on a retry is flaky [0].")
@click.option("--flaky-policy", type=click.Choice(["pass", "fail"]), help="Does a flaky scenario fail the job? [pass]")
@click.option("--heal-policy", type=click.Choice(["pass", "fail"]),
              help="Does a pass through a healed selector fail the job? [pass]")
@click.option("--run-timeout", "run_timeout_s", type=float, help="Seconds for the whole run [300].")
@click.option("--screenshots", type=click.Choice(["off", "on-failure", "on"]), help="When to take screenshots [on-failure].")
@click.option("--full-page-screenshots/--no-full-page-screenshots", default=None, help="Capture the whole page, not the viewport.")
@click.option("--trace", type=click.Choice(["off", "on-failure", "retain-on-failure", "on"]),
              help="Keep a Playwright trace, secrets scrubbed (docs/reports.md#traces) [retain-on-failure on a CI, else off].")
@click.option("--offline/--no-offline", default=None,
              help="Abort requests to hosts other than loopback, the entry host and allowed_hosts [off].")
@click.option("--update-snapshots/--no-update-snapshots", default=None,
              help="Write missing and changed aria_snapshot/screenshot baselines (each reported as "
                   "baseline_written) instead of failing [off].")
@click.option("--chromium", "executable", type=click.Path(dir_okay=False), help="Chromium executable [the headless shell].")
@click.option("--browser-endpoint", metavar="WS_URL",
              help="Connect to a running Playwright browser server (ws://...) instead of launching Chromium.")
@click.option("--wait-for", metavar="URL",
              help="Before walking, wait until URL (absolute, or relative to --base-url) answers as expected; "
                   "a site that never does is exit 7.")
@click.option("--wait-status", metavar="STATUS", help="What --wait-for expects: 200, 2xx, 200-399, ... [2xx].")
@click.option("--wait-text", metavar="TEXT", help="A text --wait-for's page must hold (the build's version, say).")
@click.option("--wait-timeout", "wait_timeout_s", type=float, metavar="SECONDS", help="How long to wait at most [180].")
@click.option("--wait-interval", "wait_interval_s", type=float, metavar="SECONDS", help="Seconds between tries [5].")
@click.option("--http-header", "http_headers", multiple=True, metavar="NAME=SECRET",
              help="Send header NAME with the value of the environment variable SECRET, to the base URL's origin "
                   "only (repeatable).")
@click.option("--http-credentials", metavar="SECRET",
              help="HTTP credentials (username:password) from the environment variable SECRET, for the base URL's "
                   "origin only.")
@click.option("--watch", is_flag=True,
              help="Keep the browser started and walk again, on each save, what the save touched; "
                   "Ctrl-C ends.")
@guarded
def run(watch: bool, **options: Any) -> int:
    """Walk specs in headless Chromium and write the report folder."""
    with _readers_may_leave():
        if watch:
            from flowwalk.app.watch import execute_watch

            return execute_watch(_run_request(options), console=sys.stdout)
        return int(app_run.execute_run(_run_request(options), console=sys.stdout).exit_code)


@main.command()
@paths_argument
@config_option
@root_option
@shard_option
@durations_option
@selection_options
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
@guarded
def plan(as_json: bool, **options: Any) -> int:
    """Print which scenarios each shard runs, without running them."""
    the_plan = app_run.plan(_run_request(options))
    if as_json:
        print(json.dumps(the_plan.record(), indent=2))
    else:
        from flowwalk.plan.shard import render_plan   # yaml: not before a run's prelaunch

        print(render_plan(the_plan))
    return ExitCode.OK


@main.command()
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Merged report folder.")
@guarded
def merge(dirs: tuple[str, ...], out_dir: str) -> int:
    """Combine shard report folders into the report one unsharded run would have written."""
    from flowwalk.app import reports

    result = reports.merge(dirs, out_dir)
    for warning in result.warnings:
        print(f"flowwalk: warning: {warning}", file=sys.stderr)
    counts = result.verdict.counts
    print(f"merged {len(dirs)} report folders into {out_dir}: {counts.total} tests, {counts.passed} passed, "
          f"{counts.failed} failed, {counts.skipped} skipped, {counts.flaky} flaky")
    return result.verdict.exit_code


@main.command()
@click.argument("report_dir", type=click.Path(file_okay=False, exists=True))
@guarded
def report(report_dir: str) -> int:
    """Rebuild junit.xml, verdict.json, summary.md and report.html from a folder's emit.jsonl."""
    from flowwalk.app import reports

    verdict = reports.rebuild(report_dir)
    print(f"rebuilt the reports in {report_dir}: {verdict.outcome}")
    return verdict.exit_code


@main.command()
@click.option("--report", "report_dir", default="flowwalk-report", type=click.Path(file_okay=False),
              help="The report folder to publish [flowwalk-report].")
@click.option("--token", envvar="GITHUB_TOKEN", help="GitHub token [$GITHUB_TOKEN].")
@click.option("--comment-mode", type=click.Choice(["always", "on-failure", "on-change", "off"]), help="[always]")
@click.option("--check-run/--no-check-run", default=None, help="Also create a check run with annotations.")
@click.option("--commit-status/--no-commit-status", default=None, help="Also set a commit status.")
@click.option("--comment-name", help="Name of the sticky comment when several flowwalk jobs comment on one PR.")
@click.option("--heal-suggestions/--no-heal-suggestions", default=None,
              help="Post each heal as a review comment with a suggestion block on the spec line [on].")
@guarded
def publish(report_dir: str, **options: Any) -> int:
    """Post the verdict: sticky PR comment, job summary, annotations, outputs, check run or status."""
    from flowwalk.app.publish import PublishRequest, publish

    return int(publish(PublishRequest(Path(report_dir), **options)).exit_code)


@main.command(epilog=HEAL_EXIT_CODES_HELP)
@click.option("--report", "report_dir", default="flowwalk-report", type=click.Path(file_okay=False),
              help="The report folder whose heals to keep [flowwalk-report].")
@click.option("--root", type=click.Path(file_okay=False),
              help="The run's project root; spec paths in the report are relative to it, and only files inside it "
                   "are changed [the root the report records, when this machine has it].")
@click.option("--apply", is_flag=True, help="Write the changes into the spec files instead of printing the diff.")
@guarded
def heal(report_dir: str | None, root: str | None, apply: bool) -> int:
    """Turn a run's heals into a unified diff of the spec files (only the selectors change)."""
    from flowwalk.app import heal as app_heal

    plan = app_heal.plan_heal(app_heal.HealRequest(Path(report_dir or "flowwalk-report"), Path(root) if root else None))
    for line in plan.skipped:
        print(f"flowwalk heal: {line}", file=sys.stderr)
    if plan.baselines.written:
        print(f"flowwalk heal: {len(plan.baselines.written)} baseline(s) --update-snapshots already wrote (review "
              f"them with git diff): {', '.join(plan.baselines.written)}", file=sys.stderr)
    left = f"; {len(plan.skipped)} skipped (see above)" if plan.skipped else ""
    if plan.patch.kept:
        left += f"; {len(plan.patch.kept)} already in the spec files"
    if plan.nothing:
        print(f"flowwalk heal: nothing to change: {plan.nothing}{left}", file=sys.stderr)
        return plan.exit_code
    done = f"{_many(len(plan.patch.edits), 'heal')} in {_many(len(plan.patch.texts), 'file')}"
    done += f" and {_many(len(plan.baselines.changes), 'baseline')}" if plan.baselines.changes else ""
    if not apply:
        sys.stdout.write(plan.diff)
        print(f"flowwalk heal: {done}{left}; `flowwalk heal --apply` (or `git apply`) writes it", file=sys.stderr)
        return plan.exit_code
    written = app_heal.apply_heal(plan)
    for line in written.patched:
        print(f"patched {line}")
    for path in written.conflicts:
        print(f"flowwalk heal: {path}: changed while the patch was made; not written, run flowwalk heal again",
              file=sys.stderr)
    if written.conflicts:
        return ExitCode.SPEC_NEEDS_REVIEW
    for line in written.baselines:
        print(f"wrote {line}")
    print(f"flowwalk heal: wrote {done}{left}", file=sys.stderr)
    return plan.exit_code


@main.command(epilog="Limits, the destructive words and the files written: docs/discover.md.")
@click.argument("url")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Folder for the specs; discover/ inside it gets index.md, crawl.json, snapshots.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST",
              help="A host besides the start URL's that the crawl may follow links to (repeatable).")
@click.option("--max-pages", type=int, default=50, show_default=True, help="Distinct pages to crawl at most.")
@click.option("--max-depth", type=int, default=4, show_default=True, help="Links to follow from the start URL at most.")
@click.option("--max-actions", type=int, default=200, show_default=True,
              help="Clicks on in-page controls, fills and submits at most.")
@click.option("--budget", "budget_min", type=float, default=10.0, show_default=True, help="Minutes for the crawl.")
@click.option("--resume", is_flag=True, help="Continue the crawl discover.state.json in --out left off.")
@click.option("--submit-forms", is_flag=True, help="Submit forms (empty, to see their validation); off by default.")
@click.option("--login", type=click.Path(dir_okay=False), help="A flow spec that logs in before the crawl.")
@click.option("--goal", default="", metavar="WORDS",
              help='What the crawl should reach first, in a person\'s words ("create a book").')
@click.option("--destructive", "destructive_add", multiple=True, metavar="WORD",
              help="Also never click controls that say WORD (repeatable).")
@click.option("--not-destructive", "destructive_remove", multiple=True, metavar="WORD",
              help="Take WORD off the default destructive list (repeatable).")
@click.option("--no-verify", is_flag=True, help="Write the specs without running them twice first.")
@click.option("--no-model", is_flag=True, help="Do not ask the configured model for names and checks.")
@config_option
@var_option
@secret_option
@click.option("--chromium", "executable", type=click.Path(dir_okay=False), help="Chromium executable [the headless shell].")
@test_id_option
@guarded
def discover(**options: Any) -> int:
    """Crawl URL and write starter flow specs that pass (checked twice before they are written)."""
    # exit 0 when it ran (specs in needs-review/ are part of its answer), 5 when cancelled, 6 when
    # the start URL did not load
    from flowwalk.discover import DiscoverOptions, discover as crawl   # the crawl's modules: discover only

    request = DiscoverOptions(
        url=options["url"], out_dir=Path(options["out_dir"]), allow_hosts=options["allow_hosts"],
        max_pages=options["max_pages"], max_depth=options["max_depth"], max_actions=options["max_actions"],
        budget_s=(options["budget_min"] or 10.0) * 60, resume=options["resume"], submit_forms=options["submit_forms"],
        login=Path(options["login"]) if options["login"] else None, goal=options["goal"],
        variables=tuple(sorted(parse_assignments(options["variables"]).items())),
        secret_names=options["secret_names"], destructive_add=options["destructive_add"],
        destructive_remove=options["destructive_remove"], verify=not options["no_verify"],
        use_model=not options["no_model"], config_path=Path(options["config_path"]) if options["config_path"] else None,
        executable=options["executable"] or None, test_id_attribute=tuple(options["test_id_attribute"]))
    with app_run.cancelled_by_signals(CancelToken()) as cancel, _readers_may_leave():
        result = crawl(request, progress=lambda line: print(line, file=sys.stderr, flush=True), cancel=cancel)
    print(f"discover: {result.pages} pages, {result.features} features; {len(result.specs_written)} specs written, "
          f"{len(result.needs_review)} need review; crawl {result.stopped_reason} in {result.duration_s:.1f} s")
    print(f"next: flowwalk run {result.out_dir}/   (what was found: {result.discover_dir}/index.md)")
    if result.stopped_reason == "cancelled":
        return ExitCode.CANCELLED
    if result.stopped_reason == "unreachable":
        return ExitCode.INFRASTRUCTURE_FAILED
    return ExitCode.OK


@main.command(name="import", epilog="What is mapped, the ledger and the figures: docs/import.md.")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the specs; import/ inside it gets ledger.md and ledger.json, needs-review/ the "
                   "tests not imported whole.")
@click.option("--base-url", default="", metavar="URL",
              help="The address the suite's URLs start with; they are written as paths against it.")
@click.option("--test-id-attribute", default="data-testid", show_default=True,
              help="The attribute getByTestId reads (the suite's testIdAttribute).")
@click.option("--run", "walk", is_flag=True,
              help="Walk each spec written whole once against --base-url; those that fail go to needs-review/ "
                   "with the failure, so the folder that comes out is green.")
@guarded
def import_command(sources: tuple[Path, ...], out_dir: Path, base_url: str, test_id_attribute: str,
                   walk: bool) -> int:
    """Import Playwright Test and Cypress files into flow specs, with a ledger of what became of every call."""
    from flowwalk.app.imports import ImportCommand, run_import

    answer = run_import(ImportCommand(sources, out_dir, base_url, test_id_attribute, run=walk), console=sys.stdout)
    refused = set(answer.result.ledger.refused)
    for line in answer.lines:
        print(line, file=sys.stderr if line in refused else sys.stdout)
    print(f"next: flowwalk run {out_dir}/   (the ledger: {out_dir}/import/ledger.md)")
    return answer.exit_code


@main.command(epilog="What is recorded and how: docs/record.md.")
@click.argument("url", required=False)
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False),
              help="The flow spec to write (a steps file's name with --steps-file; with --append, the spec to "
                   "continue).")
@click.option("--append", is_flag=True,
              help="Continue the spec at --out: walk it first, then add what you do to its steps (no URL needed).")
@click.option("--session", metavar="NAME",
              help="Start signed in: walk the project's setup that saves NAME first (docs/sessions.md).")
@var_option
@secret_option
@click.option("--device", metavar="NAME", help="Record as one of Playwright's devices (written into the spec).")
@click.option("--steps-file", is_flag=True, help="Write a reusable steps file (*.steps.yaml) instead of a flow spec.")
@click.option("--name", help="The flow's name [from the file's name].")
@click.option("--chromium", "executable", type=click.Path(dir_okay=False),
              help="Chromium executable [/usr/bin/chromium: a recording needs the full, headed browser].")
@test_id_option
@guarded
def record(**options: Any) -> int:
    """Open URL in a headed Chromium and write what you do there as a flow spec (or continue one)."""
    from flowwalk.app import record as app_record   # the recorder's modules: record only
    from flowwalk.settings import CHROMIUM_ARGS, test_id_attributes

    request = app_record.RecordRequest(
        url=options["url"], out=Path(options["out"]), device=options["device"], steps_file=options["steps_file"],
        name=options["name"], executable=options["executable"] or None, browser_args=CHROMIUM_ARGS,
        append=options["append"], session=options["session"], variables=parse_assignments(options["variables"]),
        secret_names=tuple(options["secret_names"]),
        test_ids=test_id_attributes(options["test_id_attribute"], "--test-id-attribute")
        if options["test_id_attribute"] else ())
    return app_record.record(request, console=sys.stderr)


@main.command()
@click.option("--out", "out_dir", default="schemas", type=click.Path(file_okay=False), help="[schemas]")
@guarded
def schema(out_dir: str) -> int:
    """Write the JSON Schemas generated from the models (flow spec, rules, config, emit, verdict)."""
    from flowwalk.app import reports

    for path in reports.write_schemas(out_dir):
        print(f"wrote {path}")
    return ExitCode.OK


@main.command(name="mcp")
@click.option("--http", "http_port", type=click.IntRange(0, 65535), metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio (0: a free port; the "
                   "address is the first line on stderr).")
@click.option("--run-timeout", "max_run_timeout_s", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="The longest run (seconds) a client may ask for.")
@guarded
def mcp_server(http_port: int | None, max_run_timeout_s: float) -> int:
    """Serve the MCP tools coding agents use to validate, run, explain and fix checks (stdio)."""
    from flowwalk.mcp.server import serve

    serve(http_port=http_port, max_run_timeout_s=max_run_timeout_s)
    return ExitCode.OK


if __name__ == "__main__":  # pragma: no cover
    main()
