"""The walker's time, values and stop state, without a browser: Budget, Bindings, AttemptControl."""

from __future__ import annotations

import pytest

from flowwalk.cooperative import CancelToken
from flowwalk.errors import Location
from flowwalk.model import Rule, Scenario
from flowwalk.settings import Secrets, Settings
from flowwalk.spec.variables import Redactor
from flowwalk.walk.attempt import EVIDENCE_GRACE_MS, EVIDENCE_MIN_MS, AttemptControl, Bindings, Budget
from flowwalk.walk.context import RunContext
from flowwalk.walk.outcomes import StepFailed


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


# --- Budget -------------------------------------------------------------------------------------


def test_cap_ms_is_what_is_wanted_when_nothing_is_shorter() -> None:
    assert Budget(clock=Clock()).cap_ms(1500) == 1500.0


def test_cap_ms_is_cut_by_the_run_and_the_rule_whichever_ends_first() -> None:
    clock = Clock(100.0)
    run = Budget(run_deadline=102.0, clock=clock)          # 2 s of the run left
    assert run.cap_ms(5000) == pytest.approx(2000)
    rule = run.for_rule(500)                               # the rule ends in 0.5 s
    assert rule.rule_deadline == pytest.approx(100.5)
    assert rule.cap_ms(5000) == pytest.approx(500)
    clock.now = 101.0                                      # past the rule's end: nothing left, never negative
    assert rule.cap_ms(5000) == 0.0
    assert run.cap_ms(5000) == pytest.approx(1000)


def test_for_rule_without_a_timeout_keeps_only_the_run_deadline() -> None:
    clock = Clock()
    budget = Budget(run_deadline=110.0, clock=clock).for_rule(800).for_rule(None)
    assert budget.rule_deadline is None and budget.run_deadline == 110.0


def test_for_rule_counts_from_when_the_rule_started() -> None:
    budget = Budget(clock=Clock(100.0)).for_rule(2000, started=99.0)
    assert budget.cap_ms(10_000) == pytest.approx(1000)


def test_over_and_spent_follow_the_deadlines() -> None:
    clock = Clock(100.0)
    budget = Budget(run_deadline=103.0, clock=clock).for_rule(1000)
    assert not budget.rule_over() and not budget.run_over() and not budget.spent()
    clock.now = 101.0
    assert budget.rule_over() and budget.spent() and not budget.run_over()
    clock.now = 103.0
    assert budget.run_over()
    assert budget.run_left_ms() == pytest.approx(0.0)
    assert Budget(clock=clock).run_left_ms() is None


def test_evidence_gets_its_own_limit_the_rule_grace_and_never_less_than_the_minimum() -> None:
    clock = Clock(100.0)
    budget = Budget(run_deadline=200.0, clock=clock).for_rule(1000)
    assert budget.evidence_ms(500) == 500
    # the rule's time plus the grace bounds a long piece of evidence
    assert budget.evidence_ms(10_000) == pytest.approx(1000 + EVIDENCE_GRACE_MS)
    clock.now = 110.0    # the rule is long over: still the minimum, so a failure can say why
    assert budget.evidence_ms(10_000) == EVIDENCE_MIN_MS
    clock.now = 199.9    # 100 ms of the run left: the minimum again
    assert Budget(run_deadline=200.0, clock=clock).evidence_ms(10_000) == EVIDENCE_MIN_MS


def test_evidence_is_skipped_when_the_run_or_the_rule_and_its_grace_are_spent() -> None:
    clock = Clock(100.0)
    run = Budget(run_deadline=100.2, clock=clock)
    assert run.evidence_skip() == "the run timeout has (nearly) passed"
    rule = Budget(clock=clock).for_rule(1000)
    assert rule.evidence_skip() is None
    clock.now = 101.0 + (EVIDENCE_GRACE_MS - EVIDENCE_MIN_MS) / 1000 + 0.01
    assert "the rule's time is spent" in (rule.evidence_skip() or "")


# --- Bindings -----------------------------------------------------------------------------------


def bindings(variables: dict[str, str], secrets: dict[str, str] | None = None,
             file_secrets: tuple[str, ...] = ()) -> Bindings:
    run_secrets = Secrets(secrets or {})
    return Bindings(variables, run_secrets, Redactor(run_secrets.values()), file_secrets)


