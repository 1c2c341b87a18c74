"""The run's last resort: stop Chromium when a cancel or the run timeout cannot otherwise take effect.

A cancel (SIGINT/SIGTERM) and the run deadline are honoured between steps and inside flowwalk's
own waits. A Playwright call stuck on a page whose main thread never yields, or a step that is
deep in a long wait, does not look at either. When the workers have not finished a grace period
after the cancel or the deadline, the watchdog kills the Chromium processes this flowwalk process
started; every blocked Playwright call then fails at once, the walker records the rule in flight
(`CANCELLED` or `RUN_TIMEOUT`), and the run writes its reports as usual.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Callable

#: process names of the browsers flowwalk launches (Debian's full build and the headless shell)
BROWSER_NAMES = ("chromium", "chromium-headless-shell", "chrome", "headless_shell", "chrome_crashpad")


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return kids


def browser_processes(root: int) -> list[int]:
    """Chromium processes below `root` (any depth), found through /proc."""
    found: list[int] = []
    stack = [root]
    seen: set[int] = set()
    while stack:
        pid = stack.pop()
        for child in _children(pid):
            if child in seen:
                continue
            seen.add(child)
            stack.append(child)
            try:
                name = Path(f"/proc/{child}/comm").read_text().strip()
            except OSError:
                continue
            if any(name.startswith(b) for b in BROWSER_NAMES):
                found.append(child)
    return found


def kill_browsers(root: int | None = None) -> int:
    """SIGKILL every Chromium process below `root` (default: this process); how many were killed."""
    killed = 0
    for pid in browser_processes(os.getpid() if root is None else root):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except OSError:
            pass
    return killed


class Watchdog:
    """Watches a cancel event and a deadline; past either plus `grace_s`, kills the browsers once."""

    def __init__(self, cancel: threading.Event, deadline: float | None, grace_s: float = 2.0,
                 kill: Callable[[], int] = kill_browsers):
        self._cancel = cancel
        self._deadline = deadline
        self._grace_s = grace_s
        self._kill = kill
        self._done = threading.Event()
        self.fired_at: float | None = None
        self.killed = 0
        self._thread = threading.Thread(target=self._watch, name="flowwalk-watchdog", daemon=True)

    def start(self) -> "Watchdog":
        self._thread.start()
        return self

    def stop(self) -> None:
        """The workers are done: nothing left to watch."""
        self._done.set()
        self._thread.join(timeout=5)

    def _watch(self) -> None:
        while not self._done.is_set():
            wait = 0.2 if self._deadline is None else max(0.0, min(0.2, self._deadline - time.monotonic()))
            if self._cancel.wait(wait) or (self._deadline is not None and time.monotonic() >= self._deadline):
                break
        else:
            return
        # give the workers the grace period to stop on their own
        if self._done.wait(self._grace_s):
            return
        self.fired_at = time.monotonic()
        self.killed = self._kill()
