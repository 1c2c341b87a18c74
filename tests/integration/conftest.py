"""Integration fixtures: one flowwalk `Browser` per test session, a fresh `PageSession` per test.

`paced`: a check's clock for tests that count a check's reads or time it (see `PacedClock`).

The browser is built on the session's Playwright instance (two sync_playwright instances cannot
run in one thread) and the session opens on the loopback test site, so every request a test
makes stays on 127.0.0.1.
"""

from __future__ import annotations

import time
from typing import Iterator

import pytest

from flowwalk.browser import Browser, PageSession
from flowwalk.browser.page import Page
from flowwalk.walk import checks
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings, default_executable


@pytest.fixture(scope="session")
def flowwalk_settings() -> Settings:
    """Settings of the test browser: Debian's Chromium, short action timeouts."""
    return Settings(executable=default_executable(), action_timeout_ms=5_000, navigation_timeout_ms=10_000)


@pytest.fixture(scope="session")
def flowwalk_browser(playwright_instance, flowwalk_settings: Settings) -> Iterator[Browser]:  # type: ignore[no-untyped-def]
    """The one flowwalk Browser of the test session."""
    browser = Browser.launch(flowwalk_settings, playwright=playwright_instance)
    yield browser
    browser.close()


@pytest.fixture()
def session(flowwalk_browser: Browser, site: StaticServer) -> Iterator[PageSession]:
    """A fresh context + page whose entry URL is the test site (not yet navigated)."""
    page_session = flowwalk_browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())
    yield page_session
    page_session.close()


class PacedClock:
    """A check's clock that moves by the waits the check asks for and by nothing else: a read takes
    no time on it, a wait exactly what was asked (a wait for the page's next change, what it waited,
    at most its cap). Reads, rechecks, deadlines and durations are then what the stabilizer decided,
    however loaded the machine; the waits still happen, so the page's own timers run."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def paced(monkeypatch: pytest.MonkeyPatch) -> PacedClock:
    """Every check of the test (`run_check`, and `read_ahead`'s reads taken ahead for it) runs on one
    `PacedClock` unless it is given a clock: those the tests call and those a walk calls alike."""
    clock = PacedClock()
    wait, changed = PageSession.wait, Page.changed

    def paced_wait(self: PageSession, ms: float) -> None:
        clock.now += max(ms, 0) / 1000
        wait(self, ms)

    def paced_changed(self: Page, seq: object, *, gap_ms: float, cap_ms: float) -> bool | None:
        started = time.monotonic()
        try:
            return changed(self, seq, gap_ms=gap_ms, cap_ms=cap_ms)  # type: ignore[arg-type]
        finally:
            clock.now += min(time.monotonic() - started, max(cap_ms, 0) / 1000)

    monkeypatch.setattr(PageSession, "wait", paced_wait)
    monkeypatch.setattr(Page, "changed", paced_changed)
    for timed in (checks.run_check, checks.read_ahead):
        monkeypatch.setitem(timed.__kwdefaults__, "clock", clock)
    return clock
