"""The recovery record: runtime codes mapped to failure classes, and bounded recovery attempts.

Every failure the walker reports carries a runtime code (what went wrong at the browser
boundary). This module owns the ONE table that turns such a code into a flow-spec v1 failure
class, a `retryable` flag and the RFC 010 category it belongs to, plus the bounded log of
recovery attempts (RFC 011 style) a failure carries. The table is a constant: the same code
always gives the same answer, on every machine and in every process.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from flowwalk.errors import Location
from flowwalk.events import (Baseline, Failure, FailureClass, FailureStepKind, RecoveryAttempt, RecoveryOutcome,
                             Violation)

#: RFC 011: a failure never gets more than this many recovery attempts.
MAX_RECOVERY_ATTEMPTS = 3

# RFC 010 section 8 names these categories. The last three are flowwalk's own: RFC 010 only
# covers interaction and verification, not the run around it, so a code like BROWSER_CRASHED
# has no RFC 010 home and we refuse to pretend it is an "Execution Failure".
TARGET_RESOLUTION = "Target Resolution Failure"
EXECUTION = "Execution Failure"
VERIFICATION = "Verification Failure"
INPUT = "Input Failure"                    # flowwalk: the run cannot supply what the spec needs
INFRASTRUCTURE = "Infrastructure Failure"  # flowwalk: browser, run deadline, flowwalk itself
MODEL = "Model Failure"                    # flowwalk: the optional model backend


@dataclass(frozen=True)
class CodeMapping:
    """What one runtime code means downstream."""

    failure_class: FailureClass
    retryable: bool
    category: str


#: runtime code -> (failure class, retryable, RFC 010 category). `retryable` answers "could the
#: same step succeed if tried again unchanged?": a timeout or a stale element may, a page that
#: shows the wrong text will not.
RUNTIME_CODES: Mapping[str, CodeMapping] = MappingProxyType({
    "ELEMENT_NOT_FOUND": CodeMapping("spec_step_unresolvable", True, TARGET_RESOLUTION),
    "AMBIGUOUS_TARGET": CodeMapping("spec_step_unresolvable", False, TARGET_RESOLUTION),
    "STALE_REFERENCE": CodeMapping("spec_step_unresolvable", True, TARGET_RESOLUTION),
    # A step timeout: the page never got where the spec expected within the step's time.
    "TIMEOUT": CodeMapping("spec_step_unresolvable", True, EXECUTION),
    "ACTION_REJECTED": CodeMapping("spec_step_unresolvable", False, EXECUTION),
    # flow-spec v1: a navigation outside the allowlist fails the step as unresolvable.
    "NAVIGATION_BLOCKED": CodeMapping("spec_step_unresolvable", False, EXECUTION),
    "EXPECT_STATE_MISMATCH": CodeMapping("assertion_failed", False, VERIFICATION),
    "VERIFICATION_FAILED": CodeMapping("assertion_failed", False, VERIFICATION),
    "VARIABLE_MISSING": CodeMapping("credential_rejected", False, INPUT),
    "BROWSER_CRASHED": CodeMapping("infrastructure_error", True, INFRASTRUCTURE),
    # Rerunning with more time may pass: the spec is not at fault (exit code 6, not 2).
    "RUN_TIMEOUT": CodeMapping("infrastructure_error", True, INFRASTRUCTURE),
    # SIGINT/SIGTERM stopped the step in flight (the run's outcome is "cancelled", exit 5).
    "CANCELLED": CodeMapping("infrastructure_error", True, INFRASTRUCTURE),
    "INTERNAL": CodeMapping("infrastructure_error", False, INFRASTRUCTURE),
    # the readiness wait ran out before the site answered as expected: nothing was walked
    "SITE_NOT_READY": CodeMapping("infrastructure_error", True, INFRASTRUCTURE),
    "MODEL_UNAVAILABLE": CodeMapping("agent_uncertain", True, MODEL),
    "QUOTA_EXCEEDED": CodeMapping("quota_exceeded", False, MODEL),
    # the model answered, twice, with nothing usable (not JSON, or a pick outside the list)
    "MODEL_INVALID_ANSWER": CodeMapping("agent_uncertain", True, MODEL),
    # a check failed after an act was healed: the heal is what is wrong, not the site
    "HEAL_CONTRADICTED": CodeMapping("spec_step_unresolvable", False, TARGET_RESOLUTION),
    # a check's baseline file is not there (and the run may not write it: --update-snapshots), or
    # cannot be read as one: the spec's files need a change, the site is not at fault
    "BASELINE_MISSING": CodeMapping("spec_step_unresolvable", False, INPUT),
    "BASELINE_INVALID": CodeMapping("spec_step_unresolvable", False, INPUT),
    # RFC 010's default fallback is an execution failure; for a spec author that reads as
    # "this step could not be carried out", which is spec_step_unresolvable.
    "UNKNOWN": CodeMapping("spec_step_unresolvable", False, EXECUTION),
})


def normalize_code(code: str | None) -> str:
    """A known runtime code; anything else (a typo, a code from a newer module) is UNKNOWN."""
    return code if code is not None and code in RUNTIME_CODES else "UNKNOWN"


def classify(code: str | None) -> CodeMapping:
    """The mapping of a runtime code, falling back to UNKNOWN's (deterministic, never raises)."""
    return RUNTIME_CODES[normalize_code(code)]


