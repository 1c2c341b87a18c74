"""The steps that read the page: expect, extract, emit; step verifiers; a flow's assertions.

Contract:
- an expect is a stabilized check (walk/checks.py) within the guard timeout (a guard), else its
  own `timeout_ms`, else the rule's, else the run's `expect_timeout_ms` (`wait for` and extract
  wait the rule's observation time); the expects right after it get their first reads while it waits
  (`read_ahead`). A check that passed still fails when the last action's navigation left the
  allowlist meanwhile: the action is the failure, whatever the check saw;
- extract stores an element's text under a name for the steps after it; emit records page state
  as an `EmitRecorded` event and never fails (a field that cannot be read is null, with its error);
- verifiers (walk/verifiers.py) fail the step with VERIFICATION_FAILED when any does not pass;
- a flow's assertions grade it after its steps (`grade_assertions`).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from flowwalk import events as ev
from flowwalk.browser.element import ELEMENT_SOURCES
from flowwalk.browser.network import matching_beacons
from flowwalk.browser.records import Element
from flowwalk.model import Assertion, Emit, EmitField, Expect, Extract, Stabilize, Step, VerifierRef
from flowwalk.spec.variables import LITERAL_KINDS
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import halt_if_gone, halting, short
from flowwalk.walk.checks import read_ahead, run_check
from flowwalk.walk.evidence import failure_context, with_failure_evidence
from flowwalk.walk.outcomes import StepFailed, StepResult, Unit, only_in_frame
from flowwalk.walk import fingerprints, healing, snapshots
from flowwalk.walk.verifiers import VerifierContext, run_verifiers
from flowwalk.walk.waits import POLL_S, check_navigation, sleep_ms

#: expect kinds that look at the whole page (or an element's subtree) with their own waiting:
#: baselines and axe-core (walk/snapshots.py), never read ahead
PAGE_CHECKS = ("aria_snapshot", "screenshot", "accessible")

__all__ = ["BEACON_GRACE_MS", "PAGE_CHECKS", "EMIT_READ_MS", "EMIT_VALUE_MAX", "emit_record", "expect", "extract",
           "grade_assertions", "verify"]

#: beacon_fires is graded after the flow; a beacon sent by the last action may still be in
#: flight, so the grade waits this long for it (it passes as soon as it lands)
BEACON_GRACE_MS = 1000
#: emit fields read page state without waiting for it
EMIT_READ_MS = 1000
#: emit field values longer than this are cut (an html field can be large)
EMIT_VALUE_MAX = 4000


# --- expect -------------------------------------------------------------------------------------


def _substituted(attempt: Attempt, step: Expect) -> Expect:
    subst = attempt.bindings.subst
    return replace(
        step,
        # a regular expression is literal (flow-spec v1): never substituted
        value=step.value if step.kind in LITERAL_KINDS else subst(step.value),
        selector=subst(step.selector),
        vendor=subst(step.vendor),
        event=subst(step.event),
        attr=subst(step.attr),
        items=None if step.items is None else tuple(subst(i) or "" for i in step.items),
    )


def _stabilize(attempt: Attempt, step: Expect) -> Stabilize:
    """A check's verify-until-stable settings: its step's own, else its form's default."""
    return step.stabilize or attempt.settings.stabilize_for(attempt.scenario.kind)


def _read_ahead(attempt: Attempt, state: RuleState) -> None:
    """First reads of the expects that follow the current one (batched stabilization)."""
    assert attempt.session is not None
    for index, step in state.ahead.following:
        if step.kind in PAGE_CHECKS:
            return
        try:
            expect_ = _substituted(attempt, step)
        except StepFailed:
            return   # its own step reports the problem
        with halting(attempt):
            state.ahead.keep(index, read_ahead(attempt.session, expect_, scope=state.scope,
                                               stabilize=_stabilize(attempt, step),
                                               fingerprint=_fingerprint_due(attempt, step, expect_)))


