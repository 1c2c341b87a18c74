"""Errors of the browser layer, and the translation of Playwright's errors into them.

Only `flowwalk.browser` imports Playwright. The walker still has to tell a timed-out action from
a rejected one and a dead browser from a broken page, so this module gives it predicates
(`is_timeout`, `is_invalid_selector`) and the two exceptions the browser layer raises on its own:
`BrowserCrashed` (the browser process died or the page's renderer crashed: an infrastructure
failure, never the site's fault) and `NavigationBlocked` (a top-level navigation left the
scenario's allowlist: `spec_step_unresolvable` per flow-spec v1).

Page reads (browser/probe.py) go further: every Playwright error they meet is translated once, by
`translated`, into flowwalk's own `PageError`s, so no code outside `flowwalk.browser` needs to
catch Playwright's:

- `PageGone`: the page, its context or the browser is closed. Whether that is a crash or the
  site's own `window.close()` is the session's answer (`PageSession.translate`), not the read's;
- `TimedOut`: the read ran out of time;
- `PageUnreadable`: anything else the page could not answer (it was navigating, its execution
  context was destroyed, a frame detached); `navigating` says whether it was a navigation;
- `InvalidSelector`: a selector that does not parse (retrying cannot help).

Each keeps Playwright's first message line as its text (`first_line` of it is the same as of the
original), so messages built from it read as before.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Iterator

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

__all__ = [
    "BrowserCrashed",
    "InvalidSelector",
    "NavigationBlocked",
    "PageError",
    "PageGone",
    "PageUnreadable",
    "PlaywrightError",
    "PlaywrightTimeoutError",
    "TimedOut",
    "first_line",
    "is_closed_error",
    "is_invalid_selector",
    "is_timeout",
    "translated",
    "translating",
]


class BrowserCrashed(Exception):
    """The browser process died or disconnected, or the page's renderer crashed, mid-scenario."""


class NavigationBlocked(Exception):
    """A top-level navigation to a host outside the scenario's allowlist was stopped."""

    def __init__(self, host: str, url: str, how: str = "navigation"):
        self.host = host
        self.url = url
        #: what tried to leave: "goto", "navigation" (a link, a form, a script) or "redirect"
        self.how = how
        super().__init__(
            f"{how} to '{url}' blocked: host '{host}' is outside the allowlist "
            f"(the entry URL's host and its subdomains, plus allowed_hosts)"
        )


class InvalidSelector(ValueError):
    """Playwright could not parse a selector; retrying cannot help."""

    def __init__(self, selector: str, detail: str):
        self.selector = selector
        self.detail = detail
        super().__init__(f"invalid selector '{selector}': {detail}")


class PageError(Exception):
    """The page could not answer a read (see the module docstring for the kinds)."""

    def __init__(self, detail: str, *, navigating: bool = False):
        #: Playwright's first message line
        self.detail = detail
        #: the page was navigating (its execution context was destroyed, a frame detached)
        self.navigating = navigating
        super().__init__(detail)


class PageGone(PageError):
    """The page, its context or the browser closed under the read."""


class PageUnreadable(PageError):
    """The page could not answer this time: navigating, a destroyed context, a script error."""


class TimedOut(PageError):
    """The read ran out of time."""


# Messages Playwright uses when the page, its context or the whole browser went away.
_CLOSED = re.compile(
    r"Target page, context or browser has been closed|Browser has been closed|Target closed|"
    r"browser has disconnected|Browser closed|Target crashed|Page crashed|Connection closed",
    re.IGNORECASE,
)
# Messages of a selector that does not parse (CSS syntax, unknown engine, bad text= quoting).
_BAD_SELECTOR = re.compile(
    r"while parsing (?:css )?selector|is not a valid selector|Unknown engine|Unexpected token|"
    r"Failed to parse selector|Unsupported token|Unmatched",
    re.IGNORECASE,
)


# Messages of a read that met a navigation (the page will answer again once it has loaded).
_NAVIGATING = re.compile(r"Execution context was destroyed|navigat|Cannot find context|frame was detached|"
                         r"Frame has been detached|context .*destroyed", re.IGNORECASE)


def first_line(exc: BaseException) -> str:
    """The first line of an error message: Playwright appends call logs people do not need."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def is_timeout(exc: BaseException) -> bool:
    """True for Playwright's TimeoutError (an action or a navigation ran out of time)."""
    return isinstance(exc, PlaywrightTimeoutError)


def is_closed_error(exc: BaseException) -> bool:
    """True when the error says the page, its context or the browser is gone."""
    if isinstance(exc, PageGone):
        return True
    return isinstance(exc, PlaywrightError) and bool(_CLOSED.search(str(exc)))


def is_invalid_selector(exc: BaseException) -> bool:
    """True when Playwright refused a selector because it does not parse."""
    return isinstance(exc, PlaywrightError) and not is_timeout(exc) and bool(_BAD_SELECTOR.search(str(exc)))


def translated(exc: PlaywrightError, selector: str | None = None) -> PageError | InvalidSelector:
    """flowwalk's error for a Playwright error a read met (see the module docstring).

    `selector`, when the read was of one, makes a selector that does not parse `InvalidSelector`.
    """
    detail = first_line(exc)
    navigating = bool(_NAVIGATING.search(str(exc)))
    if is_timeout(exc):
        return TimedOut(detail, navigating=navigating)
    if _CLOSED.search(str(exc)):
        return PageGone(detail, navigating=navigating)
    if selector is not None and is_invalid_selector(exc):
        return InvalidSelector(selector, detail)
    return PageUnreadable(detail, navigating=navigating)


@contextmanager
def translating(selector: str | None = None) -> Iterator[None]:
    """Inside: a Playwright error leaves as `translated(exc, selector)`, with the original as its cause."""
    try:
        yield
    except PlaywrightError as exc:
        raise translated(exc, selector) from exc
