"""`discover` against tests/site/pages/discover/ in real Chromium (the session's shared browser).

What a user sees: destructive links and buttons are never followed (the server never hears of
them), template pages collapse, a control that leads back to a page already crawled is a loop,
the specs written pass `flowwalk run`, crawl.json satisfies its schema, a crawl that stopped
resumes, and two crawls of an unchanged site write identical specs.
"""

from __future__ import annotations

import json
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema import Draft202012Validator

from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, DiscoverResult, discover
from flowwalk.discover.record import CRAWL_SCHEMA, generate_schemas
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites
from served import serving

pytestmark = pytest.mark.browser

PAGES = Path(__file__).resolve().parents[1] / "site" / "pages"


class _Recording(SimpleHTTPRequestHandler):
    """Serves tests/site/pages and remembers every path asked for."""

    requested: list[str]

    def log_message(self, format: str, *args: object) -> None:
        return

    def do_GET(self) -> None:  # noqa: N802
        self.requested.append(self.path)
        super().do_GET()


@pytest.fixture()
def recording_site() -> Iterator[tuple[str, list[str]]]:
    requested: list[str] = []
    handler = type("Handler", (_Recording,), {"requested": requested})
    with serving(partial(handler, directory=str(PAGES))) as url:
        yield url, requested


def run(url: str, out: Path, browser: Browser, **options: Any) -> DiscoverResult:
    lines: list[str] = []
    result = discover(DiscoverOptions(url=url, out_dir=out, use_model=False, **options),
                      progress=lines.append, browser=browser)
    assert lines, "discover said nothing on the way"
    return result


def test_a_page_whose_every_control_destroys_something_is_left_alone(
        recording_site: tuple[str, list[str]], flowwalk_browser: Browser, tmp_path: Path) -> None:
    base, requested = recording_site
    result = run(f"{base}/discover/danger.html", tmp_path / "checks", flowwalk_browser, verify=False)
    assert result.pages == 1 and result.stopped_reason == "done"
    assert not [p for p in requested if "gone" in p or "delete" in p], requested
    crawl = json.loads((tmp_path / "checks" / "discover" / "crawl.json").read_text())
    reasons = [s["reason"] for s in crawl["skipped"]]
    assert len([r for r in reasons if r.startswith("destructive")]) == 8, reasons
    index = (tmp_path / "checks" / "discover" / "index.md").read_text()
    assert "destructive ('delete'): link 'Delete item 1'" in index


def test_a_url_templates_further_rows_are_not_loaded_once_two_were_one_page(
        recording_site: tuple[str, list[str]], flowwalk_browser: Browser, tmp_path: Path) -> None:
    url, requested = recording_site
    run(f"{url}/rows/index.html", tmp_path / "checks", flowwalk_browser, max_pages=5, verify=False)
    crawl = json.loads((tmp_path / "checks" / "discover" / "crawl.json").read_text())
    pages = {p["path"]: p for p in crawl["pages"]}
    assert set(pages) == {"/rows/index.html", "/rows/1/"} and len(pages["/rows/1/"]["visits"]) == 2
    assert {s["what"].rsplit("/rows/", 1)[1] for s in crawl["skipped"] if "URL template" in s["reason"]} == {"3/", "4/", "5/"}
    assert not {"/rows/3/", "/rows/4/", "/rows/5/"} & set(requested)


def test_a_control_that_leads_back_to_a_page_already_seen_is_recorded_as_a_loop(
        recording_site: tuple[str, list[str]], flowwalk_browser: Browser, tmp_path: Path) -> None:
    # loop-a.html shows the overview, loop-b.html the details; a tab on each switches between them
    base, _ = recording_site
    result = run(f"{base}/discover/loop-a.html", tmp_path / "checks", flowwalk_browser, verify=False)
    assert result.pages == 2 and result.stopped_reason == "done"
    crawl = json.loads((tmp_path / "checks" / "discover" / "crawl.json").read_text())
    overview, details = crawl["pages"]
    assert [overview["path"], details["path"]] == ["/discover/loop-a.html", "/discover/loop-b.html"]
    # the overview's "Details" tab led to a new outline; the details' "Overview" tab led back
    assert [(lp["page"], lp["signature"]) for lp in crawl["loops"]] == [(details["id"], overview["signature"])]
    assert "view-overview" in crawl["loops"][0]["action"]
    index = (tmp_path / "checks" / "discover" / "index.md").read_text()
    assert "## Loops" in index and overview["signature"] in index


