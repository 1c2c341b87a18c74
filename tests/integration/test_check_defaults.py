"""Which default a check runs with (issue 11): how many reads, and how long a failing one waits.

Flow specs pass on their first matching fresh read; rule files and .robot suites keep RFC 010's two
reads at least 100 ms apart; `stabilize` in the config turns two reads on for flows too. A failing
expect gives up after `expect_timeout_ms` (5 s by default) unless its step or rule sets a timeout.
Every step's record keeps its number of reads. The pages are tests/site/pages/walker/.

The checks run on the `paced` clock (tests/integration/conftest.py): a read takes no time on it, so
no read is stale however loaded the machine, and the counts are the stabilizer's.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from flowwalk.model import Stabilize
from flowwalk.settings import Overrides, Settings, build_settings
from flowwalk.spec.config import load_config
from flowwalk.spec.loader import load_suites
from flowwalk.walk import checks as walk_checks

from test_walker import click, expect, flow, make_settings, rule, rules_of, scenario, steps_of, walk  # builders

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("paced")]

#: a wait for the page's next change that lasts until the check's deadline: a check that passed
#: well before its deadline was woken by the change
NO_CAP_MS = 60_000


@pytest.fixture()
def page_url(site: Any) -> Any:
    return lambda name: f"{site.url}/walker/{name}"


def reads_of(events: Any) -> list[int | None]:
    return [s.reads for s in steps_of(events) if s.kind == "expect"]


def shown_stable(events: Any) -> list[tuple[str, int | None]]:
    """How each passing expect's stability was shown (its record's detail) and its reads."""
    return [(s.detail["stability"]["by"], s.reads) for s in steps_of(events) if s.kind == "expect"]


#: how a check that wants two reads shows its state stable: two reads; one read of a page still for
#: the interval before it; or a second, early read once the page's record covers the interval
RULE_STABLE = {("reads", 2), ("quiet", 1), ("quiet", 2)}


def test_a_flow_check_passes_on_its_first_read_and_a_rule_check_on_its_second(flowwalk_browser: Any,
                                                                             tmp_path: Path, page_url: Any) -> None:
    checks = [click("#bump"), expect("text_contains", "1", "#counter"), expect("url_contains", "/walker/basic")]
    settings = make_settings(tmp_path / "report")
    outcome, events = walk(flow("one-read", checks, page_url("basic.html")), flowwalk_browser, settings)
    assert outcome.status == "passed" and reads_of(events) == [1, 1]

    # a rule check rests on two reads, or on one read of a page whose record shows it still over the
    # interval before it: the URL has not changed since the page loaded
    as_rule = scenario("two-reads", [rule("r", *checks)], page_url("basic.html"))
    outcome, events = walk(as_rule, flowwalk_browser, settings)
    assert outcome.status == "passed"
    # (by the record, in one read or in an early second one: which, depends on whether the URL check's
    # first read, taken ahead during the text check's interval, came 100 ms after the load)
    assert set(shown_stable(events)) <= RULE_STABLE and shown_stable(events)[1][0] == "quiet"

    # the config's stabilize (here: stable_reads 2) applies to flows too
    stable = dataclasses.replace(settings, flow_stabilize=Stabilize(stable_reads=2))
    outcome, events = walk(flow("stabilized", checks, page_url("basic.html")), flowwalk_browser, stable)
    assert outcome.status == "passed" and set(shown_stable(events)) <= RULE_STABLE


def test_a_flow_check_still_waits_for_a_state_that_comes_late(flowwalk_browser: Any, tmp_path: Path,
                                                               page_url: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the update lands 400 ms after the check's first read: the check waits for it, and reads again
    # when the page changes (browser/page.py Page.changed), not every 100 ms until then (5 reads),
    # nor when a wait for a change gives up (here: at the deadline, 5 s)
    monkeypatch.setattr(walk_checks, "CHANGE_WAIT_MAX_MS", NO_CAP_MS)
    steps = [click("#refresh"), expect("text_contains", "ready", "#status")]
    outcome, events = walk(flow("late", steps, page_url("delayed.html?after-read")), flowwalk_browser,
                           make_settings(tmp_path / "report"))
    assert outcome.status == "passed"
    assert reads_of(events) == [2]
    (check,) = [s for s in steps_of(events) if s.kind == "expect"]
    assert check.duration_ms is not None and 400 <= check.duration_ms < 4_000, check.duration_ms


def test_a_flow_check_wakes_for_a_change_that_no_mutation_shows(flowwalk_browser: Any, tmp_path: Path,
                                                                 page_url: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # a script sets a field's value and a box's `checked` 250 ms after the check's first read:
    # properties, no mutation. The page's record notes them (the wrapped setters), so each check
    # reads again at the change, not when a wait for a change gives up (here: at the deadline, 5 s)
    monkeypatch.setattr(walk_checks, "CHANGE_WAIT_MAX_MS", NO_CAP_MS)
    steps = [click("#track"), expect("input_value", "shipped", "#field"), expect("checked", None, "#sent")]
    outcome, events = walk(flow("late-state", steps, page_url("late-state.html")), flowwalk_browser,
                           make_settings(tmp_path / "report"))
    assert outcome.status == "passed"
    # (the box's first read may have been taken ahead, during the first check's wait)
    assert reads_of(events)[0] == 2
    value_check = [s for s in steps_of(events) if s.kind == "expect"][0]
    assert value_check.duration_ms is not None and 250 <= value_check.duration_ms < 4_000, value_check.duration_ms


def test_a_failing_check_gives_up_after_expect_timeout_ms(flowwalk_browser: Any, tmp_path: Path,
                                                         page_url: Any) -> None:
    settings = make_settings(tmp_path / "report", rule_timeout_ms=30_000, expect_timeout_ms=800)
    wrong = [expect("text_contains", "Saved Bob", "#status")]
    t0 = time.monotonic()
    outcome, events = walk(flow("wrong", wrong, page_url("basic.html")), flowwalk_browser, settings)
    took = time.monotonic() - t0
    failure = rules_of(events)["wrong"].failure
    assert outcome.status == "failed" and failure is not None
    assert failure.runtime_code == "EXPECT_STATE_MISMATCH" and "Nothing saved yet" in failure.observed
    (reads,) = reads_of(events)
    # a page that does not change is read at once, after each 500 ms wait for a change, and at the
    # deadline: 3 reads, not one every 100 ms (9), and never 30 s of reads
    assert reads == 3, reads
    assert f"failed after {reads} read(s)" in failure.message
    assert took < 20, took

    def waited(events: Any) -> float:
        (check,) = [s for s in steps_of(events) if s.kind == "expect"]
        assert check.duration_ms is not None
        return float(check.duration_ms)

    assert waited(events) >= 800

    # the step's own timeout_ms wins over expect_timeout_ms, and so does a rule's timeout (a wait
    # for a change lasts at most 500 ms: four reads in 1.5 s; the 100 ms cadence would make 16)
    longer = [expect("text_contains", "Saved Bob", "#status", timeout_ms=1500)]
    _, events = walk(flow("longer", longer, page_url("basic.html")), flowwalk_browser, settings)
    assert reads_of(events) == [4] and waited(events) >= 1500
    ruled = flow("ruled", wrong, page_url("basic.html"), timeout_ms=1500)
    _, events = walk(ruled, flowwalk_browser, settings)
    assert reads_of(events) == [4] and waited(events) >= 1500


def test_the_defaults_come_from_the_files_and_the_config(flowwalk_browser: Any, tmp_path: Path, site: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"{site.url}/walker/basic.html"
    (tmp_path / "count.flow.yaml").write_text(f"""\
