"""What `discover` reads of a page: `Explores`, a part of `Page`. Each is one call, answered as a record.

- `survey`: what a page offers, the raw material discover classifies and writes specs from: the
  title, landmarks, headings, links, buttons, forms with their fields and labels, lists and tables
  with their counts, dialogs and banners. Every element comes with its names (test id, id, label,
  role, text) and the selector candidates `discover.selectors` chooses from, each with how many
  elements it matches now; only a `text=` candidate cannot be counted by the page's CSS engine, so
  `count` counts it with Playwright. Only elements a person can see and use are listed (`fw.offered`
  of js/prelude.js: visible, and not inside `aria-hidden="true"` or `inert`): what a person can use
  is what a spec can use.
- `observe`: the page's state, the before and after of every action discover takes, which
  `discover.effects` compares: the URL, the keys of local and session storage (with a digest of each
  value), every list and table with its visible rows (text, classes, checkboxes, and the controls
  inside each row with a selector local to the row), the elements a person can name (test id, id,
  `aria-label`, a field's name, a link's href, a button's unique class) with their text,
  visibility, classes and states (`checked`, `aria-pressed`, `-expanded`, `-selected`, `-current`,
  a field's value), and the page's alert and status messages. Hidden elements are listed too,
  marked hidden: an element that appears after an action is an effect.
- `tables`, `form`: the page's tables as a person reads them (headers and their sort links, the rows
  shown, the links that turn a list's pages), and what the fields of a form ask of their values (type,
  bounds, pattern, options, help text) with the errors shown.
- `text`, `messages`: the body's visible text, and the alerts' (what a click or a submit changed).
- `count`: how many elements a selector matches now.

Each answers a record of browser/explored.py (`read` turns the script's plain data into it once),
so discover's modules pass records, never dicts.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from flowwalk.browser.errors import PageError
from flowwalk.browser.explored import FormAsks, Observation, Survey, Tables, read
from flowwalk.browser.locate import locate
from flowwalk.browser.scripts import script

if TYPE_CHECKING:
    from playwright.sync_api import Frame
    from playwright.sync_api import Page as PlaywrightPage

__all__ = ["Explores", "OBSERVE_LIMIT", "SURVEY_LIMIT", "TABLE_ROWS"]

#: the most elements of one kind a survey lists (a page of 5,000 links is summarised, not listed)
SURVEY_LIMIT = 150
#: the most elements, lists and rows an observation lists
OBSERVE_LIMIT = 200
#: the most rows of a table a read lists
TABLE_ROWS = 12


class Explores:
    """discover's reads of a page (a part of `browser.page.Page`; see the module docstring)."""

    _where: "PlaywrightPage | Frame"

    if TYPE_CHECKING:
        def _translating(self, selector: str | None = None) -> AbstractContextManager[None]: ...

    def _evaluate(self, name: str, arg: Any, timeout_ms: float) -> Any:
        with self._translating():
            return self._where.locator(":root").evaluate(script(name), arg, timeout=timeout_ms)

    def survey(self, timeout_ms: float = 10_000) -> Survey:
        """What the page offers now (see the module docstring)."""
        return read(Survey, self._evaluate("survey", SURVEY_LIMIT, timeout_ms) or {})

    def observe(self, timeout_ms: float = 10_000) -> Observation:
        """The page's state now (see the module docstring)."""
        return read(Observation, self._evaluate("observe", OBSERVE_LIMIT, timeout_ms) or {})

    def tables(self, limit: int = TABLE_ROWS) -> Tables:
        """The page's tables, each with its first `limit` rows, and the links that turn a list's pages."""
        with self._translating():
            return read(Tables, self._where.locator(":root").evaluate(script("tables"), limit))

    def form(self, selector: str) -> FormAsks | None:
        """What the fields of the form `selector` finds (or holds) ask, and the errors shown; None when
        nothing matches."""
        with self._translating(selector):
            found = locate(self._where, selector)
            if found.count == 0:
                return None
            return read(FormAsks, found.locator.first.evaluate(script("form_asks")))

    def count(self, selector: str) -> int:
        """How many elements `selector` (CSS or `text=`) matches now; -1 when it cannot be evaluated."""
        try:
            with self._translating(selector):
                return int(locate(self._where, selector).count)
        except Exception:  # noqa: BLE001 - an odd selector is just not usable
            return -1

    def text(self, timeout_ms: float = 5_000) -> str:
        """The visible text of the page body ("" when the page cannot say)."""
        try:
            with self._translating():
                return str(self._where.locator("body").inner_text(timeout=timeout_ms))
        except PageError:
            return ""

    def messages(self, timeout_ms: float = 5_000) -> list[str]:
        """The visible texts of alerts, live regions and error messages on the page now."""
        try:
            found = self._evaluate("messages", None, timeout_ms)
        except PageError:
            return []
        return [str(t) for t in found] if isinstance(found, list) else []
