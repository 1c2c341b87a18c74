"""The walker's one seam to heal/: fingerprints on the passing path, and finding an element anew.

- `remember` (an act whose pinned selector matched): the element's fingerprint goes into the
  step's `detail.fingerprint` and the run's store: taken by the read that counted the matches
  (`Page.match(..., fingerprint=True)`), or carried from an earlier run (heal/fingerprint.py,
  REFRESH_RUNS).
- `find` (any step, any reader): one try at what a `heal.find.Lookup` seeks. It reads the page's
  candidates (the main frame within the scope, or it and up to MAX_FRAMES same-origin child
  frames), lets heal/ judge them, confirms the winner's selector (`Page.owns`), and asks
  the model only when the rule found no winner. It returns a `HealOutcome` and never acts.
- `seek`: `find` tried until the grace a page still rendering gets (1 s, within the rule's and the
  run's time), the model asked on the last try only.
- `act_on` (an act whose pinned selector matched nothing, or that pins none): `seek`, then the
  element to act on, or StepFailed naming the best candidates and scores (`agent_uncertain` /
  `quota_exceeded` when the model was needed and could not answer). A pinned selector's heal
  becomes a `healed` finding (events.Heal) and is acted on for this run only; a step with no
  pinned selector has nothing to heal, so its pick is recorded as the step's selector only.
- `contradicted` (a check that fails later in the same rule): the heal is what was wrong, so the
  failure is HEAL_CONTRADICTED (`spec_step_unresolvable`), never `assertion_failed`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable
from urllib.parse import urlsplit

from flowwalk import events as ev
from flowwalk.agent import runtime_code as model_code
from flowwalk.browser.errors import InvalidSelector, PageError, PageGone
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.records import Element, Reader
from flowwalk.heal.decide import Ranked
from flowwalk.heal.find import HealOutcome, Lookup, consult, elements_of, judge
from flowwalk.heal.fingerprint import fresh
from flowwalk.heal.meaning import PageElement
from flowwalk.model import Act
from flowwalk.walk.attempt import Attempt, HealRecord, RuleState
from flowwalk.walk.evidence import screenshot
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import POLL_S, sleep_ms

if TYPE_CHECKING:
    from flowwalk.agent import Agent, ModelCall

__all__ = ["Asking", "fingerprint_due", "has_fingerprint", "remember", "find", "read_candidates", "seek",
           "act_on", "contradicted", "CONTRADICTABLE", "GRACE_MS"]

#: failures of a later check that a heal earlier in the rule turns into HEAL_CONTRADICTED
CONTRADICTABLE = ("EXPECT_STATE_MISMATCH", "VERIFICATION_FAILED")
#: how long a page still rendering is given to show what is sought
GRACE_MS = 1000
CONTEXT_CHARS = 8 * 1024
#: full records per frame (the best by the cheap first score), elements looked at per frame,
#: same-origin child frames read
LIMIT, SCANNED, MAX_FRAMES = 50, 3000, 4


@dataclass(frozen=True)
class Asking:
    """The model `find` may ask: the agent, the question's step key, its time, where calls are recorded."""

    agent: "Agent"
    step: Hashable | None = None
    timeout_s: float | None = None
    record: Callable[["ModelCall"], None] | None = None


# --- the passing path: fingerprints ----------------------------------------------------------------


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


# --- finding an element anew -------------------------------------------------------------------------


