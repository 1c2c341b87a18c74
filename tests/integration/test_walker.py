"""The walker against real Chromium and the pages under tests/site/pages/walker/.

Scenarios are built straight from `flowwalk.model` objects (the small builders below), so these
tests exercise the walker alone, not the loaders. Every test runs one `walk_scenario` and reads
what a user would read: the events it emitted.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import time
import zipfile
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

from flowwalk import events as ev
from leakscan import blobs, leaks
from flowwalk.errors import Location
from flowwalk.model import (
    Act,
    Assertion,
    Emit,
    EmitField,
    Expect,
    Extract,
    Goto,
    Retry,
    Rule,
    Scenario,
    Step,
    VerifierRef,
    Wait,
)
from flowwalk.dag import topo_order
from flowwalk.settings import Secrets, Settings, default_executable
from flowwalk.walk.context import RunContext
from flowwalk.walk.evidence import screenshot_name
from flowwalk.walk.outcomes import ScenarioOutcome
from flowwalk.walk.scenario import walk_scenario

pytestmark = pytest.mark.browser

SPEC = "specs/walker.rules.yaml"
_lines = itertools.count(10)


# --- builders (shared with test_run.py) ------------------------------------------------------------


def loc() -> Location:
    return Location(SPEC, next(_lines), 5)


def goto(url: str, **kw: Any) -> Goto:
    return Goto(loc=loc(), text=f"goto {url}", url=url, **kw)


def act(action: str, selector: str | None = None, value: str | None = None, **kw: Any) -> Act:
    what = selector or kw.get("target")
    text = f"act {action} '{what}'" + (f" with '{value}'" if value is not None else "")
    return Act(loc=loc(), text=text, action=action, selector=selector, value=value, **kw)


def click(selector: str | None = None, **kw: Any) -> Act:
    return act("click", selector, **kw)


def fill(selector: str, value: str, **kw: Any) -> Act:
    return act("fill", selector, value, **kw)


def expect(kind: str, value: str | None = None, selector: str | None = None, **kw: Any) -> Expect:
    shown = " ".join(f"'{x}'" for x in (selector, value) if x is not None)
    return Expect(loc=loc(), text=f"expect {kind} {shown}".strip(), kind=kind, value=value, selector=selector, **kw)


def wait_ms(ms: int, **kw: Any) -> Wait:
    return Wait(loc=loc(), text=f"wait {ms} ms", ms=ms, **kw)


def wait_for(selector: str, **kw: Any) -> Wait:
    return Wait(loc=loc(), text=f"wait for '{selector}'", for_selector=selector, **kw)


def extract(selector: str, into: str) -> Extract:
    return Extract(loc=loc(), text=f"extract '{selector}' into {into}", selector=selector, into=into)


def emit(name: str, *fields: EmitField) -> Emit:
    return Emit(loc=loc(), text=f"emit {name}", name=name, fields=fields)


def rule(name: str, *steps: Step, **kw: Any) -> Rule:
    return Rule(name=name, loc=loc(), steps=tuple(steps), **kw)


def scenario(name: str, rules: Sequence[Rule], entry: str | None, **kw: Any) -> Scenario:
    return Scenario(id=f"{SPEC}#{name}", name=name, source=SPEC, kind=kw.pop("kind", "rules"), loc=loc(),
                    entry_url=entry, rules=tuple(rules), **kw)


def flow(name: str, steps: Sequence[Step], entry: str | None, **kw: Any) -> Scenario:
    rule_kw = {k: kw.pop(k) for k in list(kw) if k in ("timeout_ms", "interrupts", "interrupt_selectors",
                                                       "screenshot_on_fail", "verify")}
    flow_rule = Rule(name=name, loc=loc(), steps=tuple(steps), guards_enabled=False, **rule_kw)
    return Scenario(id=f"specs/{name}.flow.yaml", name=name, source=f"specs/{name}.flow.yaml", kind="flow",
                    loc=loc(), entry_url=entry, rules=(flow_rule,), **kw)


def make_settings(out: Path, **kw: Any) -> Settings:
    base = dict(out_dir=str(out), action_timeout_ms=1500, rule_timeout_ms=3000, expect_timeout_ms=3000,
                navigation_timeout_ms=10_000,
                executable=default_executable(), workers=1, retries=0)
    base.update(kw)
    return Settings(**base)


def walk(sc: Scenario, browser: Any, settings: Settings, *, attempt: int = 1,
         run: RunContext | None = None) -> tuple[ScenarioOutcome, list[ev.Event]]:
    events: list[ev.Event] = []
    outcome = walk_scenario(sc, browser, settings, run or RunContext.create(settings), attempt, events.append)
    return outcome, events


def rules_of(events: Sequence[ev.Event]) -> dict[str, ev.RuleFinished]:
    return {e.rule: e for e in events if isinstance(e, ev.RuleFinished)}


def steps_of(events: Sequence[ev.Event], rule_name: str | None = None) -> list[ev.StepFinished]:
    return [e for e in events if isinstance(e, ev.StepFinished) and (rule_name is None or e.rule == rule_name)]


def dump(events: Sequence[ev.Event]) -> str:
    return "\n".join(json.dumps(e.record(), default=str) for e in events)


# --- fixtures -----------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def walker_browser(request: pytest.FixtureRequest, playwright_instance: Any) -> Iterator[Any]:
    """The session's flowwalk Browser (the browser layer's fixture when present)."""
    try:
        shared = request.getfixturevalue("flowwalk_browser")
    except pytest.FixtureLookupError:
        shared = None
    if shared is not None:
        yield shared
        return
    from flowwalk.browser.launch import Browser

    browser = Browser.launch(Settings(executable=default_executable()), playwright_instance)
    yield browser
    browser.close()


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    return tmp_path / "report"


@pytest.fixture()
def page_url(site: Any) -> Any:
    return lambda name: f"{site.url}/walker/{name}"


# --- order and gating ---------------------------------------------------------------------------------


def test_rules_run_in_kahn_order_with_declaration_order_for_ties(walker_browser, out, page_url) -> None:
    rules = [
        rule("child", emit("c"), parents=("parent",)),   # declared before its parent
        rule("zeta", emit("z")),
        rule("parent", emit("p")),
        rule("alpha", emit("a")),
        rule("leaf", emit("l"), parents=("child", "alpha")),
    ]
    _, events = walk(scenario("order", rules, page_url("basic.html")), walker_browser, make_settings(out))
    walked = [e.rule for e in events if isinstance(e, ev.RuleFinished)]
    assert walked == [r.name for r in topo_order(rules)]
    # ready at the start: zeta, parent, alpha (declaration order); child once parent passed
    assert walked.index("zeta") < walked.index("parent") < walked.index("alpha")
    assert walked.index("parent") < walked.index("child") < walked.index("leaf")
    assert walked.index("alpha") < walked.index("leaf")
    assert all(e.status == "passed" for e in rules_of(events).values())


def test_parent_gating_skips_descendants_and_names_the_parent(walker_browser, out, page_url) -> None:
    rules = [
        rule("login", click("#save"), expect("text_contains", "Welcome back", "#status", timeout_ms=300)),
        rule("fine", emit("fine")),
        rule("open-case", click("#bump"), parents=("fine", "login")),
        rule("approve", click("#bump"), parents=("open-case",)),
        rule("independent", click("#bump"), expect("text_contains", "1", "#counter")),
    ]
    outcome, events = walk(scenario("gating", rules, page_url("basic.html")), walker_browser, make_settings(out))
    results = rules_of(events)
    assert results["login"].status == "failed"
    assert results["login"].failure.failure_class == "assertion_failed"
    opened = results["open-case"]
    assert (opened.status, opened.reason) == ("skipped", "parent_failed")
    assert opened.failure.parent == "login"            # the first parent that did not pass, not "fine"
    assert opened.failure.step_kind == "parent_failed"
    assert opened.failure.failure_class == "assertion_failed"   # the root cause's class
    approve = results["approve"]
    assert (approve.status, approve.reason, approve.failure.parent) == ("skipped", "parent_failed", "open-case")
    # the skipped rules never touched the page: the independent rule sees the counter at 1
    assert results["independent"].status == "passed"
    assert not steps_of(events, "open-case") and not steps_of(events, "approve")
    assert outcome.status == "failed"


def test_failed_guard_skips_the_rule_and_abort_fails_it(walker_browser, out, page_url) -> None:
    guarded = rule("guarded", expect("selector_exists", selector="#absent"), click("#bump"))
    child = rule("after-guarded", click("#bump"), parents=("guarded",))
    counter = rule("counter", expect("text_contains", "0", "#counter"), emit("counter"))
    t0 = time.monotonic()
    _, events = walk(scenario("guards", [guarded, child, counter], page_url("basic.html")), walker_browser,
                     make_settings(out))
    results = rules_of(events)
    assert (results["guarded"].status, results["guarded"].reason) == ("skipped", "guard_failed")
    assert results["guarded"].failure.step_kind == "guard"
    assert results["guarded"].skipped_steps == (f"step 2 ({guarded.steps[1].text})",)
    guard_steps = steps_of(events, "guarded")
    assert [s.role for s in guard_steps] == ["guard"]
    assert guard_steps[0].duration_ms < 1500            # the short guard timeout, not the 3 s rule one
    assert (results["after-guarded"].status, results["after-guarded"].reason) == ("skipped", "parent_failed")
    # the guard's body never ran: the counter is still 0 for the next rule
    assert results["counter"].status == "passed"
    assert time.monotonic() - t0 < 6

    aborting = rule("guarded", expect("selector_exists", selector="#absent"), click("#bump"), guard_policy="abort")
    _, events = walk(scenario("guards-abort", [aborting], page_url("basic.html")), walker_browser, make_settings(out))
    result = rules_of(events)["guarded"]
    assert result.status == "failed"
    assert result.failure.step_kind == "guard"
    assert result.failure.step_index == 1
    assert result.failure.context.get("url", "").endswith("basic.html")


def test_retry_redo_replays_the_actions_until_the_delayed_update_lands(walker_browser, out, page_url) -> None:
    steps = (expect("text_contains", "ready", "#status"), click("#refresh"),
             expect("text_contains", "ready", "#status"),
             emit("refreshes", EmitField(name="count", source="text", selector="#refreshes")))
    with_retry = rule("status", *steps, retry=Retry(max=2, delay_ms=1000))
    _, events = walk(scenario("redo", [with_retry], page_url("delayed.html")), walker_browser, make_settings(out))
    result = rules_of(events)["status"]
    assert result.status == "passed"
    assert result.guard_attempts == 2
    replays = [s for s in steps_of(events, "status") if s.detail.get("replay")]
    # only the action was replayed, never the observation or the emit
    assert [(s.index, s.kind) for s in replays] == [(2, "act")]
    emitted = [e for e in events if isinstance(e, ev.EmitRecorded)]
    assert emitted[0].fields["count"] == "2"            # one replay + the real body
    assert any(f.source == "retry_redo" for f in result.findings)

    without = rule("status", *steps)
    _, events = walk(scenario("no-redo", [without], page_url("delayed.html")), walker_browser, make_settings(out))
    result = rules_of(events)["status"]
    assert (result.status, result.reason) == ("skipped", "guard_failed")

    # a budget too small for the update: skipped, with each round in the recovery record
    hopeless = rule("status", expect("text_contains", "ready", "#status"), click("#bump-missing-button"),
                    retry=Retry(max=2, delay_ms=100))
    _, events = walk(scenario("redo-fails", [hopeless], page_url("delayed.html")), walker_browser,
                     make_settings(out, action_timeout_ms=300))
    result = rules_of(events)["status"]
    assert (result.status, result.reason) == ("skipped", "guard_failed")
    assert [a.strategy for a in result.failure.recovery] == ["retry_redo", "retry_redo"]
    assert all(a.outcome == "failed" for a in result.failure.recovery)


# --- interrupts, await, scope --------------------------------------------------------------------------


def test_interrupts_are_dismissed_before_every_action(walker_browser, out, page_url) -> None:
    steps = [click("#open"), click("#buy"), expect("text_contains", "bought", "#result")]
    sc = flow("banner", steps, page_url("banner.html"), dismiss_selectors=("#accept",))
    _, events = walk(sc, walker_browser, make_settings(out))
    assert rules_of(events)["banner"].status == "passed"
    assert steps_of(events)[1].detail.get("dismissed") == 1

    # the same flow with the rule's interrupts paused: the banner blocks the click
    paused = flow("banner", steps, page_url("banner.html"), dismiss_selectors=("#accept",), interrupts="paused")
    _, events = walk(paused, walker_browser, make_settings(out, action_timeout_ms=800))
    result = rules_of(events)["banner"]
    assert result.status == "failed"
    assert (result.failure.step_index, result.failure.runtime_code) == (2, "TIMEOUT")
    assert result.failure.failure_class == "spec_step_unresolvable"

    # a rule override replaces the scenario's (empty) list
    override = flow("banner", steps, page_url("banner.html"), interrupts="override", interrupt_selectors=("#accept",))
    _, events = walk(override, walker_browser, make_settings(out))
    assert rules_of(events)["banner"].status == "passed"


def test_an_acts_interrupts_are_asked_in_its_targets_first_read(walker_browser, out, page_url, monkeypatch) -> None:
    # the gate comes with the pinned selector's count: no read of its own before an act (a read
    # per act on a run with dismiss selectors, the bench's consent corpus), and a click the gate
    # let through still clears the banner before the target is acted on
    from flowwalk.browser.page import Page

    asked: list[list[str]] = []
    original = Page.may_show
    monkeypatch.setattr(Page, "may_show", lambda self, sel: asked.append(list(sel)) or original(self, sel))
    steps = [click("#open"), click("#buy"), expect("text_contains", "bought", "#result")]
    sc = flow("banner", steps, page_url("banner.html"), dismiss_selectors=("#accept",))
    _, events = walk(sc, walker_browser, make_settings(out))
    assert rules_of(events)["banner"].status == "passed"
    assert [s.detail.get("dismissed") for s in steps_of(events)[:2]] == [None, 1]
    assert asked == [["#accept"]]       # the scenario's opening pass only; each act asked in its own read


def test_an_action_that_raises_is_retried_once_after_dismissing(walker_browser, out, page_url) -> None:
    steps = [click("#arm"), click("#buy"), expect("text_contains", "bought", "#result")]
    sc = flow("late", steps, page_url("late-banner.html"), dismiss_selectors=("#consent",))
    _, events = walk(sc, walker_browser, make_settings(out, action_timeout_ms=2500))
    result = rules_of(events)["late"]
    assert result.status == "passed", result.failure
    assert "dismissed" not in steps_of(events)[1].detail     # nothing to dismiss before the click
    recovery = steps_of(events)[1].detail["recovery"]
    assert [(r["strategy"], r["outcome"]) for r in recovery] == [("dismiss_and_retry", "recovered")]

    # no dismiss selectors: nothing to dismiss, so no retry, and the click fails
    bare = flow("late", steps, page_url("late-banner.html"))
    _, events = walk(bare, walker_browser, make_settings(out, action_timeout_ms=1500))
    result = rules_of(events)["late"]
    assert result.status == "failed"
    assert result.failure.recovery == ()


def test_await_waits_for_the_selector_and_fails_the_step_when_it_never_comes(walker_browser, out, page_url) -> None:
    ok = flow("await", [click("#load", await_selector="#late"),
                        expect("selector_exists", selector="#late", timeout_ms=50)], page_url("await.html"))
    _, events = walk(ok, walker_browser, make_settings(out))
    assert rules_of(events)["await"].status == "passed"
    assert steps_of(events)[0].duration_ms >= 500      # the content lands 600 ms after the click

    never = flow("await", [click("#nothing", await_selector="#late"), click("#load")], page_url("await.html"),
                 timeout_ms=800)
    _, events = walk(never, walker_browser, make_settings(out))
    result = rules_of(events)["await"]
    assert result.status == "failed"
    assert (result.failure.runtime_code, result.failure.failure_class) == ("TIMEOUT", "spec_step_unresolvable")
    assert result.failure.step_index == 1
    assert result.skipped_steps == ("step 2 (act click '#load')",)


def test_child_scope_is_inherited_and_composes_through_the_dag(walker_browser, out, page_url) -> None:
    rules = [
        rule("panels", emit("panels"), child_scope=".panel-b"),
        rule("pick-b", click("button.pick"), expect("url_contains", "picked-panel-b"), parents=("panels",)),
        rule("outer", emit("outer"), child_scope=".outer"),
        rule("mid", click("button.pick"), expect("url_contains", "picked-outer-only"), parents=("outer",),
             child_scope=".inner"),
        rule("leaf", click("button.pick"), expect("url_contains", "picked-outer-inner"), parents=("mid",)),
        rule("unscoped", click("button.pick"), expect("url_contains", "picked-stray-inner")),
    ]
    _, events = walk(scenario("scopes", rules, page_url("scope.html")), walker_browser, make_settings(out))
    results = rules_of(events)
    assert {name: r.status for name, r in results.items()} == {n.name: "passed" for n in rules}
    leaf_click = steps_of(events, "leaf")[0]
    assert leaf_click.detail["selector"] == ".outer >> .inner >> button.pick"


def test_a_target_is_found_and_a_broken_selector_healed_within_the_child_scope(walker_browser, out,
                                                                               page_url) -> None:
    """Both panels have a Pick button: only the scope tells them apart, for a step with a target
    only and for one whose pinned selector broke, and the heal written back is the scope's own."""
    rules = [
        rule("panels", emit("panels"), child_scope=".panel-b"),
        rule("by-target", click(target="the Pick button"), expect("url_contains", "picked-panel-b"),
             parents=("panels",)),
        rule("healed", click("button.renamed", target="the Pick button"), expect("url_contains", "picked-panel-b"),
             parents=("panels",)),
    ]
    _, events = walk(scenario("scoped-targets", rules, page_url("scope.html")), walker_browser, make_settings(out))
    results = rules_of(events)
    assert {name: r.status for name, r in results.items()} == {r.name: "passed" for r in rules}, dump(events)
    found = steps_of(events, "by-target")[0]
    assert found.detail["selector"].startswith(".panel-b >> "), found.detail
    (heal,) = [f.heal for f in results["healed"].findings if f.heal is not None]
    assert not heal.new_selector.startswith(".panel-b") and heal.old_selector == "button.renamed"
    assert steps_of(events, "healed")[0].detail["selector"] == f".panel-b >> {heal.new_selector}"


