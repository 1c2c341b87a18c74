"""Cooperation between a run's workers and whoever runs them: blocking calls that let the other
workers of a thread go on, and the token that asks a run or a crawl to stop.

Up to four workers of a run share one thread, each in a greenlet on that thread's Playwright loop
(browser/together.py). A call that blocks the thread outside Playwright stops them all, and the
routes of every page in the thread. `offload(call)` is `call()`, except in such a worker: there it
runs `call` in a thread and lets the other workers go on until it returns.

flowwalk's own blocking calls go through it: a model's HTTP request (agent/client.py) and the
`invariant_check` verifier's GET (walk/verifiers.py). A user verifier's own code runs as written:
one that blocks holds up the other workers of its thread for as long.

`CancelToken` is how a run or a crawl is asked to stop: the CLI cancels it on SIGINT/SIGTERM
(naming the signal), the MCP server when its client cancels the call. The work checks it between
units, stops starting new ones and finishes what it writes.

Kept apart from browser/ so that code that must know nothing of pages (the model client) can
use it; it imports nothing, and looks at greenlets only when Playwright's sync API is loaded.
"""

from __future__ import annotations

import sys
import threading
from typing import Callable, TypeVar

__all__ = ["CancelToken", "offload"]

T = TypeVar("T")


def offload(call: Callable[[], T]) -> T:
    """`call()`, run so that the thread's other workers go on meanwhile (see the module doc)."""
    greenlets = sys.modules.get("greenlet")
    runner = getattr(greenlets.getcurrent(), "offload", None) if greenlets is not None else None
    if runner is None:
        return call()
    return runner(call)  # type: ignore[no-any-return]


class CancelToken(threading.Event):
    """An event that asks a run or a crawl to stop, and says why: `signal`, the signal's name that
    `run_cancelled` records (SIGINT when the one who cancelled named none)."""

    signal = "SIGINT"

    def cancel(self, signal: str = "SIGINT") -> None:
        """Ask the work to stop; the first reason given is kept."""
        if not self.is_set():
            self.signal = signal
        self.set()
