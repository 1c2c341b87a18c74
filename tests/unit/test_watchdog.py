"""The watchdog kills only the browsers of its own run: real processes, found through /proc."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Iterator

import pytest

from flowwalk.browser.launch import MARKER_SWITCH, browser_marker
from flowwalk.cooperative import CancelToken
from flowwalk.walk.watchdog import Watchdog, browser_processes, kill_browsers

# a stand-in "browser": a process with a marker on its command line that starts a child of its own,
# as Chromium starts its zygote and renderers (the child carries no marker)
_PARENT = (
    "import subprocess, sys, time\n"
    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "time.sleep(60)\n"
)


def _spawn(marker: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _PARENT, f"{MARKER_SWITCH}={marker}"])


def _wait_for(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.fixture()
def two_browsers() -> Iterator[tuple[str, subprocess.Popen[bytes], str, subprocess.Popen[bytes]]]:
    mine, theirs = browser_marker(), browser_marker()
    procs = [_spawn(mine), _spawn(theirs)]
    try:
        # each stand-in has started its child
        _wait_for(lambda: all(len(browser_processes([m])) == 2 for m in (mine, theirs)))
        yield mine, procs[0], theirs, procs[1]
    finally:
        for proc in procs:
            kill_browsers([mine, theirs])
            proc.kill()
            proc.wait()


def test_markers_are_unique() -> None:
    assert len({browser_marker() for _ in range(1000)}) == 1000


def test_kill_takes_the_marked_browser_and_its_children_only(two_browsers) -> None:  # type: ignore[no-untyped-def]
    mine, my_proc, theirs, their_proc = two_browsers
    my_pids = browser_processes([mine])
    assert my_pids[0] == my_proc.pid        # the marked process first, then what it started
    assert set(my_pids).isdisjoint(browser_processes([theirs]))

    assert kill_browsers([mine]) == 2
    assert my_proc.wait(timeout=10) != 0
    _wait_for(lambda: not browser_processes([mine]))
    assert their_proc.poll() is None       # the other run's browser lives on
    assert len(browser_processes([theirs])) == 2


def test_no_markers_kills_nothing(two_browsers) -> None:  # type: ignore[no-untyped-def]
    assert kill_browsers([]) == 0
    assert all(p.poll() is None for p in two_browsers[1::2])


def test_the_watchdog_fires_once_after_the_grace_period() -> None:
    cancel = CancelToken()
    calls: list[float] = []
    dog = Watchdog(cancel, None, lambda: calls.append(time.monotonic()) or 3, grace_s=0.2).start()
    t0 = time.monotonic()
    cancel.cancel()
    _wait_for(lambda: bool(calls))
    dog.stop()
    assert calls[0] - t0 >= 0.2 and len(calls) == 1 and dog.killed == 3


def test_the_watchdog_does_nothing_when_the_workers_finish_in_time() -> None:
    cancel = CancelToken()
    calls: list[int] = []
    dog = Watchdog(cancel, time.monotonic() + 0.05, lambda: calls.append(1) or 0, grace_s=5).start()
    time.sleep(0.1)       # past the deadline, inside the grace period
    dog.stop()
    assert calls == [] and dog.fired_at is None


def test_stopping_the_watchdog_does_not_wait_for_its_next_look_at_the_cancel_event(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # the run's end waits for stop(): it must not wait out a poll of the cancel event
    monkeypatch.setattr(Watchdog, "POLL_S", 60.0)
    dog = Watchdog(CancelToken(), None, lambda: 0).start()
    dog.stop()    # joins for at most 5 s
    assert not dog._thread.is_alive()
