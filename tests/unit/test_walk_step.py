"""The step envelope, the guard split and scope inheritance, without a browser.

The envelope runs against a fake session (the few PageSession answers it reads) and handlers
written here, so what is tested is the envelope itself: timing, failure classes, optional
steps, the halt on a dead browser, deadlines and the blame of a late navigation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, cast

import pytest

from flowwalk import events as ev
from flowwalk.browser.errors import BrowserCrashed, NavigationBlocked
from flowwalk.errors import Location
from flowwalk.model import Act, Expect, Goto, Rule, Scenario, Step
from flowwalk.settings import Settings
from flowwalk.walk.attempt import Attempt, Budget, RuleState
from flowwalk.walk.boundary import Halt
from flowwalk.walk.context import RunContext
from flowwalk.walk.outcomes import StepFailed, StepResult
from flowwalk.walk.rule import scope_of, split_guards
from flowwalk.walk.hooks import STEP_HOOKS, StepCall, StepHook
from flowwalk.walk.step import Handler, run_step

SPEC = "specs/shop.rules.yaml"


def at(line: int) -> Location:
    return Location(SPEC, line, 5)


def click(line: int = 10, **kw: Any) -> Act:
    return Act(loc=at(line), text="click '#buy'", action="click", selector="#buy", **kw)


def expect(line: int = 11, **kw: Any) -> Expect:
    return Expect(loc=at(line), text="expect text_contains 'Thanks'", kind="text_contains", value="Thanks", **kw)


def goto(line: int = 9) -> Goto:
    return Goto(loc=at(line), text="goto '/shop'", url="/shop")


class FakeBrowser:
    def __init__(self) -> None:
        self.alive = True

    def is_alive(self) -> bool:
        return self.alive


class FakeSession:
    """What the envelope and the failure evidence ask of a PageSession, answered from fields."""

    def __init__(self) -> None:
        self.crashed = False
        self.blocked: NavigationBlocked | None = None
        self.evidence_asked = 0
        self.dialog_count = 0
        self.dialog_plan = None
        self.router = None

    def check_navigation(self, pump: bool = True) -> None:
        if self.blocked is not None:
            raise self.blocked

    def uncommitted(self) -> str | None:
        return None

    def evidence(self, timeout_ms: float | None = 2000) -> dict[str, Any]:
        self.evidence_asked += 1
        return {"title": "Shop", "url": "http://127.0.0.1:1/shop"}

    def a11y_snapshot(self, selector: str | None = None, limit: int = 0, timeout_ms: float = 0) -> str:
        return "- heading \"Shop\" [level=1]"

    def last_click(self, selector: str | None = None, timeout_ms: float = 0) -> dict[str, Any] | None:
        return None


class Walk:
    """One attempt over a fake session, with the events it emitted."""

    def __init__(self, tmp_path: Path, steps: tuple[Step, ...] = (), *, run_timeout_s: float = 0.0,
                 rule_timeout_ms: int | None = None):
        self.rule = Rule(name="checkout", loc=at(3), steps=steps, timeout_ms=rule_timeout_ms)
        scenario = Scenario(id=SPEC, name="shop", source=SPEC, kind="rules", loc=at(1), entry_url=None,
                            rules=(self.rule,))
        settings = Settings(out_dir=str(tmp_path), run_timeout_s=run_timeout_s)
        self.events: list[ev.Event] = []
        self.browser = FakeBrowser()
        self.session = FakeSession()
        self.attempt = Attempt(scenario, cast(Any, self.browser), settings, RunContext.create(settings), 1,
                               self.events.append)
        self.attempt.session = cast(Any, self.session)
        self.state = RuleState(rule=self.rule, scope=None, budget=self.attempt.budget.for_rule(rule_timeout_ms),
                               observe_ms=1000, guard_ms=200, dismiss=())

    def run(self, index: int, step: Step, handler: Callable[..., None], *, role: str = "body",
            hooks: tuple[type[StepHook], ...] = STEP_HOOKS) -> StepResult:
        handlers: dict[type[Step], Handler] = {type(step): handler}
        return run_step(self.attempt, self.state, index, step, role=role, handlers=handlers, hooks=hooks)

    @property
    def finished(self) -> list[ev.StepFinished]:
        return [e for e in self.events if isinstance(e, ev.StepFinished)]


def passes(attempt: Attempt, state: RuleState, step: Step, role: str, result: StepResult) -> None:
    result.detail["seen"] = True


def fails_with(code: str) -> Callable[..., None]:
    def handler(attempt: Attempt, state: RuleState, step: Step, role: str, result: StepResult) -> None:
        raise StepFailed(code, f"{code} on purpose", expected="it to work", observed="it did not")
    return handler


def raises(exc: BaseException) -> Callable[..., None]:
    def handler(attempt: Attempt, state: RuleState, step: Step, role: str, result: StepResult) -> None:
        raise exc
    return handler


def test_a_passing_step_emits_one_record_with_what_the_handler_saw(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    result = walk.run(2, click(), passes)
    assert result.status == "passed"
    [record] = walk.finished
    assert (record.index, record.kind, record.role, record.status, record.line) == (2, "act", "body", "passed", 10)
    assert record.detail == {"seen": True} and record.failure is None
    assert record.test_id == f"{SPEC}/checkout" and record.duration_ms >= 0
    assert walk.state.last_act == (2, click())   # an act is what a later navigation is blamed on


def test_a_step_failure_carries_its_code_class_and_the_pages_evidence(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    result = walk.run(3, expect(), fails_with("EXPECT_STATE_MISMATCH"))
    failure = result.failure
    assert result.status == "failed" and failure is not None
    assert (failure.runtime_code, failure.failure_class, failure.step_kind) == (
        "EXPECT_STATE_MISMATCH", "assertion_failed", "observation_or_assertion")
    assert (failure.step_index, failure.line, failure.expected) == (3, 11, "it to work")
    assert failure.context["title"] == "Shop" and "a11y_snapshot" in failure.context
    assert walk.finished[0].failure == failure


def test_a_guard_fails_without_gathering_evidence(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    result = walk.run(1, expect(), fails_with("EXPECT_STATE_MISMATCH"), role="guard")
    assert result.failure is not None and result.failure.step_kind == "guard"
    assert result.failure.context == {} and walk.session.evidence_asked == 0


def test_what_the_page_or_playwright_raises_is_a_step_result(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    act_result = walk.run(1, click(), raises(RuntimeError("Element is not attached to the DOM")))
    assert act_result.failure is not None and act_result.failure.runtime_code == "ACTION_REJECTED"
    assert act_result.failure.message == "RuntimeError: Element is not attached to the DOM"
    expect_result = walk.run(2, expect(), raises(ValueError("odd")))
    assert expect_result.failure is not None and expect_result.failure.runtime_code == "INTERNAL"


def test_an_optional_step_that_fails_is_a_warning_finding(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    result = walk.run(4, click(optional=True), fails_with("ELEMENT_NOT_FOUND"))
    assert result.status == "warning" and walk.finished[0].status == "warning"
    [finding] = walk.state.findings
    assert (finding.severity, finding.source, finding.step_index, finding.kind) == ("warning", "step", 4, "act")
    assert finding.message.startswith("optional step 4 (click '#buy') failed: ELEMENT_NOT_FOUND on purpose")


def test_a_dead_browser_emits_the_step_failed_and_halts(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    with pytest.raises(Halt):
        walk.run(2, click(), raises(BrowserCrashed("gone")))
    assert [r.status for r in walk.finished] == ["failed"]
    walk.browser.alive = False
    with pytest.raises(Halt):   # whatever the error says, a browser that is not alive is gone
        walk.run(3, expect(), raises(RuntimeError("Target closed")))


def test_a_passed_rule_deadline_fails_the_step_before_its_handler_runs(tmp_path: Path) -> None:
    walk = Walk(tmp_path, rule_timeout_ms=1000)
    walk.state.budget = Budget(rule_deadline=0.0)   # long past
    result = walk.run(1, click(), raises(AssertionError("the handler must not run")))
    assert result.failure is not None and result.failure.runtime_code == "TIMEOUT"
    assert result.failure.message.startswith("rule timeout of 1000 ms passed")


def test_the_run_deadline_fails_the_step_and_stops_the_attempt(tmp_path: Path) -> None:
    walk = Walk(tmp_path, run_timeout_s=5)
    walk.state.budget = Budget(run_deadline=0.0)
    result = walk.run(1, goto(), passes)
    assert result.failure is not None
    assert (result.failure.runtime_code, result.failure.step_kind) == ("RUN_TIMEOUT", "run_timeout")
    assert walk.attempt.control.run_timed_out and walk.attempt.control.stop_reason == "run_timeout"


def test_a_late_navigation_out_of_the_allowlist_is_blamed_on_the_act_that_caused_it(tmp_path: Path) -> None:
    walk = Walk(tmp_path)
    walk.run(1, click(line=10), passes)
    walk.session.blocked = NavigationBlocked("evil.example", "https://evil.example/")
    result = walk.run(2, expect(line=11), passes)
    failure = result.failure
    assert failure is not None and failure.runtime_code == "NAVIGATION_BLOCKED"
    assert (failure.step_index, failure.line, failure.step_kind) == (1, 10, "action")
    assert failure.observed == "evil.example"


# --- the hooks around a step -------------------------------------------------------------------


def recorder(name: str, told: list[str]) -> type[StepHook]:
    """A feature of its own: a row that notes each phase it is told, and what the step was then."""

    class Noting(StepHook):
        def __init__(self, call: StepCall) -> None:
            super().__init__(call)
            told.append(f"{name} made")

        def before(self) -> None:
            told.append(f"{name} before")

        def arm(self) -> None:
            told.append(f"{name} arm")

        def acted(self) -> None:
            told.append(f"{name} acted")

        def awaited(self) -> None:
            told.append(f"{name} awaited")

        def after(self) -> None:
            told.append(f"{name} after {self.call.result.status}")

    return Noting


def acts_through_its_hooks(told: list[str]) -> Callable[..., None]:
    """An act's handler as actions.act tells its hooks: arm, the action, acted, awaited."""
    def handler(attempt: Attempt, state: RuleState, step: Step, role: str, result: StepResult) -> None:
        assert state.current_hooks is not None
        state.current_hooks.arm()
        told.append("action")
        state.current_hooks.acted()
        state.current_hooks.awaited()
    return handler


