"""Errors of the browser layer, and the one translation of Playwright's errors into them.

Only `flowwalk.browser` imports Playwright, and every Playwright error it meets leaves it translated
once, by `translating` (httpx's `map_exceptions`): the page API (browser/page.py) and the session
(browser/session.py) run every call to Playwright inside it. What comes out:

- `BrowserCrashed`: the browser process died or disconnected, or the page's renderer crashed (an
  infrastructure failure, never the site's fault). Whether an error means that is the session's
  answer (`PageSession.crashed_by`: a page the site closed itself with `window.close()` is not a
  crash), given to `translating` as `crashed`;
- `PageGone`: the page, its context or the browser is closed (and that was no crash);
- `TimedOut`: the call ran out of time;
- `PageUnreadable`: anything else the page could not do or answer (it was navigating, its execution
  context was destroyed, a frame detached, an element would not take the action); `navigating`
  says whether a navigation was the cause;
- `InvalidSelector`: a selector that does not parse (retrying cannot help).

The session also raises `NavigationBlocked` (a top-level navigation left the scenario's allowlist:
`spec_step_unresolvable` per flow-spec v1; so did a popup, or a frame a step was to run in),
`NotAFrame` (a frame block's selector matched something else) and `FrameNotShown` (the iframe shows
Chromium's error page, not its document). A `PageError` keeps Playwright's first message line as
its text and the name of Playwright's error as `origin`, so a message built from it reads as one
built from Playwright's error did; from the call log after that line it keeps `covered_by`, the
element that took an action's pointer events (an overlay over the element).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Callable, Iterator

# Playwright's own errors: the browser layer's modules catch them, nothing else sees them
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

# what a read or an action raises, declared with the page API's records (free of Playwright, so
# heal/ can judge a page through `Reader` and catch them)
from flowwalk.browser.records import InvalidSelector, PageError, PageGone, PageUnreadable, TimedOut

__all__ = ["BrowserCrashed", "FrameNotShown", "InvalidSelector", "NavigationBlocked", "NotAFrame", "PageError",
           "PageGone", "PageUnreadable", "TimedOut", "first_line", "translating"]


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


class NotAFrame(Exception):
    """A frame block's selector matched an element that is not an iframe (or a frame, an object)."""

    def __init__(self, selector: str, tag: str):
        self.selector = selector
        self.tag = tag
        super().__init__(f"'{selector}' matches a <{tag}>, not an iframe")


class FrameNotShown(Exception):
    """A frame block's iframe shows Chromium's error page (chrome-error://) instead of `url`:
    Chromium refused to show it in a frame (`refusal`: what its answer said, `X-Frame-Options:
    DENY`), or its request failed (`failure`: Chromium's net error), as the session recorded."""

    def __init__(self, selector: str, url: str, failure: str | None, refusal: str | None):
        self.selector = selector
        self.url = url
        self.failure = failure
        self.refusal = refusal
        super().__init__(f"the frame '{selector}' does not show '{url}'")


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


# The call log's line of an action whose target another element covers (the last one is kept):
# "- <div id="cover">Cookies</div> intercepts pointer events", or "... from <iframe> subtree intercepts ..."
_INTERCEPTS = re.compile(r"^\s*- (<.+?) intercepts pointer events\s*$", re.MULTILINE)
#: characters kept of the covering element's description
_COVER_MAX = 300


def first_line(exc: BaseException) -> str:
    """The first line of an error message: Playwright appends call logs people do not need."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def closed(exc: BaseException) -> bool:
    """Does the error say the page, its context or the browser is gone?"""
    return isinstance(exc, PageGone) or (isinstance(exc, PlaywrightError) and bool(_CLOSED.search(str(exc))))


def unparsed(exc: BaseException) -> bool:
    """Is it Playwright refusing a selector that does not parse?"""
    return isinstance(exc, PlaywrightError) and not isinstance(exc, PlaywrightTimeoutError) \
        and bool(_BAD_SELECTOR.search(str(exc)))


def translated(exc: PlaywrightError, selector: str | None = None) -> PageError | InvalidSelector:
    """flowwalk's error for a Playwright error that was no crash (see the module docstring).

    `selector`, when the call was about one, makes a selector that does not parse `InvalidSelector`.
    """
    detail = first_line(exc)
    navigating = bool(_NAVIGATING.search(str(exc)))
    origin = type(exc).__name__
    if isinstance(exc, PlaywrightTimeoutError):
        covers = _INTERCEPTS.findall(str(exc))
        covered_by = covers[-1][:_COVER_MAX] if covers else None
        return TimedOut(detail, navigating=navigating, origin=origin, covered_by=covered_by)
    if _CLOSED.search(str(exc)):
        return PageGone(detail, navigating=navigating, origin=origin)
    if selector is not None and unparsed(exc):
        return InvalidSelector(selector, detail)
    return PageUnreadable(detail, navigating=navigating, origin=origin)


@contextmanager
def translating(selector: str | None = None, *,
                crashed: Callable[[BaseException], bool] | None = None) -> Iterator[None]:
    """Inside: a Playwright error leaves as `BrowserCrashed` when `crashed(exc)` says the browser or
    the renderer is gone, else as `translated(exc, selector)`; the original is the cause."""
    try:
        yield
    except PlaywrightError as exc:
        if crashed is not None and crashed(exc):
            raise BrowserCrashed(f"the browser or page crashed: {first_line(exc)}") from exc
        raise translated(exc, selector) from exc