def _fingerprint_due(attempt: Attempt, step: Expect, expected: Expect) -> bool:
    """Must a pass of this check take its element's fingerprint (`fingerprints.remember_check`)? Not for a
    claim of absence, which never heals."""
    return bool(expected.selector) and not healing.absence(step.kind, step.op, step.count) and \
        fingerprints.fingerprint_due(attempt, step, expected.selector or "")


def expect(attempt: Attempt, state: RuleState, step: Expect, role: ev.Role, result: StepResult) -> None:
    """One expect (a guard when `role` is "guard")."""
    assert attempt.session is not None
    expected = _substituted(attempt, step)
    if step.kind in PAGE_CHECKS:
        wanted = state.guard_ms if role == "guard" else (
            step.timeout_ms if step.timeout_ms is not None
            else state.rule.timeout_ms or attempt.settings.expect_timeout_ms)
        snapshots.page_check(attempt, state, expected, int(state.budget.cap_ms(wanted)), result)
        return
    early = state.ahead.take(state.current_index) if role == "body" else None
    hook = (lambda: _read_ahead(attempt, state)) if role == "body" and state.ahead.following else None
    if role == "guard":
        wanted = state.guard_ms
    else:
        # the step's own timeout, else the rule's (a rule file's timeout_ms, `set rule timeout`),
        # else expect_timeout_ms: a failing check gives up after 5 s, not the 30 s rule default
        wanted = (step.timeout_ms if step.timeout_ms is not None
                  else state.rule.timeout_ms or attempt.settings.expect_timeout_ms)
    timeout = state.budget.cap_ms(wanted)
    # a check whose selector breaks is mended from its own earlier fingerprint (never an absence claim)
    mend = healing.mender(attempt, state, step, expected.selector, step.selector, kind=step.kind, op=step.op,
                          count=step.count) if role == "body" else None
    known = mend.first() if mend is not None else None
    if known is not None:
        # the run already mended this selector here: checked as mended, the stale one never read
        expected, early = replace(expected, selector=known.selector), None
    due = mend is not None and _fingerprint_due(attempt, step, expected)
    check = run_check(attempt.session, expected, scope=state.scope, timeout_ms=int(timeout),
                      stabilize=_stabilize(attempt, step), early=early, while_waiting=hook, fingerprint=due,
                      mend=(lambda: m.selector if (m := mend()) is not None else None) if mend and not known else None)
    result.reads = check.reads
    if mend is not None and mend.mended is not None:
        assert state.current_index is not None
        mend.record(state.current_index, result)
    elif check.passed and expected.selector and mend is not None:
        fingerprints.remember_check(attempt, step, expected.selector, due, check.fingerprint, result)
    if check.passed:
        # how its stability was shown: RFC 010's consecutive reads, the page's own record of having
        # been still for the interval(s) before one matching read, or a match in the captured
        # beacons, a record that only grows (walk/checks.py)
        result.detail["stability"] = ({"by": "quiet", "quiet_ms": check.quiet_ms} if check.stability == "quiet"
                                      else {"by": check.stability})
    result.detail["duration_check_ms"] = round(check.duration_ms, 1)
    if check.passed and state.last_act is not None:
        # the reads delivered any late navigation of the last action: it left the allowlist
        # (and was stopped), so the action is the failure, whatever this check saw
        check_navigation(attempt, caused_by=state.last_act, pump=False)
    if not check.passed:
        # a page that was navigated away (and blocked) while the check waited did not
        # misbehave: the failure is the navigation, not the expectation
        check_navigation(attempt, caused_by=state.last_act)
        what = f"{'guard' if role == 'guard' else 'expect'} {step.kind} failed after {check.reads} read(s)"
        if check.frame is not None:
            # the page shows it, inside a frame: the spec cannot reach it, the site is not at fault
            raise StepFailed(check.runtime_code or "ELEMENT_NOT_FOUND",
                             f"{what}: expected {check.expected}; {only_in_frame(check.frame, 'expect')}",
                             expected=check.expected, observed=check.observed)
        raise StepFailed(check.runtime_code or "EXPECT_STATE_MISMATCH",
                         f"{what}: expected {check.expected}; observed {check.observed}",
                         expected=check.expected, observed=check.observed, diff=check.diff,
                         found=check.found)


