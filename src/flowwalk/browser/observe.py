"""What a page's state is, read in one call: the before and after of every action discover takes.

`observe_page` returns plain data (`Observed`, a dict) that `discover.effects` compares: the URL,
the keys of local and session storage (with a digest of each value), every list and table with
its visible rows (text, classes, checkboxes, and the controls inside each row with a selector
local to the row), the elements a person can name (test id, id, `aria-label`, a field's name, a
link's href, a button's unique class) with their text, visibility, classes and states
(`checked`, `aria-pressed`, `-expanded`, `-selected`, `-current`, a field's value), and the
page's alert and status messages. Hidden elements are listed too, marked hidden: an element that
appears after an action is an effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flowwalk.browser.errors import translating
from flowwalk.browser.scripts import script

if TYPE_CHECKING:
    from flowwalk.browser.session import PageSession

__all__ = ["observe_page"]

#: the most elements, lists and rows an observation lists
OBSERVE_LIMIT = 200

def observe_page(session: "PageSession", timeout_ms: float = 10_000) -> dict[str, Any]:
    """The page's state now (see the module docstring); raises `PageError` when the page cannot answer."""
    with session.guard(), translating():
        result = session.page.locator(":root").evaluate(script("observe"), OBSERVE_LIMIT, timeout=timeout_ms)
    return result if isinstance(result, dict) else {}
