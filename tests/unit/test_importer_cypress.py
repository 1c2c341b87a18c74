"""Cypress files imported: each kind of the table (queries, aliases, actions with their keys,
navigation, should chainers, the URL and storage, cypress-axe, custom commands) as its step; bad
input as a ledger row or a refusal at path:line:col, never a traceback, the other files imported."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from flowwalk.importer.cypress import render_table, type_steps
from flowwalk.importer.suite import ImportRequest, ImportResult, import_suite
from flowwalk.importer.syntax import Source, calls_in, parse

COMMANDS = """\
Cypress.Commands.add('addItem', (name) => {
  cy.get('#search').clear().type(`${name}{enter}`)
  return cy.get('.cart').contains('li', name)
})
"""

SUITE = """\
/// <reference types="cypress" />
describe('Shop', () => {
  const COUPON = 'SAVE10'

  beforeEach(() => {
    cy.visit('/shop')
    cy.get('.cart li').as('rows')
  })

  it('fills the cart', () => {
    cy.addItem('milk').as('milk')
    cy.get('@milk').find('.qty').should('have.value', '1')
    cy.get('@rows').should('have.length', 1).and('contain', 'milk')
    cy.get('@rows').first().should('have.class', 'item').and('not.have.class', 'sold-out')
    cy.get('#coupon').type(`${COUPON}{selectall}{backspace}x{esc}`)
    cy.get('select.size').select('large')
    cy.get('.gift').check().should('be.checked')
    cy.get('.gift').uncheck().should('not.be.checked')
    cy.get('.cart').within(() => {
      cy.contains('milk').dblclick()
      cy.get('.note').focus().blur()
    })
    cy.get('.cart li').eq(0).trigger('mouseover')
    cy.get('.total').should('have.text', '9.99').and('be.visible')
    cy.get('.banner').should('not.exist')
    cy.get('a.help').should('have.attr', 'href', '/help')
    cy.get('.cart li').last().click()
  })

  it('checks the page', () => {
    cy.url().should('include', '/shop')
    cy.title().should('eq', 'Shop')
    cy.location('pathname').should('eq', '/shop')
    cy.window().its('localStorage').invoke('getItem', 'cart').should('eq', '["milk"]')
    cy.get('.count').contains('1 item')
    cy.reload()
    cy.go('back')
    cy.go('forward')
    cy.injectAxe()
    cy.checkA11y(null, { runOnly: ['wcag2aa'] })
  })

  it('reads a price', () => {
    cy.get('.price').then(($price) => {
      cy.get('#coupon').type($price.text())
    })
    if (Cypress.$('.banner').length) {
      cy.get('.banner .close').click()
    }
    cy.get(`#row-${Date.now()}`).click()
    cy.get('.total').should('have.text', '9.99')
  })
})
"""


def _import(tmp_path: Path, files: dict[str, str]) -> tuple[ImportResult, Path]:
    for name, code in files.items():
        path = tmp_path / "project" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    out = tmp_path / "out"
    return import_suite(ImportRequest((tmp_path / "project" / "cypress" / "e2e",), out)), out


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


@pytest.fixture()
def shop(tmp_path: Path) -> tuple[ImportResult, Path]:
    return _import(tmp_path, {"cypress/e2e/shop.cy.js": SUITE, "cypress/support/commands.js": COMMANDS})


def test_each_command_and_chainer_becomes_its_step(shop: tuple[ImportResult, Path]) -> None:
    result, out = shop
    spec = _load(out / "shop" / "shop" / "fills-the-cart.flow.yaml")
    # the outermost beforeEach's visit is the flows' url; its alias is the tests'
    assert spec["url"] == "/shop"
    milk = '.cart >> li:has-text("milk")'
    assert spec["steps"] == [
        {"use": "../steps/add-item.steps.yaml", "with": {"name": "milk"}},
        {"type": "expect", "kind": "input_value", "selector": f"{milk} >> .qty", "value": "1"},
        {"type": "expect", "kind": "count", "selector": ".cart li", "equals": 1},
        {"type": "expect", "kind": "text_contains", "selector": ".cart li", "value": "milk", "match_case": True},
        {"type": "expect", "kind": "has_class", "selector": ".cart li >> nth=0", "value": "item"},
        {"type": "expect", "kind": "lacks_class", "selector": ".cart li >> nth=0", "value": "sold-out"},
        {"type": "act", "action": "type", "selector": "#coupon", "value": "SAVE10"},
        {"type": "act", "action": "press", "selector": "#coupon", "value": "ControlOrMeta+a"},
        {"type": "act", "action": "press", "selector": "#coupon", "value": "Backspace"},
        {"type": "act", "action": "type", "selector": "#coupon", "value": "x"},
        {"type": "act", "action": "press", "selector": "#coupon", "value": "Escape"},
        {"type": "act", "action": "select", "selector": "select.size", "value": "large"},
        {"type": "act", "action": "check", "selector": ".gift"},
        {"type": "expect", "kind": "checked", "selector": ".gift"},
        {"type": "act", "action": "uncheck", "selector": ".gift"},
        {"type": "expect", "kind": "unchecked", "selector": ".gift"},
        {"type": "act", "action": "dblclick", "selector": ".cart >> text=/milk/"},
        {"type": "act", "action": "focus", "selector": ".cart >> .note"},
        {"type": "act", "action": "blur", "selector": ".cart >> .note"},
        {"type": "act", "action": "dispatch", "selector": ".cart li >> nth=0", "event": "mouseover"},
        {"type": "expect", "kind": "has_text", "selector": ".total", "value": "9.99", "keep_whitespace": True},
        {"type": "expect", "kind": "visible", "selector": ".total"},
        {"type": "expect", "kind": "selector_absent", "selector": ".banner"},
        {"type": "expect", "kind": "attribute", "selector": "a.help", "name": "href", "equals": "/help"},
        {"type": "act", "action": "click", "selector": ".cart li >> nth=-1"},
    ]
    page = _load(out / "shop" / "shop" / "checks-the-page.flow.yaml")
    assert page["steps"] == [
        {"type": "expect", "kind": "url_contains", "value": "/shop"},
        {"type": "expect", "kind": "js", "expr": "document.title", "equals": "Shop"},
        {"type": "expect", "kind": "js", "expr": "location.pathname", "equals": "/shop"},
        {"type": "expect", "kind": "storage", "area": "local", "key": "cart", "equals": '["milk"]'},
        {"type": "expect", "kind": "text_contains", "selector": ".count", "value": "1 item", "match_case": True},
        {"type": "reload"}, {"type": "go_back"}, {"type": "go_forward"},
        {"type": "expect", "kind": "accessible", "rules": {"include": ["wcag2aa"]}},
    ]
    command = _load(out / "shop" / "steps" / "add-item.steps.yaml")
    assert command["params"] == {"name": {"type": "string"}}
    assert command["steps"] == [
        {"type": "act", "action": "fill", "selector": "#search", "value": ""},
        {"type": "act", "action": "type", "selector": "#search", "value": "{{name}}"},
        {"type": "act", "action": "press", "selector": "#search", "value": "Enter"},
        {"type": "expect", "kind": "selector_exists", "selector": '.cart >> li:has-text("{{name}}")'},
    ]
    assert "shop/shop/fills-the-cart.flow.yaml" in result.written.specs


def test_bad_input_becomes_ledger_rows_and_the_test_goes_to_needs_review(shop: tuple[ImportResult, Path]) -> None:
    result, out = shop
    assert not (out / "shop" / "shop" / "reads-a-price.flow.yaml").exists()
    review = (out / "needs-review" / "shop" / "shop" / "reads-a-price.flow.yaml").read_text()
    header = review.split("spec_version")[0]
    rows = {(r.line, r.col): r for r in result.ledger.rows if r.path.endswith("shop.cy.js")}
    # a function of the subject, a condition on page state, a selector built from a run-time value
    assert rows[(44, 5)].outcome == "not_converted" and "function of the subject" in rows[(44, 5)].detail
    assert rows[(47, 5)].outcome == "not_converted" and "a condition" in rows[(47, 5)].detail
    assert rows[(50, 5)].outcome == "not_converted" and "known only when the test runs" in rows[(50, 5)].detail
    for line in (44, 47, 50):
        assert f"shop.cy.js:{line}:" in header
    assert result.ledger.figures.tests_whole == 2 and result.ledger.figures.tests == 3


def test_every_call_expression_of_both_files_has_a_ledger_row(shop: tuple[ImportResult, Path]) -> None:
    result, _ = shop
    for name, code in (("shop.cy.js", SUITE), ("commands.js", COMMANDS)):
        parsed = parse(name, code.encode())
        assert isinstance(parsed, Source)
        calls = Counter((c.start_point[0] + 1, c.start_point[1] + 1) for c in calls_in(parsed.root))
        rows = Counter((r.line, r.col) for r in result.ledger.rows if r.kind == "call" and r.path.endswith(name))
        assert rows == calls, name


def test_a_file_that_does_not_parse_is_refused_at_its_line_and_the_others_import(tmp_path: Path) -> None:
    broken = "describe('x', () => {\n  it('y', () => {\n    cy.get('.a')).click()\n  })\n})\n"
    result, out = _import(tmp_path, {"cypress/e2e/broken.cy.js": broken, "cypress/e2e/shop.cy.js": SUITE,
                                     "cypress/support/commands.js": COMMANDS})
    assert len(result.ledger.refused) == 1
    refusal = result.ledger.refused[0]
    assert "broken.cy.js:3:17: error:" in refusal and "unexpected ')'" in refusal
    assert "does not parse as javascript" in refusal and "hint:" in refusal
    assert (out / "shop" / "shop" / "fills-the-cart.flow.yaml").is_file()


def test_a_cypress_file_is_known_by_its_calls_not_its_name(tmp_path: Path) -> None:
    code = ("describe('x', () => {\n  it('opens', () => {\n    cy.visit('/a')\n"
            "    cy.get('h1').should('be.visible')\n  })\n})\n")
    (tmp_path / "opens.js").write_text(code)
    result = import_suite(ImportRequest((tmp_path / "opens.js",), tmp_path / "out"))
    assert result.ledger.refused == [] and result.ledger.figures.tests_whole == 1
    spec = _load(tmp_path / "out" / "opens" / "x" / "opens.flow.yaml")
    assert spec["url"] == "/a" and spec["steps"] == [{"type": "expect", "kind": "visible", "selector": "h1"}]


def test_type_keys() -> None:
    assert type_steps("#a", "{{}x}{del}{ctrl}a") == [
        {"type": "act", "action": "type", "selector": "#a", "value": "{x}"},
        {"type": "act", "action": "press", "selector": "#a", "value": "Delete"},
        {"type": "act", "action": "press", "selector": "#a", "value": "Control+a"}]


def test_the_table_names_every_command_the_judged_suite_uses() -> None:
    table = render_table()
    for call in ("cy.visit(url)", "cy.get(selector | '@alias')", ".as(name), cy.get('@name')", ".type(text)",
                 "should('have.length', n)", "should('be.checked' | 'not.be.checked')", "cy.checkA11y"):
        assert call in table


def test_intercepts_become_the_flows_routes(tmp_path: Path) -> None:
    code = """\
