"""Frozen Settings, built once from command-line options, the environment and `flowwalk.yaml`.

Precedence, highest first: what the command was told (`Overrides`: the command line's options, an
MCP tool's arguments; the Action's inputs become options), `FLOWWALK_*` environment variable,
`flowwalk.yaml`, built-in default. `build_settings` is the one pure function that does this.
Secret *values* live only in `Secrets`, whose repr never shows them.

A new setting is a field of `Settings`; one that a command or a tool can set is also a field of
`Overrides` of the same name, which `build_settings` picks up (with its `FLOWWALK_*` variable in
its tables).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Mapping, Sequence

from flowwalk.ci import shard_from_ci
from flowwalk.errors import UsageError
from flowwalk.llm import LLMConfig, build_llm_config
from flowwalk.model import (MAX_WORKERS, SETTING_RANGES, TEST_ID_ATTRIBUTE_PATTERN, TEST_ID_ATTRIBUTES,
                            TEST_ID_ATTRIBUTES_MAX, Environment, Project, Stabilize, has_scheme, url_problem)
from flowwalk.readiness import HttpAccess, access_from, parse_statuses

HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
FULL_CHROMIUM = "/usr/bin/chromium"
#: --disable-dev-shm-usage: shared memory in /tmp instead of /dev/shm, which a container gets at
#: 64 MB (Docker's and the Actions runner's default): a tall page of large canvases crashes the
#: renderer there without it (tests/container/test_shm.py). Playwright passes it too, by default;
#: flowwalk says it itself so that no change of Playwright's defaults can take it away.
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-quic", "--no-first-run")
COMMENT_MODES = ("always", "on-failure", "on-change", "off")
FLAKY_POLICIES = ("pass", "fail")
HEAL_POLICIES = ("pass", "fail")
#: `retain-on-failure`: the traces of attempts that failed and of the passing retry of a flaky test
TRACE_MODES = ("off", "on-failure", "retain-on-failure", "on")
#: the trace mode when nothing sets one: on a CI (`CI=true`, GitHub Actions), else off
CI_TRACE, LOCAL_TRACE = "retain-on-failure", "off"
SCREENSHOT_MODES = ("off", "on-failure", "on")
#: which failures fail the job: any, or only those new against the base report (docs/quarantine.md)
FAIL_ON = ("any", "new")

#: flow-spec v1 asks for plain deterministic checks and says nothing about stabilization (issue 11)
FLOW_STABILIZE = Stabilize(stable_reads=1)


def on_ci(env: Mapping[str, str]) -> bool:
    """Is this run on a CI? `CI` set to true (GitHub Actions, GitLab, CircleCI, Buildkite and others
    set it) or `GITHUB_ACTIONS=true`."""
    return env.get("CI", "").strip().lower() in ("true", "1", "yes") or env.get("GITHUB_ACTIONS") == "true"


def default_executable(env: Mapping[str, str] | None = None) -> str:
    """The headless shell when installed (about half the wall time), else the full browser."""
    env = os.environ if env is None else env
    if env.get("FLOWWALK_CHROMIUM"):
        return env["FLOWWALK_CHROMIUM"]
    return HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else FULL_CHROMIUM


class Secrets:
    """Secret values by variable name. Never printed: repr and str show only the names.

    `hidden`: more values to keep out of every artifact that no `{{NAME}}` can use (the forms an
    HTTP credential takes in a header: readiness.HttpAccess.hidden_values)."""

    def __init__(self, values: Mapping[str, str] | None = None, hidden: tuple[str, ...] = ()):
        self._values = dict(values or {})
        self._hidden = tuple(v for v in hidden if v and v not in self._values.values())

    def names(self) -> frozenset[str]:
        return frozenset(self._values)

    def get(self, name: str) -> str | None:
        return self._values.get(name)

    def values(self) -> list[str]:
        return [v for v in self._values.values() if v] + list(self._hidden)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def __repr__(self) -> str:
        return f"Secrets(names={sorted(self._values)})"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secrets) and self._values == other._values and self._hidden == other._hidden

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values)))


@dataclass(frozen=True)
class GitHubSettings:
    token: str | None = field(default=None, repr=False)
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    repository: str | None = None          # owner/name
    pr_number: int | None = None
    sha: str | None = None
    run_id: str | None = None
    run_attempt: str | None = None
    event_name: str | None = None
    event_path: str | None = None
    step_summary: str | None = None        # GITHUB_STEP_SUMMARY file
    output: str | None = None              # GITHUB_OUTPUT file
    comment_mode: str = "always"
    check_run: bool = False
    commit_status: bool = False
    artifact_url: str | None = None
    #: names the sticky comment when several flowwalk jobs comment on one PR (marker suffix)
    comment_name: str | None = None
    #: post each heal as a review comment with a suggestion block (`heal-suggestions`)
    heal_suggestions: bool = True


@dataclass(frozen=True)
class Settings:
    paths: tuple[str, ...] = (".",)
    #: the project root (`find_root`): test ids, error locations, folder hooks, verifiers folders and
    #: heal's reach are relative to it; "." (the working folder) for settings built without one
    root: str = "."
    out_dir: str = "flowwalk-report"
    base_url: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    secret_names: tuple[str, ...] = ()
    secrets: Secrets = field(default_factory=Secrets, compare=False)
    shard_index: int = 1
    shard_total: int = 1
    #: `--shard auto`: the CI variables the shard came from (ci.py), for the log and the plan record
    shard_source: str | None = None
    durations_file: str | None = None
    #: an earlier report folder or emit.jsonl to heal from (heal/fingerprint.py); None: the
    #: durations file, which is the last run's emit.jsonl a CI job already downloads
    fingerprints_file: str | None = None
    workers: int = 1
    retries: int = 0
    flaky_policy: str = "pass"             # does a flaky scenario fail the job?
    heal_policy: str = "pass"              # does a pass through a healed selector fail the job?
    run_timeout_s: float = 300.0
    rule_timeout_ms: int = 30_000          # observations and the rule deadline
    guard_timeout_ms: int = 200
    action_timeout_ms: int = 10_000
    navigation_timeout_ms: int = 30_000
    #: checks of rule files and .robot suites: RFC 010's defaults (two reads >= 100 ms apart), or the
    #: config's `stabilize`
    stabilize: Stabilize = Stabilize()
    #: checks of flow specs: one read (pass on the first matching fresh read, as web-first
    #: assertions do); the config's `stabilize` keys override it key by key
    flow_stabilize: Stabilize = FLOW_STABILIZE
    #: how long an expect waits when neither the step nor its rule sets a timeout
    expect_timeout_ms: int = 5_000
    dismiss_selectors: tuple[str, ...] = ()
    #: the attributes an element's test id is read from, first found first (`fw.testIdOf` in the
    #: page: heal's candidates and fingerprints, discover's survey and selectors)
    test_id_attribute: tuple[str, ...] = TEST_ID_ATTRIBUTES
    executable: str = FULL_CHROMIUM
    browser_args: tuple[str, ...] = CHROMIUM_ARGS
    screenshots: str = "on-failure"
    full_page_screenshots: bool = False
    trace: str = "off"
    #: traces are scrubbed of secrets (walk/traces.py); only a test turns it off
    #: (FLOWWALK_TEST_UNSCRUBBED_TRACES=1), to prove its canary finds what an unscrubbed trace holds
    scrub_traces: bool = True
    verifiers_dir: str = "verifiers"
    #: abort subresource requests to hosts outside loopback, the entry host and allowed_hosts
    #: (analytics vendors are always answered locally, navigations always obey the allowlist)
    offline: bool = False
    #: write missing and changed baselines of aria_snapshot and screenshot checks (and pass them,
    #: each with a `baseline_written` warning) instead of failing them
    update_snapshots: bool = False
    #: the optional language model that heals when deterministic re-resolution cannot (flowwalk.yaml's
    #: `model:`); None: off
    llm: LLMConfig | None = None
    #: run selection (plan/select.py): a regex the test id must match / must not match, a tag
    #: expression, and an earlier report folder whose tests that did not pass are the ones to run
    grep: str | None = None
    grep_invert: str | None = None
    tag: str | None = None
    last_failed: str | None = None
    #: stop starting scenarios after this many failed ones (the rest: not_run, max_failures)
    max_failures: int | None = None
    #: the base branch's last report (a folder or emit.jsonl) each result is compared with; None:
    #: the durations file, which is the base branch's last report a CI job already downloads
    base_report: str | None = None
    #: "any" failure fails the job, or only the ones "new" against the base report
    fail_on: str = "any"
    #: the quarantine file (docs/quarantine.md); None: flowwalk-quarantine.yaml when present
    quarantine_file: str | None = None
    #: the readiness wait (readiness.py): a URL (absolute, or relative to the base URL) polled until it
    #: answers `wait_status` (and holds `wait_text`), every `wait_interval_s`, for up to `wait_timeout_s`
    wait_for: str | None = None
    wait_status: str = "2xx"
    wait_text: str | None = None
    wait_timeout_s: float = 180.0
    wait_interval_s: float = 5.0
    #: extra HTTP headers as (header name, the secret holding its value) and the secret holding HTTP
    #: credentials (username:password): sent only to the base URL's origin (docs/preview.md)
    http_headers: tuple[tuple[str, str], ...] = ()
    http_credentials: str | None = None
    #: their values, resolved from the secrets (kept out of every artifact with the other secrets)
    http_access: HttpAccess = field(default_factory=HttpAccess, compare=False)
    #: a running Playwright browser server (ws:// or wss://) to connect to instead of launching Chromium
    browser_endpoint: str | None = None

    #: the browser's environment flowwalk.yaml asks for (viewport, device, locale, ...); specs win
    environment: Environment = Environment()
    #: flowwalk.yaml's `projects`: every scenario runs once in each (docs/environment.md)
    projects: tuple[Project, ...] = ()
    #: `--project NAME`: only these projects run (empty: all of them)
    project_filter: tuple[str, ...] = ()
    on_github_actions: bool = False
    github: GitHubSettings = GitHubSettings()
    #: where each setting the command, the environment or flowwalk.yaml gave came from, as messages
    #: name it: `--last-failed`, `FLOWWALK_LAST_FAILED`, `flowwalk.yaml last_failed`
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)

    def origin(self, name: str) -> str:
        return self.origins.get(name) or _flag(name)

    def stabilize_for(self, kind: str) -> Stabilize:
        """The stabilize settings a check starts from in a scenario of this kind (`Scenario.kind`):
        flows take one read by default, rule files and .robot suites RFC 010's two."""
        return self.flow_stabilize if kind == "flow" else self.stabilize




