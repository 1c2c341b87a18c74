"""What the walker does to elements and reads off them: every Playwright call it needs on a
locator or a page, so that walk/ holds those objects only to hand them back here.

- `perform`: one act action (click ... scroll) on an element, within a timeout;
- `dismiss_visible`: click the visible matches of interrupt selectors, never waiting for one;
- `wait_for_first` / `first_visible`: whether the first match of a `Located` is there (visible);
- `read_field`: one value of the page or of an element (emit fields, extract);
- `element` / `first_of` / `page_url`: an element to act on, and the page's URL without raising.

Errors are Playwright's own, for the walker's boundary to translate (walk/boundary.py); only a
selector that does not parse becomes `InvalidSelector` here, as `locate` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from flowwalk.browser.errors import InvalidSelector, PageError, PlaywrightError, is_invalid_selector, is_timeout
from flowwalk.browser.locate import Located
from flowwalk.browser.probe import PageReader

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

__all__ = ["ACTIONS", "ELEMENT_SOURCES", "PAGE_SOURCES", "dismiss_visible", "element", "first_of",
           "first_visible", "page_url", "perform", "read_field", "wait_for_first"]

#: the act actions `perform` knows (the loaders refuse others)
ACTIONS = ("click", "dblclick", "fill", "press", "hover", "focus", "check", "uncheck", "select", "upload", "scroll")
#: what `read_field` reads off the page itself, and off an element
PAGE_SOURCES = ("url", "title", "js")
ELEMENT_SOURCES = ("text", "attr", "html", "value", "class", "is_visible", "is_enabled", "is_checked", "js")

#: the Locator method of each action: without a value, and with one
_PLAIN = {"click": "click", "dblclick": "dblclick", "hover": "hover", "focus": "focus", "check": "check",
          "uncheck": "uncheck"}
_VALUED = {"fill": "fill", "press": "press", "select": "select_option", "upload": "set_input_files"}
_SCROLL_BY = ("(el, dy) => { const t = (el === document.body || el === document.documentElement)"
              " ? window : el; t.scrollBy(0, dy); }")


def perform(target: "Locator", action: str, value: str | None, timeout_ms: int) -> None:
    """Do `action` on the element `target` within `timeout_ms` (at least 1: 0 means no timeout).

    `value` is what fill types, press presses, select picks, upload sends (a file path the
    caller checked) and scroll adds (a pixel offset, after scrolling the element into view).
    """
    t = max(int(timeout_ms), 1)
    if action in _PLAIN:
        getattr(target, _PLAIN[action])(timeout=t)
    elif action in _VALUED:
        getattr(target, _VALUED[action])(value or "", timeout=t)
    elif action == "scroll":
        target.scroll_into_view_if_needed(timeout=t)
        if value and value.strip().lstrip("-").isdigit():
            target.evaluate(_SCROLL_BY, int(value))
    else:
        raise ValueError(f"unknown action '{action}'")


def dismiss_visible(page: "Page", selectors: Sequence[str], *, max_matches: int, click_ms: int,
                    maybe: Sequence[bool | None] | None = None) -> int:
    """Click every VISIBLE match (at most `max_matches` per selector) of each selector, each click
    within `click_ms`; how many were clicked. Never waits for one and never raises: a bad
    selector, a navigating page or an element that will not take the click dismisses nothing.
    `maybe`: `PageReader.may_show` of the selectors, when a read just took it (`probe.gated`)."""
    if not selectors:
        return 0
    if maybe is None or len(maybe) != len(selectors):
        try:
            # one read for every selector: the common case (nothing showing) costs no round trip
            # per selector and match
            maybe = PageReader(page).may_show(selectors)
        except (PageError, InvalidSelector):
            maybe = [None] * len(selectors)
    clicked = 0
    for selector, shown in zip(selectors, maybe):
        if shown is False:
            continue
        try:
            matches = page.locator(selector)
            n = matches.count()
        except Exception:  # noqa: BLE001 - a bad selector or a navigating page dismisses nothing
            continue
        for i in range(min(n, max_matches)):
            try:
                item = matches.nth(i)
                if item.is_visible():
                    item.click(timeout=click_ms)
                    clicked += 1
            except Exception:  # noqa: BLE001 - it vanished or would not take the click: fine
                continue
    return clicked


def first_visible(located: Located) -> bool:
    """Is the first match of `located` visible now?"""
    return bool(located.locator.first.is_visible())


def wait_for_first(located: Located, *, visible: bool, timeout_ms: int) -> bool:
    """Wait (in the page, one round trip) until the first match of `located` is attached, or
    visible; False when `timeout_ms` passed first. Raises InvalidSelector for a bad selector."""
    try:
        located.locator.first.wait_for(state="visible" if visible else "attached", timeout=max(timeout_ms, 1))
    except PlaywrightError as exc:
        if is_timeout(exc):
            return False
        if is_invalid_selector(exc):
            raise InvalidSelector(located.used, str(exc).splitlines()[0]) from exc
        raise
    return True


def first_of(located: Located) -> "Locator":
    """The element an action on `located` works on: its first match in document order."""
    return located.locator.first


def element(page: "Page", selector: str) -> "Locator":
    """The first match of a plain Playwright `selector` (no pipe fallback, no scope)."""
    return page.locator(selector).first


def page_url(page: "Page") -> str:
    """The page's URL, or "" when the page cannot say (closed, crashed)."""
    try:
        return str(page.url)
    except Exception:  # noqa: BLE001 - a dead page has no URL
        return ""


def read_field(page: "Page", located: Located | None, source: str, *, attr: str | None = None,
               expr: str | None = None, timeout_ms: int = 1000) -> Any:
    """One value: of the page when `located` is None (`PAGE_SOURCES`), else of the first match of
    `located` (`ELEMENT_SOURCES`; `text` is stripped). Raises ValueError for another source."""
    if located is None:
        if source == "url":
            return page.url
        if source == "title":
            return page.title()
        if source == "js":
            return page.evaluate(expr or "undefined")
        raise ValueError(f"unknown page source '{source}'")
    el = located.locator.first
    t = timeout_ms
    if source == "text":
        return el.inner_text(timeout=t).strip()
    if source == "attr":
        return el.get_attribute(attr or "", timeout=t)
    if source == "html":
        return el.inner_html(timeout=t)
    if source == "value":
        return el.input_value(timeout=t)
    if source == "class":
        return el.get_attribute("class", timeout=t)
    if source == "is_visible":
        return el.is_visible()
    if source == "is_enabled":
        return el.is_enabled(timeout=t)
    if source == "is_checked":
        return el.is_checked(timeout=t)
    if source == "js":
        return el.evaluate(expr or "el => undefined")
    raise ValueError(f"unknown element source '{source}'")
