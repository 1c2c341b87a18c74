"""`discover` on a multi-page admin site shaped like Django's admin (tests/adminlike.py), logged in.

What a user sees: without --submit-forms nothing on the server changes; with it, the crawl creates
rows only through the journeys' own forms, each carrying the crawl's text, and the journey reads
list → add form → (empty submit: what is missing) → save → the list shows the new row → the search
finds it. Far fewer specs than features, every crawled page still visited by a smoke spec.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from adminlike import LOGIN_FLOW_YAML, PASSWORD, USER, AdminSite
from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, DiscoverResult, discover
from flowwalk.discover.journeys import CRAWL_TEXT

pytestmark = pytest.mark.browser


@pytest.fixture()
def admin() -> Iterator[AdminSite]:
    with AdminSite() as site:
        yield site


def crawl(site: AdminSite, out: Path, browser: Browser, monkeypatch: pytest.MonkeyPatch, **options: Any) -> DiscoverResult:
    monkeypatch.setenv("ADMIN_PASSWORD", PASSWORD)
    login = out.parent / "login.flow.yaml"
    login.write_text(LOGIN_FLOW_YAML)
    return discover(DiscoverOptions(url=f"{site.url}/admin/", out_dir=out, use_model=False, login=login,
                                    variables=(("ADMIN_USER", USER),), secret_names=("ADMIN_PASSWORD",), **options),
                    browser=browser)


def test_without_submit_forms_nothing_on_the_server_changes(admin: AdminSite, flowwalk_browser: Browser,
                                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = admin.rows()
    result = crawl(admin, tmp_path / "checks", flowwalk_browser, monkeypatch, max_pages=8, verify=False)
    assert result.pages == 8 and admin.rows() == before
    assert result.journeys == ()
    # every crawled page is visited by a smoke spec
    specs = "".join(Path(p).read_text() for p in result.specs_written)
    record = json.loads((tmp_path / "checks" / "discover" / "crawl.json").read_text())
    assert all(page["path"].split("?")[0] in specs for page in record["pages"])


@pytest.mark.long
def test_a_journey_creates_through_the_add_form_and_finds_the_row(admin: AdminSite, flowwalk_browser: Browser,
                                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = admin.rows()
    out = tmp_path / "checks"
    result = crawl(admin, out, flowwalk_browser, monkeypatch, max_pages=4, submit_forms=True)
    after = admin.rows()
    # nothing that was there is changed or gone; every new row carries the crawl's text
    for model, rows in before.items():
        assert after[model][:len(rows)] == rows
        assert all(CRAWL_TEXT in " ".join(str(v) for v in row.values()) for row in after[model][len(rows):])
    assert len(after["author"]) > len(before["author"])
    journey = next(j for j in result.journeys if j.id.endswith("journey-create-admin-library-author-add"))
    assert journey.page == "/admin/library/author/" and journey.status == "written"
    assert [line.split(":")[0] for line in journey.covers] == [
        "open 'Add author'", "submit the form empty",
        f"fill the form (name '{CRAWL_TEXT} 1'; born '1') and submit it", f"search for '{CRAWL_TEXT} 1'"]
    spec = (out / journey.spec).read_text()
    assert "value: This field is required." in spec
    assert f"value: The author “{CRAWL_TEXT} 1” was added successfully." in spec
    assert f"selector: '#result_list'\n  value: {CRAWL_TEXT} 1" in spec or "#result_list" in spec
    # the row count grows with every run: the two walks saw different counts, and it is left out
    index = (out / "discover" / "index.md").read_text()
    assert "(the two walks differed)" in index
    assert "/favicon.ico answered HTTP 404" not in index or "## Resources that did not load" in index
    assert result.needs_review == () or all("signup" in p for p in result.needs_review)
