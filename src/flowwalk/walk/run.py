"""The run loop: the scenarios of a plan (this shard's), walked by N workers, with retries.

`run_plan` emits `RunStarted` first and `RunFinished` last, and in between:

1. before any browser starts, every scenario's variables are checked (preflight.py): one that
   needs a variable the run cannot supply is failed with `credential_rejected` (`VARIABLE_MISSING`,
   naming the variable and its line) without a browser, reported like any other failure, and the
   others run;
2. `settings.workers` threads, each with its own `sync_playwright()` and Chromium (a Playwright
   sync instance belongs to one thread), pull scenarios from one queue in plan order. Threads,
   not processes: the work is waiting on Chromium, and on two cores two threads with the headless
   shell take about half the wall time of one; every event passes one lock, so emit.jsonl lines
   never interleave, and a scenario's own events stay in order. Results do not depend on the
   number of workers; only timings and the interleaving of different scenarios' events do;
3. each attempt is `scenario.walk_scenario`;
   `--retries N`: a failed scenario reruns in a fresh context (attempt 2..N+1) and one that
   passes on a retry is `flaky`; every attempt's events are emitted and `ScenarioFinished.final`
   marks the last;
4. a crashed browser is relaunched for the next attempt or scenario;
5. the run timeout (`settings.run_timeout_s`) cuts the step in flight and skips what did not
   start (reason `run_timeout`); the `cancel` event (set by the CLI on SIGINT/SIGTERM, with the
   signal's name in `cancel.signal_name`) stops starting scenarios, marks those not run
   `cancelled` and emits `RunCancelled`.

Start-up: `Prelaunch()` starts worker 1 and its Playwright driver before the settings are read,
and `launch(settings)` its Chromium before the specs are loaded (`app.execute_run` does, so that
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
import queue
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Protocol, Sequence

from flowwalk import __version__ as _version
from flowwalk import events as ev
from flowwalk.errors import BrowserLaunchError
from flowwalk.exitcodes import decide_outcome
from flowwalk.model import Scenario
from flowwalk.settings import Settings
from flowwalk.walk.context import RunContext, redact_event
from flowwalk.walk.outcomes import ScenarioOutcome
from flowwalk.walk.preflight import check_variables, not_run_events, refused_events
from flowwalk.walk.prelaunch import Prelaunch
from flowwalk.walk.recovery import make_failure
from flowwalk.walk.scenario import walk_scenario
from flowwalk.walk.watchdog import Watchdog, kill_browsers

__all__ = ["Prelaunch", "RunSummary", "run_plan", "settings_record"]

class PlanLike(Protocol):
    @property
    def shard_index(self) -> int: ...

    @property
    def shard_total(self) -> int: ...

    def assigned_scenarios(self) -> tuple[Scenario, ...]: ...

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
             plan_record: dict[str, Any] | None = None, cancel: threading.Event | None = None,
             run_id: str | None = None, prelaunched: Prelaunch | None = None) -> RunSummary:
    """Walk this shard's scenarios and emit every event (already redacted) through `emit`.

    `plan` is a `plan.model.Plan` (its `assigned_scenarios()` run, its `record()` goes into
    RunStarted) or a plain sequence of scenarios with `plan_record` describing them.
    """
    t0 = time.monotonic()
    if isinstance(plan, Sequence):
        scenarios = list(plan)
        record = plan_record if plan_record is not None else {
            "scenarios": [{"id": s.id, "test_ids": [s.test_id(r) for r in s.rules]} for s in scenarios],
            "assigned": [s.id for s in scenarios]}
        shard = {"index": settings.shard_index, "total": settings.shard_total}
    else:
        scenarios = list(plan.assigned_scenarios())
        record = plan_record if plan_record is not None else plan.record()
        shard = {"index": plan.shard_index, "total": plan.shard_total}
    cancel = cancel if cancel is not None else threading.Event()
    run = RunContext.create(settings, cancel=cancel, started=t0)
    run_id = run_id or uuid.uuid4().hex[:12]
    shared = _Shared()
    emit_lock = threading.Lock()

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

    out(ev.RunStarted(run_id=run_id, started_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                      flowwalk_version=_version, shard=shard, plan=record, settings=settings_record(settings)))

    # 1. variables, before any browser
    runnable: list[Scenario] = []
    for scenario in scenarios:
        missing = check_variables(scenario, settings, dict(run.variables))
        if missing:
            for event in refused_events(scenario, missing, run):
                out(event)
        else:
            runnable.append(scenario)

    # 2. workers
    work: "queue.Queue[Scenario]" = queue.Queue()
    for scenario in runnable:
        work.put(scenario)
    n_workers = max(1, min(settings.workers, len(runnable)))
    threads: list[threading.Thread] = []
    if runnable:
        for n in range(1, n_workers + 1):
            worker_run = run.for_worker(n)
            if n == 1 and prelaunched is not None:
                prelaunched.hand(functools.partial(_first_worker, work, settings, worker_run, out, shared))
                continue
            threads.append(threading.Thread(target=_worker, name=f"flowwalk-worker-{n}",
                                            args=(n, work, settings, worker_run, out, shared), daemon=True))
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
        out(ev.RunCancelled(signal=str(getattr(cancel, "signal_name", None) or "SIGINT"), t=run.elapsed_s()))
    finals = dict(shared.finals)
    counts = {"total": len(finals), "passed": 0, "failed": 0, "skipped": 0, "flaky": 0}
    for status, _, _ in finals.values():
        counts[status if status in counts else "failed"] += 1
    healed = any(finals[t][0] in ("passed", "flaky") for t in shared.healed if t in finals)
    code = int(decide_outcome(finals.values(), cancelled=cancelled, flaky_policy=settings.flaky_policy,
                              heal_policy=settings.heal_policy, healed=healed)[1])
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


def _first_worker(work: "queue.Queue[Scenario]", settings: Settings, run: RunContext,
                  out: Callable[[ev.Event], None], shared: _Shared, browser: Any) -> None:
    """Worker 1 in the prelaunched thread, with the browser it launched (None if that failed)."""
    _worker(1, work, settings, run, out, shared, shared.launched(browser))


def _worker(number: int, work: "queue.Queue[Scenario]", settings: Settings, run: RunContext,
            out: Callable[[ev.Event], None], shared: _Shared, browser: Any = None) -> None:
    """One worker thread: its own Playwright and Chromium, scenarios pulled until none are left.

    `browser`: one this thread launched already (`Prelaunch`), else the first scenario launches it.
    """
    try:
        while True:
            try:
                scenario = work.get_nowait()
            except queue.Empty:
                return
            if run.cancel.is_set():
                for event in not_run_events(scenario, "cancelled", run):
                    out(event)
                continue
            if run.timed_out():
                for event in not_run_events(scenario, "run_timeout", run):
                    out(event)
                continue
            # while more scenarios wait, the browser opens the next context ahead (browser/launch.py)
            browser = _run_scenario(scenario, browser, settings, run, out, shared, keep_spare=not work.empty())
    finally:
        if browser is not None:
            browser.close()


def _run_scenario(scenario: Scenario, browser: Any, settings: Settings, run: RunContext,
                  out: Callable[[ev.Event], None], shared: _Shared, *, keep_spare: bool = False) -> Any:
    """Every attempt of one scenario; returns the worker's browser (relaunched after a crash)."""
    from flowwalk.browser.launch import Browser

    earlier: frozenset[str] = frozenset()
    attempt = 1
    while True:
        if browser is None or not browser.is_alive():
            if browser is not None:
                browser.close()
            try:
                browser = shared.launched(Browser.launch(settings))
            except BrowserLaunchError as error:
                with shared.lock:
                    shared.launch_errors.append(str(error))
                failure = make_failure("INTERNAL", step_kind="setup", loc=scenario.loc,
                                       message=f"Chromium could not be started: {error}")
                for event in not_run_events(scenario, "setup_failed", run, attempt=attempt, failure=failure):
                    out(event)
                return None
        browser.keep_spare = keep_spare
        try:
            outcome = walk_scenario(scenario, browser, settings, run, attempt, out, earlier_failures=earlier)
        except Exception as error:  # noqa: BLE001 - a bug in flowwalk: report it, keep the run going
            failure = make_failure("INTERNAL", step_kind="setup", loc=scenario.loc,
                                   message=f"flowwalk broke while walking this scenario: "
                                           f"{type(error).__name__}: {error}",
                                   context={"traceback": traceback.format_exc(limit=8)})
            for event in not_run_events(scenario, "setup_failed", run, attempt=attempt, failure=failure):
                out(event)
            browser.close()
            return None
        with shared.lock:
            shared.outcomes[scenario.id] = outcome
        if outcome.browser_crashed:
            # the next attempt or scenario gets a fresh Chromium
            browser.close()
            browser = None
        if outcome.final:
            return browser
        earlier = earlier | outcome.failed_tests
        attempt += 1
