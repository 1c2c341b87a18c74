"""RFC 010 verify-until-stable against pages whose state changes, flickers or stalls.

These tests are about the reads themselves (their count, cadence, rechecks), so every check here
takes them: `quiet=False`. How a page's record of stillness spares the second read is
test_checks_quiet.py's.

Counts and durations are exact: the checks run on the `paced` clock (tests/integration/conftest.py),
on which a read takes no time and a wait what was asked, and states that must change between reads
are driven by the reads (`drive`), not by the page's timers. The pages whose timers drive them
(delayed content, flicker) are checked for their verdicts, and for the least time a check took,
never for the most: a loaded machine only makes a check slower.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from flowwalk.browser import PageSession
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.walk.checks import bounded
from flowwalk.walk.checks import run_check as _run_check

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("paced")]


def run_check(*args: Any, **kw: Any) -> Any:
    return _run_check(*args, quiet=False, **kw)

LOC = Location("tests/stable.flow.yaml", 9, 3)


def expect(kind: str, **fields: Any) -> Expect:
    return Expect(loc=LOC, text=f"expect {kind}", kind=kind, **fields)


def open_page(session: PageSession, site: StaticServer, path: str) -> PageSession:
    session.goto(f"{site.url}/browser/{path}", timeout_ms=10_000)
    return session


# Read-driven states: the element's text getter answers from a script, one entry per read (each
# read evaluates the text exactly once), so these tests do not depend on the machine's speed.
def drive(session: PageSession, states: list[str]) -> Expect:
    session.playwright_page.evaluate("""(states) => {
        document.getElementById('driven')?.remove();
        const el = document.createElement('p'); el.id = 'driven'; document.body.append(el);
        let n = 0;
        Object.defineProperty(el, 'innerText', { get() { return states[Math.min(n++, states.length - 1)]; } });
    }""", states)
    return expect("has_text", selector="#driven", value="ok")


def test_a_check_that_passes_at_once_costs_one_interval(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    st = Stabilize(interval_ms=150, stable_reads=2)
    result = run_check(session, expect("text_contains", value="Welcome"), scope=None, timeout_ms=30_000, stabilize=st)
    assert result.passed
    assert result.reads == 2
    assert result.duration_ms == pytest.approx(150)   # one interval: not the 1000 ms window


@pytest.mark.parametrize("stable_reads", [1, 3, 5])
def test_reads_needed_follow_stable_reads(session: PageSession, site: StaticServer, stable_reads: int) -> None:
    open_page(session, site, "checks.html")
    st = Stabilize(interval_ms=100, stable_reads=stable_reads)
    result = run_check(session, expect("selector_exists", selector="#title"), scope=None, timeout_ms=30_000,
                       stabilize=st)
    assert result.passed
    assert result.reads == stable_reads
    assert result.duration_ms == pytest.approx((stable_reads - 1) * 100)


def test_content_that_arrives_after_300_ms_passes_once_it_is_there(session: PageSession, site: StaticServer) -> None:
    before = time.monotonic()
    open_page(session, site, "delayed.html?after=300&text=Saved")
    st = Stabilize(interval_ms=100)
    result = run_check(session, expect("has_text", selector="#status", value="Saved"), scope=None, timeout_ms=5_000,
                       stabilize=st)
    assert result.passed
    assert time.monotonic() - before >= 0.3
    assert result.observed == "'#status' text: 'Saved'"


def test_content_that_arrives_late_takes_a_read_per_interval_until_two_match(session: PageSession,
                                                                               site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    result = run_check(session, drive(session, ["no", "no", "no", "ok"]), scope=None, timeout_ms=5_000,
                       stabilize=Stabilize(interval_ms=100))
    assert result.passed and result.reads == 5
    assert result.duration_ms == pytest.approx(400)


def test_url_and_element_checks_wait_for_a_delayed_change(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "delayed.html?after=300")
    st = Stabilize(interval_ms=100)
    url = run_check(session, expect("url_contains", value="#done"), scope=None, timeout_ms=5_000, stabilize=st)
    assert url.passed and url.reads >= 2
    done = run_check(session, expect("selector_exists", selector=".done"), scope=None, timeout_ms=5_000, stabilize=st)
    assert done.passed and done.reads == 2


def test_flicker_never_passes_a_check(session: PageSession, site: StaticServer) -> None:
    # "Saved" shows in 20 ms bursts: a single read may see one, two consecutive reads never can
    open_page(session, site, "flicker.html?burst=20")
    st = Stabilize(interval_ms=100, stable_reads=2)
    result = run_check(session, expect("text_contains", selector="#status", value="Saved"), scope=None,
                       timeout_ms=1_200, stabilize=st)
    assert not result.passed
    assert result.runtime_code == "EXPECT_STATE_MISMATCH"
    assert result.observed == "'#status' text: 'Error'"
    # it kept reading until its deadline (how many reads fit in 1.2 s depends on the machine's load)
    assert result.reads >= 2
    assert result.duration_ms >= 1_200


def test_flicker_then_settled_passes_only_after_it_settles(session: PageSession, site: StaticServer) -> None:
    before = time.monotonic()
    open_page(session, site, "flicker.html?burst=20&settle=1100")
    st = Stabilize(interval_ms=100, stable_reads=2)
    result = run_check(session, expect("text_contains", selector="#status", value="Saved"), scope=None,
                       timeout_ms=5_000, stabilize=st)
    assert result.passed
    assert time.monotonic() - before >= 1.1


def test_a_state_that_matches_too_late_to_be_confirmed_is_a_timeout(session: PageSession, site: StaticServer) -> None:
    # true from the fourth read (450 ms) on, the deadline is 500 ms: the streak is still too short
    # when the rechecks (1) run out, so the state never proved stable
    open_page(session, site, "checks.html")
    st = Stabilize(interval_ms=150, stable_reads=5, max_rechecks=1)
    result = run_check(session, drive(session, ["no", "no", "no", "ok"]), scope=None, timeout_ms=500, stabilize=st)
    assert not result.passed
    assert result.runtime_code == "TIMEOUT"
    assert "not stable: matched" in result.observed
    assert "of 5 consecutive reads" in result.observed


def test_a_match_at_the_deadline_is_confirmed_by_rechecks(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    # timeout 0: reads 1 and 2 are the minimum; read 2 starts a streak, a recheck confirms it
    confirmed = run_check(session, drive(session, ["no", "ok", "ok"]), scope=None, timeout_ms=0,
                          stabilize=Stabilize(interval_ms=100, stable_reads=2, max_rechecks=1))
    assert confirmed.passed and confirmed.reads == 3


def test_without_rechecks_an_unconfirmed_match_is_a_timeout(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    result = run_check(session, drive(session, ["no", "ok", "ok"]), scope=None, timeout_ms=0,
                       stabilize=Stabilize(interval_ms=100, stable_reads=2, max_rechecks=0))
    assert not result.passed and result.reads == 2
    assert result.runtime_code == "TIMEOUT"
    assert result.observed == "'#driven' text: 'ok' (not stable: matched 1 of 2 consecutive reads)"


def test_rechecks_are_bounded(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    # 3 in a row needed; the 3 minimum reads end on a first match, and 1 recheck is not enough
    result = run_check(session, drive(session, ["no", "no", "ok", "ok", "ok"]), scope=None, timeout_ms=0,
                       stabilize=Stabilize(interval_ms=100, stable_reads=3, max_rechecks=1))
    assert not result.passed
    assert result.reads == 4
    assert result.runtime_code == "TIMEOUT"
    assert result.observed.endswith("(not stable: matched 2 of 3 consecutive reads)")
    # one more recheck allowed: the third match in a row arrives and the check passes
    again = run_check(session, drive(session, ["no", "no", "ok", "ok", "ok"]), scope=None, timeout_ms=0,
                      stabilize=Stabilize(interval_ms=100, stable_reads=3, max_rechecks=2))
    assert again.passed and again.reads == 5


def test_oscillation_never_passes_and_fails_on_a_mismatch(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    states = ["ok", "no"] * 20
    result = run_check(session, drive(session, states), scope=None, timeout_ms=600,
                       stabilize=Stabilize(interval_ms=100, stable_reads=2, max_rechecks=3))
    assert not result.passed
    # whatever the read at the deadline saw, a recheck after a match sees the next mismatch
    assert result.runtime_code == "EXPECT_STATE_MISMATCH"
    assert result.observed == "'#driven' text: 'no'"


def test_a_mismatch_resets_the_streak(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    result = run_check(session, drive(session, ["ok", "ok", "no", "ok", "ok", "ok"]), scope=None, timeout_ms=5_000,
                       stabilize=Stabilize(interval_ms=100, stable_reads=3))
    assert result.passed
    assert result.reads == 6


def test_a_failing_guard_reads_until_its_deadline_then_once_more(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    st = Stabilize(interval_ms=150)
    result = run_check(session, expect("selector_exists", selector="#never"), scope=None, timeout_ms=200, stabilize=st)
    assert not result.passed
    # reads at 0, 150 and 200 ms: the last one on the deadline
    assert result.reads == 3
    assert result.duration_ms == pytest.approx(200)


@pytest.mark.parametrize("stable_reads", [1, 2])
def test_a_failing_check_takes_its_last_read_on_the_deadline(session: PageSession, site: StaticServer,
                                                             stable_reads: int) -> None:
    open_page(session, site, "checks.html")
    # reads every 200 ms from 0 to 800, then one at 850, not at 1000: the timeout is what the user
    # set, not that plus the rest of an interval (and the timers' overruns of every wait)
    result = run_check(session, expect("url_contains", value="/elsewhere"), scope=None, timeout_ms=850,
                       stabilize=Stabilize(interval_ms=200, stable_reads=stable_reads))
    assert not result.passed and result.runtime_code == "EXPECT_STATE_MISMATCH"
    assert result.reads == 6
    assert result.duration_ms == pytest.approx(850)


def test_a_read_that_could_confirm_a_match_stays_an_interval_after_it(session: PageSession,
                                                                      site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    # the fifth read (800 ms) matches: the one that confirms it comes at 1000 ms, past the deadline
    # of 900, never at 900 (two reads 100 ms apart would not show a stable state)
    result = run_check(session, drive(session, ["no", "no", "no", "no", "ok", "ok"]), scope=None, timeout_ms=900,
                       stabilize=Stabilize(interval_ms=200, stable_reads=2))
    assert result.passed and result.reads == 6
    assert result.duration_ms == pytest.approx(1000)


def test_timeout_zero_still_takes_the_stable_count_of_reads(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    result = run_check(session, expect("url_contains", value="/elsewhere"), scope=None, timeout_ms=0,
                       stabilize=Stabilize(interval_ms=100, stable_reads=2))
    assert not result.passed and result.reads == 2
    assert result.duration_ms == pytest.approx(100)


def test_reads_slower_than_the_stale_threshold_are_never_evidence(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "checks.html")
    # the page keeps its main thread busy for 900 ms at a time: each read waits for a gap and so
    # returns a snapshot of unknown age; the text is there, yet the check must not pass on it
    session.playwright_page.evaluate("""() => { window.__busy = setInterval(() => {
        const end = Date.now() + 900; while (Date.now() < end) {} }, 1); }""")
    st = Stabilize(interval_ms=100, stale_ms=300, max_rechecks=1)
    try:
        # the machine's clock: how long a read takes is what this test is about
        result = run_check(session, expect("text_contains", value="Welcome"), scope=None, timeout_ms=400, stabilize=st,
                           clock=time.monotonic)
    finally:
        session.close()   # stop the busy page at once: the machine's cores are shared
    assert not result.passed
    assert result.runtime_code == "TIMEOUT"
    assert "stale" in result.observed


def test_navigation_during_a_check_is_read_through(session: PageSession, site: StaticServer) -> None:
    open_page(session, site, "nav.html")
    session.playwright_page.click("#inside")
    result = run_check(session, expect("url_contains", value="/browser/checks.html"), scope=None, timeout_ms=5_000,
                       stabilize=Stabilize(interval_ms=100))
    assert result.passed


def test_settings_outside_the_rfc_bounds_are_clamped() -> None:
    wild = Stabilize(window_ms=10, stable_reads=50, interval_ms=5000, max_rechecks=-1, stale_ms=1)
    assert bounded(wild) == Stabilize(window_ms=500, stable_reads=5, interval_ms=200, max_rechecks=0, stale_ms=300)
    assert bounded(Stabilize()) == Stabilize()
