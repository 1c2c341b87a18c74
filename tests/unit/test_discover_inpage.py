"""discover/inpage.py's judges on recorded pages: what a control, a search and a submit changed,
returned as records (the crawl state is the crawler's to write), never a destructive control used."""

from __future__ import annotations

from typing import Any

from discover_kit import RecordedPage

from flowwalk.discover.inpage import (Hands, SubmitRecord, explore_controls, submit_forms, to_state,
                                      try_searches)
from flowwalk.discover.options import DEFAULT_DESTRUCTIVE
from flowwalk.discover.signature import dom_signature


def _el(kind: str, name: str, selector: str, **more: Any) -> dict[str, Any]:
    return {"kind": kind, "name": name, "candidates": [{"selector": selector, "how": "testid", "count": 1}], **more}


def _survey(buttons: list[dict[str, Any]] = (), forms: list[dict[str, Any]] = (), lists: list[dict[str, Any]] = (),
            heading: str = "Books") -> dict[str, Any]:
    return {"title": heading, "landmarks": [], "headings": [{"level": 1, "text": heading}], "links": [],
            "buttons": list(buttons), "forms": list(forms), "lists": list(lists), "dialogs": []}


def _hands(page: RecordedPage) -> Hands:
    return Hands(page=page, fresh=page.fresh, take_action=lambda: True, words=DEFAULT_DESTRUCTIVE,
                 progress=lambda line: None)


def _record(survey: dict[str, Any], url: str = "http://127.0.0.1:9/books/") -> dict[str, Any]:
    return {"id": "p001", "path": "/books/", "url": url, "signature": dom_signature(survey), "depth": 0,
            "survey": survey}


def test_a_control_is_clicked_from_a_fresh_load_and_what_it_changed_is_returned_not_written() -> None:
    tab = _el("button", "Details", '[data-testid="details"]', role="tab", controls="panel")
    delete = _el("button", "Delete all", '[data-testid="delete"]', type="button", group="tools")
    start = _survey([tab, delete])
    opened = _survey([tab, delete], heading="Books details")
    page = RecordedPage("http://127.0.0.1:9/books/", [start, opened], after={'[data-testid="details"]': 1},
                        texts={0: "Books", 1: "Books\nPublished in 1872"})
    transitions: dict[str, str] = {}
    found = explore_controls(_hands(page), _record(start), transitions, {})
    assert [c.target for c in found.controls] == ["the Details tab"]
    control = found.controls[0]
    assert control.new_text == ("Published in 1872",) and control.signature_after == dom_signature(opened)
    assert found.transitions == ((f"{dom_signature(start)}|click [data-testid=\"details\"]", dom_signature(opened)),)
    assert [s.reason for s in found.skipped] == ["destructive ('delete')"]
    assert ("click", '[data-testid="delete"]', "") not in page.acted and page.loads == 1
    assert transitions == {}   # the crawler writes the state, not the in-page pass
    assert "route" not in to_state(control)
    # the same click from the same signature again is a loop, not a second click
    again = explore_controls(_hands(page), _record(start), dict(found.transitions), {})
    assert again.controls == () and [loop.action for loop in again.loops] == ['click [data-testid="details"]']


def test_a_search_types_a_word_of_the_biggest_list_and_returns_what_the_lists_showed() -> None:
    field = _el("field", "Search", '[data-testid="q"]', type="search")
    books = {"kind": "list", "count": 3, "total": 3, "item_tag": "li", "first_item": "Middlemarch by Eliot",
             "items": ["Middlemarch by Eliot", "Emma", "Persuasion"], "candidates": [{"selector": "#books", "how": "id", "count": 1}]}
    narrowed = dict(books, count=1, total=1, items=["Middlemarch by Eliot"])
    start, after = _survey(forms=[{"kind": "form", "fields": [field]}], lists=[books]), _survey(lists=[narrowed])
    page = RecordedPage("http://127.0.0.1:9/books/", [start, after], after={'[data-testid="q"]': 1})
    found = try_searches(_hands(page), _record(start))
    assert [(s.term, s.lists[0].count, s.lists[0].items) for s in found.searches] == [
        ("Middlemarch", 1, ("Middlemarch by Eliot",))]


def test_a_form_is_submitted_empty_once_and_a_destructive_one_never() -> None:
    save = _el("button", "Save", '[data-testid="save"]', type="submit", in_form=True)
    remove = _el("button", "Delete", '[data-testid="remove"]', type="submit", in_form=True)
    title = _el("field", "Title", '[data-testid="title"]', type="text")
    forms = [{"kind": "form", "name": "Add book", "fields": [title], "submit": save},
             {"kind": "form", "name": "Delete", "fields": [], "submit": remove}]
    start = _survey(forms=forms)
    page = RecordedPage("http://127.0.0.1:9/books/add/", [start, start], after={'[data-testid="save"]': 1},
                        messages={1: ["This field is required."]})
    found = submit_forms(_hands(page), _record(start, page.start), {})
    assert found.submits == (SubmitRecord(form=0, kind="empty", selector='[data-testid="save"]', target="the Save button",
                                          url_after="http://127.0.0.1:9/books/add/", lists=(),
                                          new_text=("This field is required.",)),)
    assert "value" not in to_state(found.submits[0]) and found.submitted
    assert [s.what for s in found.skipped] == ["form Delete"]
    assert all(selector != '[data-testid="remove"]' for _, selector, _ in page.acted)
    # the same form on another page (its key among the transitions) is not submitted again
    assert submit_forms(_hands(page), _record(start, page.start), dict(found.transitions)).submits == ()


def test_a_link_that_leads_nowhere_is_a_control_of_a_single_page_app() -> None:
    new = _el("link", "Create a new calendar", 'a[data-name="new"]', raw_href="", href="http://127.0.0.1:9/")
    logout = _el("link", "Logout", 'a[data-name="logout"]', raw_href="#", href="http://127.0.0.1:9/#")
    elsewhere = _el("link", "Help", 'a[href="/help"]', raw_href="/help", href="http://127.0.0.1:9/help")
    start = dict(_survey(), links=[new, logout, elsewhere])
    scene = dict(_survey(heading="Create new calendar"), links=[])
    page = RecordedPage("http://127.0.0.1:9/", [start, scene], after={'a[data-name="new"]': 1},
                        texts={0: "Collections", 1: "Create new calendar\nTitle"})
    found = explore_controls(_hands(page), _record(start, page.start), {}, {})
    assert [(c.selector, c.new_text) for c in found.controls] == [('a[data-name="new"]', ("Create new calendar", "Title"))]
    assert [s.what for s in found.skipped] == ["button 'Logout'"]
    assert [a for a in page.acted if a[1] != 'a[data-name="new"]'] == []
