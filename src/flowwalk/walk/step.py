"""The step envelope: every step runs through `run_step`, which times it, catches its failure and
emits its one `StepFinished` (pytest's `call_and_report` in small). What a step does is its
handler's, found in HANDLERS by the step's type; the features around it (dialogs, popups, the
allowlist, where it runs, routes, screenshots) are the rows of walk/hooks.py's STEP_HOOKS, entered
here once.

Contract of `run_step`:
- before the handler: a rule deadline or a run deadline already passed fails the step
  (TIMEOUT / RUN_TIMEOUT), then the hooks' `before` (a navigation that left the allowlist since
  the last action fails the step, blamed on that action; the step's frames are entered);
- the handler raises StepFailed to fail the step; any other error is the page's (ACTION_REJECTED
  for an act or goto, else INTERNAL, TIMEOUT for Playwright's timeouts) unless the browser is
  gone (boundary.py): then the step is emitted failed and Halt is raised;
- a body step's own verifiers run after its handler (an act runs them itself, with what it wrote);
- the run deadline cutting a step makes it RUN_TIMEOUT and stops the attempt; a step that failed
  after the rule deadline says so; failure evidence (evidence.py) is gathered for body steps;
- then the hooks' `after`; last, a failed `optional: true` body step becomes a warning finding
  (status `warning`), unless the failure is infrastructure's.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence, cast

from flowwalk import events as ev
from flowwalk.model import Act, Emit, Expect, Extract, Goto, History, Step, Wait, titled
from flowwalk.walk import actions, observations
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import Halt, call
from flowwalk.walk.evidence import failure_context
from flowwalk.heal.mend import contradicted
from flowwalk.walk.hooks import STEP_HOOKS, Around, StepCall, StepHook
from flowwalk.walk.outcomes import StepFailed, StepResult, Unit

__all__ = ["HANDLERS", "Handler", "failure_step_kind", "run_step", "step_finished", "step_kind"]

#: what a step of one type does: (attempt, rule state, step, role, result) -> None; raises
#: StepFailed to fail the step, and records what it saw in `result`
Handler = Callable[[Attempt, RuleState, Any, ev.Role, StepResult], None]

HANDLERS: Mapping[type[Step], Handler] = {
    Goto: actions.goto_step,
    Act: actions.act,
    Wait: actions.wait,
    Expect: observations.expect,
    Extract: observations.extract,
    Emit: observations.emit_record,
    History: actions.history_step,
}


def step_kind(step: Step) -> ev.StepKind:
    """The step's kind as events name it (`goto`, `act`, `expect`, ...)."""
    return cast(ev.StepKind, type(step).__name__.lower())


def failure_step_kind(step: Step, role: ev.Role) -> ev.FailureStepKind:
    """Where in a rule a failure of `step` happened (Failure.step_kind)."""
    if role == "guard":
        return "guard"
    if isinstance(step, (Expect, Extract)):
        return "observation_or_assertion"
    return "action"


