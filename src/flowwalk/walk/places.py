"""Where a step runs: the page, the popup an act opened, or an iframe (docs/flow-spec.md, "Popups"
and "Frames").

A step's blocks say where it runs: the popup and frame blocks among its `frames`, outermost first.
Contract:
- `arm_popup` (before an act with `popup:`) makes the session keep the next popup the page opens;
  `enter_popup` (after the action) waits for it up to the expect timeout and moves the walk into
  it once it has loaded. None opening fails the act (EXPECT_STATE_MISMATCH, expected "a popup
  within N ms", observed "none opened"); a popup sent outside the allowlist fails it
  NAVIGATION_BLOCKED;
- `place` (before every step's handler) leaves the places the step is not in, innermost first (a
  popup is closed unless its act said `close: false`) and enters the frames it is in: an iframe
  that is not attached within the action timeout fails the step ELEMENT_NOT_FOUND, one whose
  document is outside the allowlist NAVIGATION_BLOCKED, one that shows Chromium's error page
  ACTION_REJECTED, saying whether Chromium refused to frame the page (X-Frame-Options, CSP
  frame-ancestors) or it did not load. A step in a popup that is not open (the
  act that opens it failed, being optional) fails ACTION_REJECTED;
- inside a popup or a frame, the rule's selector scope does not apply (it names a part of the page
  the walk left); a frame's own selector is looked up within the scope of where it is written;
- `leave_all` (when a rule ends) goes back to the page.
"""

from __future__ import annotations

from flowwalk.browser.errors import FrameNotShown, NavigationBlocked, NotAFrame, PageError, TimedOut
from flowwalk.events import StepFrame
from flowwalk.model import PLACE_KINDS, Act, Step
from flowwalk.walk.attempt import Attempt, Place, RuleState
from flowwalk.walk.boundary import halt_if_gone, short
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.waits import allowlist_text, sleep_ms

__all__ = ["arm_popup", "enter_popup", "leave_all", "place"]

#: how often an act waiting for its popup looks again
POPUP_POLL_MS = 50


def arm_popup(attempt: Attempt, step: Act) -> None:
    """Before an act with `popup:`: keep the next popup the page opens."""
    if step.popup is not None and attempt.session is not None:
        attempt.session.expect_popup()


def enter_popup(attempt: Attempt, state: RuleState, step: Act, result: StepResult) -> None:
    """After an act with `popup:`: wait for its popup (up to the expect timeout) and go into it."""
    session, plan = attempt.session, step.popup
    if plan is None or session is None:
        return
    budget = state.budget.cap_ms(attempt.settings.expect_timeout_ms)
    waited = 0.0
    while not session.popup_opened() and waited < budget:
        sleep_ms(attempt, POPUP_POLL_MS)
        waited += POPUP_POLL_MS
    if not session.popup_opened():
        session.disarm_popup()
        raise StepFailed("EXPECT_STATE_MISMATCH", f"{step.action} opened no popup within {int(budget)} ms",
                         expected=f"a popup (a new tab or window) within {int(budget)} ms", observed="none opened")
    try:
        url = session.enter_popup(state.budget.cap_ms(attempt.settings.navigation_timeout_ms), close=plan.close)
    except NavigationBlocked as blocked:
        raise StepFailed("NAVIGATION_BLOCKED", f"the popup went to '{blocked.url}', outside the allowlist",
                         expected=allowlist_text(attempt), observed=blocked.host) from None
    except PageError as exc:
        halt_if_gone(exc, attempt)
        raise StepFailed("TIMEOUT" if isinstance(exc, TimedOut) else "ACTION_REJECTED",
                         f"the popup did not load: {short(exc)}", expected="the popup's page loaded",
                         observed=short(exc)) from None
    attempt.places.append(Place(plan.frame, state.scope))
    state.scope = None
    result.detail["popup"] = {"url": attempt.redact(url)}


def place(attempt: Attempt, state: RuleState, step: Step) -> None:
    """Before `step` runs: leave the places it is not in, enter the frames it is in."""
    if attempt.session is None or (not attempt.places and not step.frames):
        return
    wanted = [f for f in step.frames if f.kind in PLACE_KINDS]
    same = 0
    while same < min(len(wanted), len(attempt.places)) and wanted[same].id == attempt.places[same].block:
        same += 1
    while len(attempt.places) > same:
        _leave(attempt, state)
    for block in wanted[same:]:
        if block.kind == "popup":
            raise StepFailed("ACTION_REJECTED", f"this step runs in the popup of the act at line {block.line}, "
                             "which did not open it", expected="the popup open", observed="no popup")
        _enter_frame(attempt, state, block)


def _enter_frame(attempt: Attempt, state: RuleState, block: StepFrame) -> None:
    assert attempt.session is not None
    selector = attempt.bindings.subst(block.selector) or block.selector
    timeout = state.budget.cap_ms(attempt.settings.action_timeout_ms)
    try:
        attempt.session.enter_frame(selector, state.scope, max(timeout, 1))
    except NavigationBlocked as blocked:
        raise StepFailed("NAVIGATION_BLOCKED", f"the frame '{selector}' shows '{blocked.url}', outside the allowlist",
                         expected=allowlist_text(attempt), observed=blocked.host) from None
    except NotAFrame as wrong:
        raise StepFailed("ELEMENT_NOT_FOUND", str(wrong), expected=f"an iframe at '{selector}'",
                         observed=f"a <{wrong.tag}>") from None
    except FrameNotShown as empty:
        raise _not_shown(empty, selector) from None
    except PageError as exc:
        halt_if_gone(exc, attempt)
        if isinstance(exc, TimedOut):
            raise StepFailed("ELEMENT_NOT_FOUND", f"no iframe '{selector}' was attached within {int(timeout)} ms",
                             expected=f"an iframe at '{selector}'", observed="no match") from None
        raise StepFailed("ACTION_REJECTED", f"the frame '{selector}' could not be entered: {short(exc)}",
                         expected=f"the iframe at '{selector}' loaded", observed=short(exc)) from None
    attempt.places.append(Place(block.id, state.scope))
    state.scope = None


def _not_shown(empty: FrameNotShown, selector: str) -> StepFailed:
    """The failure of a frame block whose iframe shows Chromium's error page: refused (the framed
    page's headers forbid it here) or not loaded, with Chromium's own words."""
    why = "; ".join(w for w in (empty.failure, empty.refusal) if w) or "no reason recorded"
    refused = empty.refusal is not None or empty.failure == "net::ERR_BLOCKED_BY_RESPONSE"
    if refused:
        message = (f"the frame '{selector}' is empty: Chromium refused to show '{empty.url}' in a frame ({why}); "
                   f"hint: the framed page's X-Frame-Options or Content-Security-Policy frame-ancestors forbids "
                   f"this page to frame it: allow this page's origin there, or goto the framed page and check "
                   f"it on its own")
    else:
        message = (f"the frame '{selector}' is empty: '{empty.url}' did not load ({why}); hint: check that the "
                   f"framed page answers from where the run is")
    return StepFailed("ACTION_REJECTED", message, expected=f"the iframe at '{selector}' showing '{empty.url}'",
                      observed=f"Chromium's error page ({why})")


def _leave(attempt: Attempt, state: RuleState) -> None:
    left = attempt.places.pop()
    state.scope = left.scope
    if attempt.session is not None:
        attempt.session.leave()


def leave_all(attempt: Attempt, state: RuleState) -> None:
    """Back on the page (a rule ended): every popup closed that is to be."""
    while attempt.places:
        _leave(attempt, state)
