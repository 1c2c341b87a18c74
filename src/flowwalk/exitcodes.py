"""The process exit codes of every flowwalk command, and the one rule that picks a run's.

`decide_outcome` is the only place a run's outcome and exit code are decided: the walker's
`run_finished` and `verdict.json` (and so `report`, `merge` and `publish`) all ask it, so they
cannot disagree. docs/reports.md states the rule for users.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Final, Iterable, Literal, Mapping, Sequence


class ExitCode(IntEnum):
    #: Every scenario passed (flaky ones too, unless the fail policy says otherwise).
    OK = 0
    #: The site verifiably misbehaved: at least one `assertion_failed`. The only code that should alert.
    SITE_MISBEHAVED = 1
    #: No assertion failed, but a spec needs review: `spec_step_unresolvable`, `credential_rejected`,
    #: `agent_uncertain` or `quota_exceeded`; or a flaky test under `flaky_policy: fail`, or a healed
    #: selector under `heal_policy: fail`.
    SPEC_NEEDS_REVIEW = 2
    #: Input was refused before any browser started: a spec, rule file, suite or option is invalid.
    INPUT_REFUSED = 3
    #: flowwalk itself broke: a bug. The traceback goes to a file named on stderr.
    INTERNAL_ERROR = 4
    #: The run was cancelled by SIGINT or SIGTERM; the reports cover what ran.
    CANCELLED = 5
    #: No assertion failed, but the infrastructure did (`infrastructure_error`: the browser could not
    #: be started or crashed, flowwalk broke mid-scenario), or tests were cut short (run timeout, a
    #: crashed browser, a shard missing from a merge, never run). Rerunning may pass; the spec is not
    #: at fault.
    INFRASTRUCTURE_FAILED = 6
    #: The site never came up: the readiness wait (`--wait-for`) ran out before it answered as
    #: expected, so no flow was walked (a preview deployment still building, or broken). Nothing
    #: is known about the specs or about the site's behaviour.
    SITE_NOT_READY = 7


#: what a run came to, as verdict.json's `outcome` names it
Outcome = Literal["passed", "site_misbehaved", "spec_needs_review", "infrastructure_failed", "cancelled",
                  "site_not_ready"]

OUTCOME_EXIT: Final[Mapping[Outcome, ExitCode]] = {
    "passed": ExitCode.OK,
    "site_misbehaved": ExitCode.SITE_MISBEHAVED,
    "spec_needs_review": ExitCode.SPEC_NEEDS_REVIEW,
    "infrastructure_failed": ExitCode.INFRASTRUCTURE_FAILED,
    "cancelled": ExitCode.CANCELLED,
    "site_not_ready": ExitCode.SITE_NOT_READY,
}

#: each outcome in words, for every report's headline (console, summary.md, report.html, the comment)
OUTCOME_WORDS: Final[Mapping[str, str]] = {  # keyed by Outcome
    "passed": "all checks passed",
    "site_misbehaved": "the site misbehaved",
    "spec_needs_review": "a spec needs review",
    "infrastructure_failed": "the infrastructure failed",
    "cancelled": "the run was cancelled",
    "site_not_ready": "the site never came up",
}

#: skip reasons that mean "this check was cut short", not "this check decided to skip": a run
#: holding one did not finish its work, so it never reads as a pass
INCOMPLETE_REASONS: Final = ("run_timeout", "shard_missing", "not_run", "browser_crashed")


#: how a test's result compares with the base branch's last report (`JobGate.change`)
Change = Literal["", "new", "still_failing", "newly_flaky", "still_flaky", "fixed"]
#: why a failing (or flaky) result does not fail the job: its quarantine is active, or under
#: `fail_on: new` it is not new against the base report
Excuse = Literal["", "quarantined", "not_new"]


@dataclass(frozen=True)
class JobGate:
    """Which failing results fail the job: everything, except a test whose quarantine is active,
    and, under `fail_on: "new"`, a failure that is not new against the base report.

    Built once per run (`from_record` of `run_started.gate`), so the walker's `run_finished` and
    verdict.json excuse exactly the same tests. An expired quarantine excuses nothing.
    """

    fail_on: str = "any"
    #: test ids of active (unexpired) quarantine entries
    quarantined: frozenset[str] = frozenset()
    #: the base report's final status of each test it ran to an end; None: no base report
    base: Mapping[str, str] | None = field(default=None, compare=False)

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> "JobGate":
        if not isinstance(record, Mapping):
            return cls()
        quarantine = record.get("quarantine") if isinstance(record.get("quarantine"), Mapping) else {}
        active = {str(tid) for entry in (quarantine or {}).get("entries") or () if isinstance(entry, Mapping)
                  and not entry.get("expired") for tid in entry.get("tests") or ()}
        base = record.get("base") if isinstance(record.get("base"), Mapping) else None
        tests = base.get("tests") if base is not None and isinstance(base.get("tests"), Mapping) else None
        return cls(fail_on=str(record.get("fail_on") or "any"), quarantined=frozenset(active),
                   base={str(k): str(v) for k, v in tests.items()} if tests is not None else None)

    def change(self, test_id: str, status: str) -> Change:
        """`new`: failed here, not on the base (or the base did not run it); `still_failing`: failed
        on both; `newly_flaky` / `still_flaky`: flaky here, and not / also on the base; `fixed`:
        failed on the base, passed (or flaky) here. "" without a base report, or nothing to say."""
        if self.base is None:
            return ""
        before = self.base.get(test_id)
        if status == "failed":
            return "still_failing" if before == "failed" else "new"
        if status == "flaky":
            if before == "failed":
                return "fixed"
            return "still_flaky" if before == "flaky" else "newly_flaky"
        if status == "passed" and before == "failed":
            return "fixed"
        return ""

    def excuse(self, test_id: str, status: str) -> Excuse:
        """Why this failed or flaky result does not fail the job ("" when it counts)."""
        if status not in ("failed", "flaky"):
            return ""
        if test_id in self.quarantined:
            return "quarantined"
        if self.fail_on == "new" and self.base is not None and self.change(test_id, status) in (
                "still_failing", "still_flaky", "fixed"):
            return "not_new"
        return ""


def decide_outcome(results: Iterable[Sequence[str | None]], *, cancelled: bool, flaky_policy: str,
                   heal_policy: str = "pass", healed: bool = False,
                   gate: JobGate | None = None) -> tuple[Outcome, ExitCode]:
    """(outcome, exit code) of a run from (status, skip reason, failure class[, test id]) of each
    test's final result.

    First rule that applies: cancelled (5); any `assertion_failed` (1, the only alerting one); a
    test not walked because the site never came up (a `site_not_ready` skip: the readiness wait ran
    out) (7); any `infrastructure_error` or a test cut short (an `INCOMPLETE_REASONS` skip) (6); any other
    failure class (2); a flaky test under `flaky_policy: fail` (2); a test that passed through a
    healed selector (`healed`) under `heal_policy: fail` (2); else passed (0). A failed test
    without a class is flowwalk's own fault and counts as `infrastructure_error`. With a `gate`,
    a failed or flaky test it excuses (quarantined, or not new under `fail_on: new`; the row
    needs its test id) counts as passed.
    """
    rows = []
    for row in results:
        status, reason, cls = row[0], row[1], row[2]
        if gate is not None and len(row) > 3 and gate.excuse(str(row[3]), str(status)):
            status, reason, cls = "passed", "", None
        rows.append((status, reason, cls))
    classes = {cls or "infrastructure_error" for status, _, cls in rows if status == "failed"}
    outcome: Outcome
    if cancelled:
        outcome = "cancelled"
    elif "assertion_failed" in classes:
        outcome = "site_misbehaved"
    elif any(status == "skipped" and reason == "site_not_ready" for status, reason, _ in rows):
        outcome = "site_not_ready"
    elif "infrastructure_error" in classes or any(status == "skipped" and reason in INCOMPLETE_REASONS
                                                  for status, reason, _ in rows):
        outcome = "infrastructure_failed"
    elif classes or (flaky_policy == "fail" and any(status == "flaky" for status, _, _ in rows)) \
            or (heal_policy == "fail" and healed):
        outcome = "spec_needs_review"
    else:
        outcome = "passed"
    return outcome, OUTCOME_EXIT[outcome]
