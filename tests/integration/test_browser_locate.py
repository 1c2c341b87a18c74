"""Pipe-fallback and scoped selectors: the splitting rules, then resolution on a real page."""

from __future__ import annotations

import pytest

from flowwalk.browser import InvalidSelector, PageSession, scoped, split_pipe
from flowwalk.browser.locate import locate
from flowwalk.serve import StaticServer


@pytest.mark.parametrize(("selector", "parts"), [
    ("a | b | c", ["a", "b", "c"]),
    ("#only", ["#only"]),
    ('text="A | B" | .x', ['text="A | B"', ".x"]),
    ("text='a|b'|.y", ["text='a|b'", ".y"]),
    ("[lang|=en] | p", ["[lang|=en]", "p"]),
    ("div:has(a[href*='|']) | span", ["div:has(a[href*='|'])", "span"]),
    ("a || b", ["a", "b"]),
    (" | a | ", ["a"]),
    ("text=it's here | .fallback", ["text=it's here", ".fallback"]),
    (r"text=a\|b | c", [r"text=a\|b", "c"]),
    ("internal:role=button[name=/^(?:a|b)$/i] | .c", ["internal:role=button[name=/^(?:a|b)$/i]", ".c"]),
])
def test_split_pipe(selector: str, parts: list[str]) -> None:
    assert split_pipe(selector) == parts


def test_scoped() -> None:
    assert scoped(".a", None) == ".a"
    assert scoped(".a", "  ") == ".a"
    assert scoped(".a | .b", "#s") == "#s >> .a | #s >> .b"
    assert scoped(".", "#s") == "#s"
    assert scoped(".a", "#s | #t") == "#s >> .a | #t >> .a"
    assert split_pipe(scoped('text="x | y"', ".panel")) == ['.panel >> text="x | y"']


@pytest.fixture()
def locate_page(session: PageSession, site: StaticServer) -> PageSession:
    session.goto(f"{site.url}/browser/locate.html", timeout_ms=10_000)
    return session


@pytest.mark.browser
def test_the_first_alternative_that_matches_wins(locate_page: PageSession) -> None:
    found = locate(locate_page.playwright_page, "#missing | .secondary | .tertiary")
    assert found.used == ".secondary"
    assert found.count == 1
    assert found.tried == ["#missing", ".secondary"]
    assert found.locator.inner_text() == "Secondary"


@pytest.mark.browser
def test_nothing_matches(locate_page: PageSession) -> None:
    found = locate(locate_page.playwright_page, "#a | #b")
    assert found.count == 0
    assert found.used == "#a"
    assert found.tried == ["#a", "#b"]
    assert found.locator.count() == 0


@pytest.mark.browser
def test_pipes_inside_quotes_and_brackets_belong_to_the_selector(locate_page: PageSession) -> None:
    assert locate(locate_page.playwright_page, 'text="A | B"').locator.inner_text() == "A | B"
    assert locate(locate_page.playwright_page, "p[lang|=en] | #never").locator.inner_text() == "British"


@pytest.mark.browser
def test_scope_narrows_every_alternative(locate_page: PageSession) -> None:
    assert locate(locate_page.playwright_page, ".act").count == 2
    found = locate(locate_page.playwright_page, ".act", scope="#second")
    assert (found.count, found.used) == (1, "#second >> .act")
    assert found.locator.inner_text() == "Second panel"
    via_scope_pipe = locate(locate_page.playwright_page, ".only-second", scope="#first | #second")
    assert via_scope_pipe.used == "#second >> .only-second"
    assert locate(locate_page.playwright_page, ".", scope="#first").locator.get_attribute("id") == "first"


@pytest.mark.browser
def test_a_selector_that_does_not_parse(locate_page: PageSession) -> None:
    with pytest.raises(InvalidSelector) as info:
        locate(locate_page.playwright_page, "#ok | button[[")
    assert info.value.selector == "button[["
    assert str(info.value).startswith("invalid selector 'button[[': ")
