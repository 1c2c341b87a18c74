"""A synthetic run: realistic event streams built from the `events` vocabulary, no browser involved.

The reports are rebuilt from emit.jsonl alone, so they can be tested, benchmarked and shown in the
docs without walking anything. This module scripts what a run of a small but complete corpus
would record: a flow passing through a healed selector (a `healed` finding), a flow failing
`assertion_failed` with a screenshot and failure context, skipped steps, an optional step's
warning finding, a rule DAG whose broken `login` skips its dependents (`parent_failed`,
transitively), a guard-skipped rule, a `credential_rejected` flow that never reached the browser,
a flaky suite (fails, then passes on the retry) with emit records. `sample_suites(extra=N)` adds N generated flows for size and speed measurements.

Outcomes depend only on scenario ids, never on the shard or the arrival order, so that a run split
into shards and merged must produce the same reports as the run in one piece.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping, Sequence, cast

from flowwalk.errors import Location
from flowwalk.events import (EmitRecorded, Event, Failure, FailureClass, FailureStepKind, Finding, Heal, ModelCalled,
                             RecoveryAttempt, RequestRouted, RuleFinished, RunCancelled, RunFinished, RunStarted,
                             ScenarioFinished, ScenarioStarted, Status, StepFinished, StepKind, StepStatus, tally)
from flowwalk.exitcodes import decide_outcome
from flowwalk.model import Act, Assertion, Emit, EmitField, Expect, Goto, Rule, Scenario, Step, Suite, Wait

# --- the corpus --------------------------------------------------------------------------------


def _loc(path: str, line: int, col: int = 7) -> Location:
    return Location(path, line, col)


def _flow(path: str, name: str, line: int, steps: Sequence[tuple[type[Step], str, dict[str, Any]]],
          **extra: Any) -> Scenario:
    built = tuple(cls(loc=_loc(path, line + 3 + 2 * i), text=text, **kw) for i, (cls, text, kw) in enumerate(steps))
    rule = Rule(name=name, loc=_loc(path, line, 1), steps=built, guards_enabled=False)
    return Scenario(id=f"{path}#{name}", name=name, source=path, kind="flow", loc=_loc(path, line, 1),
                    entry_url="{{BASE_URL}}/", rules=(rule,), **extra)


def _rule(path: str, name: str, line: int, steps: Sequence[tuple[type[Step], str, dict[str, Any]]],
          parents: tuple[str, ...] = (), **extra: Any) -> Rule:
    built = tuple(cls(loc=_loc(path, line + 3 + i), text=text, **kw) for i, (cls, text, kw) in enumerate(steps))
    return Rule(name=name, loc=_loc(path, line, 3), steps=built, parents=parents, **extra)


def sample_suites(extra: int = 0) -> list[Suite]:
    """The sample corpus (7 scenarios, 14 tests), plus `extra` generated flows."""
    suites: list[Suite] = []
    p = "examples/flows/signup.flow.yaml"
    suites.append(Suite(p, "flow", (_flow(p, "Sign up", 1, [
        (Goto, "goto '/signup'", {"url": "/signup"}),
        (Act, "act fill '#email'", {"action": "fill", "selector": "#email", "target": "the email field",
                                    "value": "{{EMAIL}}"}),
        (Act, "act click 'the create account button'", {"action": "click", "target": "the create account button"}),
        (Expect, "expect url_contains '/welcome'", {"kind": "url_contains", "value": "/welcome"}),
        (Expect, "expect text_contains 'Welcome aboard'", {"kind": "text_contains", "value": "Welcome aboard"}),
    ]),)))
    p = "examples/flows/checkout.flow.yaml"
    suites.append(Suite(p, "flow", (_flow(p, "Checkout saves the order", 1, [
        (Goto, "goto '/cart'", {"url": "/cart"}),
        (Act, "act click '#checkout'", {"action": "click", "selector": "#checkout"}),
        (Act, "act fill '#address'", {"action": "fill", "selector": "#address", "value": "1 Main St"}),
        (Act, "act click 'button[type=submit]'", {"action": "click", "selector": "button[type=submit]"}),
        (Expect, "expect text_contains 'Saved'", {"kind": "text_contains", "value": "Saved", "selector": "#status"}),
        (Expect, "expect url_contains '/orders/'", {"kind": "url_contains", "value": "/orders/"}),
        (Expect, "expect beacon ga4 'purchase'", {"kind": "beacon", "vendor": "ga4", "event": "purchase"}),
    ], assertions=(Assertion("no_console_errors", _loc(p, 30), "no_console_errors"),)),)))
    p = "examples/flows/newsletter.flow.yaml"
    suites.append(Suite(p, "flow", (_flow(p, "Newsletter sign-up", 1, [
        (Goto, "goto '/'", {"url": "/"}),
        (Act, "act fill '#newsletter'", {"action": "fill", "selector": "#newsletter", "value": "a@example.com"}),
        (Expect, "expect text_contains 'Thanks for subscribing'",
         {"kind": "text_contains", "value": "Thanks for subscribing", "optional": True}),
        (Wait, "wait for '#footer'", {"for_selector": "#footer"}),
    ]),)))
    p = "examples/flows/account.flow.yaml"
    suites.append(Suite(p, "flow", (_flow(p, "Account settings", 1, [
        (Goto, "goto '/login'", {"url": "/login"}),
        (Act, "act fill '#password'", {"action": "fill", "selector": "#password", "value": "{{ACCOUNT_PASSWORD}}"}),
        (Act, "act click 'Sign in'", {"action": "click", "target": "Sign in"}),
        (Expect, "expect url_contains '/account'", {"kind": "url_contains", "value": "/account"}),
    ]),)))
    p = "examples/rules/shop.rules.yaml"
    shop_rules = (
        _rule(p, "home", 5, [
            (Expect, "expect selector_exists 'header'", {"kind": "selector_exists", "selector": "header"}),
            (Act, "act click '#nav-shop'", {"action": "click", "selector": "#nav-shop"}),
            (Emit, "emit 'home_state'", {"name": "home_state",
                                         "fields": (EmitField("title", "title"), EmitField("items", "count", ".item"))}),
        ]),
        _rule(p, "login", 14, [
            (Goto, "goto '/login'", {"url": "/login"}),
            (Act, "act click 'the sign in button'", {"action": "click", "selector": "#signin", "target": "the sign in button"}),
            (Expect, "expect url_contains '/account'", {"kind": "url_contains", "value": "/account"}),
        ], parents=("home",)),
        _rule(p, "cart", 24, [
            (Act, "act click '#add-to-cart'", {"action": "click", "selector": "#add-to-cart"}),
            (Expect, "expect count '.cart-item' eq 1", {"kind": "count", "selector": ".cart-item", "count": 1}),
        ], parents=("login",)),
        _rule(p, "checkout", 33, [
            (Act, "act click '#pay'", {"action": "click", "selector": "#pay"}),
            (Expect, "expect text_contains 'Paid'", {"kind": "text_contains", "value": "Paid"}),
        ], parents=("cart",)),
        _rule(p, "profile", 41, [
            (Act, "act click '#profile'", {"action": "click", "selector": "#profile"}),
        ], parents=("login",)),
        _rule(p, "footer", 48, [
            (Expect, "expect visible 'footer'", {"kind": "visible", "selector": "footer"}),
        ], parents=("home",)),
        _rule(p, "promo", 54, [
            (Expect, "expect visible '#promo-banner'", {"kind": "visible", "selector": "#promo-banner"}),
            (Act, "act click '#promo-banner a'", {"action": "click", "selector": "#promo-banner a"}),
        ], parents=("home",)),
    )
    suites.append(Suite(p, "rules", (Scenario(id=f"{p}#shop", name="shop", source=p, kind="rules", loc=_loc(p, 1, 1),
                                              entry_url="{{BASE_URL}}/", rules=shop_rules),)))
    p = "examples/suites/search.robot"
    search_rules = (
        _rule(p, "open search", 8, [
            (Goto, "goto '/search'", {"url": "/search"}),
            (Act, "act fill '#q'", {"action": "fill", "selector": "#q", "value": "lamp"}),
        ]),
        _rule(p, "results", 14, [
            (Act, "act press '#q'", {"action": "press", "selector": "#q", "value": "Enter"}),
            (Expect, "expect count '.result' gte 3", {"kind": "count", "selector": ".result", "count": 3, "op": "gte"}),
            (Emit, "emit 'results'", {"name": "results", "fields": (EmitField("n", "count", ".result"),)}),
        ], parents=("open search",)),
    )
    suites.append(Suite(p, "robot", (Scenario(id=f"{p}#Search finds products", name="Search finds products", source=p,
                                              kind="robot", loc=_loc(p, 6, 1), entry_url="{{BASE_URL}}/",
                                              rules=search_rules),)))
    p = "examples/flows/about.flow.yaml"
    suites.append(Suite(p, "flow", (_flow(p, "About page", 1, [
        (Goto, "goto '/about'", {"url": "/about"}),
        (Expect, "expect text_contains 'About us'", {"kind": "text_contains", "value": "About us"}),
    ]),)))
    for i in range(extra):
        p = f"generated/g{i // 10:03d}.flow.yaml"
        name = f"generated flow {i:04d}"
        steps: list[tuple[type[Step], str, dict[str, Any]]] = [(Goto, f"goto '/page/{i}'", {"url": f"/page/{i}"})]
        for j in range(4):
            steps.append((Act, f"act click '#item-{j}'", {"action": "click", "selector": f"#item-{j}"}))
            steps.append((Expect, f"expect text_contains 'Item {j} ready'",
                          {"kind": "text_contains", "value": f"Item {j} ready"}))
        scenario = _flow(p, name, 1 + 20 * (i % 10), steps)
        if i % 10 == 0:
            suites.append(Suite(p, "flow", (scenario,)))
        else:
            last = suites[-1]
            suites[-1] = Suite(last.path, "flow", last.scenarios + (scenario,))
    return suites


# --- scripted outcomes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How one rule ends in one attempt. Unlisted rules pass (unless a parent did not)."""

    fail_at: int | None = None          # 1-based step that fails
    failure_class: FailureClass = "assertion_failed"
    runtime_code: str = "EXPECT_STATE_MISMATCH"
    step_kind: FailureStepKind = "observation_or_assertion"
    message: str = ""
    expected: str = ""
    observed: str = ""
    guard_skip: bool = False            # the guard (first step) did not hold: skipped, guard_failed
    before_browser: bool = False        # credential_rejected: nothing ran
    warn_at: int | None = None          # an optional step that failed: a warning finding
    heal_to: tuple[int, str] | None = None  # (step, new selector): the step's pinned selector was healed
    candidates: tuple[dict[str, Any], ...] = ()
    context: Mapping[str, Any] = field(default_factory=dict)


