"""The steps that change the page: goto, act and wait, and the interrupts dismissed before acts.

Contract of an act (find, perform, await, verify; the features around it, its dialog, its popup
and the allowlist, are told each phase through `RuleState.current_hooks`: walk/hooks.py):
1. dismiss the rule's interrupts (only those already visible; `dismiss`);
2. find its element (`act_target`): the pinned selector, waited for TARGET_GRACE_MS when the step
   also has a `target` (else the whole action timeout); when it matches nothing (or there is
   none), `recover_target` is the one place that finds the element another way (walk/healing.py:
   the `target` and the pinned selector's last fingerprint over one page read, with or without a
   pinned selector) or fails the step saying why; a drag's drop target is found next;
3. the hooks' `arm`; do the action; one that raises is retried once after dismissing interrupts,
   when the rule has any (aitester-bdd); the hooks' `acted`;
4. honour `await_selector`; the hooks' `awaited`; run the step's verifiers.

Every wait is cut by the rule's and the run's time (`Budget.cap_ms`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from flowwalk import events as ev
from flowwalk.browser.errors import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.records import Element, Reader
from flowwalk.heal.find import Lookup, find
from flowwalk.model import Act, Goto, History, Wait
from flowwalk.walk.attempt import Attempt, Budget, Click, RuleState
from flowwalk.walk.boundary import halt_if_gone, halting, runtime_code, short
from flowwalk.spec.variables import SECRET_ACTIONS
from flowwalk.walk import fingerprints, healing, interact
from flowwalk.walk.checks import FRAME_LOOK_MS, look_in_frames
from flowwalk.walk.observations import verify
from flowwalk.walk.outcomes import StepFailed, StepResult, only_in_frame
from flowwalk.walk.waits import Gate, allowlist_text, sleep_ms, wait_for

__all__ = ["DISMISS_CLICK_MS", "DISMISS_MAX_MATCHES", "TARGET_GRACE_MS", "act", "act_target", "dismiss", "goto",
           "goto_step", "recover_target", "wait"]

#: how long an act waits for its pinned selector before finding its `target` instead (a
#: step with no target waits the full action timeout): long enough for a page still rendering.
TARGET_GRACE_MS = 1000
#: an interrupt is clicked only if already visible, and the click itself may not dawdle
DISMISS_CLICK_MS = 500
#: at most this many matches of one dismiss selector are clicked in one pass
DISMISS_MAX_MATCHES = 5
T = TypeVar("T")


# --- goto and wait ------------------------------------------------------------------------------


def goto(attempt: Attempt, url: str, budget: Budget) -> None:
    """Navigate to `url` within the navigation timeout (cut by `budget`)."""
    assert attempt.session is not None
    session = attempt.session
    _navigate(attempt, budget, "the navigation", f"navigation to '{url}'", f"the page at {url}",
              lambda ms: session.goto(url, timeout_ms=ms))


def _navigate(attempt: Attempt, budget: Budget, what: str, how: str, expected: str,
              move: Callable[[int], T]) -> T:
    """`move(timeout_ms)` within the navigation timeout (cut by `budget`): a stop at the allowlist
    is NAVIGATION_BLOCKED, any other error the step's failure (`how` failed), a gone browser Halt."""
    timeout = budget.cap_ms(attempt.settings.navigation_timeout_ms)
    if timeout <= 0:
        raise StepFailed("TIMEOUT", f"no time left for {what}")
    try:
        return move(int(max(timeout, 1)))
    except NavigationBlocked as blocked:
        raise StepFailed("NAVIGATION_BLOCKED", f"{how.split(' to ')[0]} to '{blocked.url}' left the allowlist",
                         expected=allowlist_text(attempt), observed=blocked.host) from None
    except Exception as exc:  # noqa: BLE001
        halt_if_gone(exc, attempt)
        raise StepFailed(runtime_code(exc, "ACTION_REJECTED"), f"{how} failed: {short(exc)}",
                         expected=expected, observed=short(exc)) from None


def goto_step(attempt: Attempt, state: RuleState, step: Goto, role: ev.Role, result: StepResult) -> None:
    """A goto step; the scenario's deferred opening navigation when it is that (see scenario.py)."""
    if attempt.entry_deferred:
        # the scenario's opening navigation, then its interrupt pass
        attempt.entry_deferred = False
        assert attempt.entry_url is not None
        goto(attempt, attempt.entry_url, state.budget)
        dismiss(attempt, attempt.global_dismiss())
    else:
        url = attempt.bindings.subst(step.url)
        assert url is not None
        goto(attempt, attempt.absolute(url), state.budget)


