"""Fingerprints on the passing path: every selector that matched leaves its element's fingerprint
for the next run to heal from (docs/healing.md, "Cost on the passing path").

`remember` puts it into the step's `detail.fingerprint` (a further selector's, an await's or an emit
field's, into `detail.fingerprints`) and the run's store: taken by the read that counted the matches
(`Page.match(..., fingerprint=True)`) when `fingerprint_due`, else carried from the earlier run
(heal/fingerprint.py, REFRESH_RUNS) without a page call. `carry_broken` carries a healed
selector's last fingerprint on.
"""

from __future__ import annotations

from typing import Any, Mapping

from flowwalk.heal.fingerprint import fresh
from flowwalk.model import Act, Step
from flowwalk.walk.attempt import Attempt
from flowwalk.walk.outcomes import StepResult

__all__ = ["carry_broken", "exact", "fingerprint_due", "has_fingerprint", "remember", "remember_check"]


def exact(step: Step) -> bool:
    """A step other than an act keeps its own fingerprints: what a check saw (its text) is its own,
    never another step's that used the same selector."""
    return not isinstance(step, Act)


def fingerprint_due(attempt: Attempt, step: Step, selector: str) -> bool:
    """Must this step's fingerprint be taken afresh (else it is carried over)?"""
    return not attempt.run.fingerprints.carry(step.loc.path, step.loc.line, selector, exact=exact(step))


def has_fingerprint(attempt: Attempt, step: Act, selector: str) -> bool:
    """Can this act heal without a target (from its selector's last fingerprint alone)?"""
    return attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector) is not None


def remember(attempt: Attempt, step: Step, selector: str, fingerprint: Any, result: StepResult, *,
             also: bool = False) -> None:
    """Record the fingerprint of the element `selector` matched (see the module docstring): the
    step's `detail.fingerprint`, or with `also` (a step's further selector: an await, an emit field)
    one of its `detail.fingerprints`."""
    store = attempt.run.fingerprints
    record = fresh({"fp": fingerprint}, selector, attempt.redact) if fingerprint is not None else None
    if record is None:
        record = store.carry(step.loc.path, step.loc.line, selector, exact=exact(step))
    if record is None:
        return
    if also:
        result.detail.setdefault("fingerprints", []).append(record)
    else:
        result.detail["fingerprint"] = record
    if record.get("age") == 0:
        store.put(step.loc.path, step.loc.line, selector, record)


def remember_check(attempt: Attempt, step: Step, selector: str, due: bool, fingerprint: Mapping[str, Any] | None,
                   result: StepResult) -> None:
    """After a check of `selector` passed: its element's fingerprint, carried, or when `due`
    (`fingerprint_due`: every REFRESH_RUNS runs) the one its passing read took (`run_check`'s
    `fingerprint`), so that a later run can heal the check. A due fingerprint the read did not
    return (the element was gone by then) is not carried over either."""
    if due and fingerprint is None:
        return
    remember(attempt, step, selector, fingerprint if due else None, result)


def carry_broken(attempt: Attempt, step: Step, selector: str, result: StepResult, *, also: bool = False) -> None:
    """After `selector` was healed: its last fingerprint, one run older, as the step's (with `also`,
    one of its further selectors'). The selector is still the spec's: its last fingerprint is what
    the next run heals from (the healed element's would teach it this run's guess)."""
    old = attempt.run.fingerprints.get(step.loc.path, step.loc.line, selector, exact=exact(step))
    if old is None:
        return
    age = old.get("age")
    carried = {**old, "pinned": selector, "age": (age if isinstance(age, int) else 0) + 1}
    if also:
        result.detail.setdefault("fingerprints", []).append(carried)
    else:
        result.detail["fingerprint"] = carried
