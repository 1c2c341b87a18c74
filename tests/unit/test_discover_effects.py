"""discover's effects: what an action changed, read from two page observations, and the checks
that say so (pure functions over browser/observe.py's records, no browser)."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from flowwalk.browser.explored import Control, Named, ObservedList, Observation, Row
from flowwalk.discover.effects import LONG_CHECKS, agree, by_novelty, diff_states, state_checks
from flowwalk.discover.engine import _only_failed_loads
from flowwalk.discover.state import Effect, Step

TEXT = "Written by flowwalk discover 1"


def row(text: str, *classes: str, checked: bool | None = None, visible: bool = True) -> Row:
    controls = () if checked is None else (Control(sel="input.toggle", kind="checkbox", state={"checked": checked}),)
    return Row(text=text, classes=classes, visible=visible, controls=controls, label="label")


def page(rows: list[Row], *, url: str = "http://app.test/#/", counter: str = "", field: str = "",
         heading: str = "todos", messages: tuple[str, ...] = (), more: tuple[Named, ...] = ()) -> Observation:
    elements: tuple[Named, ...] = (Named(sel="#new-todo", tag="input", value=field, control=Control(kind="field")),)
    if counter:
        elements += (Named(sel="#todo-count", tag="span", text=counter),)
    return Observation(url=url, heading=heading, messages=messages, elements=elements + more,
                       lists=(ObservedList(sel="#todo-list", item="li", count=sum(1 for r in rows if r.visible),
                                           total=len(rows), rows=tuple(rows)),))


def checks(effects: Sequence[Effect]) -> list[Step]:
    return [e.check for e in effects if e.check]


def test_an_add_is_checked_by_what_it_changed_not_by_what_was_typed() -> None:
    before = page([])
    after = page([row(TEXT, checked=False)], counter="1 item left")
    found = checks(diff_states(before, after, typed=[TEXT], acted="#new-todo", typed_value=TEXT))
    assert found[:2] == [{"type": "expect", "kind": "count", "selector": "#todo-list > li:visible", "equals": 1},
                         {"type": "expect", "kind": "text_contains", "value": TEXT, "selector": "#todo-list"}]
    assert {"type": "expect", "kind": "has_text", "selector": "#todo-count", "value": "1 item left"} in found
    # the field was emptied after the add: an effect; holding what was typed would only echo the input
    assert {"type": "expect", "kind": "input_value", "selector": "#new-todo", "value": ""} in found
    echo = page([row(TEXT)], field=TEXT)
    assert not any(c["kind"] == "input_value" for c in checks(diff_states(before, echo, typed=[TEXT], acted="#new-todo",
                                                                          typed_value=TEXT)))


def test_the_journeys_own_row_its_class_checkbox_and_a_filter_that_hides_it() -> None:
    before = page([row(TEXT, checked=False), row("Written by flowwalk discover 2", checked=False)])
    done = page([row(TEXT, "completed", checked=True), row("Written by flowwalk discover 2", checked=False)])
    found = checks(diff_states(before, done, typed=[TEXT, "Written by flowwalk discover 2"]))
    own = '#todo-list > li:has-text("Written by flowwalk discover 1")'
    assert {"type": "expect", "kind": "attribute", "selector": own, "name": "class", "contains": "completed"} in found
    assert {"type": "expect", "kind": "checked", "selector": f"{own} input.toggle"} in found
    active = page([row(TEXT, "completed", "hidden", checked=True, visible=False),
                   row("Written by flowwalk discover 2", checked=False)], url="http://app.test/#/active")
    found = checks(diff_states(done, active, typed=[TEXT, "Written by flowwalk discover 2"]))
    assert {"type": "expect", "kind": "count", "selector": "#todo-list > li:visible", "equals": 1} in found
    assert {"type": "expect", "kind": "text_not_contains", "value": TEXT, "selector": "#todo-list"} in found
    assert {"type": "expect", "kind": "url_contains", "value": "#/active"} in found
    assert not any(c.get("contains") == "hidden" for c in found)    # visibility is the count's, not a class check


def test_another_page_is_news_only_where_it_landed() -> None:
    before = page([], url="http://app.test/books/add/", heading="Add book")
    after = page([row(f"{TEXT} 1965")], url="http://app.test/books/", heading="Select book to change",
                 messages=(f"The book “{TEXT}” was added successfully.",))
    found = checks(diff_states(before, after, typed=[TEXT]))
    assert [c["kind"] for c in found] == ["text_contains", "text_contains", "url_contains", "text_contains"]
    assert {"type": "expect", "kind": "text_contains", "selector": "h1", "value": "Select book to change"} in found


def test_two_walks_keep_what_both_saw_alike() -> None:
    first = diff_states(page([row("a")]), page([row("a"), row(TEXT)], counter="4 rows"), typed=[TEXT])
    second = diff_states(page([row("a"), row("b")]), page([row("a"), row("b"), row(TEXT)], counter="5 rows"),
                         typed=[TEXT])
    kept, dropped = agree(first, second)
    assert [e.kind for e in kept] == ["row_added"]
    # 2 rows then 3, '4 rows' then '5 rows': what grows with every run is left out
    assert sorted(e.kind for e in dropped) == ["appeared", "count"]


def test_after_a_reload_the_rows_their_class_and_checkbox_are_still_there() -> None:
    state = page([row(TEXT, "completed", checked=True)])
    found = checks(state_checks(state, state, [TEXT]))
    own = '#todo-list > li:has-text("Written by flowwalk discover 1")'
    assert found == [{"type": "expect", "kind": "count", "selector": "#todo-list > li:visible", "equals": 1},
                     {"type": "expect", "kind": "text_contains", "value": TEXT, "selector": "#todo-list"},
                     {"type": "expect", "kind": "attribute", "selector": own, "name": "class", "contains": "completed"},
                     {"type": "expect", "kind": "checked", "selector": f"{own} input.toggle"}]


def test_a_failure_made_only_of_failed_loads_is_a_finding_not_a_reason_to_hold_a_spec() -> None:
    favicon = ("run 1: assertion_failed EXPECT_STATE_MISMATCH: expected no console errors; observed 1 console "
               "error(s): Failed to load resource: the server responded with a status of 404 (Not Found)")
    assert _only_failed_loads(favicon) == ["Failed to load resource: the server responded with a status of 404 "
                                           "(Not Found)"]
    assert _only_failed_loads(favicon + "; TypeError: x is undefined") == []
    assert _only_failed_loads("run 1: assertion_failed EXPECT_STATE_MISMATCH: step 3 (expect count)") == []


def _filters(selected: str) -> tuple[Named, ...]:
    return tuple(Named(sel=f'a[href="#/{name}"]', tag="a", text=name.title() or "All",
                       classes=("selected",) if name == selected else (), control=Control(kind="link"))
                 for name in ("", "active"))


def test_a_pressed_control_showing_its_new_state_ranks_with_a_changed_text() -> None:
    two = [row(TEXT, "completed", checked=True), row("Written by flowwalk discover 2", checked=False)]
    before = page(two, more=_filters(""))
    after = page([replace(two[0], visible=False), two[1]], url="http://app.test/#/active", more=_filters("active"))
    typed = [TEXT, "Written by flowwalk discover 2"]
    selected = {"type": "expect", "kind": "attribute", "selector": 'a[href="#/active"]', "name": "class",
                "contains": "selected"}
    pressed = diff_states(before, after, typed=typed, pressed='a[href="#/active"]')
    assert [e.rank for e in pressed if e.check == selected] == [3]
    # the same change on a control the move did not press stays at the bottom
    other = diff_states(before, after, typed=typed, pressed='a[href="#/"]')
    assert [e.rank for e in other if e.check == selected] == [5]


def test_a_moves_kept_checks_go_to_what_its_journey_has_not_looked_at() -> None:
    # TodoMVC's main journey, as observed: the second add's counter text repeats what the first
    # add's checked, the field being emptied does not; the Active filter's URL repeats the All
    # filter's URL check, its link becoming `selected` does not
    one, two = TEXT, "Written by flowwalk discover 2"
    first = diff_states(page([]), page([row(one)], counter="1 item left"), typed=[one], acted="#new-todo",
                        typed_value=one)
    second = diff_states(page([row(one)], counter="1 item left", field=""),
                         page([row(one), row(two)], counter="2 items left"), typed=[one, two], acted="#new-todo",
                         typed_value=two)
    kept = [[e.check for e in effects[:LONG_CHECKS] if e.check] for effects in by_novelty([first, second], LONG_CHECKS)]
    cleared = {"type": "expect", "kind": "input_value", "selector": "#new-todo", "value": ""}
    counter = {"type": "expect", "kind": "has_text", "selector": "#todo-count", "value": "2 items left"}
    assert [c for c in second[:LONG_CHECKS] if c.check == cleared] == []   # by rank alone: left out
    assert cleared in kept[1] and counter not in kept[1]
    assert {"type": "expect", "kind": "has_text", "selector": "#todo-count", "value": "1 item left"} in kept[0]
    # nothing is dropped, only reordered; a journey of one move keeps its order
    assert sorted(map(str, by_novelty([first, second], LONG_CHECKS)[1])) == sorted(map(str, second))
    assert by_novelty([second], LONG_CHECKS) == [second]
