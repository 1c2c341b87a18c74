"""The run's last resort: stop Chromium when a cancel or the run timeout cannot otherwise take effect.

A cancel (SIGINT/SIGTERM) and the run deadline are honoured between steps and inside flowwalk's
own waits. A Playwright call stuck on a page whose main thread never yields, or a step that is
deep in a long wait, does not look at either. When the workers have not finished a grace period
after the cancel or the deadline, the watchdog kills the Chromium processes this run launched; every
blocked Playwright call then fails at once, the walker records the rule in flight (`CANCELLED` or
`RUN_TIMEOUT`), and the run writes its reports as usual.

Each launch carries a marker switch (browser/launch.py `MARKER_SWITCH`), and the run hands the
watchdog its browsers' markers, so the browsers of other runs in the same process (the MCP
server, discover's verification, a test session's shared browser) are never touched.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Callable, Collection

from flowwalk.browser.launch import MARKER_SWITCH
from flowwalk.cooperative import CancelToken

def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return kids


def _descendants(root: int) -> list[int]:
    """Every process below `root` (any depth), parents before their children, through /proc."""
    found: list[int] = []
    stack = [root]
    seen: set[int] = set()
    while stack:
        for child in _children(stack.pop()):
            if child not in seen:
                seen.add(child)
                found.append(child)
                stack.append(child)
    return found


def _marker(pid: int) -> str | None:
    """The value of MARKER_SWITCH on a process's command line, if it carries one."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    prefix = f"{MARKER_SWITCH}=".encode()
    for arg in argv:
        if arg.startswith(prefix):
            return arg[len(prefix):].decode(errors="replace")
    return None


def browser_processes(markers: Collection[str], root: int | None = None) -> list[int]:
    """The processes of the browsers launched with one of `markers`: each marked browser process
    below `root` (default: this process) and everything below it (renderers, zygotes, GPU).

    Only marked browsers count, so a run never touches a Chromium it did not launch: another run
    in the same process (the MCP server, discover's verification, a test session's own browser).
    """
    wanted = set(markers)
    if not wanted:
        return []
    found: list[int] = []
    for pid in _descendants(os.getpid() if root is None else root):
        if pid not in found and _marker(pid) in wanted:
            found += [pid, *(p for p in _descendants(pid) if p not in found)]
    return found


def kill_browsers(markers: Collection[str], root: int | None = None) -> int:
    """SIGKILL the processes of the browsers launched with `markers`; how many were killed."""
    killed = 0
    for pid in browser_processes(markers, root):
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except OSError:
            pass
    return killed


class Watchdog:
    """Watches a cancel event and a deadline; past either plus `grace_s`, kills the browsers once."""

    #: how often the cancel event is looked at (`stop` is seen at once)
    POLL_S = 0.2

    def __init__(self, cancel: CancelToken, deadline: float | None, kill: Callable[[], int],
                 grace_s: float = 2.0):
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
        # waits on `_done`, so that `stop` returns at once; a cancel is seen within POLL_S
        while True:
            poll = self.POLL_S
            wait = poll if self._deadline is None else max(0.0, min(poll, self._deadline - time.monotonic()))
            if self._done.wait(wait):
                return
            if self._cancel.is_set() or (self._deadline is not None and time.monotonic() >= self._deadline):
                break
        # give the workers the grace period to stop on their own
        if self._done.wait(self._grace_s):
            return
        self.fired_at = time.monotonic()
        self.killed = self._kill()