# --- timeouts ---------------------------------------------------------------------------------------------


def test_rule_timeout_bounds_the_rule(walker_browser, out, page_url) -> None:
    rules = [
        rule("slow", click("#bump"), wait_ms(5000), timeout_ms=700),
        rule("observing", click("#bump"), wait_for("#never-there"), timeout_ms=600),
        rule("after", click("#bump"), expect("text_contains", "3", "#counter")),
    ]
    t0 = time.monotonic()
    _, events = walk(scenario("rule-timeouts", rules, page_url("basic.html")), walker_browser, make_settings(out))
    elapsed = time.monotonic() - t0
    results = rules_of(events)
    for name in ("slow", "observing"):
        assert results[name].status == "failed"
        assert results[name].failure.runtime_code == "TIMEOUT"
        assert results[name].failure.failure_class == "spec_step_unresolvable"
        assert results[name].failure.step_index == 2
    assert results["slow"].duration_ms < 2000
    assert results["observing"].duration_ms < 2000
    assert results["after"].status == "passed"
    assert elapsed < 8


def test_run_timeout_fails_the_rule_in_flight_and_skips_the_rest(walker_browser, out, page_url) -> None:
    settings = make_settings(out, run_timeout_s=2.5, rule_timeout_ms=30_000)
    run = RunContext.create(settings)
    rules = [rule("first", click("#bump"), wait_for("#never-there")), rule("second", click("#bump"))]
    t0 = time.monotonic()
    outcome, events = walk(scenario("run-timeout", rules, page_url("basic.html")), walker_browser, settings, run=run)
    assert time.monotonic() - t0 < 6
    results = rules_of(events)
    first = results["first"]
    assert first.status == "failed"
    assert (first.failure.failure_class, first.failure.runtime_code, first.failure.step_kind) == (
        "infrastructure_error", "RUN_TIMEOUT", "run_timeout")
    assert (results["second"].status, results["second"].reason) == ("skipped", "run_timeout")
    assert outcome.run_timed_out and outcome.final


