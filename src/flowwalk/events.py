"""Events the engine yields, in the past tense, and the result records they carry.

The engine never writes a report. It yields these events; handlers (the emit.jsonl writer, the
console) consume them. `record()` turns an event into the JSON object written as one line of
`emit.jsonl`, the source of truth every report is rebuilt from (`schemas/emit-event.v1.schema.json`);
`from_json` reads one back into the same dataclass, with the types it was written with. The
Literal aliases (`Status`, `SkipReason`, `StepKind`, ...) are the vocabularies of the string fields.
Every string in a record has already passed the run's redactor: no secret value reaches here.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass, field
from typing import (Any, Callable, Iterable, Literal, Mapping, TypedDict, TypeVar, Union, get_args, get_origin,
                    get_type_hints, is_typeddict)

EMIT_SCHEMA = "flowwalk.emit/1"

# --- vocabularies: what each string field may hold (annotations only; the JSON holds the same
# strings, and the emit schema's enums are these, checked by tests/contract/test_emit_schema.py)

#: why a test failed; `exitcodes.decide_outcome` turns them into the run's exit code
FailureClass = Literal[
    "assertion_failed",        # the site verifiably misbehaved: the only class that alerts
    "spec_step_unresolvable",  # selector/target unresolvable, navigation blocked, step timeout
    "credential_rejected",     # a {{VAR}} the run cannot supply, or a login rejected
    "agent_uncertain",         # the model backend was unavailable while re-resolving a target
    "quota_exceeded",          # the hard model-call cap was hit
    "infrastructure_error",    # v1.x: the browser crashed, the run timed out, flowwalk broke mid-scenario
]
#: where in a rule a failure happened
FailureStepKind = Literal["guard", "action", "observation_or_assertion", "parent_failed", "run_timeout",
                          "assertion", "setup"]
#: a walked step's type (`verify`: a verifier named on a step or a rule)
StepKind = Literal["goto", "act", "expect", "wait", "extract", "emit", "verify", "history"]
#: what a block of steps is: a steps file's steps run by `use:`, a named group (Playwright's
#: test.step), the setup and teardown a folder or a file runs around each of its tests, the steps
#: run in the popup an act opened, or the steps run inside an iframe
FrameKind = Literal["call", "group", "before_each", "after_each", "popup", "frame"]
#: guard steps decide whether a rule applies; body steps are the rule
Role = Literal["guard", "body"]
#: a step's outcome (`warning`: an optional step that failed)
StepStatus = Literal["passed", "failed", "warning", "skipped"]
#: a rule's or a scenario's outcome in one attempt (`flaky`: passed after an earlier attempt failed).
#: The walker decides `flaky` when it writes the result (walk/outcomes.py); readers take it as written.
Status = Literal["passed", "failed", "skipped", "flaky"]
#: the keys of a run's counts, in the order they are shown
TALLY_KEYS = ("total", "passed", "failed", "skipped", "flaky")


def tally(statuses: Iterable[str]) -> dict[str, int]:
    """A run's counts: `total` and one per Status; anything else (not_run) counts as failed."""
    counts = dict.fromkeys(TALLY_KEYS, 0)
    for status in statuses:
        counts["total"] += 1
        counts[status if status in counts and status != "total" else "failed"] += 1
    return counts
#: why the walker stopped starting rules in a scenario; each is the skip reason of the rules left
StopReason = Literal["browser_crashed", "setup_failed", "cancelled", "run_timeout"]
#: why a rule was skipped ("" when it was not); `session_failed`: the setup that saves the
#: scenario's session did not pass (the failure names it); `max_failures`: --max-failures stopped
#: the run before the scenario started; `site_not_ready`: the readiness wait ran out before the
#: site answered as expected (the failure says what it answered)
SkipReason = Literal["", StopReason, "parent_failed", "guard_failed", "credential_rejected", "session_failed",
                     "max_failures", "site_not_ready"]
