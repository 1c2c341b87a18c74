"""What a failure report shows about a session's page: screenshots (secrets painted over), the aria
snapshot, the title, where the last click landed, and the records kept from the page's events.

`PageEvidence` is the part of `PageSession` a failure asks. Every method is best effort: it never
raises, and each call to the page has its own bound. Where clicks land: one init script
(`js/record_clicks.js`) notes, for the last trusted `pointerdown` and `click` of each document, what
the event reached (tag, id, a few classes, data-testid, the start of its text) and when. It only
listens (capture phase on `window`, passive) and never throws; nothing reads it on the passing
path. `last_click()` reads it in one bounded call.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from flowwalk.browser.errors import TimedOut, first_line, translating
from flowwalk.browser.locate import locate
from flowwalk.browser.scripts import script

if TYPE_CHECKING:
    from playwright.sync_api import Page

__all__ = ["LAST_CLICK_TIMEOUT_MS", "MASK_ATTRIBUTE", "PageEvidence", "SNAPSHOT_LIMIT", "UNMARK_SECRETS_JS"]

#: the attribute that marks an element to paint over in a screenshot (browser/capture.py's too)
MASK_ATTRIBUTE = "data-flowwalk-secret"
#: unmarks what js/mark_secrets.js marked
UNMARK_SECRETS_JS = (f"() => {{ for (const el of document.querySelectorAll('[{MASK_ATTRIBUTE}]')) "
                     f"el.removeAttribute('{MASK_ATTRIBUTE}'); }}")

#: the most a read of the click record may take
LAST_CLICK_TIMEOUT_MS = 1_000

#: aria snapshots go into failure evidence; a whole page's tree can be megabytes
SNAPSHOT_LIMIT = 20_000


class PageEvidence:
    """Failure evidence of one session (see the module docstring)."""

    playwright_page: "Page"
    _closed: bool
    console: "deque[str]"
    page_errors: "deque[str]"
    console_error_count: int
    network: "deque[dict[str, Any]]"
    blocked: list[dict[str, Any]]
    dialogs: list[dict[str, Any]]
    popups: list[dict[str, Any]]

    if TYPE_CHECKING:
        @property
        def crashed(self) -> bool: ...

    def screenshot(self, path: Path, full_page: bool = False, hide: Sequence[str] = (),
                   timeout_ms: float = 10_000) -> bool:
        """Save a PNG within `timeout_ms`. Never raises: False when it could not (`save_screenshot`
        says why)."""
        return self.save_screenshot(path, full_page, hide, timeout_ms) is None

    def save_screenshot(self, path: Path, full_page: bool = False, hide: Sequence[str] = (),
                        timeout_ms: float = 10_000) -> str | None:
        """Save a PNG within `timeout_ms`: None when it is saved, else why there is none, as a
        sentence a report can show (closed, crashed, out of time, Playwright's first line). Never raises.

        `hide` lists values (the run's secrets) that must not be in the picture: every field
        whose value holds one and every element whose own text holds one is painted over;
        `last_masked` names them afterwards (`tag#id.class`, at most 20).
        """
        self.last_masked: list[str] = []
        if self._closed:
            return "the page was closed"
        if self.crashed:
            return "the page crashed"
        page = self.playwright_page
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            with translating():
                secrets = {"secrets": [v for v in hide if v], "attr": MASK_ATTRIBUTE}
                masked = page.evaluate(script("mark_secrets"), secrets) if hide else []
                mask = [page.locator(f"[{MASK_ATTRIBUTE}]")] if masked else []
                self.last_masked = [str(m) for m in masked or ()]
                page.screenshot(path=str(path), full_page=full_page, timeout=timeout_ms, mask=mask, mask_color="#444444")
        except TimedOut:
            return (f"the {'full-page ' if full_page else ''}screenshot did not finish within its "
                    f"{timeout_ms / 1000:.1f} s: the page was still drawing (a web font or an image "
                    f"that has not arrived, or a busy main thread)")
        except Exception as exc:  # noqa: BLE001 - evidence is best effort
            return f"the screenshot failed: {first_line(exc)}"
        finally:
            if hide and not self._closed and not self.crashed:
                try:
                    self.playwright_page.evaluate(UNMARK_SECRETS_JS)
                except Exception:  # noqa: BLE001
                    pass
        return None

    def a11y_snapshot(self, selector: str | None = None, limit: int = SNAPSHOT_LIMIT, timeout_ms: float = 5_000) -> str:
        """The aria snapshot of the page (or of a selector's first match), at most `limit` characters,
        taken within `timeout_ms`. '' if none."""
        if self._closed or self.crashed:
            return ""
        try:
            if selector:
                found = locate(self.playwright_page, selector)
                if found.count == 0:
                    return ""   # evidence never waits for an element that is not there
                locator = found.locator.first
            else:
                locator = self.playwright_page.locator("body")
            text = locator.aria_snapshot(timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return ""
        if len(text) <= limit:
            return text
        cut = text.rfind("\n", 0, limit)
        cut = cut if cut > 0 else limit
        return text[:cut] + f"\n# … truncated ({len(text) - cut} more characters)"

    def title(self, timeout_ms: float = 2_000) -> str:
        """The document's title, '' when the page cannot say within `timeout_ms` (a main thread
        that never yields would hold `page.title()` for as long as it spins)."""
        if self._closed or self.crashed:
            return ""
        try:
            return str(self.playwright_page.locator(":root").evaluate("() => document.title", timeout=timeout_ms))
        except Exception:  # noqa: BLE001
            return ""

    def last_click(self, selector: str | None = None,
                   timeout_ms: float = LAST_CLICK_TIMEOUT_MS) -> dict[str, Any] | None:
        """What the last trusted `click` and `pointerdown` of the current document reached, read in
        one call of at most `timeout_ms`. Never raises: None when there is nothing to read (no record
        in this document, a page that does not answer, closed or crashed).

        Each of `click` and `pointerdown` is None or a dict: `t` (the page's Date.now() at the event),
        `tag`, `id`, `classes`, `testid` and `testid_attr` (its test id and the attribute it is in),
        `text` (at most 80 characters), `connected` (the element is still in the document) and, when `selector` is given and is CSS the page can parse, `inside`
        (the element is inside a current match of `selector`, or inside the button or link around
        one). Also `in_pointerdown` (the click reached the element that took the mouse-down, or one
        inside it; None unless both are known), `matches` (how many elements `selector` matches now,
        None without one) and `invalid_selector` (the page could not parse `selector` as CSS).
        """
        if self._closed or self.crashed:
            return None
        try:
            raw = self.playwright_page.locator(":root").evaluate(script("read_clicks"), selector or None,
                                                                 timeout=timeout_ms)
        except Exception:  # noqa: BLE001 - evidence is best effort
            return None
        return raw if isinstance(raw, dict) else None

    def evidence(self, timeout_ms: float | None = 2_000) -> dict[str, Any]:
        """What a failure report shows about the page: never raises, and asks the page (its title)
        for at most `timeout_ms`, not at all when None; everything else was recorded from events."""
        try:
            url = self.playwright_page.url
        except Exception:  # noqa: BLE001
            url = ""
        return {
            "url": url,
            "title": self.title(timeout_ms) if timeout_ms is not None else "",
            "console": list(self.console),
            "page_errors": list(self.page_errors),
            "console_error_count": self.console_error_count,
            "network": [dict(entry) for entry in self.network],
            "blocked": list(self.blocked),
            "dialogs": list(self.dialogs),
            "popups": list(self.popups),
            "crashed": self.crashed,
        }
