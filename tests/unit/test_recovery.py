"""The runtime-code table: exhaustive, deterministic, and bounded recovery records."""

from __future__ import annotations

import subprocess
import sys

from flowwalk.errors import Location
from flowwalk.model import FAILURE_CLASSES
from flowwalk.walk.recovery import (
    MAX_RECOVERY_ATTEMPTS,
    RUNTIME_CODES,
    RecoveryLog,
    classify,
    make_failure,
    normalize_code,
)

# The codes the walker, the checks and the run loop produce (issue 3 point 5 + the walker task).
EXPECTED = {
    "ELEMENT_NOT_FOUND": "spec_step_unresolvable",
    "AMBIGUOUS_TARGET": "spec_step_unresolvable",
    "STALE_REFERENCE": "spec_step_unresolvable",
    "TIMEOUT": "spec_step_unresolvable",
    "ACTION_REJECTED": "spec_step_unresolvable",
    "NAVIGATION_BLOCKED": "spec_step_unresolvable",
    "EXPECT_STATE_MISMATCH": "assertion_failed",
    "VERIFICATION_FAILED": "assertion_failed",
    "VARIABLE_MISSING": "credential_rejected",
    "BROWSER_CRASHED": "infrastructure_error",
    "CANCELLED": "infrastructure_error",
    "RUN_TIMEOUT": "infrastructure_error",
    "INTERNAL": "infrastructure_error",
    # issue 39: the readiness wait ran out; nothing was walked (the skip reason decides exit 7)
    "SITE_NOT_READY": "infrastructure_error",
    "MODEL_UNAVAILABLE": "agent_uncertain",
    "MODEL_INVALID_ANSWER": "agent_uncertain",
    "HEAL_CONTRADICTED": "spec_step_unresolvable",
    # issue 28: a baseline not there (and not to be written) or not readable: the spec's files
    "BASELINE_MISSING": "spec_step_unresolvable",
    "BASELINE_INVALID": "spec_step_unresolvable",
    "QUOTA_EXCEEDED": "quota_exceeded",
    "UNKNOWN": "spec_step_unresolvable",
}


def test_every_code_maps_to_the_documented_failure_class() -> None:
    assert {code: m.failure_class for code, m in RUNTIME_CODES.items()} == EXPECTED


def test_every_failure_class_is_reachable_and_valid() -> None:
    classes = {m.failure_class for m in RUNTIME_CODES.values()}
    assert classes == set(FAILURE_CLASSES)


def test_only_assertion_codes_claim_the_site_misbehaved() -> None:
    alerting = {code for code, m in RUNTIME_CODES.items() if m.failure_class == "assertion_failed"}
    assert alerting == {"EXPECT_STATE_MISMATCH", "VERIFICATION_FAILED"}


def test_rfc010_categories_of_its_own_codes() -> None:
    assert classify("ELEMENT_NOT_FOUND").category == "Target Resolution Failure"
    assert classify("STALE_REFERENCE").category == "Target Resolution Failure"
    assert classify("TIMEOUT").category == "Execution Failure"
    assert classify("UNKNOWN").category == "Execution Failure"
    assert classify("EXPECT_STATE_MISMATCH").category == "Verification Failure"


def test_retryable_flags() -> None:
    assert classify("TIMEOUT").retryable is True
    assert classify("BROWSER_CRASHED").retryable is True
    assert classify("EXPECT_STATE_MISMATCH").retryable is False
    assert classify("VARIABLE_MISSING").retryable is False
    assert classify("NAVIGATION_BLOCKED").retryable is False


def test_unknown_codes_fall_back_to_unknown() -> None:
    assert normalize_code("NO_SUCH_CODE") == "UNKNOWN"
    assert normalize_code(None) == "UNKNOWN"
    assert classify("element_not_found") == RUNTIME_CODES["UNKNOWN"]  # codes are exact, not case-folded
    failure = make_failure("NO_SUCH_CODE", step_kind="action", message="boom")
    assert failure.runtime_code == "UNKNOWN"
    assert failure.failure_class == "spec_step_unresolvable"


def test_table_is_read_only() -> None:
    try:
        RUNTIME_CODES["TIMEOUT"] = RUNTIME_CODES["INTERNAL"]  # type: ignore[index]
    except TypeError:
        pass
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("the runtime-code table accepted a write")
    assert classify("TIMEOUT").failure_class == "spec_step_unresolvable"


def test_mapping_is_identical_in_a_fresh_process() -> None:
    """Deterministic across processes: no hash order, no environment leaks into the table."""
    script = ("from flowwalk.walk.recovery import RUNTIME_CODES as T;"
              "print(sorted((k, v.failure_class, v.retryable, v.category) for k, v in T.items()))")
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    local = str(sorted((k, v.failure_class, v.retryable, v.category) for k, v in RUNTIME_CODES.items()))
    assert runs == {local + "\n"}


def test_failure_takes_class_and_location_from_the_table_and_step() -> None:
    loc = Location("specs/login.flow.yaml", 12, 7)
    failure = make_failure("VARIABLE_MISSING", step_kind="setup", message="no value for PASSWORD", loc=loc,
                           step_index=3, step_text="act fill 'password'")
    assert (failure.failure_class, failure.retryable, failure.runtime_code) == (
        "credential_rejected", False, "VARIABLE_MISSING")
    assert (failure.path, failure.line, failure.col) == ("specs/login.flow.yaml", 12, 7)
    assert failure.max_recovery_attempts == MAX_RECOVERY_ATTEMPTS == 3


def test_recovery_log_is_bounded() -> None:
    log = RecoveryLog()
    for i in range(5):
        log.record("retry_redo", "failed", f"round {i + 1}")
    assert len(log) == MAX_RECOVERY_ATTEMPTS
    assert [a.detail for a in log.attempts] == ["round 1", "round 2", "round 3"]
    assert log.allows() is False
    assert log.record("dismiss_and_retry", "recovered") is False


def test_make_failure_caps_recovery_attempts() -> None:
    log = RecoveryLog(limit=10)
    for i in range(6):
        log.record("retry_redo", "failed", str(i))
    failure = make_failure("TIMEOUT", step_kind="guard", message="x", recovery=log.attempts)
    assert len(failure.recovery) == MAX_RECOVERY_ATTEMPTS