#: the shape `browser.session.evidence()` gives, plus the accessibility snapshot the walker adds
_CHECKOUT_CONTEXT: dict[str, Any] = {
    "url": "http://127.0.0.1:8000/checkout/confirm",
    "title": "Confirm your order",
    "console": ["warning: [shop] slow render: 820 ms", "error: POST /api/orders 500 (Internal Server Error)"],
    "page_errors": ["TypeError: Cannot read properties of undefined (reading 'id')"],
    "console_error_count": 2,
    "network": [{"method": "GET", "url": "http://127.0.0.1:8000/checkout/confirm", "resource_type": "document",
                 "status": 200, "duration_ms": 41.0},
                {"method": "POST", "url": "http://127.0.0.1:8000/api/orders", "resource_type": "fetch",
                 "status": 500, "duration_ms": 312.5},
                {"method": "GET", "url": "http://127.0.0.1:8000/api/poll", "resource_type": "fetch",
                 "status": None, "duration_ms": None}],
    "blocked": [], "dialogs": [], "popups": [], "crashed": False,
    "a11y_snapshot": "- heading \"Confirm your order\" [level=1]\n- status: Saving failed, try again\n"
                     "- button \"Place order\"",
}

#: outcomes per scenario id: one mapping per attempt (rule name -> outcome); missing attempts pass
SCRIPT: dict[str, tuple[Mapping[str, Outcome], ...]] = {
    "examples/flows/checkout.flow.yaml#Checkout saves the order": ({
        "Checkout saves the order": Outcome(
            fail_at=5, message="text 'Saved' not found in '#status' after 5 fresh reads",
            expected="'#status' contains 'Saved' (case-insensitive)",
            observed="'#status' reads 'Saving failed, try again'", context=_CHECKOUT_CONTEXT)},),
    "examples/flows/signup.flow.yaml#Sign up": ({"Sign up": Outcome(heal_to=(2, "input[name='email']"))},),
    "examples/flows/newsletter.flow.yaml#Newsletter sign-up": ({"Newsletter sign-up": Outcome(warn_at=3)},),
    "examples/flows/account.flow.yaml#Account settings": ({"Account settings": Outcome(
        fail_at=2, failure_class="credential_rejected", runtime_code="MISSING_VARIABLE", step_kind="setup",
        before_browser=True, message="the run cannot supply {{ACCOUNT_PASSWORD}}",
        expected="a value for ACCOUNT_PASSWORD (--secret ACCOUNT_PASSWORD)", observed="no such variable")},),
    "examples/rules/shop.rules.yaml#shop": ({
        "login": Outcome(
            fail_at=2, failure_class="spec_step_unresolvable", runtime_code="ELEMENT_NOT_FOUND", step_kind="action",
            message="'#signin' matches nothing and 'the sign in button' has no unique match",
            expected="one element for 'the sign in button'", observed="2 candidates tied at score 0.71",
            candidates=({"strategy": "role", "role": "button", "name": "Sign in", "score": 0.71, "count": 1},
                        {"strategy": "text", "text": "Sign in with SSO", "score": 0.71, "count": 1},
                        {"strategy": "title", "title": "Sign in help", "score": 0.4, "count": 1}),
            context={"url": "http://127.0.0.1:8000/login", "console": [], "network": []}),
        "promo": Outcome(guard_skip=True)},),
    "examples/suites/search.robot#Search finds products": (
        {"results": Outcome(fail_at=2, message="count of '.result' is 0, expected >= 3",
                            expected="count('.result') >= 3", observed="0 (results still loading)")},
        {}),
}


