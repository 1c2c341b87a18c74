"""One scenario attempt: open it, walk its rules in order, close it. `walk_scenario` is the
walker's entry point for the run loop (run.py).

Contract:
- **open**: a fresh browser context, the entry URL (`{{NAME}}` substituted, made absolute) and
  one pass of interrupt dismissal. A failure there fails the first rule (step kind `setup`) and
  skips the rest. When a one-rule scenario's first step is a goto to the entry URL itself
  (flow-spec v1's own example), that step is the opening navigation: the page loads once, and a
  page that will not load fails that step instead of the setup;
- **rules** in dependency order (Kahn, declaration order for ties). Before each: once the
  browser is gone, the run timed out or was cancelled (AttemptControl), the rules not started
  are skipped with that reason; a rule whose parent did not pass is skipped (`parent_failed`,
  outcomes.parent_gate); else it is walked (rule.py) and its RuleFinished emitted;
- **close**: the context, and the trace when wanted, scrubbed of every secret (walk/traces.py).

Every event leaves through `Attempt.emit`, redacted. Page and browser trouble become failures;
nothing is raised for them.
"""

from __future__ import annotations

import time
from typing import Any, Sequence
from urllib.parse import urlsplit

from flowwalk import events as ev
from flowwalk.browser.launch import Browser
from flowwalk.environment import context_options, layers_of
from flowwalk.model import Goto, Rule, Scenario
from flowwalk.dag import topo_order
from flowwalk.settings import Settings
from flowwalk.walk.actions import dismiss, goto
from flowwalk.walk.attempt import Attempt, Emit
from flowwalk.walk.boundary import Halt, halt_failure, halt_if_gone, short
from flowwalk.walk.context import RunContext
from flowwalk.walk.evidence import failure_context, slug
from flowwalk.walk.outcomes import (ScenarioOutcome, StepFailed, Unit, parent_gate, rule_finished, scenario_status,
                                    skipped_steps, will_retry)
from flowwalk.walk.rule import walk_rule
from flowwalk.walk.sessions import state_values
from flowwalk.walk.traces import keep_trace, screencast_allowed

__all__ = ["walk_scenario"]


def walk_scenario(scenario: Scenario, browser: Browser, settings: Settings, run: RunContext, attempt: int,
                  emit: Emit, *, earlier_failures: frozenset[str] = frozenset()) -> ScenarioOutcome:
    """Walk one attempt of `scenario` in a fresh browser context and emit its events.

    `earlier_failures` holds the test ids that failed in this scenario's earlier attempts: a
    test among them that passes now is reported `flaky`. Raises nothing for page or browser
    trouble (that becomes failures); a crashed browser is reported in the outcome.
    """
    return walk(Attempt(scenario, browser, settings, run, attempt, emit, earlier_failures))


def walk(attempt: Attempt) -> ScenarioOutcome:
    """Open, the rules in order, close; ScenarioStarted first and ScenarioFinished last."""
    t0 = time.monotonic()
    sc = attempt.scenario
    control = attempt.control
    attempt.emit(ev.ScenarioStarted(scenario_id=sc.id, attempt=attempt.number, worker=attempt.run.worker,
                                    t=attempt.run.elapsed_s()))
    order = topo_order(list(sc.rules))
    setup_failure: ev.Failure | None = None
    try:
        setup_failure = _open(attempt)
    except Halt:
        setup_failure = halt_failure(attempt, "setup", None, None,
                                     "the browser crashed or disconnected while opening the scenario")
    # the rule that carries a setup failure spent this long on it (the entry navigation and its evidence)
    attempt.setup_ms = (time.monotonic() - t0) * 1000
    walked: list[ev.RuleFinished] = []
    try:
        for rule in order:
            result = _rule_or_skip(attempt, rule, setup_failure)
            if setup_failure is not None:
                control.after_setup_failure()
            if rule.saves_session and result.status in ("passed", "flaky"):
                _save_session(attempt, rule.saves_session)
            attempt.results[rule.name] = result
            walked.append(result)
            attempt.emit(result)
    finally:
        trace, withheld = _close(attempt, walked)
    status = scenario_status(walked, attempt.number)
    duration = round((time.monotonic() - t0) * 1000, 1)
    final = not will_retry(status, attempt.number, attempt.settings.retries, run_timed_out=control.run_timed_out,
                           cancelled=control.cancelled)
    attempt.emit(ev.ScenarioFinished(scenario_id=sc.id, attempt=attempt.number, status=status,
                                     duration_ms=duration, final=final, trace=trace, trace_withheld=withheld))
    return ScenarioOutcome(scenario_id=sc.id, attempt=attempt.number, status=status, rules=tuple(walked),
                           duration_ms=duration, browser_crashed=control.crashed,
                           run_timed_out=control.run_timed_out, cancelled=control.cancelled, final=final)


