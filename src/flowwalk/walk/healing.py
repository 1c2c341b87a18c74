"""The walker's healing seam: fingerprints on the passing path, heals when a pinned selector fails.

- `remember` (an act whose pinned selector matched): the element's fingerprint goes into the
  step's `detail.fingerprint` and the run's store: taken by the read that counted the matches
  (`Page.match(..., fingerprint=True)`), or carried from an earlier run (heal/fingerprint.py,
  REFRESH_RUNS).
- `heal_act` (an act whose pinned selector matched nothing): `healer.heal_selector` with the
  step's `target`, the last fingerprint and the run's model; a heal becomes a `healed` finding
  (events.Heal) and the new selector is acted on for this run only; no heal raises StepFailed
  naming the best candidates and scores (`agent_uncertain` / `quota_exceeded` when the model was
  needed and could not answer).
- `contradicted` (a check that fails later in the same rule): the heal is what was wrong, so the
  failure is HEAL_CONTRADICTED (`spec_step_unresolvable`), never `assertion_failed`.
"""

from __future__ import annotations

import time
from typing import Any

from flowwalk import events as ev
from flowwalk.agent import ModelCall, runtime_code as model_code
from flowwalk.browser.records import Element
from flowwalk.heal.fingerprint import fresh
from flowwalk.model import Act
from flowwalk.walk.attempt import Attempt, HealRecord, RuleState
from flowwalk.walk.evidence import screenshot
from flowwalk.walk.healer import HealOutcome, heal_selector
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import POLL_S, sleep_ms

__all__ = ["fingerprint_due", "has_fingerprint", "remember", "heal_act", "contradicted", "CONTRADICTABLE"]

#: failures of a later check that a heal earlier in the rule turns into HEAL_CONTRADICTED
CONTRADICTABLE = ("EXPECT_STATE_MISMATCH", "VERIFICATION_FAILED")


def fingerprint_due(attempt: Attempt, step: Act, selector: str) -> bool:
    """Must this act's fingerprint be taken afresh (else it is carried over)?"""
    return not attempt.run.fingerprints.carry(step.loc.path, step.loc.line, selector)


def has_fingerprint(attempt: Attempt, step: Act, selector: str) -> bool:
    """Can this act heal without a target (from its selector's last fingerprint alone)?"""
    return attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector) is not None


def remember(attempt: Attempt, step: Act, selector: str, fingerprint: Any, result: StepResult) -> None:
    """Record the fingerprint of the element `selector` matched (see the module docstring)."""
    store = attempt.run.fingerprints
    record = fresh({"fp": fingerprint}, selector, attempt.redact) if fingerprint is not None else None
    if record is None:
        record = store.carry(step.loc.path, step.loc.line, selector)
    if record is None:
        return
    result.detail["fingerprint"] = record
    if record.get("age") == 0:
        store.put(step.loc.path, step.loc.line, selector, record)