@dataclass(frozen=True)
class Overrides:
    """What one call of a command was told, above the environment and flowwalk.yaml: the command
    line's options or an MCP tool's arguments. Each field is named after the Settings field it sets
    (`shard` is `K/N` or `auto`, `projects` the names `--project` takes); None, or empty, is not given."""

    paths: tuple[str, ...] = ()
    #: `--root DIR`: the project root, instead of the one `find_root` finds
    root: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    #: names of environment variables holding secrets (added to flowwalk.yaml's `secrets`)
    secret_names: tuple[str, ...] = ()
    base_url: str | None = None
    out_dir: str | None = None
    shard: str | None = None
    durations_file: str | None = None
    fingerprints_file: str | None = None
    projects: tuple[str, ...] = ()
    #: `--test-id-attribute NAME`: the test-id attributes, in order (instead of flowwalk.yaml's)
    test_id_attribute: tuple[str, ...] = ()
    #: the readiness wait and what is sent to the base URL's origin (docs/preview.md): header name ->
    #: the secret holding its value, and the secret holding `username:password`
    wait_for: str | None = None
    wait_status: str | None = None
    wait_text: str | None = None
    wait_timeout_s: float | None = None
    wait_interval_s: float | None = None
    http_headers: Mapping[str, str] = field(default_factory=dict)
    http_credentials: str | None = None
    browser_endpoint: str | None = None
    grep: str | None = None
    grep_invert: str | None = None
    tag: str | None = None
    last_failed: str | None = None
    max_failures: int | None = None
    base_report: str | None = None
    fail_on: str | None = None
    quarantine_file: str | None = None
    workers: int | None = None
    retries: int | None = None
    flaky_policy: str | None = None
    heal_policy: str | None = None
    run_timeout_s: float | None = None
    screenshots: str | None = None
    full_page_screenshots: bool | None = None
    trace: str | None = None
    offline: bool | None = None
    update_snapshots: bool | None = None
    executable: str | None = None

    def given(self) -> dict[str, Any]:
        """The fields that were given, by name."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) not in (None, (), {})}


#: settings whose command-line option is not the setting's name with dashes (`_s` dropped)
_FLAGS = {"out_dir": "--out", "durations_file": "--durations", "fingerprints_file": "--fingerprints",
          "quarantine_file": "--quarantine", "executable": "--chromium", "projects": "--project",
          "secret_names": "--secret", "variables": "--var",
          "http_headers": "--http-header"}


def _flag(setting: str) -> str:
    """The command line's option for a setting: `--quarantine` for `quarantine_file`, `--run-timeout`
    for `run_timeout_s`."""
    return _FLAGS.get(setting) or "--" + setting.removesuffix("_s").replace("_", "-")


def parse_shard(text: str) -> tuple[int, int]:
    """`K/N` with 1 <= K <= N (`auto` is read by `build_settings`, from the CI's variables)."""
    try:
        k_text, n_text = text.split("/")
        k, n = int(k_text), int(n_text)
    except ValueError:
        raise UsageError(f"--shard '{text}' is not K/N\n  hint: for example --shard 2/4, or --shard auto "
                         f"on GitLab CI, CircleCI, Buildkite or Azure Pipelines") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard '{text}': K must be between 1 and N\n  hint: shards are numbered 1..N")
    return k, n


#: headers a route may not set (the connection's own) or that Chromium manages itself
_FORBIDDEN_HEADERS = ("host", "content-length", "connection", "transfer-encoding", "upgrade", "cookie")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def http_headers_from(config: Mapping[str, str], told: Mapping[str, str]) -> dict[str, str]:
    """Header name -> the secret holding its value: flowwalk.yaml's `http_headers`, then what the
    command was told (`--http-header NAME=SECRET`, which wins for the same header, names compared
    without case)."""
    headers: dict[str, str] = {}
    pairs = [(name, secret, "flowwalk.yaml http_headers") for name, secret in config.items()]
    pairs += [(name, secret, "--http-header") for name, secret in told.items()]
    for name, secret, where in pairs:
        name, secret = str(name).strip(), str(secret).strip()
        if not _HEADER_NAME.match(name) or name.lower() in _FORBIDDEN_HEADERS:
            raise UsageError(f"{where} {name}: not a header flowwalk can send\n  hint: a header name such as "
                             f"x-vercel-protection-bypass (not {', '.join(_FORBIDDEN_HEADERS)})")
        if not _SECRET_NAME.match(secret):
            # never echoed: what was pasted here may be the header's value itself
            raise UsageError(f"{where} {name}=...: what follows '=' must be the NAME of an environment variable "
                             f"that holds the header's value, not the value\n  hint: {_flag('http_headers')} "
                             f"{name}=MY_SECRET, with the value in the environment variable MY_SECRET (in GitHub "
                             f"Actions, the step's env:)")
        for known in [k for k in headers if k.lower() == name.lower()]:
            del headers[known]
        headers[name] = secret
    return headers


def check_credentials_name(name: str, where: str) -> None:
    """`--http-credentials` takes the NAME of the environment variable holding username:password;
    UsageError otherwise, never echoing what was given (it may be the credentials themselves)."""
    if not _SECRET_NAME.match(name.strip()):
        raise UsageError(f"{where}: the value must be the NAME of an environment variable that holds "
                         f"username:password, not the credentials\n  hint: {where} PREVIEW_AUTH, with "
                         f"username:password in the environment variable PREVIEW_AUTH (in GitHub Actions, the "
                         f"step's env:)")


def check_site_urls(merged: Mapping[str, Any], origins: Mapping[str, str]) -> None:
    """The base URL must be an absolute http(s) URL with a host, and so must `wait_for` unless it is
    a path resolved against the base URL: UsageError naming where a value came from otherwise."""
    for name, relative_to in (("base_url", None), ("wait_for", "--base-url")):
        url = merged.get(name)
        if url is None or (relative_to and not has_scheme(url)):
            continue
        problem = url_problem(url, relative_to)
        if problem:
            where = origins.get(name) or _flag(name)
            what, hint = problem
            shown = f"{where}={url}" if where.startswith("FLOWWALK_") else f"{where} '{url}'"
            raise UsageError(f"{shown} {what}\n  hint: {hint}")


def parse_assignments(pairs: list[str] | tuple[str, ...], what: str = "--var", form: str = "NAME=VALUE",
                      example: str = "BASE=https://127.0.0.1:8080") -> dict[str, str]:
    """`NAME=VALUE` texts as a dict (the last wins); UsageError naming `what` for one without `=`."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{what} '{pair}' is not {form}\n  hint: for example {what} {example}")
        out[name.strip()] = value
    return out


def environment_from(block: Mapping[str, Any]) -> Environment:
    """The environment keys of a validated flowwalk.yaml (or one of its projects) as plain data."""
    viewport, geo = block.get("viewport"), block.get("geolocation")
    return Environment(
        viewport=(int(viewport["width"]), int(viewport["height"])) if viewport else None,
        device=block.get("device"), locale=block.get("locale"), timezone=block.get("timezone"),
        color_scheme=block.get("color_scheme"),
        geolocation=(float(geo["latitude"]), float(geo["longitude"]), float(geo.get("accuracy", 0)))
        if geo else None)


def parse_names(values: Any) -> tuple[str, ...]:
    """Names given once each or as one comma- or newline-separated text (`--project a,b`, an input)."""
    if isinstance(values, str):
        values = [values]
    out: list[str] = []
    for value in values or ():
        for name in str(value).replace("\n", ",").split(","):
            if name.strip() and name.strip() not in out:
                out.append(name.strip())
    return tuple(out)


def test_id_attributes(values: Any, where: str) -> tuple[str, ...]:
    """The test-id attributes `values` names (a list, or one comma-separated text), or UsageError
    naming `where` (`--test-id-attribute`, `FLOWWALK_TEST_ID_ATTRIBUTE`) for a name that is no
    attribute's."""
    names = parse_names(values)
    for name in names:
        if not re.fullmatch(TEST_ID_ATTRIBUTE_PATTERN, name):
            shown = f"{where}={name}" if where.startswith("FLOWWALK_") else f"{where} '{name}'"
            raise UsageError(f"{shown}: not an attribute name\n  hint: name the attribute itself, e.g. data-testid "
                             f"or data-qa (no brackets, no value)")
    if len(names) > TEST_ID_ATTRIBUTES_MAX:
        raise UsageError(f"{where}: {len(names)} attributes, more than {TEST_ID_ATTRIBUTES_MAX}\n  hint: name the "
                         f"few attributes the site marks its elements with")
    return names


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: workers per CPU when nothing sets `workers`. A worker spends most of its time waiting on
#: Chromium, and up to four share one browser: on the bench's 2 cores, workers 4 walked the 40
#: flows in 0.76 x the wall time of workers 2 and the failing corpus in 0.60 x, for 1.3 x the
#: memory (bench/PROFILE.md, sixth session).
WORKERS_PER_CPU = 2


def default_workers() -> int:
    """Workers when neither the command line, the environment nor flowwalk.yaml says."""
    return min(WORKERS_PER_CPU * cpu_count(), MAX_WORKERS)


CONFIG_FILE = "flowwalk.yaml"


def find_config(start: str | Path = ".") -> Path | None:
    path = Path(start) / CONFIG_FILE
    return path if path.is_file() else None


def find_root(paths: Sequence[str], given: str | None = None, origin: str = "--root",
              cwd: str | None = None) -> Path:
    """The project root, absolute, found as pytest finds its rootdir: `given` (`--root`,
    `FLOWWALK_ROOT`; it must be a folder), else the nearest folder at or above the common ancestor of
    the existing `paths` (the working folder when none) that holds flowwalk.yaml, else the nearest
    one that holds `.git` (a folder, or a worktree's file), else the working folder when it holds
    the paths, else their common ancestor. A found root therefore holds every path given."""
    here = os.path.abspath(cwd or os.getcwd())
    if given:
        root = os.path.join(here, given)
        if not os.path.isdir(root):
            raise UsageError(f"{origin} '{given}' is not a folder\n  hint: the project root is the folder test "
                             f"ids and folder hooks are relative to: the one holding flowwalk.yaml, or the "
                             f"repository's top folder")
        return Path(os.path.abspath(root))
    existing = [os.path.join(here, p) for p in paths if os.path.exists(os.path.join(here, p))]
    folders = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p)) for p in existing]
    ancestor = os.path.commonpath(folders) if folders else here
    for marker in (CONFIG_FILE, ".git"):
        folder = ancestor
        while True:
            if os.path.exists(os.path.join(folder, marker)) and (marker == ".git"
                                                                  or os.path.isfile(os.path.join(folder, marker))):
                return Path(folder)
            if os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
    return Path(here if ancestor == here or ancestor.startswith(here.rstrip(os.sep) + os.sep) else ancestor)


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def _env_bool(name: str, text: str | None) -> bool | None:
    """A FLOWWALK_* switch; a word that is neither on nor off is refused, not read as off (a typo
    such as `ture` must not silently turn a switch off)."""
    if text is None or text.strip() == "":
        return None
    word = text.strip().lower()
    if word not in _TRUE + _FALSE:
        raise UsageError(f"{name}={text.strip()}: not on or off\n  hint: write {name}=1 (or true, yes, on) "
                         "or 0 (or false, no, off)")
    return word in _TRUE


