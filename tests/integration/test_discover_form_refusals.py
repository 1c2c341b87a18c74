"""discover writes what a form refuses and what a field keeps (discover/refusals.py), on a small
server-rendered list and add form the test serves on 127.0.0.1: an 8-digit code the server asks
for in a message, a count whose upper bound only the server enforces (no `max` on the field),
titles stored trimmed. The refusal and edge specs pass on the app they were made from (discover
verified them twice), no row carries the refused text, and each spec fails on the app with the
rule loosened: a 7-digit code taken, the bound raised, a title kept with its outer spaces."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Iterator
from urllib.parse import parse_qs, quote, unquote, urlsplit

import pytest
import yaml

from flowwalk.browser import Browser
from flowwalk.cooperative import CancelToken
from flowwalk.discover import DiscoverOptions, discover
from flowwalk.discover.generate import GeneratedSpec
from flowwalk.discover.refusals import EDGE, REFUSED
from flowwalk.discover.values import crawl_text
from flowwalk.discover.verify import verify_specs
from flowwalk.settings import Settings
from served import serving

pytestmark = pytest.mark.browser


@dataclass
class Rules:
    digits: int = 8
    most: int = 50
    trim: bool = True
    rows: list[dict[str, str]] = field(default_factory=lambda: [{"title": "Anvil", "code": "12345678", "count": "3"}])


def _page(title: str, body: str) -> bytes:
    return (f"<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main>"
            "</body></html>").encode()


def _handler(rules: Rules) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _send(self, body: bytes, status: int = 200, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _form(self, values: dict[str, str], errors: dict[str, str]) -> bytes:
            rows = []
            for name, label, kind, extra in (("title", "Title", "text", ' maxlength="100" required'),
                                             ("code", "Code", "text", ' required'),
                                             ("count", "Count", "number", ' min="0" required')):
                error = f'<ul class="errorlist"><li>{html.escape(errors[name])}</li></ul>' if name in errors else ""
                rows.append(f'<div class="form-row">{error}<label for="id_{name}">{label}:</label>'
                            f'<input type="{kind}" name="{name}" id="id_{name}" value="{html.escape(values.get(name, ""))}"'
                            f'{extra}></div>')
            return _page("Add item", '<form method="post" id="item_form" novalidate>' + "".join(rows) +
                         '<input type="submit" value="Save" name="_save"></form>')

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/items/add/":
                return self._send(self._form({}, {}))
            if parts.path != "/items/":
                return self._send(_page("Not found", ""), 404)
            q = parse_qs(parts.query).get("q", [""])[0]
            shown = [r for r in rows_of(rules) if q.lower() in r["title"].lower()]
            body = "".join(f'<tr><th class="field-title"><a href="/items/">{html.escape(r["title"])}</a></th>'
                           f'<td>{html.escape(r["code"])}</td></tr>' for r in shown)
            cookie = self.headers.get("Cookie", "")
            said = unquote(cookie.split("flash=", 1)[1].split(";")[0]) if "flash=" in cookie else ""
            flash = f'<ul class="messagelist"><li class="success">{html.escape(said)}</li></ul>' if said else ""
            table = f'<table id="result_list"><thead><tr><th>Title</th><th>Code</th></tr></thead><tbody>{body}</tbody></table>' \
                if shown else "<p>0 items</p>"
            self._send(_page("Items", f'{flash}<a href="/items/add/">Add item</a>'
                             f'<form id="changelist-search" method="get"><label for="searchbar">Search</label>'
                             f'<input type="text" name="q" id="searchbar" value="{html.escape(q)}">'
                             f'<input type="submit" value="Search"></form>{table}'),
                       headers={"Set-Cookie": "flash=; Path=/"} if said else None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0") or 0)
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode(), keep_blank_values=True).items()}
            values = {k: form.get(k, "") for k in ("title", "code", "count")}
            errors: dict[str, str] = {}
            title = values["title"].strip() if rules.trim else values["title"]
            if not values["title"].strip():
                errors["title"] = "This field is required."
            if not (values["code"].isdigit() and rules.digits <= len(values["code"]) <= 8):
                errors["code"] = "A code has 8 digits."
            try:
                count = int(values["count"])
                if count > rules.most:
                    errors["count"] = f"Ensure this value is less than or equal to {rules.most}."
                if count < 0:
                    errors["count"] = "Ensure this value is greater than or equal to 0."
            except ValueError:
                errors["count"] = "Enter a whole number."
            if errors:
                return self._send(self._form(values, errors))
            rules.rows.append({**values, "title": title})
            said = f"The item “{title}” was added successfully."
            self._send(b"", 302, {"Location": "/items/", "Set-Cookie": f"flash={quote(said)}; Path=/"})

    return Handler


def rows_of(rules: Rules) -> list[dict[str, str]]:
    return sorted(rules.rows, key=lambda r: r["title"])


@pytest.fixture()
def served() -> Iterator[tuple[str, Rules]]:
    rules = Rules()
    with serving(_handler(rules)) as url:
        yield url, rules


def _spec(path: Path) -> GeneratedSpec:
    text = path.read_text(encoding="utf-8")
    return GeneratedSpec(path=path.name, feature=path.stem, data=yaml.safe_load(text), text=text)


def test_a_forms_refusals_and_edges_are_written_and_catch_a_loosened_rule(
        served: tuple[str, Rules], flowwalk_browser: Browser, tmp_path: Path, flowwalk_settings: Settings) -> None:
    url, rules = served
    out = tmp_path / "checks"
    result = discover(DiscoverOptions(url=f"{url}/items/", out_dir=out, use_model=False, submit_forms=True,
                                      max_pages=3, max_depth=1, budget_s=300), browser=flowwalk_browser)
    written = {Path(p).relative_to(out).as_posix() for p in result.specs_written}
    assert {"items/journey-refusals-items-add.flow.yaml", "items/journey-edges-items-add.flow.yaml"} <= written, \
        (written, result.needs_review)
    refused = yaml.safe_load((out / "items/journey-refusals-items-add.flow.yaml").read_text())["steps"]
    checks = [(s["kind"], s.get("selector"), s.get("value")) for s in refused if s["type"] == "expect"]
    # one digit short of what the message asked, one above the bound the server gave, each with its own message
    assert ("text_contains", ".form-row:has(#id_code)", "A code has 8 digits.") in checks
    assert ("text_contains", ".form-row:has(#id_count)", "Ensure this value is less than or equal to 50.") in checks
    assert ("url_contains", None, "/items/add/") in checks
    assert ("text_not_contains", None, "was added successfully") in checks
    assert ("text_not_contains", "#result_list", crawl_text(REFUSED)) in checks
    filled = [(s["selector"], s["value"]) for s in refused if s["type"] == "act" and s["action"] == "fill"]
    assert ("#id_code", "9780000") in filled and ("#id_count", "51") in filled
    edges = yaml.safe_load((out / "items/journey-edges-items-add.flow.yaml").read_text())["steps"]
    assert ("#id_count", "50") in [(s["selector"], s["value"]) for s in edges if s.get("action") == "fill"]
    trimmed = [s for s in edges if s.get("kind") == "has_text"]
    assert [(s["value"], s["keep_whitespace"]) for s in trimmed] == [(crawl_text(EDGE), True)]
    assert trimmed[0]["selector"].startswith(f'#result_list > tbody > tr:has-text("{crawl_text(EDGE)}") a')
    # nothing the refusals submitted was kept
    assert not any(crawl_text(REFUSED) in r["title"] for r in rules.rows)

    # each rule loosened in turn, on the app's own rows again: the spec written for it fails
    for loosened, failing in ((Rules(digits=7), "journey-refusals-items-add"), (Rules(most=500), "journey-refusals-items-add"),
                              (Rules(trim=False), "journey-edges-items-add")):
        rules.digits, rules.most, rules.trim, rules.rows = loosened.digits, loosened.most, loosened.trim, loosened.rows
        verdicts = verify_specs([_spec(out / f"items/{failing}.flow.yaml")], tmp_path / "verify", flowwalk_settings,
                                progress=lambda line: None, cancel=CancelToken())
        assert verdicts[f"{failing}.flow.yaml"] is not None, (loosened, verdicts)
