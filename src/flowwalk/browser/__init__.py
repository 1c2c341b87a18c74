"""The browser layer: the ONLY package that imports Playwright.

`launch.Browser` starts Debian's Chromium once per worker and opens a `session.PageSession`
(fresh context + page) per scenario attempt; `network` holds the analytics vendor table, the host
allowlist and offline routing; `locate` resolves pipe-fallback and scoped selectors; `errors`
translates Playwright's failures into flowwalk's (`BrowserCrashed`, `NavigationBlocked`; for page
reads `PageGone`, `TimedOut`, `PageUnreadable`, `InvalidSelector`); `probe` is the page-reading
boundary: every read of a page, typed, and the one prelude of the scripts it injects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowwalk import lazy

if TYPE_CHECKING:
    from flowwalk.browser.errors import (
        BrowserCrashed,
        InvalidSelector,
        NavigationBlocked,
        PageError,
        PageGone,
        PageUnreadable,
        PlaywrightError,
        PlaywrightTimeoutError,
        TimedOut,
        first_line,
        is_closed_error,
        is_invalid_selector,
        is_timeout,
    )
    from flowwalk.browser.launch import Browser
    from flowwalk.browser.locate import Located, scoped, split_pipe
    from flowwalk.browser.probe import PageReader, Reader
    from flowwalk.browser.network import Beacon, VENDORS, beacon_matches, matching_beacons, normalize_vendor, vendor_names
    from flowwalk.browser.session import PageSession

__all__ = [
    "Beacon", "Browser", "BrowserCrashed", "InvalidSelector", "Located", "NavigationBlocked", "PageError",
    "PageGone", "PageReader", "PageSession", "PageUnreadable", "PlaywrightError", "PlaywrightTimeoutError",
    "Reader", "TimedOut", "VENDORS", "beacon_matches", "first_line", "is_closed_error",
    "is_invalid_selector", "is_timeout", "matching_beacons", "normalize_vendor", "scoped",
    "split_pipe", "vendor_names",
]

#: nothing is imported until a name is used: `driver` must load before Playwright (browser/driver.py)
__getattr__ = lazy.exports(__name__, {
    "errors": ("BrowserCrashed", "InvalidSelector", "NavigationBlocked", "PageError", "PageGone", "PageUnreadable",
               "PlaywrightError", "PlaywrightTimeoutError", "TimedOut", "first_line", "is_closed_error",
               "is_invalid_selector", "is_timeout"),
    "launch": ("Browser",),
    # `locate` the function is imported from browser.locate itself: the package attribute of that
    # name is the submodule once anything imported it
    "locate": ("Located", "scoped", "split_pipe"),
    "probe": ("PageReader", "Reader"),
    "network": ("Beacon", "VENDORS", "beacon_matches", "matching_beacons", "normalize_vendor", "vendor_names"),
    "session": ("PageSession",),
})