def history_step(attempt: Attempt, state: RuleState, step: History, role: ev.Role, result: StepResult) -> None:
    """go_back, go_forward, reload: the browser's buttons, within the navigation timeout (cut by the budget)."""
    assert attempt.session is not None
    session = attempt.session
    stayed = _navigate(attempt, state.budget, step.move, step.move, f"{step.move} done",
                       lambda ms: session.history(step.move, timeout_ms=ms))
    if stayed is None:
        return
    where = "back" if step.move == "go_back" else "forward"
    first = session.first_page
    if step.move == "go_back" and first is not None and stayed != first:
        # the page moved on from its first page without a history entry (location.replace,
        # history.replaceState): the site dropped the page the back button should return to
        raise StepFailed("EXPECT_STATE_MISMATCH", "go_back: the history has no page to go back to: the site "
                         f"replaced '{first[:300]}' with '{stayed[:300]}' instead of adding a history entry",
                         expected=f"a page to go back to ('{first[:300]}')",
                         observed=f"none: '{stayed[:300]}' replaced it in the history")
    raise StepFailed("ACTION_REJECTED", f"{step.move}: the history has no page to go {where} to",
                     expected=f"a page to go {where} to", observed=f"none: the page stayed at '{stayed[:300]}'")


def wait(attempt: Attempt, state: RuleState, step: Wait, role: ev.Role, result: StepResult) -> None:
    """`wait ms` (cut short by the rule's or the run's time: a failure) or `wait for` a visible match."""
    if step.ms is not None:
        allowed = state.budget.cap_ms(step.ms)
        sleep_ms(attempt, allowed)
        if allowed < step.ms:
            raise StepFailed("TIMEOUT", f"wait {step.ms} ms cut short after {int(allowed)} ms",
                             expected=f"{step.ms} ms", observed=f"{int(allowed)} ms")
        return
    selector, timeout, located = healing.wait_mended(attempt, state, step, step.for_selector, result, visible=True,
                                                     key="for")
    if located is None:
        raise StepFailed("TIMEOUT", f"'{selector}' did not appear within {int(timeout)} ms",
                         expected=f"'{selector}' visible", observed="not visible")


# --- interrupts ---------------------------------------------------------------------------------


def dismiss(attempt: Attempt, selectors: Sequence[str], maybe: Sequence[bool | None] | None = None) -> int:
    """Click every VISIBLE match of each dismiss selector, quickly; never wait for one. `maybe`:
    which could be showing, when a read just asked (see `Page.dismiss`)."""
    if attempt.session is None:
        return 0
    return attempt.page.dismiss(selectors, max_matches=DISMISS_MAX_MATCHES, click_ms=DISMISS_CLICK_MS, maybe=maybe)


def _interrupts(attempt: Attempt, state: RuleState, result: StepResult) -> Gate | None:
    """The rule's interrupts as a gate for the act's first read; what it clicks goes into the
    step's `dismissed` detail."""
    if not state.dismiss:
        return None

    def clear(maybe: Sequence[bool | None] | None) -> int:
        clicked = dismiss(attempt, state.dismiss, maybe)
        if clicked:
            result.detail["dismissed"] = result.detail.get("dismissed", 0) + clicked
        return clicked

    return Gate(state.dismiss, clear)


# --- act ----------------------------------------------------------------------------------------


