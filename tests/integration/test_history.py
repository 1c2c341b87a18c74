"""The history steps against real Chromium: `go_back` with no page of the flow before it fails the
step (`ACTION_REJECTED`), as `go_forward` with none after it does. A fresh context's page opens on
about:blank before the entry URL loads; that blank page is never a page to go back to. When the
site replaced the flow's first page (location.replace) instead of adding an entry, the failure is
the site's (`assertion_failed`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk.model import History
from flowwalk.serve import StaticServer

from test_walker import click, expect, flow, goto, loc, make_settings, rules_of, steps_of, walk  # the walker's builders

pytestmark = pytest.mark.browser


def history(move: str) -> History:
    return History(loc=loc(), text=move, move=move)


@pytest.mark.parametrize("goes_to_entry", [False, True], ids=["first-move", "after-a-goto-of-the-entry"])
def test_going_back_from_the_entry_page_fails_and_stops_the_flow(flowwalk_browser: Any, tmp_path: Path,
                                                                  site: StaticServer, goes_to_entry: bool) -> None:
    entry = f"{site.url}/walker/basic.html"
    first = [goto(entry)] if goes_to_entry else []
    sc = flow("back-first", [*first, history("go_back"), expect("selector_absent", selector="#save")], entry)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    result = rules_of(events)["back-first"]
    assert result.status == "failed"
    failure = result.failure
    assert (failure.runtime_code, failure.failure_class) == ("ACTION_REJECTED", "spec_step_unresolvable")
    assert failure.message == "go_back: the history has no page to go back to"
    assert failure.observed == f"none: the page stayed at '{entry}'"
    # the absence check after it is not walked: it would pass on a blank page
    assert [s.status for s in steps_of(events)][-1] == "failed"
    assert "expect selector_absent '#save'" in result.skipped_steps[0]


def test_going_back_after_a_navigation_returns_and_a_second_time_fails(flowwalk_browser: Any, tmp_path: Path,
                                                                        site: StaticServer) -> None:
    entry = f"{site.url}/walker/basic.html"
    sc = flow("back-twice", [click("#next"), expect("has_text", "All done", "h1"), history("go_back"),
                             expect("has_text", "Walker basics", "h1"), history("go_back")], entry)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    assert [s.status for s in steps_of(events)] == ["passed"] * 4 + ["failed"]
    assert rules_of(events)["back-twice"].failure.message == "go_back: the history has no page to go back to"


def test_going_back_after_the_site_replaced_its_first_page_fails_the_site(flowwalk_browser: Any, tmp_path: Path,
                                                                          site: StaticServer) -> None:
    entry = f"{site.url}/walker/replaces.html"
    sc = flow("replaced", [click("#filters >> text=Active"), expect("has_text", "Active items", "h1"),
                           history("go_back"), expect("has_text", "All items", "h1")], entry)
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report"))
    failure = rules_of(events)["replaced"].failure
    assert [s.status for s in steps_of(events)] == ["passed", "passed", "failed"]
    assert (failure.runtime_code, failure.failure_class) == ("EXPECT_STATE_MISMATCH", "assertion_failed")
    assert failure.message == (f"go_back: the history has no page to go back to: the site replaced '{entry}' with "
                               f"'{entry}#/active' instead of adding a history entry")
    assert failure.observed == f"none: '{entry}#/active' replaced it in the history"
