"""Targets as people write them, scored against page elements (pure: candidate records as the page
read returns them, no browser): parsing, the score's parts, eligibility, the model's bounded
question and the one validator of a pick."""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.agent.prompt import InvalidAnswer
from flowwalk.heal.decide import MODEL_ITEMS, choose_recorded, decide, explain_miss, heal_question, rank, read_choice
from flowwalk.heal.meaning import PageElement, eligible, meaning_score, parse_target
from flowwalk.heal.score import MARGIN, THRESHOLD


def el(key: str, **raw: Any) -> PageElement:
    return PageElement.from_record({"key": f"0:{key}", "tag": "a", "role": "link", **raw})


# a Django admin index, as `PageReader.candidates` reads it
BOOKS = el("1", name="Books", text="Books", href="changelist.html#book", near=["model-book", "app-catalog module"],
           around=["Site administration", "Catalog"], item="Books Add Change", item_index=2, item_count=3, order=5)
CHANGE_BOOKS = el("2", name="Change", text="Change", classes=["changelink"], href="changelist.html#book",
                  near=["model-book", "app-catalog module"], around=["Site administration", "Catalog"],
                  item="Books Add Change", item_index=2, item_count=3, order=7)
BOOK_COPIES = el("3", name="Book copies", text="Book copies", href="changelist.html#bookcopy",
                 near=["model-bookcopy", "app-inventory module"], around=["Site administration", "Inventory"],
                 item="Book copies Add Change", item_index=1, item_count=2, order=9)
LOANS = el("4", name="Loans", text="Loans", href="changelist.html#loan", near=["model-loan", "app-inventory module"],
           around=["Site administration", "Inventory"], item="Loans Add Change", item_index=2, item_count=2, order=11)
LOG_OUT = el("5", tag="button", role="button", name="Log out", text="Log out", near=["logout-form", "user-tools"],
             order=2)
# TodoMVC: rows, their checkboxes and icon-only delete buttons
ROWS = [el(f"r{i}", tag="li", role="listitem", text=t, near=["todo-list", "main"], item=t, item_index=i,
           item_count=3, order=20 + 10 * i) for i, t in enumerate(("Buy milk", "Write report", "Call mom"), start=1)]
DESTROY = [el(f"d{i}", tag="button", role="button", classes=["destroy"], near=["view", "", "todo-list", "main"],
              item=t, item_index=i, item_count=3, order=23 + 10 * i)
           for i, t in enumerate(("Buy milk", "Write report", "Call mom"), start=1)]
TOGGLES = [el(f"t{i}", tag="input", role="checkbox", type="checkbox", classes=["toggle"], near=["view", "", "todo-list"],
              item=t, item_index=i, item_count=3, order=21 + 10 * i)
           for i, t in enumerate(("Buy milk", "Write report", "Call mom"), start=1)]


@pytest.mark.parametrize("target, name, roles, context, ordinal", [
    ("Books link in the Catalog module", [("book",)], ["link"], ["catalog", "module"], None),
    ("changelist search box", [("changelist",), ("search",)], ["textbox", "searchbox", "combobox"], [], None),
    ("Active filter", [("active",)], ["link", "button"], [], None),
    ("first todo row", [("todo",)], ["row", "listitem"], [], (1, "element")),
    ("delete (x) button of the first todo", [("delete", "x")], ["button"], ["todo"], (1, "context")),
    ("the first todo's delete button", [("delete",)], ["button"], ["todo"], (1, "context")),
    ('checkbox of "Write report"', [], ["checkbox"], ["write", "report"], None),
    ("Sign in button", [("sign",), ("in",)], ["button"], [], None),
    ("Terms of Service link", [("term",)], ["link"], ["service"], None),
    ("the last Save button", [("save",)], ["button"], [], (-1, "element")),
])
def test_a_target_is_read_into_name_role_context_and_ordinal(target: str, name: list[tuple[str, ...]],
                                                              roles: list[str], context: list[str],
                                                              ordinal: tuple[int, str] | None) -> None:
    want = parse_target(target)
    assert list(want.name) == name
    assert all(r in want.roles for r in roles)
    assert list(want.context) == context
    assert (None if want.ordinal is None else (want.ordinal, want.ordinal_of)) == ordinal


def test_the_books_link_in_the_catalog_module_wins_clearly_and_its_neighbours_stay_under() -> None:
    want = parse_target("Books link in the Catalog module")
    ranked = rank(want, [BOOKS, CHANGE_BOOKS, BOOK_COPIES, LOANS, LOG_OUT], None, "click")
    assert ranked[0].element is BOOKS and ranked[0].score == 1.0
    assert all(r.score < THRESHOLD for r in ranked[1:])
    assert decide(ranked).winner is ranked[0]
    # the Change link of the same row says "book" only in its href: not its name
    change = meaning_score(want, CHANGE_BOOKS)
    assert change.score < THRESHOLD and any("its own name" in why for why in change.lacked)


# the real Django 5.2 admin (bench/heal_realapps.py): its change list's "Add book" is a link styled
# as a button, inside a <main tabindex="-1"> whose text holds the whole page; its add form has three
# submit buttons that all say "Save"
ADD_BOOK = el("ab", name="Add book", text="Add book", classes=["addlink"], href="/admin/catalog/book/add/",
              near=["object-tools"], around=["Select book to change"], order=3)
MAIN = el("m", tag="main", role="", text="Select book to change Add book Action: Go 0 of 3 selected Dune",
          id="content-start", classes=["content"], order=1)
SAVES = [el(f"s{i}", tag="input", role="button", type="submit", name=n, value=n, name_attr=a,
            around=["Add book"], order=40 + i)
         for i, (n, a) in enumerate((("Save", "_save"), ("Save and add another", "_addanother"),
                                     ("Save and continue editing", "_continue")))]