def act(attempt: Attempt, state: RuleState, step: Act, role: ev.Role, result: StepResult) -> None:
    """One act step (see the module doc for its order)."""
    recovery = result.recovery
    value = (attempt.bindings.subst(step.value, secrets=step.action in SECRET_ACTIONS)
             if step.value is not None else None)
    # the interrupts are cleared in the target's first read (one round trip for both)
    target = act_target(attempt, state, step, result, gate=_interrupts(attempt, state, result))
    dest = interact.drop_target(attempt, state, step) if step.action == "drag" else None
    hooks = state.current_hooks
    assert hooks is not None   # an act runs in the step envelope, which enters its hooks
    hooks.arm()
    started = time.time() * 1000
    try:
        _perform(attempt, step, target, value, dest, state.budget.cap_ms(attempt.settings.action_timeout_ms))
    except StepFailed:
        raise
    except Exception as first:  # noqa: BLE001
        halt_if_gone(first, attempt)
        # aitester-bdd: an action that raises is retried once after dismissing interrupts,
        # and only when there is something to dismiss (otherwise it would fail the same way).
        if not state.dismiss:
            raise _action_error(step, first) from None
        again = dismiss(attempt, state.dismiss)
        started = time.time() * 1000
        try:
            _perform(attempt, step, target, value, dest, state.budget.cap_ms(attempt.settings.action_timeout_ms))
        except Exception as second:  # noqa: BLE001
            halt_if_gone(second, attempt)
            recovery.record("dismiss_and_retry", "failed",
                            f"dismissed {again} interrupt(s), retried once: {short(second)}")
            raise _action_error(step, second, twice=True) from None
        recovery.record("dismiss_and_retry", "recovered",
                        f"first try: {short(first)}; dismissed {again} interrupt(s) and retried once")
    hooks.acted()
    # the act was done (a later failure of this step or the next may come from where a click
    # landed): two clock reads, no round trip
    state.clicked = (Click(state.current_index or 0, step.action, result.detail.get("selector"), started,
                           time.time() * 1000)
                     if step.action in ("click", "dblclick") else None)
    if step.await_selector:
        # Differs from aitester-bdd on purpose: it waits a fixed 30 s and IGNORES a missing
        # await target; here the wait is bounded by the rule timeout and a missing target
        # FAILS the step, since everything after it was written assuming it arrived.
        awaited, wait_ms, arrived = healing.wait_mended(attempt, state, step, step.await_selector, result,
                                                        visible=False, key="await")
        if arrived is None:
            raise StepFailed("TIMEOUT", f"await: '{awaited}' was not attached within {int(wait_ms)} ms",
                             expected=f"'{awaited}' attached after the action", observed="not attached")
        result.detail["awaited"] = awaited
    hooks.awaited()
    if step.verify:
        verify(attempt, state, step, step.verify, value, target, result)
    if len(recovery):
        # a step that recovered keeps its recovery record as evidence
        result.detail["recovery"] = [{"strategy": a.strategy, "outcome": a.outcome, "detail": a.detail}
                                     for a in recovery.attempts]


def act_target(attempt: Attempt, state: RuleState, step: Act, result: StepResult,
               gate: Gate | None = None) -> Element:
    """The element an act works on: the pinned selector's first match, else `recover_target`'s.
    `gate`: interrupts to clear first, asked in the same read as the pinned selector's count."""
    selector = attempt.bindings.subst(step.selector) if step.selector else None
    waited_ms = 0.0
    if not selector and gate is not None:
        gate.clear(None)
    target = attempt.bindings.subst(step.target) if step.target else None
    if selector:
        waited_ms = state.budget.cap_ms(TARGET_GRACE_MS if step.target else attempt.settings.action_timeout_ms)
        # a refactor's renames are mended at once (the run's heals, or on a quiet page the earlier
        # fingerprint): not after the grace or the action timeout
        mend = healing.mender(attempt, state, step, selector, step.selector, action=step.action, target=target)
        # the element's fingerprint comes with the match count (one round trip), when it is due
        found = wait_for(attempt, selector, state.scope, waited_ms, visible=False,
                         fingerprint=fingerprints.fingerprint_due(attempt, step, selector), gate=gate, mend=mend)
        if found is not None and mend is not None and mend.mended is not None:
            assert state.current_index is not None
            mend.record(state.current_index, result)
            result.detail["selector"] = found.used
            return found.element
        if found is not None:
            result.detail["selector"] = found.used
            if found.count > 1:
                # like page.click(selector): the first match in document order
                result.detail["matches"] = found.count
            fingerprints.remember(attempt, step, selector, found.fingerprint, result)
            return found.element
    return recover_target(attempt, state, step, selector, target, result, waited_ms)


