"""The baseline checks and the accessibility checks: `expect kind: aria_snapshot | screenshot |
accessible`, and the flow assertion `no_accessibility_violations`.

Contract:
- **aria_snapshot** matches the element (default `body`) against its baseline with Playwright's
  matcher (`Page.aria_match`), waiting as Playwright does: it passes as soon as the page
  matches within the check's timeout;
- **screenshot** takes screenshots until two in a row are identical (the page has settled, as
  Playwright's toHaveScreenshot waits) and compares the last with the baseline (pixelmatch,
  `snapshots/images.py`); a first screenshot that already matches passes at once;
- a **missing** baseline fails the check `BASELINE_MISSING` (spec_step_unresolvable) and says to
  run `--update-snapshots`, and a **mismatch** fails it `EXPECT_STATE_MISMATCH` (assertion_failed);
  either way what the page showed is saved in the report folder (`baselines/...`), with the diff:
  the aria tree diff as text, or the expected, observed and difference images. Under
  `--update-snapshots` the run writes the baseline instead, the check passes, and a warning finding
  `baseline_written` names the file;
- **accessible** runs axe-core (`Page.axe`) on the page or within `selector`; violations at
  or above `impact` fail it, `EXPECT_STATE_MISMATCH`, each with its rule id, help link, impact and
  the offending elements' selectors. A failing first scan is taken again once, one interval later
  (a page still settling), and the check fails on that fresh scan;
- **no_accessibility_violations** scans every page the flow shows: after each body step that left
  the page at a URL not scanned yet (`scan_new_page`), and once more when the flow ends.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

from flowwalk import events as ev
from flowwalk.browser.axe import AxeContextError, axe_version
from flowwalk.browser.errors import InvalidSelector, PageError, TimedOut
from flowwalk.model import IMPACTS, Assertion, AxeOptions, Expect, Snapshot
from flowwalk.snapshots.aria import aria_diff, first_change, normalize_snapshot
from flowwalk.snapshots.images import ImageError, compare_png
from flowwalk.snapshots.store import read_baseline, report_name, save_report_file, sha256, write_baseline
from flowwalk.walk.attempt import Attempt, RuleState
from flowwalk.walk.boundary import halting
from flowwalk.walk.checks import describe_violations, judge_page
from flowwalk.walk.outcomes import StepFailed, StepResult

__all__ = ["grade_accessibility", "page_check", "scan_new_page"]

#: between two screenshots while waiting for the page to settle, and between two axe scans
INTERVAL_MS = 100


def page_check(attempt: Attempt, state: RuleState, step: Expect, timeout_ms: int, result: StepResult) -> None:
    """One aria_snapshot, screenshot or accessible expect (its {{vars}} already substituted); each
    read is judged by the kind's row of checks.KINDS (`judge_page`)."""
    selector = _scoped(step.selector, state.scope)
    try:
        with halting(attempt):
            if step.kind == "accessible":
                assert step.axe is not None
                _accessible(attempt, state, step, step.axe, selector, timeout_ms, result)
            elif step.kind == "aria_snapshot":
                assert step.snapshot is not None
                _aria(attempt, state, step, step.snapshot, selector, timeout_ms, result)
            else:
                assert step.snapshot is not None
                _screenshot(attempt, state, step, step.snapshot, selector, timeout_ms, result)
    except InvalidSelector as exc:
        raise StepFailed("ELEMENT_NOT_FOUND", str(exc), expected=f"an element matching '{exc.selector}'",
                         observed="the selector does not parse") from exc
    except TimedOut as exc:
        raise StepFailed("TIMEOUT", f"expect {step.kind}: {exc.detail}", expected=f"{step.kind} within "
                         f"{timeout_ms} ms", observed="timed out") from exc


def _scoped(selector: str | None, scope: str | None) -> str | None:
    if scope:
        return f"{scope} >> {selector}" if selector else scope
    return selector


def _where(selector: str | None) -> str:
    return f"'{selector}'" if selector else "the page"


# --- aria snapshots -----------------------------------------------------------------------------


