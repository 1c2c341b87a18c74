"""Verify-until-stable as a state machine (walk/stabilizer.py), stepped on recorded reads with a
fake clock: no page, no waiting, every decision and the time it names checked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from flowwalk.browser.records import Seq
from flowwalk.model import Stabilize
from flowwalk.walk.stabilizer import Fail, Pass, Read, ReadAt, Stabilizer, step

ST = Stabilize()                                   # 2 reads, 100 ms apart, 1 s window, 3 rechecks, 500 ms stale
ONE = Stabilize(stable_reads=1, interval_ms=100)   # a flow's check
T0 = 1000.0


@dataclass(frozen=True)
class Seen:
    """A recorded read: its verdict and how long it took (s), and what else it carried."""

    ok: bool | None
    took: float = 0.005
    kw: Any = None


def run(seen: list[Seen], timeout_ms: int, st: Stabilize = ST) -> tuple[Stabilizer, Any, list[tuple[float, Any]]]:
    """Step through `seen` (the last repeats) from T0, reading when each decision says: the final
    state, the final decision, and every (read start, decision) on the way."""
    state = Stabilizer(st, deadline=T0 + timeout_ms / 1000)
    now, trail = T0, []
    for n in range(200):
        one = seen[min(n, len(seen) - 1)]
        read = Read(one.ok, now, **(one.kw or {}))
        state, decision = step(state, read, now + one.took)
        trail.append((round(now - T0, 4), decision))
        if not isinstance(decision, ReadAt):
            return state, decision, trail
        now = max(decision.at, now + one.took)
    raise AssertionError("the check never ended")


def test_a_state_that_holds_passes_on_two_reads_one_interval_apart() -> None:
    state, decision, trail = run([Seen(True)], 5000)
    assert decision == Pass("reads") and state.reads == 2
    assert [t for t, _ in trail] == [0.0, 0.1]    # the second read one interval after the first's start


def test_a_mismatch_never_fails_early_and_a_late_state_still_passes() -> None:
    state, decision, trail = run([Seen(False)] * 3 + [Seen(True)], 5000)
    assert decision == Pass() and state.reads == 5


def test_a_failing_check_rests_on_a_fresh_read_taken_at_the_deadline() -> None:
    state, decision, trail = run([Seen(False)], 1000)
    assert decision == Fail()
    assert trail[-1][0] == pytest.approx(1.0)   # the last wait was cut to land on the deadline
    assert all(isinstance(d, ReadAt) for _, d in trail[:-1]) and state.reads == len(trail)


def test_a_check_never_fails_before_it_has_taken_its_stable_reads() -> None:
    state, decision, _ = run([Seen(False)], 0, Stabilize(stable_reads=3))
    assert decision == Fail() and state.reads == 3


def test_a_streak_cut_by_the_deadline_is_read_again_in_the_window() -> None:
    # a match at the deadline is not conclusive: read again (a recheck) one interval later
    state, decision, trail = run([Seen(False), Seen(False), Seen(True), Seen(True)], 200)
    assert decision == Pass() and state.rechecks == 1


def test_evidence_that_never_settles_gets_max_rechecks_and_then_fails() -> None:
    state, decision, _ = run([Seen(None)], 100)     # the page was navigating every time
    assert decision == Fail() and state.rechecks == ST.max_rechecks


def test_a_stale_read_neither_confirms_nor_refutes() -> None:
    state, decision, _ = run([Seen(True), Seen(True, took=0.6), Seen(True)], 5000)
    assert decision == Pass() and state.reads == 3   # the slow read did not count
    state, decision, _ = run([Seen(True), Seen(False, took=0.6), Seen(True)], 5000)
    assert decision == Pass() and state.reads == 3   # nor did it end the streak


def test_a_fatal_read_fails_at_once() -> None:
    state, decision, _ = run([Seen(None, kw={"fatal": True})], 5000)
    assert decision == Fail() and state.reads == 1


def test_a_match_in_a_record_that_only_grows_passes_at_once() -> None:
    assert run([Seen(True, kw={"final": True})], 5000)[1] == Pass("recorded")


def test_a_page_still_for_the_missing_intervals_passes_on_one_read() -> None:
    state, decision, _ = run([Seen(True, kw={"quiet_ms": 250.0})], 5000)
    assert decision == Pass("quiet", 250.0) and state.reads == 1


def test_a_page_still_for_part_of_the_interval_is_read_again_as_soon_as_it_could_show_it() -> None:
    state = Stabilizer(ST, deadline=T0 + 5)
    state, decision = step(state, Read(True, T0, quiet_ms=40.0), T0 + 0.005)
    # 100 ms are needed and 40 shown: read again 61 ms after this read, not 100 ms after its start
    assert isinstance(decision, ReadAt) and decision.at == pytest.approx(T0 + 0.005 + 0.061)
    # that early read shows the interval and passes; it did not count towards the streak
    state, decision = step(state, Read(True, decision.at, quiet_ms=101.0), decision.at + 0.005)
    assert decision == Pass("quiet", 101.0) and state.streak == 1
    # a page that changed meanwhile is read on the cadence, and asked early only once per interval
    state = Stabilizer(ST, deadline=T0 + 5)
    state, first = step(state, Read(True, T0, quiet_ms=40.0), T0 + 0.005)
    assert isinstance(first, ReadAt)
    state, second = step(state, Read(True, first.at, quiet_ms=10.0), first.at + 0.005)
    assert isinstance(second, ReadAt) and second.at == pytest.approx(T0 + 0.1)


def test_a_flow_check_waits_for_the_page_to_change_after_a_mismatch() -> None:
    seq = Seq(n=3, at=10.0)
    state = Stabilizer(ONE, deadline=T0 + 2)
    state, decision = step(state, Read(False, T0, change=seq), T0 + 0.005)
    assert decision == ReadAt(T0 + 0.1, change=seq, gap_ms=100, until=T0 + 2)
    # a kind the record does not cover, or a read that matched, waits for the clock
    assert step(Stabilizer(ONE, deadline=T0 + 2), Read(False, T0), T0 + 0.005)[1] == ReadAt(T0 + 0.1)
    assert step(Stabilizer(ONE, deadline=T0 + 2), Read(True, T0, change=seq), T0 + 0.005)[1] == Pass()
    # RFC 010's checks keep their cadence exactly
    assert step(Stabilizer(ST, deadline=T0 + 2), Read(False, T0, change=seq), T0 + 0.005)[1] == ReadAt(T0 + 0.1)
