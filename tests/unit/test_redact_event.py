"""The last gate (walk/context.py `redact_event`): secrets leave no event, and the event stays readable."""

from __future__ import annotations

from flowwalk import events as ev
from flowwalk.spec.variables import Redactor
from flowwalk.walk.context import redact_event


def _step(status: str = "passed", text: str = "expect text_contains 'pass phrase'") -> ev.StepFinished:
    failure = ev.Failure(failure_class="assertion_failed", runtime_code="EXPECT_STATE_MISMATCH", retryable=False,
                         step_kind="observation_or_assertion", message="observed 'the pass is wrong'",
                         observed="'the pass is wrong'") if status == "failed" else None
    return ev.StepFinished(scenario_id="a.flow.yaml#a", rule="a", test_id="a.flow.yaml#a", attempt=1, index=1,
                           text=text, kind="expect", role="body", status=status,  # type: ignore[arg-type]
                           duration_ms=3.0, path="a.flow.yaml", line=3, failure=failure,
                           detail={"observed": "pass"})


def test_a_short_secret_inside_a_vocabulary_word_is_not_redacted_there() -> None:
    # "ass" is a secret here (a weak one, but users have them): it is inside "passed" and
    # "assertion_failed", which must stay what they are
    redact = Redactor(["ass"]).text
    passed = redact_event(_step("passed"), redact)
    assert isinstance(passed, ev.StepFinished) and (passed.kind, passed.role, passed.status) == (
        "expect", "body", "passed")
    failed = redact_event(_step("failed"), redact)
    assert isinstance(failed, ev.StepFinished) and failed.status == "failed"
    assert failed.failure is not None and failed.failure.failure_class == "assertion_failed"
    assert failed.failure.step_kind == "observation_or_assertion"
    # every free text still loses the secret
    assert "ass" not in failed.text and "ass" not in failed.failure.message and "ass" not in failed.failure.observed
    assert "ass" not in str(failed.detail)


def test_the_redacted_events_read_back() -> None:
    redact = Redactor(["pass", "x"]).text   # "x" is in "expect", and in no free text here
    for original in (_step("passed"), _step("failed")):
        redacted = redact_event(original, redact)
        again = ev.from_json(ev.StepFinished, ev.to_json(redacted))
        assert (again.kind, again.status) == (original.kind, original.status)