Severity = Literal["critical", "warning", "info"]
#: what produced a finding (`retry_redo`: a guard passed only after its rule was redone)
FindingSource = Literal["step", "assertion", "retry_redo"]
RecoveryOutcome = Literal["recovered", "failed", "skipped"]
#: what happened to a check's baseline: it differs from the page, it is not there (and the run may
#: not write it), --update-snapshots wrote it, or the file cannot be read as a baseline
BaselineStatus = Literal["mismatch", "missing", "written", "invalid"]


def to_json(value: Any) -> Any:
    """A record as JSON data, as `Event.record()` writes it: dataclasses become objects (fields
    in declaration order), tuples arrays. `from_json` reads it back."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


_R = TypeVar("_R")


class RecordError(ValueError):
    """A JSON object that cannot be read back into its record: the field named lacks a usable value."""


def from_json(cls: type[_R], data: Mapping[str, Any]) -> _R:
    """The record `cls` read back from the JSON object `to_json` made of one, each field with the
    type it was written with (nested records, tuples, the Literal vocabularies; an integer where a
    float was written is a float). A field that is missing or of another type takes its default;
    one without a default raises RecordError. Keys `cls` does not declare are ignored."""
    values: dict[str, Any] = {}
    for name, exact, read, default in _readers(cls):
        value = data.get(name, _MISSING)
        # most values are written as exactly their type: take them without a call
        if type(value) in exact or (value is not _MISSING and (value := read(value)) is not _MISSING):
            values[name] = value
        elif default is None:
            raise RecordError(name)
        else:
            values[name] = default()
    # built as unpickling builds it, without __init__: a frozen dataclass's __init__ sets each field
    # through object.__setattr__, which made reading a large emit.jsonl several times slower
    record: _R = object.__new__(cls)
    object.__setattr__(record, "__dict__", values)
    return record


_MISSING: Any = object()
_Readers = tuple[tuple[str, tuple[type, ...], Callable[[Any], Any], Callable[[], Any] | None], ...]
#: per record class: (field, the JSON types taken as they are, the reader of any other value, the
#: field's default (None: it has none)), built on first use
_READERS: dict[type, _Readers] = {}


def _readers(cls: type) -> _Readers:
    found = _READERS.get(cls)
    if found is None:
        # from_json skips __init__, so a record must hold nothing __init__ would compute
        assert dataclasses.is_dataclass(cls) and not hasattr(cls, "__post_init__") and not hasattr(cls, "__slots__")
        hints = get_type_hints(cls)
        found = _READERS[cls] = tuple((f.name, _exact(hints[f.name]), _reader(hints[f.name]), _default(f))
                                      for f in dataclasses.fields(cls))
    return found


def _default(f: dataclasses.Field[Any]) -> Callable[[], Any] | None:
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory
    if f.default is not dataclasses.MISSING:
        value = f.default
        return lambda: value
    return None


def _exact(hint: Any) -> tuple[type, ...]:
    """The JSON value types that are already a valid value of `hint` (bool is never an int here)."""
    if hint in (str, int, float, bool):
        return (hint,)
    if get_origin(hint) is dict or hint is dict or is_typeddict(hint):
        return (dict,)
    if get_origin(hint) in (Union, types.UnionType):
        return tuple(t for a in get_args(hint) for t in ((a,) if a is type(None) else _exact(a)))
    return ()


def _reader(hint: Any) -> Callable[[Any], Any]:
    """A function from a JSON value to the value of type `hint`, or _MISSING when it is not one."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return lambda v: v
    if origin is Literal:
        allowed = frozenset(args)
        return lambda v: v if isinstance(v, str) and v in allowed else _MISSING
    if origin in (Union, types.UnionType):
        options = [_reader(a) for a in args if a is not type(None)]

        def read_union(v: Any) -> Any:
            if v is None and type(None) in args:
                return None
            for read in options:
                if (out := read(v)) is not _MISSING:
                    return out
            return _MISSING
        return read_union
    if origin is tuple:
        item = _reader(args[0])
        # an item that does not read is left out, like a damaged line
        return lambda v: tuple(x for x in map(item, v) if x is not _MISSING) if isinstance(v, list) else _MISSING
    if origin is dict or hint is dict or is_typeddict(hint):
        return lambda v: v if isinstance(v, dict) else _MISSING
    if hint is bool:
        return lambda v: v if isinstance(v, bool) else _MISSING
    if hint is int:
        return lambda v: v if isinstance(v, int) and not isinstance(v, bool) else _MISSING
    if hint is float:
        return lambda v: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _MISSING
    if hint is str:
        return lambda v: v if isinstance(v, str) else _MISSING
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        def read_record(v: Any) -> Any:
            try:
                return from_json(hint, v) if isinstance(v, dict) else _MISSING
            except RecordError:
                return _MISSING
        return read_record
    raise TypeError(f"from_json cannot read a {hint!r}")


