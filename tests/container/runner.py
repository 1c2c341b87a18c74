"""A Docker container action started the way GitHub's runner starts it, with podman.

What the runner does for `uses: flowwalk/flowwalk@v0` (its `docker run` line, as a job's log shows
it) and what is kept here:

- the workspace bind-mounted at /github/workspace and used as the working directory; the runner's
  temp folders at /github/home (HOME), /github/workflow (the event payload) and
  /github/file_commands (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV, GITHUB_PATH, GITHUB_STATE);
- every input of action.yml as INPUT_<NAME> with its hyphens kept, the default where the workflow
  gives none (the token's default is the job's token);
- the GITHUB_* and RUNNER_* variables of a pull_request job, CI=true, GITHUB_ACTIONS=true;
- root, the image's own entrypoint, no TTY, Docker's default 64 MB /dev/shm (said explicitly:
  podman's own default is 64,000 kB).

One difference, on purpose: `--network=host`. The runner puts the container on a bridge network of
its own, from which the fake GitHub and the site, both on this machine's loopback, are out of
reach; on the host network the container reaches them at 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import yaml

from engine import ROOT, Podman, mounts, runner_env_args

REPOSITORY = "octo-org/shop"
HEAD_SHA = "0123456789abcdef0123456789abcdef01234567"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
RESULT_LINE = re.compile(r"^\s*[✓✗~-] \S+#")


def action_inputs() -> dict[str, str]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    return {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}


@dataclass
class RunnerLayout:
    """The runner's folders for one job under `base`, and the environment it gives the step."""

    base: Path
    api_url: str
    token: str
    pr: int = 7
    suffix: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        self.workspace = self.base / "workspace"
        self.home = self.base / "_github_home"
        self.workflow = self.base / "_github_workflow"
        self.file_commands = self.base / "_runner_file_commands"
        for folder in (self.workspace, self.home, self.workflow, self.file_commands):
            folder.mkdir(parents=True, exist_ok=True)
        (self.workflow / "event.json").write_text(json.dumps({
            "action": "synchronize", "number": self.pr,
            "pull_request": {"number": self.pr, "head": {"sha": HEAD_SHA, "ref": "feature",
                                                         "repo": {"full_name": REPOSITORY}},
                             "base": {"ref": "main", "repo": {"full_name": REPOSITORY}}},
            "repository": {"full_name": REPOSITORY}}))

    def host_file(self, kind: str) -> Path:
        return self.file_commands / f"{kind}_{self.suffix}"

    def env(self, inputs: Mapping[str, str], extra: Mapping[str, str] = {}) -> dict[str, str]:
        values = action_inputs()
        values.update(inputs)
        env = {f"INPUT_{name.upper()}": value.replace("${{ github.token }}", self.token)
               for name, value in values.items()}
        env.update({
            "HOME": "/github/home", "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_JOB": "flowwalk", "GITHUB_REF": f"refs/pull/{self.pr}/merge", "GITHUB_SHA": "9" * 40,
            "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_REPOSITORY_OWNER": REPOSITORY.split("/")[0],
            "GITHUB_RUN_ID": "808", "GITHUB_RUN_NUMBER": "3", "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_ACTOR": "octocat", "GITHUB_WORKFLOW": "browser checks", "GITHUB_HEAD_REF": "feature",
            "GITHUB_BASE_REF": "main", "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_SERVER_URL": "https://github.example", "GITHUB_API_URL": self.api_url,
            "GITHUB_GRAPHQL_URL": self.api_url + "/graphql", "GITHUB_REF_NAME": f"{self.pr}/merge",
            "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_ACTION": "checks",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_PATH": f"/github/file_commands/add_path_{self.suffix}",
            "GITHUB_ENV": f"/github/file_commands/set_env_{self.suffix}",
            "GITHUB_STEP_SUMMARY": f"/github/file_commands/step_summary_{self.suffix}",
            "GITHUB_STATE": f"/github/file_commands/save_state_{self.suffix}",
            "GITHUB_OUTPUT": f"/github/file_commands/set_output_{self.suffix}",
            "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_NAME": "GitHub Actions 2",
            "RUNNER_TEMP": "/home/runner/work/_temp", "RUNNER_WORKSPACE": "/home/runner/work/shop",
        })
        for kind in ("add_path", "set_env", "step_summary", "save_state", "set_output"):
            self.host_file(kind).touch()
        env.update(extra)
        return env

    def run_args(self, image: str, env: Mapping[str, str], name: str) -> list[str]:
        return ["run", "--name", name, "--rm", "--network=host", "--shm-size=64m", "--workdir", "/github/workspace",
                *mounts([(self.home, "/github/home"), (self.workflow, "/github/workflow"),
                         (self.file_commands, "/github/file_commands"), (self.workspace, "/github/workspace")]),
                *runner_env_args(env), image]


@dataclass
class Finished:
    code: int
    output: str
    #: seconds from `podman run` to the first result line and to the verdict line
    first_result: float | None
    verdict_line: float | None
    total: float


def run_action(podman: Podman, layout: RunnerLayout, image: str, inputs: Mapping[str, str],
               extra_env: Mapping[str, str] = {}, timeout: float = 600) -> Finished:
    """The container, started as the runner starts it; stdout and stderr together, as the log shows."""
    name = f"flowwalk-test-{uuid.uuid4().hex[:12]}"
    args = layout.run_args(image, layout.env(inputs, extra_env), name)
    started = time.monotonic()
    first = verdict = None
    lines: list[str] = []
    proc = podman.popen(*args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            plain = ANSI.sub("", line)
            if first is None and RESULT_LINE.match(plain):
                first = time.monotonic() - started
            if verdict is None and plain.startswith("verdict:"):
                verdict = time.monotonic() - started
        code = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            podman("rm", "--force", name, check=False)
            proc.kill()
    return Finished(code, "".join(lines), first, verdict, time.monotonic() - started)
