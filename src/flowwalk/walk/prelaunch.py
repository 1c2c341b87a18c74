"""Worker 1 started early: its thread imports Playwright and launches Chromium while the main
thread is still importing, loading and planning (see `walk.run`'s module doc).

Kept apart from `walk.run` so that `app.run` can start it before importing the walker, the
browser layer and Playwright itself: this module imports nothing heavy.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable

from flowwalk.settings import Settings

__all__ = ["Prelaunch"]


class Prelaunch:
    """Worker 1's thread and its Chromium, started before there is work for it (see the module doc).

    The thread imports Playwright, launches Chromium and opens a context + page for the first
    scenario (`Browser.prepare_spare`) at once, then waits for `hand(job)` (it
    runs `job(browser)` in this thread, which owns that sync Playwright) or `close()` (it closes
    the browser and ends). A launch that fails leaves the browser None: the worker then launches
    again when it needs one, and that launch reports the error as a run without a prelaunch would.
    """

    def __init__(self, settings: Settings):
        self._settings = settings
        self._jobs: "queue.Queue[Callable[[Any], None] | None]" = queue.Queue(maxsize=1)
        self._handed = False
        self._thread = threading.Thread(target=self._main, name="flowwalk-worker-1", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        browser: Any = None
        try:
            from flowwalk.browser.launch import Browser

            browser = Browser.launch(self._settings)
            if self._settings.trace == "off" and not self._settings.offline:
                # the first scenario's context and page too, while the specs are still loading
                browser.prepare_spare(wait=True)
        except Exception:  # noqa: BLE001 - reported by the worker's own launch, if one is needed
            browser = None
        job = self._jobs.get()
        if job is None:
            if browser is not None:
                browser.close()
            return
        job(browser)

    def hand(self, job: Callable[[Any], None]) -> None:
        """Run `job(browser)` in the prelaunched thread."""
        self._handed = True
        self._jobs.put(job)

    def close(self) -> None:
        """Nothing to walk: close the browser and end the thread (no-op after `hand`)."""
        if not self._handed:
            self._handed = True
            self._jobs.put(None)
            self._thread.join(timeout=30)

    def join(self) -> None:
        self._thread.join()