def _rule_or_skip(attempt: Attempt, rule: Rule, setup_failure: ev.Failure | None) -> ev.RuleFinished:
    def skipped(reason: ev.SkipReason, failure: ev.Failure | None = None) -> ev.RuleFinished:
        return rule_finished(attempt.scenario, rule, attempt.number, "skipped", 0.0, reason=reason, failure=failure,
                             earlier_failures=attempt.earlier_failures)

    if setup_failure is not None and not attempt.results:
        # the first rule carries the setup failure, and the time spent on it; the rest are skipped
        return rule_finished(attempt.scenario, rule, attempt.number, "failed", attempt.setup_ms,
                             earlier_failures=attempt.earlier_failures, failure=setup_failure,
                             skipped_steps=skipped_steps(rule.steps))
    stop = attempt.control.poll()
    if stop:
        return skipped(stop)
    gated = parent_gate(rule, attempt.results)
    if gated is not None:
        return skipped("parent_failed", gated)
    return walk_rule(attempt, rule)


def _open(attempt: Attempt) -> ev.Failure | None:
    """A fresh context, then the entry URL and one interrupt pass. A failure fails the first rule."""
    sc = attempt.scenario
    text = f"open the entry URL {sc.entry_url}"
    entry_problem: StepFailed | None = None
    if sc.entry_url:
        try:
            url = attempt.bindings.subst(sc.entry_url)
            assert url is not None
            attempt.entry_url = attempt.absolute(url)
        except StepFailed as failed:
            entry_problem = failed
    started_from = attempt.run.sessions.state_for(sc)
    # a session's cookies and storage are credentials in effect: masked like secrets
    attempt.bindings.hide(state_values(started_from))
    try:
        attempt.session = attempt.browser.new_session(entry_url=attempt.entry_url,
                                                      allowed_hosts=attempt.allowed_hosts,
                                                      trace=attempt.settings.trace != "off",
                                                      screencast=screencast_allowed(attempt),
                                                      offline=attempt.settings.offline,
                                                      storage_state=started_from,
                                                      context_options=scenario_options(attempt.settings, sc))
    except Exception as exc:  # noqa: BLE001 - a dead browser may raise Playwright's own error
        halt_if_gone(exc, attempt)
        return Unit("setup", sc.loc, text).failure(StepFailed("INTERNAL", f"could not open a browser context: "
                                                                          f"{short(exc)}"))
    if sc.routes:
        attempt.session.answer(sc.routes)
    if entry_problem is not None:
        return Unit("setup", sc.loc, text).failure(entry_problem)
    if not attempt.entry_url:
        return None
    if _first_step_opens_entry(attempt):
        # the flow's first step navigates to the entry URL itself (flow-spec v1's own example
        # does): that step is the opening navigation, instead of loading the page twice
        attempt.entry_deferred = True
        return None
    try:
        goto(attempt, attempt.entry_url, attempt.budget)
    except StepFailed as failed:
        code = "RUN_TIMEOUT" if attempt.run.timed_out() else failed.code
        if code == "RUN_TIMEOUT":
            attempt.control.mark_run_timeout(stop=False)
        return Unit("run_timeout" if code == "RUN_TIMEOUT" else "setup", sc.loc, text).failure(
            failed, code=code, context=failure_context(attempt, None))
    dismiss(attempt, attempt.global_dismiss())
    return None


def scenario_options(settings: Settings, scenario: Scenario) -> dict[str, Any]:
    """The browser context options of `scenario`: flowwalk.yaml's environment, then its project's,
    then its own (environment.py)."""
    return context_options(layers_of(settings.environment, settings.projects, scenario))


def _save_session(attempt: Attempt, name: str) -> None:
    """The saving rule passed: its context's cookies and local storage become session `name`
    (kept in memory only, walk/sessions.py). A context that cannot answer saves nothing: the
    setup's end then fails the session."""
    if attempt.session is None:
        return
    try:
        state = attempt.session.storage_state()
    except Exception as exc:  # noqa: BLE001 - a dead browser has no state to give
        halt_if_gone(exc, attempt)
        return
    attempt.bindings.hide(state_values(state))
    attempt.run.sessions.save(attempt.scenario, name, state)


def _first_step_opens_entry(attempt: Attempt) -> bool:
    """Is the first step of a one-rule scenario a goto to exactly the entry URL?

    Only when that URL resolves the same before the page is open: absolute, or relative to
    --base-url (a relative URL without it would resolve against the page).
    """
    rules = attempt.scenario.rules
    if len(rules) != 1 or not rules[0].steps or not isinstance(rules[0].steps[0], Goto):
        return False
    try:
        url = attempt.bindings.subst(rules[0].steps[0].url)
    except StepFailed:
        return False
    if not url or not (urlsplit(url).scheme or attempt.settings.base_url):
        return False
    try:
        return attempt.absolute(url) == attempt.entry_url
    except StepFailed:
        return False


def _close(attempt: Attempt, walked: Sequence[ev.RuleFinished]) -> tuple[str | None, str | None]:
    """Close the context; (trace file, why a wanted trace was not kept): walk/traces.py."""
    if attempt.session is None:
        return None, None
    try:
        return keep_trace(attempt, walked)
    except Exception:  # noqa: BLE001 - closing a crashed context must not hide the results
        return None, None
