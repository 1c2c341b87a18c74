"""Integration fixtures: one flowwalk `Browser` per test session, a fresh `PageSession` per test.

The browser is built on the session's Playwright instance (two sync_playwright instances cannot
run in one thread) and the session opens on the loopback test site, so every request a test
makes stays on 127.0.0.1.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from flowwalk.browser import Browser, PageSession
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