def _generated_outcome(scenario_id: str) -> tuple[Mapping[str, Outcome], ...]:
    """Generated flows: mostly passing, one in 25 failing, one in 40 flaky (by a stable checksum)."""
    n = zlib.crc32(scenario_id.encode())
    name = scenario_id.split("#", 1)[1]
    if n % 25 == 0:
        return ({name: Outcome(fail_at=5, message="text 'Item 1 ready' not found after 5 fresh reads",
                               expected="body contains 'Item 1 ready'", observed="body reads 'Item 1 loading'",
                               context={"url": "http://127.0.0.1:8000/page", "console": [], "network": []})},)
    if n % 40 == 1:
        return ({name: Outcome(fail_at=3, message="text 'Item 0 ready' not found after 3 fresh reads",
                               expected="body contains 'Item 0 ready'", observed="body reads 'Item 0 loading'")}, {})
    return ({},)


def _ms(key: str, low: int = 40, spread: int = 900) -> float:
    """A stable, realistic-looking duration for a step or rule (no clock involved)."""
    return float(low + zlib.crc32(key.encode()) % spread)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")[:80]


def screenshot_name(test_id: str, attempt: int, step: int) -> str:
    """Deterministic screenshot paths, relative to the report folder."""
    return f"screenshots/{_slug(test_id)}-a{attempt}-s{step}.png"