def heal_act(attempt: Attempt, state: RuleState, index: int, step: Act, selector: str,
             target: str | None, result: StepResult) -> Element:
    """The element to act on instead of the failed pinned `selector`, or StepFailed."""
    fingerprint = attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector)
    agent = attempt.run.agent

    def record(call: ModelCall) -> None:
        attempt.emit(ev.ModelCalled(
            scenario_id=attempt.scenario.id, rule=state.rule.name, test_id=attempt.scenario.test_id(state.rule),
            attempt=attempt.number, step_index=index, purpose=call.purpose, provider=call.provider,
            model=call.model, request=call.attempt, call=call.call, outcome=call.outcome, decision=call.decision,
            prompt_sha256=call.prompt_sha256, latency_ms=call.latency_ms, prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens, status=call.status, t=attempt.run.elapsed_s()))

    started = time.monotonic()
    # a page still rendering gets the grace the target had: deterministic tries until then, the
    # model (if any) only on the last one
    end = started + state.budget.cap_ms(1000) / 1000
    while True:
        last = time.monotonic() >= end
        left_s = state.budget.cap_ms(attempt.settings.action_timeout_ms) / 1000
        outcome = heal_selector(attempt.page, pinned=selector, target=target, fingerprint=fingerprint,
                                scope=state.scope, action=step.action, agent=agent if last else None,
                                step=f"{attempt.scenario.test_id(state.rule)}:{index}:{attempt.number}",
                                timeout_s=max(left_s, 0.1), redact=attempt.redact, record=record)
        if outcome.selector or last:
            break
        sleep_ms(attempt, POLL_S * 2500)
    took_ms = round((time.monotonic() - started) * 1000, 1)
    result.detail["candidates"] = [dict(c) for c in outcome.candidates]
    result.detail["heal_ms"] = took_ms
    what = f"pinned selector '{selector}' matched nothing"
    if outcome.selector:
        return _healed(attempt, state, index, step, selector, target, outcome, what, result)
    result.recovery.record("re_resolve_target", "failed", f"{what}; {outcome.reason}")
    if outcome.question is not None:
        # what a model would have been asked: an agent can answer it over MCP (heal/decide.py)
        result.detail["heal_question"] = outcome.question
    message = f"{what} and nothing else is good enough to heal to: {outcome.reason}"
    if outcome.missed:
        message += f" (best: {outcome.missed})"
    expected = f"one element for '{target}'" if target else f"the element '{selector}' matched before"
    if outcome.model_error is not None:
        raise StepFailed(model_code(outcome.model_error), message, expected=expected,
                         observed=str(outcome.model_error), candidates=outcome.candidates)
    code = "AMBIGUOUS_TARGET" if outcome.ambiguous else "ELEMENT_NOT_FOUND"
    raise StepFailed(code, message, expected=expected,
                     observed=f"{len(outcome.candidates)} candidate(s), none good enough" if outcome.candidates
                     else "no candidate", candidates=outcome.candidates)


def _healed(attempt: Attempt, state: RuleState, index: int, step: Act, selector: str, target: str | None,
            outcome: HealOutcome, what: str, result: StepResult) -> Element:
    assert outcome.selector is not None
    new = outcome.selector
    result.recovery.record("re_resolve_target", "recovered",
                           f"{what}; healed to {new} ({outcome.method}, score {outcome.score:.2f}: {outcome.reason})")
    result.detail["selector"] = new
    result.detail["healed"] = {"from": selector, "to": new, "method": outcome.method, "score": outcome.score}
    if any(h.index == index and h.new == new for h in state.heals):
        # a retry-redo replay healed this act the same way again: one finding is enough
        return Element(new)
    shot = None
    if attempt.settings.screenshots != "off":
        shot = screenshot(attempt, state.rule, index, "heal")
        if shot:
            state.add_screenshot(shot)
    heal = ev.Heal(old_selector=step.selector or selector, new_selector=new, method=outcome.method,
                   score=outcome.score, target=step.target or "", step_index=index, path=step.loc.path,
                   line=step.loc.line, screenshot=shot, candidates=outcome.candidates)
    state.add_finding(ev.Finding(
        severity="warning", source="step", kind="healed", step_index=index, heal=heal,
        message=f"step {index} ({step.text}): '{selector}' matched nothing; healed to '{new}' "
                f"({outcome.method}, score {outcome.score:.2f}); keep it with flowwalk heal"))
    state.heals.append(HealRecord(index, selector, new, outcome.method))
    old = attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector)
    if old is not None:
        # the pinned selector is still the spec's: its last fingerprint is what the next run heals
        # from, so it is carried (the healed element's would teach it this run's guess)
        age = old.get("age")
        result.detail["fingerprint"] = {**old, "pinned": selector,
                                        "age": (age if isinstance(age, int) else 0) + 1}
    return Element(new)


def contradicted(state: RuleState, code: str, message: str) -> tuple[str, str]:
    """(code, message) of a failing check: HEAL_CONTRADICTED when an act of this rule was healed."""
    if code not in CONTRADICTABLE or not state.heals:
        return code, message
    heal = state.heals[-1]
    return "HEAL_CONTRADICTED", (f"step {heal.index} was healed to '{heal.new}' and the next check failed, so "
                                 f"the heal was wrong: {message}")