def test_a_new_feature_is_a_row_told_each_phase_in_the_order_of_the_rows(tmp_path: Path) -> None:
    walk, told = Walk(tmp_path), []
    rows = (*STEP_HOOKS, recorder("a", told), recorder("b", told))
    walk.run(1, click(), acts_through_its_hooks(told), hooks=rows)
    assert told == ["a made", "b made", "a before", "b before", "a arm", "b arm", "action", "a acted", "b acted",
                    "a awaited", "b awaited", "a after passed", "b after passed"]


def test_a_failed_step_tells_its_hooks_after_its_failure_and_a_halt_tells_them_nothing(tmp_path: Path) -> None:
    walk, told = Walk(tmp_path), []
    walk.run(1, expect(), fails_with("EXPECT_STATE_MISMATCH"), hooks=(recorder("a", told),))
    assert told == ["a made", "a before", "a after failed"]
    told.clear()
    walk.run(2, click(optional=True), fails_with("ELEMENT_NOT_FOUND"), hooks=(recorder("a", told),))
    assert told[-1] == "a after failed"   # an optional step's warning is decided after its hooks
    told.clear()
    with pytest.raises(Halt):
        walk.run(3, click(), raises(BrowserCrashed("gone")), hooks=(recorder("a", told),))
    assert told == ["a made", "a before"]


