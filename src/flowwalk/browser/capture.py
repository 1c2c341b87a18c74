"""What the baseline checks read from the page: aria snapshots, matched by Playwright, and
screenshots taken the way Playwright Test's toHaveScreenshot takes them.

- `aria_snapshot` is `locator.aria_snapshot()`: the YAML form Playwright writes and reads;
- `aria_match` asks Playwright's own matcher (`expect(locator).to_match_aria_snapshot`), so a
  baseline is matched with Playwright's semantics exactly: partial matching (children in order,
  others may sit between), attributes only where written, `/regex/` names. It waits as Playwright
  does: it passes as soon as the page matches within `timeout_ms`;
- `screenshot` takes a PNG of the page's viewport (or the whole page, or one element) with CSS
  animations and transitions finished, the text caret hidden, one CSS pixel per image pixel
  whatever the device scale factor, and the `mask` selectors' boxes painted over in one colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from playwright.sync_api import expect

from flowwalk.browser.errors import PlaywrightError, first_line, translating
from flowwalk.browser.locate import locate
from flowwalk.browser.page_evidence import MASK_ATTRIBUTE, UNMARK_SECRETS_JS
from flowwalk.browser.scripts import script

__all__ = ["AriaRead", "MASK_COLOR", "aria_match", "aria_snapshot", "element_count", "screenshot"]

#: the colour masks are painted in (Playwright's default pink, so a mask is plain to see in a diff)
MASK_COLOR = "#FF00FF"


@dataclass(frozen=True)
class AriaRead:
    """One answer of Playwright's matcher: did the element match, and if the template does not
    parse, Playwright's own error (line and column in the template)."""

    matches: bool
    template_error: str | None = None


def _element(page: Any, selector: str | None) -> Any:
    """The locator of the element a check looks at: the selector's first match (pipe alternatives
    and all), or the body. A selector matching nothing gives its first alternative's locator."""
    if not selector:
        return page.locator("body")
    return locate(page, selector).locator.first


def element_count(page: Any, selector: str) -> int:
    with translating(selector):
        return locate(page, selector).count


def aria_snapshot(page: Any, selector: str | None, *, timeout_ms: float) -> str:
    """The aria snapshot (YAML) of the element or the body. Raises browser.errors' PageError kinds."""
    with translating(selector):
        return str(_element(page, selector).aria_snapshot(timeout=max(timeout_ms, 1)))


def aria_match(page: Any, selector: str | None, template: str, *, timeout_ms: float) -> AriaRead:
    """Does the element match `template` within `timeout_ms` (Playwright's toMatchAriaSnapshot)?"""
    try:
        with translating(selector):
            expect(_element(page, selector)).to_match_aria_snapshot(template, timeout=max(timeout_ms, 1))
    except AssertionError as exc:
        # Playwright answers a template it cannot parse with the parser's message after "Error:"
        text = str(exc)
        if "Actual value: None" in text and "\nError: " in text:
            detail = text.split("\nError: ", 1)[1].split("\nCall log:", 1)[0].strip()
            return AriaRead(False, detail or first_line(exc))
        return AriaRead(False)
    return AriaRead(True)


def screenshot(page: Any, selector: str | None, *, mask: Sequence[str] = (), full_page: bool = False,
               hide: Sequence[str] = (), timeout_ms: float) -> bytes:
    """A PNG of the viewport, the whole page, or the selector's first match. Raises browser.errors'
    PageError kinds (TimedOut when the element never shows).

    `hide` lists the run's secret values: the fields and texts holding one are masked too (as the
    failure screenshots mask them), so no secret reaches a baseline or a report."""
    secrets = [v for v in hide if v]
    masks = [page.locator(m) for m in mask]
    with translating():
        if secrets and page.evaluate(script("mark_secrets"), {"secrets": secrets, "attr": MASK_ATTRIBUTE}):
            masks.append(page.locator(f"[{MASK_ATTRIBUTE}]"))
    options: dict[str, Any] = {
        "animations": "disabled", "caret": "hide", "scale": "css", "type": "png",
        "mask": masks, "mask_color": MASK_COLOR, "timeout": max(timeout_ms, 1),
    }
    try:
        with translating(selector):
            if selector:
                return bytes(_element(page, selector).screenshot(**options))
            return bytes(page.screenshot(full_page=full_page, **options))
    finally:
        if secrets:
            try:
                page.evaluate(UNMARK_SECRETS_JS)
            except PlaywrightError:
                pass
