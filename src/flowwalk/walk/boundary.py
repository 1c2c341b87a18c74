"""What the walker makes of the browser layer's errors: halt the attempt, or fail the step.

The browser layer translates Playwright's errors once (browser/errors.py); what reaches the walker
is flowwalk's own. "Is the browser gone?" has one answer, `gone`: `BrowserCrashed` (the session
already told a crash from a page the site closed itself), a browser that is no longer alive, or a
session whose renderer crashed. A gone browser halts the scenario (`Halt`: the rule in flight
fails `BROWSER_CRASHED`, the rest are skipped); any other error is the page's doing and becomes a
step failure with the code `runtime_code` gives it.

The walk modules raise `Halt` through `halt_if_gone(exc, attempt)` or `with halting(attempt):`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator, cast

from flowwalk import events as ev
from flowwalk.browser.errors import BrowserCrashed, InvalidSelector, PageError, TimedOut
from flowwalk.model import Step
from flowwalk.walk.outcomes import StepFailed, Unit

if TYPE_CHECKING:
    from flowwalk.browser.launch import Browser
    from flowwalk.browser.session import PageSession
    from flowwalk.walk.attempt import Attempt

__all__ = ["Halt", "call", "gone", "halt_failure", "halt_if_gone", "halting", "runtime_code", "short"]

#: the step kinds a halted step keeps (any other is reported as an action)
_HALT_KINDS = ("guard", "action", "observation_or_assertion", "setup", "assertion", "run_timeout")


class Halt(Exception):
    """The scenario cannot go on: the browser or the page's renderer is gone."""


def gone(exc: BaseException | None, session: "PageSession | None", browser: "Browser | None" = None) -> bool:
    """Did the browser or the page's renderer die (as opposed to a page that misbehaved)?

    The one answer: `BrowserCrashed` always; else a browser that is no longer alive, or a session
    whose renderer crashed. Asking a dead browser that raises counts as gone.
    """
    if isinstance(exc, BrowserCrashed):
        return True
    try:
        if browser is not None and not browser.is_alive():
            return True
        if session is not None and session.crashed:
            return True
    except Exception:  # noqa: BLE001 - asking a dead browser raises
        return True
    return False


def halt_if_gone(exc: BaseException, attempt: "Attempt") -> None:
    """Raise Halt when `exc` (or the state of the browser) says the browser is gone."""
    if isinstance(exc, Halt) or gone(exc, attempt.session, attempt.browser):
        raise Halt from None


@contextmanager
def halting(attempt: "Attempt") -> Iterator[None]:
    """Inside: a gone browser raises Halt; a step failure and a page's own errors pass through."""
    try:
        yield
    except StepFailed:
        raise
    except Exception as exc:  # noqa: BLE001 - re-raised below unless the browser is gone
        halt_if_gone(exc, attempt)
        raise


def call(attempt: "Attempt", fn: Callable[[], object], default: str) -> StepFailed | None:
    """Run one unit that can fail (pytest's `CallInfo.from_call`): None when it passed, else what
    failed: its `StepFailed`, or the page's error as one, with its runtime code (`default` for an
    error the page did not name). Raises Halt when the browser is gone."""
    try:
        fn()
    except StepFailed as failed:
        return failed
    except Exception as exc:  # noqa: BLE001 - anything the page throws is the unit's failure
        halt_if_gone(exc, attempt)
        return StepFailed(runtime_code(exc, default), short(exc))
    return None


def runtime_code(exc: BaseException, default: str) -> str:
    """The runtime code of an error the page raised."""
    if isinstance(exc, TimedOut):
        return "TIMEOUT"
    if isinstance(exc, InvalidSelector):
        return "ACTION_REJECTED"  # a selector that does not parse: retrying cannot help
    return default


def short(exc: BaseException) -> str:
    """`Type: first line` of an error, at most 500 characters (for messages and observations); a
    page's error is named as Playwright named it (`PageError.origin`)."""
    text = str(exc).strip().split("\n")
    first = text[0] if text else ""
    name = exc.origin if isinstance(exc, PageError) else type(exc).__name__
    return f"{name}: {first}"[:500]


def halt_failure(attempt: "Attempt", step_kind: str, index: int | None, step: Step | None,
                 message: str) -> ev.Failure:
    """The failure of what was in flight when the attempt halted; marks the attempt crashed.

    The run's watchdog stops Chromium when a cancel or the run timeout could not otherwise end a
    stuck step: that reads CANCELLED or RUN_TIMEOUT, not BROWSER_CRASHED.
    """
    attempt.control.mark_crashed()
    code = "BROWSER_CRASHED"
    stopped = attempt.run.stop_reason(in_flight=True)
    if stopped == "cancelled":
        code, message = "CANCELLED", "the run was cancelled while this step ran; flowwalk stopped the browser"
    elif stopped == "run_timeout":
        code, step_kind = "RUN_TIMEOUT", "run_timeout"
        message = (f"the run timeout ({attempt.settings.run_timeout_s:g} s) passed while this step was stuck; "
                   f"flowwalk stopped the browser")
    kind = cast(ev.FailureStepKind, step_kind) if step_kind in _HALT_KINDS else "action"
    unit = Unit.of(index, step, kind) if step is not None else Unit(kind, attempt.scenario.loc, index=index)
    return unit.failure(StepFailed(code, message))
