"""`flowwalk discover` on a third-party app: TodoMVC's VanillaJS implementation (other people's
code, fetched by scripts/fetch_thirdparty.sh, served on 127.0.0.1). With --submit-forms it adds a
todo, which shows the filter links (hash routes), and every spec it writes passes twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from flowwalk.browser import Browser
from flowwalk.discover import DiscoverOptions, discover
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings, default_executable
from flowwalk.spec.loader import load_suites

pytestmark = pytest.mark.browser

PACKAGE = Path(__file__).resolve().parents[2] / ".cache" / "thirdparty" / "todomvc" / "package"


@pytest.fixture(scope="module")
def browser(playwright_instance: Any) -> Iterator[Browser]:
    """A flowwalk Browser on the session's Playwright (one sync Playwright per thread)."""
    launched = Browser.launch(Settings(executable=default_executable()), playwright=playwright_instance)
    yield launched
    launched.close()


@pytest.mark.long
def test_discover_todomvc_vanillajs(tmp_path: Path, browser: Browser) -> None:
    assert PACKAGE.is_dir(), "run scripts/fetch_thirdparty.sh (scripts/test.sh does) to fetch TodoMVC"
    out = tmp_path / "checks"
    with StaticServer(PACKAGE) as server:
        result = discover(DiscoverOptions(url=f"{server.url}/examples/vanillajs/index.html", out_dir=out,
                                          submit_forms=True, max_pages=4, use_model=False), browser=browser)
    assert result.stopped_reason == "done" and result.needs_review == ()
    assert result.pages == 3          # the start page, then #/ (with #/active collapsed into it) and #/completed
    assert len(result.specs_written) == len(load_suites([str(out)], Settings()))
    # the journeys: add two todos and use what they revealed; delete the one it made; reload. (VanillaJS
    # builds its edit field on double-click, so no hidden edit field says the row can be edited)
    ids = [j.id.split("/", 1)[1] for j in result.journeys]
    assert ids[0] == "journey-main" and {"journey-row-delete", "journey-reload"} <= set(ids)
    assert all(j.status == "written" for j in result.journeys)
    main = yaml.safe_load((out / "examples-vanillajs-index" / "journey-main.flow.yaml").read_text())["steps"]

    def written(**want: Any) -> bool:
        return any(want.items() <= step.items() for step in main)

    assert written(kind="count", selector="#todo-list > li:visible", equals=2)     # a counted effect, not the input
    assert written(kind="checked") and written(kind="url_contains", value="#/")
    # the Active filter's move checks its link becoming `selected`: the All filter's move checked the URL
    assert written(kind="attribute", selector='a[href="#/active"]', name="class", contains="selected")
    assert written(value="1 item left")
    index = (out / "discover" / "index.md").read_text()
    assert "http://todomvc.com/: outside the allowed hosts" in index
    assert "## Journeys" in index and "/examples/vanillajs/index.html#/completed" in index