spec_version: "1"
name: count
url: {url}
steps:
  - {{type: act, action: click, selector: "#bump"}}
  - {{type: expect, kind: text_contains, selector: "#counter", value: "1"}}
""")
    (tmp_path / "count.rules.yaml").write_text(f"""\
rules_version: "1"
verification: count
scenarios:
  - name: count
    url: {url}
    rules:
      - name: bump
        steps:
          - {{type: act, action: click, selector: "#bump"}}
          - {{type: expect, kind: text_contains, selector: "#counter", value: "1"}}
""")

    def reads(settings: Settings) -> dict[str, list[tuple[str, int | None]]]:
        out: dict[str, list[tuple[str, int | None]]] = {}
        for suite in load_suites(["count.flow.yaml", "count.rules.yaml"], settings):
            (sc,) = suite.scenarios
            outcome, events = walk(sc, flowwalk_browser, settings)
            assert outcome.status == "passed"
            out[sc.kind] = shown_stable(events)
        return out

    # two reads, or one read of a page still for the interval before it (a loaded machine's read can
    # come that late after the click): what stable_reads 2 asks; a flow's single read stays one read
    two = [[pair] for pair in RULE_STABLE]
    base = dict(out_dir=str(tmp_path / "report"), workers=1, executable=make_settings(tmp_path).executable)
    default = reads(Settings(**base))   # type: ignore[arg-type]
    assert default["flow"] == [("reads", 1)] and default["rules"] in two
    (tmp_path / "flowwalk.yaml").write_text("stabilize: {stable_reads: 2}\n")
    config = load_config(tmp_path / "flowwalk.yaml").model_dump(exclude_unset=True)
    configured = reads(build_settings(Overrides(**base), env={}, config=config))
    assert configured["flow"] in two and configured["rules"] in two


def test_a_check_after_one_that_waited_is_not_passed_by_a_read_taken_before(flowwalk_browser: Any, tmp_path: Path,
                                                                           page_url: Any) -> None:
    # the list is hidden and empty while it loads again, then shows the row the delete kept: the
    # absence check reads the list once it is shown, not while the visibility check was waiting
    steps = [click("#delete"), expect("visible", None, "#list"), expect("text_not_contains", "Kept", "#list")]
    settings = make_settings(tmp_path / "report", expect_timeout_ms=1000)
    outcome, events = walk(flow("kept", steps, page_url("reload-list.html")), flowwalk_browser, settings)
    failure = rules_of(events)["kept"].failure
    assert outcome.status == "failed" and failure is not None and failure.step_index == 3, failure
    assert "Kept collection" in failure.observed
