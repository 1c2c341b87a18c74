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
- `contradicted` (a check that fails later in the same rule, having found its own element): a heal
  with no fingerprint to hold it to is what was wrong, so the failure is HEAL_CONTRADICTED
  (`spec_step_unresolvable`), never `assertion_failed`.
- `Mender` (any selector a step uses: an act's, a wait's, a check's, an await, an extract, an emit
  field; `mender` refuses absence claims): when it matches nothing, the run's heals (heal/cache.py)
  with one read, else on a quiet page the earlier fingerprint over one candidates read, as renames
  of its ids and classes (heal/rename.py) that the element found must hold; `wait_mended` waits
  for a selector that way, `remember_check` keeps a passing check's fingerprint.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Mapping, Sequence
from urllib.parse import urlsplit

from flowwalk import events as ev
from flowwalk.agent import runtime_code as model_code
from flowwalk.browser.errors import InvalidSelector, PageError, PageGone
from flowwalk.browser.locate import scoped, split_pipe
from flowwalk.browser.records import Element, Match, Reader
from flowwalk.heal.cache import Accepted, signature
from flowwalk.heal.decide import Ranked
from flowwalk.heal.find import HealOutcome, Lookup, consult, elements_of, judge
from flowwalk.heal.fingerprint import bound, fresh
from flowwalk.heal.meaning import PageElement
from flowwalk.heal.rename import holds, renames_from, rewrite, tokens
from flowwalk.model import Act, Step
from flowwalk.walk.attempt import Attempt, HealRecord, RuleState
from flowwalk.walk.evidence import screenshot
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import POLL_S, sleep_ms, wait_for

if TYPE_CHECKING:
    from flowwalk.agent import Agent, ModelCall

__all__ = ["Asking", "fingerprint_due", "has_fingerprint", "remember", "remember_check", "find", "read_candidates",
           "seek", "act_on", "contradicted", "CONTRADICTABLE", "GRACE_MS", "Mended", "Mender", "mender", "absence",
           "QUIET_MS", "wait_mended"]

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


def _exact(step: Step) -> bool:
    """A step other than an act keeps its own fingerprints: what a check saw (its text) is its own,
    never another step's that used the same selector."""
    return not isinstance(step, Act)


def fingerprint_due(attempt: Attempt, step: Step, selector: str) -> bool:
    """Must this step's fingerprint be taken afresh (else it is carried over)?"""
    return not attempt.run.fingerprints.carry(step.loc.path, step.loc.line, selector, exact=_exact(step))


def has_fingerprint(attempt: Attempt, step: Act, selector: str) -> bool:
    """Can this act heal without a target (from its selector's last fingerprint alone)?"""
    return attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector) is not None


def remember(attempt: Attempt, step: Step, selector: str, fingerprint: Any, result: StepResult, *,
             also: bool = False) -> None:
    """Record the fingerprint of the element `selector` matched (see the module docstring): the
    step's `detail.fingerprint`, or with `also` (a step's further selector: an await, an emit field)
    one of its `detail.fingerprints`."""
    store = attempt.run.fingerprints
    record = fresh({"fp": fingerprint}, selector, attempt.redact) if fingerprint is not None else None
    if record is None:
        record = store.carry(step.loc.path, step.loc.line, selector, exact=_exact(step))
    if record is None:
        return
    if also:
        result.detail.setdefault("fingerprints", []).append(record)
    else:
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


def contradicted(state: RuleState, code: str, message: str, *, found: bool = True) -> tuple[str, str]:
    """(code, message) of a failing check: HEAL_CONTRADICTED when an act of this rule was healed
    without a fingerprint to hold it to, and the check found its own element and saw it wrong. A
    check that did not find its element (`found` False) says nothing about an earlier heal; a heal
    whose fingerprint held (`Mender`) was judged by its own step and is never in `state.heals`."""
    if code not in CONTRADICTABLE or not state.heals or not found:
        return code, message
    heal = state.heals[-1]
    return "HEAL_CONTRADICTED", (f"step {heal.index} was healed to '{heal.new}' and the next check failed, so "
                                 f"the heal was wrong: {message}")