def _aria(attempt: Attempt, state: RuleState, step: Expect, snap: Snapshot, selector: str | None,
          timeout_ms: int, result: StepResult) -> None:
    page = attempt.page
    start = time.monotonic()
    stored = read_baseline(attempt.run.root / snap.baseline)
    result.detail["baseline"] = snap.baseline
    if stored is not None:
        try:
            template = stored.decode("utf-8")
        except UnicodeDecodeError:
            raise StepFailed("BASELINE_INVALID", f"baseline {snap.baseline} is not UTF-8 text",
                             expected="an aria snapshot (YAML) in the baseline file", observed="binary data") from None
        read = page.aria_match(selector, template, timeout_ms=timeout_ms)
        ok, _expected, _observed = judge_page(step, state.scope, read)
        if ok is None:
            error = read.template_error or ""
            raise StepFailed("BASELINE_INVALID", f"baseline {snap.baseline} is not an aria snapshot Playwright "
                             f"can read: {error}", expected="an aria snapshot (YAML)", observed=error.splitlines()[0])
        if ok:
            return
    left = max(timeout_ms - (time.monotonic() - start) * 1000, 0)
    observed = attempt.redact(normalize_snapshot(_settled_aria(attempt, selector, left if stored is None else 0)))
    data = observed.encode("utf-8")
    if attempt.settings.update_snapshots:
        _written(attempt, state, step, snap, data, "missing" if stored is None else "changed")
        return
    text_diff = aria_diff(stored.decode("utf-8"), observed, baseline=snap.baseline) if stored is not None else ""
    record = ev.Baseline(kind="aria_snapshot", name=snap.name, path=snap.baseline,
                         status="missing" if stored is None else "mismatch",
                         observed=save_report_file(attempt.run.out_dir, report_name(snap.baseline), data),
                         text_diff=text_diff, sha256=sha256(data))
    _fail(snap, record, f"aria snapshot of {_where(selector)}", first_change(text_diff))


def _settled_aria(attempt: Attempt, selector: str | None, wait_ms: float) -> str:
    """The element's snapshot once two reads an interval apart agree (or when `wait_ms` is spent).
    A selector that matches nothing is ELEMENT_NOT_FOUND."""
    page = attempt.page
    if selector and page.match(selector).count == 0:
        raise StepFailed("ELEMENT_NOT_FOUND", f"no element matches '{selector}'",
                         expected=f"an element matching '{selector}'", observed="nothing matched")
    end = time.monotonic() + wait_ms / 1000
    last = page.aria_snapshot(selector, timeout_ms=5_000)
    while time.monotonic() < end:
        attempt.session.wait(INTERVAL_MS)  # type: ignore[union-attr]
        now = page.aria_snapshot(selector, timeout_ms=5_000)
        if now == last:
            break
        last = now
    return last


# --- screenshots --------------------------------------------------------------------------------


def _screenshot(attempt: Attempt, state: RuleState, step: Expect, snap: Snapshot, selector: str | None,
                timeout_ms: int, result: StepResult) -> None:
    end = time.monotonic() + timeout_ms / 1000
    stored = read_baseline(attempt.run.root / snap.baseline)
    result.detail["baseline"] = snap.baseline

    def take() -> bytes:
        left = max((end - time.monotonic()) * 1000, 1000)
        try:
            return attempt.page.screenshot(selector, mask=snap.mask, full_page=snap.full_page,
                                           hide=attempt.run.secrets.values(), timeout_ms=left)
        except InvalidSelector as exc:
            raise StepFailed("ELEMENT_NOT_FOUND", str(exc), expected=f"an element matching '{selector}'",
                             observed="the selector does not parse") from exc
        except PageError as exc:
            if selector and attempt.page.match(selector).count == 0:
                raise StepFailed("ELEMENT_NOT_FOUND", f"no element matches '{selector}'",
                                 expected=f"an element matching '{selector}'", observed="nothing matched") from exc
            if isinstance(exc, TimedOut):
                raise StepFailed("TIMEOUT", f"no screenshot of {_where(selector)} within {timeout_ms} ms",
                                 expected="a screenshot", observed="timed out") from exc
            raise

    def compare(shot: bytes) -> Any:
        assert stored is not None
        try:
            return compare_png(stored, shot, threshold=snap.threshold, max_diff_pixels=snap.max_diff_pixels,
                               max_diff_ratio=snap.max_diff_ratio)
        except ImageError as exc:
            raise StepFailed("BASELINE_INVALID", f"baseline {snap.baseline} is {exc}",
                             expected="a PNG baseline", observed=str(exc)) from None

    def alike(comparison: Any) -> bool:
        return bool(judge_page(step, state.scope, comparison)[0])

    shot = take()
    reads = 1
    if stored is not None and alike(compare(shot)):
        result.reads = reads
        return
    # wait for the page to settle: two screenshots in a row alike
    while time.monotonic() < end:
        attempt.session.wait(INTERVAL_MS)  # type: ignore[union-attr]
        again = take()
        reads += 1
        if again == shot:
            break
        shot = again
    result.reads = reads
    outcome = compare(shot) if stored is not None else None
    if outcome is not None and alike(outcome):
        return
    if attempt.settings.update_snapshots:
        _written(attempt, state, step, snap, shot, "missing" if stored is None else "changed")
        return
    out = attempt.run.out_dir
    observed = save_report_file(out, report_name(snap.baseline), shot)
    if outcome is None:
        record = ev.Baseline(kind="screenshot", name=snap.name, path=snap.baseline, status="missing",
                             observed=observed, sha256=sha256(shot))
        _fail(snap, record, f"screenshot of {_where(selector)}", "")
    assert stored is not None and outcome is not None
    record = ev.Baseline(
        kind="screenshot", name=snap.name, path=snap.baseline, status="mismatch", observed=observed,
        expected=save_report_file(out, report_name(snap.baseline, "expected"), stored),
        diff=save_report_file(out, report_name(snap.baseline, "diff"), outcome.diff_png) if outcome.diff_png else None,
        diff_pixels=outcome.diff_pixels, diff_ratio=round(outcome.ratio, 6), sha256=sha256(shot))
    _fail(snap, record, f"screenshot of {_where(selector)}", outcome.describe())


