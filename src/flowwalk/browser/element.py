"""What the page API does to elements, and the one value it reads off one: `Acts`, a part of `Page`.

- `act`: one act action (click ... scroll) on an element, within a timeout;
- `type_keys`, `drag`, `dispatch`, `blur`: typing key by key, drag and drop, an event dispatched on
  it, the focus moved away from it;
- `dismiss`: click the visible matches of interrupt selectors, never waiting for one;
- `wait_for` / `is_visible`: whether an element is there (visible), waited for in the page or now;
- `value`: one value of the page or of an element (emit fields, extract).

An element is a `records.Element` (the first match of one selector), found by `Page.match`.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Sequence

from flowwalk.browser.errors import TimedOut
from flowwalk.browser.records import Element
from flowwalk.browser.scripts import script

if TYPE_CHECKING:
    from playwright.sync_api import Frame, Locator
    from playwright.sync_api import Page as PlaywrightPage

__all__ = ["ACTIONS", "Acts", "ELEMENT_SOURCES", "PAGE_SOURCES"]

#: the act actions `act` knows (the loaders refuse others)
ACTIONS = ("click", "dblclick", "fill", "press", "hover", "focus", "check", "uncheck", "select", "upload", "scroll")
#: what `value` reads off the page itself, and off an element
PAGE_SOURCES = ("url", "title", "js")
ELEMENT_SOURCES = ("text", "attr", "html", "value", "class", "is_visible", "is_enabled", "is_checked", "js")

#: the Locator method of each action: without a value, and with one
_PLAIN = {"click": "click", "dblclick": "dblclick", "hover": "hover", "focus": "focus", "check": "check",
          "uncheck": "uncheck"}
_VALUED = {"fill": "fill", "press": "press", "select": "select_option", "upload": "set_input_files"}
_SCROLL_BY = ("(el, dy) => { const t = (el === document.body || el === document.documentElement)"
              " ? window : el; t.scrollBy(0, dy); }")


class Acts:
    """Actions on elements, and the value of one (a part of `browser.page.Page`)."""

    _where: "PlaywrightPage | Frame"

    if TYPE_CHECKING:
        def _translating(self, selector: str | None = None) -> AbstractContextManager[None]: ...

        def may_show(self, selectors: Sequence[str]) -> list[bool | None]: ...

    def _first(self, element: Element) -> "Locator":
        return self._where.locator(element.selector).first

    def act(self, element: Element, action: str, value: str | None, timeout_ms: int) -> None:
        """Do `action` on `element` within `timeout_ms` (at least 1: 0 means no timeout).

        `value` is what fill types, press presses, select picks, upload sends (a file path the
        caller checked) and scroll adds (a pixel offset, after scrolling the element into view).
        """
        target = self._first(element)
        t = max(int(timeout_ms), 1)
        with self._translating():
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

    # --- typing key by key, drag and drop, dispatched events, blur (the act actions of walk/interact.py)

    def type_keys(self, element: Element, text: str, delay_ms: int, timeout_ms: int) -> None:
        """Focus `element` and type `text` one key at a time (keydown, input, keyup per character),
        `delay_ms` apart: Playwright's pressSequentially, Cypress's type, for inputs that react per
        key. Text already in the field stays, as a person typing would leave it."""
        with self._translating():
            self._first(element).press_sequentially(text, delay=max(delay_ms, 0), timeout=max(int(timeout_ms), 1))

    def drag(self, element: Element, to: Element, timeout_ms: int) -> None:
        """Drag `element` onto `to` with the mouse (press, move over, release), HTML5 drag and drop included."""
        with self._translating():
            self._first(element).drag_to(self._first(to), timeout=max(int(timeout_ms), 1))

    def dispatch(self, element: Element, event: str, detail: str | None, timeout_ms: int) -> None:
        """Dispatch `event` on `element` (bubbling, cancelable). Without `detail`, of the class its
        type has (`blur` a FocusEvent, `click` a MouseEvent ...); with `detail` (JSON text), a
        CustomEvent carrying it, as the page's own code would send it (Playwright's dispatch_event
        makes a plain Event, without detail, of a type it does not know)."""
        t = max(int(timeout_ms), 1)
        with self._translating():
            if detail is None:
                self._first(element).dispatch_event(event, timeout=t)
            else:
                self._first(element).evaluate(script("custom_event"), [event, json.loads(detail)], timeout=t)

    def blur(self, element: Element, timeout_ms: int) -> str | None:
        """Move the focus away from `element` (or the element inside it that has it): blur and
        focusout fire, and change for a field whose value was edited, as when a person clicks
        elsewhere (Playwright's locator.blur, Cypress's blur). None when it did; else what has the
        focus instead ("<button#save>", or "nothing"), and nothing happened."""
        with self._translating():
            focused = self._first(element).evaluate(script("blur"), timeout=max(int(timeout_ms), 1))
        return None if focused is None else str(focused)

    def dismiss(self, selectors: Sequence[str], *, max_matches: int, click_ms: int,
                maybe: Sequence[bool | None] | None = None) -> int:
        """Click every VISIBLE match (at most `max_matches` per selector) of each selector, each click
        within `click_ms`; how many were clicked. Never waits for one and never raises: a bad
        selector, a navigating page or an element that will not take the click dismisses nothing.
        `maybe`: `may_show` of the selectors, when a read just took it (`Page.match`'s `gate`)."""
        if not selectors:
            return 0
        if maybe is None or len(maybe) != len(selectors):
            try:
                # one read for every selector: the common case (nothing showing) costs no round trip
                # per selector and match
                maybe = self.may_show(selectors)
            except Exception:  # noqa: BLE001 - a page that cannot say is asked match by match
                maybe = [None] * len(selectors)
        clicked = 0
        for selector, shown in zip(selectors, maybe):
            if shown is False:
                continue
            try:
                matches = self._where.locator(selector)
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

    def is_visible(self, element: Element) -> bool:
        """Is `element` visible now?"""
        with self._translating():
            return bool(self._first(element).is_visible())

    def wait_for(self, element: Element, *, visible: bool, timeout_ms: int) -> bool:
        """Wait (in the page, one round trip) until `element` is attached, or visible; False when
        `timeout_ms` passed first. Raises InvalidSelector for a bad selector."""
        try:
            with self._translating(element.selector):
                self._first(element).wait_for(state="visible" if visible else "attached", timeout=max(timeout_ms, 1))
        except TimedOut:
            return False
        return True

    def value(self, element: Element | None, source: str, *, attr: str | None = None, expr: str | None = None,
              timeout_ms: int = 1000) -> Any:
        """One value: of the page when `element` is None (`PAGE_SOURCES`), else of `element`
        (`ELEMENT_SOURCES`; `text` is stripped). Raises ValueError for another source."""
        with self._translating():
            if element is None:
                return self._page_value(source, expr)
            el, t = self._first(element), timeout_ms
            if source == "text":
                return el.inner_text(timeout=t).strip()
            if source in ("attr", "class"):
                return el.get_attribute((attr or "") if source == "attr" else "class", timeout=t)
            if source == "html":
                return el.inner_html(timeout=t)
            if source == "value":
                return el.input_value(timeout=t)
            if source == "is_visible":
                return el.is_visible()
            if source == "is_enabled":
                return el.is_enabled(timeout=t)
            if source == "is_checked":
                return el.is_checked(timeout=t)
            if source == "js":
                return el.evaluate(expr or "el => undefined")
        raise ValueError(f"unknown element source '{source}'")

    def _page_value(self, source: str, expr: str | None) -> Any:
        if source == "url":
            return self._where.url
        if source == "title":
            return self._where.title()
        if source == "js":
            return self._where.evaluate(expr or "undefined")
        raise ValueError(f"unknown page source '{source}'")
