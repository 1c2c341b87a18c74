"""What the Action's container runs: `INPUT_*` variables -> `flowwalk run`, then `flowwalk publish`.

The runner sets one `INPUT_<NAME>` variable per input of action.yml (defaults applied, hyphens
kept: `INPUT_BASE-URL`), starts the container in the workspace (`/github/workspace`) and fails
the step on a non-zero exit code. This maps the inputs with the one table in
`flowwalk.github.inputs`, runs the checks, publishes the verdict whatever it is (a publishing
problem is reported and ignored), and exits with the run's exit code.

The token goes to `flowwalk publish` through `GITHUB_TOKEN` in its environment, never on the
command line, where any process of the container could read it.

As the container's first process (PID 1), this one receives the SIGTERM of a cancelled job or a
`docker stop`, and passes it on to `flowwalk run`, which finishes the reports for what ran (exit 5,
cancelled) within the 10 seconds before the SIGKILL: PID 1 ignores a signal it has no handler for,
so without this the run would die with no report at all.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Mapping, Sequence

from flowwalk.exitcodes import ExitCode
from flowwalk.github.actions import write_outputs
from flowwalk.github.inputs import ACTION_INPUTS, ActionInput, input_by_name
from flowwalk.reportfolder import ReportFolder

FLOWWALK: tuple[str, ...] = (sys.executable, "-m", "flowwalk.cli")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class InputError(ValueError):
    """An input's value cannot be mapped; the message names the input and says how to fix it."""


def read_input(env: Mapping[str, str], item: ActionInput) -> str:
    """The input's value: `INPUT_BASE-URL` as the runner sets it (or `INPUT_BASE_URL`, for people
    running the image by hand with a shell that cannot export hyphens), else the default."""
    for key in (item.env_name, item.env_name.replace("-", "_")):
        if key in env:
            return env[key].strip()
    return "" if item.default.startswith("${{") else item.default


def _arguments(item: ActionInput, value: str, flag: str) -> list[str]:
    if not value:
        return []
    if item.kind == "bool":
        lowered = value.lower()
        if lowered not in ("true", "false"):
            raise InputError(f"input '{item.name}' is '{value}'\n  hint: use true or false")
        if lowered == "true":
            return [flag]
        # an input that is on by default is turned off with the flag's --no- form
        return [f"--no-{flag[2:]}"] if item.default == "true" else []
    if item.kind == "lines":
        out: list[str] = []
        for number, line in enumerate(value.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, _rest = line.partition("=")
            if not sep or not _NAME.match(name.strip()):
                raise InputError(f"input '{item.name}' line {number} '{line}' is not NAME=VALUE\n"
                                 f"  hint: one variable per line, for example BASE_PATH=/shop")
            out += [flag, line]
        return out
    if item.kind == "headers":
        out = []
        for number, line in enumerate(value.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, secret = line.partition("=")
            if not sep or not _HEADER.match(name.strip()) or not _NAME.match(secret.strip()):
                raise InputError(f"input '{item.name}' line {number} is not Header-Name=SECRET_NAME\n"
                                 f"  hint: one header per line, for example x-vercel-protection-bypass=VERCEL_BYPASS, "
                                 f"with the value in the step's env: (never the value itself here)")
            out += [flag, f"{name.strip()}={secret.strip()}"]
        return out
    if item.kind == "names":
        out = []
        for name in re.split(r"[\s,]+", value):
            if not name:
                continue
            if not _NAME.match(name):
                raise InputError(f"input '{item.name}' has '{name}', which is not an environment variable name\n"
                                 f"  hint: names only (letters, digits, _); set the values with the step's env:")
            out += [flag, name]
        return out
    if item.kind == "paths":
        words: list[str] = []
        for line in value.splitlines():
            words += shlex.split(line)
        return words
    return [flag, value]


def run_argv(env: Mapping[str, str]) -> list[str]:
    """`flowwalk run` arguments (after the program) for these inputs."""
    argv = ["run"]
    paths: list[str] = []
    for item in ACTION_INPUTS:
        if not item.run_flag:
            continue
        value = read_input(env, item)
        if item.kind == "paths":
            paths = _arguments(item, value, item.run_flag)
        else:
            argv += _arguments(item, value, item.run_flag)
    return argv + (paths or ["."])


def publish_argv(env: Mapping[str, str]) -> list[str]:
    """`flowwalk publish` arguments; inputs passed through the environment are left out."""
    argv = ["publish"]
    for item in ACTION_INPUTS:
        if item.publish_flag and not item.env_var:
            argv += _arguments(item, read_input(env, item), item.publish_flag)
    return argv


def publish_env(env: Mapping[str, str]) -> dict[str, str]:
    child = dict(env)
    for item in ACTION_INPUTS:
        if item.env_var:
            value = read_input(env, item)
            if value:
                child[item.env_var] = value
    return child


def call_forwarding_signals(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """`subprocess.call`, with this process's SIGINT and SIGTERM passed on to the child.

    The handlers are in place before the child starts: a signal that arrives while it is being
    started is passed on as soon as it exists (with the default handler it would have ended this
    process and left the child running on its own)."""
    if threading.current_thread() is not threading.main_thread():  # signals reach the main thread only
        return subprocess.Popen(list(argv), env=dict(env)).wait()
    child: subprocess.Popen[bytes] | None = None
    early: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        if child is None:
            early.append(signum)
        elif child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        child = subprocess.Popen(list(argv), env=dict(env))
        for signum in early:
            child.send_signal(signum)
        return child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(env: Mapping[str, str] | None = None, flowwalk: Sequence[str] = FLOWWALK) -> int:
    env = dict(os.environ if env is None else env)
    try:
        run_args, publish_args = run_argv(env), publish_argv(env)
    except InputError as error:
        print(f"::error title=flowwalk action input::{str(error).splitlines()[0]}", flush=True)
        print(f"flowwalk: error: {error}", file=sys.stderr, flush=True)
        return int(ExitCode.INPUT_REFUSED)

    report_dir = read_input(env, input_by_name("output-dir")) or "flowwalk-report"
    print(f"flowwalk {shlex.join(run_args)}", flush=True)
    code = call_forwarding_signals([*flowwalk, *run_args], env)

    if ReportFolder(Path(report_dir)).verdict.is_file():
        print(f"flowwalk {shlex.join(publish_args)}", flush=True)
        published = call_forwarding_signals([*flowwalk, *publish_args], publish_env(env))
        if published in (ExitCode.INPUT_REFUSED, ExitCode.INTERNAL_ERROR):  # publish itself did not work
            print(f"::warning title=flowwalk publish::publishing stopped with exit code {published}; "
                  f"the verdict stands (exit code {code})", flush=True)
    elif env.get("GITHUB_OUTPUT"):
        # no verdict (the input was refused before any browser started): still say so in the outputs
        outcome = "input_refused" if code == ExitCode.INPUT_REFUSED else "internal_error"
        write_outputs(env["GITHUB_OUTPUT"], {"verdict": outcome, "exit-code": code, "report-dir": report_dir})
    return code


if __name__ == "__main__":  # pragma: no cover - the container's ENTRYPOINT
    sys.exit(main())