def run_step(attempt: Attempt, state: RuleState, index: int, step: Step, *, role: ev.Role,
             detail: ev.StepEvidence | None = None, handlers: Mapping[type[Step], Handler] = HANDLERS,
             hooks: Sequence[type[StepHook]] = STEP_HOOKS) -> StepResult:
    """Run one step through its handler, within its hooks, and emit its StepFinished. Raises Halt
    when the browser is gone."""
    t0 = time.monotonic()
    state.current_index, state.current_step = index, step
    state.current_kind = failure_step_kind(step, role)
    result = StepResult(status="passed", detail=ev.StepEvidence(**(detail or {})))
    around = state.current_hooks = Around(StepCall(attempt, state, index, step, role, result), hooks)

    def body() -> None:
        if state.budget.rule_over():
            raise StepFailed("TIMEOUT", f"rule timeout of {state.rule.timeout_ms} ms passed before this step",
                             expected=f"the rule done within {state.rule.timeout_ms} ms",
                             observed="deadline passed")
        if state.budget.run_over():
            raise StepFailed("RUN_TIMEOUT", "the run timeout passed before this step")
        around.before()
        handler = handlers.get(type(step))
        if handler is None:  # pragma: no cover - the model has no other step types
            raise StepFailed("INTERNAL", f"unknown step type {type(step).__name__}")
        handler(attempt, state, step, role, result)
        if step.verify and role == "body" and not isinstance(step, Act):
            # acts run theirs with what they wrote; any other step gets them here
            observations.verify(attempt, state, step, step.verify, None, None, result)
        if isinstance(step, Act):
            state.last_act = (index, step)

    try:
        failed = call(attempt, body, "ACTION_REJECTED" if isinstance(step, (Act, Goto)) else "INTERNAL")
    except Halt:
        attempt.emit(step_finished(attempt, state, index, step, role, StepResult(status="failed", detail=result.detail),
                                   t0))
        raise
    if failed is not None:
        result.status = "failed"
        result.failure = _failure(attempt, state, index, step, role, failed, result)
    around.after()
    if result.status == "failed" and step.optional and role == "body" and result.failure is not None \
            and result.failure.failure_class != "infrastructure_error":
        result.status = "warning"
        state.add_finding(ev.Finding(severity="warning", source="step",
                                         message=f"optional step {index} ({titled(step)}) failed: "
                                                 f"{result.failure.message}",
                                         step_index=index, kind=step_kind(step)))
    attempt.emit(step_finished(attempt, state, index, step, role, result, t0))
    return result


def step_finished(attempt: Attempt, state: RuleState, index: int, step: Step, role: ev.Role, result: StepResult,
                  started: float, *, kind: ev.StepKind | None = None) -> ev.StepFinished:
    """The StepFinished of `step` (of kind `kind`, else its type's) that started at `started`."""
    return ev.StepFinished(
        scenario_id=attempt.scenario.id, rule=state.rule.name, test_id=attempt.scenario.test_id(state.rule),
        attempt=attempt.number, index=index, text=step.text, kind=kind or step_kind(step), role=role,
        status=result.status, duration_ms=round((time.monotonic() - started) * 1000, 1), path=step.loc.path,
        line=step.loc.line, reads=result.reads, failure=result.failure, detail=result.detail, frames=step.frames)


def _failure(attempt: Attempt, state: RuleState, index: int, step: Step, role: ev.Role, failed: StepFailed,
             result: StepResult) -> ev.Failure:
    """The Failure of a step that raised `failed`: which clock cut it, and the page's evidence."""
    code, message, kind = failed.code, failed.message, failure_step_kind(step, role)
    if role == "body":
        # a check that fails after a heal in this rule: the heal is what was wrong, not the site
        code, message = contradicted(state.heals, code, message, found=failed.found)
    remaining = state.budget.run_left_ms()
    # a wait capped by the run deadline can give up a hair before it (timer granularity)
    cut_by_run = remaining is not None and remaining <= 50
    if code == "RUN_TIMEOUT" or (code in ("TIMEOUT", "ELEMENT_NOT_FOUND", "EXPECT_STATE_MISMATCH")
                                 and cut_by_run):
        # the run deadline, not the page, cut this step short
        attempt.control.mark_run_timeout()
        code, kind = "RUN_TIMEOUT", "run_timeout"
        message = f"the run timeout ({attempt.settings.run_timeout_s:g} s) passed: {message}"
    elif code in ("TIMEOUT", "ELEMENT_NOT_FOUND") and state.budget.rule_over():
        code = "TIMEOUT"
        message = f"rule timeout of {state.rule.timeout_ms} ms passed: {message}"
    # guards fail as a matter of course (that is how a rule gets skipped): evidence is only
    # gathered for them when the rule fails under guard_policy: abort
    context = {} if role == "guard" else failure_context(attempt, state.scope, state.budget, state.clicked)
    landing = context.get("last_click") or {}
    if landing.get("on_target") is False and landing.get("note"):
        # the likeliest reason for this failure: said where every reader sees it (console, summary, PR)
        message = f"{message}; {landing['note']}"
    if failed.caused_by is not None:
        index, step = failed.caused_by
        kind = failure_step_kind(step, role)
    return Unit.of(index, step, kind).failure(failed, code=code, message=message, context=context,
                                              recovery=result.recovery.attempts)