def test_placeholders_resolve_to_plain_values_and_extracted_ones() -> None:
    b = bindings({"USER": "ada", "BASE_URL": "http://127.0.0.1:1"})
    assert b.subst("{{BASE_URL}}/u/{{USER}}") == "http://127.0.0.1:1/u/ada"
    b.store("ORDER", "A-17")
    assert b.subst("order {{ORDER}}") == "order A-17"
    assert b.subst(None) is None
    assert b.text("no placeholders") == "no placeholders"


def test_a_missing_variable_fails_the_step_naming_it() -> None:
    with pytest.raises(StepFailed) as caught:
        bindings({}).subst("{{A}} and {{B}}")
    assert caught.value.code == "VARIABLE_MISSING"
    assert caught.value.message == "no value for {{A}}, {{B}}"
    assert caught.value.expected == "a value for A, B"


def test_a_secret_resolves_only_where_asked_and_is_remembered_as_typed() -> None:
    b = bindings({}, {"PASSWORD": "hunter22"})
    with pytest.raises(StepFailed) as caught:
        b.subst("{{PASSWORD}}")
    assert "a secret is only resolved in the value of a fill or press step" in caught.value.message
    assert not b.typed_secret
    assert b.subst("{{PASSWORD}}", secrets=True) == "hunter22"
    assert b.typed_secret
    assert "PASSWORD" not in b.plain_values()


def test_a_file_secret_takes_its_value_from_the_variables_and_is_redacted() -> None:
    b = bindings({"TOKEN": "tok-123456", "USER": "ada"}, file_secrets=("TOKEN",))
    assert b.plain_values() == {"USER": "ada"}
    assert b.subst("{{TOKEN}}", secrets=True) == "tok-123456"
    assert b.redact("sent tok-123456 for ada") == "sent *** for ada"


def test_run_secrets_are_redacted_and_an_extract_cannot_unmask_a_secret_name() -> None:
    b = bindings({}, {"PASSWORD": "hunter22"})
    assert b.redact("pw=hunter22") == "pw=***"
    b.store("PASSWORD", "read from the page")
    assert "PASSWORD" not in b.plain_values()


def test_bindings_for_a_scenario_let_the_run_override_the_file() -> None:
    loc = Location("specs/x.rules.yaml", 1, 1)
    scenario = Scenario(id="specs/x.rules.yaml", name="x", source="specs/x.rules.yaml", kind="rules", loc=loc,
                        entry_url=None, rules=(Rule(name="r", loc=loc, steps=()),),
                        variables={"USER": "from-file", "ONLY_FILE": "f"})
    run = RunContext.create(Settings(variables={"USER": "from-run"}, base_url="http://127.0.0.1:9/"))
    b = Bindings.for_scenario(scenario, run)
    assert b.plain_values() == {"USER": "from-run", "ONLY_FILE": "f", "BASE_URL": "http://127.0.0.1:9"}


# --- AttemptControl -----------------------------------------------------------------------------


def control(*, timeout_s: float = 0.0, cancel: CancelToken | None = None) -> AttemptControl:
    return AttemptControl(RunContext.create(Settings(run_timeout_s=timeout_s), cancel=cancel))


def test_nothing_stops_a_fresh_attempt() -> None:
    c = control()
    assert c.poll() is None
    assert (c.crashed, c.run_timed_out, c.cancelled, c.stop_reason) == (False, False, False, None)


def test_a_cancel_is_recorded_once_and_then_skips_every_rule() -> None:
    cancel = CancelToken()
    c = control(cancel=cancel)
    cancel.cancel()
    assert c.poll() == "cancelled" and c.cancelled
    assert c.poll() == "cancelled"


def test_a_passed_run_deadline_stops_with_run_timeout() -> None:
    c = control(timeout_s=1e-9)
    assert c.poll() == "run_timeout" and c.run_timed_out


def test_a_setup_failure_stops_the_rest_saying_why() -> None:
    c = control()
    c.after_setup_failure()
    assert c.stop_reason == "setup_failed"
    crashed = control()
    crashed.mark_crashed()
    crashed.after_setup_failure()
    assert crashed.stop_reason == "browser_crashed"
    # a reason already given is kept
    timed = control()
    timed.mark_run_timeout()
    timed.after_setup_failure()
    assert timed.stop_reason == "run_timeout"


def test_a_run_timeout_in_the_entry_navigation_does_not_stop_by_itself() -> None:
    c = control()
    c.mark_run_timeout(stop=False)
    assert c.run_timed_out and c.stop_reason is None
