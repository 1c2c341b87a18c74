"""Which requests a spec route answers (browser/routing.py `route_regex`), and the routes a flow
loads (spec/routes.py): files beside the spec, hosts the flow may reach."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.browser.routing import route_regex
from flowwalk.errors import SpecError
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites


@pytest.mark.parametrize("pattern, subject, matches", [
    ("/api/offers", "/api/offers", True),
    ("/api/offers", "/api/offers/2", False),
    ("/api/*", "/api/offers", True),
    ("/api/*", "/api/offers/2", False),
    ("/api/**", "/api/offers/2", True),
    ("/api/offers?store=*", "/api/offers?store=corner", True),
    ("https://cdn.example.com/*.js", "https://cdn.example.com/app.js", True),
    ("https://cdn.example.com/*.js", "https://cdn.example.com/lib/app.js", False),
    ("**/offers", "http://127.0.0.1:8000/api/offers", True),
    ("/a.b", "/aXb", False),   # a dot is a dot
])
def test_a_route_url_matches_as_a_glob(pattern: str, subject: str, matches: bool) -> None:
    assert bool(route_regex(pattern).match(subject)) is matches


def test_routes_load_with_their_files_and_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "specs" / "data").mkdir(parents=True)
    (tmp_path / "specs" / "data" / "offers.json").write_text("[]")
    (tmp_path / "specs" / "shop.flow.yaml").write_text('''spec_version: "1.1"
name: shop
url: https://shop.example.com/
allowed_hosts: [cdn.example.com]
routes:
  - {url: /api/offers, method: POST, file: data/offers.json, headers: {x-stub: "1"}, delay_ms: 50}
  - {url: /api/offers, json: {ok: true}}
  - {url: "https://cdn.example.com/**", abort: true}
steps:
  - {type: expect, kind: url_contains, value: shop}
''')
    [suite] = load_suites(["specs"], Settings())
    first, second, third = suite.scenarios[0].routes
    assert (first.method, first.file, first.headers, first.delay_ms, first.loc.line) == \
        ("POST", "specs/data/offers.json", (("x-stub", "1"),), 50, 6)
    assert (second.body, second.json, second.status) == ('{"ok": true}', True, 200)
    assert third.abort and third.body is None


def test_a_route_to_a_host_the_flow_may_not_reach_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.flow.yaml").write_text('''spec_version: "1.1"
name: x
url: https://shop.example.com/
routes:
  - {url: "https://evil.example.net/*", status: 200}
steps:
  - {type: expect, kind: url_contains, value: shop}
''')
    with pytest.raises(SpecError) as caught:
        load_suites(["x.flow.yaml"], Settings())
    assert "x.flow.yaml:5:11: error: route url 'https://evil.example.net/*' is on 'evil.example.net'" in str(caught.value)
