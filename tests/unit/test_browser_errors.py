"""The one translation of Playwright's errors (browser/errors.py `translating`), without a browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Error, TimeoutError

from flowwalk.browser.errors import (BrowserCrashed, InvalidSelector, PageError, PageGone, PageUnreadable, TimedOut,
                                     translating)


def left(exc: BaseException, selector: str | None = None, crashed: bool = False) -> BaseException:
    """What `exc` raised inside `translating` leaves as."""
    with pytest.raises(Exception) as caught:
        with translating(selector, crashed=lambda _: crashed):
            raise exc
    assert caught.value.__cause__ is exc
    return caught.value


def test_each_kind_of_playwright_error_becomes_flowwalks_own() -> None:
    assert isinstance(left(Error("Target page, context or browser has been closed")), PageGone)
    assert isinstance(left(TimeoutError("Timeout 30000ms exceeded.")), TimedOut)
    moved = left(Error("Execution context was destroyed, most likely because of a navigation"))
    assert isinstance(moved, PageUnreadable) and moved.navigating
    assert str(moved) == "Execution context was destroyed, most likely because of a navigation"
    bad = left(Error("Unexpected token \"[\" while parsing css selector \"a[\""), "a[")
    assert isinstance(bad, InvalidSelector) and bad.selector == "a["
    # a selector only when the call was about one
    assert isinstance(left(Error("Unexpected token \"[\" while parsing css selector \"a[\"")), PageUnreadable)


def test_the_session_says_which_errors_are_a_crash() -> None:
    crash = left(Error("Target page, context or browser has been closed"), crashed=True)
    assert isinstance(crash, BrowserCrashed) and not isinstance(crash, PageError)
    assert str(crash) == "the browser or page crashed: Target page, context or browser has been closed"


def test_an_error_keeps_playwrights_first_line_and_name() -> None:
    timed_out = left(TimeoutError("Locator.click: Timeout 500ms exceeded.\nCall log:\n  - waiting for ..."))
    assert isinstance(timed_out, TimedOut)
    assert (str(timed_out), timed_out.origin) == ("Locator.click: Timeout 500ms exceeded.", "TimeoutError")
    unreadable = left(Error("Element is not attached to the DOM"))
    assert isinstance(unreadable, PageError) and unreadable.origin == "Error"


def test_flowwalks_own_errors_pass_through() -> None:
    with pytest.raises(ValueError):
        with translating(crashed=lambda _: True):
            raise ValueError("not Playwright's")


def test_playwrights_errors_are_no_name_of_the_browser_package() -> None:
    import flowwalk.browser as browser

    for name in ("PlaywrightError", "PlaywrightTimeoutError", "is_timeout", "is_closed_error", "is_invalid_selector"):
        assert name not in browser.__all__
        with pytest.raises(AttributeError):
            getattr(browser, name)
