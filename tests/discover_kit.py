"""A small crawl state, shaped as discover's crawler records it, for tests that need no browser."""

from __future__ import annotations

from typing import Any


def _candidates(selector: str, how: str = "testid") -> list[dict[str, Any]]:
    return [{"selector": selector, "how": how, "count": 1}]


def crawl_state() -> dict[str, Any]:
    """A crawl of two pages as the crawler records them (the shape crawl.py writes)."""
    home_survey = {
        "title": "Shop", "landmarks": [{"role": "navigation", "name": "Main"}],
        "headings": [{"level": 1, "text": "Welcome", "selector": []}],
        "links": [{"kind": "link", "name": "Products", "href": "http://127.0.0.1:9/products.html",
                   "landmark": "navigation:Main", "candidates": _candidates('nav a[href="/products.html"]', "role")},
                  {"kind": "link", "name": "Home", "href": "http://127.0.0.1:9/", "landmark": "navigation:Main",
                   "candidates": _candidates('nav a[href="/"]', "role")}],
        "buttons": [], "forms": [{"kind": "form", "name": "", "fields": [
            {"kind": "field", "type": "email", "name": "Email", "candidates": _candidates("#email", "id")},
            {"kind": "field", "type": "password", "name": "Password", "candidates": _candidates("#password", "id")}],
            "submit": {"kind": "button", "name": "Log in", "candidates": _candidates('[data-testid="login"]')}}],
        "lists": [{"kind": "list", "count": 3, "total": 3, "item_tag": "li", "first_item": "Apples", "items": [],
                   "candidates": _candidates('[data-testid="deals"]')}],
        "dialogs": [],
    }
    products_survey = {"title": "Products", "landmarks": [], "headings": [{"level": 1, "text": "Products", "selector": []}],
                       "links": [], "buttons": [], "forms": [], "lists": [], "dialogs": []}

    def page(pid: str, slug: str, url: str, path: str, survey: dict[str, Any]) -> dict[str, Any]:
        return {"id": pid, "slug": slug, "url": url, "path": path, "title": survey["title"], "status": 200,
                "depth": 0, "signature": "0123456789ab", "template": "t", "outline": {
                    "landmarks": [], "headings": [], "fields": [], "buttons": [], "links": []},
                "visits": [url], "reached_by": None, "survey": survey, "console_errors": 0,
                "banner": {"selector": '[data-testid="cookie-ok"]', "target": "the OK button"},
                "controls": [], "searches": [], "submits": [], "snapshot": f"pages/{slug}/snapshot.md",
                "screenshot": ""}

    return {"start_url": "http://127.0.0.1:9/", "pages": [
        page("p001", "home", "http://127.0.0.1:9/", "/", home_survey),
        page("p002", "products", "http://127.0.0.1:9/products.html", "/products.html", products_survey)],
        "edges": [{"from": "p001", "to": "p002", "kind": "link", "selector": "", "name": "Products"}],
        "skipped": [], "loops": [], "dismiss": [], "actions": 0, "stopped_reason": "done"}


class RecordedPage:
    """A page for discover's in-page functions (discover/inpage.py's `Page`), answered from recordings:
    `states` (surveys), `texts`, `urls`, `messages` and `tables` are what the page shows, one per state (an action
    on a selector moves to the state `after[selector]`; a fresh load goes back to state 0), and every
    action is logged in `acted`."""

    def __init__(self, url: str, states: list[dict[str, Any]], *, after: dict[str, int] | None = None,
                 urls: dict[int, str] | None = None, texts: dict[int, str] | None = None,
                 messages: dict[int, list[str]] | None = None, tables: dict[int, Any] | None = None):
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

    def act(self, action: str, selector: str, value: str = "", *, then_ms: float = 0) -> Any:
        from flowwalk.browser.explore import Acted

        self.acted.append((action, selector, value))
        if selector in self.after:
            self.now = self.after[selector]
        return Acted(True, self.url)

    def tap(self, selector: str) -> bool:
        return bool(self.act("click", selector).found)

    def settle(self, idle_ms: int = 0) -> None:
        pass

    def wait(self, ms: float) -> None:
        pass

    def survey(self) -> dict[str, Any]:
        return self.states[self.now]

    def text(self) -> str:
        return self.texts.get(self.now, "")

    def messages(self) -> list[str]:
        return list(self.said.get(self.now, []))

    def count(self, selector: str) -> int:
        return 1

    def tables(self, limit: int = 12) -> Any:
        from flowwalk.browser.explore import Tables

        return self.tabled.get(self.now, Tables((), ()))