# --- result records -----------------------------------------------------------------------------


@dataclass(frozen=True)
class RecoveryAttempt:
    """One bounded recovery step the walker took after a failure (RFC 011 style)."""

    strategy: str   # dismiss_and_retry | re_resolve_target | retry_redo | rerun_scenario | relaunch_browser
    outcome: RecoveryOutcome
    detail: str = ""


@dataclass(frozen=True)
class Baseline:
    """An aria_snapshot or screenshot check whose baseline did not simply match: what the report
    shows and `flowwalk heal` offers to write. Paths `observed`, `expected`, `diff` are relative
    to the report folder; `path` is the baseline file in the repository."""

    kind: str                      # aria_snapshot | screenshot
    name: str
    path: str                      # the baseline file, relative to the run's working directory
    status: BaselineStatus
    observed: str | None = None    # what the page showed: the candidate baseline
    expected: str | None = None    # screenshot: a copy of the baseline compared with
    diff: str | None = None        # screenshot: the difference image
    text_diff: str = ""            # aria_snapshot: unified diff from the baseline to the page
    diff_pixels: int | None = None
    diff_ratio: float | None = None
    sha256: str = ""               # of `observed`: heal writes only the file the run recorded


@dataclass(frozen=True)
class Violation:
    """One axe-core rule an accessibility check found broken."""

    rule: str                      # axe-core's rule id: color-contrast, image-alt, ...
    impact: str                    # minor | moderate | serious | critical
    help: str                      # axe-core's one-line summary of the rule
    help_url: str
    targets: tuple[str, ...] = ()  # selectors of the offending elements (the first few)
    count: int = 0                 # how many elements break it
    url: str = ""                  # the page it was found on


@dataclass(frozen=True)
class EvidenceSkipped:
    """Evidence a failure's rule wanted and did not get, each with why ("" when it was not skipped)."""

    a11y_snapshot: str = ""
    screenshot: str = ""


@dataclass(frozen=True)
class FailureContext:
    """What `Failure.context` holds, as a record (`Failure.evidence()`): the page at the failure
    (walk/evidence.py `failure_context`, the session's `evidence`), or what a failure before the page
    names (a session's setup, a readiness wait, a traceback). A key not written reads as its default."""

    url: str = ""
    title: str = ""
    #: console messages, most recent last: objects with `type` and `text` (older records: strings)
    console: tuple[Any, ...] = ()
    page_errors: tuple[Any, ...] = ()
    #: requests: objects with `url`, `method`, `status` (no status: it never answered)
    network: tuple[Any, ...] = ()
    #: requests the allowlist refused
    blocked: tuple[Any, ...] = ()
    a11y_snapshot: str = ""
    #: the whole snapshot's file in the report folder, when the record keeps only its head
    a11y_snapshot_file: str = ""
    #: the selector the snapshot was scoped to
    scope: str = ""
    #: where the rule's last click landed
    last_click: dict[str, Any] | None = None
    evidence_skipped: EvidenceSkipped = field(default_factory=EvidenceSkipped)
    #: the secrets painted over in the failure screenshot
    screenshot_masked: Any = None
    #: the saved session a scenario used, and the setup test that saves it
    session: str = ""
    setup: str | None = None
    #: the readiness wait that ran out (`readiness.Readiness.record`)
    readiness: dict[str, Any] | None = None
    traceback: str = ""

    def requests(self, limit: int) -> list[dict[str, Any]]:
        """At most `limit` of `network`: the failed requests (no status, or 400 and above) first, then
        the most recent others."""
        rows = [e for e in self.network if isinstance(e, dict)]
        bad = [e for e in rows if not isinstance(e.get("status"), int) or e["status"] >= 400]
        good = [e for e in rows if e not in bad]
        kept = bad[:limit]
        return kept + good[-(limit - len(kept)):] if len(kept) < limit else kept


