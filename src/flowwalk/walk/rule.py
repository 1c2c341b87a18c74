"""One rule, walked: guards, then retry-redo, then the body, then the rule's verifiers, then (for a
flow) its assertions. Every step goes through the step envelope (step.py).

Contract:
- **guards** are the expects that open a rule, before its first act, goto, wait, extract or
  emit (`split_guards`); a rule made only of expects is all guards; a flow has none. They are
  checked with the guard timeout;
- **retry-redo**: while guards fail and `retry.max` allows, the body's actions (goto, act, wait;
  never its observations) are replayed, `delay_ms` slept, the guards checked again. Guards that
  still fail skip the rule (`guard_failed`), or fail it under `guard_policy: abort` or when the
  run deadline cut them;
- **body**: steps in order; a failed required step fails the rule and lists the rest as not run,
  except the after_each steps of its hooks (`Step.teardown`), which run all the same;
- the rule's own verifiers run after a body that passed, reported as one more step `verify ...`;
- a flow's assertions grade it after its steps (observations.grade_assertions);
- a browser that dies mid-rule fails the step in flight and stops the attempt (`browser_crashed`).

A rule's selector scope is inherited (`scope_of`): a rule's `child_scope` applies to its
descendants, composed with its own ancestors' as `outer >> inner`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Sequence

from flowwalk import events as ev
from flowwalk.model import Act, Expect, Goto, Rule, Step, Wait, titled
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk import places
from flowwalk.walk.boundary import Halt, call, halt_failure
from flowwalk.walk.evidence import failure_context, screenshot, with_failure_evidence
from flowwalk.walk.observations import PAGE_CHECKS, grade_assertions, verify
from flowwalk.walk.snapshots import scan_new_page
from flowwalk.walk.outcomes import StepResult, Unit, rule_finished, skipped_text
from flowwalk.heal.mend import contradicted
from flowwalk.walk.recovery import RecoveryLog
from flowwalk.walk.step import run_step, step_finished, step_kind
from flowwalk.walk.waits import sleep_ms

__all__ = ["Numbered", "scope_of", "split_guards", "walk_rule"]

#: a step with its 1-based index in the rule
Numbered = tuple[int, Step]


def split_guards(rule: Rule) -> tuple[list[Numbered], list[Numbered]]:
    """(guards, body) of `rule`: the expects that open it, and the rest (a flow has no guards).

    A page check (aria_snapshot, screenshot, accessible) is never a guard: it ends the guard section,
    so a missing or changed baseline fails its rule rather than skipping it."""
    steps = list(enumerate(rule.steps, start=1))
    if rule.guards_enabled:
        split = next((i for i, (_, s) in enumerate(steps) if not isinstance(s, Expect) or s.kind in PAGE_CHECKS),
                     len(steps))
    else:
        split = 0
    return steps[:split], steps[split:]


def scope_of(rules: Sequence[Rule], rule: Rule) -> str | None:
    """The selector scope of `rule`: what its nearest scoped ancestors compose to.

    A rule's `child_scope` applies to its descendants, not to itself. Through the DAG the
    first parent (declaration order) that yields a scope wins, and an ancestor's scope and a
    nearer one compose as `outer >> inner`.
    """
    by_name = {r.name: r for r in rules}
    memo: dict[str, str | None] = {}

    def for_children(name: str) -> str | None:
        if name in memo:
            return memo[name]
        if name not in by_name:
            return None
        memo[name] = None  # the loaders refuse cycles; this only keeps a bad DAG from recursing
        parent_rule = by_name[name]
        outer = inherited(parent_rule)
        inner = parent_rule.child_scope
        memo[name] = f"{outer} >> {inner}" if outer and inner else (inner or outer)
        return memo[name]

    def inherited(r: Rule) -> str | None:
        for p in r.parents:
            scope = for_children(p)
            if scope:
                return scope
        return None

    return inherited(rule)


def walk_rule(attempt: Attempt, rule: Rule) -> ev.RuleFinished:
    """Walk `rule` (see the module doc) and return its RuleFinished (not yet emitted)."""
    t0 = time.monotonic()
    settings = attempt.settings
    state = RuleState(rule=rule, scope=scope_of(attempt.scenario.rules, rule),
                      budget=attempt.budget.for_rule(rule.timeout_ms, t0),
                      observe_ms=rule.timeout_ms or settings.rule_timeout_ms,
                      guard_ms=rule.guard_timeout_ms if rule.guard_timeout_ms is not None else settings.guard_timeout_ms,
                      dismiss=attempt.dismiss_list(rule))
    guards, body = split_guards(rule)

    def finished(status: ev.Status, failure: ev.Failure | None, skipped_steps: tuple[str, ...], *,
                 reason: ev.SkipReason = "",
                 findings: tuple[ev.Finding, ...] = ()) -> ev.RuleFinished:
        places.leave_all(attempt, state)
        return rule_finished(attempt.scenario, rule, attempt.number, status, (time.monotonic() - t0) * 1000,
                             earlier_failures=attempt.earlier_failures, reason=reason, failure=failure,
                             skipped_steps=skipped_steps, findings=findings, guard_attempts=state.guard_rounds,
                             screenshots=tuple(state.screenshots))

    if rule.screenshot_on_enter and settings.screenshots != "off":
        shot = screenshot(attempt, rule, 0, "enter")
        if shot:
            state.add_screenshot(shot)
    try:
        if guards and not _guards_with_retry(attempt, state, guards, body):
            assert state.guard_failure is not None
            rest = tuple(skipped_text(i, s) for i, s in body)
            # abort fails the rule; so does a guard the run deadline cut (it was in flight)
            if rule.guard_policy == "abort" or state.guard_failure.runtime_code == "RUN_TIMEOUT":
                aborted = replace(state.guard_failure,
                                  context=failure_context(attempt, state.scope, state.budget, state.clicked))
                aborted = with_failure_evidence(attempt, state, aborted, aborted.step_index or 0)
                return finished("failed", aborted, rest)
            return finished("skipped", state.guard_failure, rest, reason="guard_failed")
        failure, skipped = _run_body(attempt, state, body)
        if failure is None and rule.verify:
            failure = _rule_verifiers(attempt, state, len(rule.steps) + 1)
            if failure is not None:
                failure = with_failure_evidence(attempt, state, failure, len(rule.steps) + 1)
        if not rule.guards_enabled and attempt.scenario.assertions:
            failure = grade_assertions(attempt, state, failure)
    except Halt:
        state.failure = halt_failure(attempt, state.current_kind, state.current_index, state.current_step,
                                     "the browser crashed or disconnected mid-rule")
        failure = state.failure
        skipped = tuple(skipped_text(i, s) for i, s in enumerate(rule.steps, 1) if i > (state.current_index or 0))
        attempt.control.stop("browser_crashed")
    return finished("failed" if failure is not None else "passed", failure, skipped, findings=tuple(state.findings))


# --- guards and retry-redo ----------------------------------------------------------------------


def _guards_with_retry(attempt: Attempt, state: RuleState, guards: list[Numbered], body: list[Numbered]) -> bool:
    rule = state.rule
    held = _check_guards(attempt, state, guards, round_=1)
    log = RecoveryLog()
    round_ = 0
    while not held and round_ < rule.retry.max:
        if state.budget.spent():
            break
        round_ += 1
        replayed = _replay_actions(attempt, state, body, round_)
        sleep_ms(attempt, state.budget.cap_ms(rule.retry.delay_ms))
        held = _check_guards(attempt, state, guards, round_=round_ + 1)
        log.record("retry_redo", "recovered" if held else "failed",
                   f"round {round_}: replayed {replayed or 'no actions'}; waited {rule.retry.delay_ms} ms; "
                   + ("guards held" if held else "guards still failing"))
    if state.guard_failure is not None and len(log):
        state.guard_failure = replace(state.guard_failure, recovery=log.attempts)
    if held and round_:
        # not a fault of the site, but worth knowing: this rule only held after replays
        state.add_finding(ev.Finding(severity="info", source="retry_redo",
                                         message=f"guards held after {round_} retry-redo round(s): "
                                                 + "; ".join(a.detail for a in log.attempts)))
    return held


def _check_guards(attempt: Attempt, state: RuleState, guards: list[Numbered], *, round_: int) -> bool:
    state.guard_rounds += 1
    state.guard_failure = None
    for index, step in guards:
        result = run_step(attempt, state, index, step, role="guard", detail={"round": round_})
        if result.status == "failed":
            state.guard_failure = result.failure
            return False
    return True


def _replay_actions(attempt: Attempt, state: RuleState, body: list[Numbered], round_: int) -> str:
    """Replay the body's actions for retry-redo; their failures are ignored (the guards judge)."""
    done: list[str] = []
    for index, step in body:
        if not isinstance(step, (Act, Goto, Wait)):
            continue
        if state.budget.spent():
            break
        run_step(attempt, state, index, step, role="body", detail={"replay": round_})
        done.append(f"step {index}")
    return ", ".join(done)


