"""A rule that fails opening its entry URL reports the time that took (issue 7, bug L).

The first rule carries the setup failure; its `duration_ms` is the time spent opening the
scenario (the entry navigation and the failure's evidence), not 0.0. The rules skipped after it
took no time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from flowwalk import events as ev
from flowwalk.serve import StaticServer

from test_walker import click, expect, flow, make_settings, rule, rules_of, scenario, walk  # the walker's builders

pytestmark = pytest.mark.browser


def test_a_flow_whose_entry_url_times_out_counts_the_navigation(flowwalk_browser: Any, tmp_path: Path,
                                                                 site: StaticServer) -> None:
    # the document is there at once; its load event waits for a pixel that answers after 30 s
    sc = flow("entry-times-out", [expect("text_contains", "content")], f"{site.url}/hostile/never-loads.html")
    outcome, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", navigation_timeout_ms=1500))
    result = rules_of(events)["entry-times-out"]
    assert result.status == "failed" and result.failure is not None and result.failure.step_kind == "setup"
    assert result.failure.runtime_code == "TIMEOUT"
    assert 1500 * 0.9 <= result.duration_ms <= outcome.duration_ms
    finished = next(e for e in events if isinstance(e, ev.ScenarioFinished))
    assert result.duration_ms <= finished.duration_ms


def test_the_rules_skipped_after_a_failed_entry_took_no_time(flowwalk_browser: Any, tmp_path: Path,
                                                             site: StaticServer) -> None:
    rules = [rule("first", click("#arrived")), rule("second", click("#arrived"), parents=("first",))]
    sc = scenario("entry-refused", rules, f"{site.url}/__slow?ms=4000")
    _, events = walk(sc, flowwalk_browser, make_settings(tmp_path / "report", navigation_timeout_ms=800))
    results = rules_of(events)
    assert results["first"].status == "failed" and results["first"].duration_ms >= 800 * 0.9
    assert results["second"].status == "skipped" and results["second"].duration_ms == 0.0
