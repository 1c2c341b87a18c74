"""What rules and attempts come to, and the one answer to "is the browser gone?", without a browser."""

from __future__ import annotations

from typing import Any, cast

import pytest

from flowwalk import events as ev
from flowwalk.browser.errors import BrowserCrashed, InvalidSelector, PageGone, PageUnreadable, TimedOut
from flowwalk.errors import Location
from flowwalk.model import Rule, Scenario, Step
from flowwalk.walk import boundary
from flowwalk.walk.outcomes import (parent_gate, rule_finished, scenario_status, skipped_steps, will_retry)
from flowwalk.walk.recovery import make_failure

LOC = Location("specs/shop.rules.yaml", 3, 1)


def rule(name: str, *parents: str, steps: tuple[Step, ...] = ()) -> Rule:
    return Rule(name=name, loc=LOC, steps=steps, parents=parents)


SCENARIO = Scenario(id="specs/shop.rules.yaml", name="shop", source="specs/shop.rules.yaml", kind="rules",
                    loc=LOC, entry_url=None, rules=(rule("login"), rule("cart", "login")))


def finished(name: str, status: str, failure: ev.Failure | None = None) -> ev.RuleFinished:
    return rule_finished(SCENARIO, rule(name), 1, status, 12.34, failure=failure)


# --- parent gating ------------------------------------------------------------------------------


def test_a_rule_whose_parents_passed_or_flaked_is_not_gated() -> None:
    results = {"login": finished("login", "passed"), "menu": finished("menu", "flaky")}
    assert parent_gate(rule("cart", "login", "menu"), results) is None


def test_a_failed_parent_skips_the_child_with_the_parents_root_cause() -> None:
    root = make_failure("NAVIGATION_BLOCKED", step_kind="action", message="left the allowlist", loc=LOC)
    gated = parent_gate(rule("cart", "login"), {"login": finished("login", "failed", root)})
    assert gated is not None
    assert gated.parent == "login" and gated.step_kind == "parent_failed"
    assert gated.message == "parent rule 'login' did not pass (failed)"
    assert (gated.runtime_code, gated.failure_class, gated.retryable) == (
        root.runtime_code, root.failure_class, root.retryable)


def test_the_first_parent_that_did_not_pass_is_named_and_one_not_run_has_no_root() -> None:
    results = {"login": finished("login", "passed"), "stock": finished("stock", "skipped")}
    gated = parent_gate(rule("cart", "login", "stock", "ghost"), results)
    assert gated is not None and gated.parent == "stock" and gated.observed == "skipped"
    ghost = parent_gate(rule("cart", "ghost"), results)
    assert ghost is not None and ghost.observed == "not run" and ghost.runtime_code == "UNKNOWN"


# --- rule and scenario results ------------------------------------------------------------------


def test_a_pass_after_an_earlier_failure_is_flaky() -> None:
    r = rule_finished(SCENARIO, rule("login"), 2, "passed", 1.0,
                      earlier_failures=frozenset({SCENARIO.test_id(rule("login"))}))
    assert r.status == "flaky" and r.attempt == 2
    assert finished("login", "passed").status == "passed"
    assert finished("login", "passed").duration_ms == 12.3


@pytest.mark.parametrize("statuses, attempt, expected", [
    (("passed", "failed"), 1, "failed"),
    (("passed", "skipped"), 1, "passed"),
    (("passed",), 2, "flaky"),
    (("flaky", "passed"), 1, "flaky"),
    (("skipped", "skipped"), 1, "skipped"),
    ((), 1, "skipped"),
])
def test_scenario_status(statuses: tuple[str, ...], attempt: int, expected: str) -> None:
    assert scenario_status([finished(f"r{i}", s) for i, s in enumerate(statuses)], attempt) == expected


def test_only_a_failed_attempt_with_retries_left_and_time_is_retried() -> None:
    assert will_retry("failed", 1, 1)
    assert not will_retry("failed", 2, 1)
    assert not will_retry("passed", 1, 3)
    assert not will_retry("failed", 1, 3, run_timed_out=True)
    assert not will_retry("failed", 1, 3, cancelled=True)


def test_skipped_steps_are_numbered_from_one_and_can_start_after_a_step() -> None:
    steps = (Step(loc=LOC, text="click 'Buy'"), Step(loc=LOC, text="expect text 'Thanks'"))
    assert skipped_steps(steps) == ("step 1 (click 'Buy')", "step 2 (expect text 'Thanks')")
    assert skipped_steps(steps, after=1) == ("step 2 (expect text 'Thanks')",)


# --- the boundary -------------------------------------------------------------------------------