def _allowed(snap: Snapshot) -> str:
    limits = []
    if snap.max_diff_pixels is not None:
        limits.append(f"at most {snap.max_diff_pixels} pixel(s)")
    if snap.max_diff_ratio is not None:
        limits.append(f"at most {snap.max_diff_ratio:.2%} of the pixels")
    return f"{' and '.join(limits) or 'no pixel'} differing (threshold {snap.threshold:g})"


# --- missing, mismatched, written ---------------------------------------------------------------


def _fail(snap: Snapshot, record: ev.Baseline, what: str, detail: str) -> None:
    if record.status == "missing":
        raise StepFailed(
            "BASELINE_MISSING",
            f"no baseline yet, run with --update-snapshots to write {snap.baseline}, or `flowwalk heal --report "
            f"<this report>` to review and keep the one this run saved ({record.observed})",
            expected=f"the baseline {snap.baseline}", observed=f"no such file; the page's {what} is saved as "
                                                               f"{record.observed}", baseline=record)
    expected = (f"{what} matching {snap.baseline}" if record.kind == "aria_snapshot"
                else f"{what} like {snap.baseline}: {_allowed(snap)}")
    observed = f"{what} differs from {snap.baseline}" + (f"; {detail}" if detail else "")
    raise StepFailed("EXPECT_STATE_MISMATCH",
                     f"{observed} (diff in report.html; `flowwalk run --update-snapshots` or `flowwalk heal` "
                     "accepts the new one)", expected=expected, observed=observed, baseline=record)


def _written(attempt: Attempt, state: RuleState, step: Expect, snap: Snapshot, data: bytes, why: str) -> None:
    """--update-snapshots: write the baseline, keep a copy in the report, and say so."""
    write_baseline(attempt.run.root / snap.baseline, data)
    copy = save_report_file(attempt.run.out_dir, report_name(snap.baseline), data)
    record = ev.Baseline(kind=step.kind, name=snap.name, path=snap.baseline, status="written", observed=copy,
                         sha256=sha256(data))
    state.add_finding(ev.Finding(
        severity="warning", source="step", kind="baseline_written", step_index=state.current_index,
        message=f"baseline {snap.baseline} written ({why}) by --update-snapshots: review and commit it",
        baseline=record))


# --- accessibility ------------------------------------------------------------------------------


def _counted(found: Sequence[dict[str, Any]], impact: str, url: str) -> tuple[ev.Violation, ...]:
    floor = IMPACTS.index(impact) if impact in IMPACTS else 0
    out = []
    for v in found:
        level = str(v.get("impact") or "minor")
        if (IMPACTS.index(level) if level in IMPACTS else 0) < floor:
            continue
        out.append(ev.Violation(rule=str(v.get("id")), impact=level, help=str(v.get("help") or ""),
                                help_url=str(v.get("helpUrl") or ""),
                                targets=tuple(str(t) for t in v.get("targets") or ()),
                                count=int(v.get("count") or 0), url=url))
    # the worst first, then by rule id: the same page gives the same order
    out.sort(key=lambda v: (-IMPACTS.index(v.impact) if v.impact in IMPACTS else 0, v.rule))
    return tuple(out)