def _in_range(setting: str, where: str, value: Any) -> Any:
    """`value` of `setting` as a number within `model.SETTING_RANGES` (the bounds flowwalk.yaml's
    schema has), or UsageError naming where it came from (`--retries`, `FLOWWALK_RETRIES`)."""
    low, high = SETTING_RANGES[setting]
    whole = not setting.endswith("_s")
    span = (f"above {low:g}" if not whole else f"{low:g} or more") if high is None else (
        f"above {low:g} and at most {high:g}" if not whole else f"{low:g} to {high:g}")
    hint = (f"  hint: {_flag(setting)[2:]} takes {span}; flowwalk.yaml, the command line, the Action's "
            f"inputs and FLOWWALK_* variables share these bounds")
    shown = f"{where}={value}" if where.startswith("FLOWWALK_") else f"{where} {value}"
    try:
        text = str(value).strip()
        number: Any = int(text) if whole else float(text)
    except (TypeError, ValueError):
        kind = "a whole number" if whole else "a number"
        raise UsageError(f"{shown}: not {kind}\n{hint}") from None
    if (number < low if whole else number <= low) or (high is not None and number > high):
        raise UsageError(f"{shown}: out of range\n{hint}")
    return number


def root_of(overrides: Overrides, env: Mapping[str, str] | None = None) -> tuple[Path, str | None]:
    """The project root a command uses (`find_root`), and where it was named (`--root`,
    `FLOWWALK_ROOT`; None when it was found)."""
    env = os.environ if env is None else env
    given, where = overrides.root, "--root"
    if not given and env.get("FLOWWALK_ROOT", "").strip():
        given, where = env["FLOWWALK_ROOT"].strip(), "FLOWWALK_ROOT"
    return find_root(overrides.paths, given, where), (where if given else None)


