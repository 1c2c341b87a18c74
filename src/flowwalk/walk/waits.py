"""The walker's own waits, and the navigation check every step passes.

- `sleep_ms` sleeps while Playwright keeps delivering page events (beacons, navigations, console);
- `wait_for` waits until a selector matches (and its first match is visible when asked): one
  round trip in the page when the selector has one alternative, else `locate` polled every POLL_S;
- `check_navigation` turns a top-level navigation that left the allowlist into the step's
  failure, blaming the action that set it off when it was an earlier step (`caused_by`).
"""

from __future__ import annotations

import time

from flowwalk.browser.element import first_visible, wait_for_first
from flowwalk.browser.locate import Located, locate
from flowwalk.browser.session import NavigationBlocked
from flowwalk.model import Step
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import halting
from flowwalk.walk.outcomes import StepFailed

__all__ = ["POLL_S", "allowlist_text", "check_navigation", "sleep_ms", "wait_for", "wait_in_rule"]

#: polling interval of the walker's own waits (await, wait-for, extract, target grace)
POLL_S = 0.1


def sleep_ms(attempt: Attempt, ms: float) -> None:
    """Sleep `ms` while Playwright keeps delivering page events; Halt when the browser dies."""
    if ms <= 0:
        return
    if attempt.session is None:
        time.sleep(ms / 1000)
        return
    with halting(attempt):
        attempt.session.wait(ms)


def wait_for(attempt: Attempt, selector: str, scope: str | None, timeout_ms: float, *,
             visible: bool, probe: str | None = None) -> Located | None:
    """Wait until the selector matches (and its first match is visible when asked); None on timeout.

    One alternative: Playwright's own wait (the page watches for the element, so it is seen
    the moment it lands, in one round trip). A pipe fallback: `locate` polled every POLL_S.
    `probe` goes to `locate` (the match that is returned carries what it found).
    """
    page = attempt.page
    end = time.monotonic() + timeout_ms / 1000
    located = locate(page, selector, scope, probe=probe)
    if located.count > 0 and (not visible or first_visible(located)):
        return located
    if len(located.tried) == 1:
        left = int((end - time.monotonic()) * 1000)
        if left < 1:
            return None   # timeout 0 would mean "no timeout" to Playwright
        if not wait_for_first(located, visible=visible, timeout_ms=left):
            return None
        located = locate(page, selector, scope, probe=probe)
        if located.count > 0:
            return located
        # it went again between the wait and the count: back to polling what is left
    while True:
        if time.monotonic() >= end:
            return None
        sleep_ms(attempt, min(POLL_S, max(end - time.monotonic(), 0)) * 1000)
        located = locate(page, selector, scope, probe=probe)
        if located.count > 0 and (not visible or first_visible(located)):
            return located


def wait_in_rule(attempt: Attempt, state: RuleState, written: str | None, *,
                 visible: bool) -> tuple[str, float, Located | None]:
    """Wait, within the rule's observation time, for the selector as `written` (substituted):
    (the selector, the time it was given in ms, what it matched or None)."""
    selector = attempt.bindings.subst(written)
    assert selector is not None
    timeout = state.budget.cap_ms(state.observe_ms)
    return selector, timeout, wait_for(attempt, selector, state.scope, timeout, visible=visible)


def allowlist_text(attempt: Attempt) -> str:
    """What a blocked navigation was expected to stay within."""
    hosts = attempt.allowed_host_names()
    return "a host in the allowlist: " + (", ".join(hosts) if hosts else "(entry host)") + " and subdomains"


def check_navigation(attempt: Attempt, caused_by: tuple[int, Step] | None = None, *, pump: bool = True) -> None:
    """Fail the step (blaming `caused_by`, when given) if a navigation left the allowlist."""
    assert attempt.session is not None
    try:
        attempt.session.check_navigation(pump=pump)
    except NavigationBlocked as blocked:
        raise StepFailed("NAVIGATION_BLOCKED", f"the action navigated to '{blocked.url}', outside the allowlist",
                         expected=allowlist_text(attempt), observed=blocked.host,
                         caused_by=caused_by) from None
