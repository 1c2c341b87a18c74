"""One selector writer (browser/js/selector.js): on a page whose ids are a framework's counters
(`#ember1234`, `#react-select-3-input`) and whose test ids are in `data-qa`
(tests/site/pages/selectors/generated-ids.html), discover's survey, heal's page read and the writer
itself choose the same selector for each control, and it is never a generated id."""

from __future__ import annotations

import re

import pytest

from flowwalk.browser import PageSession
from flowwalk.browser.explored import Element
from flowwalk.browser.locate import locate
from flowwalk.browser.scripts import compose
from flowwalk.discover.selectors import choose_selector
from flowwalk.heal.find import Lookup, find
from flowwalk.serve import StaticServer

pytestmark = pytest.mark.browser

#: the control (its test id or id) -> (what a step says it is, its action, the selector to write)
CONTROLS: dict[str, tuple[str, str, str]] = {
    "orders-link": ("the Orders link", "click", '[data-qa="orders-link"]'),
    "invoices-link": ("the Invoices link", "click", '[data-qa="invoices-link"]'),
    "customer-select": ("the Customer field", "fill", '[data-qa="customer-select"]'),
    "status-select": ("the Status field", "fill", '[data-qa="status-select"]'),
    "order-number": ("the Order number field", "fill", "#order-number"),
    "search": ("the Search button", "click", '[data-qa="search"]'),
    "export": ("the Export button", "click", '[data-qa="export"]'),
    "clear-filters": ("the Clear filters button", "click", "#clear-filters"),
    # a generated id and nothing the writer takes: discover's and heal's next forms, which agree
    "react-select-5-input": ("the note field", "fill", 'input[name="note"]'),
    "ember1270": ("the Archive button", "click", 'button[aria-label="Archive"]'),
}
#: the controls the writer itself names (the others it leaves to what discover and heal write next)
WRITTEN = {key: selector for key, (_, _, selector) in CONTROLS.items() if not key.startswith(("ember", "react"))}
GENERATED = re.compile(r"ember\d|react-select-\d")
WRITER = compose("/* global selectorsOf */\n(el) => { return selectorsOf(el); }")


def _open(session: PageSession, site: StaticServer) -> None:
    session.goto(f"{site.url}/selectors/generated-ids.html", timeout_ms=10_000)


def _writes(session: PageSession, selector: str) -> list[dict[str, str]]:
    found = locate(session.playwright_page, selector)
    assert found.count == 1, selector
    return found.locator.evaluate(WRITER)  # type: ignore[no-any-return]


def test_the_writer_names_each_control_by_its_test_id_or_a_stable_id(session: PageSession,
                                                                     site: StaticServer) -> None:
    _open(session, site)
    for key, (_, _, selector) in CONTROLS.items():
        written = _writes(session, selector)
        if key in WRITTEN:
            assert written and written[0]["selector"] == selector, (key, written)
        else:
            assert written == [], (key, written)
    # a generated id is no name: an element with nothing else gets no answer from the writer
    assert _writes(session, "div.ember-view") == []
    assert _writes(session, "#react-select-3-container") == []


def test_discover_pins_what_the_writer_writes(session: PageSession, site: StaticServer) -> None:
    _open(session, site)
    survey = session.page.survey()
    elements: list[Element] = [*survey.links, *survey.buttons, *(f for form in survey.forms for f in form.fields)]
    chosen = {(e.testid or e.id): choose_selector(e) for e in elements}
    assert chosen == {key: selector for key, (_, _, selector) in CONTROLS.items()}
    for element in elements:   # no candidate of any control pins a counter
        assert not any(GENERATED.search(c.selector) for c in element.candidates), element.candidates


@pytest.mark.parametrize("key", list(CONTROLS))
def test_heal_writes_what_the_writer_writes(session: PageSession, site: StaticServer, key: str) -> None:
    target, action, selector = CONTROLS[key]
    _open(session, site)
    fingerprint = session.page.match(selector, fingerprint=True).fingerprint
    outcome = find(session.page, Lookup(target=target, fingerprint=fingerprint, action=action,
                                        pinned="#gone-" + key))
    assert outcome.selector == selector, (outcome.reason, outcome.candidates[:2])
