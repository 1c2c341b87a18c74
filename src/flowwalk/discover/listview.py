"""What a list shows: a table's columns and rows, its order, its pages, its filters and its search.

`explore_list(hands, record)` reads the page's main table (the biggest one with headers and a
selector of its own) and then uses, each from a fresh load of the page, what turns it: one
header's sort link, the link to page 2, one value of each filter (links to the same path with
another query, grouped by the query's keys), and a search for a word that only one column holds
(so a search that stopped looking at that column finds nothing). A table that nothing turns is
furniture, not a list (an index of links). Each move keeps what a spec can
hold it to: a row it must show, a row of the list at rest it must leave out (only when the crawl
saw the whole result), the first rows in order, and how many rows are not the crawl's own.
Nothing is submitted but a search form that fetches (GET); nothing destructive is touched.

The records (state.py's `ListView` and `ListMove`) are the crawl state's: the crawler keeps them as
the page's `list`, generate.py writes them as the page's list specs.
"""

from __future__ import annotations

import re
from typing import Callable, Literal, Optional
from urllib.parse import parse_qsl, urljoin, urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.explored import Element, Survey, Table, Tables
from flowwalk.discover.inpage import Hands
from flowwalk.discover.safety import destructive
from flowwalk.discover.selectors import choose_selector
from flowwalk.discover.state import CrawledPage, ListMove, ListView
from flowwalk.discover.values import CRAWL_TEXT

__all__ = ["explore_list", "rows_not_ours"]

#: query keys that sort, page or search a list rather than filter it
_NOT_FILTERS = re.compile(r"^(o|p|page|q|sort|order|_.*)$")
#: filters and searched columns tried per list
FILTERS = 2
SEARCHES = 2
#: values of one filter tried
VALUES = 3


def rows_not_ours(view: ListView) -> str:
    """The selector of the table's rows that are not the crawl's own."""
    return f'{view.table} > {view.body}:not(:has-text("{CRAWL_TEXT}"))'


def _main(tables: Tables) -> Table | None:
    shown = [t for t in tables.tables if t.selector and any(t.headers) and t.count >= 2]
    return max(shown, key=lambda t: t.count) if shown else None


def _ours(text: str) -> bool:
    return CRAWL_TEXT.lower() in text.lower()


def _first_cells(table: Table) -> list[str]:
    """Each row's first non-empty cell (a title, a name): what names the row."""
    return [next((c for c in row if c.strip()), "") for row in table.cells]


def _read(hands: Hands, table: str) -> tuple[Table | None, bool]:
    """The table `table` now, and whether it shows all its rows (no page 2, no more rows than read)."""
    hands.page.settle()
    tables = hands.page.tables()
    found = next((t for t in tables.tables if t.selector == table), None)
    return found, found is not None and found.count <= len(found.rows) and not _page_two(tables)


def _page_two(tables: Tables) -> str:
    return next((p.href for p in tables.pager if p.text.strip() == "2"), "")


Turn = Callable[[Literal["sort", "page", "filter", "search"], str, str, str], Optional[ListMove]]


