"""What steps, rules and scenario attempts come to: one place decides each.

- what can fail (a step, a rule's verifiers, an assertion, a scenario's opening or its session, a
  rule skipped for its parent) is a `Unit`, and what went wrong a `StepFailed` (raised inside a
  step's handler, or made); `Unit.failure` is the one way either becomes the `Failure` a report
  shows (the step envelope, step.py, runs a step and builds its `StepResult` with it);
- `rule_finished` builds every `RuleFinished` (walked, skipped, refused): a test that failed in an
  earlier attempt and passes now is `flaky`;
- `parent_gate` skips a rule whose parent did not pass, carrying the parent's root-cause class,
  so one broken login reads as one cause;
- `scenario_status` and `will_retry` decide an attempt's status and whether a rerun follows;
- `skipped_text` is how a step that did not run is listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from flowwalk import events as ev
from flowwalk.errors import Location
from flowwalk.model import Rule, Scenario, Step, titled
from flowwalk.walk.recovery import RecoveryLog, make_failure

__all__ = ["ScenarioOutcome", "StepFailed", "StepResult", "Unit", "only_in_frame", "parent_failure", "parent_gate",
           "rule_finished", "scenario_status", "skipped_steps", "skipped_text", "will_retry"]


class StepFailed(Exception):
    """Raised inside a step to end it with a Failure (the step envelope catches it)."""

    def __init__(self, code: str, message: str, *, expected: str = "", observed: str = "",
                 candidates: tuple[dict[str, Any], ...] = (), caused_by: tuple[int, Step] | None = None,
                 baseline: ev.Baseline | None = None, violations: tuple[ev.Violation, ...] = (),
                 diff: str = "", found: bool = True):
        super().__init__(message)
        #: a check's last read found its element (False: it judged nothing of an earlier heal)
        self.found = found
        #: a list check's expected items against the observed ones (walk/items.py)
        self.diff = diff
        #: a baseline check's evidence; an accessibility check's violations
        self.baseline = baseline
        self.violations = violations
        #: the earlier step the failure belongs to (a navigation an action started that was only
        #: seen leaving the allowlist while a later step ran)
        self.caused_by = caused_by
        self.code = code
        self.message = message
        self.expected = expected
        self.observed = observed
        self.candidates = candidates


@dataclass(frozen=True)
class Unit:
    """What can fail, as its Failure names it (pytest's item and `when` in one): the step kind of the
    failure, and where it is written."""

    kind: ev.FailureStepKind
    loc: Location | None = None
    text: str = ""
    index: int | None = None

    @classmethod
    def of(cls, index: int | None, step: Step, kind: ev.FailureStepKind) -> "Unit":
        """The unit of the rule's step `index`, named with the blocks it runs in (`model.titled`)."""
        return cls(kind, step.loc, titled(step), index)

    def failure(self, failed: StepFailed, *, code: str | None = None, message: str | None = None,
                context: Mapping[str, Any] | None = None, recovery: tuple[ev.RecoveryAttempt, ...] = (),
                parent: str | None = None, like: ev.Failure | None = None) -> ev.Failure:
        """The Failure of this unit for `failed` (its `code` and `message` when given instead): the
        class and `retryable` from the runtime-code table, or `like` another failure's, the cause
        it repeats (a parent rule's, a session setup's)."""
        made = make_failure(failed.code if code is None else code, step_kind=self.kind,
                            message=failed.message if message is None else message, step_index=self.index,
                            step_text=self.text, expected=failed.expected, observed=failed.observed, loc=self.loc,
                            parent=parent, recovery=recovery, candidates=failed.candidates,
                            context=dict(context or {}), baseline=failed.baseline, violations=failed.violations,
                            diff=failed.diff)
        return made if like is None else replace(made, failure_class=like.failure_class, retryable=like.retryable)


@dataclass
class StepResult:
    """One step's result, as its StepFinished event carries it."""

    status: ev.StepStatus
    failure: ev.Failure | None = None
    reads: int | None = None
    detail: ev.StepEvidence = field(default_factory=lambda: ev.StepEvidence())
    recovery: RecoveryLog = field(default_factory=RecoveryLog)


@dataclass(frozen=True)
class ScenarioOutcome:
    """The result of one scenario attempt, as the run loop needs it."""

    scenario_id: str
    attempt: int
    status: ev.Status
    rules: tuple[ev.RuleFinished, ...]
    duration_ms: float
    browser_crashed: bool = False
    run_timed_out: bool = False
    cancelled: bool = False
    final: bool = True

    @property
    def failed_tests(self) -> frozenset[str]:
        return frozenset(r.test_id for r in self.rules if r.status == "failed")

    @property
    def failure_classes(self) -> tuple[str, ...]:
        return tuple(r.failure.failure_class for r in self.rules if r.status == "failed" and r.failure)


def will_retry(status: str, attempt: int, retries: int, *, run_timed_out: bool = False,
               cancelled: bool = False) -> bool:
    """Whether a `--retries` rerun follows this attempt (shared by the walker and the run loop)."""
    return status == "failed" and attempt <= retries and not run_timed_out and not cancelled


def scenario_status(rules: Sequence[ev.RuleFinished], attempt: int) -> ev.Status:
    """failed if any rule failed; else passed (flaky on a retry or with a flaky rule); else skipped."""
    statuses = {r.status for r in rules}
    if "failed" in statuses:
        return "failed"
    if statuses & {"passed", "flaky"}:
        return "flaky" if (attempt > 1 or "flaky" in statuses) else "passed"
    return "skipped"


def skipped_text(index: int, step: Step) -> str:
    """How a step that did not run is listed in `RuleFinished.skipped_steps`."""
    return f"step {index} ({titled(step)})"


def skipped_steps(steps: Sequence[Step], *, after: int = 0) -> tuple[str, ...]:
    """Every step of `steps` (numbered from 1) after the `after`-th, as not run."""
    return tuple(skipped_text(i, s) for i, s in enumerate(steps, 1) if i > after)


def rule_finished(scenario: Scenario, rule: Rule, attempt: int, status: ev.Status, duration_ms: float, *,
                  earlier_failures: frozenset[str] = frozenset(), reason: ev.SkipReason = "",
                  failure: ev.Failure | None = None, skipped_steps: tuple[str, ...] = (),
                  findings: tuple[ev.Finding, ...] = (), guard_attempts: int = 0,
                  screenshots: tuple[str, ...] = ()) -> ev.RuleFinished:
    """The RuleFinished of `rule`; a pass of a test in `earlier_failures` is `flaky`."""
    test_id = scenario.test_id(rule)
    if status == "passed" and test_id in earlier_failures:
        status = "flaky"
    return ev.RuleFinished(scenario_id=scenario.id, rule=rule.name, test_id=test_id, attempt=attempt,
                           status=status, duration_ms=round(duration_ms, 1), path=rule.loc.path,
                           line=rule.loc.line, reason=reason, failure=failure, skipped_steps=skipped_steps,
                           findings=findings, guard_attempts=guard_attempts, screenshots=screenshots)


def parent_failure(rule: Rule, parent: str, prior: ev.RuleFinished | None) -> ev.Failure:
    """The failure of `rule` skipped because `parent` did not pass (`prior`: its result, if any).

    It keeps the parent's root-cause class and code: one broken login must read as one cause.
    """
    root = prior.failure if prior is not None else None
    status = prior.status if prior is not None else "not run"
    failed = StepFailed(root.runtime_code if root else "UNKNOWN", f"parent rule '{parent}' did not pass ({status})",
                        expected=f"parent '{parent}' passed", observed=status)
    return Unit("parent_failed", rule.loc).failure(failed, parent=parent, like=root)


def parent_gate(rule: Rule, results: Mapping[str, ev.RuleFinished]) -> ev.Failure | None:
    """The failure that skips `rule` because a parent (the first, in its order) did not pass or
    flake, or None when every parent passed."""
    for parent in rule.parents:
        prior = results.get(parent)
        if prior is None or prior.status not in ("passed", "flaky"):
            return parent_failure(rule, parent, prior)
    return None


def only_in_frame(frame: str, verb: str) -> str:
    """The part of a failure message (checks and acts alike) saying a child frame has what the
    main page lacks, with its hint; `verb` is what the spec would do instead ('expect', 'act on')."""
    return (f"the main page does not have it, but the frame {frame} does: selectors and page text do not cross "
            f"into frames. hint: put the step in a frame block (frame: <the iframe's selector>, with its steps), "
            f"or {verb} what the main page itself shows")