def _scan(attempt: Attempt, options: AxeOptions, selector: str | None) -> tuple[ev.Violation, ...]:
    page = attempt.page
    exclude = [attempt.bindings.subst(e) or e for e in options.exclude]
    try:
        found = page.axe(include=selector, exclude=exclude, rules=options.include, skip=options.skip)
    except AxeContextError:
        raise StepFailed("ELEMENT_NOT_FOUND", f"no element matches '{selector}': nothing to check",
                         expected=f"an element matching '{selector}'", observed="nothing matched") from None
    return tuple(_redacted(attempt, v) for v in _counted(found, options.impact, page.last_url()))


def _redacted(attempt: Attempt, v: ev.Violation) -> ev.Violation:
    return ev.Violation(rule=v.rule, impact=v.impact, help=v.help, help_url=v.help_url,
                        targets=tuple(attempt.redact(t) for t in v.targets), count=v.count,
                        url=attempt.redact(v.url))


def _expected(options: AxeOptions, selector: str | None) -> str:
    floor = "" if options.impact == "minor" else f" of impact {options.impact} or above"
    return f"no axe-core violations{floor} in {_where(selector)}"


def _accessible(attempt: Attempt, state: RuleState, step: Expect, options: AxeOptions, selector: str | None,
                timeout_ms: int, result: StepResult) -> None:
    start = time.monotonic()
    found = _scan(attempt, options, selector)
    ok, expected, observed = judge_page(step, state.scope, found)
    reads = 1
    if not ok and (time.monotonic() - start) * 1000 + INTERVAL_MS < timeout_ms:
        attempt.session.wait(INTERVAL_MS)  # type: ignore[union-attr]
        found = _scan(attempt, options, selector)
        ok, expected, observed = judge_page(step, state.scope, found)
        reads = 2
    result.reads = reads
    result.detail["axe_version"] = axe_version()
    if ok:
        return
    raise StepFailed("EXPECT_STATE_MISMATCH", f"{observed} (help: {found[0].help_url})",
                     expected=expected, observed=observed, violations=found)


# --- the flow assertion -------------------------------------------------------------------------


def _a11y_assertions(attempt: Attempt) -> list[Assertion]:
    return [a for a in attempt.scenario.assertions if a.kind == "no_accessibility_violations"]


def scan_new_page(attempt: Attempt, state: RuleState) -> None:
    """After a body step: scan the page for the flow's no_accessibility_violations assertions when
    its URL has not been scanned yet. Never fails the step: the assertion grades the flow later."""
    assertions = _a11y_assertions(attempt)
    if not assertions or attempt.session is None or attempt.session.uncommitted():
        return
    _scan_for(attempt, state, assertions)


def _scan_for(attempt: Attempt, state: RuleState, assertions: list[Assertion]) -> None:
    url = attempt.page.last_url()
    seen: dict[tuple[str, int], tuple[ev.Violation, ...] | str] = state.axe_scans
    for number, assertion in enumerate(assertions):
        key = (url, number)
        if key in seen:
            continue
        assert assertion.axe is not None
        try:
            with halting(attempt):
                seen[key] = _scan(attempt, assertion.axe, None)
        except StepFailed as failed:
            seen[key] = failed.message
        except PageError as exc:
            seen[key] = f"axe-core could not run on {url}: {exc.detail[:200]}"


def grade_accessibility(attempt: Attempt, state: RuleState, assertion: Assertion
                        ) -> tuple[bool, str, str, tuple[ev.Violation, ...]]:
    """(holds, expected, observed, violations) of one no_accessibility_violations assertion, over
    every page the flow showed (the last one scanned now)."""
    assertions = _a11y_assertions(attempt)
    number = assertions.index(assertion)
    if attempt.session is not None and not attempt.session.uncommitted():
        _scan_for(attempt, state, assertions)
    assert assertion.axe is not None
    found: list[ev.Violation] = []
    errors: list[str] = []
    pages = 0
    for (url, n), value in state.axe_scans.items():
        if n != number:
            continue
        pages += 1
        if isinstance(value, str):
            errors.append(value)
        else:
            found.extend(value)
    expected = _expected(assertion.axe, None).replace("the page", f"any page of the flow ({pages} scanned)")
    if found:
        return False, expected, describe_violations(found), tuple(found)
    if errors:
        return False, expected, "; ".join(errors[:3]), ()
    return True, expected, "none", ()
