"""The browser layer: the ONLY package that imports Playwright, and the typed page API over it.

`launch.Browser` starts Debian's Chromium once per worker and opens a `session.PageSession`
(fresh context + page) per scenario attempt. Its `page` (`page.Page`) is the page API: every read
and action, each returning a record of `records` (or a plain value), each translating Playwright's
errors once (`browser.errors.translating`) into flowwalk's: `BrowserCrashed`, `NavigationBlocked`,
`PageGone`, `TimedOut`, `PageUnreadable` (all three `PageError`) and `InvalidSelector`. `locate`
holds the pipe-fallback and scope syntax of selectors, `network` the analytics vendors, the host
allowlist and offline routing, `scripts` the JavaScript run in pages (`js/`).
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
        TimedOut,
    )
    from flowwalk.browser.launch import Browser
    from flowwalk.browser.locate import scoped, split_pipe
    from flowwalk.browser.network import Beacon, VENDORS, beacon_matches, matching_beacons, normalize_vendor, vendor_names
    from flowwalk.browser.page import Page
    from flowwalk.browser.records import Element, Match, Reader
    from flowwalk.browser.session import PageSession

__all__ = [
    "Beacon", "Browser", "BrowserCrashed", "Element", "InvalidSelector", "Match", "NavigationBlocked", "Page",
    "PageError", "PageGone", "PageSession", "PageUnreadable", "Reader", "TimedOut", "VENDORS", "beacon_matches",
    "matching_beacons", "normalize_vendor", "scoped", "split_pipe", "vendor_names",
]

#: nothing is imported until a name is used: `driver` must load before Playwright (browser/driver.py)
__getattr__ = lazy.exports(__name__, {
    "errors": ("BrowserCrashed", "InvalidSelector", "NavigationBlocked", "PageError", "PageGone", "PageUnreadable",
               "TimedOut"),
    "launch": ("Browser",),
    "locate": ("scoped", "split_pipe"),
    "page": ("Page",),
    "records": ("Element", "Match", "Reader"),
    "network": ("Beacon", "VENDORS", "beacon_matches", "matching_beacons", "normalize_vendor", "vendor_names"),
    "session": ("PageSession",),
})