# --- every selector a step uses: a refactor mended -------------------------------------------------

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


@dataclass(frozen=True)
class Mended:
    """A selector that matched nothing, mended: as used now, as the spec should write it, and why."""

    selector: str
    written: str
    method: str
    score: float
    renames: Mapping[str, str]
    reason: str
    found: Match
    candidates: tuple[dict[str, Any], ...] = ()
    #: taken from the run's heals before the selector itself was read (`Mender.first`)
    first: bool = False


@dataclass
class Mender:
    """One selector of one step (`selector` as used, `written` as the spec has it) that may be mended
    when it matches nothing: from the run's heals (one read), else, on a quiet page, from the earlier
    run's fingerprint of its element over one read of the page's candidates, as renames of its ids
    and classes (heal/rename.py). A check (`check`) is mended only when its own fingerprint exists and
    holds (with `text`, its text too). `key`: the spec's key that holds the selector (events.Heal)."""

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
        return self.attempt.run.fingerprints.get(loc.path, loc.line, self.selector, exact=_exact(self.step))

    def __call__(self) -> Mended | None:
        """One try (see the class docstring); the mended selector is kept in `mended` too."""
        if self.mended is None:
            started = time.monotonic()
            self.mended = self._try()
            self.spent_ms += (time.monotonic() - started) * 1000
        return self.mended

    def first(self, gate: Sequence[str] = ()) -> Mended | None:
        """Before the selector's own first read: when the run's heals know this selector on this page
        (or, for a step with a fingerprint, renames of its tokens), the known selector, with one read
        (asking `gate` too, `Page.match`) that must hold the step's fingerprint. None, with no read,
        when nothing is known; None when the read does not confirm it (the step then reads its own
        selector as usual, and a known heal is tried again once that matched nothing)."""
        if self.mended is not None:
            return self.mended
        started = time.monotonic()
        fp = self.fingerprint
        again, renames, known = self._from_run(fp)
        if again is None or (known is None and fp is None):
            return None
        found = self._holds(again, fp, gate)
        self.spent_ms += (time.monotonic() - started) * 1000
        if found is None:
            return None
        self.mended = self._mended(again, renames, "run", 1.0, "a heal accepted earlier in this run", found,
                                   first=True)
        return self.mended

    def _from_run(self, fp: Mapping[str, Any] | None) -> tuple[str | None, dict[str, str], Accepted | None]:
        """What the run's heals make of this selector on this page: (the selector, its renames, the
        heal of exactly this selector when there is one); (None, ...) when nothing, or for a check
        with no fingerprint of its own."""
        if self.check and fp is None:
            return None, {}, None   # a check heals only from what it checked before, never from words alone
        heals, page = self.attempt.run.heals, signature(self.attempt.page.last_url())
        known = heals.get(page, self.selector)
        renames = dict(known.renames) if known else heals.renames(page)
        return (known.selector if known else rewrite(self.selector, renames)), renames, known

    def _try(self) -> Mended | None:
        fp = self.fingerprint
        if self.check and fp is None:
            return None   # a check heals only from what it checked before, never from words alone
        page = signature(self.attempt.page.last_url())
        heals = self.attempt.run.heals
        again, renames, known = self._from_run(fp)
        if again:
            found = self._holds(again, fp)
            if found is not None:
                return self._mended(again, renames, "run", 1.0, "a heal accepted earlier in this run", found)
            if known:
                heals.drop(page, self.selector)
        if fp is None or not self._quiet():
            return None
        lookup = Lookup(target=self.target, fingerprint=fp, action=self.action, scope=self.state.scope,
                        pinned=self.selector)
        judgement = judge(lookup, read_candidates(self.attempt.page, lookup, self.attempt.redact))
        winner = judgement.winner
        if winner is None or not winner.element.fingerprint:
            return None
        mine = set(tokens(self.selector))
        renames = {k: v for k, v in renames_from(fp, winner.element.fingerprint).items() if k in mine}
        again = rewrite(self.selector, renames)
        found = self._holds(again, fp) if again else None
        if again is None or found is None:
            return None
        heals.put(page, self.selector, Accepted(again, renames))
        return self._mended(again, renames, "renamed", round(min(winner.score, 1.0), 3), judgement.decision.reason,
                            found, judgement.kept)

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

    def _holds(self, selector: str, fp: Mapping[str, Any] | None, gate: Sequence[str] = ()) -> Match | None:
        """One read of `selector`: what it matches, when its first match is the fingerprinted element."""
        try:
            found = self.attempt.page.match(selector, self.state.scope, fingerprint=True, gate=gate)
        except PageGone:
            raise
        except (PageError, InvalidSelector):
            return None
        if found.count == 0:
            return None
        if fp is not None:
            now = bound(found.fingerprint)
            if now is None or not holds(fp, now, text=self.text):
                return None
        return found

    def _mended(self, selector: str, renames: Mapping[str, str], method: str, score: float, reason: str,
                found: Match, candidates: tuple[dict[str, Any], ...] = (), first: bool = False) -> Mended:
        written = rewrite(self.written, renames) if renames else None
        return Mended(selector, written or selector, method, score, dict(renames), reason, found, candidates, first)

    def record(self, index: int, result: StepResult) -> None:
        """The mended selector as this step's heal: its detail, a `healed` finding (once per step and
        selector), and the pinned selector's fingerprint carried on for the next run."""
        m = self.mended
        assert m is not None
        state, step = self.state, self.step
        how = "from a heal earlier in this run" if m.method == "run" else f"{m.method}, score {m.score:.2f}"
        broke = "is renamed in this run" if m.first else "matched nothing"
        result.recovery.record("re_resolve_target", "recovered",
                               f"'{self.selector}' {broke}; healed to {m.selector} ({how}: {m.reason})")
        healed = result.detail.setdefault("heals", [])
        healed.append({"key": self.key, "from": self.selector, "to": m.selector, "method": m.method,
                       "score": m.score, "renames": dict(m.renames), "heal_ms": round(self.spent_ms, 1),
                       "first": m.first})
        old = self.fingerprint
        if old is not None:
            age = old.get("age")
            carried = {**old, "pinned": self.selector, "age": (age if isinstance(age, int) else 0) + 1}
            if self.key == "selector":
                result.detail["fingerprint"] = carried
            else:
                result.detail.setdefault("fingerprints", []).append(carried)
        if any(f.heal is not None and f.step_index == index and f.heal.old_selector == self.written
               and f.heal.selector_key == self.key for f in state.findings):
            return   # a retry-redo replay mended this step the same way again: one finding is enough
        heal = ev.Heal(old_selector=self.written, new_selector=m.written, method=m.method, score=m.score,
                       target=self.target or "", step_index=index, path=step.loc.path, line=step.loc.line,
                       candidates=m.candidates, selector_key=self.key, kind=type(step).__name__.lower(),
                       renames=dict(m.renames))
        state.add_finding(ev.Finding(
            severity="warning", source="step", kind="healed", step_index=index, heal=heal,
            message=f"step {index} ({step.text}): '{self.written}' matched nothing; healed to '{m.written}' "
                    f"({how}); keep it with flowwalk heal"))


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


def remember_check(attempt: Attempt, step: Step, selector: str, due: bool, fingerprint: Mapping[str, Any] | None,
                   result: StepResult) -> None:
    """After a check of `selector` passed: its element's fingerprint, carried, or when `due`
    (`fingerprint_due`: every REFRESH_RUNS runs) the one its passing read took (`run_check`'s
    `fingerprint`), so that a later run can heal the check. A due fingerprint the read did not
    return (the element was gone by then) is not carried over either."""
    if due and fingerprint is None:
        return
    remember(attempt, step, selector, fingerprint if due else None, result)


def wait_mended(attempt: Attempt, state: RuleState, step: Step, written: str | None, result: StepResult, *,
                visible: bool, key: str = "selector") -> tuple[str, float, Match | None]:
    """Wait, within the rule's observation time, for a selector a step claims is there (a wait, an
    await, an extract; `written` as the spec has it): mended when it breaks (`Mender`, the spec's
    `key`), its element's fingerprint kept when it matches. (the selector used, the time it was
    given in ms, what it matched or None)."""
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
