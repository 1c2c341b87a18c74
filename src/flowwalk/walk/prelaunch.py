"""Worker 1 started early: its thread starts Playwright's driver at once and launches Chromium as
soon as the settings are known, while the main thread is still importing, loading and planning
(see `walk.run`'s module doc).

The driver is the slowest part of a start (Node.js loading Playwright's server takes about 0.3 s
before it answers) and needs nothing from the settings, so `Prelaunch()` starts it before they
are even read; `launch(settings)` then starts Chromium and the first scenario's context and page.
Kept apart from `walk.run` so that `app.run.execute_run` can start it before importing the walker,
the browser layer and the specs' models: this module imports nothing heavy.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Protocol

from flowwalk.settings import Settings

__all__ = ["BrowserHost", "Prelaunch"]


class BrowserHost(Protocol):
    """A thread holding a Playwright and a Chromium for a run's first workers (`Prelaunch` for one
    run, walk/resident.py's `Resident` for many): `run_plan` hands it their job, or tells it there is
    none, then waits for it."""

    def hand(self, job: Callable[[Any], None]) -> None: ...

    def close(self) -> None: ...

    def join(self) -> None: ...


class Prelaunch:
    """Worker 1's thread, its Playwright driver and its Chromium, started before there is work.

    The thread starts the driver, waits for `launch(settings)` and launches Chromium, opening a
    context + page for the first scenario (`Browser.prepare_spare`) at once, then waits for
    `hand(job)` (it runs `job(browser)` in this thread, which owns that sync Playwright) or
    `close()` (it closes the browser and the driver, and ends). A driver or browser that fails to
    start leaves the browser None: the worker then launches again when it needs one, and that
    launch reports the error as a run without a prelaunch would.
    """

    def __init__(self) -> None:
        self._settings: "queue.Queue[Settings | None]" = queue.Queue(maxsize=1)
        self._jobs: "queue.Queue[Callable[[Any], None] | None]" = queue.Queue(maxsize=1)
        self._launched = False
        self._handed = False
        self._thread = threading.Thread(target=self._main, name="flowwalk-worker-1", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        manager: Any = None
        playwright: Any = None
        try:
            from flowwalk.browser.launch import start_playwright

            manager, playwright = start_playwright()
        except Exception:  # noqa: BLE001 - reported by the worker's own launch, if one is needed
            manager = playwright = None
        settings = self._settings.get()
        browser: Any = None
        if settings is not None and playwright is not None:
            try:
                from flowwalk.browser.launch import Browser

                # the browser owns the driver from here on: its close stops both
                browser = Browser.launch(settings, playwright, manager=manager)
                manager = None
                if settings.trace == "off" and not settings.offline and not settings.http_access:
                    # the first scenario's context and page too, while the specs are still loading
                    browser.prepare_spare(wait=True)
            except Exception:  # noqa: BLE001 - as above
                browser = None
                manager = None  # a failed launch stops the driver it was given
        if manager is not None:
            from flowwalk.browser.launch import stop_playwright

            stop_playwright(manager)
        job = self._jobs.get()
        if job is None:
            if browser is not None:
                browser.close()
            return
        job(browser)

    def launch(self, settings: Settings) -> None:
        """Launch Chromium with these settings (once the driver is up)."""
        self._give(settings)

    def hand(self, job: Callable[[Any], None]) -> None:
        """Run `job(browser)` in the prelaunched thread."""
        self._give(None)
        self._handed = True
        self._jobs.put(job)

    def close(self) -> None:
        """Nothing to walk: close the browser and the driver, and end the thread (no-op after `hand`)."""
        self._give(None)
        if not self._handed:
            self._handed = True
            self._jobs.put(None)
            self._thread.join(timeout=30)

    def _give(self, settings: Settings | None) -> None:
        """The thread's settings, once: None (refused input, or no `launch` before `hand`) stops
        its driver without a browser."""
        if not self._launched:
            self._launched = True
            self._settings.put(settings)

    def join(self) -> None:
        self._thread.join()

