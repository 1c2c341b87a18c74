"""The typed verdict of a run: what verdict.json holds, as frozen records.

`verdict.build_verdict` makes a `Verdict` from the run's records; `verdict_json` writes it to
verdict.json and reads it back, and generates `schemas/verdict.v1.schema.json` from these classes
(their attribute docstrings are the schema's descriptions). Every presenter (summary.md, the PR
comment, report.html, the console, the MCP answers) reads these fields, never the JSON.

A test's `failure` and `findings` are the records of emit.jsonl (`events.Failure`, `events.Finding`),
carried unchanged: the verdict schema refers to the emit-event schema for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from pydantic import ConfigDict

from flowwalk.events import Failure, Finding, Status
from flowwalk.exitcodes import Change, Excuse, Outcome

VERDICT_SCHEMA: Final = "flowwalk.verdict/1"
#: the kinds of test file a test comes from
TestKind = Literal["flow", "rules", "robot"]
#: field docstrings become the generated schema's descriptions; a key no record declares is refused
_CONFIG = ConfigDict(use_attribute_docstrings=True, extra="forbid")


@dataclass(frozen=True)
class Shards:
    """Which shards of the plan reported into this verdict."""

    __pydantic_config__ = _CONFIG
    total: int
    reported: tuple[int, ...]
    missing: tuple[int, ...]
    duplicated: tuple[int, ...]
    mismatched: tuple[int, ...]
    """shards whose recorded plan differs from the lowest shard's"""
    shard: int | None = None
    """the shard this report covers alone (a shard job's own report: its own tests and totals); absent when the
    report covers the whole run (unsharded, or merged by flowwalk merge)"""


@dataclass(frozen=True)
class Counts:
    """Tests by final status; exclusive: total = passed + failed + skipped + flaky."""

    __pydantic_config__ = _CONFIG
    total: int
    passed: int
    failed: int
    skipped: int
    flaky: int


@dataclass(frozen=True)
class ByClass:
    """Failed tests by failure class (`events.FailureClass`, in its order)."""

    __pydantic_config__ = _CONFIG
    assertion_failed: int
    spec_step_unresolvable: int
    credential_rejected: int
    agent_uncertain: int
    quota_exceeded: int
    infrastructure_error: int

    def of(self, failure_class: str) -> int:
        """The count of one class by its name (0 for a name that is not a class)."""
        value = getattr(self, failure_class, 0)
        return value if isinstance(value, int) else 0


@dataclass(frozen=True)
class QuarantineRef:
    """The quarantine entry covering a test (docs/quarantine.md)."""

    __pydantic_config__ = _CONFIG
    id: str
    owner: str
    reason: str
    expires: str
    expired: bool


@dataclass(frozen=True)
class TestVerdict:
    """One test of the plan: where it is written, how it ended, and why."""

    __pydantic_config__ = _CONFIG
    __test__ = False  # not a pytest test class
    test_id: str
    scenario_id: str
    rule: str
    name: str
    source: str
    line: int
    kind: TestKind
    tags: tuple[str, ...]
    """the test's tags (docs/selection.md)"""
    status: Status
    reason: str
    """skipped: an emit rule_finished reason (max_failures: --max-failures stopped the run first), or
    shard_missing | cancelled | not_run for a test no shard finished"""
    duration_ms: float
    attempts: int
    failure: Failure | None
    """a failed or skipped test's failure record, as emit.jsonl's rule_finished holds it"""
    findings: tuple[Finding, ...]
    skipped_steps: tuple[str, ...]
    screenshots: tuple[str, ...]
    change: Change
    """against the base report ("" without one): new = failed here, not on the base; still_failing = failed on
    both; newly_flaky / still_flaky = flaky here and not / also on the base; fixed = failed on the base, passed
    here"""
    quarantine: QuarantineRef | None
    """the quarantine entry covering this test (docs/quarantine.md)"""
    excused: Excuse
    """why this failed or flaky result does not fail the job"""
    blocking: bool
    """this test's own result fails the job"""


@dataclass(frozen=True)
class RootCause:
    """A failed test that did not fail because a parent did, with the tests skipped because of it."""

    __pydantic_config__ = _CONFIG
    test_id: str
    failure_class: str
    """one of the failure classes (see by_class)"""
    message: str
    step_text: str
    path: str
    line: int | None
    expected: str
    observed: str
    dependents: tuple[str, ...]
    """the tests not run (transitively) because this one failed, in plan order"""