def find(reader: Reader, lookup: Lookup, *, asking: Asking | None = None,
         redact: Callable[[str], str] = lambda s: s) -> HealOutcome:
    """One try at what `lookup` seeks on the page `reader` reads (see the module docstring).
    Raises `PageGone` only for a closed page or browser (the caller's boundary judges); never for
    page content."""
    judgement = judge(lookup, read_candidates(reader, lookup, redact))
    if judgement.winner is not None:
        selector = _confirmed(reader, judgement.winner, lookup.scope)
        if selector:
            return judgement.healed(selector)
        judgement = judgement.unconfirmed()
    question = judgement.question
    if asking is None or not judgement.decision.ask or not question.listed:
        return judgement.unanswered(asked=asking is not None and judgement.decision.ask)
    context = ""
    try:
        context = redact(reader.body_text(CONTEXT_CHARS))
    except PageGone:
        raise
    except PageError:
        pass   # a page mid-navigation: the model gets the candidates without the page's text
    consulted = consult(asking.agent, question, context, step=asking.step, timeout_s=asking.timeout_s,
                        record=asking.record)
    picked = consulted.picked
    return judgement.answered(consulted, _confirmed(reader, picked, lookup.scope) if picked is not None else None)


def read_candidates(reader: Reader, lookup: Lookup,
                    redact: Callable[[str], str] = lambda s: s) -> list[PageElement] | None:
    """The candidates of the main frame (within the scope) and, without a scope, of each same-origin
    child frame: one page read per frame. None when the scope matches nothing."""
    places: list[tuple[int, Reader, str]] = [(0, reader, "")]
    if not lookup.scope:
        home = _origin(reader.frame_name())
        for number, frame in enumerate(_child_frames(reader), start=1):
            name = frame.frame_name()
            url = name.url if name else ""
            if home and (_origin(name) == home or url.startswith(("about:srcdoc", "about:blank"))):
                places.append((number, frame, url))
    elements: list[PageElement] = []
    for number, where, url in places:
        try:
            read = where.candidates(lookup.words, tag=lookup.tag, fingerprints=bool(lookup.fingerprint), limit=LIMIT,
                                    scanned=SCANNED, scope=lookup.scope if number == 0 else None,
                                    position=lookup.position)
        except PageGone:
            if number == 0:
                raise
            continue   # a child frame that went away
        except (PageError, InvalidSelector):
            continue   # a page mid-navigation: no candidates from here this time
        if read is None:
            return None
        elements += elements_of(number, url, read.items, fingerprinted=bool(lookup.fingerprint), redact=redact)
    return elements


def _origin(name: Any) -> str:
    parts = urlsplit(str(getattr(name, "url", "") or ""))
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def _child_frames(reader: Reader) -> list[Reader]:
    try:
        return reader.child_frames(MAX_FRAMES)
    except PageError:
        return []


def _confirmed(reader: Reader, r: Ranked, scope: str | None) -> str | None:
    """The candidate's selector (heal/decide.py `written_selector`), when it still finds exactly
    this element of the main frame now."""
    frame, _, number = r.element.key.partition(":")
    if frame != "0" or not number.isdigit() or not r.selector:
        return None
    try:
        return r.selector if reader.owns(r.selector, scope, int(number)) else None
    except PageGone:
        raise
    except (PageError, InvalidSelector):   # a page mid-navigation, an invalid selector
        return None


def seek(attempt: Attempt, state: RuleState, lookup: Lookup, index: int, *, model: bool = True) -> HealOutcome:
    """`find` until GRACE_MS (cut by the rule's and the run's time) has passed or it found the
    element; the run's model, if any and `model`, is asked on the last try only. `index` is the
    step's, for the model's records."""
    agent = attempt.run.agent if model else None

    def record(call: "ModelCall") -> None:
        attempt.emit(ev.ModelCalled(
            scenario_id=attempt.scenario.id, rule=state.rule.name, test_id=attempt.scenario.test_id(state.rule),
            attempt=attempt.number, step_index=index, purpose=call.purpose, provider=call.provider,
            model=call.model, request=call.attempt, call=call.call, outcome=call.outcome, decision=call.decision,
            prompt_sha256=call.prompt_sha256, latency_ms=call.latency_ms, prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens, status=call.status, t=attempt.run.elapsed_s()))

    end = time.monotonic() + state.budget.cap_ms(GRACE_MS) / 1000
    while True:
        last = time.monotonic() >= end
        asking = None
        if agent is not None and last:
            left_s = state.budget.cap_ms(attempt.settings.action_timeout_ms) / 1000
            asking = Asking(agent, f"{attempt.scenario.test_id(state.rule)}:{index}:{attempt.number}",
                            max(left_s, 0.1), record)
        outcome = find(attempt.page, lookup, asking=asking, redact=attempt.redact)
        if outcome.selector or last:
            return outcome
        sleep_ms(attempt, POLL_S * 2500)


