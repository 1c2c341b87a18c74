"""discover's pure parts: destructive words, URL keys, DOM signatures, selector choice, spec writing."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from discover_kit import crawl_state, element, page
from flowwalk.browser.explored import Candidate, Element, Form, Heading, Landmark, Listed, Survey
from flowwalk.cli import main
from flowwalk.discover.features import classify, form_kind
from flowwalk.discover.generate import SignIn, generate_specs
from flowwalk.spec.models import FlowSpecModel
from flowwalk.spec.writer import render_as
from flowwalk.discover.options import DEFAULT_DESTRUCTIVE, DiscoverOptions
from flowwalk.discover.record import CRAWL_SCHEMA, Limits, SpecRecord, build_record, generate_schemas
from flowwalk.discover.state import CrawlState
from flowwalk.discover.safety import destructive_word, host_in_scope, url_key
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.signature import dom_signature, template_key, url_template
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_file, load_suites

WORDS = DEFAULT_DESTRUCTIVE


@pytest.mark.parametrize("element, word", [
    ({"name": "Delete item"}, "delete"),
    ({"name": "Go", "testid": "deleteItem"}, "delete"),
    ({"name": "Item 3", "raw_href": "/items/3/delete"}, "delete"),
    ({"name": "Bye", "classes": ["logout"]}, "logout"),
    ({"name": "Stop", "testid": "cancel-subscription"}, "cancel subscription"),
    ({"name": "Leave", "testid": "sign-out"}, "sign out"),
    ({"name": "Pay now"}, "pay"),
    ({"name": "Deleted items"}, None),
    ({"name": "Cancellation policy"}, None),
    ({"name": "Payments history", "raw_href": "/billing/history"}, None),
    ({"name": "Dropdown"}, None),
])
def test_destructive_words_are_whole_words(element: dict[str, Any], word: str | None) -> None:
    assert destructive_word(element, WORDS) == word


def test_the_destructive_list_is_configurable() -> None:
    options = DiscoverOptions(url="http://127.0.0.1/", destructive_add=("Publish",), destructive_remove=("archive",))
    words = options.destructive_words()
    assert "publish" in words and "archive" not in words and "delete" in words
    assert destructive_word({"name": "Publish post"}, words) == "publish"
    assert destructive_word({"name": "Archive"}, words) is None


def test_url_keys_drop_anchors_but_keep_hash_routes() -> None:
    assert url_key("http://127.0.0.1:8000/a.html#top") == "http://127.0.0.1:8000/a.html"
    assert url_key("http://127.0.0.1:8000/#/active") == "http://127.0.0.1:8000/#/active"
    assert url_key("HTTP://Example.COM:80/x?q=1") == "http://example.com/x?q=1"
    assert host_in_scope("help.example.com", "www.example.com", ["example.com"])
    assert not host_in_scope("evil.com", "www.example.com", ["example.com"])


def survey(heading: str, buttons: tuple[str, ...] = ("Save",), items: int = 3) -> Survey:
    return Survey(landmarks=(Landmark("main"),), headings=(Heading(1, heading),),
                  buttons=tuple(Element(name=b) for b in buttons),
                  lists=(Listed(count=items, items=tuple(f"item {i}" for i in range(items))),))


def test_signatures_collapse_numbers_and_list_lengths_not_meaning() -> None:
    assert dom_signature(survey("Order 1041")) == dom_signature(survey("Order 1042", items=7))
    assert dom_signature(survey("Cart")) != dom_signature(survey("Products"))
    assert dom_signature(survey("Cart", ("Save",))) != dom_signature(survey("Cart", ("Save", "Share")))
    assert url_template("http://h/items/42/edit") == "/items/{id}/edit"
    assert template_key("http://h/p/7", survey("Red shirt")) == template_key("http://h/p/9", survey("Blue hat"))
    assert template_key("http://h/p/7", survey("Red shirt")) != template_key("http://h/q/9", survey("Blue hat"))


def test_selectors_prefer_test_ids_then_ids_then_labels_and_never_a_chain_when_better_exists() -> None:
    def named(*candidates: tuple[str, str, int]) -> Element:
        return Element(candidates=tuple(Candidate(s, h, n) for s, h, n in candidates))

    assert choose_selector(named(("main > a:nth-of-type(2)", "position", 1), ("#go", "id", 1),
                                 ("[data-testid=\"go\"]", "testid", 1))) == '[data-testid="go"]'
    assert choose_selector(named(("[data-testid=\"go\"]", "testid", 2), ("#go", "id", 1))) == "#go"
    assert choose_selector(named(("text=\"Go\"", "text", 1), ("a[href=\"/go\"]", "role", 1))) == 'a[href="/go"]'
    assert choose_selector(named(("text=\"Go\"", "text", 3), ("main > a", "position", 1))) == "main > a"
    assert choose_selector(named(("text=\"Go\"", "text", 0))) is None
    assert target_of(Element(kind="button", name="Log in")) == "the Log in button"
    assert target_of(Element(kind="field", type="email", name="Email")) == "the Email field"


def test_forms_are_classified_with_a_reason() -> None:
    login = Form(fields=(Element(type="email"), Element(type="password", autocomplete="current-password")))
    signup = Form(fields=(Element(type="text"), Element(type="email"),
                          Element(type="password", autocomplete="new-password")))
    assert form_kind(login)[0] == "login"
    assert form_kind(signup)[0] == "signup"
    assert form_kind(Form(search=True, fields=(Element(type="text"),)))[0] == "search"
    assert form_kind(Form(fields=(Element(type="text"),))) == ("form", "a form with 1 field")


def test_generated_specs_validate_name_every_act_and_are_deterministic(tmp_path: Path) -> None:
    state = crawl_state()
    features = classify(state.pages, state.dismiss)
    assert [f.kind for f in features] == ["page", "navigation", "login", "list", "page"]
    specs = generate_specs(state, features)
    # the state read back with the types it was written with gives the same specs
    again = CrawlState.from_json(state.to_json())
    assert again == state
    assert [s.text for s in specs] == [s.text for s in generate_specs(again, classify(again.pages, again.dismiss))]
    # fewer, stronger specs: the headings go into one smoke spec, the list at rest and a form that
    # would only read back what was typed into it are not written
    assert [s.path for s in specs] == ["home/smoke.flow.yaml", "home/navigation.flow.yaml"]
    for spec in specs:
        path = tmp_path / spec.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(spec.text, encoding="utf-8")
        suite, problems = load_file(path, Settings())
        assert problems == [] and suite is not None, spec.text
        for step in spec.data["steps"]:
            if step.get("type") == "act":
                assert step["selector"] and step["target"], step
        assert spec.data["steps"][0]["selector"] == '[data-testid="cookie-ok"]'   # the banner first
        assert spec.data["assertions"] == [{"kind": "no_console_errors"}]
    nav = next(s for s in specs if s.path == "home/navigation.flow.yaml")
    assert [s.get("value") for s in nav.data["steps"] if s.get("type") == "expect"] == ["/products.html", "Products"]
    smoke = specs[0].data["steps"]
    assert [(s.get("type"), s.get("value") or s.get("url")) for s in smoke[1:]] == [
        ("expect", "Welcome"), ("expect", "^http://127\\.0\\.0\\.1:9/?(\\?.*)?$"), ("goto", "/products.html"),
        ("expect", "Products"), ("expect", "/products.html")]


def test_a_generated_spec_is_its_tree_through_the_one_writer() -> None:
    state = crawl_state()
    smoke = generate_specs(state, classify(state.pages, state.dismiss))[0]
    lines = smoke.text.splitlines()
    assert lines[0] == "# yaml-language-server: $schema=https://flowwalk.dev/schemas/flow-spec.v1.schema.json"
    assert lines[1:1 + len(smoke.header)] == [f"# {line}" for line in smoke.header]
    # a step that fits on a line is written on one, as docs/flow-spec.md's examples write it
    assert "  - {type: goto, url: /products.html}" in lines
    assert smoke.text == render_as(FlowSpecModel.model_validate(smoke.data), smoke.path, smoke.header)


def test_a_login_is_one_setup_whose_session_every_spec_starts_from(tmp_path: Path) -> None:
    state = crawl_state()
    login = SignIn("http://127.0.0.1:9/login", (
        {"type": "act", "action": "fill", "selector": "#user", "value": "{{USER}}"},
        {"type": "act", "action": "fill", "selector": "#password", "value": "{{PASSWORD}}"},
        {"type": "act", "action": "press", "selector": "#password", "value": "Enter"}))
    specs = generate_specs(state, classify(state.pages, state.dismiss), login=login)
    setup, *rest = specs
    assert (setup.path, setup.data["saves_session"], setup.data["url"]) == ("sign-in.flow.yaml", "discover-login",
                                                                           login.url)
    assert setup.data["steps"] == list(login.steps) and setup.variables == ("PASSWORD", "USER")
    assert rest and all(s.data["session"] == "discover-login" and "saves_session" not in s.data for s in rest)
    assert not any(step.get("selector") == "#user" for s in rest for step in s.data["steps"])
    assert rest[0].data["url"] == state.pages[0].url
    for spec in specs:
        (tmp_path / spec.path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / spec.path).write_text(spec.text, encoding="utf-8")
    suites = load_suites([str(tmp_path)], Settings(variables={"USER": "ada", "PASSWORD": "x"}))
    assert sorted(sc.rules[0].saves_session or "" for suite in suites for sc in suite.scenarios)[-1] == "discover-login"
    # a login kept in the page (a single-page app) is no cookie session: its steps start each spec
    state.login_landing = "http://127.0.0.1:9/"
    inline = generate_specs(state, classify(state.pages, state.dismiss), login=login)
    assert all("session" not in s.data and s.data["steps"][0]["selector"] == "#user" for s in inline)


def test_a_page_that_failed_to_load_a_resource_is_not_held_to_no_console_errors() -> None:
    state = crawl_state()
    state.put(replace(state.pages[1], failed_resources=("/favicon.ico answered HTTP 404",)))
    specs = generate_specs(state, classify(state.pages, state.dismiss))
    assert "assertions" not in specs[0].data                 # the smoke spec covers /products.html
    assert specs[1].data["assertions"] == [{"kind": "no_console_errors"}]


def test_an_account_form_uses_variables_only_when_forms_are_submitted() -> None:
    state = crawl_state()
    features = classify(state.pages, state.dismiss)
    assert not any(s.path == "home/login.flow.yaml" for s in generate_specs(state, features))
    submitting = next(s for s in generate_specs(state, features, submit_forms=True) if s.path == "home/login.flow.yaml")
    assert submitting.variables == ("LOGIN_EMAIL", "LOGIN_PASSWORD")
    assert submitting.data["steps"][-2]["selector"] == '[data-testid="login"]'


def test_the_crawl_record_satisfies_its_schema() -> None:
    state = crawl_state()
    features = classify(state.pages, state.dismiss)
    record = build_record(state, features, [SpecRecord(path="home/page.flow.yaml", feature="home/page",
                                                       status="written")],
                          limits=Limits(max_pages=50, max_depth=4, max_actions=200, budget_s=600.0, submit_forms=False,
                                        allow_hosts=[], destructive_words=list(WORDS)),
                          duration_s=1.0, drops=[])
    data = json.loads(record.model_dump_json(by_alias=True))
    errors = list(Draft202012Validator(generate_schemas()[CRAWL_SCHEMA]).iter_errors(data))
    assert errors == []
    assert data["pages"][0]["links_to"] == ["p002"] and data["edges"][0]["from"] == "p001"


@pytest.mark.parametrize("args, message", [
    (["ftp://example.com", "--out", "x"], "is not an http(s) URL"),
    (["http://127.0.0.1:9/", "--out", "x", "--max-pages", "0"], "--max-pages 0 is below 1"),
    (["http://127.0.0.1:9/", "--out", "x", "--allow-host", "https://a.example"], "is not a bare host name"),
])
def test_bad_input_is_refused_before_any_browser(args: list[str], message: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["discover", *args])
    assert result.exit_code == 3
    assert message in result.output
    assert "Traceback" not in result.output


def _list_page(url: str, items: list[str]) -> Any:
    listed = Listed(candidates=(Candidate("#result_list", "id", 1),), count=len(items), items=tuple(items))
    return page("p001", "books", url, "/books/", Survey(lists=(listed,)))


def test_a_link_to_the_same_list_narrowed_checks_a_row_it_shows_and_one_it_leaves_out() -> None:
    from flowwalk.discover.generate import _narrowed

    books = ["Excession Iain Banks", "Dune Frank Herbert", "Use of Weapons Iain Banks"]
    everything = _list_page("http://127.0.0.1:8000/admin/library/book/", books)
    by_banks = _list_page("http://127.0.0.1:8000/admin/library/book/?author__id__exact=1", [books[0], books[2]])
    # the URL and heading alone pass when the filter shows the wrong rows: these do not
    assert _narrowed(everything, by_banks) == [
        {"type": "expect", "kind": "text_contains", "value": "Excession Iain Banks", "selector": "#result_list"},
        {"type": "expect", "kind": "text_not_contains", "value": "Dune Frank Herbert", "selector": "#result_list"}]
    # another page, a list that did not shrink, or no query: nothing to say about rows
    assert _narrowed(everything, _list_page("http://127.0.0.1:8000/admin/library/author/?q=x", books[:1])) == []
    assert _narrowed(everything, _list_page("http://127.0.0.1:8000/admin/library/book/?o=1", books)) == []
    assert _narrowed(by_banks, everything) == []
    # a left-out row whose text a shown row contains is never the one checked absent
    assert _narrowed(_list_page(everything.url, ["Dune", "Dune Messiah", "Emma"]),
                     _list_page(everything.url + "?q=dune", ["Dune Messiah"])) == [
        {"type": "expect", "kind": "text_contains", "value": "Dune Messiah", "selector": "#result_list"},
        {"type": "expect", "kind": "text_not_contains", "value": "Emma", "selector": "#result_list"}]


def test_a_step_the_loader_would_refuse_is_left_out_and_the_header_says_why(tmp_path: Path) -> None:
    from flowwalk.discover.generate import _spec, _Writer

    writer = _Writer(crawl_state(), None, (), False)
    steps: list[Any] = [{"type": "act", "action": "click", "target": "the banner", "selector": "#ok"},
                        {"type": "act", "action": "click", "target": "the odd link", "selector": "//a[1]"},
                        {"type": "expect", "kind": "visible", "selector": "h1"}]
    spec = _spec(writer, "home/odd.flow.yaml", "home/odd", "odd", "a page with an odd link", "http://127.0.0.1:9/",
                 steps, 1, ["odd on /"], False)
    assert [s["selector"] for s in spec.data["steps"]] == ["#ok", "h1"]
    assert spec.header == ("odd on /", "left out step 2 (act click //a[1]): XPath selector '//a[1]' is not allowed")
    path = tmp_path / spec.path
    path.parent.mkdir(parents=True)
    path.write_text(spec.text, encoding="utf-8")
    suite, problems = load_file(path, Settings())
    assert problems == [] and suite is not None
