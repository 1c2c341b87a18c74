"""What an act needs beyond its element: drag's drop target, the v1.1 actions' browser calls, and
the dialog an act opens (armed before the action, awaited and checked after it); and, for every
step, the dialogs nobody asked for (a warning finding: they were dismissed) and the requests the
spec's routes answered (a `request_routed` event each).

Contract:
- an act with `dialog:` arms the session's answer before the action (browser/recording.py answers
  the first alert, confirm or prompt with it) and, after the action, waits up to the expect
  timeout (cut by the rule's and the run's time) for that dialog: none opened fails the step
  (EXPECT_STATE_MISMATCH), so does a message other than `dialog.message` (that dialog was
  dismissed, not accepted);
- `blur` moves the focus away from its element (or from the element inside it that has it); an
  element without the focus fails the step (ACTION_REJECTED) naming what has it, where a silent
  no-op would leave the page as it was and the checks after it would judge that page;
- after any step, the armed answer is spent, and each dialog that opened during the step without
  one is a warning finding naming its type and message, and the step's `dialogs` detail.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flowwalk import events as ev
from flowwalk.browser.records import Element
from flowwalk.model import Act, DialogAnswer, Step, titled
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import sleep_ms, wait_for

__all__ = ["DIALOG_POLL_MS", "INTERACT_ACTIONS", "arm_dialog", "await_dialog", "dialogs_seen", "drop_target",
           "perform_interaction", "report_routed", "settle_dialogs"]

#: the actions this module performs (element.perform does the others)
INTERACT_ACTIONS = ("type", "drag", "dispatch", "blur")
#: how often an act waiting for its dialog looks again
DIALOG_POLL_MS = 50


def drop_target(attempt: Attempt, state: RuleState, step: Act) -> Element:
    """Where a drag drops: the first match of `to`, waited for like the act's own selector."""
    assert step.to_selector is not None
    selector = attempt.bindings.subst(step.to_selector)
    assert selector is not None
    waited = state.budget.cap_ms(attempt.settings.action_timeout_ms)
    found = wait_for(attempt, selector, state.scope, waited, visible=False)
    if found is None:
        raise StepFailed("ELEMENT_NOT_FOUND", f"drag: no element matches the drop target '{selector}' within "
                         f"{int(waited)} ms", expected=f"an element matching '{selector}'", observed="nothing matched")
    return found.element


def perform_interaction(attempt: Attempt, step: Act, target: Element, value: str | None, dest: Element | None,
                        timeout_ms: int) -> None:
    """Do a `type`, `drag`, `dispatch` or `blur` act on `target` through the page API."""
    if step.action == "type":
        attempt.page.type_keys(target, value or "", step.delay_ms, timeout_ms)
    elif step.action == "drag":
        assert dest is not None
        attempt.page.drag(target, dest, timeout_ms)
    elif step.action == "blur":
        focused = attempt.page.blur(target, timeout_ms)
        if focused is not None:
            has = "no element has the focus" if focused == "nothing" else f"the focus is on {focused}"
            raise StepFailed("ACTION_REJECTED", f"blur: '{target.selector}' does not have the focus ({has}); "
                             f"hint: focus it first (act focus, click or fill it), or blur the element that has it",
                             expected=f"'{target.selector}' (or an element inside it) with the focus", observed=has)
    else:
        assert step.event is not None
        attempt.page.dispatch(target, step.event, step.detail, timeout_ms)


def dialogs_seen(attempt: Attempt) -> int:
    """How many dialogs the session has seen so far (0 with no session)."""
    return attempt.session.dialog_count if attempt.session is not None else 0


def arm_dialog(attempt: Attempt, step: Act) -> None:
    """Arm the session's answer to the dialog `step` opens (placeholders resolved)."""
    if step.dialog is None or attempt.session is None:
        return
    subst = attempt.bindings.subst
    attempt.session.dialog_plan = replace(step.dialog, message=subst(step.dialog.message),
                                          answer=subst(step.dialog.answer))


