"""Calls in another tool's language as steps of the authoring tree (spec/foreign.py), with no file
format in between: what the `.robot` hints and the importers to come build on."""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.errors import Location
from flowwalk.spec import models as sm
from flowwalk.spec.foreign import BROWSER, SL, ForeignCall, as_selector, translate


def dumped(call: ForeignCall) -> list[dict[str, Any]]:
    found = translate(call)
    assert found is not None
    return [step.model_dump(exclude_unset=True, by_alias=True) for step in found.steps]


def test_a_call_becomes_the_tree_steps_that_do_the_same_with_its_own_values() -> None:
    loc = Location("suites/cart.robot", 15, 9)
    found = translate(ForeignCall("Input Text", ("id=username", "admin"), loc=loc))
    assert found is not None and found.tools == (SL,) and found.loc == loc and found.secret is None
    assert [type(step) for step in found.steps] == [sm.ActStep]
    assert dumped(ForeignCall("Input Text", ("id=username", "admin"))) == [
        {"type": "act", "action": "fill", "selector": "#username", "value": "admin"}]


@pytest.mark.parametrize(("call", "steps"), [
    (ForeignCall("go to", ("/cart",)), [{"type": "goto", "url": "/cart"}]),
    (ForeignCall("Reload", ()), [{"type": "reload"}]),
    (ForeignCall("Page Should Contain", ("Free returns",)),
     [{"type": "expect", "kind": "text_contains", "value": "Free returns"}]),
    (ForeignCall("Element Attribute Value Should Be", ("css:a.buy", "href", "/cart")),
     [{"type": "expect", "kind": "attribute", "selector": "a.buy", "name": "href", "equals": "/cart"}]),
    (ForeignCall("Get Element Count", (".line", ">=", "2")),
     [{"type": "expect", "kind": "count", "selector": ".line", "at_least": 2}]),
    (ForeignCall("Wait For Elements State", ("#pay", "enabled")),
     [{"type": "expect", "kind": "enabled", "selector": "#pay"}]),
    (ForeignCall("Click", ("#pay >>> id=card >>> text=Save",)),
     [{"frame": "#pay", "steps": [{"frame": "#card", "steps": [
         {"type": "act", "action": "click", "selector": "text=Save"}]}]}]),
])
def test_each_kind_of_call_has_its_step(call: ForeignCall, steps: list[dict[str, Any]]) -> None:
    assert dumped(call) == steps


def test_a_typed_password_is_marked_secret_and_a_screenshot_is_no_step() -> None:
    password = translate(ForeignCall("Fill Secret", ("#pw", "$PASSWORD")))
    assert password is not None and password.tools == (BROWSER,) and password.secret == "$PASSWORD"
    shot = translate(ForeignCall("Capture Page Screenshot", ()))
    assert shot is not None and shot.steps == () and shot.no_step == "screenshot"


@pytest.mark.parametrize("call", [
    ForeignCall("Log", ("hello",)),                          # not a browser library's keyword
    ForeignCall("Click Element", ()),                        # no locator
    ForeignCall("Click Element", ("dom=document.forms[0]",)),  # a strategy with no equivalent
    ForeignCall("Get Text", ("#s", "^=", "Sav")),            # an operator the table does not know
    ForeignCall("Get Element Count", ("li", "==", "many")),  # not a number
    ForeignCall("Wait For Elements State", ("#x", "stable")),  # a state flowwalk has no check for
])
def test_a_call_without_an_equivalent_gets_none(call: ForeignCall) -> None:
    assert translate(call) is None


@pytest.mark.parametrize(("locator", "selector"), [
    ("id=buy", "#buy"), ("id=first name", "[id='first name']"), ("name=pw", "[name='pw']"),
    ("css:button.primary", "button.primary"), ("//nav/a", "xpath=//nav/a"), ("link=Books", "text=Books"),
    ("class=error", ".error"), ("tag=input", "input"), ("#plain", "#plain"), ("dom=x", None),
    ("partial link=Bo", None),
])
def test_locator_strategies_become_selectors(locator: str, selector: str | None) -> None:
    assert as_selector(locator) == selector
