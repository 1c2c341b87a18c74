"""Verify-until-stable (RFC 010) as a pure state machine: given a read and when it ended, pass, fail,
or read again at a time. It knows only the check's settings, its deadline and intervals; judging a
read is the check's (walk/checks.py `KINDS`), reading and waiting the driver's (`checks.run_check`),
as Playwright's `pollAgainstDeadline` leaves the callback to its caller. Times are monotonic seconds.

What holds:

- a check passes on `stable_reads` consecutive matching fresh reads whose starts are at least one
  interval apart; a mismatch ends the streak, never the check. The first read comes at once, the
  next one interval after the start of the last read that counted (else of the last read);
- a read that took over `stale_ms`, or is inconclusive (`ok` None), neither confirms nor refutes;
- a matching read of a page whose record shows it still, in what the kind reads, for the intervals
  the missing reads would span (`quiet_ms`) passes at once ("quiet"); when it shows part of them,
  one read comes as soon as it could show all, which never counts towards the streak (at most one
  per interval); a match of what only grows (`final`: the captured beacons) passes at once;
- until the deadline every wait is cut to land on it (reads that could confirm each other keep
  their whole interval), so a failure rests on a fresh read taken at the deadline, and never on
  fewer than `stable_reads` reads (RFC 010 §8.1). At the deadline a fresh mismatch fails; evidence
  that is not conclusive is read again, up to `max_rechecks` times one interval apart, within
  `window_ms` after the deadline; a fatal read (a selector that does not parse) fails at once;
- a single-read check (`stable_reads` 1, flows) whose read did not match, of a kind whose state only
  changes with what the page's record counts (`Read.change`), waits for the page to change instead
  of for the clock: not sooner than one interval after that read, not past the deadline.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

from flowwalk.browser.records import Seq
from flowwalk.model import Stabilize

__all__ = ["Fail", "Pass", "Read", "ReadAt", "Stabilizer", "step"]


@dataclass(frozen=True)
class Read:
    """One read as the stabilizer sees it: the judge's verdict, and when the read started."""

    #: it matched; None: inconclusive (no usable snapshot)
    ok: bool | None
    started: float
    #: retrying cannot help (a selector that does not parse)
    fatal: bool = False
    #: what it read only grows, so a match stays a match (the captured beacons)
    final: bool = False
    #: how long (ms) what it judged had provably not changed before it; None when it cannot show it
    quiet_ms: float | None = None
    #: where it stood in the page's record of changes, when what it judged changes only with what
    #: the record counts (a single-read check then waits for a change: `ReadAt.change`)
    change: Seq | None = None


@dataclass(frozen=True)
class Pass:
    """The check passed; `how` it was shown stable: "reads", "quiet" or "recorded"."""

    how: str = "reads"
    #: "quiet": how long the page had been still at the deciding read
    quiet_ms: float | None = None


@dataclass(frozen=True)
class Fail:
    """The check failed on its last read (the state keeps its streak and whether it was stale)."""


@dataclass(frozen=True)
class ReadAt:
    """Read again at `at`; with `change`, as soon as the page changes after the read at that point of
    its record, but not within `gap_ms` of that read nor past `until` (the deadline)."""

    at: float
    change: Seq | None = None
    gap_ms: float = 0.0
    until: float = 0.0


Decision = Union[Pass, Fail, ReadAt]


@dataclass(frozen=True)
class Stabilizer:
    """Where one check stands: its settings and deadline, and what its reads have shown so far."""

    settings: Stabilize
    deadline: float
    reads: int = 0
    #: consecutive matching fresh reads
    streak: int = 0
    #: reads taken after the deadline, for evidence that was not conclusive
    rechecks: int = 0
    #: when the last read that counted towards the streak started
    counted_at: float = 0.0
    #: the next read comes early, on the page's record (it never counts towards the streak)
    early: bool = False
    #: an early read was asked for since the last counted read
    early_asked: bool = False
    #: the end of the recheck window, set once the deadline has passed
    window_end: float | None = None
    #: the last read was stale
    stale: bool = False


def step(state: Stabilizer, read: Read, now: float) -> tuple[Stabilizer, Decision]:
    """The check after `read`, which ended at `now` (see the module docstring for what holds)."""
    st = state.settings
    stale = (now - read.started) * 1000 > st.stale_ms
    state = replace(state, reads=state.reads + 1, stale=stale)
    if read.fatal:
        return state, Fail()
    early_at: float | None = None
    if read.ok is True and not stale:
        if read.final:
            return state, Pass("recorded")
        if state.streak == 0 or not state.early:
            state = replace(state, streak=state.streak + 1, counted_at=read.started, early_asked=False)
        if state.streak >= st.stable_reads:
            return state, Pass()
        needed_ms = (st.stable_reads - state.streak) * st.interval_ms
        if read.quiet_ms is not None and read.quiet_ms >= needed_ms:
            return state, Pass("quiet", round(read.quiet_ms, 1))
        if read.quiet_ms is not None and not state.early_asked:
            # if the page stays still, a read this much later shows the whole interval(s)
            early_at = now + (needed_ms - read.quiet_ms + 1) / 1000
            state = replace(state, early_asked=True)
    elif read.ok is False and not stale:
        state = replace(state, streak=0, early_asked=False)
    if now >= state.deadline and state.reads >= st.stable_reads:
        window_end = state.window_end if state.window_end is not None else state.deadline + st.window_ms / 1000
        state = replace(state, window_end=window_end)
        conclusive = read.ok is False and not stale
        if conclusive or state.rechecks >= st.max_rechecks or now + st.interval_ms / 1000 > window_end:
            return state, Fail()
        state = replace(state, rechecks=state.rechecks + 1)
    at = (state.counted_at if state.streak else read.started) + st.interval_ms / 1000
    early = early_at is not None and early_at < at
    if early_at is not None and early:
        at = early_at
    if now < state.deadline and (st.stable_reads == 1 or state.streak + 1 < st.stable_reads):
        at = min(at, state.deadline)   # the read at the deadline: waits never overrun the timeout
    state = replace(state, early=early)
    if st.stable_reads == 1 and read.ok is False and not stale and read.change is not None:
        return state, ReadAt(at, change=read.change, gap_ms=st.interval_ms, until=state.deadline)
    return state, ReadAt(at)
