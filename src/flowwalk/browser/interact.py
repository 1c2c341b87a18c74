"""Actions beyond one plain call on an element: typing key by key, drag and drop, and an event
dispatched on the element (the act actions `type`, `drag` and `dispatch`).

Like `element.perform`, each takes the element's Playwright locator from the walker (which holds
it only to hand it back here) and lets Playwright's own errors out, for the walker's boundary to
translate.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Locator

__all__ = ["dispatch_event", "drag_to", "type_keys"]

#: a CustomEvent carrying `detail`, as a page's own code would dispatch it (Playwright's
#: dispatch_event makes a plain Event of a type it does not know, which has no detail)
_CUSTOM_EVENT = ("(el, [type, detail]) => el.dispatchEvent(new CustomEvent(type,"
                 " { bubbles: true, cancelable: true, composed: true, detail }))")


def type_keys(target: "Locator", text: str, delay_ms: int, timeout_ms: int) -> None:
    """Focus `target` and type `text` one key at a time (keydown, keypress/input, keyup per
    character), `delay_ms` apart: what Playwright's pressSequentially and Cypress's type do, for
    inputs that react per key. Text already in the field stays (as a user typing would leave it)."""
    target.press_sequentially(text, delay=max(delay_ms, 0), timeout=max(int(timeout_ms), 1))


def drag_to(target: "Locator", to: "Locator", timeout_ms: int) -> None:
    """Drag `target` onto `to` with the mouse (press, move over, release), HTML5 drag and drop included."""
    target.drag_to(to, timeout=max(int(timeout_ms), 1))


def dispatch_event(target: "Locator", event: str, detail: str | None, timeout_ms: int) -> None:
    """Dispatch `event` on `target` (bubbling, cancelable). Without `detail`, the event class
    matches its type (`blur` a FocusEvent, `click` a MouseEvent ...); with `detail` (JSON text), a
    CustomEvent with that detail."""
    t = max(int(timeout_ms), 1)
    if detail is None:
        target.dispatch_event(event, timeout=t)
        return
    target.evaluate(_CUSTOM_EVENT, [event, json.loads(detail)], timeout=t)
