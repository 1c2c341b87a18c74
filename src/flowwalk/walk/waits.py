"""The walker's own waits, and the navigation check every step passes.

- `sleep_ms` sleeps while Playwright keeps delivering page events (beacons, navigations, console);
- `wait_for` waits until a selector matches (and its first match is visible when asked): one
  round trip in the page when the selector has one alternative, else `Page.match` polled every POLL_S;
- `check_navigation` turns a top-level navigation that left the allowlist into the step's
  failure, blaming the action that set it off when it was an earlier step (`caused_by`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Sequence

from flowwalk.browser.errors import NavigationBlocked
from flowwalk.browser.records import Match
from flowwalk.model import Step
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import halting
from flowwalk.walk.outcomes import StepFailed

__all__ = ["Gate", "POLL_S", "allowlist_text", "check_navigation", "sleep_ms", "wait_for", "wait_in_rule"]

#: polling interval of the walker's own waits (await, wait-for, extract, target grace)
POLL_S = 0.1


@dataclasses.dataclass(frozen=True)
class Gate:
    """Interrupts to clear before the first read of a wait counts: their selectors, asked in that
    read (`Page.match`'s `gate`), and what clears them given the answer (how many it clicked)."""

    selectors: Sequence[str]
    clear: Callable[[Sequence[bool | None] | None], int]


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
             visible: bool, fingerprint: bool = False, gate: Gate | None = None) -> Match | None:
    """Wait until the selector matches (and its first match is visible when asked); None on timeout.

    One alternative: Playwright's own wait (the page watches for the element, so it is seen
    the moment it lands, in one round trip). A pipe fallback: `Page.match` polled every POLL_S.
    `fingerprint`: the match that is returned carries its first element's. `gate`: the first read
    also asks whether its interrupts could be showing, and they are cleared before anything is
    judged; the selector is read again when that clicked something.
    """
    page = attempt.page
    end = time.monotonic() + timeout_ms / 1000
    found = page.match(selector, scope, fingerprint=fingerprint, gate=gate.selectors if gate else ())
    if gate is not None and gate.selectors and gate.clear(found.gate):
        found = page.match(selector, scope, fingerprint=fingerprint)
    if found.count > 0 and (not visible or page.is_visible(found.element)):
        return found
    if len(found.tried) == 1:
        left = int((end - time.monotonic()) * 1000)
        if left < 1:
            return None   # timeout 0 would mean "no timeout" to Playwright
        if not page.wait_for(found.element, visible=visible, timeout_ms=left):
            return None
        found = page.match(selector, scope, fingerprint=fingerprint)
        if found.count > 0:
            return found
        # it went again between the wait and the count: back to polling what is left
    while True:
        if time.monotonic() >= end:
            return None
        sleep_ms(attempt, min(POLL_S, max(end - time.monotonic(), 0)) * 1000)
        found = page.match(selector, scope, fingerprint=fingerprint)
        if found.count > 0 and (not visible or page.is_visible(found.element)):
            return found


def wait_in_rule(attempt: Attempt, state: RuleState, written: str | None, *,
                 visible: bool) -> tuple[str, float, Match | None]:
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
