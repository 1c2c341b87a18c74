"""A refactor as renames (heal/rename.py), the run's heals (heal/cache.py), which checks may heal
(walk/healing.py `absence`), and the refactor as one finding (report/summary.py `refactor_of`)."""

from __future__ import annotations

import pytest

from flowwalk.heal.cache import Accepted, HealMap, signature
from flowwalk.heal.rename import holds, renames_from, rewrite, tokens
from flowwalk.report.summary import HealItem, refactor_of, render_heals
from flowwalk.walk.healing import absence

LI_TOGGLE = {"tag": "input", "id": "", "role": "checkbox", "type": "checkbox", "classes": ["toggle"], "nth": 1,
             "ancestors": ["div.view", "li", "ul#todo-list", "section#main"], "text": ""}


def test_tokens_are_the_css_ids_and_classes_only() -> None:
    assert tokens("#todo-list li:nth-child({{position}}) .edit") == ["#todo-list", ".edit"]
    assert tokens("#filters >> text=Completed") == ["#filters"]
    assert tokens('input[name="a.b"].x') == [".x"]
    assert tokens("li.completed:not(.hidden)") == [".completed", ".hidden"]
    assert tokens("{{user.name}}") == []


def test_renames_come_from_the_element_and_its_ancestors_position_by_position() -> None:
    now = {**LI_TOGGLE, "classes": ["done-box"], "ancestors": ["div.view", "li", "ul#todos", "section#main"]}
    assert renames_from(LI_TOGGLE, now) == {".toggle": ".done-box", "#todo-list": "#todos"}
    # a state class is never a rename; another tag is another element
    assert renames_from({**LI_TOGGLE, "classes": ["completed"]}, {**LI_TOGGLE, "classes": ["hidden"]}) == {}
    assert renames_from(LI_TOGGLE, {**now, "tag": "button"}) == {}


def test_a_selector_is_rewritten_token_by_token_keeping_its_variables() -> None:
    renames = {"#todo-list": "#todos", ".edit": ".field"}
    assert rewrite("#todo-list li:nth-child({{position}}) .edit", renames) == "#todos li:nth-child({{position}}) .field"
    assert rewrite("#todo-list-x li", renames) is None   # a longer id is another id
    assert rewrite("#filters >> text=Completed", {"#filters": "#views"}) == "#views >> text=Completed"
    assert rewrite("#main", renames) is None


def test_a_fingerprint_holds_for_the_same_element_only() -> None:
    now = {**LI_TOGGLE, "classes": ["done-box"]}
    assert holds(LI_TOGGLE, now)
    assert not holds(LI_TOGGLE, {**now, "role": "radio"})
    assert not holds(LI_TOGGLE, {**now, "nth": 2})
    assert not holds(LI_TOGGLE, {**now, "ancestors": ["div.view", "li", "ol#todos", "section#main"]})
    count = {"tag": "span", "role": "", "nth": 1, "ancestors": ["footer#footer"], "text": "2 items left"}
    assert holds(count, {**count, "text": "2  items left"}, text=True)
    assert not holds(count, {**count, "text": "0 items left"}, text=True)
    assert holds(count, {**count, "text": "0 items left"})


@pytest.mark.parametrize("kind, op, count, claims_absence", [
    ("hidden", None, None, True), ("selector_absent", None, None, True), ("text_not_contains", None, None, True),
    ("url_not_contains", None, None, True), ("count", "eq", 0, True), ("count", "lte", 3, True),
    ("count", "eq", 2, False), ("count", "gte", 1, False), ("visible", None, None, False),
    ("has_text", None, None, False), ("lacks_class", None, None, False), ("unchecked", None, None, False),
])
def test_absence_claims_are_never_healed(kind: str, op: str | None, count: int | None, claims_absence: bool) -> None:
    assert absence(kind, op, count) is claims_absence


def test_the_runs_heals_are_per_page_and_selector_and_share_their_renames() -> None:
    heals = HealMap()
    page = signature("http://127.0.0.1:8000/app/index.html#/active")
    assert page == signature("http://127.0.0.1:8000/app/index.html?x=1") == "http://127.0.0.1:8000/app/index.html"
    heals.put(page, "#new-todo", Accepted("#todo-input", {"#new-todo": "#todo-input"}))
    assert heals.get(page, "#new-todo") == Accepted("#todo-input", {"#new-todo": "#todo-input"})
    assert heals.get(signature("http://127.0.0.1:8000/other.html"), "#new-todo") is None
    assert heals.renames(page) == {"#new-todo": "#todo-input"}
    heals.drop(page, "#new-todo")
    assert heals.get(page, "#new-todo") is None and heals.renames(page)


def _item(test: str, path: str, line: int, old: str, new: str, renames: tuple[tuple[str, str], ...]) -> HealItem:
    return HealItem(test, old, new, "run", 1.0, "", path, line, 1, None, renames)


def test_a_refactor_is_one_finding_with_its_diff() -> None:
    items = [_item(f"t{i}", "steps/add.steps.yaml", 6, "#new-todo", "#todo-input", (("#new-todo", "#todo-input"),))
             for i in range(25)]
    items += [_item("t1", "a.flow.yaml", 9, "#todo-list li", "#todos li", (("#todo-list", "#todos"),)),
              _item("t2", "b.flow.yaml", 4, "#save", "button.primary", ())]
    refactor = refactor_of(items)
    assert refactor is not None
    assert refactor.headline == ("Two selectors changed: `#new-todo` → `#todo-input` (used in 25 specs), "
                                 "`#todo-list` → `#todos` (used in 1 spec)")
    assert refactor.diff().splitlines()[:5] == ["--- a/a.flow.yaml", "+++ b/a.flow.yaml", "@@ line 9 @@",
                                                "-#todo-list li", "+#todos li"]
    text = render_heals(items)
    assert "### A refactor: Two selectors changed" in text and "### Healed selectors: 1" in text
    assert text.count("#new-todo") == 2   # the finding and its diff, not a row per step
    assert refactor_of(items[-1:]) is None


def test_the_pull_request_comment_shows_a_refactor_as_one_finding() -> None:
    from flowwalk.github.render import RunLinks, render_markdown
    from sample_run import whole_test, whole_verdict

    def heal(line: int, old: str, new: str, renames: dict[str, str]) -> dict[str, object]:
        return {"kind": "healed", "severity": "warning", "source": "step", "message": "healed",
                "heal": {"old_selector": old, "new_selector": new, "method": "run", "score": 1.0, "target": "",
                         "step_index": 1, "path": "steps/add.steps.yaml", "line": line, "renames": renames}}

    tests = [whole_test(f"t{i}.flow.yaml#t", findings=[heal(6, "#new-todo", "#todo-input", {"#new-todo": "#todo-input"})])
             for i in range(25)]
    text = render_markdown(whole_verdict(tests=tests), RunLinks())
    assert "#### A refactor: One selector changed: `#new-todo` → `#todo-input` (used in 25 specs)" in text
    assert "-#new-todo\n+#todo-input" in text
    assert "Healed selectors" not in text   # no line per healed step