describe('Todos', () => {
  beforeEach(() => {
    cy.intercept('GET', '/api/todos', { fixture: 'todos.json' }).as('todos')
    cy.visit('/')
  })
  it('lists them', () => {
    cy.intercept('POST', '/api/todos', { statusCode: 500, body: 'down' })
    cy.intercept('/api/stats', { forceNetworkError: true })
    cy.wait('@todos')
    cy.get('.todo').should('have.length', 2)
  })
  it('answers with code', () => {
    cy.intercept('/api/todos', (req) => req.reply({}))
  })
})
"""
    result, out = _import(tmp_path, {"cypress/e2e/todos.cy.js": code,
                                     "cypress/fixtures/todos.json": '[{"title": "a"}, {"title": "b"}]'})
    spec = _load(out / "todos" / "todos" / "lists-them.flow.yaml")
    assert spec["url"] == "/"
    assert spec["routes"] == [
        {"url": "/api/todos", "method": "GET", "json": [{"title": "a"}, {"title": "b"}]},
        {"url": "/api/todos", "method": "POST", "status": 500, "body": "down"},
        {"url": "/api/stats", "abort": True}]
    assert spec["steps"] == [{"type": "expect", "kind": "count", "selector": ".todo", "equals": 2}]
    assert not (out / "todos" / "todos" / "before_each.steps.yaml").exists()
    row = next(r for r in result.ledger.rows if r.line == 13 and r.col == 5)
    assert row.outcome == "not_converted" and "a function" in row.detail


def test_docs_import_md_holds_the_cypress_table_the_code_maps_by() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "import.md").read_text()
    start, end = "<!-- import-table-cypress:start -->\n", "<!-- import-table-cypress:end -->"
    assert page[page.index(start) + len(start):page.index(end)] == render_table()


def test_a_describes_helper_function_and_its_returned_query(tmp_path: Path) -> None:
    code = """\