# --- body and rule verifiers --------------------------------------------------------------------


def _run_body(attempt: Attempt, state: RuleState, body: list[Numbered]) -> tuple[ev.Failure | None, tuple[str, ...]]:
    # no_accessibility_violations looks at every page the flow shows, not only the last one
    scans_pages = any(a.kind == "no_accessibility_violations" for a in attempt.scenario.assertions)
    for pos, (index, step) in enumerate(body):
        # the expects right after this one (no step between them changes the page): their first
        # reads are taken during this expect's first interval (checks.run_check)
        state.ahead.plan(body, pos, unbatched=PAGE_CHECKS)
        result = run_step(attempt, state, index, step, role="body")
        state.ahead.done()
        if result.status != "failed":
            if scans_pages:
                scan_new_page(attempt, state)
            continue
        assert result.failure is not None
        failure = result.failure
        infra = failure.failure_class == "infrastructure_error"
        if step.optional and not infra:
            continue  # the finding was recorded by run_step
        failure = with_failure_evidence(attempt, state, failure, index)
        state.failure = failure
        rest = body[pos + 1:]
        not_run = _teardown(attempt, state, [(i, s) for i, s in rest if s.teardown])
        return failure, tuple(skipped_text(i, s) for i, s in rest if not s.teardown) + not_run
    return None, ()