@dataclass(frozen=True)
class Failure:
    failure_class: FailureClass
    runtime_code: str             # ELEMENT_NOT_FOUND, TIMEOUT, EXPECT_STATE_MISMATCH, ...
    retryable: bool
    step_kind: FailureStepKind
    message: str
    step_index: int | None = None  # 1-based, within the rule
    step_text: str = ""
    expected: str = ""
    observed: str = ""
    path: str | None = None       # the spec file and line of the failing step
    line: int | None = None
    col: int | None = None
    screenshot: str | None = None  # relative to the report folder
    parent: str | None = None     # parent_failed: which parent
    recovery: tuple[RecoveryAttempt, ...] = ()
    max_recovery_attempts: int = 3
    candidates: tuple[dict[str, Any], ...] = ()  # target re-resolution evidence
    context: dict[str, Any] = field(default_factory=dict)  # console, network, a11y snapshot, url
    baseline: Baseline | None = None                   # aria_snapshot, screenshot
    violations: tuple[Violation, ...] = ()              # accessible, no_accessibility_violations
    #: texts, classes: the expected items against the observed ones, a line each (`- ` expected
    #: only, `+ ` observed only, `  ` both)
    diff: str = ""

    def evidence(self) -> FailureContext:
        """`context` as its record (`FailureContext`)."""
        return from_json(FailureContext, self.context)


@dataclass(frozen=True)
class Heal:
    """A selector of a step that matched nothing and was replaced, for this run only: the one record
    of a heal (heal/mend.py `Healed.record`), the `heal` of the step's `healed` finding."""

    old_selector: str
    new_selector: str
    method: str                    # "deterministic" | "model" | "renamed" | "run"
    score: float                   # 0..1, the chosen candidate's score
    target: str                    # the step's target description
    step_index: int                # 1-based within the rule
    path: str                      # the spec file, as in StepFinished.path
    line: int                      # the step's line in that file
    screenshot: str | None = None  # relative to the report folder
    candidates: tuple[dict[str, Any], ...] = ()   # best few, with their scores
    #: the step's key that holds the selector: "selector" (acts, expects, extracts), "for" (a wait),
    #: "await" (an act's), "fields.<name>" (an emit field)
    selector_key: str = "selector"
    kind: str = "act"              # the step's kind
    #: the ids and classes a refactor renamed, as this heal showed them (`#todo-list` -> `#todos`)
    renames: dict[str, str] = field(default_factory=dict)
    #: taken from the run's heals before the stale selector was read at all (method "run")
    first: bool = False


@dataclass(frozen=True)
class Finding:
    """A verified finding that does not halt: a failed optional step, a graded assertion, a heal.

    A heal is `Finding(severity="warning", source="step", kind="healed", heal=Heal(...))`.
    """

    severity: Severity
    source: FindingSource
    message: str
    step_index: int | None = None
    kind: str = ""
    heal: Heal | None = None
    #: `baseline_written` (--update-snapshots) findings: the file written
    baseline: Baseline | None = None
    #: a no_accessibility_violations assertion graded warning or info: what it found
    violations: tuple[Violation, ...] = ()


# --- events ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    def record(self) -> dict[str, Any]:
        name = _EVENT_NAMES[type(self)]
        return {"event": name, **to_json(self)}