def test_discover_writes_specs_that_pass_and_says_what_it_found(site: Any, flowwalk_browser: Browser,
                                                               tmp_path: Path) -> None:
    out = tmp_path / "checks"
    result = run(f"{site.url}/discover/index.html", out, flowwalk_browser, max_pages=6, submit_forms=True)
    crawl = json.loads((out / "discover" / "crawl.json").read_text())
    assert list(Draft202012Validator(generate_schemas()[CRAWL_SCHEMA]).iter_errors(crawl)) == []
    pages = {p["path"]: p for p in crawl["pages"]}
    # the three book pages are one template, visited three times
    assert len(pages["/discover/book-1.html"]["visits"]) == 3
    assert set(pages) == {"/discover/index.html", "/discover/books.html", "/discover/contact.html",
                          "/discover/danger.html", "/discover/book-1.html"}
    kinds = {f["id"]: f["kind"] for f in crawl["features"]}
    assert kinds["discover-index/navigation"] == "navigation" and kinds["discover-index/control"] == "control"
    assert kinds["discover-books/search"] == "search" and kinds["discover-contact/form"] == "form"
    for page in crawl["pages"]:
        assert (out / "discover" / page["snapshot"]).read_text().count("```") == 2
        assert (out / "discover" / page["screenshot"]).read_bytes()[:4] == b"\x89PNG"
    # every spec passed twice and was written; they load as flowwalk run would load them
    assert result.needs_review == ()
    # fewer, stronger specs: the five pages' headings in one smoke spec, then the behaviours
    assert len(result.specs_written) == len(crawl["specs"]) >= 5
    assert sum(p.endswith("/smoke.flow.yaml") for p in result.specs_written) == 1
    suites = load_suites([str(out)], Settings())
    assert len(suites) == len(result.specs_written)
    # the contact form is a journey's: open it, submit it empty (what is missing), fill it, send it
    contact = next(j for j in result.journeys if j.id == "discover-index/journey-create-discover-contact")
    assert [line.split(":")[0] for line in contact.covers][:2] == ["open 'Contact'", "submit the form empty"]
    assert "value: Please enter your email address" in (out / contact.spec).read_text()
    search = (out / "discover-books" / "search.flow.yaml").read_text()
    assert "kind: text_not_contains" in search and "value: Dune" in search
    assert "(needs" not in (out / "discover" / "index.md").read_text()


def test_two_crawls_write_identical_specs_and_a_stopped_crawl_resumes(site: Any, flowwalk_browser: Browser,
                                                                     tmp_path: Path) -> None:
    url = f"{site.url}/discover/index.html"
    first = run(url, tmp_path / "a", flowwalk_browser, max_pages=3, verify=False)
    second = run(url, tmp_path / "b", flowwalk_browser, max_pages=3, verify=False)
    assert first.stopped_reason == second.stopped_reason == "max_pages"

    def specs(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.yaml"))
                if "discover" != p.relative_to(root).parts[0]}

    assert specs(tmp_path / "a") and specs(tmp_path / "a") == specs(tmp_path / "b")
    state = json.loads((tmp_path / "a" / "discover" / "discover.state.json").read_text())
    assert len(state["pages"]) == 3 and state["queue"]
    resumed = run(url, tmp_path / "a", flowwalk_browser, max_pages=6, verify=False, resume=True)
    assert resumed.stopped_reason == "done" and resumed.pages == 5
    crawl = json.loads((tmp_path / "a" / "discover" / "crawl.json").read_text())
    assert [p["id"] for p in crawl["pages"]][:3] == [p["id"] for p in state["pages"]]