# --- acts ------------------------------------------------------------------------------------------


def act_on(attempt: Attempt, state: RuleState, index: int, step: Act, selector: str | None,
           target: str | None, result: StepResult) -> Element:
    """The element to act on instead of the pinned `selector` that matched nothing (None: the step
    pins none), or StepFailed (see the module docstring). Only a pinned selector asks the model."""
    fingerprint = attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector) if selector else None
    lookup = Lookup(target=target, fingerprint=fingerprint, action=step.action, scope=state.scope, pinned=selector)
    started = time.monotonic()
    # a model's pick for a step that pins no selector would leave no heal to review: none is asked
    outcome = seek(attempt, state, lookup, index, model=selector is not None)
    result.detail["candidates"] = [dict(c) for c in outcome.candidates]
    result.detail["heal_ms"] = round((time.monotonic() - started) * 1000, 1)
    if outcome.selector:
        # the selector is the scope's, as a pinned one is: acted on (and recorded) within it
        used = scoped(outcome.selector, state.scope)
        if selector:
            _healed(attempt, state, index, step, selector, used, outcome, result)
        else:
            result.recovery.record("re_resolve_target", "recovered",
                                   f"no pinned selector; '{target}' resolved to {outcome.selector} ({outcome.reason})")
            result.detail["selector"] = used
        if len(split_pipe(used)) == 1:
            return Element(used)
        return attempt.page.match(outcome.selector, state.scope).element   # a scope with alternatives
    if selector:
        what = f"pinned selector '{selector}' matched nothing"
        result.recovery.record("re_resolve_target", "failed", f"{what}; {outcome.reason}")
        message = f"{what} and nothing else is good enough to heal to: {outcome.reason}"
    else:
        result.recovery.record("re_resolve_target", "failed", f"no pinned selector; '{target}': {outcome.reason}")
        message = f"could not resolve the target '{target}': {outcome.reason}"
    if outcome.question is not None and selector:
        # what a model would have been asked: an agent can answer it over MCP (heal/decide.py),
        # and its pick becomes a heal of the pinned selector
        result.detail["heal_question"] = outcome.question
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


def _healed(attempt: Attempt, state: RuleState, index: int, step: Act, selector: str, used: str,
            outcome: HealOutcome, result: StepResult) -> None:
    """Record a heal of the pinned `selector` (`used`: the new one as acted on, within the scope):
    the step's detail, a `healed` finding (once per step and selector), and the pinned selector's
    fingerprint carried on."""
    assert outcome.selector is not None
    new = outcome.selector
    what = f"pinned selector '{selector}' matched nothing"
    result.recovery.record("re_resolve_target", "recovered",
                           f"{what}; healed to {new} ({outcome.method}, score {outcome.score:.2f}: {outcome.reason})")
    result.detail["selector"] = used
    result.detail["healed"] = {"from": selector, "to": new, "method": outcome.method, "score": outcome.score}
    if any(h.index == index and h.new == new for h in state.heals):
        return   # a retry-redo replay healed this step the same way again: one finding is enough
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


def contradicted(state: RuleState, code: str, message: str) -> tuple[str, str]:
    """(code, message) of a failing check: HEAL_CONTRADICTED when an act of this rule was healed."""
    if code not in CONTRADICTABLE or not state.heals:
        return code, message
    heal = state.heals[-1]
    return "HEAL_CONTRADICTED", (f"step {heal.index} was healed to '{heal.new}' and the next check failed, so "
                                 f"the heal was wrong: {message}")
