"""A small crawl state, as discover's crawler records it, and recorded pages, for tests that need no browser."""

from __future__ import annotations

from typing import Any

from flowwalk.browser.explore import Action
from flowwalk.browser.explored import (Acted, Candidate, Element, Form, Heading, Landmark, Listed, Survey, Tables)
from flowwalk.discover.state import CrawledPage, CrawlState, Dismissal, Edge, Outline


def candidates(selector: str, how: str = "testid") -> tuple[Candidate, ...]:
    return (Candidate(selector, how, 1),)


def element(kind: str, name: str, selector: str, how: str = "testid", **more: Any) -> Element:
    """A surveyed element whose one candidate `selector` matches it alone."""
    return Element(kind=kind, name=name, candidates=candidates(selector, how), **more)


def page(pid: str, slug: str, url: str, path: str, survey: Survey, **more: Any) -> CrawledPage:
    """A crawled page as the crawler records it."""
    return CrawledPage(id=pid, slug=slug, url=url, path=path, title=survey.title, status=200, depth=0,
                       signature="0123456789ab", template="t", outline=Outline((), (), (), (), ()), survey=survey,
                       visits=(url,), snapshot=f"pages/{slug}/snapshot.md", **more)


def crawl_state() -> CrawlState:
    """A crawl of two pages as the crawler records them."""
    home = Survey(
        title="Shop", landmarks=(Landmark("navigation", "Main"),), headings=(Heading(1, "Welcome"),),
        links=(element("link", "Products", 'nav a[href="/products.html"]', "role",
                       href="http://127.0.0.1:9/products.html", landmark="navigation:Main"),
               element("link", "Home", 'nav a[href="/"]', "role", href="http://127.0.0.1:9/",
                       landmark="navigation:Main")),
        forms=(Form(kind="form", fields=(element("field", "Email", "#email", "id", type="email"),
                                         element("field", "Password", "#password", "id", type="password")),
                    submit=element("button", "Log in", '[data-testid="login"]')),),
        lists=(Listed(kind="list", count=3, total=3, item_tag="li", first_item="Apples",
                      candidates=candidates('[data-testid="deals"]')),))
    products = Survey(title="Products", headings=(Heading(1, "Products"),))
    banner = Dismissal(selector='[data-testid="cookie-ok"]', target="the OK button", banner="", text="")
    return CrawlState(start_url="http://127.0.0.1:9/", pages=[
        page("p001", "home", "http://127.0.0.1:9/", "/", home, banner=banner),
        page("p002", "products", "http://127.0.0.1:9/products.html", "/products.html", products, banner=banner)],
        edges=[Edge(from_="p001", to="p002", kind="link", selector="", name="Products")], stopped_reason="done")


class RecordedPage:
    """A page for discover's in-page functions (discover/inpage.py's `Page`), answered from recordings:
    `states` (surveys), `texts`, `urls`, `messages` and `tables` are what the page shows, one per state (an action
    on a selector moves to the state `after[selector]`; a fresh load goes back to state 0), and every
    action is logged in `acted`."""

    def __init__(self, url: str, states: list[Survey], *, after: dict[str, int] | None = None,
                 urls: dict[int, str] | None = None, texts: dict[int, str] | None = None,
                 messages: dict[int, list[str]] | None = None, tables: dict[int, Tables] | None = None):
        self.start = url
        self.states = states
        self.after = after or {}
        self.urls = urls or {}
        self.texts = texts or {}
        self.said = messages or {}
        self.tabled = tables or {}
        self.now = 0
        self.acted: list[tuple[str, str, str]] = []
        self.loads = 0

    @property
    def url(self) -> str:
        return self.urls.get(self.now, self.start)

    def fresh(self) -> bool:
        self.now = 0
        self.loads += 1
        return True

    def act(self, action: Action, selector: str, value: str = "", *, then_ms: float = 0) -> Acted:
        self.acted.append((action, selector, value))
        if selector in self.after:
            self.now = self.after[selector]
        return Acted(True, self.url)

    def tap(self, selector: str) -> bool:
        return self.act("click", selector).found

    def settle(self, idle_ms: int = 0) -> None:
        pass

    def wait(self, ms: float) -> None:
        pass

    def survey(self) -> Survey:
        return self.states[self.now]

    def text(self) -> str:
        return self.texts.get(self.now, "")

    def messages(self) -> list[str]:
        return list(self.said.get(self.now, []))

    def count(self, selector: str) -> int:
        return 1

    def tables(self, limit: int = 12) -> Tables:
        return self.tabled.get(self.now, Tables((), ()))
