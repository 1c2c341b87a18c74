"""The walker: one scenario attempt, from a fresh browser context to its last rule's result.

`walk_scenario` opens one `PageSession`, goes to the entry URL, orders the rules (Kahn,
declaration order for ties) and walks each one:

1. **stop conditions** – once the browser crashed, the run deadline passed or the run was
   cancelled, the rules not yet started are `skipped` (reason `browser_crashed`, `run_timeout`,
   `cancelled`); a failed entry navigation fails the first rule (`setup`) and skips the rest.
   When a one-rule scenario's first step is a goto to the entry URL itself (flow-spec v1's own
   example), that step is the entry navigation: the page is loaded once, not twice, and a page
   that will not load fails that step (same runtime code and class) instead of the setup;
2. **parent gating** – a rule whose parent did not pass is `skipped` (`parent_failed`), its
   `Failure.parent` names the first such parent and carries that parent's root-cause class;
3. **guards** – the expects that open a rule (before its first act, goto, wait, extract or
   emit) are checked with the short guard timeout; a rule made only of expects is all guards;
   flows (`guards_enabled=False`) have no guard section;
4. **retry-redo** – while guards fail and `retry.max` allows: replay the body's actions (goto,
   act and wait steps, never its observations, extracts or emits), sleep `delay_ms`, re-check;
   a guard that still fails skips the rule (`guard_failed`), or fails it under `guard_policy: abort`;
5. **body** – steps in order. Acts dismiss interrupts first, re-resolve a `target` when the
   pinned selector matches nothing, retry once after dismissing when they raise, honour
   `await_selector`, check the allowlist and run their verifiers. An act whose target is not in
   the main frame (selectors do not cross into frames) looks, on that failure path only, in the
   child frames like a check does; when one has it the failure (ELEMENT_NOT_FOUND) names that
   frame. Expects wait their own `timeout_ms`, else the rule's, else the run's `expect_timeout_ms`
   (5 s); `wait for` and extracts wait the rule's timeout. Emits record page state and never fail.
   A failed required step halts the rule and lists the rest as skipped; a failed `optional: true` step
   becomes a warning finding;
6. **flow assertions** – graded after a flow's steps (see `_grade_assertions`).

Failure evidence (page state, accessibility snapshot, screenshot) is best effort and never
outlives its reason: it is skipped when the page has not committed a document (a navigation still
waiting for its answer: the browser would hold the snapshot and the screenshot until it comes,
see browser/session.py `uncommitted`), when less than EVIDENCE_MIN_MS is left of the run or of the rule (plus
EVIDENCE_GRACE_MS), and the screenshot when the page did not answer the snapshot. What is taken
gets at most that same remainder as its timeout (`_evidence_timeout_ms`). The failure's
`context["evidence_skipped"]` says what was skipped and why.

A click can "pass" without reaching its element: content that arrives between mouse-down and
mouse-up moves the page, the mouse-up lands on another element and the `click` event goes to their
common ancestor. When a step fails and the rule's most recent act was a click or dblclick that
Playwright reported done, the evidence says where that click landed (`context["last_click"]`,
`_click_landing`): the selector it aimed at, what the click and pointerdown events reached, and for
a plain CSS selector a sentence when the click did not reach a match of it. It is read from the
page's own record (browser/session.py `last_click`) in one bounded call, only on this failure path
and only when evidence is taken at all; the passing path pays nothing for it.

Timeouts: every browser operation is capped by the rule deadline (`rule.timeout_ms`, only when
the rule sets one, as in aitester-bdd) and by the run deadline. A step cut by the run deadline
fails with `infrastructure_error`/`RUN_TIMEOUT` (step kind `run_timeout`); one cut by the rule
deadline fails with `TIMEOUT`.

Variables are substituted here, at the browser boundary, and secrets only into the `value` of
fill and press. Every event leaves through `redact_event`, so no secret value reaches `emit`.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from flowwalk import events as ev
from flowwalk.browser.errors import InvalidSelector, PlaywrightError, is_invalid_selector, is_timeout
from flowwalk.browser.launch import Browser, BrowserCrashed
from flowwalk.browser.locate import locate
from flowwalk.browser.network import matching_beacons
from flowwalk.browser.session import NavigationBlocked
from flowwalk.model import Act, Assertion, Emit, EmitField, Expect, Extract, Goto, Rule, Scenario, Step, Wait
from flowwalk.plan.dag import topo_order
from flowwalk.settings import Settings
from flowwalk.spec.variables import LITERAL_KINDS
from flowwalk.walk.attempt import Attempt, Budget, RuleState
from flowwalk.walk.boundary import Halt, gone, halt_if_gone, runtime_code, short
from flowwalk.walk.checks import FRAME_LOOK_MS, look_in_frames, read_ahead, run_check
from flowwalk.walk.context import RunContext
from flowwalk.walk.outcomes import (ScenarioOutcome, StepFailed, StepResult, parent_gate, rule_finished,
                                    scenario_status, skipped_steps, skipped_text, will_retry)
from flowwalk.walk.recovery import RecoveryLog, make_failure
from flowwalk.walk.resolve import resolve_target
from flowwalk.walk.verifiers import VerifierContext, run_verifiers

Emit_ = Callable[[ev.Event], None]

#: how long an act waits for its pinned selector before re-resolving its `target` instead (a
#: step with no target waits the full action timeout): long enough for a page still rendering.
TARGET_GRACE_MS = 1000
#: an interrupt is clicked only if already visible, and the click itself may not dawdle
DISMISS_CLICK_MS = 500
#: at most this many matches of one dismiss selector are clicked in one pass
DISMISS_MAX_MATCHES = 5
#: polling interval of the walker's own waits (await, wait-for, extract, target grace)
POLL_S = 0.1
#: beacon_fires is graded after the flow; a beacon sent by the last action may still be in
#: flight, so the grade waits this long for it (it passes as soon as it lands)
BEACON_GRACE_MS = 1000
#: emit fields read page state without waiting for it
EMIT_READ_MS = 1000
#: emit field values longer than this are cut (an html field can be large)
EMIT_VALUE_MAX = 4000
#: an accessibility snapshot longer than this goes to `context/` and the record keeps its head
A11Y_INLINE_LIMIT = 4000
A11Y_FILE_LIMIT = 200_000
#: browser/session.py's own bound on an accessibility snapshot; an empty one that took most of it
#: means the page is not answering, and the screenshot (bound 10 s) is not tried after it
A11Y_TIMEOUT_MS = 5000
#: the most the page's title may take in the failure evidence (a blocked main thread never answers)
TITLE_TIMEOUT_MS = 2_000
#: the most a screenshot may take (less when the run or the rule has less left: `_evidence_timeout_ms`)
SCREENSHOT_TIMEOUT_MS = 10_000
#: the most reading where the last click landed may take (a failure's evidence; `_click_landing`)
LAST_CLICK_TIMEOUT_MS = 1_000
#: the page's clock and ours are the same system clock; this absorbs their rounding only
CLICK_CLOCK_SLACK_MS = 2
#: failure evidence is not started with less than this left of the run, or of the rule's time
#: plus EVIDENCE_GRACE_MS (a rule that used up its time still gets the evidence of why)
EVIDENCE_MIN_MS = 300
EVIDENCE_GRACE_MS = 2000

_SLUG_BAD = re.compile(r"[^a-z0-9._-]+")
#: Playwright selectors that are not CSS: an engine prefix (`text=`, `role=`, `internal:role=`,
#: `data-testid=`), chaining, XPath, a quoted text, or one of Playwright's own pseudo-classes
_ENGINE_PREFIX = re.compile(r"^[a-z][a-z0-9_-]*(?::[a-z][a-z0-9_-]*)?\s*=", re.IGNORECASE)
_PLAYWRIGHT_PSEUDO = re.compile(r":(?:has-text|text|text-is|text-matches|visible|nth-match|right-of|left-of|above|"
                                r"below|near|scope)\b", re.IGNORECASE)


def slug(text: str, limit: int = 80) -> str:
    """`text` as [a-z0-9._-] only; long ones end in a short hash so they stay unique."""
    out = _SLUG_BAD.sub("-", text.lower()).strip("-.") or "x"
    if len(out) > limit:
        out = out[: limit - 11].rstrip("-.") + "-" + hashlib.sha1(text.encode()).hexdigest()[:10]
    return out


def screenshot_name(scenario_id: str, rule: str | None, index: int, kind: str, attempt: int) -> str:
    """`screenshots/<scenario>[--<rule>]--<NN>-<kind>-a<attempt>.png`: deterministic, never a value.

    Built from the scenario id and rule name as written (placeholders unsubstituted), so no
    variable or secret value can end up in a file name. A flow's one rule is the flow itself,
    so its name is left out (`rule=None`).
    """
    middle = f"--{slug(rule, 60)}" if rule else ""
    return f"screenshots/{slug(scenario_id)}{middle}--{index:02d}-{slug(kind, 20)}-a{attempt}.png"


def walk_scenario(scenario: Scenario, browser: Browser, settings: Settings, run: RunContext, attempt: int,
                  emit: Emit_, *, earlier_failures: frozenset[str] = frozenset()) -> ScenarioOutcome:
    """Walk one attempt of `scenario` in a fresh browser context and emit its events.

    `earlier_failures` holds the test ids that failed in this scenario's earlier attempts: a
    test among them that passes now is reported `flaky`. Raises nothing for page or browser
    trouble (that becomes failures); a BrowserCrashed is reported in the outcome.
    """
    return _ScenarioWalk(scenario, browser, settings, run, attempt, emit, earlier_failures).walk()


# --- internal ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Click:
    """A click or dblclick that Playwright reported done: what it aimed at and when it ran."""

    index: int
    action: str
    #: the selector the act used (the pinned one, or what its target resolved to)
    selector: str | None
    #: wall-clock milliseconds (the page's Date.now() clock) just before and just after the action
    started_ms: float
    ended_ms: float

    def sent(self, entry: Any) -> bool:
        """Was this recorded event sent by this action (and not by an earlier or later one)?"""
        t = entry.get("t") if isinstance(entry, dict) else None
        return (isinstance(t, (int, float)) and not isinstance(t, bool)
                and self.started_ms - CLICK_CLOCK_SLACK_MS <= t <= self.ended_ms + CLICK_CLOCK_SLACK_MS)


def plain_css(selector: str | None) -> bool:
    """Is `selector` plain CSS, which `document.querySelectorAll` reads as Playwright does? (Not a
    `text=`/`role=`/... engine, not chained with `>>`, not XPath, no Playwright pseudo-class.)"""
    text = (selector or "").strip()
    if not text or ">>" in text or text.startswith(("/", "(", "..", '"', "'")):
        return False
    return not _ENGINE_PREFIX.match(text) and not _PLAYWRIGHT_PSEUDO.search(text)


def _landing_text(entry: dict[str, Any]) -> str:
    """`tag#id.class.class[data-testid="x"]`: how a recorded event target is named."""
    out = str(entry.get("tag") or "?")
    if entry.get("id"):
        out += f"#{entry['id']}"
    out += "".join(f".{c}" for c in entry.get("classes") or () if isinstance(c, str) and c)
    if entry.get("testid"):
        out += f'[data-testid="{entry["testid"]}"]'
    return out


def _landing(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """A recorded event target as the evidence shows it."""
    if entry is None:
        return None
    shown: dict[str, Any] = {"element": _landing_text(entry)}
    if entry.get("text"):
        shown["text"] = str(entry["text"])
    if entry.get("connected") is False:
        shown["detached"] = True   # it left the page since
    return shown


def _kind(step: Step) -> str:
    return type(step).__name__.lower()


def _step_kind_for_failure(step: Step, role: str) -> str:
    if role == "guard":
        return "guard"
    if isinstance(step, (Expect, Extract)):
        return "observation_or_assertion"
    return "action"


class _ScenarioWalk(Attempt):
    # --- the walk ---

    def walk(self) -> ScenarioOutcome:
        t0 = time.monotonic()
        sc = self.scenario
        self.emit(ev.ScenarioStarted(scenario_id=sc.id, attempt=self.number, worker=self.run.worker,
                                     t=self.run.elapsed_s()))
        order = topo_order(list(sc.rules))
        setup_failure: ev.Failure | None = None
        try:
            setup_failure = self._open()
        except Halt:
            setup_failure = self._crash_failure("setup", None, None, "the browser crashed or disconnected while "
                                                "opening the scenario")
        # the rule that carries a setup failure spent this long on it (the entry navigation and its evidence)
        self.setup_ms = (time.monotonic() - t0) * 1000
        walked: list[ev.RuleFinished] = []
        try:
            for rule in order:
                result = self._rule_or_skip(rule, setup_failure)
                if setup_failure is not None:
                    self.control.after_setup_failure()
                self.results[rule.name] = result
                walked.append(result)
                self.emit(result)
        finally:
            trace, withheld = self._close(walked)
        status = scenario_status(walked, self.number)
        duration = round((time.monotonic() - t0) * 1000, 1)
        final = not will_retry(status, self.number, self.settings.retries, run_timed_out=self.control.run_timed_out,
                               cancelled=self.control.cancelled)
        self.emit(ev.ScenarioFinished(scenario_id=sc.id, attempt=self.number, status=status,
                                      duration_ms=duration, final=final, trace=trace, trace_withheld=withheld))
        return ScenarioOutcome(scenario_id=sc.id, attempt=self.number, status=status, rules=tuple(walked),
                               duration_ms=duration, browser_crashed=self.control.crashed,
                               run_timed_out=self.control.run_timed_out, cancelled=self.control.cancelled,
                               final=final)

    def _open(self) -> ev.Failure | None:
        """A fresh context, then the entry URL and one interrupt pass. A failure fails the first rule."""
        sc = self.scenario
        text = f"open the entry URL {sc.entry_url}"
        entry_problem: StepFailed | None = None
        if sc.entry_url:
            try:
                url = self.bindings.subst(sc.entry_url)
                assert url is not None
                self.entry_url = self.absolute(url)
            except StepFailed as failed:
                entry_problem = failed
        try:
            self.session = self.browser.new_session(entry_url=self.entry_url, allowed_hosts=self.allowed_hosts,
                                                    trace=self.settings.trace != "off",
                                                    offline=self.settings.offline)
        except BrowserCrashed:
            raise Halt from None
        except Exception as exc:  # noqa: BLE001 - a dead browser may raise Playwright's own error
            halt_if_gone(exc, self)
            return make_failure("INTERNAL", step_kind="setup", message=f"could not open a browser context: "
                                f"{short(exc)}", step_text=text, loc=sc.loc)
        if entry_problem is not None:
            return make_failure(entry_problem.code, step_kind="setup", message=entry_problem.message,
                                step_text=text, expected=entry_problem.expected, observed=entry_problem.observed,
                                loc=sc.loc)
        if not self.entry_url:
            return None
        if self._first_step_opens_entry():
            # the flow's first step navigates to the entry URL itself (flow-spec v1's own example
            # does): that step is the opening navigation, instead of loading the page twice
            self.entry_deferred = True
            return None
        try:
            self._goto(self.entry_url, self.budget)
        except StepFailed as failed:
            code = "RUN_TIMEOUT" if self.run.timed_out() else failed.code
            if code == "RUN_TIMEOUT":
                self.control.mark_run_timeout(stop=False)
            return make_failure(code, step_kind="run_timeout" if code == "RUN_TIMEOUT" else "setup",
                                message=failed.message, step_text=text, expected=failed.expected,
                                observed=failed.observed, loc=sc.loc, context=self._context(None))
        self._dismiss(self.global_dismiss())
        return None

    def _first_step_opens_entry(self) -> bool:
        """Is the first step of a one-rule scenario a goto to exactly the entry URL?

        Only when that URL resolves the same before the page is open: absolute, or relative to
        --base-url (a relative URL without it would resolve against the page).
        """
        rules = self.scenario.rules
        if len(rules) != 1 or not rules[0].steps or not isinstance(rules[0].steps[0], Goto):
            return False
        try:
            url = self.bindings.subst(rules[0].steps[0].url)
        except StepFailed:
            return False
        if not url or not (urlsplit(url).scheme or self.settings.base_url):
            return False
        try:
            return self.absolute(url) == self.entry_url
        except StepFailed:
            return False

    def _close(self, walked: Sequence[ev.RuleFinished]) -> tuple[str | None, str | None]:
        if self.session is None:
            return None, None
        failed = any(r.status == "failed" for r in walked)
        wanted = self.settings.trace == "on" or (self.settings.trace == "on-failure" and failed)
        trace: str | None = None
        withheld: str | None = None
        if wanted and self.bindings.typed_secret:
            # A trace keeps DOM snapshots and typed input: it would hold the secret in clear.
            withheld = "a secret was typed in this scenario; its trace would contain the value"
        elif wanted and not self.control.crashed:
            trace = f"traces/{slug(self.scenario.id)}-a{self.number}.zip"
        try:
            self.session.close(self.run.out_dir / trace if trace else None)
        except Exception:  # noqa: BLE001 - closing a crashed context must not hide the results
            trace = None
        if trace and not (self.run.out_dir / trace).exists():
            trace = None
        return trace, withheld

    # --- rules ---

    def _rule_or_skip(self, rule: Rule, setup_failure: ev.Failure | None) -> ev.RuleFinished:
        if setup_failure is not None and not self.results:
            # the first rule carries the setup failure, and the time spent on it; the rest are skipped below
            return self._finished(rule, "failed", self.setup_ms, failure=setup_failure,
                                  skipped_steps=skipped_steps(rule.steps))
        stop = self.control.poll()
        if stop:
            return self._finished(rule, "skipped", 0.0, reason=stop)
        gated = parent_gate(rule, self.results)
        if gated is not None:
            return self._finished(rule, "skipped", 0.0, reason="parent_failed", failure=gated)
        return self._walk_rule(rule)

    def _finished(self, rule: Rule, status: str, duration_ms: float, *, reason: str = "",
                  failure: ev.Failure | None = None, skipped_steps: tuple[str, ...] = (),
                  findings: tuple[ev.Finding, ...] = (), guard_attempts: int = 0,
                  screenshots: tuple[str, ...] = ()) -> ev.RuleFinished:
        return rule_finished(self.scenario, rule, self.number, status, duration_ms,
                             earlier_failures=self.earlier_failures, reason=reason, failure=failure,
                             skipped_steps=skipped_steps, findings=findings, guard_attempts=guard_attempts,
                             screenshots=screenshots)

    def scope_of(self, rule: Rule) -> str | None:
        """The selector scope of `rule`: what its nearest scoped ancestors compose to.

        A rule's `child_scope` applies to its descendants, not to itself. Through the DAG the
        first parent (declaration order) that yields a scope wins, and an ancestor's scope and a
        nearer one compose as `outer >> inner`.
        """
        by_name = {r.name: r for r in self.scenario.rules}
        memo: dict[str, str | None] = {}

        def for_children(name: str) -> str | None:
            if name in memo:
                return memo[name]
            if name not in by_name:
                return None
            memo[name] = None  # the loaders refuse cycles; this only keeps a bad DAG from recursing
            parent_rule = by_name[name]
            outer = inherited(parent_rule)
            inner = parent_rule.child_scope
            memo[name] = f"{outer} >> {inner}" if outer and inner else (inner or outer)
            return memo[name]

        def inherited(r: Rule) -> str | None:
            for p in r.parents:
                scope = for_children(p)
                if scope:
                    return scope
            return None

        return inherited(rule)

    def _walk_rule(self, rule: Rule) -> ev.RuleFinished:
        t0 = time.monotonic()
        state = RuleState(rule=rule, scope=self.scope_of(rule), budget=self.budget.for_rule(rule.timeout_ms, t0),
                          observe_ms=rule.timeout_ms or self.settings.rule_timeout_ms,
                          guard_ms=(rule.guard_timeout_ms if rule.guard_timeout_ms is not None
                                    else self.settings.guard_timeout_ms),
                          dismiss=self.dismiss_list(rule))
        steps = list(enumerate(rule.steps, start=1))
        if rule.guards_enabled:
            split = next((i for i, (_, s) in enumerate(steps) if not isinstance(s, Expect)), len(steps))
        else:
            split = 0
        guards, body = steps[:split], steps[split:]
        if rule.screenshot_on_enter and self.settings.screenshots != "off":
            shot = self._screenshot(rule, 0, "enter")
            if shot:
                state.screenshots.append(shot)
        try:
            if guards:
                held = self._guards_with_retry(state, guards, body)
                if not held:
                    assert state.guard_failure is not None
                    rest = tuple(skipped_text(i, s) for i, s in body)
                    # abort fails the rule; so does a guard the run deadline cut (it was in flight)
                    if rule.guard_policy == "abort" or state.guard_failure.runtime_code == "RUN_TIMEOUT":
                        aborted = replace(state.guard_failure, context=self._context(state.scope, state.budget,
                                                                                      state.clicked))
                        aborted = self._with_failure_evidence(state, aborted, aborted.step_index or 0)
                        return self._finished(rule, "failed", (time.monotonic() - t0) * 1000, failure=aborted,
                                              skipped_steps=rest, guard_attempts=state.guard_rounds,
                                              screenshots=tuple(state.screenshots))
                    return self._finished(rule, "skipped", (time.monotonic() - t0) * 1000,
                                          reason="guard_failed", failure=state.guard_failure, skipped_steps=rest,
                                          guard_attempts=state.guard_rounds, screenshots=tuple(state.screenshots))
            failure, skipped = self._run_body(state, body)
            if failure is None and rule.verify:
                failure = self._rule_verifiers(state, len(rule.steps) + 1)
                if failure is not None:
                    failure = self._with_failure_evidence(state, failure, len(rule.steps) + 1)
            if not rule.guards_enabled and self.scenario.assertions:
                failure = self._grade_assertions(state, failure)
        except Halt:
            state.failure = self._crash_failure(state.current_kind, state.current_index, state.current_step,
                                                "the browser crashed or disconnected mid-rule")
            failure = state.failure
            skipped = tuple(skipped_text(i, s) for i, s in steps if i > (state.current_index or 0))
            self.control.stop("browser_crashed")
        status = "failed" if failure is not None else "passed"
        return self._finished(rule, status, (time.monotonic() - t0) * 1000, failure=failure,
                              skipped_steps=skipped, findings=tuple(state.findings),
                              guard_attempts=state.guard_rounds, screenshots=tuple(state.screenshots))

    def _crash_failure(self, step_kind: str, index: int | None, step: Step | None, message: str) -> ev.Failure:
        self.control.mark_crashed()
        code = "BROWSER_CRASHED"
        # the run's watchdog stops Chromium when a cancel or the run timeout could not otherwise
        # end a stuck step: say which, not "crashed"
        if self.run.cancel.is_set():
            code, message = "CANCELLED", "the run was cancelled while this step ran; flowwalk stopped the browser"
        elif self.run.timed_out():
            code, step_kind = "RUN_TIMEOUT", "run_timeout"
            message = (f"the run timeout ({self.settings.run_timeout_s:g} s) passed while this step was stuck; "
                       f"flowwalk stopped the browser")
        return make_failure(code, step_kind=step_kind if step_kind in (
            "guard", "action", "observation_or_assertion", "setup", "assertion", "run_timeout") else "action",
            message=message, step_index=index, step_text=step.text if step else "",
            loc=step.loc if step else self.scenario.loc)

    # --- guards and retry-redo ---

    def _guards_with_retry(self, state: RuleState, guards: list[tuple[int, Step]],
                           body: list[tuple[int, Step]]) -> bool:
        rule = state.rule
        held = self._check_guards(state, guards, round_=1)
        log = RecoveryLog()
        round_ = 0
        while not held and round_ < rule.retry.max:
            if state.budget.spent():
                break
            round_ += 1
            replayed = self._replay_actions(state, body, round_)
            self._sleep_ms(state.budget.cap_ms(rule.retry.delay_ms))
            held = self._check_guards(state, guards, round_=round_ + 1)
            log.record("retry_redo", "recovered" if held else "failed",
                       f"round {round_}: replayed {replayed or 'no actions'}; waited {rule.retry.delay_ms} ms; "
                       + ("guards held" if held else "guards still failing"))
        if state.guard_failure is not None and len(log):
            state.guard_failure = replace(state.guard_failure, recovery=log.attempts)
        if held and round_:
            # not a fault of the site, but worth knowing: this rule only held after replays
            state.findings.append(ev.Finding(severity="info", source="retry_redo",
                                             message=f"guards held after {round_} retry-redo round(s): "
                                                     + "; ".join(a.detail for a in log.attempts)))
        return held

    def _check_guards(self, state: RuleState, guards: list[tuple[int, Step]], *, round_: int) -> bool:
        state.guard_rounds += 1
        state.guard_failure = None
        for index, step in guards:
            result = self._run_step(state, index, step, role="guard", detail={"round": round_})
            if result.status == "failed":
                state.guard_failure = result.failure
                return False
        return True

    def _replay_actions(self, state: RuleState, body: list[tuple[int, Step]], round_: int) -> str:
        """Replay the body's actions for retry-redo; their failures are ignored (the guards judge)."""
        done: list[str] = []
        for index, step in body:
            if not isinstance(step, (Act, Goto, Wait)):
                continue
            if state.budget.spent():
                break
            self._run_step(state, index, step, role="body", detail={"replay": round_})
            done.append(f"step {index}")
        return ", ".join(done)

    # --- body ---

    def _run_body(self, state: RuleState, body: list[tuple[int, Step]]) -> tuple[ev.Failure | None, tuple[str, ...]]:
        for pos, (index, step) in enumerate(body):
            # the expects right after this one (no step between them changes the page): their first
            # reads are taken during this expect's first interval (checks.run_check)
            state.following = []
            if isinstance(step, Expect):
                for later_index, later in body[pos + 1:]:
                    if not isinstance(later, Expect):
                        break
                    state.following.append((later_index, later))
            else:
                state.early.clear()
            state.next_step = body[pos + 1][1] if pos + 1 < len(body) else None
            result = self._run_step(state, index, step, role="body")
            state.following = []
            state.next_step = None
            if result.status != "failed":
                continue
            assert result.failure is not None
            failure = result.failure
            infra = failure.failure_class == "infrastructure_error"
            if step.optional and not infra:
                continue  # the finding was recorded by _run_step
            failure = self._with_failure_evidence(state, failure, index)
            state.failure = failure
            rest = tuple(skipped_text(i, s) for i, s in body[pos + 1:])
            return failure, rest
        return None, ()

    def _with_failure_evidence(self, state: RuleState, failure: ev.Failure, index: int) -> ev.Failure:
        """Add the failure screenshot (when the rule wants one), unless there is no page to show
        or no time left for it: then the context says why it was skipped."""
        if failure.screenshot or self.control.crashed:
            return failure
        if state.rule.screenshot_on_fail and self.settings.screenshots != "off":
            why = self.unresponsive or self._evidence_skip_reason(state.budget)
            if why:
                skipped = {**(failure.context.get("evidence_skipped") or {}), "screenshot": why}
                return replace(failure, context={**failure.context, "evidence_skipped": skipped})
            shot = self._screenshot(state.rule, index, "fail",
                                    state.budget.evidence_ms(SCREENSHOT_TIMEOUT_MS))
            if shot:
                state.screenshots.append(shot)
                return replace(failure, screenshot=shot)
        return failure

    def _evidence_skip_reason(self, budget: Budget) -> str | None:
        """Why failure evidence (a snapshot, a screenshot) is not taken now, or None to take it."""
        if self.session is not None:
            why = self.session.uncommitted()
            if why:
                return why
        return budget.evidence_skip()

    def _run_step(self, state: RuleState, index: int, step: Step, *, role: str,
                  detail: dict[str, Any] | None = None) -> StepResult:
        """Run one step and emit its StepFinished. Raises Halt when the browser is gone."""
        t0 = time.monotonic()
        state.current_index, state.current_step = index, step
        state.current_kind = _step_kind_for_failure(step, role)
        result = StepResult(status="passed", detail=dict(detail or {}))
        try:
            if state.budget.rule_over():
                raise StepFailed("TIMEOUT", f"rule timeout of {state.rule.timeout_ms} ms passed before this step",
                                  expected=f"the rule done within {state.rule.timeout_ms} ms",
                                  observed="deadline passed")
            if state.budget.run_over():
                raise StepFailed("RUN_TIMEOUT", "the run timeout passed before this step")
            if self.session is not None:
                # an action's navigation may reach the network only after the action returned
                # (a loaded machine), and a page script may leave on its own during a wait: catch
                # either before this step runs, blaming the last action when there was one. No
                # pump here: the action's own check pumped, and every call since delivered events
                self._check_navigation(caused_by=state.last_act, pump=False)
            self._dispatch(state, step, role, result)
            if isinstance(step, Act):
                state.last_act = (index, step)
        except StepFailed as failed:
            result.status = "failed"
            result.failure = self._step_failure(state, index, step, role, failed, result)
        except Exception as exc:  # noqa: BLE001 - anything the page or Playwright throws is a step result
            if isinstance(exc, Halt) or gone(exc, self.session, self.browser):
                self._emit_step(state, index, step, role, StepResult(status="failed", detail=result.detail), t0)
                raise Halt from None
            code = runtime_code(exc, "ACTION_REJECTED" if isinstance(step, (Act, Goto)) else "INTERNAL")
            result.status = "failed"
            result.failure = self._step_failure(state, index, step, role,
                                                StepFailed(code, short(exc)), result)
        if result.status == "failed" and step.optional and role == "body" and result.failure is not None \
                and result.failure.failure_class != "infrastructure_error":
            result.status = "warning"
            state.findings.append(ev.Finding(severity="warning", source="step",
                                             message=f"optional step {index} ({step.text}) failed: "
                                                     f"{result.failure.message}",
                                             step_index=index, kind=_kind(step)))
        if self.settings.screenshots == "on" and role == "body" and not self.control.crashed:
            shot = self._screenshot(state.rule, index, "step")
            if shot:
                result.detail["screenshot"] = shot
                state.screenshots.append(shot)
        self._emit_step(state, index, step, role, result, t0)
        return result

    def _emit_step(self, state: RuleState, index: int, step: Step, role: str, result: StepResult,
                   t0: float) -> None:
        self.emit(ev.StepFinished(
            scenario_id=self.scenario.id, rule=state.rule.name, test_id=self.scenario.test_id(state.rule),
            attempt=self.number, index=index, text=step.text, kind=_kind(step), role=role, status=result.status,
            duration_ms=round((time.monotonic() - t0) * 1000, 1), path=step.loc.path, line=step.loc.line,
            reads=result.reads, failure=result.failure, detail=result.detail))

    def _step_failure(self, state: RuleState, index: int, step: Step, role: str, failed: StepFailed,
                      result: StepResult) -> ev.Failure:
        code, message, step_kind = failed.code, failed.message, _step_kind_for_failure(step, role)
        remaining = state.budget.run_left_ms()
        # a wait capped by the run deadline can give up a hair before it (timer granularity)
        cut_by_run = remaining is not None and remaining <= 50
        if code == "RUN_TIMEOUT" or (code in ("TIMEOUT", "ELEMENT_NOT_FOUND", "EXPECT_STATE_MISMATCH")
                                     and cut_by_run):
            # the run deadline, not the page, cut this step short
            self.control.mark_run_timeout()
            code, step_kind = "RUN_TIMEOUT", "run_timeout"
            message = f"the run timeout ({self.settings.run_timeout_s:g} s) passed: {message}"
        elif code in ("TIMEOUT", "ELEMENT_NOT_FOUND") and state.budget.rule_over():
            code = "TIMEOUT"
            message = f"rule timeout of {state.rule.timeout_ms} ms passed: {message}"
        # guards fail as a matter of course (that is how a rule gets skipped): evidence is only
        # gathered for them when the rule fails under guard_policy: abort
        context = {} if role == "guard" else self._context(state.scope, state.budget, state.clicked)
        landing = context.get("last_click") or {}
        if landing.get("on_target") is False and landing.get("note"):
            # the likeliest reason for this failure: said where every reader sees it (console, summary, PR)
            message = f"{message}; {landing['note']}"
        if failed.caused_by is not None:
            index, step = failed.caused_by
            step_kind = _step_kind_for_failure(step, role)
        return make_failure(code, step_kind=step_kind, message=message, step_index=index, step_text=step.text,
                            expected=failed.expected, observed=failed.observed, loc=step.loc,
                            recovery=result.recovery.attempts, candidates=failed.candidates, context=context)

    def _context(self, scope: str | None, budget: Budget | None = None,
                 clicked: _Click | None = None) -> dict[str, Any]:
        """The page's evidence at the moment of a failure (redacted on the way out).

        The accessibility snapshot is skipped when `_evidence_skip_reason` says so; one that came
        back empty after most of its time marks the page unresponsive, so the failure screenshot
        is not tried either (`_with_failure_evidence`). `clicked` is the rule's most recent act
        when it was a click: where it landed is added (`last_click`) when the page is asked at all."""
        self.unresponsive = None
        if self.session is None or self.control.crashed:
            return {}
        budget = budget or self.budget
        why = self._evidence_skip_reason(budget)
        title_ms = budget.evidence_ms(TITLE_TIMEOUT_MS)
        started = time.monotonic()
        try:
            # with no document (or no time) the page is not asked at all: only what events recorded
            context = dict(self.session.evidence(timeout_ms=None if why else title_ms))
        except Exception:  # noqa: BLE001 - evidence is best effort
            context = {}
        took_ms = (time.monotonic() - started) * 1000
        if not why and not context.get("title") and took_ms >= title_ms * 0.8:
            # a page that cannot say its title in time will not draw a snapshot or a picture either
            self.unresponsive = why = f"the page did not answer for its title in {took_ms / 1000:.1f} s"
        snapshot = ""
        if why:
            context["evidence_skipped"] = {"a11y_snapshot": why}
        else:
            snapshot_ms = budget.evidence_ms(A11Y_TIMEOUT_MS)   # after the title's time
            started = time.monotonic()
            try:
                snapshot = self.session.a11y_snapshot(scope, limit=A11Y_FILE_LIMIT, timeout_ms=snapshot_ms)
            except Exception:  # noqa: BLE001
                snapshot = ""
            took_ms = (time.monotonic() - started) * 1000
            if not snapshot and took_ms >= snapshot_ms * 0.8:
                self.unresponsive = f"the page did not answer the accessibility snapshot in {took_ms / 1000:.1f} s"
                context["evidence_skipped"] = {"a11y_snapshot": f"no answer in {took_ms / 1000:.1f} s: the page is "
                                                                f"not responding"}
        if len(snapshot) > A11Y_INLINE_LIMIT:
            # a large snapshot goes to a file the record references; the record keeps its head
            self.context_files += 1
            name = (f"context/{slug(self.redact(self.scenario.id))}--a{self.number}"
                    f"-{self.context_files:02d}.aria.yaml")
            try:
                path = self.run.out_dir / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(self.redact(snapshot), encoding="utf-8")
                context["a11y_snapshot_file"] = name
            except OSError:
                pass
            cut = snapshot.rfind("\n", 0, A11Y_INLINE_LIMIT)
            snapshot = snapshot[:cut if cut > 0 else A11Y_INLINE_LIMIT] + "\n# … the whole snapshot is in the file"
        if snapshot:
            context["a11y_snapshot"] = snapshot
        if scope:
            context["scope"] = scope
        if clicked is not None and not why and not self.unresponsive:
            landing = self._click_landing(clicked, budget.evidence_ms(LAST_CLICK_TIMEOUT_MS))
            if landing is not None:
                context["last_click"] = landing
        return context

    def _click_landing(self, clicked: _Click, timeout_ms: float) -> dict[str, Any] | None:
        """Where the click of `clicked` landed, from the page's own record (one bounded read), or
        None when the page has no event of that click (it navigated since, or did not answer).

        Playwright checks that the mouse-down hits the element, not where the mouse-up lands. For
        a plain CSS selector the click's target is compared with what the selector matches now
        (the match itself, or the button or link around it, as Playwright aims): one outside it
        gets a sentence saying so. Other selectors only have their targets reported."""
        if self.session is None:
            return None
        compare = clicked.selector if plain_css(clicked.selector) else None
        try:
            record = self.session.last_click(compare, timeout_ms=timeout_ms)
        except Exception:  # noqa: BLE001 - the interface says never raises; be sure
            record = None
        if not record:
            return None
        hit = record.get("click") if clicked.sent(record.get("click")) else None
        down = record.get("pointerdown") if clicked.sent(record.get("pointerdown")) else None
        if hit is None and down is None:
            return None
        out: dict[str, Any] = {"step": clicked.index, "action": clicked.action, "selector": clicked.selector,
                               "click": _landing(hit), "pointerdown": _landing(down)}
        where = f"the {clicked.action} on step {clicked.index}"
        if hit is None:
            assert down is not None
            out["note"] = (f"{where} pressed the mouse on `{_landing_text(down)}`, but no click event followed on "
                           f"the page (Playwright reported the {clicked.action} done all the same)")
            return out
        if down is not None and isinstance(record.get("in_pointerdown"), bool):
            out["click_on_pointerdown_element"] = record["in_pointerdown"]
        if compare is None:
            return out
        if record.get("invalid_selector"):
            out["not_compared"] = "the page cannot read the selector as CSS"
        elif not record.get("matches"):
            out["not_compared"] = "nothing matches the selector now"
        elif not hit.get("connected"):
            out["not_compared"] = "the clicked element has left the page since"
        elif isinstance(hit.get("inside"), bool):
            out["on_target"] = hit["inside"]
        if out.get("on_target") is False:
            landed = f"{where} reached `{_landing_text(hit)}`, not '{clicked.selector}'"
            if down is not None and down.get("inside") is True:
                out["note"] = (f"{landed}: the page moved under the pointer between mouse-down and mouse-up "
                               f"(the mouse-down was on `{_landing_text(down)}`)")
            else:
                pressed = f"the mouse-down was on `{_landing_text(down)}`" if down is not None else \
                    "no mouse-down was recorded"
                out["note"] = (f"{landed} ({pressed}): something else was under the pointer, or the element "
                               f"it clicked no longer matches '{clicked.selector}'")
        return out

    def _screenshot(self, rule: Rule, index: int, kind: str, timeout_ms: float = SCREENSHOT_TIMEOUT_MS) -> str | None:
        if self.session is None:
            return None
        if self.session.uncommitted():
            return None   # the browser would hold the picture until the document commits
        rule_part = None if self.scenario.kind == "flow" else self.redact(rule.name)
        name = screenshot_name(self.redact(self.scenario.id), rule_part, index, kind, self.number)
        try:
            # a secret typed into a field, or echoed by the page, is painted over: no value in pixels
            ok = self.session.screenshot(self.run.out_dir / name, full_page=self.settings.full_page_screenshots,
                                         hide=self.run.secrets.values(),
                                         timeout_ms=timeout_ms)
        except Exception:  # noqa: BLE001 - the interface says never raises; be sure
            ok = False
        return name if ok else None

    # --- step kinds ---

    def _dispatch(self, state: RuleState, step: Step, role: str, result: StepResult) -> None:
        if isinstance(step, Goto):
            if self.entry_deferred:
                # the scenario's opening navigation (see _open), then its interrupt pass
                self.entry_deferred = False
                assert self.entry_url is not None
                self._goto(self.entry_url, state.budget)
                self._dismiss(self.global_dismiss())
            else:
                url = self.bindings.subst(step.url)
                assert url is not None
                self._goto(self.absolute(url), state.budget)
        elif isinstance(step, Act):
            self._act(state, step, result)
        elif isinstance(step, Expect):
            self._expect(state, step, role, result)
        elif isinstance(step, Wait):
            self._wait(state, step)
        elif isinstance(step, Extract):
            self._extract(state, step, result)
        elif isinstance(step, Emit):
            self._emit_step_record(state, step, result)
        else:  # pragma: no cover - the model has no other step types
            raise StepFailed("INTERNAL", f"unknown step type {type(step).__name__}")
        if step.verify and role == "body" and not isinstance(step, Act):
            # acts run theirs with what they wrote (see _act); any other step gets them here
            self._verify(state, step, step.verify, None, None, result)

    @property
    def page(self) -> Any:
        assert self.session is not None
        return self.session.page

    def _goto(self, url: str, budget: Budget) -> None:
        assert self.session is not None
        timeout = budget.cap_ms(self.settings.navigation_timeout_ms)
        if timeout <= 0:
            raise StepFailed("TIMEOUT", "no time left for the navigation")
        try:
            self.session.goto(url, timeout_ms=int(max(timeout, 1)))
        except NavigationBlocked as blocked:
            raise StepFailed("NAVIGATION_BLOCKED", f"navigation to '{blocked.url}' left the allowlist",
                              expected=self._allowlist_text(), observed=blocked.host) from None
        except BrowserCrashed:
            raise Halt from None
        except Exception as exc:  # noqa: BLE001
            halt_if_gone(exc, self)
            raise StepFailed(runtime_code(exc, "ACTION_REJECTED"), f"navigation to '{url}' failed: {short(exc)}",
                              expected=f"the page at {url}", observed=short(exc)) from None

    def _allowlist_text(self) -> str:
        hosts = self.allowed_host_names()
        return "a host in the allowlist: " + (", ".join(hosts) if hosts else "(entry host)") + " and subdomains"

    def _check_navigation(self, caused_by: tuple[int, Step] | None = None, *, pump: bool = True) -> None:
        assert self.session is not None
        try:
            self.session.check_navigation(pump=pump)
        except NavigationBlocked as blocked:
            raise StepFailed("NAVIGATION_BLOCKED", f"the action navigated to '{blocked.url}', outside the allowlist",
                              expected=self._allowlist_text(), observed=blocked.host,
                              caused_by=caused_by) from None

    def _sleep_ms(self, ms: float) -> None:
        """Sleep while Playwright keeps delivering page events (beacons, navigations, console)."""
        if ms <= 0:
            return
        if self.session is None:
            time.sleep(ms / 1000)
            return
        try:
            self.session.wait(ms)
        except BrowserCrashed:
            raise Halt from None

    def _wait_for(self, selector: str, scope: str | None, timeout_ms: float, *, visible: bool) -> Any:
        """Wait until the selector matches (and its first match is visible when asked); None on timeout.

        One alternative: Playwright's own wait (the page watches for the element, so it is seen
        the moment it lands, in one round trip). A pipe fallback: `locate` polled every POLL_S.
        """
        end = time.monotonic() + timeout_ms / 1000
        located = locate(self.page, selector, scope)
        if located.count > 0 and (not visible or located.locator.first.is_visible()):
            return located
        if len(located.tried) == 1:
            left = int((end - time.monotonic()) * 1000)
            if left < 1:
                return None   # timeout 0 would mean "no timeout" to Playwright
            try:
                located.locator.first.wait_for(state="visible" if visible else "attached", timeout=left)
            except PlaywrightError as exc:
                if is_timeout(exc):
                    return None
                if is_invalid_selector(exc):
                    raise InvalidSelector(located.used, str(exc).splitlines()[0]) from exc
                raise
            located = locate(self.page, selector, scope)
            if located.count > 0:
                return located
            # it went again between the wait and the count: back to polling what is left
        while True:
            if time.monotonic() >= end:
                return None
            self._sleep_ms(min(POLL_S, max(end - time.monotonic(), 0)) * 1000)
            located = locate(self.page, selector, scope)
            if located.count > 0 and (not visible or located.locator.first.is_visible()):
                return located

    # interrupts

    def _dismiss(self, selectors: Sequence[str]) -> int:
        """Click every VISIBLE match of each dismiss selector, quickly; never wait for one."""
        clicked = 0
        if self.session is None:
            return 0
        for selector in selectors:
            try:
                matches = self.page.locator(selector)
                n = matches.count()
            except Exception:  # noqa: BLE001 - a bad selector or a navigating page dismisses nothing
                continue
            for i in range(min(n, DISMISS_MAX_MATCHES)):
                try:
                    item = matches.nth(i)
                    if item.is_visible():
                        item.click(timeout=DISMISS_CLICK_MS)
                        clicked += 1
                except Exception:  # noqa: BLE001 - it vanished or would not take the click: fine
                    continue
        return clicked

    # act

    def _act(self, state: RuleState, step: Act, result: StepResult) -> None:
        recovery = result.recovery
        dismissed = self._dismiss(state.dismiss) if state.dismiss else 0
        if dismissed:
            result.detail["dismissed"] = dismissed
        value = self.bindings.subst(step.value, secrets=step.action in ("fill", "press")) if step.value is not None else None
        target = self._act_target(state, step, result)
        if state.last_act is not None:
            # locating took a round trip that delivered any late navigation of the last action:
            # blame that action before this one changes the page
            self._check_navigation(caused_by=state.last_act, pump=False)
        started = time.time() * 1000
        try:
            self._perform(step, target, value, state.budget.cap_ms(self.settings.action_timeout_ms))
        except StepFailed:
            raise
        except Exception as first:  # noqa: BLE001
            halt_if_gone(first, self)
            # aitester-bdd: an action that raises is retried once after dismissing interrupts,
            # and only when there is something to dismiss (otherwise it would fail the same way).
            if not state.dismiss:
                raise self._action_error(step, first) from None
            again = self._dismiss(state.dismiss)
            started = time.time() * 1000
            try:
                self._perform(step, target, value, state.budget.cap_ms(self.settings.action_timeout_ms))
            except Exception as second:  # noqa: BLE001
                halt_if_gone(second, self)
                recovery.record("dismiss_and_retry", "failed",
                                f"dismissed {again} interrupt(s), retried once: {short(second)}")
                raise self._action_error(step, second, twice=True) from None
            recovery.record("dismiss_and_retry", "recovered",
                            f"first try: {short(first)}; dismissed {again} interrupt(s) and retried once")
        # the act was done (a later failure of this step or the next may come from where a click
        # landed): two clock reads, no round trip
        state.clicked = (_Click(state.current_index or 0, step.action, result.detail.get("selector"), started,
                                time.time() * 1000)
                         if step.action in ("click", "dblclick") else None)
        if step.await_selector:
            awaited = self.bindings.subst(step.await_selector)
            assert awaited is not None
            wait_ms = state.budget.cap_ms(state.observe_ms)
            # Differs from aitester-bdd on purpose: it waits a fixed 30 s and IGNORES a missing
            # await target; here the wait is bounded by the rule timeout and a missing target
            # FAILS the step, since everything after it was written assuming it arrived.
            if self._wait_for(awaited, state.scope, wait_ms, visible=False) is None:
                raise StepFailed("TIMEOUT", f"await: '{awaited}' was not attached within {int(wait_ms)} ms",
                                  expected=f"'{awaited}' attached after the action", observed="not attached")
            result.detail["awaited"] = awaited
        # An act or expect next checks again after its own first round trip (which delivers
        # what this action set off, and more time than a pump gives): no pump needed here then
        self._check_navigation(pump=not isinstance(state.next_step, (Act, Expect)))
        if step.verify:
            self._verify(state, step, step.verify, value, target, result)
        if len(recovery):
            # a step that recovered keeps its recovery record as evidence
            result.detail["recovery"] = [{"strategy": a.strategy, "outcome": a.outcome, "detail": a.detail}
                                         for a in recovery.attempts]

    def _act_target(self, state: RuleState, step: Act, result: StepResult) -> Any:
        """The locator an act works on: the pinned selector, else the re-resolved `target`."""
        selector = self.bindings.subst(step.selector) if step.selector else None
        if selector:
            wait_ms = state.budget.cap_ms(TARGET_GRACE_MS if step.target else self.settings.action_timeout_ms)
            located = self._wait_for(selector, state.scope, wait_ms, visible=False)
            if located is not None:
                result.detail["selector"] = located.used
                if located.count > 1:
                    # like page.click(selector): the first match in document order
                    result.detail["matches"] = located.count
                return located.locator.first
            if not step.target:
                tried = ", ".join(located_tried(self.page, selector, state.scope))
                missing = f"no element matches '{selector}' within {int(wait_ms)} ms"
                observed = f"nothing matched ({tried})"
                frame = self._frame_with_target(state, selector, None)
                if frame is not None:
                    missing = f"{missing}; {_only_in_frame(frame, 'act on')}"
                    observed = f"{observed}; only inside the frame {frame}"
                raise StepFailed("ELEMENT_NOT_FOUND", missing, expected=f"an element matching '{selector}'",
                                  observed=observed)
        target = self.bindings.subst(step.target)
        assert target is not None
        resolution = self._resolve(target, state)
        candidates = tuple(resolution.candidates)
        result.detail["candidates"] = [dict(c) for c in candidates]
        why = "no pinned selector" if not selector else f"pinned selector '{selector}' matched nothing"
        if resolution.selector:
            result.recovery.record("re_resolve_target", "recovered",
                                   f"{why}; '{target}' resolved to {resolution.selector} ({resolution.reason})")
            result.detail["selector"] = resolution.selector
            return self.page.locator(resolution.selector).first
        result.recovery.record("re_resolve_target", "failed", f"{why}; '{target}': {resolution.reason}")
        if candidates:
            raise StepFailed("AMBIGUOUS_TARGET", f"could not resolve the target '{target}': {resolution.reason}",
                              expected=f"one element for '{target}'",
                              observed=f"{len(candidates)} candidate(s), none unique and usable",
                              candidates=candidates)
        message, observed = f"could not resolve the target '{target}': {resolution.reason}", "no candidate"
        frame = self._frame_with_target(state, selector, target)
        if frame is not None:
            message = f"{message}; {_only_in_frame(frame, 'act on')}"
            observed = f"{observed}; only inside the frame {frame}"
        raise StepFailed("ELEMENT_NOT_FOUND", message, expected=f"one element for '{target}'", observed=observed,
                          candidates=candidates)

    def _frame_with_target(self, state: RuleState, selector: str | None, target: str | None) -> str | None:
        """The child frame that has what an act's main frame lacks (failure path only, like a
        check's: `look_in_frames`, at most 4 frames within 1 s and within the rule's and the run's
        time): the pinned selector matches there, or the `target` resolves there to one element."""
        if self.session is None:
            return None
        budget = state.budget.cap_ms(FRAME_LOOK_MS)
        if budget <= 0:
            return None

        def has(frame: Any) -> bool:
            if selector:
                try:
                    if locate(frame, selector, state.scope).count > 0:
                        return True
                except InvalidSelector:
                    pass  # the main frame parsed it (it would have failed there); nothing to find
            return bool(target) and resolve_target(frame, target or "", state.scope).selector is not None

        try:
            return look_in_frames(self.session, has, budget_ms=budget)
        except BrowserCrashed:
            raise Halt from None

    def _resolve(self, target: str, state: RuleState) -> Any:
        """Re-resolve `target`, giving a page still rendering the grace period to show it."""
        end = time.monotonic() + state.budget.cap_ms(TARGET_GRACE_MS) / 1000
        while True:
            resolution = resolve_target(self.page, target, state.scope)
            if resolution.selector or time.monotonic() >= end:
                return resolution
            self._sleep_ms(POLL_S * 2500)

    def _perform(self, step: Act, target: Any, value: str | None, timeout_ms: float) -> None:
        if timeout_ms <= 0:
            raise StepFailed("TIMEOUT", "no time left for the action")
        t = max(int(timeout_ms), 1)
        action = step.action
        if action == "click":
            target.click(timeout=t)
        elif action == "dblclick":
            target.dblclick(timeout=t)
        elif action == "fill":
            target.fill(value or "", timeout=t)
        elif action == "press":
            target.press(value or "", timeout=t)
        elif action == "hover":
            target.hover(timeout=t)
        elif action == "focus":
            target.focus(timeout=t)
        elif action == "check":
            target.check(timeout=t)
        elif action == "uncheck":
            target.uncheck(timeout=t)
        elif action == "select":
            target.select_option(value or "", timeout=t)
        elif action == "upload":
            path = Path(value or "")
            if not path.is_file():
                raise StepFailed("ACTION_REJECTED", f"upload: no file '{value}'",
                                  expected="a file to upload (relative to the working directory)",
                                  observed=f"'{value}' does not exist")
            target.set_input_files(str(path), timeout=t)
        elif action == "scroll":
            target.scroll_into_view_if_needed(timeout=t)
            if value and value.strip().lstrip("-").isdigit():
                target.evaluate("(el, dy) => { const t = (el === document.body || el === document.documentElement)"
                                " ? window : el; t.scrollBy(0, dy); }", int(value))
        else:  # pragma: no cover - the loader refuses other actions
            raise StepFailed("ACTION_REJECTED", f"unknown action '{action}'")

    def _action_error(self, step: Act, exc: BaseException, *, twice: bool = False) -> StepFailed:
        if isinstance(exc, StepFailed):
            return exc
        code = runtime_code(exc, "ACTION_REJECTED")
        what = "raised twice" if twice else "raised"
        return StepFailed(code, f"{step.action} {what}: {short(exc)}", expected=f"{step.action} to succeed",
                           observed=short(exc))

    # expect / wait / extract / emit

    def _substituted(self, step: Expect) -> Expect:
        return replace(
            step,
            # a regular expression is literal (flow-spec v1): never substituted
            value=step.value if step.kind in LITERAL_KINDS else self.bindings.subst(step.value),
            selector=self.bindings.subst(step.selector),
            vendor=self.bindings.subst(step.vendor),
            event=self.bindings.subst(step.event),
            attr=self.bindings.subst(step.attr),
        )

    def _read_ahead(self, state: RuleState) -> None:
        """First reads of the expects that follow the current one (batched stabilization)."""
        assert self.session is not None
        for index, step in state.following:
            try:
                expect = self._substituted(step)
            except StepFailed:
                return   # its own step reports the problem
            try:
                state.early[index] = read_ahead(self.session, expect, scope=state.scope)
            except BrowserCrashed:
                raise Halt from None

    def _expect(self, state: RuleState, step: Expect, role: str, result: StepResult) -> None:
        assert self.session is not None
        expect = self._substituted(step)
        early = state.early.pop(state.current_index, None) if role == "body" and state.current_index else None
        hook = (lambda: self._read_ahead(state)) if role == "body" and state.following else None
        if role == "guard":
            wanted = state.guard_ms
        else:
            # the step's own timeout, else the rule's (a rule file's timeout_ms, `set rule timeout`),
            # else expect_timeout_ms: a failing check gives up after 5 s, not the 30 s rule default
            wanted = (step.timeout_ms if step.timeout_ms is not None
                      else state.rule.timeout_ms or self.settings.expect_timeout_ms)
        timeout = state.budget.cap_ms(wanted)
        check = run_check(self.session, expect, scope=state.scope, timeout_ms=int(timeout),
                          stabilize=step.stabilize or self.settings.stabilize_for(self.scenario.kind), early=early,
                          while_waiting=hook)
        result.reads = check.reads
        result.detail["duration_check_ms"] = round(check.duration_ms, 1)
        if check.passed and state.last_act is not None:
            # the reads delivered any late navigation of the last action: it left the allowlist
            # (and was stopped), so the action is the failure, whatever this check saw
            self._check_navigation(caused_by=state.last_act, pump=False)
        if not check.passed:
            # a page that was navigated away (and blocked) while the check waited did not
            # misbehave: the failure is the navigation, not the expectation
            self._check_navigation(caused_by=state.last_act)
            what = f"{'guard' if role == 'guard' else 'expect'} {step.kind} failed after {check.reads} read(s)"
            if check.frame is not None:
                # the page shows it, inside a frame: the spec cannot reach it, the site is not at fault
                raise StepFailed(check.runtime_code or "ELEMENT_NOT_FOUND",
                                  f"{what}: expected {check.expected}; {_only_in_frame(check.frame, 'expect')}",
                                  expected=check.expected, observed=check.observed)
            raise StepFailed(check.runtime_code or "EXPECT_STATE_MISMATCH",
                              f"{what}: expected {check.expected}; observed {check.observed}",
                              expected=check.expected, observed=check.observed)

    def _wait(self, state: RuleState, step: Wait) -> None:
        if step.ms is not None:
            allowed = state.budget.cap_ms(step.ms)
            self._sleep_ms(allowed)
            if allowed < step.ms:
                raise StepFailed("TIMEOUT", f"wait {step.ms} ms cut short after {int(allowed)} ms",
                                  expected=f"{step.ms} ms", observed=f"{int(allowed)} ms")
            return
        selector = self.bindings.subst(step.for_selector)
        assert selector is not None
        timeout = state.budget.cap_ms(state.observe_ms)
        if self._wait_for(selector, state.scope, timeout, visible=True) is None:
            raise StepFailed("TIMEOUT", f"'{selector}' did not appear within {int(timeout)} ms",
                              expected=f"'{selector}' visible", observed="not visible")

    def _extract(self, state: RuleState, step: Extract, result: StepResult) -> None:
        selector = self.bindings.subst(step.selector)
        assert selector is not None
        timeout = state.budget.cap_ms(state.observe_ms)
        located = self._wait_for(selector, state.scope, timeout, visible=False)
        if located is None:
            raise StepFailed("ELEMENT_NOT_FOUND", f"extract: no element matches '{selector}'",
                              expected=f"an element matching '{selector}'", observed="nothing matched")
        text = located.locator.first.inner_text(timeout=max(int(state.budget.cap_ms(EMIT_READ_MS)), 1))
        self.bindings.extracted[step.into] = text.strip()
        result.detail["into"] = step.into
        result.detail["value"] = text.strip()[:200]

    def _emit_step_record(self, state: RuleState, step: Emit, result: StepResult) -> None:
        """Capture page state into an EmitRecorded event. Never fails: errors are recorded."""
        fields: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for f in step.fields:
            try:
                fields[f.name] = self._emit_field(f, state.scope)
            except StepFailed as failed:
                fields[f.name] = None
                errors[f.name] = failed.message
            except Exception as exc:  # noqa: BLE001 - an emit never fails the rule
                halt_if_gone(exc, self)
                fields[f.name] = None
                errors[f.name] = short(exc)
        try:
            url = self.page.url
        except Exception:  # noqa: BLE001
            url = ""
        self.emit(ev.EmitRecorded(scenario_id=self.scenario.id, rule=state.rule.name, name=step.name, url=url,
                                  fields=fields, t=self.run.elapsed_s()))
        result.detail["fields"] = sorted(fields)
        if errors:
            result.detail["errors"] = errors

    def _emit_field(self, f: EmitField, scope: str | None) -> Any:
        page = self.page
        if f.source == "url":
            return page.url
        if f.source == "title":
            return page.title()
        selector = self.bindings.subst(f.selector) if f.selector else None
        if f.source == "js" and not selector:
            return _cap(page.evaluate(f.expr or "undefined"))
        if not selector:
            raise StepFailed("ELEMENT_NOT_FOUND", f"field '{f.name}' ({f.source}) needs a selector")
        located = locate(page, selector, scope)
        if f.source == "count":
            return located.count
        if located.count == 0:
            if f.source in ("is_visible", "is_enabled", "is_checked"):
                return False
            raise StepFailed("ELEMENT_NOT_FOUND", f"field '{f.name}': nothing matches '{selector}'")
        el = located.locator.first
        t = EMIT_READ_MS
        if f.source == "text":
            return _cap(el.inner_text(timeout=t).strip())
        if f.source == "attr":
            return _cap(el.get_attribute(f.attr or "", timeout=t))
        if f.source == "html":
            return _cap(el.inner_html(timeout=t))
        if f.source == "value":
            return _cap(el.input_value(timeout=t))
        if f.source == "class":
            return _cap(el.get_attribute("class", timeout=t))
        if f.source == "is_visible":
            return el.is_visible()
        if f.source == "is_enabled":
            return el.is_enabled(timeout=t)
        if f.source == "is_checked":
            return el.is_checked(timeout=t)
        if f.source == "js":
            return _cap(el.evaluate(f.expr or "el => undefined"))
        raise StepFailed("ACTION_REJECTED", f"unknown emit source '{f.source}'")

    # verifiers

    def _verifier_context(self, state: RuleState, step: Step | None, value: str | None, locator: Any) -> VerifierContext:
        assert self.session is not None
        hosts = self.allowed_host_names()
        return VerifierContext(
            session=self.session, step=step, value=value, locator=locator, scope=state.scope,
            variables=self.bindings.plain_values(), allowed_hosts=hosts, redact=self.redact,
            substitute=self.bindings.text, stabilize=self.settings.stabilize_for(self.scenario.kind),
            verifiers_dir=Path(self.settings.verifiers_dir), scenario_id=self.scenario.id, rule=state.rule.name)

    def _verify(self, state: RuleState, step: Step | None, refs: Sequence[Any], value: str | None,
                locator: Any, result: StepResult) -> None:
        outcomes = run_verifiers(refs, self._verifier_context(state, step, value, locator))
        result.detail["verifiers"] = [o.record() for o in outcomes]
        bad = [o for o in outcomes if o.outcome != "pass"]
        if bad:
            raise StepFailed("VERIFICATION_FAILED",
                              "verifier " + "; ".join(f"{o.name}: {o.outcome} ({o.detail})" for o in bad),
                              expected="every verifier passes",
                              observed=", ".join(f"{o.name}={o.outcome}" for o in outcomes))

    def _rule_verifiers(self, state: RuleState, index: int) -> ev.Failure | None:
        """A rule's own verifiers, after its body, reported as one extra step `verify ...`."""
        rule = state.rule
        names = ", ".join(r.name for r in rule.verify)
        pseudo = Step(loc=rule.verify[0].loc, text=f"verify {names}")
        t0 = time.monotonic()
        result = StepResult(status="passed")
        try:
            self._verify(state, None, rule.verify, None, None, result)
        except StepFailed as failed:
            result.status = "failed"
            result.failure = make_failure(failed.code, step_kind="observation_or_assertion", message=failed.message,
                                          step_index=index, step_text=pseudo.text, expected=failed.expected,
                                          observed=failed.observed, loc=pseudo.loc,
                                          context=self._context(state.scope, state.budget, state.clicked))
        except Exception as exc:  # noqa: BLE001
            halt_if_gone(exc, self)
            result.status = "failed"
            result.failure = make_failure("INTERNAL", step_kind="observation_or_assertion", message=short(exc),
                                          step_index=index, step_text=pseudo.text, loc=pseudo.loc)
        self.emit(ev.StepFinished(
            scenario_id=self.scenario.id, rule=rule.name, test_id=self.scenario.test_id(rule), attempt=self.number,
            index=index, text=pseudo.text, kind="verify", role="body", status=result.status,
            duration_ms=round((time.monotonic() - t0) * 1000, 1), path=pseudo.loc.path, line=pseudo.loc.line,
            failure=result.failure, detail=result.detail))
        return result.failure

    # assertions

    def _grade_assertions(self, state: RuleState, failure: ev.Failure | None) -> ev.Failure | None:
        """Grade the flow's `assertions` after its steps, whether the steps passed or not.

        flow-spec v1: assertions never halt, they grade the finished flow by severity.
        - critical: a failed one fails a flow whose steps passed, with `assertion_failed` (step
          kind `assertion`, the assertion's own line); on a flow that already failed it is kept
          as a critical finding, so the first failure stays the reported one;
        - warning: a warning finding (a verified finding; the flow still passes);
        - info: an info finding (advisory).
        """
        for assertion in self.scenario.assertions:
            ok, expected, observed = self._assertion_holds(assertion)
            if ok:
                continue
            message = f"assertion {assertion.text} failed: {observed}"
            if assertion.severity == "critical" and failure is None:
                failure = make_failure("EXPECT_STATE_MISMATCH", step_kind="assertion", message=message,
                                       step_text=assertion.text, expected=expected, observed=observed,
                                       loc=assertion.loc, context=self._context(None, state.budget,
                                                                                state.clicked))
                failure = self._with_failure_evidence(state, failure, 0)
                continue
            state.findings.append(ev.Finding(severity=assertion.severity, source="assertion", message=message,
                                             kind=assertion.kind))
        return failure

    def _assertion_holds(self, assertion: Assertion) -> tuple[bool, str, str]:
        assert self.session is not None
        if assertion.kind == "no_console_errors":
            errors = list(self.session.console_errors)
            if not errors:
                return True, "no console errors", "none"
            shown = "; ".join(e[:200] for e in errors[:3])
            return False, "no console errors", f"{len(errors)} console error(s): {shown}"
        if assertion.kind == "beacon_fires":
            want = f"a {assertion.vendor} beacon" + (f" with event '{assertion.event}'" if assertion.event else "")
            end = time.monotonic() + BEACON_GRACE_MS / 1000
            while True:
                beacons = list(self.session.beacons)
                # the vendor table of the browser layer decides aliases and case (ga4 = gtag = GA)
                if matching_beacons(beacons, assertion.vendor or "", assertion.event):
                    return True, want, "captured"
                if time.monotonic() >= end:
                    break
                self._sleep_ms(POLL_S * 1000)
            seen = sorted({f"{b.vendor}:{b.event}" for b in beacons})
            return False, want, ("captured beacons: " + ", ".join(seen)) if seen else "no beacon captured"
        return False, assertion.kind, f"unknown assertion kind '{assertion.kind}'"


def _only_in_frame(frame: str, verb: str) -> str:
    """The part of a failure message (checks and acts alike) saying a child frame has what the
    main page lacks, with its hint; `verb` is what the spec would do instead ('expect', 'act on')."""
    return (f"the main page does not have it, but the frame {frame} does: selectors and page text do not cross "
            f"into frames. hint: check the frame's own page (goto its URL), or {verb} what the main page itself "
            f"shows")


def located_tried(page: Any, selector: str, scope: str | None) -> list[str]:
    """The alternatives `locate` tried, for the message of a selector that matched nothing."""
    try:
        return list(locate(page, selector, scope).tried)
    except Exception:  # noqa: BLE001
        return [selector]


def _cap(value: Any) -> Any:
    if isinstance(value, str) and len(value) > EMIT_VALUE_MAX:
        return value[:EMIT_VALUE_MAX] + "…"
    return value


__all__ = ["RunContext", "ScenarioOutcome", "walk_scenario", "will_retry", "screenshot_name", "slug"]
