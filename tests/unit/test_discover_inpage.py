"""discover/inpage.py's judges on recorded pages: what a control, a search and a submit changed,
returned as records (the crawl state is the crawler's to write), never a destructive control used."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from discover_kit import RecordedPage, candidates, element, page as crawled

from flowwalk.browser.explored import Element, Form, Heading, Listed, Survey
from flowwalk.discover.inpage import Hands, explore_controls, new_lines, submit_forms, try_searches
from flowwalk.discover.options import DEFAULT_DESTRUCTIVE
from flowwalk.discover.signature import dom_signature
from flowwalk.discover.state import CrawledPage, SubmitRecord



def _survey(buttons: tuple[Element, ...] = (), forms: tuple[Form, ...] = (), lists: tuple[Listed, ...] = (),
            heading: str = "Books") -> Survey:
    return Survey(title=heading, headings=(Heading(1, heading),), buttons=buttons, forms=forms, lists=lists)


def _hands(page: RecordedPage) -> Hands:
    return Hands(page=page, fresh=page.fresh, take_action=lambda: True, words=DEFAULT_DESTRUCTIVE,
                 progress=lambda line: None)


def _record(survey: Survey, url: str = "http://127.0.0.1:9/books/") -> CrawledPage:
    return replace(crawled("p001", "books", url, "/books/", survey), signature=dom_signature(survey))


def test_a_control_is_clicked_from_a_fresh_load_and_what_it_changed_is_returned_not_written() -> None:
    tab = element("button", "Details", '[data-testid="details"]', role="tab", controls="panel")
    delete = element("button", "Delete all", '[data-testid="delete"]', type="button", group="tools")
    start = _survey((tab, delete))
    opened = _survey((tab, delete), heading="Books details")
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
    assert control.route == ""
    # the same click from the same signature again is a loop, not a second click
    again = explore_controls(_hands(page), _record(start), dict(found.transitions), {})
    assert again.controls == () and [loop.action for loop in again.loops] == ['click [data-testid="details"]']
    # a tab that changed the outline is clicked again on another page that has it
    elsewhere = _survey((tab,), heading="Authors")
    other = RecordedPage("http://127.0.0.1:9/authors/", [elsewhere, opened], after={'[data-testid="details"]': 1})
    assert len(explore_controls(_hands(other), _record(elsewhere, other.start), dict(found.transitions), {}).controls) == 1


def test_a_widget_that_leaves_the_outline_as_it_was_is_clicked_on_the_first_page_only() -> None:
    calendar = element("link", "", "#calendarlink0", how="id", raw_href="#", href="http://127.0.0.1:9/books/add/#")
    start = replace(_survey(heading="Add book"), links=(calendar,))
    page = RecordedPage("http://127.0.0.1:9/books/add/", [start, start], after={"#calendarlink0": 1},
                        texts={0: "Add book", 1: "Add book\nS M T W T F S"})
    found = explore_controls(_hands(page), _record(start, page.start), {}, {})
    assert [c.new_text for c in found.controls] == [("S M T W T F S",)]
    assert ("control|#calendarlink0|", dom_signature(start)) in found.transitions
    # the same link on another form is the site's date widget: not clicked again
    other_form = replace(_survey(heading="Add author"), links=(calendar,))
    other = RecordedPage("http://127.0.0.1:9/authors/add/", [other_form, other_form], after={"#calendarlink0": 1})
    again = explore_controls(_hands(other), _record(other_form, other.start), dict(found.transitions), {})
    assert again.controls == () and again.loops == () and other.acted == []


def test_a_search_types_a_word_of_the_biggest_list_and_returns_what_the_lists_showed() -> None:
    field = element("field", "Search", '[data-testid="q"]', type="search")
    books = Listed(kind="list", count=3, total=3, item_tag="li", first_item="Middlemarch by Eliot",
                   items=("Middlemarch by Eliot", "Emma", "Persuasion"), candidates=candidates("#books", "id"))
    narrowed = replace(books, count=1, total=1, items=("Middlemarch by Eliot",))
    start, after = _survey(forms=(Form(kind="form", fields=(field,), implicit=True),), lists=(books,)), _survey(lists=(narrowed,))
    page = RecordedPage("http://127.0.0.1:9/books/", [start, after], after={'[data-testid="q"]': 1})
    found = try_searches(_hands(page), _record(start), {})
    assert [(s.term, s.lists[0].count, s.lists[0].items) for s in found.searches] == [
        ("Middlemarch", 1, ("Middlemarch by Eliot",))]
    # a filter in no form (a site-wide one, on every page) is typed into on the first page only
    assert found.transitions == (('search|[data-testid="q"]', dom_signature(start)),)
    again = RecordedPage("http://127.0.0.1:9/books/", [start, after], after={'[data-testid="q"]': 1})
    assert try_searches(_hands(again), _record(start), dict(found.transitions)).searches == ()
    assert again.acted == []


def test_new_text_leaves_out_signs_and_what_names_the_current_year() -> None:
    year = date.today().year
    assert new_lines("Published", f"Published\n<\n›\nNOVEMBER {year}\nS M T W T F S\n© {year} Books\n1872") == [
        "S M T W T F S", "1872"]


def test_a_form_is_submitted_empty_once_and_a_destructive_one_never() -> None:
    save = element("button", "Save", '[data-testid="save"]', type="submit", in_form=True)
    remove = element("button", "Delete", '[data-testid="remove"]', type="submit", in_form=True)
    title = element("field", "Title", '[data-testid="title"]', type="text")
    forms = (Form(kind="form", name="Add book", fields=(title,), submit=save),
             Form(kind="form", name="Delete", submit=remove))
    start = _survey(forms=forms)
    page = RecordedPage("http://127.0.0.1:9/books/add/", [start, start], after={'[data-testid="save"]': 1},
                        messages={1: ["This field is required."]})
    found = submit_forms(_hands(page), _record(start, page.start), {})
    assert found.submits == (SubmitRecord(form=0, kind="empty", selector='[data-testid="save"]', target="the Save button",
                                          url_after="http://127.0.0.1:9/books/add/", lists=(),
                                          new_text=("This field is required.",)),)
    assert found.submits[0].value == "" and found.submitted
    assert [s.what for s in found.skipped] == ["form Delete"]
    assert all(selector != '[data-testid="remove"]' for _, selector, _ in page.acted)
    # the same form on another page (its key among the transitions) is not submitted again
    assert submit_forms(_hands(page), _record(start, page.start), dict(found.transitions)).submits == ()


def test_a_link_that_leads_nowhere_is_a_control_of_a_single_page_app() -> None:
    new = element("link", "Create a new calendar", 'a[data-name="new"]', raw_href="", href="http://127.0.0.1:9/")
    logout = element("link", "Logout", 'a[data-name="logout"]', raw_href="#", href="http://127.0.0.1:9/#")
    elsewhere = element("link", "Help", 'a[href="/help"]', raw_href="/help", href="http://127.0.0.1:9/help")
    start = replace(_survey(), links=(new, logout, elsewhere))
    scene = _survey(heading="Create new calendar")
    page = RecordedPage("http://127.0.0.1:9/", [start, scene], after={'a[data-name="new"]': 1},
                        texts={0: "Collections", 1: "Create new calendar\nTitle"})
    found = explore_controls(_hands(page), _record(start, page.start), {}, {})
    assert [(c.selector, c.new_text) for c in found.controls] == [('a[data-name="new"]', ("Create new calendar", "Title"))]
    assert [s.what for s in found.skipped] == ["button 'Logout'"]
    assert [a for a in page.acted if a[1] != 'a[data-name="new"]'] == []
