"""Targets as people write them, scored against page elements (pure: candidate records as the page
read returns them, no browser): parsing, the score's parts, eligibility, the model's bounded
question and the one validator of a pick."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from flowwalk.agent.prompt import InvalidAnswer
from flowwalk.heal.decide import (MODEL_ITEMS, choose_recorded, decide, explain_miss, heal_question, positional, rank,
                                  read_choice, row_data, written_selector)
from flowwalk.heal.meaning import PageElement, eligible, meaning_score, parse_target
from flowwalk.heal.score import MARGIN, THRESHOLD


def el(key: str, **raw: Any) -> PageElement:
    return PageElement.from_record({"key": f"0:{key}", "tag": "a", "role": "link", **raw})


# a Django admin index, as `Page.candidates` reads it
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


# what walk/resolve.py picked and the healer's ranking did not, before the two were one ranking
# (tests/site/pages/browser/resolve.html and checks.html, as the page read records them)
SIGN_UP = el("su", tag="button", role="button", name="Sign up", text="Sign up", id="signup-btn", order=1)
SIGN_UP_LATER = el("sl", tag="button", role="button", name="Sign up later", text="Sign up later", order=2)
PROMO = el("p", tag="div", role="", text="Free for 30 days", testid="promo-banner", order=3)
HELP = el("h", tag="span", role="", text="?", title="Help center", classes=["help"], order=4)
DOCS = el("d", name="Docs", text="Docs", id="docs", href="/docs/start", order=5)
BUTTONS = [el(f"b{i}", tag="button", role="button", name=n, text=n, order=6 + i)
           for i, n in enumerate(("Save", "Locked", "Aria locked"))]


def test_an_exact_name_leads_a_name_with_one_word_more() -> None:
    for target in ("Sign Up", "the sign-up button"):
        ranked = rank(parse_target(target), [SIGN_UP, SIGN_UP_LATER], None, "click")
        assert decide(ranked).winner is ranked[0] and ranked[0].element is SIGN_UP, target
    ranked = rank(parse_target("Sign up later"), [SIGN_UP, SIGN_UP_LATER], None, "click")
    assert decide(ranked).winner is ranked[0] and ranked[0].element is SIGN_UP_LATER


def test_a_test_id_or_a_title_names_an_element_whose_text_says_something_else() -> None:
    for target, meant in (("promo banner", PROMO), ("help center", HELP)):
        ranked = rank(parse_target(target), [PROMO, HELP, DOCS, *BUTTONS], None, "click")
        assert decide(ranked).winner is ranked[0] and ranked[0].element is meant, target


def test_a_target_that_names_only_a_role_means_the_one_element_of_that_role() -> None:
    ranked = rank(parse_target("the link"), [DOCS, *BUTTONS, PROMO], None, "click")
    assert decide(ranked).winner is ranked[0] and ranked[0].element is DOCS
    # three buttons: which one is not for the words to say
    assert decide(rank(parse_target("the button"), [DOCS, *BUTTONS, PROMO], None, "click")).winner is None


def test_a_miss_names_the_threshold_before_a_bar_on_a_candidate_that_was_never_close() -> None:
    offsite = el("o", name="Source", text="Source", href="https://github.com/x", offsite=True, order=1)
    miss = decide(rank(parse_target("Archive button"), [offsite, *BUTTONS], None, "click"))
    assert miss.winner is None and miss.reason.startswith("no candidate reaches the threshold"), miss.reason
    barred = decide(rank(parse_target("the Source link"), [offsite, *BUTTONS], None, "click"))
    assert barred.winner is None and barred.reason.endswith("may not be used: leaves the site"), barred.reason


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


# Radicale's login: a field named by its placeholder and the validator's span beside it
USERNAME = el("u", tag="input", role="textbox", type="text", placeholder="Username", around=["Sign in"], order=1)
PASSWORD = el("w", tag="input", role="textbox", type="password", placeholder="Password", around=["Sign in"], order=2)
EMPTY = el("e", tag="span", role="", text="Username is empty", classes=["error"], around=["Sign in"], order=4)


def test_a_candidate_that_cannot_take_the_action_does_not_count_against_one_that_can() -> None:
    ranked = rank(parse_target("Username"), [USERNAME, PASSWORD, EMPTY], None, "fill")
    field, span = ranked[0], ranked[1]
    assert field.element is USERNAME and span.element is EMPTY and field.score - span.score < MARGIN
    assert decide(ranked).winner is field
    assert not span.takes and span.barred == "cannot take 'fill'"
    # scored from a fingerprint, or above the field: the span still cannot take the fill
    above = [replace(span, score=0.95, d=None, f=0.95), replace(field, score=0.9, d=None, f=0.9), ranked[2]]
    assert decide(above).winner is above[1]
    # a rival that can take the fill still counts; so does one barred for another reason
    assert decide([field, replace(ranked[2], score=0.85)]).winner is None
    offsite = el("o", name="Docs", text="Docs", href="https://docs.example/", offsite=True, order=9)
    close = rank(parse_target("the Docs link"), [DOCS, offsite], None, "click")
    assert close[0].element is DOCS and close[1].barred == "leaves the site" and close[1].takes
    assert decide(close).winner is None
    # nothing that can take it: the best is named with why it may not be used
    alone = decide(rank(parse_target("Username"), [EMPTY], None, "fill"))
    assert alone.winner is None and alone.reason.endswith("may not be used: cannot take 'fill'"), alone.reason


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


# --- the selector a heal writes: a position, not the row's data ---------------------------------

#: Django admin's change list checkbox, as the page read records it: unique by an aria-label that
#: names the row's book, and the positional selector the read built for an ordinal target
DUNE_BOX = el("b1", tag="input", role="checkbox", type="checkbox", name="Select this object for an action - Dune",
              classes=["action-select"], name_attr="_selected_action", near=["action-checkbox", "", "result_list"],
              item="Dune Frank Herbert Available", item_index=1, item_count=3,
              css='input[aria-label="Select this object for an action - Dune"]',
              css_position="#result_list tbody > tr:first-of-type input.action-select")


@pytest.mark.parametrize(("selector", "found"), [
    ('input[aria-label="Select this object for an action - Dune"]', ("dune",)),
    ("input[title='Frank Herbert']", ("frank", "herbert")),
    ("#book-dune .toggle", ("dune",)),
    ("li.herbert > input", ("herbert",)),
    ("a[href=/books/dune/]", ("dune",)),
    ("#result_list tbody > tr:first-of-type input.action-select", ()),
    ("#result_list tbody > tr:nth-of-type(2) > td:nth-of-type(1) > input", ()),
    # the page's own words are structure unless the row shows them
    ('input[aria-label="Select this object for an action"]', ()),
])
def test_row_data_names_the_rows_words_a_selector_holds(selector: str, found: tuple[str, ...]) -> None:
    assert row_data(selector, DUNE_BOX) == found


def test_a_number_the_row_shows_is_row_data_and_short_words_are_not() -> None:
    order = el("o1", tag="button", role="button", name="Open", item="Order 1042 of 3 items", item_index=1,
               item_count=4)
    assert row_data("#order-1042 button", order) == ("1042", "order")
    assert row_data('[data-of="x"] li:nth-of-type(3) button', order) == ()


@pytest.mark.parametrize(("target", "is_positional"), [
    ("the first book's checkbox", True),
    ("checkbox of the second book", True),
    ("3rd book checkbox", True),
    ("the top row", True),
    ("checkbox of the last book", True),
    ("the Dune checkbox", False),
    ("book checkbox", False),
])
def test_a_positional_target_writes_the_positional_selector(target: str, is_positional: bool) -> None:
    want = parse_target(target)
    assert positional(want, DUNE_BOX) is is_positional
    expected = DUNE_BOX.css_position if is_positional else DUNE_BOX.css
    assert written_selector(want, DUNE_BOX) == expected


def test_the_ordinal_word_of_an_elements_own_name_is_no_position() -> None:
    # "First name field" names a field whose label says "First name", in a form laid out as a list
    first_name = el("f1", tag="input", role="textbox", label="First name", id="first_name", item="First name",
                    item_index=1, item_count=4, css="#first_name", css_position="#profile > li:first-of-type input")
    want = parse_target("First name field")
    assert want.ordinal == 1 and not positional(want, first_name)
    assert written_selector(want, first_name) == "#first_name"
    # an element in no row or list item has no row position: the unique selector as before
    save = el("s1", tag="button", role="button", name="Save", css="#save", css_position="form > button:first-of-type")
    assert written_selector(parse_target("the first Save button"), save) == "#save"


def test_without_a_positional_selector_the_one_free_of_row_data_is_written() -> None:
    want = parse_target("the first book's checkbox")
    no_position = PageElement.from_record({**_raw(DUNE_BOX), "css_position": None})
    # the only selector the read built names the book: written all the same (the heal works now)
    assert written_selector(want, no_position) == no_position.css
    clean = PageElement.from_record({**_raw(DUNE_BOX), "css_position": None, "css": "#result_list input"})
    assert written_selector(want, clean) == "#result_list input"
    # a positional selector that holds the row's data loses to a unique one that does not
    dirty = PageElement.from_record({**_raw(DUNE_BOX), "css_position": "#dune > td > input", "css": "#x input"})
    assert written_selector(want, dirty) == "#x input"


def test_ranked_candidates_carry_the_selector_written_and_the_question_shows_it() -> None:
    want = parse_target("the first book's checkbox")
    ranked = rank(want, [DUNE_BOX], None, "check")
    assert ranked[0].selector == DUNE_BOX.css_position == ranked[0].record()["selector"]
    assert heal_question("check", want.text, ranked).as_dict()["candidates"][0]["selector"] == DUNE_BOX.css_position
    assert rank(parse_target("the Dune checkbox"), [DUNE_BOX], None, "check")[0].selector == DUNE_BOX.css


def _raw(e: PageElement) -> dict[str, Any]:
    return {"key": e.key.split(":", 1)[1], "tag": e.tag, "role": e.role, "name": e.name, "type": e.type,
            "classes": list(e.classes), "name_attr": e.name_attr, "near": list(e.near), "item": e.item,
            "item_index": e.item_index, "item_count": e.item_count, "css": e.css, "css_position": e.css_position}