@dataclass(frozen=True)
class RunStarted(Event):
    run_id: str
    started_at: str           # ISO 8601, UTC
    flowwalk_version: str
    shard: dict[str, int]     # {"index": K, "total": N}
    #: every scenario of the full plan (all shards) in plan order, with its rules and test ids;
    #: `assigned` lists the ids this shard runs. Merge checks shards against it.
    plan: dict[str, Any]
    settings: dict[str, Any]
    schema: str = EMIT_SCHEMA
    #: which failures fail the job (`exitcodes.JobGate`): `fail_on`, the quarantine file's entries
    #: (each with the tests it covers and whether it expired) and the base report's final status of
    #: each test; null when the run has none of them
    gate: dict[str, Any] | None = None
    #: the readiness wait (readiness.Readiness.record: url, expected, ready, attempts, waited_s,
    #: last, timeout_s, cancelled); null when the run did not wait
    readiness: dict[str, Any] | None = None
    #: the project root, absolute: every spec path and test id of the run is relative to it; null in
    #: a report written before the run recorded it
    root: str | None = None


@dataclass(frozen=True)
class ScenarioStarted(Event):
    scenario_id: str
    attempt: int              # 1-based; > 1 for a --retries rerun
    worker: int
    t: float                  # seconds since the run started


@dataclass(frozen=True)
class StepFrame:
    """A block a step runs inside (a call, a group, a hook, a popup, an iframe), as reports nest steps under it."""

    #: unique among the blocks of one test, in the order they open
    id: int
    kind: FrameKind
    #: `use steps/add-todo.steps.yaml`, a group's title, `before each`
    title: str
    #: where the block is written: the call's, the group's or the hook's line
    path: str
    line: int
    #: a call or a folder's hook: the steps file it runs
    file: str = ""
    #: a call: its arguments, as the steps file received them (defaults included)
    args: dict[str, Any] = field(default_factory=dict)
    #: a frame block: the selector of its iframe, as written
    selector: str = ""


class StepEvidence(TypedDict, total=False):
    """What a step's `StepFinished.detail` may hold: the one declaration of its keys, each written by
    walk/ only when it applies (a dict, so emit.jsonl keeps the order the walker wrote them in; the
    emit schema documents each key)."""

    round: int                   # a guard step: the guard round it ran in
    replay: int                  # a body step replayed after a guard redo: the round
    selector: str                # the selector the step used (the healed one when it healed)
    matches: int                 # how many elements the selector matched (more than one: the first taken)
    awaited: str                 # an act's await: the selector that arrived
    dismissed: int               # interrupts (consent banners, ...) clicked away before the act
    recovery: list[dict[str, Any]]  # the recovery attempts that made the step pass (strategy, outcome, detail)
    candidates: list[dict[str, Any]]  # a heal's candidates, best first, with their scores
    heal_ms: float               # time spent healing the step's selectors
    heal_question: dict[str, Any]  # the question a model would have been asked (no model configured)
    fingerprint: dict[str, Any]  # the element the step's selector found, to heal it on a later run
    fingerprints: list[dict[str, Any]]  # the same for the step's further selectors (await, emit fields)
    stability: dict[str, Any]    # a check: how the page was judged still (`by` quiet or reads)
    duration_check_ms: float     # a check: how long it read the page
    into: str                    # an extract: the variable written
    value: str                   # an extract: the value read (its first 200 characters)
    fields: list[str]            # an emit: the fields recorded
    errors: dict[str, str]       # an emit: the fields that could not be read, with why
    verifiers: list[dict[str, Any]]  # the verifiers run (`VerifierOutcome.record()`)
    baseline: str                # a snapshot check: the baseline file compared with
    axe_version: str             # an accessibility check: the axe-core version that ran
    dialog: dict[str, Any]       # the dialog the step expected (type, message, action)
    dialogs: list[dict[str, Any]]  # dialogs the page opened that no step expected
    popup: dict[str, str]        # the popup the step opened (its url)
    screenshot: str              # the step's screenshot, relative to the report folder


