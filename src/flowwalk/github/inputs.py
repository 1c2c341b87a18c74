"""The Action's inputs and outputs, written once: name -> CLI flag, description, default.

`action.yml`, `docs/action.md` (and the README's inputs table, when it has one) are checked
against these tables by tests/contract/test_action.py, and the container's entrypoint
(`flowwalk.github.entrypoint`) maps `INPUT_*` variables to CLI flags with them. Input names keep
their hyphens, as GitHub's runner does when it sets `INPUT_<NAME>` (`base-url` -> `INPUT_BASE-URL`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

#: how an input's text becomes arguments
Kind = Literal[
    "paths",   # whitespace/newline separated words -> positional arguments
    "value",   # one flag with the trimmed text, left out when empty
    "lines",   # one flag per non-empty line that is not a # comment (NAME=VALUE)
    "headers", # one flag per non-empty line that is not a # comment (Header-Name=SECRET_NAME)
    "names",   # one flag per name, names separated by commas, spaces or newlines
    "bool",    # the flag alone when true; "true"/"false"
]


@dataclass(frozen=True)
class ActionInput:
    name: str
    description: str
    default: str = ""
    kind: Kind = "value"
    #: the `flowwalk run` flag it becomes (None: not a run option)
    run_flag: str | None = None
    #: the `flowwalk publish` flag it becomes (None: not a publish option)
    publish_flag: str | None = None
    #: handed to a command through this environment variable instead of argv (kept out of `ps`)
    env_var: str | None = None

    @property
    def env_name(self) -> str:
        """The variable the runner sets: INPUT_ + upper-cased name, spaces to `_`, hyphens kept."""
        return "INPUT_" + self.name.replace(" ", "_").upper()

    @property
    def cli(self) -> str:
        flags = [f for f in (self.run_flag, self.publish_flag) if f]
        if self.kind == "paths":
            return "PATHS (run)"
        text = " / ".join(f"`{f}`" for f in flags)
        if self.env_var:
            text += f" (as `${self.env_var}`)"
        return text


ACTION_INPUTS: tuple[ActionInput, ...] = (
    ActionInput("paths", "Spec files and folders to walk (flow specs, rule files, .robot suites), "
                "separated by spaces or newlines.", ".", "paths", run_flag="PATHS"),
    ActionInput("root", "The project root test ids and folder hooks are relative to (default: the nearest folder "
                "above the paths that holds flowwalk.yaml, else the repository's top).", run_flag="--root"),
    ActionInput("base-url", "Base URL that relative URLs in the specs resolve against.", run_flag="--base-url"),
    ActionInput("variables", "Run variables, one NAME=VALUE per line, for {{NAME}} placeholders.",
                kind="lines", run_flag="--var"),
    ActionInput("secret-names", "Names of secrets to read from the step's environment (set them with "
                "`env:`), separated by commas, spaces or newlines. Their values never reach a report.",
                kind="names", run_flag="--secret"),
    ActionInput("shard", "Run only shard K of N, as K/N (for a matrix of jobs), or auto on a CI that numbers its "
                "parallel jobs.", run_flag="--shard"),
    ActionInput("durations", "An earlier emit.jsonl (or a JSON {scenario id: seconds}) to balance shards by; "
                "each job then walks its longest scenarios first.", run_flag="--durations"),
    ActionInput("projects", "Run only these projects (environment profiles) of flowwalk.yaml, separated by commas, "
                "spaces or newlines (default: all of them).", kind="names", run_flag="--project"),
    ActionInput("test-id-attribute", "The attributes that hold elements' test ids, first found first, separated by "
                "commas (default: data-testid, data-test-id, data-test, data-qa, data-cy).",
                run_flag="--test-id-attribute"),
    ActionInput("fingerprints", "An earlier report folder or emit.jsonl whose element fingerprints help heal broken "
                "selectors (default: the durations file).", run_flag="--fingerprints"),
    ActionInput("grep", "Run only the scenarios with a test id matching this regular expression.", run_flag="--grep"),
    ActionInput("grep-invert", "Leave out the scenarios whose test ids all match this regular expression.",
                run_flag="--grep-invert"),
    ActionInput("tag", "Run only the scenarios with a test whose tags satisfy this expression, e.g. "
                "`smoke and not slow`.", run_flag="--tag"),
    ActionInput("last-failed", "A report folder (also a merged one): run only the scenarios with a test that did "
                "not pass there.", run_flag="--last-failed"),
    ActionInput("max-failures", "Stop starting scenarios after this many have failed; the rest are reported "
                "not_run: max_failures.", run_flag="--max-failures"),
    ActionInput("base-report", "The base branch's last report folder: each failure is marked new or still failing "
                "and fixed tests are listed (default: the durations file).", run_flag="--base-report"),
    ActionInput("fail-on", "Which failures fail the job: any, or new (only failures that are new against "
                "base-report). Default: flowwalk.yaml's fail_on, else any.", run_flag="--fail-on"),
    ActionInput("quarantine", "The quarantine file: listed tests run and are reported but do not fail the job "
                "until their expiry (default: flowwalk-quarantine.yaml when present).", run_flag="--quarantine"),
    ActionInput("workers", "Scenarios run at once in this job, up to 4 on one browser (default: 2 per CPU).",
                run_flag="--workers"),
    ActionInput("retries", "Rerun a failed scenario up to N times; one that passes on a retry is flaky.", "0",
                run_flag="--retries"),
    ActionInput("flaky-policy", "Does a flaky scenario fail the job? pass or fail.", "pass",
                run_flag="--flaky-policy"),
    ActionInput("heal-policy", "Does a check that passed only through a healed selector fail the job? pass or fail.",
                "pass", run_flag="--heal-policy"),
    ActionInput("run-timeout", "Seconds for the whole run; what it cuts short is reported as run_timeout.", "300",
                run_flag="--run-timeout"),
    ActionInput("serve", "A folder of the repository to serve on 127.0.0.1 for the run (used as the base URL "
                "unless base-url is set).", run_flag="--serve"),
    ActionInput("trace", "Keep a Playwright trace, secrets scrubbed: off, on-failure, retain-on-failure or on (default: retain-on-failure).",
                run_flag="--trace"),
    ActionInput("offline", "Abort requests to hosts other than loopback, the entry host and allowed_hosts "
                "(analytics vendors are always answered locally).", "false", "bool", run_flag="--offline"),
    ActionInput("update-snapshots", "Write missing and changed aria_snapshot and screenshot baselines instead of "
                "failing (for a job that makes them inside this image); each one written is a warning in every "
                "report and a file under baselines/ in the report folder to review and commit.", "false", "bool",
                run_flag="--update-snapshots"),
    ActionInput("wait-for", "Before walking, wait until this URL (absolute, or relative to base-url) answers as "
                "expected; a site that never does is its own verdict, site_not_ready (exit code 7).",
                run_flag="--wait-for"),
    ActionInput("wait-status", "The status wait-for expects: 200, 2xx, 200-399, several separated by commas "
                "(default: 2xx).", run_flag="--wait-status"),
    ActionInput("wait-text", "A text wait-for's page must hold, e.g. the commit the preview was built from.",
                run_flag="--wait-text"),
    ActionInput("wait-timeout", "Seconds wait-for waits at most (default: 180).", run_flag="--wait-timeout"),
    ActionInput("wait-interval", "Seconds between wait-for's tries (default: 5).", run_flag="--wait-interval"),
    ActionInput("http-headers", "Extra HTTP headers for the base URL's origin only, one Header-Name=SECRET_NAME per "
                "line; the value is read from the step's environment variable SECRET_NAME (set it with `env:`) and "
                "never reaches a report.", kind="headers", run_flag="--http-header"),
    ActionInput("http-credentials", "The name of a step environment variable holding HTTP credentials as "
                "username:password, for the base URL's origin only.", run_flag="--http-credentials"),
    ActionInput("browser-endpoint", "Connect to a running Playwright browser server (ws://...) instead of launching "
                "Chromium in the job.", run_flag="--browser-endpoint"),
    ActionInput("output-dir", "The report folder (emit.jsonl, junit.xml, verdict.json, summary.md, report.html).",
                "flowwalk-report", run_flag="--out", publish_flag="--report"),
    ActionInput("comment-mode", "The sticky PR comment: always, on-failure, on-change or off.", "always",
                publish_flag="--comment-mode"),
    ActionInput("comment-name", "Names the sticky comment (and check run and status) when several flowwalk "
                "jobs report on one PR.", publish_flag="--comment-name"),
    ActionInput("check-run", "Also create a check run with every failure as an annotation.", "false", "bool",
                publish_flag="--check-run"),
    ActionInput("commit-status", "Also set a commit status on the head commit.", "false", "bool",
                publish_flag="--commit-status"),
    ActionInput("heal-suggestions", "Post each healed selector as a pull request review comment with a suggestion "
                "block on the spec line (one click keeps it); needs pull-requests: write.", "true", "bool",
                publish_flag="--heal-suggestions"),
    ActionInput("token", "Token for the PR comment, check run and status.", "${{ github.token }}",
                publish_flag="--token", env_var="GITHUB_TOKEN"),
)

ACTION_OUTPUTS: Mapping[str, str] = {
    "verdict": "passed, site_misbehaved, spec_needs_review, infrastructure_failed, cancelled or site_not_ready "
               "(input_refused when the specs were refused)",
    "exit-code": "The run's exit code (0 passed, 1 the site misbehaved, 2 a spec needs review, 3 input refused, "
                 "4 internal error, 5 cancelled, 6 infrastructure failed, 7 the site never came up).",
    "total": "Number of tests (flows and rules).",
    "passed": "Tests that passed.",
    "failed": "Tests that failed.",
    "skipped": "Tests that were skipped (a parent failed, a guard did not hold, the run timed out).",
    "flaky": "Tests that failed, then passed on a retry.",
    "report-dir": "The report folder.",
    "comment-url": "The sticky PR comment, when one was written.",
    "check-run-url": "The check run, when one was created.",
}

INPUTS_START = "<!-- inputs:start -->"
INPUTS_END = "<!-- inputs:end -->"
OUTPUTS_START = "<!-- outputs:start -->"
OUTPUTS_END = "<!-- outputs:end -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_inputs_table() -> str:
    """The Markdown table that docs/action.md (and the README) carry between the inputs markers."""
    rows = ["| input | default | flowwalk option | description |", "|---|---|---|---|"]
    for item in ACTION_INPUTS:
        default = f"`{item.default}`" if item.default else ""
        rows.append(f"| `{item.name}` | {_cell(default)} | {_cell(item.cli)} | {_cell(item.description)} |")
    return "\n".join(rows)


def render_outputs_table() -> str:
    rows = ["| output | description |", "|---|---|"]
    rows += [f"| `{name}` | {_cell(text)} |" for name, text in ACTION_OUTPUTS.items()]
    return "\n".join(rows)


def input_by_name(name: str) -> ActionInput:
    for item in ACTION_INPUTS:
        if item.name == name:
            return item
    raise KeyError(name)
