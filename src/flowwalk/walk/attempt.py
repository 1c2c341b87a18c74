"""One scenario attempt's state, and the three objects that own parts of it.

- `Budget`: time. Deadlines are monotonic seconds; every answer is milliseconds. The run's
  deadline and, within a rule that sets `timeout_ms`, the rule's: `cap_ms` cuts what a browser
  call may take, `evidence_ms` what a piece of failure evidence may take.
- `Bindings`: `{{NAME}}` values (the run's, the file's, what `extract` stored), the secrets and
  redaction. Secrets are substituted only where a caller asks (the value of fill and press).
- `AttemptControl`: the only writer of crashed / run timed out / cancelled and of the stop
  reason that skips the rules not yet started.
- `Attempt`: the scenario attempt itself (its session, results, entry URL), shared by the
  modules that walk it; `RuleState`: what the rule in flight holds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol, Sequence
from urllib.parse import urljoin, urlsplit

from flowwalk import events as ev
from flowwalk.heal.mend import HealRecord
from flowwalk.model import Expect, Rule, Scenario, Step, place_of
from flowwalk.settings import Secrets, Settings
from flowwalk.scrub import MIN_LENGTH
from flowwalk.spec.variables import Redactor, placeholders, substitute
from flowwalk.walk.context import RunContext, redact_event
from flowwalk.walk.outcomes import StepFailed

if TYPE_CHECKING:
    from flowwalk.browser.launch import Browser
    from flowwalk.browser.page import Page
    from flowwalk.browser.session import PageSession
    from flowwalk.walk.checks import EarlyRead

__all__ = ["ActHooks", "Attempt", "AttemptControl", "Bindings", "Budget", "Click", "Place", "RuleState"]

#: failure evidence is not started with less than this left of the run, or of the rule's time
#: plus EVIDENCE_GRACE_MS (a rule that used up its time still gets the evidence of why)
EVIDENCE_MIN_MS = 300
EVIDENCE_GRACE_MS = 2000
#: the page's clock and ours are the same system clock; this absorbs their rounding only
CLICK_CLOCK_SLACK_MS = 2


@dataclass(frozen=True)
class Budget:
    """What is left of the run and of the rule in flight: monotonic seconds in, milliseconds out."""

    #: time.monotonic() after which the run is over; None: no run timeout
    run_deadline: float | None = None
    #: time.monotonic() after which the rule in flight is over; None: the rule sets no timeout
    rule_deadline: float | None = None
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)

    def for_rule(self, timeout_ms: int | None, started: float | None = None) -> "Budget":
        """This budget with a rule deadline `timeout_ms` after `started` (now), when it is set."""
        if not timeout_ms:
            return replace(self, rule_deadline=None)
        start = self.clock() if started is None else started
        return replace(self, rule_deadline=start + timeout_ms / 1000)

    def cap_ms(self, wanted: float) -> float:
        """`wanted` ms, cut to what is left before the rule deadline and the run deadline."""
        limit = float(wanted)
        now = self.clock()
        if self.rule_deadline is not None:
            limit = min(limit, (self.rule_deadline - now) * 1000)
        if self.run_deadline is not None:
            limit = min(limit, (self.run_deadline - now) * 1000)
        return max(limit, 0.0)

    def evidence_ms(self, limit_ms: float) -> float:
        """How long one piece of evidence may take now: its own `limit_ms`, and no more than what
        is left of the run and of the rule plus EVIDENCE_GRACE_MS (never under EVIDENCE_MIN_MS)."""
        now = self.clock()
        left = [float(limit_ms)]
        if self.run_deadline is not None:
            left.append(max((self.run_deadline - now) * 1000, EVIDENCE_MIN_MS))
        if self.rule_deadline is not None:
            left.append(max((self.rule_deadline - now) * 1000 + EVIDENCE_GRACE_MS, EVIDENCE_MIN_MS))
        return min(left)

    def evidence_skip(self) -> str | None:
        """Why no failure evidence is started now for lack of time, or None."""
        now = self.clock()
        if self.run_deadline is not None and (self.run_deadline - now) * 1000 < EVIDENCE_MIN_MS:
            return "the run timeout has (nearly) passed"
        if self.rule_deadline is not None and (self.rule_deadline - now) * 1000 + EVIDENCE_GRACE_MS < EVIDENCE_MIN_MS:
            return f"the rule's time is spent (its timeout plus {EVIDENCE_GRACE_MS} ms for evidence)"
        return None

    def rule_over(self) -> bool:
        """Has the rule deadline passed?"""
        return self.rule_deadline is not None and self.clock() >= self.rule_deadline

    def run_over(self) -> bool:
        """Has the run deadline passed?"""
        return self.run_deadline is not None and self.clock() >= self.run_deadline

    def spent(self) -> bool:
        """Has the rule deadline or the run deadline passed?"""
        return self.rule_over() or self.run_over()

    def run_left_ms(self) -> float | None:
        """Milliseconds left of the run (negative once it is over); None without a run timeout."""
        return None if self.run_deadline is None else (self.run_deadline - self.clock()) * 1000


class Bindings:
    """The values `{{NAME}}` resolves to in one attempt, which of them are secret, and redaction.

    Secret names are what the run supplies (--secret) plus what the file marks secret (robot
    `type secret`, rules `secrets:`), whose values then come from the variables. Plain values are
    the scenario's variables, the run's (which win) and what `extract` stored, never a secret.
    """

    def __init__(self, variables: Mapping[str, str], secrets: Secrets, redactor: Redactor,
                 file_secrets: Iterable[str] = ()):
        base = dict(variables)
        self._run_secret_names = secrets.names()
        self.secret_names = frozenset(self._run_secret_names) | frozenset(file_secrets)
        values: dict[str, str] = {}
        for name in self.secret_names:
            value = secrets.get(name)
            if value is None:
                value = base.get(name)
            if value:
                values[name] = value
        self.secret_values = values
        self._file_values = [v for k, v in values.items() if k not in self._run_secret_names]
        #: values no placeholder names that are secrets all the same: a session's cookies and storage
        self.hidden_values: list[str] = []
        self._redactor = redactor
        self._extra_redactor = Redactor(self._file_values) if self._file_values else None
        self.base = {k: v for k, v in base.items() if k not in self.secret_names}
        self.extracted: dict[str, str] = {}
        #: a secret went into a fill or press: the trace would hold it
        self.typed_secret = False

    @classmethod
    def for_scenario(cls, scenario: Scenario, run: RunContext) -> "Bindings":
        return cls({**scenario.variables, **run.variables}, run.secrets, run.redactor, scenario.secrets)

    def hide(self, values: Iterable[str]) -> None:
        """From now on, mask `values` too (those shorter than scrub.MIN_LENGTH are left: a one-letter
        cookie would mask every such letter)."""
        new = [v for v in values if len(v) >= MIN_LENGTH and v not in self.hidden_values]
        if new:
            self.hidden_values += new
            self._extra_redactor = Redactor([*self._file_values, *self.hidden_values])

    def redact(self, text: str) -> str:
        """`text` with every secret value (the run's, the file's, the session's) masked."""
        out = self._redactor.text(text)
        if self._extra_redactor is not None:
            out = self._extra_redactor.text(out)
        return out

    def plain_values(self) -> dict[str, str]:
        """Every non-secret value: variables, then what `extract` stored."""
        values = dict(self.base)
        values.update({k: v for k, v in self.extracted.items() if k not in self.secret_names})
        return values

    def store(self, name: str, value: str) -> None:
        """Keep what an `extract` read, for the steps after it."""
        self.extracted[name] = value

    def subst(self, text: str | None, *, secrets: bool = False) -> str | None:
        """Substitute `{{NAME}}`; secrets only when `secrets` (the value of fill/press).

        Raises StepFailed (VARIABLE_MISSING) naming every placeholder without a value.
        """
        if text is None:
            return None
        names = placeholders(text)
        if not names:
            return text
        values = self.plain_values()
        if secrets:
            values.update(self.secret_values)
        unknown = [n for n in names if n not in values]
        if unknown:
            where = ("the value of a fill or press step" if any(n in self.secret_names for n in unknown)
                     else "")
            hint = (f" (a secret is only resolved in {where})" if where and not secrets else "")
            raise StepFailed("VARIABLE_MISSING",
                             f"no value for {', '.join('{{' + n + '}}' for n in unknown)}{hint}",
                             expected="a value for " + ", ".join(unknown), observed="not supplied by the run")
        if secrets and any(n in self.secret_values for n in names):
            self.typed_secret = True
        return substitute(text, values)

    def text(self, text: str) -> str:
        """`subst` for a text that is never None."""
        return self.subst(text) or ""


class AttemptControl:
    """The one writer of why an attempt stops (schemathesis' ExecutionControl in small).

    `stop_reason` skips every rule not yet started with that reason; `crashed`, `run_timed_out`
    and `cancelled` go into the outcome the run loop reads.
    """

    def __init__(self, run: RunContext):
        self._run = run
        self.crashed = False
        self.run_timed_out = False
        self.cancelled = False
        self.stop_reason: ev.StopReason | None = None

    def mark_crashed(self) -> None:
        """The browser or the page's renderer is gone."""
        self.crashed = True

    def mark_run_timeout(self, *, stop: bool = True) -> None:
        """The run deadline cut a step; `stop`: the rules not yet started are skipped for it."""
        self.run_timed_out = True
        if stop:
            self.stop_reason = "run_timeout"

    def stop(self, reason: ev.StopReason) -> None:
        self.stop_reason = reason

    def after_setup_failure(self) -> None:
        """Opening the scenario failed: the first rule carries it, the rest are skipped."""
        if self.stop_reason is None:
            self.stop_reason = "browser_crashed" if self.crashed else "setup_failed"

    def poll(self) -> ev.StopReason | None:
        """The reason not to start the next rule (recording a cancel or the run timeout), or None."""
        if self.stop_reason:
            return self.stop_reason
        stopped = self._run.stop_reason(in_flight=True)
        if stopped == "cancelled":
            self.cancelled = True
            self.stop_reason = "cancelled"
        elif stopped == "run_timeout":
            self.run_timed_out = True
            self.stop_reason = "run_timeout"
        return self.stop_reason


Emit = Callable[[ev.Event], None]


class Attempt:
    """One attempt of one scenario: what every module that walks it reads and writes."""

    def __init__(self, scenario: Scenario, browser: "Browser", settings: Settings, run: RunContext, number: int,
                 emit: Emit, earlier_failures: frozenset[str] = frozenset()):
        self.scenario = scenario
        self.browser = browser
        self.settings = settings
        self.run = run
        self.number = number
        self._emit_raw = emit
        #: test ids that failed in earlier attempts: one that passes now is flaky
        self.earlier_failures = earlier_failures
        self.session: PageSession | None = None
        self.bindings = Bindings.for_scenario(scenario, run)
        self.control = AttemptControl(run)
        self.budget = Budget(run_deadline=run.deadline)
        self.results: dict[str, ev.RuleFinished] = {}
        #: substituted and made absolute when the scenario opens
        self.entry_url: str | None = None
        #: the first step is the opening navigation (see scenario.py)
        self.entry_deferred = False
        self.allowed_hosts = tuple(scenario.allowed_hosts)
        #: set when the page did not answer its title or snapshot: the screenshot is not tried
        self.unresponsive: str | None = None
        #: how many large snapshots went to files (their names count up)
        self.context_files = 0
        #: how long opening the scenario took (the context, the entry URL, a failure's evidence)
        self.setup_ms = 0.0
        #: the popups and iframes the walk is in now, outermost first (walk/places.py)
        self.places: list[Place] = []

    def emit(self, event: ev.Event) -> None:
        """Every event of the attempt leaves here, redacted."""
        self._emit_raw(redact_event(event, self.bindings.redact))

    def redact(self, text: str) -> str:
        return self.bindings.redact(text)

    @property
    def page(self) -> "Page":
        """The attempt's page: every read and action (browser/page.py)."""
        assert self.session is not None
        return self.session.page

    def absolute(self, url: str) -> str:
        """Relative URLs (`/path`) resolve against --base-url, else against the current page."""
        parts = urlsplit(url)
        if parts.scheme:
            return url
        base = self.settings.base_url
        if not base and self.session is not None:
            # a dead page has no URL ("" here); the goto will report it
            base = self.session.page.last_url()
        if not base and self.entry_url:
            base = self.entry_url
        if not base:
            raise StepFailed("ACTION_REJECTED", f"relative URL '{url}' and no --base-url to resolve it against",
                             expected="an absolute URL or --base-url", observed=url)
        # the URL standard's resolution, as Playwright's baseURL does: '/x' is host-absolute
        return urljoin(base, url)

    def global_dismiss(self) -> tuple[str, ...]:
        """The interrupt selectors of the scenario and of the run, once each."""
        return tuple(dict.fromkeys([*self.scenario.dismiss_selectors, *self.settings.dismiss_selectors]))

    def dismiss_list(self, rule: Rule | None) -> tuple[str, ...]:
        """What `rule` dismisses before each act: nothing when paused, its own list on override."""
        if rule is not None and rule.interrupts == "paused":
            return ()
        if rule is not None and rule.interrupts == "override":
            return tuple(rule.interrupt_selectors)
        return self.global_dismiss()

    def allowed_host_names(self) -> tuple[str, ...]:
        """The entry URL's host and the allowed hosts (subdomains of each are allowed too)."""
        entry_host = urlsplit(self.entry_url).hostname if self.entry_url else None
        return tuple(h for h in (entry_host, *self.allowed_hosts) if h)


class Lookahead:
    """What the body step in flight knows of the steps after it (owner: this class; rule.py plans,
    observations.py takes and keeps the early reads).

    `following`: the expects right after the running one (no step between them changes the page);
    `next_step`: the body step after the running one (None at the end, in guards and in replays);
    `early`: first reads taken ahead for the following expects (checks.read_ahead), by index.
    """

    def __init__(self) -> None:
        self.following: list[tuple[int, Expect]] = []
        self.next_step: Step | None = None
        self.early: "dict[int, EarlyRead]" = {}

    def plan(self, body: "Sequence[tuple[int, Step]]", pos: int, *, unbatched: tuple[str, ...] = ()) -> None:
        """Before the body step at `pos` runs: the expects that follow it, and the step after it.
        Reads taken ahead are dropped when a step that may change the page runs. Expects of an
        `unbatched` kind (the page checks, walk/snapshots.py) neither take nor give reads ahead."""
        step = body[pos][1]
        self.following = []
        if isinstance(step, Expect) and step.kind not in unbatched:
            for later_index, later in body[pos + 1:]:
                if not isinstance(later, Expect) or later.kind in unbatched or place_of(later) != place_of(step):
                    break
                self.following.append((later_index, later))
        else:
            self.early.clear()
        after = body[pos + 1][1] if pos + 1 < len(body) else None
        self.next_step = after if after is not None and place_of(after) == place_of(step) else None

    def done(self) -> None:
        """After the body step ran (and before guards or replays)."""
        self.following = []
        self.next_step = None

    def keep(self, index: int, read: "EarlyRead") -> None:
        self.early[index] = read

    def take(self, index: int | None) -> "EarlyRead | None":
        return self.early.pop(index, None) if index else None


@dataclass(frozen=True)
class Click:
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


@dataclass(frozen=True)
class Place:
    """A popup or iframe the walk is in (walk/places.py): its block's id, and the selector scope it
    left behind."""

    block: int
    scope: str | None


class ActHooks(Protocol):
    """What an act tells the features around its step (walk/hooks.py `Around`)."""

    def arm(self) -> None: ...

    def acted(self) -> None: ...

    def awaited(self) -> None: ...


@dataclass
class RuleState:
    """What the rule in flight holds, for its steps and their evidence. Each field has one writer
    (its owner, named beside it; a contract test holds it): readers are free."""

    # set once by rule.walk_rule, read-only after
    rule: Rule
    #: the rule's selector scope: none while the walk is in a popup or an iframe (places.py)
    scope: str | None
    budget: Budget
    observe_ms: int
    guard_ms: int
    dismiss: tuple[str, ...]
    # owner: rule.py (guards, retry-redo, the body's outcome)
    guard_rounds: int = 0
    guard_failure: ev.Failure | None = None
    failure: ev.Failure | None = None
    # owner: RuleState (append-only: every room adds through add_finding / add_screenshot)
    findings: list[ev.Finding] = field(default_factory=list)
    screenshots: list[str] = field(default_factory=list)
    # owner: step.py (the step envelope)
    current_index: int | None = None
    current_step: Step | None = None
    current_kind: ev.FailureStepKind = "action"
    #: the last action of this rule that ran (index, step): blamed for a late blocked navigation
    last_act: tuple[int, Step] | None = None
    #: the features around the step in flight, for the phases its act tells them (walk/hooks.py)
    current_hooks: ActHooks | None = None
    # owner: actions.py
    #: the rule's most recent act that Playwright reported done, when it was a click or dblclick
    #: (None after any other act): a failure says where it landed (evidence.py)
    clicked: Click | None = None
    # owner: Lookahead (see there)
    ahead: Lookahead = field(default_factory=Lookahead)
    # owner: healing.py
    #: the acts of this rule that were healed: a later check that fails blames them
    heals: list[HealRecord] = field(default_factory=list)
    # owner: snapshots.py
    #: no_accessibility_violations: (page URL, assertion number) -> its violations, or why axe
    #: could not scan that page
    axe_scans: dict[tuple[str, int], Any] = field(default_factory=dict)

    def add_finding(self, finding: ev.Finding) -> None:
        self.findings.append(finding)

    def add_screenshot(self, path: str) -> None:
        self.screenshots.append(path)
