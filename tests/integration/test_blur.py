"""The `blur` act against real Chromium: the focus leaves the element, and blur, focusout and (for
an edited field) change fire; an element without the focus fails the step, naming what has it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk.model import Expect, StateQuery
from flowwalk.serve import StaticServer

from test_walker import act, click, expect, fill, flow, loc, make_settings, rules_of, steps_of, walk  # the walker's builders

pytestmark = pytest.mark.browser


def blur(selector: str) -> Any:
    return act("blur", selector)


def js_is(expr: str, value: str) -> Expect:
    return Expect(loc=loc(), text=f"expect js '{expr}'", kind="js", value=value, state=StateQuery(expr=expr))


def test_blur_moves_the_focus_away_and_fires_the_events(flowwalk_browser: Any, tmp_path: Path,
                                                        site: StaticServer) -> None:
    sc = flow("blur", [fill("#email", "ada@example.com"), blur("#email"),
                       expect("has_text", "change blur focusout", "#events"),
                       js_is("document.activeElement === document.body", "true")],
              f"{site.url}/walker/blur.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    result = rules_of(events)["blur"]
    assert result.status == "passed", result.failure


def test_a_dispatched_blur_leaves_the_focus_where_it_was(flowwalk_browser: Any, tmp_path: Path,
                                                         site: StaticServer) -> None:
    # what `blur` is for: dispatch sends the event and nothing else
    sc = flow("dispatched", [fill("#email", "ada@example.com"), act("dispatch", "#email", event="blur"),
                             expect("has_text", "blur", "#events"),
                             js_is("document.activeElement.id", "email")],
              f"{site.url}/walker/blur.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    assert rules_of(events)["dispatched"].status == "passed", rules_of(events)["dispatched"].failure


@pytest.mark.parametrize(("before", "has"), [([], "no element has the focus"),
                                             ([click("#save")], "the focus is on <button#save>")],
                         ids=["nothing-focused", "another-focused"])
def test_blurring_an_element_without_the_focus_fails_naming_what_has_it(flowwalk_browser: Any, tmp_path: Path,
                                                                        site: StaticServer, before: list[Any],
                                                                        has: str) -> None:
    sc = flow("unfocused", [*before, blur("#email")],
              f"{site.url}/walker/blur.html")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = rules_of(events)["unfocused"].failure
    assert failure is not None
    assert (failure.runtime_code, failure.failure_class) == ("ACTION_REJECTED", "spec_step_unresolvable")
    assert failure.message == (f"blur: '#email' does not have the focus ({has}); hint: focus it first "
                               "(act focus, click or fill it), or blur the element that has it")
    assert failure.observed == has
    assert steps_of(events)[-1].status == "failed"