def _teardown(attempt: Attempt, state: RuleState, steps: list[Numbered]) -> tuple[str, ...]:
    """The after_each steps still to run when a step before them failed: they run all the same (as
    Playwright's afterEach hooks do). The test has failed already: a teardown step that fails too is
    a warning finding, and the teardown stops there; what it did not run is returned, listed."""
    for pos, (index, step) in enumerate(steps):
        state.ahead.plan(steps, pos, unbatched=PAGE_CHECKS)
        result = run_step(attempt, state, index, step, role="body")
        state.ahead.done()
        if result.status == "failed" and result.failure is not None:
            state.add_finding(ev.Finding(severity="warning", source="step", step_index=index, kind=step_kind(step),
                                         message=f"after the test failed, step {index} ({titled(step)}) failed too: "
                                                 f"{result.failure.message}"))
            return tuple(skipped_text(i, s) for i, s in steps[pos + 1:])
    return ()


def _rule_verifiers(attempt: Attempt, state: RuleState, index: int) -> ev.Failure | None:
    """A rule's own verifiers, after its body, reported as one extra step `verify ...`."""
    rule = state.rule
    names = ", ".join(r.name for r in rule.verify)
    pseudo = Step(loc=rule.verify[0].loc, text=f"verify {names}")
    t0 = time.monotonic()
    result = StepResult(status="passed")
    failed = call(attempt, lambda: verify(attempt, state, None, rule.verify, None, None, result), "INTERNAL")
    if failed is not None:
        result.status = "failed"
        code, message = contradicted(state.heals, failed.code, failed.message)
        result.failure = Unit("observation_or_assertion", pseudo.loc, pseudo.text, index).failure(
            failed, code=code, message=message,
            context=failure_context(attempt, state.scope, state.budget, state.clicked))
    attempt.emit(step_finished(attempt, state, index, pseudo, "body", result, t0, kind="verify"))
    return result.failure