# --- steps, findings, assertions ------------------------------------------------------------------


def test_emits_record_page_state_and_never_fail(walker_browser, out, page_url) -> None:
    fields = (
        EmitField(name="title", source="text", selector="h1"),
        EmitField(name="items", source="count", selector="li.item"),
        EmitField(name="kind", source="attr", selector="#more", attr="data-kind"),
        EmitField(name="classes", source="class", selector="h1"),
        EmitField(name="query", source="value", selector="#q"),
        EmitField(name="ghost_visible", source="is_visible", selector="#ghost"),
        EmitField(name="ghost_text", source="text", selector="#ghost"),
        EmitField(name="doc", source="js", expr="document.title"),
        EmitField(name="broken", source="js", expr="this is not javascript("),
        EmitField(name="where", source="url"),
    )
    rules = [rule("catalogue", emit("catalogue", *fields), expect("text_contains", "Catalogue", "h1"))]
    _, events = walk(scenario("emits", rules, page_url("emit.html")), walker_browser, make_settings(out))
    assert rules_of(events)["catalogue"].status == "passed"
    [record] = [e for e in events if isinstance(e, ev.EmitRecorded)]
    assert record.name == "catalogue"
    f = record.fields
    assert (f["title"], f["items"], f["kind"], f["classes"], f["query"]) == ("Catalogue", 3, "link", "title big", "shoes")
    assert f["ghost_visible"] is False and f["ghost_text"] is None and f["broken"] is None
    assert f["doc"] == "Emit page" and f["where"].endswith("/walker/emit.html")
    step = steps_of(events)[0]
    assert step.status == "passed" and set(step.detail["errors"]) == {"ghost_text", "broken"}


