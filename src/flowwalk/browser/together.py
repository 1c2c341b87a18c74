"""Several walkers on one sync Playwright, in one thread: one driver and one Chromium for them all.

Playwright's sync API already lets more than one greenlet wait on its event loop: a sync call
starts its task, and the greenlet that made it switches to the loop's greenlet (the dispatcher)
until the task is done; the dispatcher then switches back to exactly that greenlet. The sync API
runs its own callbacks (route handlers, event listeners) this way. `walk_together` starts one
greenlet per walker from inside the loop, the same way, and returns once every walker has
returned: while one walker waits on Chromium, the others run.

What this asks of a walker: nothing may block the thread for long without going through
Playwright, or the other walkers (and every route handler of the thread) wait too. The walker's
waits are Playwright waits already; `flowwalk.cooperative.offload` runs the blocking calls
flowwalk makes outside Playwright (a model's HTTP request, the `invariant_check` GET) in a thread,
through the walker's greenlet (`_Walker.offload`), and waits for them on the loop.

The driver can die under the walkers (killed with the process group, say). The dispatcher then
ends; `walk_together` resumes every walker still suspended, each of whose Playwright calls now
raises at once, lets them return, and raises `DriverGone`: the caller starts a new Playwright
for the work that is left.

Private names of Playwright's sync API are used: `_sync` (to wait on a task, as the rest of
browser/ does) and `_loop` (for `offload`'s thread); and, read with getattr, to tell that the
driver is gone, the dispatcher greenlet (`_dispatcher_fiber`) and the connection's closed state
(`_closed_error`).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence, TypeVar

import greenlet

__all__ = ["DriverGone", "driver_gone", "walk_together"]

T = TypeVar("T")


class DriverGone(Exception):
    """The Playwright driver the walkers shared is gone; their work that is left needs a new one."""


class _Walker(greenlet.greenlet):  # type: ignore[misc]  # greenlet is untyped here
    """A walker's greenlet; knows the Playwright it runs on."""

    def __init__(self, run: Callable[[], None], playwright: Any):
        super().__init__(run)
        self.playwright = playwright

    def offload(self, call: Callable[[], T]) -> T:
        """`call()` in a thread, while this walker waits on the loop and the others go on
        (what `flowwalk.cooperative.offload` does in a walker)."""
        loop = self.playwright._loop
        return self.playwright._sync(loop.run_in_executor(None, call))  # type: ignore[no-any-return]


def walk_together(playwright: Any, walkers: Sequence[Callable[[], None]]) -> None:
    """Run `walkers` concurrently on `playwright` (this thread's sync Playwright) until each has
    returned. A walker that raises does not stop the others; the first such error is raised once
    all have ended. Raises `DriverGone` when the driver died meanwhile (after every walker ended)."""
    started: list[_Walker] = []
    errors: list[BaseException] = []

    async def together() -> None:
        loop = asyncio.get_running_loop()
        done: list[asyncio.Future[None]] = []
        for body in walkers:
            future: asyncio.Future[None] = loop.create_future()

            def run(body: Callable[[], None] = body, future: asyncio.Future[None] = future) -> None:
                try:
                    body()
                except BaseException as exc:  # noqa: BLE001 - given to the caller below
                    errors.append(exc)
                finally:
                    if not future.done():
                        future.set_result(None)

            walker = _Walker(run, playwright)
            started.append(walker)
            done.append(future)
            walker.switch()   # runs until its first Playwright call, then the loop goes on
        await asyncio.gather(*done)

    try:
        playwright._sync(together())
    except Exception:  # noqa: BLE001 - the driver ended (or the loop broke): drain, then say so
        if not driver_gone(playwright):
            raise
        for walker in started:
            # each Playwright call of a resumed walker now raises at once: it finishes its scenario
            # as one whose browser went away, and returns
            while not walker.dead:
                walker.switch()
        raise DriverGone("Playwright's driver ended while the walkers were running") from None
    if errors:
        raise errors[0]


def driver_gone(playwright: Any) -> bool:
    """Has this sync Playwright's connection to its driver ended? Its calls then fail at once: the
    connection is marked closed first, and its loop greenlet ends soon after."""
    fiber = getattr(playwright, "_dispatcher_fiber", None)
    if fiber is not None and fiber.dead:
        return True
    connection = getattr(getattr(playwright, "_impl_obj", None), "_connection", None)
    return getattr(connection, "_closed_error", None) is not None