def build_settings(overrides: Overrides, env: Mapping[str, str] | None = None,
                   config: Mapping[str, Any] | None = None, root: str | Path | None = None) -> Settings:
    """The one place configuration is read: `overrides` above `env` above `config`.

    `config` is the validated `flowwalk.yaml` as a plain dict (only the keys the file sets), `root`
    the project root (`root_of`; None: the working folder).
    Secret values are read from the environment variables the run names (`--secret NAME` or the
    config's `secrets`); a named secret missing from the environment is simply not available,
    and a spec that needs it fails with `credential_rejected` before the browser starts.
    """
    env = dict(os.environ if env is None else env)
    config = dict(config or {})
    options = overrides.given()
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}

    def pick_from(name: str, *env_names: str) -> tuple[Any, str]:
        """The value of a setting and where it came from (for messages; kept in `origins`)."""
        found = next((e for e in env_names if env.get(e, "").strip()), None)
        if name in options:
            value, where = options[name], _flag(name)
        elif found:
            value, where = env[found], found
        else:
            value, where = config.get(name), f"flowwalk.yaml {name}"
        origins[name] = where
        return value, where

    def pick(name: str, *env_names: str) -> Any:
        return pick_from(name, *env_names)[0]

    text_settings: dict[str, tuple[str, ...]] = {
        "out_dir": ("FLOWWALK_OUT",), "base_url": ("FLOWWALK_BASE_URL",),
        "durations_file": ("FLOWWALK_DURATIONS",), "fingerprints_file": ("FLOWWALK_FINGERPRINTS",),
        "flaky_policy": ("FLOWWALK_FLAKY_POLICY",), "heal_policy": ("FLOWWALK_HEAL_POLICY",),
        "screenshots": ("FLOWWALK_SCREENSHOTS",), "trace": ("FLOWWALK_TRACE",),
        "verifiers_dir": ("FLOWWALK_VERIFIERS",), "executable": ("FLOWWALK_CHROMIUM",),
        "grep": ("FLOWWALK_GREP",), "grep_invert": ("FLOWWALK_GREP_INVERT",), "tag": ("FLOWWALK_TAG",),
        "last_failed": ("FLOWWALK_LAST_FAILED",), "base_report": ("FLOWWALK_BASE_REPORT",),
        "fail_on": ("FLOWWALK_FAIL_ON",), "quarantine_file": ("FLOWWALK_QUARANTINE",),
        "wait_for": ("FLOWWALK_WAIT_FOR",), "wait_status": ("FLOWWALK_WAIT_STATUS",),
        "wait_text": ("FLOWWALK_WAIT_TEXT",), "http_credentials": ("FLOWWALK_HTTP_CREDENTIALS",),
        "browser_endpoint": ("FLOWWALK_BROWSER_ENDPOINT",),
    }
    for name, env_names in text_settings.items():
        value = pick(name, *env_names)
        if value is not None:
            merged[name] = str(value)

    # one table of ranges (model.SETTING_RANGES): flowwalk.yaml's schema, the command line and the
    # FLOWWALK_* variables refuse the same values
    ranged: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("workers", ("FLOWWALK_WORKERS",)), ("retries", ("FLOWWALK_RETRIES",)),
        ("max_failures", ("FLOWWALK_MAX_FAILURES",)),
        ("rule_timeout_ms", ()), ("guard_timeout_ms", ()), ("action_timeout_ms", ()),
        ("navigation_timeout_ms", ()), ("expect_timeout_ms", ()), ("run_timeout_s", ("FLOWWALK_RUN_TIMEOUT",)),
        ("wait_timeout_s", ("FLOWWALK_WAIT_TIMEOUT",)), ("wait_interval_s", ("FLOWWALK_WAIT_INTERVAL",)),
    )
    for name, env_names in ranged:
        value, where = pick_from(name, *env_names)
        if value is not None:
            merged[name] = _in_range(name, where, value)
    if "workers" not in merged:
        merged["workers"] = default_workers()

    paths = overrides.paths or config.get("paths")
    if paths:
        merged["paths"] = tuple(str(p) for p in paths)
    if root is not None:
        merged["root"] = str(root)
        origins["root"] = ("--root" if overrides.root else "FLOWWALK_ROOT" if env.get("FLOWWALK_ROOT", "").strip()
                           else "the root found for these paths")

    shard = overrides.shard or env.get("FLOWWALK_SHARD")
    if shard and str(shard).strip().lower() == "auto":
        found = shard_from_ci(env)
        merged["shard_index"], merged["shard_total"], merged["shard_source"] = found.index, found.total, found.source
    elif shard:
        merged["shard_index"], merged["shard_total"] = parse_shard(str(shard))

    variables = dict(config.get("variables") or {})
    variables.update(overrides.variables)
    merged["variables"] = {str(k): str(v) for k, v in variables.items()}

    check_site_urls(merged, origins)
    if merged.get("http_credentials"):
        merged["http_credentials"] = merged["http_credentials"].strip()
        check_credentials_name(merged["http_credentials"], origins["http_credentials"])

    secret_names = list(config.get("secrets") or [])
    for name in overrides.secret_names:
        if name not in secret_names:
            secret_names.append(name)
    headers = http_headers_from(config.get("http_headers") or {}, overrides.http_headers)
    if headers:
        merged["http_headers"] = tuple(headers.items())
    # the secrets HTTP headers and credentials take their values from are secrets of the run
    for name in [*headers.values(), *([merged["http_credentials"]] if merged.get("http_credentials") else [])]:
        if name not in secret_names:
            secret_names.append(name)
    merged["secret_names"] = tuple(secret_names)
    named = {n: env[n] for n in secret_names if env.get(n)}
    # a run refuses what it cannot send (app/run.py); validate and plan need none of the values
    access = access_from(headers, merged.get("http_credentials"), {n: env.get(n) for n in secret_names},
                         merged.get("base_url"), strict=False)
    merged["http_access"] = access
    merged["secrets"] = Secrets(named, hidden=tuple(access.hidden_values()))
    if "wait_status" in merged:
        parse_statuses(merged["wait_status"])
    if merged.get("browser_endpoint") and not merged["browser_endpoint"].startswith(("ws://", "wss://")):
        raise UsageError(f"--browser-endpoint '{merged['browser_endpoint']}' is not a ws:// or wss:// URL\n"
                         "  hint: the address a Playwright browser server prints, e.g. ws://127.0.0.1:3000/")

    dismiss = tuple(config.get("dismiss_selectors") or ())
    if dismiss:
        merged["dismiss_selectors"] = dismiss
    test_ids, where = pick_from("test_id_attribute", "FLOWWALK_TEST_ID_ATTRIBUTE")
    if test_ids:
        merged["test_id_attribute"] = test_id_attributes(test_ids, where)
    stabilize = {k: v for k, v in dict(config.get("stabilize") or {}).items() if v is not None}
    if stabilize:
        # the keys the config sets win over both defaults; the keys it leaves out keep each default
        merged["stabilize"] = replace(Stabilize(), **stabilize)
        merged["flow_stabilize"] = replace(FLOW_STABILIZE, **stabilize)
    # switches: the command line, else their FLOWWALK_* variable, else flowwalk.yaml
    for name, env_name in (("offline", "FLOWWALK_OFFLINE"), ("update_snapshots", "FLOWWALK_UPDATE_SNAPSHOTS"),
                           ("full_page_screenshots", "")):
        switch = options.get(name)
        if switch is None and env_name:
            switch = _env_bool(env_name, env.get(env_name))
        if switch is None:
            switch = config.get(name)
        if switch is not None:
            merged[name] = bool(switch)

    for name, allowed in (("flaky_policy", FLAKY_POLICIES), ("heal_policy", HEAL_POLICIES),
                          ("trace", TRACE_MODES), ("screenshots", SCREENSHOT_MODES), ("fail_on", FAIL_ON)):
        if name in merged and merged[name] not in allowed:
            where = origins.get(name, name)
            sep = "=" if where.startswith("FLOWWALK_") else " "
            raise UsageError(f"{where}{sep}'{merged[name]}' is not one of {', '.join(allowed)}\n  hint: for example "
                             f"{where}{sep}{allowed[0]}")
    if config.get("model"):
        merged["llm"] = build_llm_config(config["model"])
    merged["environment"] = environment_from(config)
    merged["projects"] = tuple(Project(str(p["name"]), environment_from(p)) for p in config.get("projects") or ())
    merged["project_filter"] = parse_names(overrides.projects or env.get("FLOWWALK_PROJECT", ""))
    # a browser server launches the headless shell flowwalk's image installs, unless told otherwise:
    # what this machine has installed says nothing about the server
    merged.setdefault("executable", HEADLESS_SHELL if merged.get("browser_endpoint") else default_executable(env))
    merged["on_github_actions"] = env.get("GITHUB_ACTIONS") == "true"
    merged.setdefault("trace", CI_TRACE if on_ci(env) else LOCAL_TRACE)
    merged["scrub_traces"] = env.get("FLOWWALK_TEST_UNSCRUBBED_TRACES") != "1"
    merged["origins"] = {name: where for name, where in origins.items() if name in merged}
    return Settings(**merged)
