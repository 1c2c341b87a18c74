"""A browser that dies mid-scenario is reported as BrowserCrashed, never as a page failure.

Each test launches its own Browser (the session one must survive) with a unique marker argument,
finds that browser's process by the marker, and kills only it (or only its renderer), by pid.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Iterator

import pytest

from flowwalk.browser import Browser, BrowserCrashed
from flowwalk.browser.launch import MARKER_SWITCH
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings
from flowwalk.walk.checks import run_check

pytestmark = pytest.mark.browser

WELCOME = Expect(loc=Location("tests/crash.flow.yaml", 2, 3), text="expect text_contains 'Welcome'",
                 kind="text_contains", value="Welcome")


def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) for every process we may read."""
    out: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out[int(entry.name)] = (ppid, cmdline)
    return out


def _browser_pid(marker: str) -> int:
    found = [pid for pid, (_, cmd) in _processes().items() if marker in cmd and "--type=" not in cmd]
    assert len(found) == 1, found
    return found[0]


def _renderer_pids(root: int) -> list[int]:
    procs = _processes()
    seen, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _) in procs.items() if ppid == parent]
        seen += children
        frontier += children
    return [pid for pid in seen if "--type=renderer" in procs[pid][1]]


@pytest.fixture()
def own_browser(playwright_instance, flowwalk_settings: Settings) -> Iterator[tuple[Browser, str]]:  # type: ignore[no-untyped-def]
    browser = Browser.launch(flowwalk_settings, playwright=playwright_instance)
    yield browser, f"{MARKER_SWITCH}={browser.marker}"   # every launch carries its own marker
    browser.close()


def test_a_killed_browser_is_a_crash(own_browser: tuple[Browser, str], site: StaticServer,
                                     flowwalk_browser: Browser, tmp_path: Path) -> None:
    browser, marker = own_browser
    session = browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    assert browser.is_alive()

    os.kill(_browser_pid(marker), signal.SIGKILL)

    with pytest.raises(BrowserCrashed):
        run_check(session, WELCOME, scope=None, timeout_ms=5_000, stabilize=Stabilize())
    assert not browser.is_alive()
    assert session.crashed
    with pytest.raises(BrowserCrashed):
        session.goto(f"{site.url}/browser/checks.html", timeout_ms=5_000)
    with pytest.raises(BrowserCrashed):
        browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    # evidence and clean-up still work on a dead browser
    assert session.screenshot(tmp_path / "dead.png") is False
    assert session.evidence()["crashed"] is True
    session.close()
    browser.close()
    # the session's own browser is untouched
    assert flowwalk_browser.is_alive()


def test_a_crashed_renderer_is_a_crash_and_the_browser_lives_on(own_browser: tuple[Browser, str],
                                                                 site: StaticServer) -> None:
    browser, marker = own_browser
    session = browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    session.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
    renderers = _renderer_pids(_browser_pid(marker))
    assert len(renderers) == 1
    os.kill(renderers[0], signal.SIGKILL)

    with pytest.raises(BrowserCrashed):
        run_check(session, WELCOME, scope=None, timeout_ms=5_000, stabilize=Stabilize())
    assert session.crashed
    session.close()

    assert browser.is_alive()
    fresh = browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    try:
        fresh.goto(f"{site.url}/browser/checks.html", timeout_ms=10_000)
        assert run_check(fresh, WELCOME, scope=None, timeout_ms=5_000, stabilize=Stabilize()).passed
    finally:
        fresh.close()