# --- extract and emit ---------------------------------------------------------------------------


def extract(attempt: Attempt, state: RuleState, step: Extract, role: ev.Role, result: StepResult) -> None:
    """Store the (trimmed) text of the selector's first match as `step.into`."""
    selector, _, found = healing.wait_mended(attempt, state, step, step.selector, result, visible=False)
    if found is None:
        raise StepFailed("ELEMENT_NOT_FOUND", f"extract: no element matches '{selector}'",
                         expected=f"an element matching '{selector}'", observed="nothing matched")
    text = attempt.page.value(found.element, "text", timeout_ms=max(int(state.budget.cap_ms(EMIT_READ_MS)), 1))
    attempt.bindings.store(step.into, text)
    result.detail["into"] = step.into
    result.detail["value"] = text[:200]


def emit_record(attempt: Attempt, state: RuleState, step: Emit, role: ev.Role, result: StepResult) -> None:
    """Capture page state into an EmitRecorded event. Never fails: errors are recorded."""
    fields: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for f in step.fields:
        try:
            fields[f.name] = _emit_field(attempt, state, step, f, result)
        except StepFailed as failed:
            fields[f.name] = None
            errors[f.name] = failed.message
        except Exception as exc:  # noqa: BLE001 - an emit never fails the rule
            halt_if_gone(exc, attempt)
            fields[f.name] = None
            errors[f.name] = short(exc)
    attempt.emit(ev.EmitRecorded(scenario_id=attempt.scenario.id, rule=state.rule.name, name=step.name,
                                 url=attempt.page.last_url(), fields=fields, t=attempt.run.elapsed_s()))
    result.detail["fields"] = sorted(fields)
    if errors:
        result.detail["errors"] = errors


def _emit_field(attempt: Attempt, state: RuleState, step: Emit, f: EmitField, result: StepResult) -> Any:
    page, scope = attempt.page, state.scope
    if f.source in ("url", "title"):
        return page.value(None, f.source)
    selector = attempt.bindings.subst(f.selector) if f.selector else None
    if f.source == "js" and not selector:
        return _cap(page.value(None, "js", expr=f.expr))
    if not selector:
        raise StepFailed("ELEMENT_NOT_FOUND", f"field '{f.name}' ({f.source}) needs a selector")
    # what reads an element is mended when its selector breaks; a count or a state (0, false) is an
    # answer about absence, never healed
    reads = f.source not in ("count", "is_visible", "is_enabled", "is_checked")
    mend = healing.mender(attempt, state, step, selector, f.selector, key=f"fields.{f.name}") if reads else None
    known = mend.first() if mend is not None else None
    found = known.found if known is not None else \
        page.match(selector, scope, fingerprint=reads and fingerprints.fingerprint_due(attempt, step, selector))
    if f.source == "count":
        return found.count
    if known is None and found.count == 0 and mend is not None:
        if mend() is not None:
            assert mend.mended is not None
            found = mend.mended.found
    elif known is None and reads:
        fingerprints.remember(attempt, step, selector, found.fingerprint, result, also=True)
    if mend is not None and mend.mended is not None:
        assert state.current_index is not None
        mend.record(state.current_index, result)
    if found.count == 0:
        if f.source in ("is_visible", "is_enabled", "is_checked"):
            return False
        raise StepFailed("ELEMENT_NOT_FOUND", f"field '{f.name}': nothing matches '{selector}'")
    if f.source not in ELEMENT_SOURCES:
        raise StepFailed("ACTION_REJECTED", f"unknown emit source '{f.source}'")
    return _cap(page.value(found.element, f.source, attr=f.attr, expr=f.expr, timeout_ms=EMIT_READ_MS))


def _cap(value: Any) -> Any:
    if isinstance(value, str) and len(value) > EMIT_VALUE_MAX:
        return value[:EMIT_VALUE_MAX] + "…"
    return value


# --- verifiers ----------------------------------------------------------------------------------


