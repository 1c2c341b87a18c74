"""One Playwright driver and one Chromium kept for many runs: what `flowwalk run --watch` walks on.

`Resident()` starts a thread; `start(settings)` has it start the driver and launch Chromium; then
each run's `run_plan(..., prelaunched=resident)` hands the thread its first workers' job, which
walks on that browser (`Browser.kept`: the workers leave it open) and ends; `stop()` closes the
browser and the driver. A browser that crashed or was killed since the last run is launched again
before the next job; one that cannot be launched leaves the job a None browser, and the walk then
reports the launch error as a run without a prelaunch would. Sync Playwright belongs to the thread
that started it, which is why every job runs in this one thread.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable

from flowwalk.settings import Settings

__all__ = ["Resident"]


class Resident:
    """A `walk.prelaunch.BrowserHost` that outlives its runs (see the module doc)."""

    def __init__(self) -> None:
        self._settings: "queue.Queue[Settings]" = queue.Queue(maxsize=1)
        self._jobs: "queue.Queue[Callable[[Any], None] | None]" = queue.Queue()
        self._idle = threading.Event()
        self._idle.set()
        self._started = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="flowwalk-worker-1", daemon=True)

    def start(self, settings: Settings) -> None:
        """Start the driver and Chromium with these settings (once; later runs keep them)."""
        if not self._started:
            self._started = True
            self._settings.put(settings)
            self._thread.start()

    def _main(self) -> None:
        from flowwalk.browser.launch import Browser, start_playwright, stop_playwright
        from flowwalk.errors import BrowserLaunchError

        settings = self._settings.get()
        try:
            manager, playwright = start_playwright()
        except Exception:  # noqa: BLE001 - each job's walk launches on its own and reports why
            manager = playwright = None
        browser: Any = None
        while (job := self._jobs.get()) is not None:
            try:
                if playwright is not None and (browser is None or not browser.is_alive()):
                    if browser is not None:
                        browser.close()
                    try:
                        browser = Browser.launch(settings, playwright)
                        browser.kept = True
                    except BrowserLaunchError:
                        browser = None   # the job's first scenario launches again, and reports the error
                job(browser)
            except BaseException as error:  # noqa: BLE001 - raised again in the thread that waits
                self._error = error
            finally:
                self._idle.set()
        if browser is not None:
            browser.close()
        stop_playwright(manager)

    def hand(self, job: Callable[[Any], None]) -> None:
        """Run `job(browser)` in the resident thread; `join()` waits for it."""
        if not self._started:
            raise RuntimeError("Resident.start(settings) comes before the first job")
        self._idle.clear()
        self._jobs.put(job)

    def close(self) -> None:
        """This run has nothing to walk: the browser stays for the next one."""

    def join(self) -> None:
        """Wait until the job handed last has ended; what it raised is raised here."""
        self._idle.wait()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def stop(self) -> None:
        """Close the browser and the driver, and end the thread (no-op when it never started)."""
        if self._started:
            self._jobs.put(None)
            self._thread.join(timeout=30)
