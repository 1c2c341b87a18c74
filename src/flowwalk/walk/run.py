"""The run loop: the scenarios of a plan (this shard's), walked by N workers, with retries.

`run_plan` emits `RunStarted` first and `RunFinished` last, and in between:

1. before any browser starts, every scenario's variables are checked (preflight.py): one that
   needs a variable the run cannot supply is failed with `credential_rejected` (`VARIABLE_MISSING`,
   naming the variable and its line) without a browser, reported like any other failure, and the
   others run;
2. `settings.workers` workers pull scenarios from one queue: in plan order, or the longest
   first when the plan knows durations (`--durations`; `Plan.walk_order`) and there is more than
   one worker, so that a long scenario does not start last while the other workers idle. Up to
   WALKERS_PER_BROWSER of them share one thread, its `sync_playwright()` and one Chromium (a
   Playwright sync instance belongs to one thread): each walks in a greenlet of its own while
   the others wait on Chromium (browser/together.py); a fresh context per scenario attempt keeps
   them as isolated as separate browsers would. One browser and one driver for two workers cost
   less CPU, memory and wall time than two of each. More workers get more threads and browsers.
   Threads and greenlets, not processes: the work is waiting on Chromium. Every event passes one
   lock, so emit.jsonl lines never interleave, and a scenario's own events stay in order. Results
   do not depend on the number of workers; only timings and the interleaving of different
   scenarios' events do;
3. each attempt is `scenario.walk_scenario`;
   `--retries N`: a failed scenario reruns in a fresh context (attempt 2..N+1) and one that
   passes on a retry is `flaky`; every attempt's events are emitted and `ScenarioFinished.final`
   marks the last;
4. a crashed browser is relaunched for the next attempt or scenario. A crash of a shared browser
   fails every scenario in flight on it (one per worker sharing it); each of those workers then
   goes on with a Chromium of its own. A driver that dies takes its thread's browsers with it:
   the scenarios in flight fail, and the ones not started go to a new driver and Chromium;
5. the run timeout (`settings.run_timeout_s`) cuts the step in flight and skips what did not
   start (reason `run_timeout`); `--max-failures N`: once N scenarios have failed (their final
   attempt), no more start: the ones in flight finish, the rest are skipped `max_failures`; the `cancel` token (cancelled by the CLI on SIGINT/SIGTERM, naming
   the signal, and by the MCP server) stops starting scenarios, marks those not run
   `cancelled` and emits `RunCancelled`;
6. sign in once (walk/sessions.py): setups (`saves_session`) are queued first; a scenario with
   `session: NAME` waits in the queue until NAME is saved, and starts from it, or, when its setup
   failed, is reported not run (`session_failed`, the setup's failure named) without a browser.

Start-up: `Prelaunch()` starts worker 1 and its Playwright driver before the settings are read,
and `launch(settings)` its Chromium before the specs are loaded (`app.run.execute_run` does, so that
the driver's start and the browser launch overlap reading, loading and planning); `run_plan(...,
prelaunched=...)` hands it its work. When the input is refused, or no scenario is left to walk
(every one refused for a missing variable), that browser is closed without opening a page: a
refused run walks nothing, though a browser may have started meanwhile. `run_plan` alone never
starts a browser before the variables are checked, and never more browsers than scenarios.

The exit code in `RunFinished` is `exitcodes.decide_outcome`'s, the one verdict.json gives.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Protocol, Sequence

from flowwalk import __version__ as _version
from flowwalk import events as ev
from flowwalk.browser.seams import private_api_allowed
from flowwalk.cooperative import CancelToken
from flowwalk.environment import describe
from flowwalk.errors import BrowserLaunchError
from flowwalk.exitcodes import JobGate, decide_outcome
from flowwalk.model import Scenario
from flowwalk.settings import Settings
from flowwalk.walk.context import RunContext, redact_event
from flowwalk.walk.outcomes import ScenarioOutcome, StepFailed, Unit
from flowwalk.walk.preflight import check_variables, not_run_events, refused_events
from flowwalk.walk.prelaunch import BrowserHost, Prelaunch
from flowwalk.walk.scenario import walk_scenario
from flowwalk.walk.sessions import SessionBook, WorkQueue
from flowwalk.walk.watchdog import Watchdog, kill_browsers

__all__ = ["Prelaunch", "RunSummary", "run_plan", "settings_record"]

class PlanLike(Protocol):
    @property
    def shard_index(self) -> int: ...

    @property
    def shard_total(self) -> int: ...

    def assigned_scenarios(self) -> tuple[Scenario, ...]: ...

    def walk_order(self) -> tuple[Scenario, ...]: ...

    def record(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class RunSummary:
    """What a run did, for the caller (the reports are rebuilt from emit.jsonl, not from this)."""

    run_id: str
    exit_code: int
    counts: dict[str, int]
    #: final status of every test (rule) run or refused, in plan order
    tests: dict[str, str]
    #: failure class of every test whose final status is failed
    failure_classes: dict[str, str]
    cancelled: bool
    duration_ms: float
    #: the final attempt of each scenario that was walked, in plan order
    outcomes: tuple[ScenarioOutcome, ...] = ()
    #: why a Chromium could not be started, when it could not
    launch_errors: tuple[str, ...] = ()


def settings_record(settings: Settings) -> dict[str, Any]:
    """The settings a report needs, never a secret value (secret NAMES only)."""
    return {
        "base_url": settings.base_url,
        "variables": dict(settings.variables),
        "secret_names": sorted(set(settings.secret_names) | set(settings.secrets.names())),
        "workers": settings.workers,
        "retries": settings.retries,
        "flaky_policy": settings.flaky_policy,
        "heal_policy": settings.heal_policy,
        "run_timeout_s": settings.run_timeout_s,
        "rule_timeout_ms": settings.rule_timeout_ms,
        "guard_timeout_ms": settings.guard_timeout_ms,
        "action_timeout_ms": settings.action_timeout_ms,
        "navigation_timeout_ms": settings.navigation_timeout_ms,
        "expect_timeout_ms": settings.expect_timeout_ms,
        "stabilize": dataclasses.asdict(settings.stabilize),
        "flow_stabilize": dataclasses.asdict(settings.flow_stabilize),
        "dismiss_selectors": list(settings.dismiss_selectors),
        "executable": settings.executable,
        "screenshots": settings.screenshots,
        "trace": settings.trace,
        "shard": {"index": settings.shard_index, "total": settings.shard_total},
        "out_dir": settings.out_dir,
        "max_failures": settings.max_failures,
        "environment": describe([settings.environment]),
        "projects": [{"name": p.name, "environment": describe([settings.environment, p.environment])}
                     for p in settings.projects],
        "project_filter": list(settings.project_filter),
        "fail_on": settings.fail_on,
    }


# --- the loop -----------------------------------------------------------------------------------


@dataclass
class _Shared:
    """State the workers share; every mutation happens under `lock`."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    outcomes: dict[str, ScenarioOutcome] = field(default_factory=dict)
    finals: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)
    #: tests whose latest attempt went through a healed selector (heal_policy)
    healed: set[str] = field(default_factory=set)
    launch_errors: list[str] = field(default_factory=list)
    #: the marker of every browser this run launched: all the watchdog may kill
    browsers: set[str] = field(default_factory=set)

    def launched(self, browser: Any) -> Any:
        """Note a browser of this run (None passes through) so the watchdog can find it."""
        if browser is not None and browser.marker:
            with self.lock:
                self.browsers.add(browser.marker)
        return browser

    def kill_browsers(self) -> int:
        """The watchdog's last resort: kill this run's browsers, and no one else's."""
        with self.lock:
            markers = frozenset(self.browsers)
        return kill_browsers(markers)