def test_optional_step_failure_is_a_warning_and_the_flow_goes_on(walker_browser, out, page_url) -> None:
    steps = [click("#no-such-button", optional=True), fill("#name", "Ann"), click("#save"),
             expect("text_contains", "saved ann", "#status")]    # text_contains is case-insensitive
    _, events = walk(flow("optional", steps, page_url("basic.html")), walker_browser,
                     make_settings(out, action_timeout_ms=400))
    result = rules_of(events)["optional"]
    assert result.status == "passed"
    assert [(f.severity, f.source, f.step_index) for f in result.findings] == [("warning", "step", 1)]
    assert [s.status for s in steps_of(events)] == ["warning", "passed", "passed", "passed"]


def test_failed_required_step_halts_and_lists_the_rest_as_skipped(walker_browser, out, page_url) -> None:
    steps = [fill("#name", "Ann"), click("#save"), expect("text_contains", "Saved Bob", "#status", timeout_ms=300),
             click("#bump"), goto("done.html")]
    outcome, events = walk(flow("halt", steps, page_url("basic.html")), walker_browser, make_settings(out))
    result = rules_of(events)["halt"]
    assert result.status == "failed" and outcome.status == "failed"
    failure = result.failure
    assert (failure.failure_class, failure.runtime_code, failure.retryable) == (
        "assertion_failed", "EXPECT_STATE_MISMATCH", False)
    assert (failure.step_index, failure.step_text) == (3, steps[2].text)
    assert (failure.path, failure.line, failure.col) == (SPEC, steps[2].loc.line, 5)
    assert "saved bob" in failure.expected.lower() and "Saved Ann" in failure.observed
    assert failure.context["url"].endswith("/walker/basic.html")
    assert "Saved Ann" in failure.context["a11y_snapshot"]
    assert result.skipped_steps == (f"step 4 ({steps[3].text})", f"step 5 ({steps[4].text})")
    assert [s.index for s in steps_of(events)] == [1, 2, 3]
    assert steps_of(events)[2].reads and steps_of(events)[2].reads >= 1
    assert failure.screenshot and re.fullmatch(r"screenshots/[a-z0-9._-]+\.png", failure.screenshot)
    assert (out / failure.screenshot).is_file()
    assert failure.screenshot in result.screenshots


