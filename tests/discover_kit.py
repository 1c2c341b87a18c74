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
