"""What the baseline and accessibility checks read from a page: `Captures`, a part of `Page`.

- `aria_snapshot` is `locator.aria_snapshot()`: the YAML form Playwright writes and reads;
- `aria_match` asks Playwright's own matcher (`expect(locator).to_match_aria_snapshot`), so a
  baseline is matched with Playwright's semantics exactly: partial matching (children in order,
  others may sit between), attributes only where written, `/regex/` names. It waits as Playwright
  does: it passes as soon as the page matches within `timeout_ms`;
- `screenshot` takes a PNG of the page's viewport (or the whole page, or one element) with CSS
  animations and transitions finished, the text caret hidden, one CSS pixel per image pixel
  whatever the device scale factor, and the `mask` selectors' boxes painted over in one colour;
- `axe` runs axe-core (browser/axe.py: the vendored script, the rule selection) in the page.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Sequence

from playwright.sync_api import expect

from flowwalk.browser.axe import TARGETS_MAX, AxeContextError, rule_selection
from flowwalk.browser.errors import PageError, first_line
from flowwalk.browser.locate import locate
from flowwalk.browser.page_evidence import MASK_ATTRIBUTE, UNMARK_SECRETS_JS
from flowwalk.browser.records import AriaRead
from flowwalk.browser.scripts import script
from flowwalk.vendor import axe_script

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator
    from playwright.sync_api import Page as PlaywrightPage

__all__ = ["Captures", "MASK_COLOR"]

#: the colour masks are painted in (Playwright's default pink, so a mask is plain to see in a diff)
MASK_COLOR = "#FF00FF"
_HAS_AXE = "() => typeof window.axe === 'object' && typeof window.axe.run === 'function'"


class Captures:
    """Aria snapshots, screenshots and axe-core's violations (a part of `browser.page.Page`)."""

    _where: "PlaywrightPage | Frame"

    if TYPE_CHECKING:
        def _translating(self, selector: str | None = None) -> AbstractContextManager[None]: ...

    def _looked_at(self, selector: str | None) -> "Locator":
        """The element a check looks at: the selector's first match (pipe alternatives and all), or
        the body. A selector matching nothing gives its first alternative's locator."""
        if not selector:
            return self._where.locator("body")
        return locate(self._where, selector).locator.first

    def aria_snapshot(self, selector: str | None, *, timeout_ms: float) -> str:
        """The aria snapshot (YAML) of the element or the body."""
        with self._translating(selector):
            return str(self._looked_at(selector).aria_snapshot(timeout=max(timeout_ms, 1)))

    def aria_match(self, selector: str | None, template: str, *, timeout_ms: float) -> AriaRead:
        """Does the element match `template` within `timeout_ms` (Playwright's toMatchAriaSnapshot)?"""
        try:
            with self._translating(selector):
                expect(self._looked_at(selector)).to_match_aria_snapshot(template, timeout=max(timeout_ms, 1))
        except AssertionError as exc:
            # Playwright answers a template it cannot parse with the parser's message after "Error:"
            text = str(exc)
            if "Actual value: None" in text and "\nError: " in text:
                detail = text.split("\nError: ", 1)[1].split("\nCall log:", 1)[0].strip()
                return AriaRead(False, detail or first_line(exc))
            return AriaRead(False)
        return AriaRead(True)

    def screenshot(self, selector: str | None, *, mask: Sequence[str] = (), full_page: bool = False,
                   hide: Sequence[str] = (), timeout_ms: float) -> bytes:
        """A PNG of the viewport, the whole page, or the selector's first match (`TimedOut` when the
        element never shows).

        `hide` lists the run's secret values: the fields and texts holding one are masked too (as the
        failure screenshots mask them), so no secret reaches a baseline or a report."""
        page = self._where
        secrets = [v for v in hide if v]
        masks = [page.locator(m) for m in mask]
        with self._translating():
            if secrets and page.evaluate(script("mark_secrets"), {"secrets": secrets, "attr": MASK_ATTRIBUTE}):
                masks.append(page.locator(f"[{MASK_ATTRIBUTE}]"))
        options: dict[str, Any] = {
            "animations": "disabled", "caret": "hide", "scale": "css", "type": "png",
            "mask": masks, "mask_color": MASK_COLOR, "timeout": max(timeout_ms, 1),
        }
        try:
            with self._translating(selector):
                if selector:
                    return bytes(self._looked_at(selector).screenshot(**options))
                return bytes(page.screenshot(full_page=full_page, **options))  # type: ignore[union-attr]
        finally:
            if secrets:
                try:
                    page.evaluate(UNMARK_SECRETS_JS)
                except Exception:  # noqa: BLE001 - a page that went away keeps no marks
                    pass

    def axe(self, *, include: str | None, exclude: Sequence[str], rules: Sequence[str] = (),
            skip: Sequence[str] = ()) -> list[dict[str, Any]]:
        """axe-core's violations on the page (or within `include`, a CSS selector), `exclude` left out:
        `id`, `impact`, `help`, `helpUrl`, `count` and the first `targets` (axe's selectors). axe-core
        is evaluated into the document once (through the DevTools protocol, so a Content Security
        Policy does not stop it). Raises `AxeContextError` when `include` matches nothing."""
        with self._translating():
            if not self._where.evaluate(_HAS_AXE):
                self._where.evaluate(axe_script())
        options = rule_selection(rules, skip)
        if "runOnly" in options and not options["runOnly"]["values"]:
            return []
        try:
            with self._translating(include):
                found = self._where.evaluate(script("axe_run"), {"include": include, "exclude": list(exclude),
                                                                 "options": options, "max": TARGETS_MAX})
        except PageError as exc:
            # axe's own error for an empty context comes back as the page's error
            if "No elements found for include" in str(exc.__cause__ or exc):
                raise AxeContextError(include or "") from exc
            raise
        return list(found)
