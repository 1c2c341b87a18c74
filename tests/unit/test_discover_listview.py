"""discover/listview.py's judge on a recorded page: what a list shows, sorted, paged, filtered and
searched, kept only where a spec can hold it (a row shown, a row left out when the whole result
was seen, counts without the crawl's own rows); and --goal's words (discover/goal.py)."""

from __future__ import annotations

from discover_kit import RecordedPage, element, page as crawled

from flowwalk.browser.explored import Element, Form, PagerLink, Survey, Table, Tables
from flowwalk.discover.goal import goal_words, score
from flowwalk.discover.inpage import Hands
from flowwalk.discover.listview import explore_list, rows_not_ours

BOOKS = [("Dune", "Frank Herbert", "1965"), ("Emma", "Jane Austen", "1815"), ("Persuasion", "Jane Austen", "1817"),
         ("Written by flowwalk discover 1", "Jane Austen", "2024")]


def _table(rows: list[tuple[str, str, str]], count: int | None = None) -> Table:
    return Table(selector="#books", headers=("TITLE", "AUTHOR", "YEAR"), sorts=("?o=1", "?o=2", "?o=3"),
                 rows=tuple(" ".join(r) for r in rows), links=tuple("" for _ in rows),
                 count=len(rows) if count is None else count, body="tbody > tr", cells=tuple(rows))


def _link(name: str, href: str) -> Element:
    return element("link", name, f'a[href="{href}"]', "role", href=href)


def test_a_list_is_read_then_sorted_paged_filtered_and_searched_from_fresh_loads() -> None:
    survey = Survey(links=(_link("By author: Jane Austen", "?author=2"), _link("All", "?"), _link("Next", "?p=2")),
                    forms=(Form(kind="form", method="get", search=True,
                                fields=(element("field", "", "#q", "id", type="text", field_name="q"),)),))
    states = {0: Tables((_table(BOOKS),), (PagerLink("2", "?p=2", "1 2 14 books"),)),
              1: Tables((_table(list(reversed(BOOKS[:3]))),), ()),                      # the Title header's sort
              2: Tables((_table([("Sula", "Toni Morrison", "1973")]),), ()),              # page 2
              3: Tables((_table(BOOKS[1:]),), ()),                                        # Jane Austen's books
              4: Tables((_table([BOOKS[0]]),), ())}                                       # search 'Herbert' / 'Dune'
    page = RecordedPage("http://127.0.0.1:9/books/", [survey] * 5, tables=states,
                        after={'#books thead a[href="?o=1"]': 1, 'a[href="?p=2"]': 2, 'a[href="?author=2"]': 3, "#q": 4})
    hands = Hands(page=page, fresh=page.fresh, take_action=lambda: True, words=(), progress=lambda line: None)
    view = explore_list(hands, crawled("p001", "books", page.start, "/books/", survey))
    assert view is not None
    assert (view.headers, view.first, view.count, view.paged) == (("TITLE", "AUTHOR", "YEAR"),
                                                                  ("Dune Frank Herbert 1965", "Emma Jane Austen 1815"), 3, True)
    kinds = {m.kind: m for m in view.moves}
    assert kinds["sort"].first[0] == "Persuasion Jane Austen 1817"
    assert (kinds["page"].first, kinds["page"].count) == (("Sula Toni Morrison 1973",), 1)
    # the crawl's own row is neither a row the filter shows nor counted
    assert (kinds["filter"].shown, kinds["filter"].left_out, kinds["filter"].count) == ("Emma", "Dune", 2)
    # a word one column holds and no other: the title column's longest, then the author column's
    searched = [m.value for m in view.moves if m.kind == "search"]
    assert searched and all(m.left_out == "Emma" for m in view.moves if m.kind == "search")
    assert rows_not_ours(view) == '#books > tbody > tr:not(:has-text("Written by flowwalk discover"))'


def test_a_table_nothing_turns_is_no_list() -> None:
    page = RecordedPage("http://127.0.0.1:9/", [Survey()], tables={0: Tables((_table(BOOKS),), ())})
    page.tabled[0] = Tables((Table("#apps", ("MODEL", "ADD"), ("", ""), ("Books Add", "Authors Add"), ("", ""), 2,
                                   (("Books", "Add"), ("Authors", "Add")), "tbody > tr"),), ())
    hands = Hands(page=page, fresh=page.fresh, take_action=lambda: True, words=(), progress=lambda line: None)
    assert explore_list(hands, crawled("p001", "home", page.start, "/", Survey())) is None


def test_a_goal_matches_the_words_a_site_uses_for_it() -> None:
    goal = goal_words("Create a book")
    assert score(goal, "Add book /admin/catalog/book/add/") == 2
    assert score(goal, "Books") == 1 and score(goal, "Authors /admin/catalog/author/") == 0