@dataclass(frozen=True)
class Slow:
    """One of the slowest tests that walked."""

    __pydantic_config__ = _CONFIG
    test_id: str
    duration_ms: float


@dataclass(frozen=True)
class GateBase:
    """The base report the run was compared with."""

    __pydantic_config__ = _CONFIG
    path: str | None
    run_id: str | None
    started_at: str | None
    tests: int
    """how many tests the base report holds"""


@dataclass(frozen=True)
class GateChanges:
    """Test ids by how they compare with the base report (see TestVerdict.change)."""

    __pydantic_config__ = _CONFIG
    new: tuple[str, ...]
    still_failing: tuple[str, ...]
    newly_flaky: tuple[str, ...]
    still_flaky: tuple[str, ...]
    fixed: tuple[str, ...]

    def of(self, change: str) -> tuple[str, ...]:
        """The ids of one change by its name (none for a name that is not a change)."""
        value = getattr(self, change, ())
        return value if isinstance(value, tuple) else ()


@dataclass(frozen=True)
class QuarantineEntry:
    """One entry of the quarantine file, with the tests it covers."""

    __pydantic_config__ = _CONFIG
    id: str
    owner: str
    reason: str
    expires: str
    expired: bool
    line: int
    """the entry's line in the quarantine file"""
    tests: tuple[str, ...]
    """the test ids it covers (an id naming a scenario covers all its tests)"""


@dataclass(frozen=True)
class GateQuarantine:
    """The quarantine file the run read, and what its entries did."""

    __pydantic_config__ = _CONFIG
    path: str | None
    today: str | None
    entries: tuple[QuarantineEntry, ...]
    excused: tuple[str, ...]
    """failing tests an active entry excused"""
    expired: tuple[str, ...]
    """failing tests whose entry has expired: they fail the job again"""
    unknown: tuple[str, ...]
    """entries naming no test of the run"""


@dataclass(frozen=True)
class Gate:
    """What the run was compared with and which failures were excused (docs/quarantine.md)."""

    __pydantic_config__ = _CONFIG
    fail_on: Literal["any", "new"]
    base: GateBase | None
    changes: GateChanges | None
    quarantine: GateQuarantine | None
    not_new: tuple[str, ...]
    """failing tests excused because they failed on the base too (fail_on: new)"""


@dataclass(frozen=True)
class ReadinessWait:
    """What one shard's readiness wait (--wait-for) saw."""

    __pydantic_config__ = _CONFIG
    shard: int
    url: str
    expected: str
    ready: bool
    attempts: int
    waited_s: float
    last: str
    """what the site last answered"""
    timeout_s: float
    cancelled: bool


@dataclass(frozen=True)
class Verdict:
    """The machine verdict of a run, rebuilt from emit.jsonl alone. `exit_code` is the process exit code of
    `flowwalk run`, `merge` and `report`."""

    __pydantic_config__ = _CONFIG
    schema: Literal["flowwalk.verdict/1"]
    outcome: Outcome
    exit_code: Literal[0, 1, 2, 5, 6, 7]
    """0 passed, 1 site misbehaved, 2 spec needs review, 5 cancelled, 6 infrastructure failed, 7 the site never
    came up"""
    run_id: str
    root: str | None
    """the project root of the run, absolute: every spec path and test id is relative to it; null for a report
    that did not record it"""
    started_at: str
    duration_ms: float
    shards: Shards
    counts: Counts
    by_class: ByClass
    tests: tuple[TestVerdict, ...]
    """every test of the plan, in plan order"""
    root_causes: tuple[RootCause, ...]
    """failed tests that did not fail because a parent did, with the tests skipped (transitively) because of
    each"""
    flaky: tuple[str, ...]
    slowest: tuple[Slow, ...]
    """the slowest tests that walked, slowest first (at most 10)"""
    warnings: tuple[str, ...]
    """what went wrong reading the run: damaged lines, missing or duplicated shards"""
    gate: Gate
    readiness: tuple[ReadinessWait, ...] = ()
    """what each shard's readiness wait (--wait-for) saw, for the shards that waited; empty when none did"""

    def test(self, test_id: str) -> TestVerdict | None:
        """The test of this id, or None."""
        return next((t for t in self.tests if t.test_id == test_id), None)