def _in(step: Step, *frames: ev.StepFrame) -> Step:
    return dataclasses.replace(step, frames=frames)


def test_after_each_steps_run_after_a_failure_and_a_second_failure_is_a_finding(walker_browser, out,
                                                                                 page_url) -> None:
    hook = ev.StepFrame(id=1, kind="after_each", title="after each (specs/after_each.steps.yaml)",
                        path="specs/after_each.steps.yaml", line=1, file="specs/after_each.steps.yaml")
    call = ev.StepFrame(id=2, kind="call", title="use save.steps.yaml", path=SPEC, line=4, file="save.steps.yaml")
    steps = [_in(fill("#name", "Ann"), call), _in(click("#save"), call),
             expect("text_contains", "Saved Bob", "#status", timeout_ms=300), click("#bump"),
             _in(expect("text_contains", "Saved Ann", "#status"), hook),
             _in(expect("text_contains", "Saved Eve", "#status", timeout_ms=300), hook),
             _in(goto("done.html"), hook)]
    _, events = walk(flow("teardown", steps, page_url("basic.html")), walker_browser, make_settings(out))
    result = rules_of(events)["teardown"]
    # the test's failure is its own step's; the teardown still ran, up to its own failure
    assert (result.status, result.failure.step_index) == ("failed", 3)
    assert [(s.index, s.status) for s in steps_of(events)] == [(1, "passed"), (2, "passed"), (3, "failed"),
                                                               (5, "passed"), (6, "failed")]
    assert result.skipped_steps == (f"step 4 ({steps[3].text})",
                                    f"step 7 (after each (specs/after_each.steps.yaml) › {steps[6].text})")
    assert [(f.severity, f.step_index) for f in result.findings] == [("warning", 6)]
    assert result.findings[0].message.startswith(
        f"after the test failed, step 6 (after each (specs/after_each.steps.yaml) › {steps[5].text}) failed too: ")
    # every step's record carries the blocks it ran in, for the reports to nest it
    assert [s.frames for s in steps_of(events)][:2] == [(call,), (call,)]
    assert steps_of(events)[3].frames == (hook,)


def test_a_failure_in_a_called_step_names_the_call_and_where_the_step_is_written(walker_browser, out,
                                                                                  page_url) -> None:
    call = ev.StepFrame(id=1, kind="call", title="use check.steps.yaml", path="specs/called.flow.yaml", line=6,
                        file="specs/check.steps.yaml")
    check = dataclasses.replace(expect("text_contains", "Saved Bob", "#status", timeout_ms=300),
                                loc=Location("specs/check.steps.yaml", 4, 5), frames=(call,))
    _, events = walk(flow("called", [fill("#name", "Ann"), click("#save"), check], page_url("basic.html")),
                     walker_browser, make_settings(out))
    failure = rules_of(events)["called"].failure
    assert (failure.path, failure.line) == ("specs/check.steps.yaml", 4)
    assert failure.step_text == f"use check.steps.yaml (at specs/called.flow.yaml:6) › {check.text}"


