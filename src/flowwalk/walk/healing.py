"""When the walker heals, and the one place a heal is written; how is heal/'s (find.py, mend.py).

- `seek`: heal/find.py `find` tried until the grace a page still rendering gets (GRACE_MS, within
  the rule's and the run's time), the run's model asked on the last try only.
- `act_on` (an act whose pinned selector matched nothing, or that pins none): `seek`, then the
  element to act on, or StepFailed naming the best candidates and scores (heal/find.py `miss_of`).
  A step with no pinned selector has nothing to heal: its pick is the step's selector only.
- `Mender` (any selector a step uses, but never a check's claim of absence, `mender`): when it
  matches nothing, the run's heals (heal/mend.py `known`), else on a quiet page (QUIET_MS) the
  earlier fingerprint (`renamed`); `wait_mended` waits for a selector that way.
- `record`: every heal, an act's or a mended selector's, as one `healed` finding whose `heal` is
  the heal's one record (heal/mend.py `Healed.record`), with a screenshot for a pick (a target's
  or a model's), the pinned selector's last fingerprint carried on, and a pick kept in
  `state.heals` for heal/mend.py `contradicted`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from flowwalk import events as ev
from flowwalk.browser.errors import PageError, PageGone
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.records import Element, Match
from flowwalk.heal.find import Asking, HealOutcome, Lookup, find, miss_of
from flowwalk.heal.mend import PICKS, Healed, HealRecord, Mended, healed_act, known, renamed
from flowwalk.model import Act, Step
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.evidence import screenshot
from flowwalk.walk.fingerprints import carry_broken, exact, fingerprint_due, remember
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import POLL_S, sleep_ms, wait_for

if TYPE_CHECKING:
    from flowwalk.agent import ModelCall

__all__ = ["seek", "act_on", "record", "GRACE_MS", "Mender", "mender", "absence", "QUIET_MS", "wait_mended"]

#: how long a page still rendering is given to show what is sought
GRACE_MS = 1000


def seek(attempt: Attempt, state: RuleState, lookup: Lookup, index: int, *, model: bool = True) -> HealOutcome:
    """`find` until it found the element or GRACE_MS (within the rule's and the run's time) passed; the
    run's model, if any and `model`, asked on the last try only (`index`: the step's, for its records)."""
    agent = attempt.run.agent if model else None

    def called(call: "ModelCall") -> None:
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
                            max(left_s, 0.1), called)
        outcome = find(attempt.page, lookup, asking=asking, redact=attempt.redact)
        if outcome.selector or last:
            return outcome
        sleep_ms(attempt, POLL_S * 2500)


def act_on(attempt: Attempt, state: RuleState, index: int, step: Act, selector: str | None,
           target: str | None, result: StepResult) -> Element:
    """The element to act on instead of the pinned `selector` that matched nothing (None: the step
    pins none), or StepFailed (see the module docstring). Only a pinned selector asks the model."""
    fp = attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector) if selector else None
    lookup = Lookup(target, fp, step.action, state.scope, selector)
    started = time.monotonic()
    # a model's pick for a step that pins no selector would leave no heal to review: none is asked
    outcome = seek(attempt, state, lookup, index, model=selector is not None)
    result.detail["candidates"] = [dict(c) for c in outcome.candidates]
    result.detail["heal_ms"] = round((time.monotonic() - started) * 1000, 1)
    if outcome.selector:
        # the selector is the scope's, as a pinned one is: acted on (and recorded) within it
        used = scoped(outcome.selector, state.scope)
        result.detail["selector"] = used
        if selector:
            record(attempt, state, index, step, selector, step.selector or selector, healed_act(outcome, used), result,
                   target=step.target)
        else:
            result.recovery.record("re_resolve_target", "recovered",
                                   f"no pinned selector; '{target}' resolved to {outcome.selector} ({outcome.reason})")
        if len(split_pipe(used)) == 1:
            return Element(used)
        return attempt.page.match(outcome.selector, state.scope).element   # a scope with alternatives
    miss = miss_of(outcome, selector, target)
    result.recovery.record("re_resolve_target", "failed", miss.recovery)
    if outcome.question is not None and selector:
        # what a model would have been asked: an agent can answer it over MCP (heal/decide.py),
        # and its pick becomes a heal of the pinned selector
        result.detail["heal_question"] = outcome.question
    raise StepFailed(miss.code, miss.message, expected=miss.expected, observed=miss.observed,
                     candidates=outcome.candidates)


def record(attempt: Attempt, state: RuleState, index: int, step: Step, selector: str, written: str, healed: Healed,
           result: StepResult, *, key: str = "selector", target: str | None = None) -> None:
    """Every heal, written once (see the module docstring): `selector` as used, `written` as the spec
    has it at `key`. A retry-redo replay that healed the step the same way adds no second finding."""
    broke = f"pinned selector '{selector}' " + ("is renamed in this run" if healed.first else "matched nothing")
    result.recovery.record("re_resolve_target", "recovered",
                           f"{broke}; healed to {healed.selector} ({healed.how}: {healed.reason})")
    carry_broken(attempt, step, selector, result, also=key != "selector")
    if any(f.heal is not None and f.step_index == index and (f.heal.old_selector, f.heal.selector_key,
           f.heal.new_selector) == (written, key, healed.written) for f in state.findings):
        return
    shot = None
    if healed.method in PICKS and attempt.settings.screenshots != "off":
        shot = screenshot(attempt, state.rule, index, "heal")
        if shot:
            state.add_screenshot(shot)
    state.add_finding(ev.Finding(
        severity="warning", source="step", kind="healed", step_index=index,
        heal=healed.record(written, step, index, key=key, target=target or "", screenshot=shot),
        message=f"step {index} ({step.text}): '{written}' matched nothing; healed to '{healed.written}' "
                f"({healed.how}); keep it with flowwalk heal"))
    if healed.method in PICKS:
        state.heals.append(HealRecord(index, selector, healed.written, healed.method))


#: a page that has not changed for this long is quiet: a selector that matches nothing on it now is
#: not still coming, so the page's candidates are read at once (RFC 010's record of stillness)
QUIET_MS = 100
#: checks whose claim holds on a page without their element: never healed (a heal could only turn
#: a true "not there" into a claim about something else)
ABSENT_KINDS = ("hidden", "selector_absent")
#: checks of an element's text: its fingerprint must hold the same text
TEXT_KINDS = ("text_contains", "has_text", "text_matches", "texts")


def absence(kind: str, op: str | None = None, count: int | None = None) -> bool:
    """Does a check of `kind` claim absence: would it pass on a page without its element
    (`hidden`, `selector_absent`, any `*_not_*`, a `count` that may be 0)?"""
    if kind in ABSENT_KINDS or "_not_" in kind:
        return True
    return kind == "count" and (op == "lte" or not count)


@dataclass
class Mender:
    """One selector of one step (`selector` as used, `written` as the spec has it at `key`) that may be
    mended when it matches nothing (see the module docstring). A check (`check`) is mended only from
    its own fingerprint, which must hold (with `text`, its text too)."""

    attempt: Attempt
    state: RuleState
    step: Step
    selector: str
    written: str
    check: bool = True
    text: bool = False
    action: str | None = None
    target: str | None = None
    key: str = "selector"
    mended: Mended | None = None
    #: the page's last change (ms, monotonic) when its candidates were last read for this selector
    _read_at_change: float | None = None
    #: time spent trying to mend (the reads of the run's heals and of the candidates), ms
    spent_ms: float = 0.0

    @property
    def fingerprint(self) -> dict[str, Any] | None:
        loc = self.step.loc
        return self.attempt.run.fingerprints.get(loc.path, loc.line, self.selector, exact=exact(self.step))

    def __call__(self) -> Mended | None:
        return self._try(first=False)   # the run's heals, else on a quiet page the fingerprint

    def first(self, gate: Sequence[str] = ()) -> Mended | None:
        """Before the selector's own first read: what the run's heals know of it on this page, with
        one read (asking `gate` too) that must hold the step's fingerprint (heal/mend.py `known`)."""
        return self._try(first=True, gate=gate)

    def _try(self, *, first: bool, gate: Sequence[str] = ()) -> Mended | None:
        fp, page, heals, scope = self.fingerprint, self.attempt.page, self.attempt.run.heals, self.state.scope
        if self.mended is None and not (self.check and fp is None):   # a check heals only from what it saw
            started = time.monotonic()
            self.mended = known(page, heals, self.selector, self.written, fp, scope=scope, text=self.text, gate=gate,
                                first=first)
            if self.mended is None and not first and fp is not None and self._quiet():
                lookup = Lookup(self.target, fp, self.action, scope, self.selector)
                self.mended = renamed(page, heals, lookup, self.written, fp, text=self.text, redact=self.attempt.redact)
            self.spent_ms += (time.monotonic() - started) * 1000
        return self.mended

    def _quiet(self) -> bool:
        """Has the page been still for QUIET_MS, and changed since its candidates were last read?"""
        try:
            quiet = self.attempt.page.url_state().quiet
        except PageGone:
            raise
        except PageError:
            return False
        if quiet is None or quiet.ms < QUIET_MS:
            return False
        changed_at = time.monotonic() * 1000 - quiet.ms
        if self._read_at_change is not None and abs(changed_at - self._read_at_change) < QUIET_MS:
            return False   # nothing changed since the last read of the candidates: the same answer
        self._read_at_change = changed_at
        return True

    def record(self, index: int, result: StepResult) -> None:
        """The mended selector as this step's heal (`record`), with the time spent mending."""
        assert self.mended is not None
        result.detail["heal_ms"] = round(result.detail.get("heal_ms", 0.0) + self.spent_ms, 1)
        record(self.attempt, self.state, index, self.step, self.selector, self.written, self.mended, result,
               key=self.key, target=self.target)