@dataclass(frozen=True)
class StepFinished(Event):
    scenario_id: str
    rule: str
    test_id: str
    attempt: int
    index: int                # 1-based within the rule
    text: str
    kind: StepKind
    role: Role
    status: StepStatus
    duration_ms: float
    path: str
    line: int
    reads: int | None = None  # stabilized checks: fresh reads taken
    failure: Failure | None = None
    detail: StepEvidence = field(default_factory=lambda: StepEvidence())
    #: the blocks the step runs inside, outermost first (a called steps file, a group, a hook);
    #: `path` and `line` are then where the step itself is written, in the steps file
    frames: tuple[StepFrame, ...] = ()


@dataclass(frozen=True)
class EmitRecorded(Event):
    scenario_id: str
    rule: str
    name: str
    url: str
    fields: dict[str, Any]
    t: float


@dataclass(frozen=True)
class RuleFinished(Event):
    scenario_id: str
    rule: str
    test_id: str
    attempt: int
    status: Status
    duration_ms: float
    path: str
    line: int
    #: a SkipReason as the walker writes it; kept a plain string so that a log a merge or a test
    #: wrote with a reader-side not-run reason (shard_missing, not_run) still reads back
    reason: str = ""
    failure: Failure | None = None
    skipped_steps: tuple[str, ...] = ()   # "step 6 (expect url_contains '/done')"
    findings: tuple[Finding, ...] = ()
    guard_attempts: int = 0
    screenshots: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScenarioFinished(Event):
    scenario_id: str
    attempt: int
    status: Status
    duration_ms: float
    #: this attempt is the last one for the scenario (no further --retries rerun follows)
    final: bool = True
    trace: str | None = None
    trace_withheld: str | None = None


@dataclass(frozen=True)
class RunCancelled(Event):
    signal: str
    t: float


@dataclass(frozen=True)
class RunFinished(Event):
    finished_at: str
    duration_ms: float
    exit_code: int
    counts: dict[str, int]
    cancelled: bool = False


@dataclass(frozen=True)
class ModelCalled(Event):
    """One request to the optional model (agent/), for the step it was asked about.

    Never the prompt or the answer: page text stays out of the record; `prompt_sha256` lets two
    runs' prompts be compared. `request` is 1, or 2 for the retry after an invalid answer; `call`
    numbers the run's requests (the cap counts them).
    """

    scenario_id: str
    rule: str
    test_id: str
    attempt: int
    step_index: int
    purpose: str              # heal
    provider: str             # the preset, else the server's host
    model: str
    request: int
    call: int
    outcome: str              # answered | invalid | unavailable
    decision: str             # "candidate 2 of 7", "none", or why the answer was refused
    prompt_sha256: str
    latency_ms: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    status: int | None = None  # the HTTP status, when the server answered
    t: float = 0.0            # seconds since the run started


@dataclass(frozen=True)
class RequestRouted(Event):
    """A request the spec answered itself (`routes:`): fulfilled from the spec or a HAR file, or aborted."""

    scenario_id: str
    rule: str
    test_id: str
    attempt: int
    #: the step that was running (or, 1, the opening navigation before it)
    step_index: int
    method: str
    url: str
    answer: str               # fulfilled | aborted
    status: int | None
    #: the route that answered: its `url`, and where it is written
    route: str
    path: str
    line: int
    delay_ms: int = 0
    #: "route" (the spec's answer) or "har" (the HAR file's)
    source: str = "route"
    t: float = 0.0            # seconds since the session's routes were installed


_EVENT_NAMES: dict[type[Event], str] = {
    RunStarted: "run_started",
    ScenarioStarted: "scenario_started",
    StepFinished: "step_finished",
    EmitRecorded: "emit_recorded",
    RuleFinished: "rule_finished",
    ScenarioFinished: "scenario_finished",
    RunCancelled: "run_cancelled",
    RunFinished: "run_finished",
    ModelCalled: "model_called",
    RequestRouted: "request_routed",
}
#: event name -> its class: what `from_json` reads an emit.jsonl line back into
EVENT_TYPES: dict[str, type[Event]] = {name: cls for cls, name in _EVENT_NAMES.items()}