def test_flow_assertions_are_graded_after_the_flow(walker_browser, out, page_url) -> None:
    steps = [click("#error"), click("#beacon")]
    graded = (
        Assertion(kind="no_console_errors", loc=loc(), text="no_console_errors", severity="warning"),
        Assertion(kind="beacon_fires", loc=loc(), text="beacon_fires ga4 sign_up", severity="critical",
                  vendor="ga4", event="SIGN_UP"),
        Assertion(kind="beacon_fires", loc=loc(), text="beacon_fires ga4 purchase", severity="info",
                  vendor="ga4", event="purchase"),
    )
    _, events = walk(flow("graded", steps, page_url("basic.html"), assertions=graded), walker_browser,
                     make_settings(out))
    result = rules_of(events)["graded"]
    assert result.status == "passed"
    assert sorted((f.severity, f.kind) for f in result.findings) == [
        ("info", "beacon_fires"), ("warning", "no_console_errors")]
    assert "boom from the page" in next(f.message for f in result.findings if f.kind == "no_console_errors")

    critical = (Assertion(kind="beacon_fires", loc=loc(), text="beacon_fires ga4 purchase", severity="critical",
                          vendor="ga4", event="purchase"),)
    _, events = walk(flow("graded", steps, page_url("basic.html"), assertions=critical), walker_browser,
                     make_settings(out))
    result = rules_of(events)["graded"]
    assert result.status == "failed"
    assert (result.failure.failure_class, result.failure.step_kind) == ("assertion_failed", "assertion")
    assert result.failure.line == critical[0].loc.line
    assert "sign_up" in result.failure.observed      # what was captured instead


# --- variables and secrets ---------------------------------------------------------------------------

SECRET = "s3cr3t-T0ken-Xq9"
FILE_SECRET = "f1le-pa55-Zz7"


def test_secrets_are_typed_but_never_leave_the_walker(walker_browser, out, page_url) -> None:
    settings = make_settings(out, secrets=Secrets({"API_TOKEN": SECRET}), variables={"USER": "ann"},
                             trace="on")
    steps = [fill("#user", "{{USER}}"), fill("#token", "{{API_TOKEN}}"), click("#login"),
             expect("text_contains", "Welcome", "#message", timeout_ms=300)]
    outcome, events = walk(flow("secret", steps, page_url("login.html")), walker_browser, settings)
    result = rules_of(events)["secret"]
    assert result.status == "failed" and result.failure.step_index == 4
    # the page echoed the secret: the walker saw it, reported it masked
    assert 'Rejected token "***" for ann' in result.failure.observed
    text = dump(events)
    assert SECRET not in text
    assert "***" in result.failure.context["a11y_snapshot"] or "***" in json.dumps(result.failure.context)
    finished = [e for e in events if isinstance(e, ev.ScenarioFinished)][0]
    assert finished.trace and finished.trace_withheld is None      # kept, scrubbed of the typed secret
    with zipfile.ZipFile(out / finished.trace) as trace:
        members = trace.namelist()
        assert "trace.trace" in members and not any(m.startswith("screencast/") for m in members)
        assert '"value":"***"' in trace.read("trace.trace").decode()   # the fill's value in the action log
    assert leaks(blobs(out), {"API_TOKEN": SECRET}) == []

    # a secret the FILE marks (robot `type secret`): value from the variables, masked the same way
    marked = flow("marked", [fill("#user", "bob"), fill("#token", "{{TOKEN2}}"), click("#login"),
                             expect("text_contains", "Welcome", "#message", timeout_ms=300)],
                  page_url("login.html"), variables={"TOKEN2": FILE_SECRET}, secrets=frozenset({"TOKEN2"}))
    _, events = walk(marked, walker_browser, make_settings(out))
    assert FILE_SECRET not in dump(events)
    assert '"***"' in rules_of(events)["marked"].failure.observed


def test_a_secret_is_resolved_only_in_the_value_of_fill_or_press(walker_browser, out, page_url) -> None:
    settings = make_settings(out, secrets=Secrets({"API_TOKEN": SECRET}))
    steps = [fill("#token", "{{API_TOKEN}}"), expect("text_contains", "{{API_TOKEN}}", "#message", timeout_ms=200)]
    _, events = walk(flow("misplaced", steps, page_url("login.html")), walker_browser, settings)
    result = rules_of(events)["misplaced"]
    assert result.status == "failed"
    assert (result.failure.failure_class, result.failure.runtime_code) == ("credential_rejected", "VARIABLE_MISSING")
    assert "only resolved in the value of a fill or press step" in result.failure.message
    assert SECRET not in dump(events)


def test_extracted_values_feed_later_steps(walker_browser, out, page_url) -> None:
    steps = [fill("#name", "Zed"), click("#save"), extract("#status", "saved"), click("#bump"),
             expect("text_contains", "{{saved}}", "#status")]
    _, events = walk(flow("extract", steps, page_url("basic.html")), walker_browser, make_settings(out))
    assert rules_of(events)["extract"].status == "passed"
    assert steps_of(events)[2].detail["value"] == "Saved Zed"