def png_bytes(width: int = 320, height: int = 200, rgb: tuple[int, int, int] = (200, 60, 60)) -> bytes:
    """A real, small PNG (a coloured frame on white), so that reports show an actual image."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            edge = x < 8 or y < 8 or x >= width - 8 or y >= height - 8
            row.extend(rgb if edge else (255, 255, 255))
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows), 9)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


# --- events -------------------------------------------------------------------------------------


def _step_kind(step: Step) -> StepKind:
    return cast(StepKind, type(step).__name__.lower())


def _scenario_events(sc: Scenario, attempt: int, outcomes: Mapping[str, Outcome], t0: float,
                     screenshots: list[str]) -> tuple[list[Event], Status, float]:
    events: list[Event] = [ScenarioStarted(scenario_id=sc.id, attempt=attempt, worker=1, t=round(t0, 3))]
    status_of: dict[str, str] = {}
    class_of: dict[str, FailureClass] = {}  # the failure class a skipped dependent inherits from its root
    total_ms = 0.0
    for rule in sc.rules:
        test_id = sc.test_id(rule)
        out = outcomes.get(rule.name, Outcome())
        bad_parent = next((p for p in rule.parents if status_of.get(p) != "passed"), None)
        path = rule.loc.path
        if bad_parent is not None:
            skipped = tuple(f"step {i} ({s.text})" for i, s in enumerate(rule.steps, start=1))
            events.append(RuleFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                       status="skipped", duration_ms=0.0, path=path, line=rule.loc.line,
                                       reason="parent_failed", skipped_steps=skipped,
                                       failure=Failure(failure_class=class_of.get(bad_parent, "assertion_failed"),
                                                       runtime_code="PARENT_FAILED",
                                                       retryable=False, step_kind="parent_failed",
                                                       message=f"parent '{bad_parent}' did not pass",
                                                       parent=bad_parent)))
            status_of[rule.name] = "skipped"
            class_of[rule.name] = class_of.get(bad_parent, "assertion_failed")
            continue
        if out.guard_skip:
            first = rule.steps[0]
            events.append(StepFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt, index=1,
                                       text=first.text, kind=_step_kind(first), role="guard", status="failed",
                                       duration_ms=12.0, path=path, line=first.loc.line, reads=1,
                                       detail={"guard_timeout_ms": 200}))
            skipped = tuple(f"step {i} ({s.text})" for i, s in enumerate(rule.steps, start=1) if i > 1)
            events.append(RuleFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                       status="skipped", duration_ms=12.0, path=path, line=rule.loc.line,
                                       reason="guard_failed", skipped_steps=skipped, guard_attempts=1))
            status_of[rule.name] = "skipped"
            total_ms += 12.0
            continue
        if out.before_browser and out.fail_at:
            # a variable the run cannot supply: refused before any browser started, nothing ran
            step = rule.steps[out.fail_at - 1]
            refused = Failure(failure_class=out.failure_class, runtime_code=out.runtime_code, retryable=False,
                              step_kind=out.step_kind, message=out.message, step_index=out.fail_at,
                              step_text=step.text, expected=out.expected, observed=out.observed, path=path,
                              line=step.loc.line, col=step.loc.col)
            skipped = tuple(f"step {i} ({s.text})" for i, s in enumerate(rule.steps, start=1) if i != out.fail_at)
            events.append(RuleFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                       status="failed", duration_ms=0.0, path=path, line=rule.loc.line,
                                       failure=refused, skipped_steps=skipped))
            status_of[rule.name] = "failed"
            class_of[rule.name] = refused.failure_class
            continue
        rule_ms = 0.0
        failure: Failure | None = None
        findings: list[Finding] = []
        skipped_steps: list[str] = []
        shots: list[str] = []
        for i, step in enumerate(rule.steps, start=1):
            label = f"step {i} ({step.text})"
            if failure is not None:
                skipped_steps.append(label)
                events.append(StepFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                           index=i, text=step.text, kind=_step_kind(step), role="body",
                                           status="skipped", duration_ms=0.0, path=path, line=step.loc.line))
                continue
            ms = _ms(f"{test_id}/{attempt}/{i}")
            detail: dict[str, Any] = {}
            reads = None
            if isinstance(step, Expect):
                reads = 2
                detail["waited_ms"] = round(ms * 0.6, 1)
            if isinstance(step, Act):
                if step.action in ("fill", "press") and step.selector:
                    detail["verifiers"] = [{"name": "read_after_write", "outcome": "pass"}]
                if sc.kind == "flow" and i == 2:
                    detail["interrupts_dismissed"] = ["#cookie-banner .accept"]
            if out.fail_at == i:
                shot = screenshot_name(test_id, attempt, i)
                shots.append(shot)
                screenshots.append(shot)
                reads = 5 if isinstance(step, Expect) else None
                recovery = (
                    RecoveryAttempt("dismiss_and_retry", "failed", "no interrupt was blocking"),
                    RecoveryAttempt("re_resolve_target", "failed" if out.candidates else "skipped",
                                    "no unique candidate" if out.candidates else "the step has no target"))
                failure = Failure(failure_class=out.failure_class, runtime_code=out.runtime_code,
                                  retryable=out.failure_class != "assertion_failed", step_kind=out.step_kind,
                                  message=out.message, step_index=i, step_text=step.text, expected=out.expected,
                                  observed=out.observed, path=path, line=step.loc.line, col=step.loc.col,
                                  screenshot=shot, recovery=recovery, candidates=out.candidates,
                                  context=dict(out.context))
                if out.runtime_code == "ELEMENT_NOT_FOUND" and out.candidates:
                    # the candidates tied, so the configured model was asked, and found none fits
                    events.append(ModelCalled(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                              step_index=i, purpose="heal", provider="ollama", model="llama3.1",
                                              request=1, call=1, outcome="answered", decision="none",
                                              prompt_sha256="0" * 64, latency_ms=840.0, prompt_tokens=612,
                                              completion_tokens=21, status=200,
                                              t=round(t0 + (total_ms + rule_ms) / 1000, 3)))
                events.append(StepFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                           index=i, text=step.text, kind=_step_kind(step), role="body",
                                           status="failed", duration_ms=ms, path=path, line=step.loc.line,
                                           reads=reads, failure=failure, detail=detail))
                rule_ms += ms
                continue
            status: StepStatus = "passed"
            if out.warn_at == i:
                status = "warning"
                findings.append(Finding(severity="warning", source="step", step_index=i, kind="optional_step",
                                        message=f"optional {label} did not hold: text not found"))
            if out.heal_to is not None and out.heal_to[0] == i and isinstance(step, Act) and step.selector:
                shot = screenshot_name(test_id, attempt, i)
                shots.append(shot)
                screenshots.append(shot)
                new = out.heal_to[1]
                detail["selector"] = new
                heal = Heal(old_selector=step.selector, new_selector=new, method="deterministic", score=0.92,
                            target=step.target or "", step_index=i, path=path, line=step.loc.line, screenshot=shot,
                            candidates=({"selector": new, "score": 0.92}, {"selector": "#newsletter", "score": 0.41}))
                findings.append(Finding(severity="warning", source="step", step_index=i, kind="healed", heal=heal,
                                        message=f"{label}: '{step.selector}' matched nothing; healed to '{new}' "
                                                f"(deterministic, score 0.92)"))
            events.append(StepFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt, index=i,
                                       text=step.text, kind=_step_kind(step), role="body", status=status,
                                       duration_ms=ms, path=path, line=step.loc.line, reads=reads, detail=detail))
            rule_ms += ms
            if isinstance(step, Emit):
                fields: dict[str, Any] = {f.name: (f"Shop — {sc.name}" if f.source == "title" else 3 + attempt)
                                          for f in step.fields}
                events.append(EmitRecorded(scenario_id=sc.id, rule=rule.name, name=step.name,
                                           url="http://127.0.0.1:8000/shop", fields=fields,
                                           t=round(t0 + (total_ms + rule_ms) / 1000, 3)))
                # the spec stubbed the shop's API, and the page asked it
                events.append(RequestRouted(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                            step_index=i, method="GET", url="http://127.0.0.1:8000/api/stock",
                                            answer="fulfilled", status=200, route="/api/stock", path=path,
                                            line=sc.loc.line, delay_ms=0, source="route",
                                            t=round(t0 + (total_ms + rule_ms) / 1000, 3)))
        rule_status: Status = "failed" if failure else "passed"
        events.append(RuleFinished(scenario_id=sc.id, rule=rule.name, test_id=test_id, attempt=attempt,
                                   status=rule_status, duration_ms=round(rule_ms, 1), path=path, line=rule.loc.line,
                                   failure=failure, skipped_steps=tuple(skipped_steps), findings=tuple(findings),
                                   screenshots=tuple(shots)))
        status_of[rule.name] = rule_status
        if failure is not None:
            class_of[rule.name] = failure.failure_class
        total_ms += rule_ms
    scenario_status: Status = "failed" if "failed" in status_of.values() else "passed"
    overhead = 0.0 if any(o.before_browser for o in outcomes.values()) else 180.0  # a fresh context
    return events, scenario_status, round(total_ms + overhead, 1)


def sample_events(suites: Sequence[Suite], plan_record: Mapping[str, Any], *, run_id: str = "run-1",
                  started_at: str = "2024-05-01T12:00:00Z", retries: int = 1, flaky_policy: str = "pass",
                  arrival: str = "plan", cancel_after: int | None = None,
                  screenshots: list[str] | None = None) -> list[Event]:
    """The events a run of the plan's assigned scenarios would yield.

    `arrival="reversed"` yields scenarios in reverse plan order (as concurrent workers might);
    `cancel_after=k` cancels the run after k scenarios. Screenshot paths written are appended to
    `screenshots` when given.
    """
    by_id = {sc.id: sc for suite in suites for sc in suite.scenarios}
    shard = dict(plan_record.get("shard") or {"index": 1, "total": 1})
    settings = {"retries": retries, "flaky_policy": flaky_policy, "workers": 1, "out_dir": "flowwalk-report",
                "trace": "off", "screenshots": "on-failure"}
    events: list[Event] = [RunStarted(run_id=run_id, started_at=started_at, flowwalk_version="0.1.0",
                                      shard={"index": int(shard["index"]), "total": int(shard["total"])},
                                      plan=dict(plan_record), settings=settings)]
    order = [sid for sid in plan_record["assigned"]]
    if arrival == "reversed":
        order.reverse()
    t = 0.4
    counts = {"total": 0, "passed": 0, "failed": 0, "skipped": 0, "flaky": 0}
    shots = screenshots if screenshots is not None else []
    cancelled = False
    finals: list[tuple[str, str | None, str | None]] = []  # (status, skip reason, failure class) of each test
    for done, sid in enumerate(order):
        if cancel_after is not None and done >= cancel_after:
            events.append(RunCancelled(signal="SIGTERM", t=round(t, 3)))
            cancelled = True
            break
        sc = by_id[sid]
        script = SCRIPT.get(sid) or (_generated_outcome(sid) if sid.startswith("generated/") else ({},))
        failed_before: set[str] = set()
        for attempt in range(1, retries + 2):
            # attempts past the script repeat its last entry: a broken page stays broken
            outcomes = script[min(attempt, len(script)) - 1]
            scenario_events, status, ms = _scenario_events(sc, attempt, outcomes, t, shots)
            # as the walker writes them (walk/outcomes.py): a pass after a failed attempt is flaky
            scenario_events = [replace(e, status="flaky") if isinstance(e, RuleFinished) and e.status == "passed"
                               and e.test_id in failed_before else e for e in scenario_events]
            if status == "passed" and attempt > 1:
                status = "flaky"
            no_retry = any(o.before_browser for o in outcomes.values())
            final = status in ("passed", "flaky") or attempt == retries + 1 or no_retry
            events.extend(scenario_events)
            events.append(ScenarioFinished(scenario_id=sid, attempt=attempt, status=status, duration_ms=ms,
                                           final=final))
            t += ms / 1000
            if final:
                for ev in scenario_events:
                    if isinstance(ev, RuleFinished):
                        counts["total"] += 1
                        counts[ev.status] += 1
                        finals.append((ev.status, ev.reason, ev.failure.failure_class if ev.failure else None))
                break
            failed_before |= {ev.test_id for ev in scenario_events
                              if isinstance(ev, RuleFinished) and ev.status == "failed"}
    _, exit_code = decide_outcome(finals, cancelled=cancelled, flaky_policy=flaky_policy)
    events.append(RunFinished(finished_at=started_at, duration_ms=round(t * 1000, 1), exit_code=exit_code,
                              counts=counts, cancelled=cancelled))
    return events


def healed_events(heals: Sequence[tuple[str, Heal]], *, attempts: int = 1, shard: tuple[int, int] = (1, 1),
                  run_id: str = "run-1", started_at: str = "2024-05-01T12:00:00Z",
                  heal_policy: str = "pass") -> list[Event]:
    """A run in which each (test id, heal) pair is one flow that passed through that heal.

    Test ids are `path#name`; a test id given twice is one flow with several heals. With
    `attempts=2` every flow fails once first and records its heals on both attempts (a flaky
    test), as a --retries rerun would.
    """
    by_test: dict[str, list[Heal]] = {}
    for test_id, heal in heals:
        by_test.setdefault(test_id, []).append(heal)
    scenarios = [{"id": tid, "name": tid.split("#", 1)[-1], "source": tid.split("#", 1)[0], "kind": "flow",
                  "line": 1, "rules": [{"name": tid.split("#", 1)[-1], "test_id": tid, "line": 1, "parents": []}],
                  "test_ids": [tid], "duration_s": None, "duration_measured": False, "shard": shard[0]}
                 for tid in by_test]
    plan = {"version": 1, "order": "scenario_id", "scenarios": scenarios, "assigned": list(by_test),
            "shard": {"index": shard[0], "total": shard[1]}, "shards": []}
    events: list[Event] = [RunStarted(run_id=run_id, started_at=started_at, flowwalk_version="0.1.0",
                                      shard={"index": shard[0], "total": shard[1]}, plan=plan,
                                      settings={"retries": attempts - 1, "flaky_policy": "pass",
                                                "heal_policy": heal_policy})]
    for tid, found in by_test.items():
        name = tid.split("#", 1)[-1]
        for attempt in range(1, attempts + 1):
            status: Status = ("flaky" if attempts > 1 else "passed") if attempt == attempts else "failed"
            findings = tuple(Finding(severity="warning", source="step", step_index=h.step_index, kind="healed",
                                     message=f"step {h.step_index}: {h.old_selector!r} healed to {h.new_selector!r}",
                                     heal=h) for h in found)
            failure = None if status != "failed" else Failure(
                failure_class="assertion_failed", runtime_code="EXPECT_STATE_MISMATCH", retryable=False,
                step_kind="observation_or_assertion", message="text not found")
            events.append(ScenarioStarted(scenario_id=tid, attempt=attempt, worker=1, t=0.1))
            events.append(RuleFinished(scenario_id=tid, rule=name, test_id=tid, attempt=attempt, status=status,
                                       duration_ms=10.0, path=tid.split("#", 1)[0], line=1, failure=failure,
                                       findings=findings,
                                       screenshots=tuple(h.screenshot for h in found if h.screenshot)))
            events.append(ScenarioFinished(scenario_id=tid, attempt=attempt, status=status, duration_ms=10.0,
                                           final=attempt == attempts))
    events.append(RunFinished(finished_at=started_at, duration_ms=100.0,
                              exit_code=decide_outcome([("flaky" if attempts > 1 else "passed", None, None)
                                                        for _ in by_test], cancelled=False, flaky_policy="pass",
                                                       heal_policy=heal_policy, healed=bool(by_test))[1],
                              counts={"total": len(by_test), "passed": len(by_test) if attempts == 1 else 0,
                                      "failed": 0, "skipped": 0, "flaky": len(by_test) if attempts > 1 else 0}))
    return events


def write_sample_run(out_dir: str | Path, events: Sequence[Event]) -> Path:
    """Write events to out_dir/emit.jsonl (through the real EmitWriter) plus every screenshot they
    reference, as real PNG files. Returns the emit.jsonl path."""
    from flowwalk.report.emit import EmitWriter

    out = Path(out_dir)
    with EmitWriter(out) as writer:
        for event in events:
            writer(event)
    for event in events:
        if isinstance(event, RuleFinished):
            for shot in event.screenshots:
                target = out / shot
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(png_bytes())
    return out / "emit.jsonl"


def typed(verdict: Any) -> Any:
    """A verdict as the records every presenter takes: a dict (a hand-edited verdict.json) read through
    `verdict_json.parse_verdict`, which checks it against the schema; a `Verdict` as it is."""
    from flowwalk.report.verdict_json import parse_verdict
    from flowwalk.report.verdict_model import Verdict

    return verdict if isinstance(verdict, Verdict) else parse_verdict(verdict)


def whole_test(test_id: str, **fields: Any) -> dict[str, Any]:
    """A verdict's test as verdict.json holds it: a flow test of `test_id` that passed, `fields` changed."""
    source, _, name = test_id.partition("#")
    return {"test_id": test_id, "scenario_id": test_id, "rule": name, "name": name, "source": source, "line": 1,
            "kind": "flow", "tags": [], "status": "passed", "reason": "", "duration_ms": 10.0, "attempts": 1,
            "failure": None, "findings": [], "skipped_steps": [], "screenshots": [], "change": "",
            "quarantine": None, "excused": "", "blocking": False, **fields}


def whole_verdict(**fields: Any) -> Any:
    """A `Verdict` of a run with no tests that passed, `fields` changed (JSON values, as verdict.json holds
    them); `counts` follows `tests` unless given."""
    tests = fields.get("tests") or []
    counts = tally(t["status"] for t in tests)
    data = {"schema": "flowwalk.verdict/1", "outcome": "passed", "exit_code": 0, "run_id": "run-1", "root": None,
            "started_at": "2024-05-01T12:00:00Z", "duration_ms": 0.0,
            "shards": {"total": 1, "reported": [1], "missing": [], "duplicated": [], "mismatched": []},
            "counts": counts,
            "by_class": {name: 0 for name in ("assertion_failed", "spec_step_unresolvable", "credential_rejected",
                                              "agent_uncertain", "quota_exceeded", "infrastructure_error")},
            "tests": [], "root_causes": [], "flaky": [], "slowest": [], "warnings": [],
            "gate": {"fail_on": "any", "base": None, "changes": None, "quarantine": None, "not_new": []},
            "readiness": [], **fields}
    return typed(data)