def test_a_hook_that_fails_before_the_handler_fails_the_step(tmp_path: Path) -> None:
    class Refuses(StepHook):
        def before(self) -> None:
            raise StepFailed("ACTION_REJECTED", "refused by a feature", expected="allowed", observed="refused")

    walk = Walk(tmp_path)
    result = walk.run(1, click(), raises(AssertionError("the handler must not run")), hooks=(Refuses,))
    assert result.failure is not None and result.failure.runtime_code == "ACTION_REJECTED"
    assert [r.status for r in walk.finished] == ["failed"]


# --- guards and scopes --------------------------------------------------------------------------


def test_the_expects_that_open_a_rule_are_its_guards() -> None:
    rule = Rule(name="r", loc=at(1), steps=(expect(1), expect(2), click(3), expect(4)))
    guards, body = split_guards(rule)
    assert [i for i, _ in guards] == [1, 2] and [i for i, _ in body] == [3, 4]


def test_a_rule_of_expects_only_is_all_guards_and_a_flow_has_none() -> None:
    only = Rule(name="r", loc=at(1), steps=(expect(1), expect(2)))
    assert [len(part) for part in split_guards(only)] == [2, 0]
    flow = Rule(name="f", loc=at(1), steps=(expect(1), click(2)), guards_enabled=False)
    assert [len(part) for part in split_guards(flow)] == [0, 2]
    starts_with_act = Rule(name="a", loc=at(1), steps=(click(1), expect(2)))
    assert [len(part) for part in split_guards(starts_with_act)] == [0, 2]


def test_a_page_check_ends_the_guards_so_a_missing_baseline_fails_the_rule() -> None:
    from dataclasses import replace

    shot = replace(expect(2), kind="screenshot")
    rule = Rule(name="r", loc=at(1), steps=(expect(1), shot, expect(3)))
    guards, body = split_guards(rule)
    assert [i for i, _ in guards] == [1] and [i for i, _ in body] == [2, 3]


def rules(*specs: tuple[str, tuple[str, ...], str | None]) -> list[Rule]:
    return [Rule(name=n, loc=at(1), steps=(), parents=p, child_scope=s) for n, p, s in specs]


def test_a_child_scope_applies_to_descendants_not_to_the_rule_itself() -> None:
    dag = rules(("page", (), "#main"), ("panel", ("page",), ".panel"), ("button", ("panel",), None),
                ("other", ("page",), None))
    by = {r.name: r for r in dag}
    assert scope_of(dag, by["page"]) is None
    assert scope_of(dag, by["panel"]) == "#main"
    assert scope_of(dag, by["button"]) == "#main >> .panel"
    assert scope_of(dag, by["other"]) == "#main"


def test_the_first_parent_with_a_scope_wins_and_unscoped_ancestors_pass_theirs_on() -> None:
    dag = rules(("a", (), None), ("b", (), "#b"), ("c", (), "#c"), ("mid", ("b",), None),
                ("child", ("a", "mid", "c"), None), ("orphan", ("missing",), None))
    by = {r.name: r for r in dag}
    assert scope_of(dag, by["child"]) == "#b"
    assert scope_of(dag, by["orphan"]) is None
