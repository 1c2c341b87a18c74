"""Failure evidence: what the page showed when a step failed, and where the last click landed.

Contract:
- `failure_context` gives a failure's `context`: what the page's events recorded, its title, an
  accessibility snapshot (a large one goes to `context/` and the record keeps its head), the
  scope, and `last_click` when the rule's last act was a click;
- `with_failure_evidence` adds the failure screenshot when the rule wants one;
- evidence is best effort and never outlives its reason. None is asked of a page that has not
  committed a document (the browser would hold the answer until it does), nor with less than
  EVIDENCE_MIN_MS left of the run or of the rule plus its grace (`Budget.evidence_skip`); what is
  taken gets at most that remainder (`Budget.evidence_ms`). A page that does not answer for its
  title or snapshot is marked unresponsive and no screenshot is tried. What was skipped, and why,
  is in `context["evidence_skipped"]`, and so is a failure screenshot that was tried and not saved
  (one that took longer than its limit, a page that crashed meanwhile): a missing picture always
  says why;
- a click can "pass" without reaching its element (content that moves between mouse-down and
  mouse-up): `click_landing` reads the page's own record of the click in one bounded call, only
  on this failure path, and says when it reached something other than the selector's match.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, replace
from typing import Any

from flowwalk import events as ev
from flowwalk.model import Rule
from flowwalk.scrub import MIN_LENGTH
from flowwalk.walk.attempt import Attempt, Budget, Click, RuleState

__all__ = ["A11Y_TIMEOUT_MS", "LAST_CLICK_TIMEOUT_MS", "SCREENSHOT_TIMEOUT_MS", "TITLE_TIMEOUT_MS",
           "click_landing", "failure_context", "plain_css", "screenshot", "screenshot_name", "skip_reason", "slug",
           "with_failure_evidence"]

#: an accessibility snapshot longer than this goes to `context/` and the record keeps its head
A11Y_INLINE_LIMIT = 4000
A11Y_FILE_LIMIT = 200_000
#: browser/session.py's own bound on an accessibility snapshot; an empty one that took most of it
#: means the page is not answering, and the screenshot (bound 10 s) is not tried after it
A11Y_TIMEOUT_MS = 5000
#: the most the page's title may take in the failure evidence (a blocked main thread never answers)
TITLE_TIMEOUT_MS = 2_000
#: the most a screenshot may take (less when the run or the rule has less left: `Budget.evidence_ms`)
SCREENSHOT_TIMEOUT_MS = 10_000
#: the most reading where the last click landed may take (`click_landing`)
LAST_CLICK_TIMEOUT_MS = 1_000

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


def plain_css(selector: str | None) -> bool:
    """Is `selector` plain CSS, which `document.querySelectorAll` reads as Playwright does? (Not a
    `text=`/`role=`/... engine, not chained with `>>`, not XPath, no Playwright pseudo-class.)"""
    text = (selector or "").strip()
    if not text or ">>" in text or text.startswith(("/", "(", "..", '"', "'")):
        return False
    return not _ENGINE_PREFIX.match(text) and not _PLAYWRIGHT_PSEUDO.search(text)


def skip_reason(attempt: Attempt, budget: Budget) -> str | None:
    """Why failure evidence (a snapshot, a screenshot) is not taken now, or None to take it."""
    if attempt.session is not None:
        why = attempt.session.uncommitted()
        if why:
            return why
    return budget.evidence_skip()


def with_failure_evidence(attempt: Attempt, state: RuleState, failure: ev.Failure, index: int) -> ev.Failure:
    """Add the failure screenshot (when the rule wants one), unless there is no page to show
    or no time left for it: then the context says why it was skipped."""
    if failure.screenshot or attempt.control.crashed:
        return failure
    if state.rule.screenshot_on_fail and attempt.settings.screenshots != "off":
        why = attempt.unresponsive or skip_reason(attempt, state.budget)
        if why:
            skipped = {**(failure.context.get("evidence_skipped") or {}), "screenshot": why}
            return replace(failure, context={**failure.context, "evidence_skipped": skipped})
        shot, missing = _shoot(attempt, state.rule, index, "fail", state.budget.evidence_ms(SCREENSHOT_TIMEOUT_MS))
        if shot:
            state.add_screenshot(shot)
            masked = list(getattr(attempt.session, "last_masked", None) or ())
            if masked:
                # what was painted over because it held a secret (its value or its own text)
                return replace(failure, screenshot=shot, context={**failure.context, "screenshot_masked": masked})
            return replace(failure, screenshot=shot)
        skipped = {**(failure.context.get("evidence_skipped") or {}), "screenshot": missing}
        return replace(failure, context={**failure.context, "evidence_skipped": skipped})
    return failure


def failure_context(attempt: Attempt, scope: str | None, budget: Budget | None = None,
                    clicked: Click | None = None) -> dict[str, Any]:
    """The page's evidence at the moment of a failure (redacted on the way out).

    The accessibility snapshot is skipped when `skip_reason` says so; one that came back empty
    after most of its time marks the page unresponsive, so the failure screenshot is not tried
    either (`with_failure_evidence`). `clicked` is the rule's most recent act when it was a click:
    where it landed is added (`last_click`) when the page is asked at all."""
    attempt.unresponsive = None
    session = attempt.session
    if session is None or attempt.control.crashed:
        return {}
    budget = budget or attempt.budget
    why = skip_reason(attempt, budget)
    title_ms = budget.evidence_ms(TITLE_TIMEOUT_MS)
    started = time.monotonic()
    try:
        # with no document (or no time) the page is not asked at all: only what events recorded
        context = dict(session.evidence(timeout_ms=None if why else title_ms))
    except Exception:  # noqa: BLE001 - evidence is best effort
        context = {}
    took_ms = (time.monotonic() - started) * 1000
    if not why and not context.get("title") and took_ms >= title_ms * 0.8:
        # a page that cannot say its title in time will not draw a snapshot or a picture either
        attempt.unresponsive = why = f"the page did not answer for its title in {took_ms / 1000:.1f} s"
    snapshot = ""
    if why:
        context["evidence_skipped"] = {"a11y_snapshot": why}
    else:
        snapshot_ms = budget.evidence_ms(A11Y_TIMEOUT_MS)   # after the title's time
        started = time.monotonic()
        try:
            snapshot = session.a11y_snapshot(scope, limit=A11Y_FILE_LIMIT, timeout_ms=snapshot_ms)
        except Exception:  # noqa: BLE001
            snapshot = ""
        took_ms = (time.monotonic() - started) * 1000
        if not snapshot and took_ms >= snapshot_ms * 0.8:
            attempt.unresponsive = f"the page did not answer the accessibility snapshot in {took_ms / 1000:.1f} s"
            context["evidence_skipped"] = {"a11y_snapshot": f"no answer in {took_ms / 1000:.1f} s: the page is "
                                                            f"not responding"}
    if len(snapshot) > A11Y_INLINE_LIMIT:
        snapshot = _snapshot_to_file(attempt, snapshot, context)
    if snapshot:
        context["a11y_snapshot"] = snapshot
    if scope:
        context["scope"] = scope
    if clicked is not None and not why and not attempt.unresponsive:
        landing = click_landing(attempt, clicked, budget.evidence_ms(LAST_CLICK_TIMEOUT_MS))
        if landing is not None:
            context["last_click"] = landing
    return context


def _snapshot_to_file(attempt: Attempt, snapshot: str, context: dict[str, Any]) -> str:
    """Write a large snapshot to `context/` (named in `context`); the head the record keeps."""
    attempt.context_files += 1
    name = (f"context/{slug(attempt.redact(attempt.scenario.id))}--a{attempt.number}"
            f"-{attempt.context_files:02d}.aria.yaml")
    try:
        path = attempt.run.out_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(attempt.redact(snapshot), encoding="utf-8")
        context["a11y_snapshot_file"] = name
    except OSError:
        pass
    cut = snapshot.rfind("\n", 0, A11Y_INLINE_LIMIT)
    return snapshot[:cut if cut > 0 else A11Y_INLINE_LIMIT] + "\n# … the whole snapshot is in the file"


def screenshot(attempt: Attempt, rule: Rule, index: int, kind: str,
               timeout_ms: float = SCREENSHOT_TIMEOUT_MS) -> str | None:
    """Save a screenshot (`screenshot_name`) with every secret painted over; its name, or None."""
    return _shoot(attempt, rule, index, kind, timeout_ms)[0]


def _shoot(attempt: Attempt, rule: Rule, index: int, kind: str, timeout_ms: float) -> tuple[str | None, str]:
    """`screenshot`, and when there is none, why (redacted): (name, "") or (None, why)."""
    session = attempt.session
    if session is None:
        return None, "there was no page"
    uncommitted = session.uncommitted()
    if uncommitted:
        return None, attempt.redact(uncommitted)   # the browser would hold the picture until the document commits
    rule_part = None if attempt.scenario.kind == "flow" else attempt.redact(rule.name)
    name = screenshot_name(attempt.redact(attempt.scenario.id), rule_part, index, kind, attempt.number)
    try:
        # a secret typed into a field, or echoed by the page, is painted over: no value in pixels
        missing = session.save_screenshot(attempt.run.out_dir / name, full_page=attempt.settings.full_page_screenshots,
                                          hide=hidden_values(attempt), timeout_ms=timeout_ms)
    except Exception as exc:  # noqa: BLE001 - the interface says never raises; be sure
        missing = f"the screenshot failed: {type(exc).__name__}"
    return (name, "") if missing is None else (None, attempt.redact(missing))


def hidden_values(attempt: Attempt) -> list[str]:
    """What a screenshot paints over: the run's secrets, the file's, and the values of the session
    the scenario started from or saved (its cookies and local storage)."""
    values = [*attempt.run.secrets.values(), *attempt.bindings.secret_values.values(),
              *attempt.bindings.hidden_values]
    return [v for v in values if len(v) >= MIN_LENGTH]


def _landing_text(entry: dict[str, Any]) -> str:
    """`tag#id.class.class[data-testid="x"]`: how a recorded event target is named (its test id
    under the attribute it was found in, one of the run's `test_id_attribute`)."""
    out = str(entry.get("tag") or "?")
    if entry.get("id"):
        out += f"#{entry['id']}"
    out += "".join(f".{c}" for c in entry.get("classes") or () if isinstance(c, str) and c)
    if entry.get("testid"):
        out += f'[{entry.get("testid_attr") or "data-testid"}="{entry["testid"]}"]'
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


def click_landing(attempt: Attempt, clicked: Click, timeout_ms: float) -> dict[str, Any] | None:
    """Where the click of `clicked` landed, from the page's own record (one bounded read), or
    None when the page has no event of that click (it navigated since, or did not answer).

    Playwright checks that the mouse-down hits the element, not where the mouse-up lands. For
    a plain CSS selector the click's target is compared with what the selector matches now
    (the match itself, or the button or link around it, as Playwright aims): one outside it
    gets a sentence saying so. Other selectors only have their targets reported."""
    if attempt.session is None:
        return None
    compare = clicked.selector if plain_css(clicked.selector) else None
    try:
        record = attempt.session.last_click(compare, timeout_ms=timeout_ms)
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