describe('List', () => {
  function items() {
    return cy.get('.list li')
  }
  function add(name) {
    cy.get('#new').type(`${name}{enter}`)
  }
  it('adds', () => {
    add('a')
    items().should('have.length', 1).first().should('contain', 'a')
  })
})
"""
    result, out = _import(tmp_path, {"cypress/e2e/list.cy.js": code})
    spec = _load(out / "list" / "list" / "adds.flow.yaml")
    assert spec["steps"] == [
        {"use": "../steps/add.steps.yaml", "with": {"name": "a"}},
        {"use": "../steps/items.steps.yaml"},
        {"type": "expect", "kind": "count", "selector": ".list li", "equals": 1},
        {"type": "expect", "kind": "text_contains", "selector": ".list li >> nth=0", "value": "a",
         "match_case": True}]
    assert _load(out / "list" / "steps" / "add.steps.yaml")["params"] == {"name": {"type": "string"}}
    assert result.ledger.counts()["not_converted"] == 0


def test_cookies_length_bounds_and_a_contains_that_ignores_case(tmp_path: Path) -> None:
    code = """\
it('signs in', () => {
  cy.visit('/login')
  cy.getCookie('session').should('have.property', 'value', 'abc')
  cy.getCookie('tracking').should('not.exist')
  cy.get('.row').should('have.length.greaterThan', 2)
  cy.contains('a.b (c)', { matchCase: false }).click()
})
"""
    _, out = _import(tmp_path, {"cypress/e2e/login.cy.js": code})
    spec = _load(out / "login" / "signs-in.flow.yaml")
    assert spec["url"] == "/login" and spec["steps"] == [
        {"type": "expect", "kind": "cookie", "name": "session", "equals": "abc"},
        {"type": "expect", "kind": "cookie", "name": "tracking", "absent": True},
        {"type": "expect", "kind": "count", "selector": ".row", "at_least": 3},
        {"type": "act", "action": "click", "selector": r"text=/a\.b \(c\)/i"}]


def test_a_query_up_the_dom_is_not_converted_with_why(tmp_path: Path) -> None:
    code = "it('completes', () => {\n  cy.visit('/')\n  cy.contains('Pay bill').parent().find('input').check()\n})\n"
    result, out = _import(tmp_path, {"cypress/e2e/todo.cy.js": code})
    row = next(r for r in result.ledger.rows if (r.line, r.col) == (3, 3) and r.call.endswith(".check()"))
    assert row.outcome == "not_converted" and "never up or across" in row.detail
    assert result.written.review == ["needs-review/todo/completes.flow.yaml"]