def test_a_link_people_call_a_button_heals_and_a_page_landmark_is_not_a_button() -> None:
    want = parse_target("Add book button")
    ranked = rank(want, [MAIN, ADD_BOOK, *SAVES], None, "click")
    assert ranked[0].element is ADD_BOOK and decide(ranked).winner is ranked[0]
    assert meaning_score(want, MAIN).score < THRESHOLD   # <main> is the page's structure, not a control
    # a link called a button is not as good as a button: the role still costs
    assert meaning_score(want, ADD_BOOK).role < 1.0


def test_an_exact_name_leads_the_names_that_only_contain_it() -> None:
    ranked = rank(parse_target("Save button"), SAVES, None, "click")
    assert ranked[0].element is SAVES[0] and decide(ranked).winner is ranked[0]
    assert ranked[0].score - ranked[1].score >= MARGIN
    # and the change form without "Save as new" still heals to none of them
    assert decide(rank(parse_target("Save as new button"), SAVES, None, "click")).winner is None


def test_without_the_element_nothing_heals_and_the_miss_says_what_each_lacked() -> None:
    want = parse_target("Loans link in the Catalog module")
    ranked = rank(want, [BOOKS, CHANGE_BOOKS, BOOK_COPIES, LOANS, LOG_OUT], None, "click")
    decision = decide(ranked)
    assert decision.winner is None and "threshold" in decision.reason
    miss = explain_miss(ranked)
    assert miss.startswith('link "Loans"') and "the context 'catalog'" in miss and miss.count("lacked") == 3


def test_ordinals_count_rows_and_the_row_a_control_sits_in() -> None:
    row = rank(parse_target("first todo row"), [*ROWS, *TOGGLES], None, "hover")
    assert row[0].element is ROWS[0] and row[0].score - row[1].score >= MARGIN and row[0].score >= THRESHOLD
    delete = rank(parse_target("delete (x) button of the first todo"), [*ROWS, *DESTROY, *TOGGLES], None, "click")
    assert delete[0].element is DESTROY[0] and decide(delete).winner is delete[0]
    last = rank(parse_target("delete button of the last todo"), [*DESTROY], None, "click")
    assert last[0].element is DESTROY[2]
    missing = rank(parse_target("delete (x) button of the fourth todo"), [*ROWS, *DESTROY], None, "click")
    assert decide(missing).winner is None
    assert any("being the fourth (it is 1 of 3)" in why for why in missing[0].lacked)


def test_a_checkbox_is_named_by_its_row() -> None:
    ranked = rank(parse_target('checkbox of "Write report"'), [*ROWS, *TOGGLES], None, "check")
    assert ranked[0].element is TOGGLES[1] and decide(ranked).winner is ranked[0]


def test_a_destructive_control_is_used_only_when_the_target_names_that_action() -> None:
    assert eligible(parse_target("the Save button"), "click", LOG_OUT) is not None
    assert eligible(parse_target("Log out button"), "click", LOG_OUT) is None
    assert eligible(parse_target("delete button of the first todo"), "click", DESTROY[0]) is None   # delete ~ destroy
    assert "destructive" in str(eligible(parse_target("close button"), "click", DESTROY[0]))
    # a row whose text says "Buy" is no purchase button; a field is typed into, not triggered
    assert eligible(parse_target("first todo row"), "hover", ROWS[0]) is None
    assert eligible(parse_target("the item field"), "fill", ROWS[0]) == "cannot take 'fill'"
    offsite = el("9", name="Continue", href="https://evil.example/", offsite=True)
    assert eligible(parse_target("Continue link"), "click", offsite) == "leaves the site"


def test_the_model_question_lists_at_most_15_usable_elements_by_id() -> None:
    many = [el(str(i), name=f"Link {i}", order=i) for i in range(40)]
    question = heal_question("click", "the Save button", rank(parse_target("the Save button"),
                                                              [*many, LOG_OUT], None, "click"))
    assert len(question.items) == MODEL_ITEMS and not any("Log out" in i for i in question.items)
    data = question.as_dict()
    assert [c["id"] for c in data["candidates"]] == list(range(1, MODEL_ITEMS + 1))
    assert read_choice(question, {"candidate": 3}) is question.listed[2]
    assert read_choice(question, {"candidate": "3"}) is question.listed[2]
    assert read_choice(question, {"candidate": "none"}) is None and read_choice(question, {"candidate": None}) is None
    for bad in ({"candidate": 16}, {"candidate": 0}, {"candidate": "#log-out"}, {"candidate": True}, {"pick": 1},
                {"candidate": "https://evil.example"}):
        with pytest.raises(InvalidAnswer):
            read_choice(question, bad)


def test_an_agent_answers_the_recorded_question_under_the_models_rule() -> None:
    """No model configured: the step records the question; an agent over MCP answers it by id."""
    books = PageElement.from_record({"key": "0:1", "tag": "a", "role": "link", "name": "Books", "css": "tr.model-book a"})
    ranked = rank(parse_target("Titles link"), [books, LOANS], None, "click")
    recorded = heal_question("click", "Titles link", ranked).as_dict()
    assert recorded["answer_format"].startswith('{"candidate"') and "none" in recorded["task"]
    assert recorded["candidates"][0] == {"id": 1, "element": books.describe(), "score": 0.0,
                                         "selector": "tr.model-book a"}
    assert choose_recorded(recorded, {"candidate": 1})["selector"] == "tr.model-book a"
    assert choose_recorded(recorded, {"candidate": "none"}) is None
    with pytest.raises(InvalidAnswer):
        choose_recorded(recorded, {"candidate": "tr.model-book a"})
