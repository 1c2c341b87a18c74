"""More browsers than one runner holds: `--browser-endpoint ws://...` walks in the browsers of a
Playwright browser server (`playwright run-server --unsafe` on 127.0.0.1, started here) instead of a
Chromium of its own, with the same verdicts as a local launch. The server launches Debian's Chromium
with flowwalk's launch flags, one browser per worker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import pytest
from _cli import DEMO_ARGS, flowwalk
from test_cli_examples import comparable_tests

from flowwalk.settings import CHROMIUM_ARGS, HEADLESS_SHELL

pytestmark = pytest.mark.browser

EXAMPLES = ["examples/flows", "examples/failing", "examples/rules", "examples/sessions", "--serve", "examples/site",
            "--workers", "3", *DEMO_ARGS]


class BrowserServer:
    """`playwright run-server` on 127.0.0.1 (the driver CLI the Python package ships), stopped by pid."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen([sys.executable, "-m", "playwright", "run-server", "--host", "127.0.0.1",
                                         "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, start_new_session=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("Listening on ws://"), line
        self.endpoint = line.split()[-1]

    def browsers(self) -> list[list[str]]:
        """The command lines of the Chromium browser processes this server launched (its descendants:
        Playwright starts a browser in a session of its own)."""
        parents: dict[int, int] = {}
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        found = []
        for pid in parents:
            ancestor = parents.get(pid)
            while ancestor not in (None, 0, 1, self.process.pid):
                ancestor = parents.get(ancestor)  # type: ignore[arg-type]
            if ancestor != self.process.pid:
                continue
            try:
                args = [a.decode() for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
            except OSError:
                continue
            if args and args[0] == HEADLESS_SHELL and not any(a.startswith("--type=") for a in args):
                found.append(args)
        return found

    def stop(self) -> None:
        """Stops the group the server leads: `python -m playwright` runs the driver (node) as its child,
        which would outlive its parent."""
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


@pytest.fixture
def server() -> Iterator[BrowserServer]:
    running = BrowserServer("--unsafe")
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.long
def test_a_run_through_a_browser_server_has_the_verdicts_of_a_local_launch(tmp_path: Path,
                                                                            server: BrowserServer) -> None:
    local, remote = tmp_path / "local", tmp_path / "remote"
    pool = ThreadPoolExecutor(1)   # the local launch walks meanwhile (both mostly wait on pages)
    walking_here = pool.submit(flowwalk, "run", *EXAMPLES, "--out", str(local))
    seen: list[list[str]] = []
    proc = subprocess.Popen([sys.executable, "-m", "flowwalk", "run", *EXAMPLES, "--out", str(remote),
                             "--browser-endpoint", server.endpoint], cwd=Path(__file__).resolve().parents[2],
                            env={**os.environ, "DEMO_PASSWORD": "correct-horse-battery"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    while proc.poll() is None:   # the server's browsers, looked at while the run walks in them
        seen += [b for b in server.browsers() if b not in seen]
        try:
            proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
    stdout, stderr = proc.communicate()
    here = walking_here.result()
    pool.shutdown()
    assert proc.returncode == here.returncode == 1, stdout + stderr
    assert comparable_tests(remote) == comparable_tests(local)
    # the server launched Debian's headless shell with the launch flags of a local launch, and the
    # run's workers each walked in a browser of their own there
    assert seen, "no browser was launched by the server"
    for args in seen:
        assert args[0] == HEADLESS_SHELL and set(CHROMIUM_ARGS) <= set(args), args
    assert len(seen) >= 2


def test_a_server_that_will_not_launch_flowwalks_chromium_is_a_clear_error(tmp_path: Path) -> None:
    plain = BrowserServer()   # without --unsafe, it would launch a browser Playwright downloaded
    try:
        result = flowwalk("run", "examples/flows/home.flow.yaml", "--serve", "examples/site",
                          "--out", str(tmp_path / "report"), "--browser-endpoint", plain.endpoint)
    finally:
        plain.stop()
    assert result.returncode == 6, result.stdout + result.stderr
    verdict = json.loads((tmp_path / "report" / "verdict.json").read_text())
    message = verdict["root_causes"][0]["message"]
    assert f"could not get a browser from the browser server at {plain.endpoint}" in message
    assert "playwright run-server --unsafe" in message


HISTORY_FLOWS = {
    "back-and-forth.flow.yaml": """spec_version: "1.1"
name: back and forth
url: /index.html
steps:
  - {type: goto, url: /help.html}
  - {type: go_back}
  - {type: expect, kind: text_contains, selector: h1, value: Notes your whole team can find}
  - {type: go_forward}
  - {type: expect, kind: text_contains, selector: h1, value: Acme Help Center}
""",
    "back-first.flow.yaml": """spec_version: "1.1"
name: back as the first move
url: /index.html
steps:
  - {type: go_back}
""",
}


def test_the_history_steps_read_the_history_through_a_browser_server(tmp_path: Path, server: BrowserServer) -> None:
    """go_back asks Chromium's own history (a CDP session): it works the same in a server's browser."""
    for name, text in HISTORY_FLOWS.items():
        (tmp_path / name).write_text(text)
    out = tmp_path / "report"
    result = flowwalk("run", str(tmp_path), "--serve", "examples/site", "--out", str(out),
                      "--browser-endpoint", server.endpoint)
    assert result.returncode == 2, result.stdout + result.stderr
    tests = {t["source"].rsplit("/", 1)[-1]: t for t in json.loads((out / "verdict.json").read_text())["tests"]}
    assert tests["back-and-forth.flow.yaml"]["status"] == "passed"
    failure = tests["back-first.flow.yaml"]["failure"]
    assert (failure["failure_class"], failure["message"]) == ("spec_step_unresolvable",
                                                              "go_back: the history has no page to go back to")