def test_login_first_keeps_the_session_and_starts_every_spec(example_site: Any, flowwalk_browser: Browser,
                                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_PASSWORD", "correct-horse-battery")
    out = tmp_path / "checks"
    login = Path(__file__).resolve().parents[2] / "examples" / "flows" / "login.flow.json"
    # (verify=False: the specs' runs are the run machinery the other tests verify with; this one is
    # about the crawl's own session)
    result = run(f"{example_site.url}/dashboard.html", out, flowwalk_browser, max_pages=1, login=login,
                 variables=(("DEMO_USER", "ada@example.com"),), secret_names=("DEMO_PASSWORD",), verify=False)
    # the dashboard is behind the login: the crawl saw it logged in, and so do the specs, each from
    # the session the one sign-in setup saves
    assert result.pages == 1 and len(result.specs_written) >= 2
    setup = (out / "sign-in.flow.yaml").read_text()
    assert f"url: {example_site.url}/login.html" in setup and "value: '{{DEMO_PASSWORD}}'" in setup
    assert "saves_session: discover-login" in setup
    spec = (out / "dashboard" / "smoke.flow.yaml").read_text()
    assert "session: discover-login" in spec and f"url: {example_site.url}/dashboard.html" in spec
    assert "correct-horse-battery" not in spec + setup and "DEMO_PASSWORD" not in spec
    assert "Welcome back, Ada" in spec
    crawl = json.loads((out / "discover" / "crawl.json").read_text())
    assert any("destructive ('log out')" in s["reason"] or "destructive ('logout')" in s["reason"]
               for s in crawl["skipped"])


def test_the_configured_model_is_asked_once_and_recorded(recording_site: tuple[str, list[str]],
                                                        flowwalk_browser: Browser, tmp_path: Path) -> None:
    from fake_model import FakeModel, Reply

    base, _ = recording_site
    with FakeModel() as fake:
        fake.script(Reply({"specs": [{"spec": 1, "name": "The danger zone answers", "extra": [
            {"kind": "url_contains", "value": "http://evil.example/steal"}]}]}))
        config = tmp_path / "flowwalk.yaml"
        config.write_text(f"model:\n  base_url: {fake.base_url}\n  model: fake-1\n")
        result = discover(DiscoverOptions(url=f"{base}/discover/danger.html", out_dir=tmp_path / "checks",
                                          verify=False, config_path=config), browser=flowwalk_browser)
    crawl = json.loads((tmp_path / "checks" / "discover" / "crawl.json").read_text())
    assert [c["outcome"] for c in crawl["model_calls"]] == ["answered"]
    assert crawl["model_drops"][0]["reason"] == "not a URL of the crawl inside the allowed hosts"
    assert "name: The danger zone answers" in (tmp_path / "checks" / "discover-danger" / "smoke.flow.yaml").read_text()
    assert result.dropped and "evil.example" in (tmp_path / "checks" / "discover" / "index.md").read_text()


def test_a_single_page_app_is_explored_from_the_state_its_login_left(site: Any, flowwalk_browser: Browser,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # spa.html keeps its login in the page: loading its URL again shows the login form
    monkeypatch.setenv("SPA_PASSWORD", "pw-1")
    login = tmp_path / "login.flow.yaml"
    login.write_text('spec_version: "1.1"\nname: sign in\nurl: /discover/spa.html\nsteps:\n'
                     '  - {type: act, action: fill, selector: "#user", value: ada}\n'
                     '  - {type: act, action: fill, selector: "#password", value: "{{SPA_PASSWORD}}"}\n'
                     '  - {type: act, action: click, selector: "#sign-in"}\n'
                     '  - {type: expect, kind: text_contains, value: My notes}\n')
    out = tmp_path / "checks"
    result = run(f"{site.url}/discover/spa.html", out, flowwalk_browser, max_pages=2, login=login,
                 secret_names=("SPA_PASSWORD",), submit_forms=True)
    assert result.pages == 1 and result.needs_review == ()
    smoke = (out / "discover-spa" / "smoke.flow.yaml").read_text()
    assert "value: My notes" in smoke and "'{{SPA_PASSWORD}}'" in smoke and "type: goto" not in smoke
    main = next(j for j in result.journeys if j.id.endswith("journey-main"))
    assert main.status == "written" and "#note-count reads '2 notes'" in " ".join(main.covers)
