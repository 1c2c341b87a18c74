"""Playwright's driver spawned before Playwright is imported (browser/driver.py), then adopted.

Each start runs in a thread of its own (a thread holds one sync Playwright, and the test session's
holds the main thread's). No browser is launched: a request context is a round trip through the
driver, which is what adoption has to get right.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from flowwalk.browser import driver
from flowwalk.browser.launch import start_playwright
from flowwalk.entry import _runs_a_browser

pytestmark = pytest.mark.browser


def _drivers() -> set[int]:
    """The Playwright drivers this test process has running (children whose command is run-driver)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and b"run-driver" in command:
            found.add(int(entry.name))
    return found


def _in_a_thread(body: Callable[[], Any]) -> Any:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = body()
        except BaseException as error:  # noqa: BLE001 - raised again in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the Playwright start hung"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def _start_and_use() -> set[int]:
    """Start Playwright in this thread, make one round trip through the driver, stop it; the
    drivers that ran meanwhile."""
    manager, playwright = start_playwright()
    try:
        running = _drivers()
        request = playwright.request.new_context()
        request.dispose()
        return running
    finally:
        manager.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def no_early_driver_left() -> Any:
    yield
    left = driver.take()
    if left is not None:
        driver._kill(left)


def test_the_early_driver_is_the_one_playwright_talks_to_and_stops() -> None:
    before = _drivers()
    assert driver.spawn()
    early = driver._early
    assert early is not None and early.poll() is None
    running = _in_a_thread(_start_and_use)
    assert running - before == {early.pid}       # no second driver was started
    assert early.wait(timeout=10) is not None   # Playwright's stop ended it
    assert driver.take() is None                 # taken once


def test_a_start_without_an_early_driver_spawns_its_own() -> None:
    before = _drivers()
    running = _in_a_thread(_start_and_use)
    assert len(running - before) == 1


def test_an_early_driver_that_died_is_replaced_by_an_ordinary_start() -> None:
    assert driver.spawn()
    early = driver._early
    assert early is not None
    early.kill()
    early.wait(timeout=10)
    before = _drivers()
    running = _in_a_thread(_start_and_use)
    assert len(running - before) == 1 and early.pid not in running


def test_without_the_seam_the_early_driver_is_stopped_and_the_start_is_ordinary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver, "_seam_present", lambda: False)
    assert driver.spawn()
    early = driver._early
    assert early is not None
    before = _drivers()
    running = _in_a_thread(_start_and_use)
    assert early.poll() is not None               # stopped, not leaked
    assert len(running - before) == 1 and early.pid not in running


def test_an_early_driver_nobody_adopts_is_stopped_at_exit() -> None:
    assert driver.spawn()
    early = driver._early
    assert early is not None
    driver._stop_unadopted()   # what atexit calls
    assert early.poll() is not None and driver.take() is None


@pytest.mark.parametrize(("args", "expected"), [
    (["run", "specs/"], True),
    (["run", "specs/", "--workers", "2"], True),
    (["run", "--help"], False),
    (["run", "-h"], False),
    (["validate", "specs/"], False),
    (["--version"], False),
    ([], False),
])
def test_only_run_spawns_the_driver_early(args: list[str], expected: bool) -> None:
    assert _runs_a_browser(args) is expected