class RecoveryLog:
    """The recovery attempts made for one step, capped at MAX_RECOVERY_ATTEMPTS.

    `allows()` says whether another attempt may be made; `record()` refuses (returns False and
    keeps nothing) once the budget is spent, so a loop that forgets to ask still stays bounded.
    """

    def __init__(self, limit: int = MAX_RECOVERY_ATTEMPTS):
        self.limit = limit
        self._attempts: list[RecoveryAttempt] = []

    def allows(self) -> bool:
        return len(self._attempts) < self.limit

    def record(self, strategy: str, outcome: RecoveryOutcome, detail: str = "") -> bool:
        if not self.allows():
            return False
        self._attempts.append(RecoveryAttempt(strategy=strategy, outcome=outcome, detail=detail))
        return True

    def extend(self, attempts: tuple[RecoveryAttempt, ...] | list[RecoveryAttempt]) -> None:
        for attempt in attempts:
            self.record(attempt.strategy, attempt.outcome, attempt.detail)

    @property
    def attempts(self) -> tuple[RecoveryAttempt, ...]:
        return tuple(self._attempts)

    def __len__(self) -> int:
        return len(self._attempts)


def make_failure(code: str | None, *, step_kind: FailureStepKind, message: str, step_index: int | None = None,
                 step_text: str = "", expected: str = "", observed: str = "",
                 loc: Location | None = None, screenshot: str | None = None, parent: str | None = None,
                 recovery: tuple[RecoveryAttempt, ...] = (), candidates: tuple[dict[str, Any], ...] = (),
                 context: dict[str, Any] | None = None, baseline: Baseline | None = None,
                 violations: tuple[Violation, ...] = (), diff: str = "") -> Failure:
    """A Failure whose class and `retryable` come from the table, never from the caller."""
    runtime_code = normalize_code(code)
    mapping = RUNTIME_CODES[runtime_code]
    return Failure(
        failure_class=mapping.failure_class,
        runtime_code=runtime_code,
        retryable=mapping.retryable,
        step_kind=step_kind,
        message=message,
        step_index=step_index,
        step_text=step_text,
        expected=expected,
        observed=observed,
        path=loc.path if loc else None,
        line=loc.line if loc else None,
        col=loc.col if loc else None,
        screenshot=screenshot,
        parent=parent,
        recovery=tuple(recovery[:MAX_RECOVERY_ATTEMPTS]),
        max_recovery_attempts=MAX_RECOVERY_ATTEMPTS,
        candidates=tuple(candidates),
        context=dict(context or {}),
        baseline=baseline,
        violations=tuple(violations),
        diff=diff,
    )