# --- allowlist and targets ---------------------------------------------------------------------------


def test_navigation_outside_the_allowlist_fails_the_step(walker_browser, out, page_url, site) -> None:
    port = site.url.rsplit(":", 1)[1]
    cases = {
        "link-out": [click("#outside"), expect("url_contains", "done.html")],
        "goto-out": [goto(f"http://localhost:{port}/walker/done.html")],
    }
    for name, steps in cases.items():
        _, events = walk(flow(name, steps, page_url("nav.html")), walker_browser, make_settings(out))
        failure = rules_of(events)[name].failure
        assert failure is not None, name
        assert (failure.failure_class, failure.runtime_code, failure.step_index) == (
            "spec_step_unresolvable", "NAVIGATION_BLOCKED", 1), name
        assert failure.observed == "localhost"
    inside = flow("inside", [click("#inside"), expect("url_contains", "done.html")], page_url("nav.html"))
    _, events = walk(inside, walker_browser, make_settings(out))
    assert rules_of(events)["inside"].status == "passed"
    allowed = flow("allowed", cases["link-out"], page_url("nav.html"), allowed_hosts=("localhost",))
    _, events = walk(allowed, walker_browser, make_settings(out))
    assert rules_of(events)["allowed"].status == "passed"


def test_a_late_navigation_outside_the_allowlist_is_blamed_on_the_action(walker_browser, out, page_url) -> None:
    # the click returns before the page navigates: the blocked navigation is seen while the
    # next step waits, and must not read as the site misbehaving (assertion_failed)
    steps = [click("#late-outside"), expect("text_contains", "Done", timeout_ms=3000)]
    _, events = walk(flow("late", steps, page_url("nav.html")), walker_browser, make_settings(out))
    failure = rules_of(events)["late"].failure
    assert failure is not None
    assert (failure.failure_class, failure.runtime_code, failure.step_index, failure.step_text) == (
        "spec_step_unresolvable", "NAVIGATION_BLOCKED", 1, steps[0].text)


def test_a_blocked_navigation_fails_its_action_even_when_the_next_step_would_pass(walker_browser, out,
                                                                                    page_url) -> None:
    # the page stays where it was when its navigation is stopped, so an expect about that page, or
    # another action on it, would succeed: the action that tried to leave must still be the failure
    cases = {
        "then-expect": [click("#outside"), expect("url_contains", "nav.html")],
        "then-act": [click("#outside"), click("#inside"), expect("url_contains", "done.html")],
    }
    for name, steps in cases.items():
        _, events = walk(flow(name, steps, page_url("nav.html")), walker_browser, make_settings(out))
        failure = rules_of(events)[name].failure
        assert failure is not None, name
        assert (failure.failure_class, failure.runtime_code, failure.step_index, failure.step_text) == (
            "spec_step_unresolvable", "NAVIGATION_BLOCKED", 1, steps[0].text), name


def test_a_large_accessibility_snapshot_goes_to_a_file_the_failure_references(walker_browser, out,
                                                                            page_url) -> None:
    steps = [expect("text_contains", "Item number 401", timeout_ms=600)]
    _, events = walk(flow("big", steps, page_url("big.html")), walker_browser, make_settings(out))
    context = rules_of(events)["big"].failure.context
    name = context["a11y_snapshot_file"]
    assert name.startswith("context/") and name.endswith(".aria.yaml")
    whole = (out / name).read_text()
    assert "Item number 400 of the long list" in whole
    assert len(context["a11y_snapshot"]) < 4100 < len(whole)
    assert "the whole snapshot is in the file" in context["a11y_snapshot"]


def test_a_target_is_re_resolved_when_the_pinned_selector_matches_nothing(walker_browser, out, page_url) -> None:
    steps = [click("#renamed-signup", target="the Create account button"), expect("url_contains", "created"),
             fill("#old-email", "ann@example.com", target="the email address field")]
    _, events = walk(flow("targets", steps, page_url("targets.html")), walker_browser, make_settings(out))
    assert rules_of(events)["targets"].status == "passed"
    first = steps_of(events)[0]
    assert first.detail["candidates"] and first.detail["selector"] != "#renamed-signup"
    assert [(r["strategy"], r["outcome"]) for r in first.detail["recovery"]] == [("re_resolve_target", "recovered")]

    ambiguous = flow("ambiguous", [click(target="the Delete button")], page_url("targets.html"))
    _, events = walk(ambiguous, walker_browser, make_settings(out))
    failure = rules_of(events)["ambiguous"].failure
    assert (failure.failure_class, failure.runtime_code) == ("spec_step_unresolvable", "AMBIGUOUS_TARGET")
    # the two Delete buttons, alike: no clear winner
    assert [c["element"] for c in failure.candidates[:2]] == ['button "Delete" .del in "Targets"'] * 2
    assert failure.candidates[0]["score"] == failure.candidates[1]["score"] == 1.0
    # no pinned selector, so no heal an agent could propose over MCP: no recorded question
    assert "heal_question" not in steps_of(events)[-1].detail
    assert [(r.strategy, r.outcome) for r in failure.recovery] == [("re_resolve_target", "failed")]


# --- verifiers ------------------------------------------------------------------------------------------


def _write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


