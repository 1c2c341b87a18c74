"""Sign in once: the sessions a run's setups save, and the queue that starts dependants after them.

A setup (a flow with `saves_session: NAME`, or a rule with it) is walked like any scenario; when
its saving rule passes, its context's storage state (cookies and local storage, Playwright's
`storage_state()`) is kept here under NAME. A scenario with `session: NAME` is not started before
NAME is settled: saved (its fresh context then starts from that state) or failed (it is not run:
every rule skipped `session_failed`, carrying the setup's failure, so one broken login reads as one
cause, never as a cascade of login failures).

The setup runs once per run, that is once per shard (plan/shard.py keeps a setup and its
dependants in one shard), before its dependants; the other workers walk scenarios that need no
session meanwhile.

The state holds credentials in effect, so it is never written anywhere: it stays in this process's
memory and goes to Chromium over Playwright's pipe (`new_context(storage_state=<dict>)`). No file
is made that a cancel or a crash could leave behind, and nothing here reaches an event: a trace
of a setup or a dependant is scrubbed of the session's cookie and storage values (walk/traces.py).

Waiting is cooperative: up to four workers share one thread as greenlets (browser/together.py),
so a worker waits through `cooperative.offload`, which lets the others (the setup's walker among
them) go on.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from flowwalk import events as ev
from flowwalk.cooperative import offload
from flowwalk.model import Scenario
from flowwalk.spec.sessions import SessionKey, session_key, setups_by_key
from flowwalk.walk.outcomes import StepFailed, Unit

__all__ = ["SessionBook", "WorkQueue", "state_values"]

#: how long a worker waits for a session before it looks at cancel and the run timeout again
WAIT_S = 0.25


def state_values(state: dict[str, Any] | None) -> list[str]:
    """The values of a storage state's cookies and local storage: secrets of every artifact
    (a screenshot paints them over, a trace is scrubbed of them)."""
    values = [str(c.get("value") or "") for c in (state or {}).get("cookies") or ()]
    for origin in (state or {}).get("origins") or ():
        values += [str(item.get("value") or "") for item in origin.get("localStorage") or ()]
    return [v for v in values if v]


@dataclass
class _Entry:
    #: the test id of the setup's saving rule
    setup: str
    state: dict[str, Any] | None = field(default=None, repr=False)
    failure: ev.Failure | None = None

    @property
    def settled(self) -> bool:
        return self.state is not None or self.failure is not None


class SessionBook:
    """The sessions of one run (this shard's setups), shared by every worker; thread-safe."""

    def __init__(self, scenarios: Iterable[Scenario] = ()):
        self._cond = threading.Condition()
        #: by (project, name): each project signs in on its own
        self._entries: dict[SessionKey, _Entry] = {
            key: _Entry(setup=scenario.test_id(rule)) for key, (scenario, rule) in setups_by_key(list(scenarios)).items()}
        self._version = 0

    def __repr__(self) -> str:   # never the state itself
        return f"SessionBook({sorted(n for _, n in self._entries)})"

    def settled(self, scenario: Scenario) -> bool:
        """May `scenario` start (or be reported not run) now?"""
        with self._cond:
            entry = self._entry(scenario)
            return entry is None or entry.settled

    def state_for(self, scenario: Scenario) -> dict[str, Any] | None:
        """The storage state `scenario` starts from (None: it names no session, or none was saved)."""
        with self._cond:
            entry = self._entry(scenario)
            return entry.state if entry is not None else None

    def blame(self, scenario: Scenario) -> ev.Failure | None:
        """Why `scenario` cannot start from its session: the setup's failure, or that no setup of
        this run saves it; None when it names none or the session is saved."""
        name = scenario.session
        if name is None:
            return None
        with self._cond:
            entry = self._entry(scenario)
            if entry is not None and not (entry.settled and entry.state is None):
                return None   # saved, or not settled yet (the queue holds it back until it is)
            root = entry.failure if entry is not None else None
        where = scenario.session_loc or scenario.loc
        if entry is None:
            return Unit("setup", where).failure(
                StepFailed("INTERNAL", f"session '{name}' is saved by no setup of this run",
                           expected=f"a setup that saves session '{name}' in this run", observed="none"),
                context={"session": name})
        assert root is not None
        unsaved = StepFailed(root.runtime_code, f"session '{name}' was not saved: its setup '{entry.setup}' did not "
                             f"pass" + (f" ({root.message})" if root.message else ""),
                             expected=f"session '{name}' saved by '{entry.setup}'", observed="not saved")
        return Unit("setup", where, f"start from session '{name}'").failure(
            unsaved, context={"session": name, "setup": entry.setup}, like=root)

    def _entry(self, scenario: Scenario) -> _Entry | None:
        return self._entries.get(session_key(scenario, scenario.session)) if scenario.session else None

    def save(self, setup: Scenario, name: str, state: dict[str, Any]) -> None:
        """The saving rule of `setup` passed: `state` is the session `name` from now on."""
        with self._cond:
            entry = self._entries.get(session_key(setup, name))
            if entry is not None:
                entry.state, entry.failure = state, None
                self._changed()

    def finish(self, scenario: Scenario, results: Sequence[ev.RuleFinished]) -> None:
        """A setup's last attempt ended (or it never started): every session it has not saved
        fails, with its saving rule's failure (`results`: that attempt's rules, if any)."""
        by_rule = {r.rule: r for r in results}
        with self._cond:
            for name, rule in scenario.saves:
                entry = self._entries.get(session_key(scenario, name))
                if entry is None or entry.settled:
                    continue
                result = by_rule.get(rule.name)
                failure = result.failure if result is not None else None
                status = result.status if result is not None else "not run"
                entry.failure = failure or Unit("setup", rule.loc).failure(StepFailed(
                    "INTERNAL", f"the setup ended without saving the session ({status}"
                                + (f": {result.reason}" if result is not None and result.reason else "") + ")"))
                self._changed()

    def version(self) -> int:
        with self._cond:
            return self._version

    def wait_change(self, seen: int, timeout_s: float) -> None:
        """Until a session settles after version `seen`, or `timeout_s`; lets the thread's other
        workers run meanwhile."""
        def wait() -> None:
            with self._cond:
                if self._version == seen:   # a wake-up for nothing only costs the caller one more look
                    self._cond.wait(timeout_s)

        offload(wait)

    def _changed(self) -> None:
        self._version += 1
        self._cond.notify_all()


class WorkQueue:
    """The scenarios a shard's workers pull: in order, except that a scenario waits until its
    session is settled (the workers take what they can meanwhile)."""

    def __init__(self, scenarios: Iterable[Scenario], book: SessionBook):
        self._items: deque[Scenario] = deque(scenarios)
        self._lock = threading.Lock()
        self._book = book

    def take(self, stop: Callable[[], bool]) -> Scenario | None:
        """The next scenario that may start, waiting while only dependants of unsettled sessions
        are left; any scenario once `stop()` (cancel, run timeout: it is reported not run); None
        when the queue is empty."""
        while True:
            seen = self._book.version()
            with self._lock:
                if not self._items:
                    return None
                halted = stop()
                for scenario in self._items:
                    if halted or self._book.settled(scenario):
                        self._items.remove(scenario)
                        return scenario
            self._book.wait_change(seen, WAIT_S)

    def put(self, scenario: Scenario) -> None:
        """Give a scenario back, first in line (its worker cannot walk it)."""
        with self._lock:
            self._items.appendleft(scenario)

    def empty(self) -> bool:
        with self._lock:
            return not self._items
