"""`discover` on a real Django 5.2 admin (tests/djangoadmin.py: books and authors, 14 books), logged in.

What a user of a server-rendered admin sees: one sign-in setup whose session every spec starts
from; the book list's spec holds its columns, its first rows, how many rows a page holds, a
header's sort and page 2; its filters and search each must show a row and leave one out (never
the typed text alone); the journeys create the crawl's own rows with values the form takes,
corrected where the server refused them, and delete only what they created. The whole site, with
the 19 seeded bugs, is bench/discover_mutations.py's (too long for the suite).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import yaml

from djangoadmin import LOGIN_FLOW_YAML, PASSWORD, USER, DjangoAdmin, make_site
from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, discover
from flowwalk.discover.values import CRAWL_TEXT

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def django(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DjangoAdmin]:
    site = DjangoAdmin(make_site(tmp_path_factory.mktemp("django"))).start()
    try:
        yield site
    finally:
        site.stop()


@pytest.mark.long
def test_the_book_list_is_held_to_what_it_shows_and_only_the_crawls_rows_change(
        django: DjangoAdmin, flowwalk_browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    login = tmp_path / "login.flow.yaml"
    login.write_text(LOGIN_FLOW_YAML)
    before = django.rows()
    out = tmp_path / "checks"
    result = discover(DiscoverOptions(url=f"{django.url}/admin/catalog/book/", out_dir=out, use_model=False,
                                      login=login, variables=(("ADMIN_USER", USER),), secret_names=("ADMIN_PASSWORD",),
                                      submit_forms=True, max_pages=3, max_depth=1, budget_s=600),
                      browser=flowwalk_browser)
    specs = {Path(p).relative_to(out).as_posix(): yaml.safe_load(Path(p).read_text()) for p in result.specs_written}
    # one sign-in; every other spec starts from its session
    assert specs["sign-in.flow.yaml"]["saves_session"] == "discover-login"
    assert all(s.get("session") == "discover-login" for name, s in specs.items() if name != "sign-in.flow.yaml")
    steps = specs["admin-catalog-book/list.flow.yaml"]["steps"]
    said = [(s["kind"], s.get("value", s.get("equals"))) for s in steps if s["type"] == "expect"]
    assert ("text_contains", "TITLE AUTHOR PUBLISHED PAGES AVAILABLE CENTURY") in said
    assert ("count", 10) in said                                         # rows a page holds
    assert ("text_contains", "Always Coming Home Ursula K. Le Guin Sept. 1, 1985 562 20") in said
    assert any(s["type"] == "act" and s["selector"] == 'a[href="?p=2"]' for s in steps)
    turns = specs["admin-catalog-book/list-filters.flow.yaml"]["steps"]
    searched = [s["value"] for s in turns if s["type"] == "act" and s["action"] == "fill"]
    assert searched and all(not any(t.get("kind") == "input_value" for t in turns) for _ in searched)
    assert sum(1 for s in turns if s.get("kind") == "text_not_contains") >= 3   # filters and searches leave rows out
    # nothing that was there changed or went; what the crawl added carries its text
    after = django.rows()
    for model, rows in before.items():
        ours = [r for r in after[model] if r not in rows]
        assert [r for r in after[model] if r in rows] == rows
        assert all(CRAWL_TEXT in str(r) for r in ours)