def run_plan(plan: PlanLike | Sequence[Scenario], settings: Settings, emit: Callable[[ev.Event], None], *,
             plan_record: dict[str, Any] | None = None, cancel: CancelToken | None = None,
             run_id: str | None = None, prelaunched: BrowserHost | None = None,
             gate: dict[str, Any] | None = None, readiness: dict[str, Any] | None = None) -> RunSummary:
    """Walk this shard's scenarios and emit every event (already redacted) through `emit`.

    `plan` is a `plan.model.Plan` (its `assigned_scenarios()` run, its `record()` goes into
    RunStarted) or a plain sequence of scenarios with `plan_record` describing them. `readiness`:
    the readiness wait's record (readiness.py); when the site never came up, no scenario is walked
    and each is reported not run (`site_not_ready`), naming what the site answered.
    """
    t0 = time.monotonic()
    if isinstance(plan, Sequence):
        scenarios = list(plan)
        walk_order = scenarios
        record = plan_record if plan_record is not None else {
            "scenarios": [{"id": s.id, "test_ids": [s.test_id(r) for r in s.rules]} for s in scenarios],
            "assigned": [s.id for s in scenarios]}
        shard = {"index": settings.shard_index, "total": settings.shard_total}
    else:
        scenarios = list(plan.assigned_scenarios())
        walk_order = list(plan.walk_order())
        record = plan_record if plan_record is not None else plan.record()
        shard = {"index": plan.shard_index, "total": plan.shard_total}
    cancel = cancel if cancel is not None else CancelToken()
    run = dataclasses.replace(RunContext.create(settings, cancel=cancel, started=t0), sessions=SessionBook(scenarios))
    run_id = run_id or uuid.uuid4().hex[:12]
    shared = _Shared()
    emit_lock = threading.Lock()
    # which failures fail the job (quarantine, fail_on: new): --max-failures counts only those
    judge = JobGate.from_record(gate)
    tests_of = {s.id: [s.test_id(r) for r in s.rules] for s in scenarios}

    def out(event: ev.Event) -> None:
        # one lock: emit.jsonl lines never interleave; redaction again, as the last gate
        event = redact_event(event, run.redactor.text)
        with emit_lock:
            emit(event)
        if isinstance(event, ev.RuleFinished):
            with shared.lock:
                cls = event.failure.failure_class if event.failure is not None else None
                shared.finals[event.test_id] = (event.status, event.reason, cls)
                if any(f.kind == "healed" for f in event.findings):
                    shared.healed.add(event.test_id)
                else:
                    shared.healed.discard(event.test_id)
        elif isinstance(event, ev.ScenarioFinished) and event.final and event.status == "failed":
            with shared.lock:
                failed = [t for t in tests_of.get(event.scenario_id, ()) if shared.finals.get(t, ("",))[0] == "failed"]
            # --max-failures counts a failed scenario unless the gate excuses every failure of it
            if not failed or any(not judge.excuse(t, "failed") for t in failed):
                run.stop.note_failure()

    out(ev.RunStarted(run_id=run_id, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      flowwalk_version=_version, shard=shard, plan=record, settings=settings_record(settings),
                      gate=gate, readiness=readiness, root=os.path.abspath(settings.root)))

    # 1. variables, before any browser; nothing at all when the site never came up
    runnable: list[Scenario] = []
    not_ready = _not_ready_failure(readiness) if not cancel.is_set() else None
    for scenario in scenarios:
        if not_ready is not None:
            for event in not_run_events(scenario, "site_not_ready", run, blame=dataclasses.replace(
                    not_ready, path=scenario.loc.path, line=scenario.loc.line, col=scenario.loc.col)):
                out(event)
            continue
        missing = check_variables(scenario, settings, dict(run.variables))
        if missing:
            refused = refused_events(scenario, missing, run)
            for event in refused:
                out(event)
            run.sessions.finish(scenario, [e for e in refused if isinstance(e, ev.RuleFinished)])
        else:
            runnable.append(scenario)

    # 2. workers
    n_workers = max(1, min(settings.workers, len(runnable)))
    if n_workers > 1:  # one worker walks them all anyway: its first results come soonest in plan order
        rank = {s.id: i for i, s in enumerate(walk_order)}
        runnable.sort(key=lambda s: rank.get(s.id, len(rank)))
    # a setup goes before everything else (its dependants wait for it; the rest does not)
    runnable.sort(key=lambda s: not s.saves)
    work = WorkQueue(runnable, run.sessions)
    threads: list[threading.Thread] = []
    if runnable:
        # sharing a browser goes through Playwright's private API (browser/seams.py); with a browser
        # server, each worker connects to a browser of its own, spreading over the server's browsers
        per_browser = WALKERS_PER_BROWSER if private_api_allowed() and not settings.browser_endpoint else 1
        for index, numbers in enumerate(worker_groups(n_workers, per_browser)):
            runs = {n: run.for_worker(n) for n in numbers}
            host = functools.partial(_host, numbers, work, settings, runs, out, shared)
            if index == 0 and prelaunched is not None:
                prelaunched.hand(functools.partial(_first_host, host, shared))
                continue
            threads.append(threading.Thread(target=host, name=f"flowwalk-worker-{numbers[0]}", daemon=True))
    elif prelaunched is not None:
        prelaunched.close()
    for thread in threads:
        thread.start()
    # a step stuck in Chromium (a frozen page, a long wait) must not outlive a cancel or the run
    # timeout: past a grace period the watchdog stops the browsers and the stuck calls fail
    watchdog = (Watchdog(cancel, run.deadline, shared.kill_browsers).start()
                if threads or prelaunched is not None else None)
    for thread in threads:
        thread.join()
    if prelaunched is not None:
        prelaunched.join()
    if watchdog is not None:
        watchdog.stop()

    cancelled = cancel.is_set()
    if cancelled:
        out(ev.RunCancelled(signal=cancel.signal, t=run.elapsed_s()))
    finals = dict(shared.finals)
    counts = ev.tally(status for status, _, _ in finals.values())
    healed = any(finals[t][0] in ("passed", "flaky") for t in shared.healed if t in finals)
    code = int(decide_outcome(((*row, tid) for tid, row in finals.items()), cancelled=cancelled,
                              flaky_policy=settings.flaky_policy, heal_policy=settings.heal_policy, healed=healed,
                              gate=judge)[1])
    duration = round((time.monotonic() - t0) * 1000, 1)
    out(ev.RunFinished(finished_at=datetime.now(timezone.utc).isoformat(timespec="seconds"), duration_ms=duration,
                       exit_code=code, counts=counts, cancelled=cancelled))
    order = {s.id: i for i, s in enumerate(scenarios)}
    outcomes = tuple(sorted(shared.outcomes.values(), key=lambda o: order.get(o.scenario_id, 0)))
    test_order = {tid: i for i, tid in enumerate(s.test_id(r) for s in scenarios for r in s.rules)}
    tests = {tid: finals[tid][0] for tid in sorted(finals, key=lambda t: test_order.get(t, 0))}
    return RunSummary(run_id=run_id, exit_code=code, counts=counts, tests=tests,
                      failure_classes={t: c for t, (s, _, c) in finals.items() if s == "failed" and c},
                      cancelled=cancelled, duration_ms=duration, outcomes=outcomes,
                      launch_errors=tuple(shared.launch_errors))