def test_verifiers_pass_fail_and_inconclusive(walker_browser, out, page_url, site, tmp_path) -> None:
    good = _write(tmp_path / "verifiers" / "value_seen.py",
                  "def verify(context):\n"
                  "    ok = context['value'] == 'ann@example.com' and context['url'].endswith('verify.html')\n"
                  "    return {'outcome': 'pass' if ok else 'fail', 'detail': context['step']}\n")
    slow = _write(tmp_path / "verifiers" / "slow.py",
                  "import time\n\ndef verify(context):\n    time.sleep(2)\n    return {'outcome': 'pass'}\n")
    raw = VerifierRef(name="read_after_write", loc=loc(), timeout_ms=600)
    user_good = VerifierRef(name="value_seen", loc=loc(), options={"module": good, "args": {}})
    user_slow = VerifierRef(name="slow", loc=loc(), options={"module": slow, "args": {}}, timeout_ms=300)
    saved = VerifierRef(name="read_after_write", loc=loc(), timeout_ms=2000,
                        options={"selector": "#saved", "expected": "Saved ann@example.com"})
    page_ok = VerifierRef(name="invariant_check", loc=loc(),
                          options={"expect": expect("text_contains", "verify", "h1")})
    http_ok = VerifierRef(name="invariant_check", loc=loc(),
                          options={"http": {"url": "/__echo?state=ok&n=3", "status": 200, "json_field": "state",
                                            "equals": "ok"}})
    passing = [
        fill("#email", "ann@example.com", verify=(raw, user_good)),
        act("check", "#agree", verify=(raw,)),
        act("select", "#plan", "pro", verify=(raw,)),
        click("#save", verify=(saved, page_ok, http_ok)),
    ]
    _, events = walk(flow("verified", passing, page_url("verify.html")), walker_browser,
                     make_settings(out, verifiers_dir=str(tmp_path / "verifiers")))
    assert rules_of(events)["verified"].status == "passed", rules_of(events)["verified"].failure
    outcomes = [[v["outcome"] for v in s.detail["verifiers"]] for s in steps_of(events)]
    assert outcomes == [["pass", "pass"], ["pass"], ["pass"], ["pass", "pass", "pass"]]

    cases = {
        "shout": (fill("#shout", "quiet", verify=(raw,)), "fail"),          # the page upper-cases it
        "http": (click("#save", verify=(VerifierRef(name="invariant_check", loc=loc(),
                                                    options={"http": {"url": "/__status/503", "status": 200}}),)),
                 "fail"),
        "slow": (click("#save", verify=(user_slow,)), "inconclusive"),   # its timeout ran out
        "nothing": (click("#save", verify=(raw,)), "inconclusive"),       # a click writes nothing to re-read
    }
    for name, (step, expected_outcome) in cases.items():
        _, events = walk(flow(name, [step, click("#save")], page_url("verify.html")), walker_browser,
                         make_settings(out))
        result = rules_of(events)[name]
        assert result.status == "failed", name
        assert (result.failure.failure_class, result.failure.runtime_code) == (
            "assertion_failed", "VERIFICATION_FAILED"), name
        assert [v["outcome"] for v in steps_of(events)[0].detail["verifiers"]] == [expected_outcome], name
        assert result.skipped_steps, name      # a failed verifier halts like any failed step


def test_a_rules_own_verifiers_run_after_its_body(walker_browser, out, page_url) -> None:
    check_saved = VerifierRef(name="invariant_check", loc=loc(), timeout_ms=1500,
                              options={"expect": expect("text_contains", "Saved", "#saved")})
    check_never = VerifierRef(name="invariant_check", loc=loc(), timeout_ms=300,
                              options={"expect": expect("text_contains", "Deleted", "#saved")})
    rules = [rule("save", click("#save"), verify=(check_saved,)),
             rule("save-again", click("#save"), verify=(check_never,))]
    _, events = walk(scenario("rule-verify", rules, page_url("verify.html")), walker_browser, make_settings(out))
    results = rules_of(events)
    assert results["save"].status == "passed"
    assert results["save-again"].status == "failed"
    assert results["save-again"].failure.runtime_code == "VERIFICATION_FAILED"
    verify_steps = [s for s in steps_of(events) if s.kind == "verify"]
    assert [(s.rule, s.index, s.status) for s in verify_steps] == [("save", 2, "passed"), ("save-again", 2, "failed")]


# --- screenshots ----------------------------------------------------------------------------------------


def test_screenshot_names_are_deterministic_and_safe() -> None:
    name = screenshot_name("specs/Check Out.flow.yaml#Pay {{CARD}}", "Pay & confirm", 3, "fail", 2)
    assert name == screenshot_name("specs/Check Out.flow.yaml#Pay {{CARD}}", "Pay & confirm", 3, "fail", 2)
    assert re.fullmatch(r"screenshots/[a-z0-9._-]+\.png", name)
    assert name.endswith("--03-fail-a2.png")
    assert screenshot_name("specs/a.flow.yaml", None, 2, "fail", 1) == "screenshots/specs-a.flow.yaml--02-fail-a1.png"
    long = screenshot_name("x" * 300, "r", 1, "fail", 1)
    assert len(long) < 140 and long != screenshot_name("x" * 299, "r", 1, "fail", 1)


def test_screenshot_on_enter(walker_browser, out, page_url) -> None:
    rules = [rule("entered", click("#bump"), screenshot_on_enter=True)]
    _, events = walk(scenario("enter", rules, page_url("basic.html")), walker_browser, make_settings(out))
    result = rules_of(events)["entered"]
    assert result.status == "passed"
    assert len(result.screenshots) == 1 and result.screenshots[0].endswith("--00-enter-a1.png")
    assert (out / result.screenshots[0]).is_file()
