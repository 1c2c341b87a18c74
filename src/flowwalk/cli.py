"""The `flowwalk` command line: parses options, calls one function in `app`, maps errors to exit codes.

Heavy modules (playwright, pydantic models, reports) are imported inside the commands so that
`flowwalk --help` and the first result of a run come quickly.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from flowwalk import __version__
from flowwalk.exitcodes import ExitCode

EXIT_CODES_HELP = """\b
Exit codes:
  0  every scenario passed
  1  the site misbehaved (an assertion_failed)
  2  a spec needs review (spec_step_unresolvable, credential_rejected, ...)
  3  input refused (a spec, rule file, suite or option is invalid)
  4  flowwalk itself broke
  5  cancelled (SIGINT/SIGTERM); reports cover what ran
  6  infrastructure failed (browser crash, run timeout)
  7  the site never came up (--wait-for ran out); nothing was walked"""

HEAL_EXIT_CODES_HELP = """\b
Exit codes:
  0  every heal of the report is in the patch (or the report has none)
  2  some heals could not be patched (the spec changed since the run, a variable, ...);
     each reason is on stderr, the others are still printed or written
  3  the report folder cannot be read"""


def _guarded(action: Callable[[], int]) -> None:
    """Run a command body; turn flowwalk's own errors into messages and exit codes, never tracebacks."""
    from flowwalk.errors import BrowserLaunchError, FlowwalkError, SpecError, UsageError

    try:
        code = action()
    except SpecError as error:
        from flowwalk.app import print_problems

        print_problems(error.problems)
        code = ExitCode.INPUT_REFUSED
    except UsageError as error:
        click.echo(f"flowwalk: error: {error}", err=True)
        code = ExitCode.INPUT_REFUSED
    except BrowserLaunchError as error:
        click.echo(f"flowwalk: cannot start Chromium: {error}\n  hint: run scripts/install.sh, or set "
                   f"FLOWWALK_CHROMIUM to a Chromium executable", err=True)
        code = ExitCode.INTERNAL_ERROR
    except FlowwalkError as error:
        click.echo(f"flowwalk: error: {error}", err=True)
        code = ExitCode.INTERNAL_ERROR
    except KeyboardInterrupt:
        click.echo("flowwalk: cancelled", err=True)
        code = ExitCode.CANCELLED
    except Exception as error:  # a bug: say so plainly, keep the traceback out of the user's face
        from flowwalk.app import report_crash

        report_crash(error)
        code = ExitCode.INTERNAL_ERROR
    sys.exit(int(code))


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
             epilog=EXIT_CODES_HELP)
@click.version_option(__version__, prog_name="flowwalk")
def main() -> None:
    """Browser checks kept as data, walked headless in Chromium, reported on the pull request."""


paths_argument = click.argument("paths", nargs=-1, type=click.Path())
config_option = click.option("--config", "config_path", type=click.Path(dir_okay=False),
                             help="flowwalk.yaml to read (default: ./flowwalk.yaml when present).")
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


@main.command()
@paths_argument
@config_option
@var_option
@secret_option
@base_url_option
@click.option("--quarantine", "quarantine_file", type=click.Path(dir_okay=False),
              help="The quarantine file to check too [flowwalk-quarantine.yaml when present].")
def validate(**options: Any) -> None:
    """Check specs, rule files and .robot suites without starting a browser."""
    from flowwalk import app

    _guarded(lambda: app.validate(options))


@main.command(epilog=EXIT_CODES_HELP)
@paths_argument
@config_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Report folder [flowwalk-report].")
@var_option
@secret_option
@base_url_option
@click.option("--serve", "serve_dir", type=click.Path(file_okay=False, exists=True),
              help="Serve this folder on 127.0.0.1 for the run and use it as the base URL.")
@shard_option
@durations_option
@project_option
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
@click.option("--trace", type=click.Choice(["off", "on-failure", "on"]),
              help="Keep a Playwright trace (never for flows that typed a secret) [off].")
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
              help="Send header NAME with the value of the environment variable SECRET, to the base URL's host only "
                   "(repeatable).")
@click.option("--http-credentials", metavar="SECRET",
              help="HTTP credentials (username:password) from the environment variable SECRET, for the base URL's "
                   "host only.")
def run(**options: Any) -> None:
    """Walk specs in headless Chromium and write the report folder."""
    from flowwalk import app

    _guarded(lambda: app.run(options))


@main.command()
@paths_argument
@config_option
@shard_option
@durations_option
@selection_options
@project_option
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def plan(**options: Any) -> None:
    """Print which scenarios each shard runs, without running them."""
    from flowwalk import app

    _guarded(lambda: app.plan(options))


@main.command()
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False, exists=True))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Merged report folder.")
def merge(dirs: tuple[str, ...], out_dir: str) -> None:
    """Combine shard report folders into the report one unsharded run would have written."""
    from flowwalk import app

    _guarded(lambda: app.merge(dirs, out_dir))


@main.command()
@click.argument("report_dir", type=click.Path(file_okay=False, exists=True))
def report(report_dir: str) -> None:
    """Rebuild junit.xml, verdict.json, summary.md and report.html from a folder's emit.jsonl."""
    from flowwalk import app

    _guarded(lambda: app.rebuild(report_dir))


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
def publish(**options: Any) -> None:
    """Post the verdict: sticky PR comment, job summary, annotations, outputs, check run or status."""
    from flowwalk import app

    _guarded(lambda: app.publish(options))


@main.command(epilog=HEAL_EXIT_CODES_HELP)
@click.option("--report", "report_dir", default="flowwalk-report", type=click.Path(file_okay=False),
              help="The report folder whose heals to keep [flowwalk-report].")
@click.option("--root", type=click.Path(file_okay=False),
              help="The folder the run ran in; spec paths in the report are relative to it, and only files "
                   "inside it are changed [the current folder, any path the run wrote].")
@click.option("--apply", is_flag=True, help="Write the changes into the spec files instead of printing the diff.")
def heal(**options: Any) -> None:
    """Turn a run's heals into a unified diff of the spec files (only the selectors change)."""
    from flowwalk import app

    _guarded(lambda: app.heal(options))


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
def discover(**options: Any) -> None:
    """Crawl URL and write starter flow specs that pass (checked twice before they are written)."""
    from flowwalk import app

    _guarded(lambda: app.discover(options))


@main.command()
@click.option("--out", "out_dir", default="schemas", type=click.Path(file_okay=False), help="[schemas]")
def schema(out_dir: str) -> None:
    """Write the JSON Schemas generated from the models (flow spec, rules, config, emit, verdict)."""
    from flowwalk import app

    _guarded(lambda: app.write_schemas(out_dir))


@main.command(name="mcp")
@click.option("--http", "http_port", type=click.IntRange(0, 65535), metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio (0: a free port; the "
                   "address is the first line on stderr).")
@click.option("--run-timeout", "max_run_timeout_s", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="The longest run (seconds) a client may ask for.")
def mcp_server(**options: Any) -> None:
    """Serve the MCP tools coding agents use to validate, run, explain and fix checks (stdio)."""
    from flowwalk.mcp.server import serve

    def run() -> int:
        serve(http_port=options.get("http_port"), max_run_timeout_s=float(options.get("max_run_timeout_s") or 300.0))
        return ExitCode.OK

    _guarded(run)


if __name__ == "__main__":  # pragma: no cover
    main()
