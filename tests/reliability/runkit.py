"""Running flowwalk as a user does, for the reliability tests: a real process, its process tree.

`Flowwalk.start` launches `python -m flowwalk.cli ...` in its own session with stdout and stderr
going to files (a full pipe must never stall the run under test); `finish` waits, and on a timeout
kills exactly the processes it started (the CLI and its descendants, found through /proc, by pid).
`descendants` and `tree_rss_kb` read /proc, so the crash and load tests can find Chromium under the
run and measure the memory of the whole tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FLOWWALK = [sys.executable, "-m", "flowwalk.cli"]
SITE = ROOT / "tests" / "site" / "pages"
FLOWS = ROOT / "tests" / "reliability" / "flows"
ARTIFACTS = ("emit.jsonl", "junit.xml", "verdict.json", "summary.md", "report.html")


# --- /proc ----------------------------------------------------------------------------------------


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, command line) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1]), cmd


def descendants(root: int) -> dict[int, str]:
    """pid -> command line of every live process below `root`."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = _stat(int(entry))
            if found is not None:
                parents[int(entry)], commands[int(entry)] = found
    out: dict[int, str] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in out:
                out[child] = commands[child]
                frontier.append(child)
    return out


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(root: int) -> int:
    """Resident memory of `root` and every process below it, in KiB."""
    return rss_kb(root) + sum(rss_kb(pid) for pid in descendants(root))


def browser_processes(root: int) -> dict[int, str]:
    """The Chromium browser processes (not renderers, GPU or utility processes) under `root`."""
    return {pid: cmd for pid, cmd in descendants(root).items()
            if "chrom" in cmd.split(" ", 1)[0] and "--type=" not in cmd}


# --- the CLI as a process ---------------------------------------------------------------------------


@dataclass
class Finished:
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class Flowwalk:
    """One `flowwalk` process started by a test."""

    def __init__(self, args: list[str], *, env: dict[str, str] | None = None, logs: Path):
        logs.mkdir(parents=True, exist_ok=True)
        self.stdout_path = logs / "stdout.txt"
        self.stderr_path = logs / "stderr.txt"
        full_env = {**os.environ, **(env or {})}
        full_env.pop("GITHUB_ACTIONS", None)
        full_env.pop("CI", None)   # a CI runs with traces on by default; the tests choose their own
        full_env.setdefault("PYTHONUNBUFFERED", "1")
        self.started = time.monotonic()
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen([*FLOWWALK, *args], cwd=ROOT, env=full_env, stdout=out, stderr=err,
                                         start_new_session=True)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    def kill_tree(self) -> None:
        """SIGKILL the CLI and everything below it (only processes this test started)."""
        for pid in [*descendants(self.pid), self.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def finish(self, timeout: float) -> Finished:
        timed_out = False
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            self.kill_tree()
            self.proc.wait(timeout=30)
        wall = time.monotonic() - self.started
        # a Chromium left behind by a killed run is this test's to clean up as well
        return Finished(self.proc.returncode, self.stdout_path.read_text(errors="replace"),
                        self.stderr_path.read_text(errors="replace"), wall, timed_out)


def run_cli(args: list[str], *, logs: Path, env: dict[str, str] | None = None, timeout: float = 240) -> Finished:
    return Flowwalk(args, env=env, logs=logs).finish(timeout)


# --- reading what a run left ------------------------------------------------------------------------


def records(out: Path) -> list[dict[str, Any]]:
    """Every complete line of emit.jsonl, parsed (a torn last line is left out, as the reader does)."""
    text = (out / "emit.jsonl").read_text()
    lines = text.split("\n")
    if not text.endswith("\n"):
        lines = lines[:-1]
    return [json.loads(line) for line in lines if line.strip()]


def verdict(out: Path) -> dict[str, Any]:
    return json.loads((out / "verdict.json").read_text())


def by_file(verdict_: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """verdict tests keyed by the spec's file name."""
    return {Path(t["source"]).name: t for t in verdict_["tests"]}


def wait_for(predicate: Any, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return False


# --- `flowwalk publish` as a process, in a pull_request job's environment ---------------------------


def publish_cli(report: Path, api_url: str, tmp_path: Path, *args: str, token: str, repository: str,
                head_sha: str, pr: int = 7, timeout: float = 120) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `flowwalk publish --report REPORT ARGS` as GitHub Actions would on a pull_request event."""
    github = str(Path(__file__).resolve().parents[1] / "github")   # the fake GitHub's own helpers
    if github not in sys.path:
        sys.path.insert(0, github)
    from fake_github import pull_request_env

    env = pull_request_env(tmp_path, api_url, token=token, repository=repository, head_sha=head_sha, pr=pr)
    started = time.monotonic()
    done = subprocess.run([*FLOWWALK, "publish", "--report", str(report), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - started