def await_dialog(attempt: Attempt, state: RuleState, step: Act, before: int, result: StepResult) -> None:
    """After the act: its dialog opened (waiting for it up to the expect timeout), with the message
    asked for. Records it in the step's `dialog` detail; StepFailed otherwise."""
    plan, session = step.dialog, attempt.session
    if plan is None or session is None:
        return
    wanted = _wanted(plan)
    budget = state.budget.cap_ms(attempt.settings.expect_timeout_ms)
    waited = 0.0
    while session.dialog_count <= before and waited < budget:
        sleep_ms(attempt, DIALOG_POLL_MS)
        waited += DIALOG_POLL_MS
    seen = _records(attempt, before)
    planned = next((d for d in seen if d.get("planned")), None)
    if planned is None:
        session.dialog_plan = None
        observed = ("no dialog" if not seen else
                    "; ".join(f"{_a(d['type'])} '{d['message']}' ({d['action']})" for d in seen))
        raise StepFailed("EXPECT_STATE_MISMATCH", f"{step.action} opened no dialog within {int(budget)} ms",
                         expected=wanted, observed=observed)
    result.detail["dialog"] = {k: planned[k] for k in ("type", "message", "action")}
    message = attempt.bindings.subst(plan.message)
    if message is not None and planned["message"] != message:
        raise StepFailed("EXPECT_STATE_MISMATCH",
                         f"the {planned['type']} said '{planned['message']}', not '{message}' (it was dismissed)",
                         expected=wanted, observed=f"{_a(planned['type'])} '{planned['message']}'")


def settle_dialogs(attempt: Attempt, state: RuleState, index: int, step: Step, before: int,
                   result: StepResult) -> None:
    """After any step: spend an armed answer, and report each dialog no act asked for."""
    session = attempt.session
    if session is None:
        return
    session.dialog_plan = None
    if session.dialog_count == before:
        return
    unasked = [d for d in _records(attempt, before) if not d.get("planned") and d["type"] != "beforeunload"]
    if not unasked:
        return
    result.detail["dialogs"] = [{k: d[k] for k in ("type", "message", "action")} for d in unasked]
    for d in unasked:
        state.add_finding(ev.Finding(
            severity="warning", source="step", kind="dialog", step_index=index,
            message=f"{_a(d['type'])} '{d['message']}' opened during step {index} ({titled(step)}) and was "
                    f"{d['action']}; to answer it, add dialog: to the act that opens it (docs/flow-spec.md)"))


def report_routed(attempt: Attempt, state: RuleState, index: int) -> None:
    """Emit a RequestRouted for each request the spec's routes answered since the last step."""
    router = attempt.session.router if attempt.session is not None else None
    if router is None:
        return
    for routed in router.take():
        route = routed.route
        attempt.emit(ev.RequestRouted(
            scenario_id=attempt.scenario.id, rule=state.rule.name, test_id=attempt.scenario.test_id(state.rule),
            attempt=attempt.number, step_index=index, method=routed.method, url=routed.url, answer=routed.answer,
            status=routed.status, route=route.url, path=route.loc.path, line=route.loc.line,
            delay_ms=route.delay_ms, source="har" if route.har else "route", t=routed.t))


def _records(attempt: Attempt, before: int) -> list[dict[str, Any]]:
    assert attempt.session is not None
    return list(attempt.session.dialogs[before:])


def _a(kind: str) -> str:
    """`an alert`, `a confirm`: a dialog's type as a sentence names it."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def _wanted(plan: DialogAnswer) -> str:
    what = f"a dialog '{plan.message}'" if plan.message is not None else "a dialog"
    how = "accepted" if plan.accept else "dismissed"
    return f"{what}, {how}" + (f" with the answer '{plan.answer}'" if plan.answer is not None else "")