def verify(attempt: Attempt, state: RuleState, step: Step | None, refs: Sequence[VerifierRef], value: str | None,
           element: Element | None, result: StepResult) -> None:
    """Run `refs` (with what an act wrote: `value`, on `element`); StepFailed unless every one passes."""
    assert attempt.session is not None
    context = VerifierContext(
        session=attempt.session, step=step, value=value, element=element, scope=state.scope,
        variables=attempt.bindings.plain_values(), allowed_hosts=attempt.allowed_host_names(),
        redact=attempt.redact, substitute=attempt.bindings.text,
        stabilize=attempt.settings.stabilize_for(attempt.scenario.kind),
        verifiers_dir=Path(attempt.settings.verifiers_dir), scenario_id=attempt.scenario.id, rule=state.rule.name)
    outcomes = run_verifiers(refs, context)
    result.detail["verifiers"] = [o.record() for o in outcomes]
    bad = [o for o in outcomes if o.outcome != "pass"]
    if bad:
        raise StepFailed("VERIFICATION_FAILED",
                         "verifier " + "; ".join(f"{o.name}: {o.outcome} ({o.detail})" for o in bad),
                         expected="every verifier passes",
                         observed=", ".join(f"{o.name}={o.outcome}" for o in outcomes))


# --- assertions ---------------------------------------------------------------------------------


def grade_assertions(attempt: Attempt, state: RuleState, failure: ev.Failure | None) -> ev.Failure | None:
    """Grade the flow's `assertions` after its steps, whether the steps passed or not.

    flow-spec v1: assertions never halt, they grade the finished flow by severity.
    - critical: a failed one fails a flow whose steps passed, with `assertion_failed` (step
      kind `assertion`, the assertion's own line); on a flow that already failed it is kept
      as a critical finding, so the first failure stays the reported one;
    - warning: a warning finding (a verified finding; the flow still passes);
    - info: an info finding (advisory).
    """
    for assertion in attempt.scenario.assertions:
        violations: tuple[ev.Violation, ...] = ()
        if assertion.kind == "no_accessibility_violations":
            with halting(attempt):
                ok, expected, observed, violations = snapshots.grade_accessibility(attempt, state, assertion)
        else:
            ok, expected, observed = _assertion_holds(attempt, assertion)
        if ok:
            continue
        message = f"assertion {assertion.text} failed: {observed}"
        if assertion.severity == "critical" and failure is None:
            unmet = StepFailed("EXPECT_STATE_MISMATCH", message, expected=expected, observed=observed,
                               violations=violations)
            failure = Unit("assertion", assertion.loc, assertion.text).failure(
                unmet, context=failure_context(attempt, None, state.budget, state.clicked))
            failure = with_failure_evidence(attempt, state, failure, 0)
            continue
        state.add_finding(ev.Finding(severity=assertion.severity, source="assertion", message=message,
                                     kind=assertion.kind, violations=violations))
    return failure


def _assertion_holds(attempt: Attempt, assertion: Assertion) -> tuple[bool, str, str]:
    session = attempt.session
    assert session is not None
    if assertion.kind == "no_console_errors":
        errors = list(session.console_errors)
        if not errors:
            return True, "no console errors", "none"
        shown = "; ".join(e[:200] for e in errors[:3])
        return False, "no console errors", f"{len(errors)} console error(s): {shown}"
    if assertion.kind == "beacon_fires":
        want = f"a {assertion.vendor} beacon" + (f" with event '{assertion.event}'" if assertion.event else "")
        end = time.monotonic() + BEACON_GRACE_MS / 1000
        while True:
            beacons = list(session.beacons)
            # the vendor table of the browser layer decides aliases and case (ga4 = gtag = GA)
            if matching_beacons(beacons, assertion.vendor or "", assertion.event):
                return True, want, "captured"
            if time.monotonic() >= end:
                break
            sleep_ms(attempt, POLL_S * 1000)
        seen = sorted({f"{b.vendor}:{b.event}" for b in beacons})
        return False, want, ("captured beacons: " + ", ".join(seen)) if seen else "no beacon captured"
    return False, assertion.kind, f"unknown assertion kind '{assertion.kind}'"