def _not_ready_failure(readiness: dict[str, Any] | None) -> ev.Failure | None:
    """The failure every scenario carries when the readiness wait ran out (None: the site is up,
    or the run did not wait; a wait cut short by a cancel is the cancel's)."""
    if not readiness or readiness.get("ready") or readiness.get("cancelled"):
        return None
    attempts = int(readiness.get("attempts") or 0)
    return Unit("setup", text=f"wait for {readiness.get('url')}").failure(StepFailed(
        "SITE_NOT_READY", f"the site never came up: {readiness.get('url')} answered {readiness.get('last')} "
                          f"for {readiness.get('waited_s')} s ({attempts} tr{'ies' if attempts != 1 else 'y'})",
        expected=str(readiness.get("expected") or ""), observed=str(readiness.get("last") or "")),
        context={"readiness": dict(readiness)})


#: the most workers that share one Chromium and one Playwright driver (browser/together.py). At
#: workers 2 on the bench machine (2 cores), two walkers on one browser took less wall time and
#: CPU than two browsers (bench/PROFILE.md); with many walkers, the one browser process and the
#: one driver each serve them all, so a run with more workers than this gets another browser.
WALKERS_PER_BROWSER = 4


def worker_groups(n_workers: int, per_browser: int = WALKERS_PER_BROWSER) -> list[list[int]]:
    """Worker numbers 1..n in the fewest groups of at most `per_browser`, as even as can be:
    one thread, one Playwright and one Chromium per group; worker 1 is in the first."""
    hosts = max(1, -(-n_workers // per_browser))
    numbers = list(range(1, n_workers + 1))
    return [numbers[i::hosts] for i in range(hosts)]


def _first_host(host: Callable[..., None], shared: _Shared, browser: Any) -> None:
    """The first group in the prelaunched thread, with the browser it launched (None if that failed)."""
    host(shared.launched(browser))


def _host(numbers: Sequence[int], work: WorkQueue, settings: Settings, runs: dict[int, RunContext],
          out: Callable[[ev.Event], None], shared: _Shared, browser: Any = None) -> None:
    """One thread: its Playwright and Chromium, shared by the workers `numbers` (one greenlet each,
    browser/together.py); a lone worker walks in the thread itself, as it always did.

    When the driver dies under the walkers, the scenarios they had not started go to a new
    Playwright and Chromium of this thread (or, once the run is cancelled or out of time, are
    reported as not run).
    """
    from flowwalk.browser.together import DriverGone

    first = runs[numbers[0]]
    if len(numbers) == 1:
        _worker(numbers[0], work, settings, first, out, shared, browser)
        return
    while True:
        seat = _Seat.take(settings, shared, browser)
        browser = None
        if seat is None:
            # no Playwright in this thread: one walker reports, scenario by scenario, why none starts
            _worker(numbers[0], work, settings, first, out, shared)
            return
        try:
            try:
                seat.walk([functools.partial(_worker, n, work, settings, runs[n], out, shared, seat=seat)
                           for n in numbers])
            except DriverGone:
                pass
            lost = seat.gone()
        finally:
            seat.close()
        if not lost or work.empty():
            return
        if first.is_stopped():
            _worker(numbers[0], work, settings, first, out, shared)   # reports them, starts nothing
            return


class _Seat:
    """The Playwright and the Chromium of one thread, which its walkers share (see `_host`)."""

    def __init__(self, settings: Settings, manager: Any, playwright: Any, browser: Any):
        self.settings = settings
        self._manager = manager
        self.playwright = playwright
        #: the shared browser (None when its launch failed: each walker then launches its own)
        self.browser = browser

    @classmethod
    def take(cls, settings: Settings, shared: _Shared, browser: Any) -> "_Seat | None":
        """The seat of `browser` (prelaunched: its driver becomes the seat's; a kept one keeps its
        own), else a new Playwright and Chromium; None when no Playwright can start in this thread."""
        if browser is not None:
            return cls(settings, None if browser.kept else browser.release_playwright(), browser.playwright, browser)
        from flowwalk.browser.launch import Browser, start_playwright

        try:
            manager, playwright = start_playwright()
        except Exception:  # noqa: BLE001 - the walker's own launch reports why, scenario by scenario
            return None
        seat = cls(settings, manager, playwright, None)
        try:
            seat.browser = shared.launched(Browser.launch(settings, playwright))
        except BrowserLaunchError:
            pass   # each walker's first scenario launches again, and reports the error
        return seat

    def gone(self) -> bool:
        """The driver died: this seat can launch nothing more."""
        from flowwalk.browser.together import driver_gone

        return driver_gone(self.playwright)

    def launch(self) -> Any:
        """Another Chromium on this seat's Playwright (for a walker whose browser crashed)."""
        from flowwalk.browser.launch import Browser

        return Browser.launch(self.settings, self.playwright)

    def walk(self, walkers: Sequence[Callable[[], None]]) -> None:
        from flowwalk.browser.together import walk_together

        walk_together(self.playwright, walkers)

    def close(self) -> None:
        from flowwalk.browser.launch import stop_playwright

        if self.browser is not None and not self.browser.kept:
            self.browser.close()
        stop_playwright(self._manager)
        self._manager = None


def _worker(number: int, work: WorkQueue, settings: Settings, run: RunContext,
            out: Callable[[ev.Event], None], shared: _Shared, browser: Any = None, *,
            seat: _Seat | None = None) -> None:
    """One worker: scenarios pulled until none are left, walked in its own thread with its own
    Playwright and Chromium, or (`seat`) as one of the walkers sharing a thread's.

    `browser`: one this thread launched already (`Prelaunch`), else the first scenario launches it.
    """
    if seat is not None:
        browser = seat.browser
    try:
        while True:
            scenario = work.take(run.is_stopped)
            if scenario is None:
                return
            if seat is not None and seat.gone():
                work.put(scenario)   # for the thread's next Playwright (see _host)
                return
            try:
                if (stopped := run.stop_reason()) is not None:
                    for event in not_run_events(scenario, stopped, run):
                        out(event)
                elif (blame := run.sessions.blame(scenario)) is not None:
                    for event in not_run_events(scenario, "session_failed", run, blame=blame):
                        out(event)
                else:
                    # while more scenarios wait, the browser opens the next context ahead (browser/launch.py)
                    browser = _run_scenario(scenario, browser, settings, run, out, shared,
                                            keep_spare=not work.empty(), seat=seat)
            finally:
                # a setup that ended without saving fails its session: its dependants are released
                with shared.lock:
                    outcome = shared.outcomes.get(scenario.id)
                run.sessions.finish(scenario, outcome.rules if outcome is not None else ())
    finally:
        if browser is not None:
            _let_go(browser, seat)


def _let_go(browser: Any, seat: _Seat | None) -> None:
    """A worker stops using `browser`: closed, unless it is its seat's shared one (`_Seat.close`) or
    kept for later runs (`Browser.kept`: its owner closes it)."""
    if (seat is None or browser is not seat.browser) and not browser.kept:
        browser.close()


def _run_scenario(scenario: Scenario, browser: Any, settings: Settings, run: RunContext,
                  out: Callable[[ev.Event], None], shared: _Shared, *, keep_spare: bool = False,
                  seat: _Seat | None = None) -> Any:
    """Every attempt of one scenario; returns the worker's browser (relaunched after a crash: a
    walker of a `seat` then launches one of its own on the seat's Playwright)."""
    from flowwalk.browser.launch import Browser

    earlier: frozenset[str] = frozenset()
    attempt = 1
    while True:
        if browser is None or not browser.is_alive():
            if browser is not None:
                _let_go(browser, seat)
            try:
                browser = shared.launched(seat.launch() if seat is not None else Browser.launch(settings))
            except BrowserLaunchError as error:
                with shared.lock:
                    shared.launch_errors.append(str(error))
                failure = Unit("setup", scenario.loc).failure(StepFailed("INTERNAL",
                                                                         f"Chromium could not be started: {error}"))
                for event in not_run_events(scenario, "setup_failed", run, attempt=attempt, failure=failure):
                    out(event)
                return None
        browser.keep_spare = keep_spare
        try:
            outcome = walk_scenario(scenario, browser, settings, run, attempt, out, earlier_failures=earlier)
        except Exception as error:  # noqa: BLE001 - a bug in flowwalk: report it, keep the run going
            broke = StepFailed("INTERNAL", f"flowwalk broke while walking this scenario: {type(error).__name__}: {error}")
            failure = Unit("setup", scenario.loc).failure(broke, context={"traceback": traceback.format_exc(limit=8)})
            for event in not_run_events(scenario, "setup_failed", run, attempt=attempt, failure=failure):
                out(event)
            _let_go(browser, seat)
            return None
        with shared.lock:
            shared.outcomes[scenario.id] = outcome
        if outcome.browser_crashed:
            # the next attempt or scenario gets a fresh Chromium
            _let_go(browser, seat)
            browser = None
        if outcome.final:
            return browser
        earlier = earlier | outcome.failed_tests
        attempt += 1
