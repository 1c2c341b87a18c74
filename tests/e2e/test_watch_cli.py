"""`flowwalk run PATH --watch` as a person runs it: started from a project folder (not the repo),
against a site this test serves on 127.0.0.1, edited while it watches, stopped with SIGINT by its pid.

Each edit is followed by what the watch prints for it: a broken check fails, a YAML error is shown
at its `path:line:col` while the watch goes on, a fix passes again, and an edit of a steps file walks
again the specs that call it and no other. Then the exit code and the report folder (the latest walk
of every spec). A second test types a unique password through a secret and finds it in nothing the
watch wrote.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import signal
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from _cli import FLOWWALK

from leakscan import blobs, leaks
from served import serving

pytestmark = pytest.mark.browser

PAGES = {
    "index.html": "<!doctype html><title>Home</title><h1>Watch home</h1><a href='about.html'>About</a>",
    "about.html": "<!doctype html><title>About</title><h1>About us</h1><p id='team'>Ada and Grace</p>",
    "login.html": ("<!doctype html><title>Login</title><input id='user'><input id='pw' type='password'>"
                   "<button id='go' onclick=\"document.getElementById('out').textContent="
                   "document.getElementById('pw').value ? 'signed in' : 'no password'\">Go</button>"
                   "<p id='out'></p>"),
}
HOME = 'spec_version: "1"\nname: home\nurl: /\nsteps:\n  - {type: expect, kind: text_contains, selector: h1, value: %s}\n'
ABOUT_STEPS = ('steps_version: "1"\nsteps:\n  - {type: goto, url: /about.html}\n'
               '  - {type: expect, kind: text_contains, selector: h1, value: %s}\n')
USES = 'spec_version: "1.1"\nname: %s\nurl: /\nsteps:\n  - use: ../steps/about.steps.yaml\n'
#: generous: a walk on a loaded two-core machine takes seconds, not minutes
WAIT_S = 90


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[str]:
    folder = tmp_path / "site"
    folder.mkdir()
    for name, text in PAGES.items():
        (folder / name).write_text(text)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None  # type: ignore[attr-defined]
    with serving(handler) as url:
        yield url


class Watching:
    """The watch as a child process; its stdout and stderr are read as they come, into one text."""

    def __init__(self, cwd: Path, *args: str, env: dict[str, str] | None = None):
        full_env = {**os.environ, **(env or {})}
        for name in ("GITHUB_ACTIONS", "CI"):
            full_env.pop(name, None)
        self.process = subprocess.Popen([*FLOWWALK, "run", *args, "--watch"], cwd=cwd, env=full_env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.text = ""
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._lock:
                self.text += line

    def wait_for(self, needle: str, count: int = 1) -> str:
        """Wait until `needle` was printed `count` times in all; the whole output so far."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            with self._lock:
                if self.text.count(needle) >= count:
                    return self.text
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} x{count} not printed; the watch printed:\n{self.text}")

    def since(self, mark: int) -> str:
        with self._lock:
            return self.text[mark:]

    def stop(self) -> int:
        """SIGINT to its pid, as Ctrl-C sends; its exit code."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGINT)
        code = self.process.wait(timeout=WAIT_S)
        self._reader.join(timeout=10)
        return code


def save(path: Path, text: str) -> None:
    """As an editor saves: the file truncated, then written (two writes the watch must take as one)."""
    with open(path, "w") as handle:
        handle.flush()
        os.fsync(handle.fileno())
        time.sleep(0.05)
        handle.write(text)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "checks").mkdir(parents=True)
    (root / "steps").mkdir()
    (root / "flowwalk.yaml").write_text("paths: [checks]\n")
    (root / "checks" / "home.flow.yaml").write_text(HOME % "Watch home")
    (root / "steps" / "about.steps.yaml").write_text(ABOUT_STEPS % "About us")
    for name in ("about-one", "about-two"):
        (root / "checks" / f"{name}.flow.yaml").write_text(USES % name)
    return root


def test_a_watch_walks_again_what_each_save_touched_shows_errors_and_ends_on_sigint(
        tmp_path: Path, site: str) -> None:
    root = project(tmp_path)
    watch = Watching(root, "--base-url", site, "--out", "report")
    try:
        first = watch.wait_for("flowwalk: watching")
        assert "3 scenarios, 3 tests" in first and first.count("✓") == 3, first
        home = root / "checks" / "home.flow.yaml"

        # break it: the check fails, and only this spec was walked
        mark = len(watch.text)
        save(home, HOME % "Nowhere to be seen")
        walk = watch.wait_for("flowwalk: watching", 2)[mark:]
        assert "1 scenario, 1 test" in walk and "✗ checks/home.flow.yaml#home" in walk, walk
        assert "about-one" not in walk and "verdict: the site misbehaved" in walk, walk

        # a YAML error: shown at path:line:col with a hint, nothing walked, the watch goes on
        mark = len(watch.text)
        save(home, HOME.replace("steps:\n", "steps:\n  - {type: expect\n") % "Watch home")
        shown = watch.wait_for("flowwalk: watching", 3)[mark:]
        assert re.search(r"^checks/home\.flow\.yaml:\d+:\d+: error: .+\n  hint: ", shown, re.M), shown
        assert "the watch goes on" in shown and " tests, " not in shown, shown
        assert watch.process.poll() is None

        # fixed: it passes again
        mark = len(watch.text)
        save(home, HOME % "Watch home")
        walk = watch.wait_for("flowwalk: watching", 4)[mark:]
        assert "✓ checks/home.flow.yaml#home" in walk and "1 scenario, 1 test" in walk, walk

        # a steps file: the two specs calling it walk again, home does not
        mark = len(watch.text)
        save(root / "steps" / "about.steps.yaml", ABOUT_STEPS % "About them")
        walk = watch.wait_for("flowwalk: watching", 5)[mark:]
        assert "2 scenarios, 2 tests" in walk, walk
        assert "✗ checks/about-one.flow.yaml#about-one" in walk and "✗ checks/about-two.flow.yaml#about-two" in walk
        assert "home.flow.yaml" not in walk, walk
    finally:
        code = watch.stop()
    assert code == 5, watch.text   # exitcodes.ExitCode.CANCELLED: ended by a signal
    assert "Traceback" not in watch.text and "Future exception was never retrieved" not in watch.text, watch.text

    # the report: the latest walk of each spec, as one run would have written it
    verdict = json.loads((root / "report" / "verdict.json").read_text())
    statuses = {t["test_id"]: t["status"] for t in verdict["tests"]}
    assert statuses == {"checks/home.flow.yaml#home": "passed", "checks/about-one.flow.yaml#about-one": "failed",
                        "checks/about-two.flow.yaml#about-two": "failed"}, statuses
    assert verdict["exit_code"] == 1 and verdict["counts"]["total"] == 3
    assert {"junit.xml", "summary.md", "report.html", "emit.jsonl"} <= {p.name for p in (root / "report").iterdir()}
    records = [json.loads(line) for line in (root / "report" / "emit.jsonl").read_text().splitlines()]
    assert records[0]["event"] == "run_started" and records[-1]["event"] == "run_finished"
    assert records[-1]["exit_code"] == 1 and sum(r["event"] == "run_started" for r in records) == 1


def test_a_secret_typed_during_a_watch_is_in_nothing_it_wrote(tmp_path: Path, site: str) -> None:
    secret = f"pw-{os.getpid()}-{time.time_ns()}-unique"
    root = tmp_path / "project"
    (root / "checks").mkdir(parents=True)
    login = root / "checks" / "login.flow.yaml"
    text = ('spec_version: "1"\nname: login\nurl: /login.html\nsteps:\n'
            '  - {type: act, action: fill, selector: "#user", value: ada}\n'
            '  - {type: act, action: fill, selector: "#pw", value: "{{WATCH_PASSWORD}}"}\n'
            '  - {type: act, action: click, selector: "#go"}\n'
            '  - {type: expect, kind: text_contains, selector: "#out", value: %s}\n')
    login.write_text(text % "signed in")
    watch = Watching(root, "checks", "--base-url", site, "--out", "report", "--secret", "WATCH_PASSWORD",
                     "--screenshots", "on", env={"WATCH_PASSWORD": secret})
    try:
        watch.wait_for("flowwalk: watching")
        save(login, text % "never shown")   # a failing walk too: its evidence is written
        watch.wait_for("flowwalk: watching", 2)
    finally:
        code = watch.stop()
    assert code == 5, watch.text
    assert "✗ checks/login.flow.yaml#login" in watch.text, watch.text
    assert (root / "report" / "screenshots").is_dir()
    written = list(blobs(root)) + [("console", watch.text.encode())]
    assert leaks(written, {"WATCH_PASSWORD": secret}) == []
    # and the search itself sees the value where it is: the environment the watch was given
    assert leaks([("env", secret.encode())], {"WATCH_PASSWORD": secret})