class FakeBrowser:
    def __init__(self, alive: bool = True):
        self.alive = alive

    def is_alive(self) -> bool:
        return self.alive


class FakeSession:
    """The answer of PageSession the boundary reads: its own crash flag."""

    def __init__(self, crashed: bool = False):
        self.crashed = crashed


def is_gone(exc: BaseException | None, session: FakeSession | None = None, browser: FakeBrowser | None = None) -> bool:
    return boundary.gone(exc, cast(Any, session), cast(Any, browser))


def test_a_crash_or_a_dead_browser_is_gone() -> None:
    assert is_gone(BrowserCrashed("x"))
    assert is_gone(ValueError("x"), FakeSession(), FakeBrowser(alive=False))
    assert is_gone(None, FakeSession(crashed=True), FakeBrowser())


def test_a_page_the_site_closed_is_not_gone_but_a_crash_the_session_saw_is() -> None:
    # the page API raises BrowserCrashed for a closed page only the session can call a crash
    # (tests/unit/test_browser_errors.py); a PageGone that reaches the walker is the site's doing
    assert not is_gone(PageGone("Target page, context or browser has been closed"), FakeSession(), FakeBrowser())
    assert is_gone(BrowserCrashed("the browser or page crashed: Target closed"), FakeSession(), FakeBrowser())


def test_a_browser_that_raises_when_asked_is_gone() -> None:
    class Dying(FakeBrowser):
        def is_alive(self) -> bool:
            raise RuntimeError("connection reset")

    assert is_gone(ValueError("x"), FakeSession(), Dying())


def test_page_errors_get_their_runtime_code_and_read_as_playwright_named_them() -> None:
    timed_out = TimedOut("Locator.click: Timeout 500ms exceeded.")
    assert boundary.runtime_code(timed_out, "ACTION_REJECTED") == "TIMEOUT"
    assert boundary.runtime_code(InvalidSelector("a[", "Unexpected token"), "INTERNAL") == "ACTION_REJECTED"
    assert boundary.runtime_code(PageUnreadable("Element is not attached"), "INTERNAL") == "INTERNAL"
    assert boundary.short(ValueError("first\nsecond")) == "ValueError: first"
    assert boundary.short(timed_out) == "TimeoutError: Locator.click: Timeout 500ms exceeded."
    assert boundary.short(PageGone("Target closed", origin="TargetClosedError")) == "TargetClosedError: Target closed"


def test_every_unit_that_fails_goes_through_one_envelope() -> None:
    from flowwalk.walk.outcomes import StepFailed, Unit

    step = Step(loc=LOC, text="expect visible '#saved'")
    failed = StepFailed("EXPECT_STATE_MISMATCH", "not visible", expected="visible", observed="hidden")
    made = Unit.of(3, step, "observation_or_assertion").failure(failed, context={"url": "x"})
    assert (made.failure_class, made.runtime_code, made.retryable) == ("assertion_failed", "EXPECT_STATE_MISMATCH", False)
    assert (made.step_index, made.step_text, made.line, made.expected, made.context) == (
        3, step.text, LOC.line, "visible", {"url": "x"})
    # a failure that repeats its cause (a parent rule's, a session setup's) keeps the cause's class
    root = Unit("action").failure(StepFailed("NAVIGATION_BLOCKED", "left"))
    repeated = Unit("parent_failed", LOC).failure(StepFailed("NAVIGATION_BLOCKED", "parent did not pass"), like=root,
                                                  code="ELEMENT_NOT_FOUND")
    assert (repeated.runtime_code, repeated.failure_class, repeated.retryable) == (
        "ELEMENT_NOT_FOUND", root.failure_class, root.retryable)


def test_a_unit_is_called_once_and_what_it_raised_is_its_failure() -> None:
    from flowwalk.walk.outcomes import StepFailed

    class Attempt:
        session, browser = FakeSession(), FakeBrowser()

    def raising(exc: BaseException) -> Any:
        def run() -> None:
            raise exc
        return run

    attempt = cast(Any, Attempt())
    assert boundary.call(attempt, lambda: None, "INTERNAL") is None
    own = StepFailed("TIMEOUT", "late")
    assert boundary.call(attempt, raising(own), "INTERNAL") is own
    page = boundary.call(attempt, raising(TimedOut("Locator.click: Timeout 500ms exceeded.")), "ACTION_REJECTED")
    assert page is not None and (page.code, page.message) == ("TIMEOUT", "TimeoutError: Locator.click: Timeout 500ms exceeded.")
    with pytest.raises(boundary.Halt):
        boundary.call(attempt, raising(BrowserCrashed("gone")), "INTERNAL")