def explore_list(hands: Hands, record: CrawledPage) -> ListView | None:
    """The page's list at rest and turned (see the module docstring); None when it has none."""
    page = hands.page
    if not hands.fresh():
        return None
    try:
        tables = page.tables()
    except (PageError, InvalidSelector):
        return None
    main = _main(tables)
    if main is None:
        return None
    rows = [r for r in main.rows if not _ours(r)]
    names = [n for n, r in zip(_first_cells(main), main.rows) if not _ours(r)]
    moves: list[ListMove] = []
    here = urlsplit(record.url)

    def turn(kind: Literal["sort", "page", "filter", "search"], name: str, selector: str, value: str = "") -> ListMove | None:
        if not hands.take_action() or not hands.fresh():
            return None
        try:
            if kind != "search" and page.count(selector) != 1:
                return None
            if kind == "search":
                page.act("fill", selector, value)
                if not page.act("press", selector, "Enter").found:
                    return None
            elif not page.act("click", selector).found:
                return None
            after, whole = _read(hands, main.selector)
        except (PageError, InvalidSelector, NavigationBlocked):
            return None
        if after is None:
            return None
        theirs = [(n, r) for n, r in zip(_first_cells(after), after.rows) if not _ours(r)]
        shown_names = [n for n, _ in theirs]
        left = next((n for n in names if n and whole and not any(n in r for _, r in theirs)), "")
        count = len(theirs) if whole else -1
        hands.progress(f"  {name} on {record.path}: {after.count} rows")
        return ListMove(kind=kind, name=name, selector=selector, value=value, url=page.url,
                        shown=shown_names[0] if shown_names else "", left_out=left,
                        first=tuple(r for _, r in theirs[:2]), count=count)

    # a header's sort: the first sortable column whose order differs from the list at rest
    for header, href in list(zip(main.headers, main.sorts))[:8]:
        if not href or not header:
            continue
        move = turn("sort", f"the {header.capitalize()} header", f'{main.selector} thead a[href="{href}"]')
        if move is not None and move.first and rows[:1] and move.first[0] != rows[0]:
            moves.append(move)
            break
    # page 2
    two = _page_two(tables)
    if two:
        move = turn("page", "page 2", f'a[href="{two}"]')
        if move is not None and move.first:
            moves.append(move)
    # one value of each filter: links to this path with another query, grouped by its keys
    groups: dict[tuple[str, ...], list[Element]] = {}
    for link in record.survey.links:
        to = urlsplit(urljoin(here.geturl(), link.href))
        keys = tuple(sorted({k for k, _ in parse_qsl(to.query) if not _NOT_FILTERS.match(k)}))
        if to.path == here.path and keys and choose_selector(link) and not destructive(link, hands.words):
            groups.setdefault(keys, []).append(link)
    for keys, links in list(groups.items())[:FILTERS]:
        # the first value whose rows the crawl saw whole (one page), so a row it leaves out is known
        for link in links[:VALUES]:
            chosen = choose_selector(link)
            assert chosen is not None
            move = turn("filter", f"the filter '{link.name or keys[0]}' ({', '.join(keys)})", chosen)
            if move is not None and move.shown and move.left_out:
                moves.append(move)
                break
    # a search for a word only one column holds: the column must be searched for the row to show
    field = _search_field(record.survey)
    if field is not None:
        moves.extend(_searches(main, field, turn))
    hands.progress(f"  the list {main.selector} on {record.path}: {len(main.headers)} columns, "
                   f"{main.count} rows, {len(moves)} ways to turn it")
    if not moves:
        return None   # a table nothing turns (an index of links) is furniture: the smoke specs see it
    return ListView(table=main.selector, body=main.body, headers=tuple(h for h in main.headers),
                    first=tuple(rows[:2]), count=len(rows) if main.count <= len(main.rows) else -1,
                    paged=bool(two), moves=tuple(moves))


def _search_field(survey: Survey) -> str | None:
    """The list's search field: in a form that fetches (GET) and says it searches."""
    for form in survey.forms:
        if form.implicit or (form.method or "get") != "get":
            continue
        for field in form.fields:
            words = " ".join((field.name, field.field_name, field.id)).lower()
            if field.type in ("text", "search") and (form.search or field.type == "search"
                                                     or re.search(r"\b(search|query|find)\b|^q$", words)):
                return choose_selector(field)
    return None


def _searches(main: Table, field: str, turn: Turn) -> list[ListMove]:
    """Search, for up to SEARCHES columns, a word that one row's cell of that column holds and no
    other column of any row does; kept when the row shows and another row is left out."""
    out: list[ListMove] = []
    columns = max((len(row) for row in main.cells), default=0)
    tried = 0
    for column in range(columns):
        if tried >= SEARCHES + 1 or len(out) >= SEARCHES:
            break
        term = _column_word(main, column)
        if not term:
            continue
        tried += 1
        move = turn("search", f"search '{term}'", field, term)
        if move is not None and move.shown and move.left_out and term.lower() in " ".join(move.first).lower():
            out.append(move)
    return out


def _column_word(main: Table, column: int) -> str:
    """The longest word (letters only, 4 or more) of a cell in `column` that no other column of
    any row holds and not every row holds; '' when there is none (numbers, dates, yes/no)."""
    others = " ".join(c for row in main.cells for i, c in enumerate(row) if i != column).lower()
    rows = [row for row in main.cells if column < len(row) and not _ours(" ".join(row))]
    best = ""
    for row in rows:
        for word in re.findall(r"[A-Za-z]{4,}", row[column]):
            if word.lower() in others or all(word.lower() in " ".join(r).lower() for r in rows):
                continue
            if len(word) > len(best):
                best = word
    return best
