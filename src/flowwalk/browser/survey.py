"""What a page offers, read in one call: the raw material `discover` classifies and writes specs from.

`survey_page` returns plain data (no element handles): the title, landmarks, headings, links,
buttons, forms with their fields and labels, lists and tables with their counts, dialogs and
banners. Every element comes with its names (test id, id, label, role, text) and the selector
candidates `discover.selectors` chooses from, each with how many elements it matches now; only a
`text=` candidate cannot be counted by the page's CSS engine, so `count_matches` counts it with
Playwright. Only elements a person can see and use are listed (`fw.offered` of browser/probe.py:
visible, and not inside `aria-hidden="true"` or `inert`): what a person can use is what a spec can use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flowwalk.browser.errors import PlaywrightError
from flowwalk.browser.scripts import script

if TYPE_CHECKING:
    from flowwalk.browser.session import PageSession

__all__ = ["count_matches", "messages", "page_text", "survey_page"]

#: the most elements of one kind a survey lists (a page of 5,000 links is summarised, not listed)
SURVEY_LIMIT = 150

def survey_page(session: "PageSession", timeout_ms: float = 10_000) -> dict[str, Any]:
    """The page's survey (see the module docstring); raises Playwright's error when the page cannot answer."""
    with session.guard():
        result = session.page.locator(":root").evaluate(script("survey"), SURVEY_LIMIT, timeout=timeout_ms)
    return result if isinstance(result, dict) else {}


def count_matches(session: "PageSession", selector: str) -> int:
    """How many elements `selector` (CSS or `text=`) matches now; -1 when it cannot be evaluated."""
    from flowwalk.browser.locate import locate

    try:
        return int(locate(session.page, selector).count)
    except (PlaywrightError, ValueError, Exception):  # noqa: BLE001 - an odd selector is just not usable
        return -1


def page_text(session: "PageSession", timeout_ms: float = 5_000) -> str:
    """The visible text of the page body (for spotting what a click or a submit changed)."""
    try:
        with session.guard():
            return str(session.page.locator("body").inner_text(timeout=timeout_ms))
    except PlaywrightError:
        return ""


def messages(session: "PageSession", timeout_ms: float = 5_000) -> list[str]:
    """The visible texts of alerts, live regions and error messages on the page now."""
    try:
        with session.guard():
            found = session.page.locator(":root").evaluate(script("messages"), timeout=timeout_ms)
    except PlaywrightError:
        return []
    return [str(t) for t in found] if isinstance(found, list) else []