def mender(attempt: Attempt, state: RuleState, step: Step, selector: str | None, written: str | None, *,
           kind: str | None = None, op: str | None = None, count: int | None = None, action: str | None = None,
           target: str | None = None, key: str = "selector") -> Mender | None:
    """A Mender for a selector a step uses, or None when it may not be mended: no selector, or a check
    whose claim is absence (`absence`). `kind`: the check's kind (None: a wait, an await, an extract,
    an emit field, which claim their element is there); `action`: an act's."""
    if not selector or not written or (kind is not None and absence(kind, op, count)):
        return None
    return Mender(attempt, state, step, selector, written, check=action is None, text=kind in TEXT_KINDS,
                  action=action, target=target, key=key)


def wait_mended(attempt: Attempt, state: RuleState, step: Step, written: str | None, result: StepResult, *,
                visible: bool, key: str = "selector") -> tuple[str, float, Match | None]:
    """Wait, within the rule's observation time, for a selector a step claims is there (a wait, an await,
    an extract; `written` as the spec has it at `key`): mended when it breaks, its element's fingerprint
    kept when it matches. (the selector used, the time it was given in ms, what it matched or None)"""
    selector = attempt.bindings.subst(written)
    assert selector is not None
    timeout = state.budget.cap_ms(state.observe_ms)
    mend = mender(attempt, state, step, selector, written, key=key)
    found = wait_for(attempt, selector, state.scope, timeout, visible=visible,
                     fingerprint=fingerprint_due(attempt, step, selector), mend=mend)
    if found is None:
        return selector, timeout, None
    if mend is not None and mend.mended is not None:
        assert state.current_index is not None
        mend.record(state.current_index, result)
        return mend.mended.selector, timeout, found
    remember(attempt, step, selector, found.fingerprint, result, also=key not in ("selector", "for"))
    return selector, timeout, found
