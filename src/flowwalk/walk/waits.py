"""The walker's own waits, and the navigation check every step passes.

- `sleep_ms` sleeps while Playwright keeps delivering page events (beacons, navigations, console);
- `wait_for` waits until a selector matches (and its first match is visible when asked): in the
  page, SETTLE_MS at a time, when the selector has one alternative, else `Page.match` polled every POLL_S;
- `check_navigation` turns a top-level navigation that left the allowlist into the step's
  failure, blaming the action that set it off when it was an earlier step (`caused_by`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable, Protocol, Sequence

from flowwalk.browser.errors import NavigationBlocked
from flowwalk.browser.records import Match
from flowwalk.model import Step
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import halting
from flowwalk.walk.outcomes import StepFailed


class Mended(Protocol):
    """A selector a mender mended (heal/mend.py `Mended`): the selector, and what it matched."""

    @property
    def selector(self) -> str: ...

    @property
    def found(self) -> Match: ...


class Mend(Protocol):
    """What mends a selector that matched nothing (walk/healing.py `Mender`)."""

    def __call__(self) -> Mended | None: ...

    def first(self, gate: Sequence[str] = ()) -> Mended | None: ...


__all__ = ["Gate", "POLL_S", "SETTLE_MS", "allowlist_text", "check_navigation", "sleep_ms", "wait_for"]

#: polling interval of the walker's own waits (await, wait-for, extract, target grace)
POLL_S = 0.1
#: one of Playwright's waits for a selector lasts at most this long before the selector is read
#: again: Playwright looks for it with a backoff that reaches 500 ms between looks, so a wait of
#: its own sees an element up to half a second after it landed (on the bench, a list that arrives
#: 1 s after the load was seen at 1.33 s in one wait, at 1.0 s in these pieces); and the mender is
#: asked again meanwhile (the page may have gone quiet without the element)
SETTLE_MS = 250


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
             visible: bool, fingerprint: bool = False, gate: Gate | None = None,
             mend: Mend | None = None) -> Match | None:
    """Wait until the selector matches (and its first match is visible when asked); None on timeout.

    One alternative: Playwright's own wait, SETTLE_MS at a time, each followed by one read of the
    selector (see SETTLE_MS). A pipe fallback: `Page.match` polled every POLL_S.
    `fingerprint`: the match that is returned carries its first element's. `gate`: the first read
    also asks whether its interrupts could be showing, and they are cleared before anything is
    judged; the selector is read again when that clicked something. `mend` (walk/healing.py
    `Mender`): first asked for a mend the run already knows (one read of that, instead of the
    selector's), then after every read that matched nothing, until it mends the selector, so a page
    that went quiet without the element is healed at once, not at the timeout. The Match returned is
    then the mended selector's. Each of Playwright's waits lasts at most SETTLE_MS.
    """
    page = attempt.page
    end = time.monotonic() + timeout_ms / 1000
    known = mend.first(gate.selectors if gate else ()) if mend is not None else None
    if known is not None:
        selector, fingerprint, mend, found = known.selector, False, None, known.found
    else:
        found = page.match(selector, scope, fingerprint=fingerprint, gate=gate.selectors if gate else (), shown=visible)
    if gate is not None and gate.selectors and gate.clear(found.gate):
        found = page.match(selector, scope, fingerprint=fingerprint, shown=visible)
    while True:
        if found.count > 0 and (not visible or found.shown or page.is_visible(found.element)):
            return found
        if mend is not None and found.count == 0:
            mended = mend()
            if mended is not None:
                selector, fingerprint, mend, found = mended.selector, False, None, mended.found
                continue
        left = int((end - time.monotonic()) * 1000)
        if left < 1:
            return None   # timeout 0 would mean "no timeout" to Playwright
        if len(found.tried) == 1:
            page.wait_for(found.element, visible=visible, timeout_ms=min(left, SETTLE_MS))
        else:
            sleep_ms(attempt, min(POLL_S * 1000, left))
        found = page.match(selector, scope, fingerprint=fingerprint, shown=visible)


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