def recover_target(attempt: Attempt, state: RuleState, step: Act, selector: str | None, target: str | None,
                   result: StepResult, waited_ms: float) -> Element:
    """The element for an act whose pinned `selector` matched nothing in `waited_ms` (None: the
    step has no pinned selector), found another way; or StepFailed saying why none could be
    (ELEMENT_NOT_FOUND, AMBIGUOUS_TARGET), naming a child frame that has it. `selector` and
    `target` are the step's, placeholders substituted.

    Finding it is one job, with or without a pinned selector (walk/healing.py `act_on`): the
    `target` and the selector's last fingerprint ranked over one page read, then the model if
    configured and a selector broke. A heal of a pinned selector is a `healed` finding; a step with
    no pinned selector has nothing to heal. What was tried goes into `result` (its recovery
    record, and the candidates in its detail).
    """
    if not step.target and not (selector and fingerprints.has_fingerprint(attempt, step, selector)):
        assert selector is not None   # the loaders refuse an act with neither
        tried = ", ".join(tried_alternatives(attempt, selector, state.scope))
        missing = f"no element matches '{selector}' within {int(waited_ms)} ms"
        observed = f"nothing matched ({tried})"
        frame = _frame_with_target(attempt, state, step, selector, None)
        if frame is not None:
            missing = f"{missing}; {only_in_frame(frame, 'act on')}"
            observed = f"{observed}; only inside the frame {frame}"
        raise StepFailed("ELEMENT_NOT_FOUND", missing, expected=f"an element matching '{selector}'",
                         observed=observed)
    assert state.current_index is not None
    try:
        return healing.act_on(attempt, state, state.current_index, step, selector, target, result)
    except StepFailed as failed:
        if failed.code != "ELEMENT_NOT_FOUND":
            raise
        frame = _frame_with_target(attempt, state, step, selector, target)
        if frame is None:
            raise
        raise StepFailed(failed.code, f"{failed.message}; {only_in_frame(frame, 'act on')}",
                         expected=failed.expected, observed=f"{failed.observed}; only inside the frame {frame}",
                         candidates=failed.candidates) from None


def _frame_with_target(attempt: Attempt, state: RuleState, step: Act, selector: str | None,
                       target: str | None) -> str | None:
    """The child frame that has what an act's main frame lacks (failure path only, like a
    check's: `look_in_frames`, at most 4 frames within 1 s and within the rule's and the run's
    time): the pinned selector matches there, or the `target` resolves there to one element."""
    if attempt.session is None:
        return None
    budget = state.budget.cap_ms(FRAME_LOOK_MS)
    if budget <= 0:
        return None

    def has(frame: Reader) -> bool:
        if selector:
            try:
                if frame.match(selector, state.scope).count > 0:
                    return True
            except InvalidSelector:
                pass  # the main frame parsed it (it would have failed there); nothing to find
        return bool(target) and find(frame, Lookup(target=target, action=step.action,
                                                  scope=state.scope)).selector is not None

    with halting(attempt):
        return look_in_frames(attempt.session, has, budget_ms=budget)


def _perform(attempt: Attempt, step: Act, target: Element, value: str | None, dest: Element | None,
             timeout_ms: float) -> None:
    if timeout_ms <= 0:
        raise StepFailed("TIMEOUT", "no time left for the action")
    if step.action in interact.INTERACT_ACTIONS:
        interact.perform_interaction(attempt, step, target, value, dest, int(timeout_ms))
        return
    if step.action == "upload":
        path = upload_path(value or "", step.loc.path, attempt.settings.root)
        if not path.is_file():
            raise StepFailed("ACTION_REJECTED", f"upload: no file '{value}'",
                             expected="a file to upload (relative to the folder of the file that holds the step)",
                             observed=f"'{path}' does not exist")
        value = str(path)
    attempt.page.act(target, step.action, value, int(timeout_ms))


def upload_path(value: str, source: str, root: str) -> Path:
    """An upload's file: absolute as given, else relative to the folder of the file that holds the
    step (`source`, relative to the project `root`), like a route's `file`, so the verdict does not
    depend on the folder flowwalk runs from."""
    given = Path(value)
    return given if given.is_absolute() else Path(root) / Path(source).parent / given


def _action_error(step: Act, exc: BaseException, *, twice: bool = False) -> StepFailed:
    if isinstance(exc, StepFailed):
        return exc
    code = runtime_code(exc, "ACTION_REJECTED")
    what = "raised twice" if twice else "raised"
    covered = exc.covered_by if isinstance(exc, PageError) else None
    if covered:
        # Playwright's first line only says it timed out: what covers the element is in its call log
        return StepFailed(code, f"{step.action} {what}: {short(exc)} {covered} covers the element and takes its "
                          f"pointer events; hint: close what covers it first (a click on its close button; "
                          f"or, for a banner that comes and goes, its close button in dismiss_selectors), or "
                          f"wait until it is gone (expect hidden)",
                          expected=f"{step.action} to succeed", observed=f"{covered} intercepts pointer events")
    return StepFailed(code, f"{step.action} {what}: {short(exc)}", expected=f"{step.action} to succeed",
                      observed=short(exc))


def tried_alternatives(attempt: Attempt, selector: str, scope: str | None) -> list[str]:
    """The alternatives a match tried, for the message of a selector that matched nothing."""
    try:
        return list(attempt.page.match(selector, scope).tried)
    except Exception:  # noqa: BLE001 - the message names what was written
        return [selector]
