"""Healing a pinned act selector that matched nothing: deterministic first, a model only if configured.

`heal_selector` gathers candidates from two places, merged per element:

- the step's `target` description, ranked by `resolve.rank_target` (role, label, placeholder,
  text, test id, the hinted role beside a naming text); its score over 100 is `d`;
- the selector's last fingerprint (heal/fingerprint.py), compared with every plausible element
  of the page (links, buttons, form fields, anything with a role, a test id or the old tag; at
  most 300) by `heal.score.similarity`: `f`.

Each visible element scores `combine(d, f)`. The best is used only if it reaches THRESHOLD and
leads the next visible element by MARGIN; the selector written for it is a CSS selector that
matches only it (`resolve.CSS_PATH_JS`). Otherwise, when a model is configured, it is asked to
pick among at most 50 of these candidates that score at least MODEL_FLOOR (agent/), and may
pick none. Never "the nearest
thing": with no pick the step fails naming the best candidates and their scores.

A heal only ever replaces the act's selector: the action, its value and every later check stay
the spec's (the walker runs them all; a later check that fails after a heal is reported as the
heal being wrong, see walk/act.py's caller).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping

from flowwalk.agent import Agent, ModelCall, ModelUnavailable, NoValidAnswer, QuotaExceeded, choose_candidate
from flowwalk.browser.errors import InvalidSelector, PageError, PageGone
from flowwalk.browser.probe import Collected, Detail, Reader
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.score import MARGIN, THRESHOLD, combine, similarity
from flowwalk.walk.resolve import rank_target

__all__ = ["HealOutcome", "heal_selector", "describe_element", "KEPT", "MAX_COLLECTED"]

KEPT = 5
MAX_COLLECTED = 300
MAX_FOR_MODEL = 50
#: a candidate is shown to the model only with this much deterministic evidence: the model
#: chooses among plausible elements, never among everything a page offers (a "Delete account"
#: button that merely is a button is not listed, whatever the page's text asks for)
MODEL_FLOOR = 0.40
CONTEXT_CHARS = 8 * 1024

@dataclass
class _Element:
    id: int
    d: float | None = None
    strategy: str = ""
    desc_selector: str | None = None
    fp: dict[str, Any] | None = None
    css: str | None = None
    visible: bool = False
    enabled: bool = True
    f: float | None = None
    score: float = 0.0

    def record(self) -> dict[str, Any]:
        return {"selector": self.css or self.desc_selector, "score": self.score,
                "description_score": None if self.d is None else round(min(self.d, 1.0), 3),
                "fingerprint_score": self.f, "strategy": self.strategy or "fingerprint",
                "visible": self.visible, "enabled": self.enabled, "count": 1,
                "role": (self.fp or {}).get("role", ""), "element": describe_element(self.fp)}


@dataclass(frozen=True)
class HealOutcome:
    """What healing decided: a selector to act on, or None and why (with the best candidates)."""

    selector: str | None
    method: str                                   # deterministic | model | none
    score: float
    reason: str
    candidates: tuple[dict[str, Any], ...] = ()
    #: the model could not decide (QuotaExceeded, ModelUnavailable, NoValidAnswer): the step's class
    model_error: BaseException | None = None
    model_calls: tuple[ModelCall, ...] = field(default=())


def describe_element(fp: Mapping[str, Any] | None) -> str:
    """One line for a person (and the model): `button "Save" #save .btn.primary`."""
    if not fp:
        return "?"
    parts = [str(fp.get("role") or fp.get("tag") or "?")]
    name = fp.get("aname") or fp.get("text")
    if name:
        parts.append(f'"{name}"')
    if fp.get("tag") and fp.get("tag") != parts[0]:
        parts.append(f"<{fp['tag']}>")
    if fp.get("id"):
        parts.append(f"#{fp['id']}")
    if fp.get("testid"):
        parts.append(f"test-id={fp['testid']}")
    if fp.get("name"):
        parts.append(f"name={fp['name']}")
    if fp.get("classes"):
        parts.append("." + ".".join(fp["classes"][:3]))
    text = fp.get("text")
    if text and text != name:
        parts.append(f'text "{text}"')
    if fp.get("ancestors"):
        parts.append("in " + " < ".join(fp["ancestors"][:2]))
    return " ".join(parts)


def heal_selector(reader: Reader, *, pinned: str, target: str | None, fingerprint: Mapping[str, Any] | None,
                  scope: str | None = None, action: str = "click", agent: Agent | None = None,
                  step: Hashable | None = None, timeout_s: float | None = None,
                  redact: Callable[[str], str] = lambda s: s,
                  record: Callable[[ModelCall], None] | None = None) -> HealOutcome:
    """Find what the pinned selector meant (see the module docstring), reading the page through
    `reader`. Raises `PageGone` only for a closed page or browser (the caller's boundary judges);
    never for page content."""
    elements: dict[int, _Element] = {}
    problem = None
    if target:
        ranked, problem = rank_target(reader, target, scope, slack=int(MARGIN * 100) + 1)
        for c in ranked:
            for element_id in c.ids:
                e = elements.setdefault(element_id, _Element(element_id))
                d = c.score / 100
                if e.d is None or d > e.d:
                    e.d, e.strategy = d, c.strategy
                    e.desc_selector = c.selector if c.count == 1 else None
                    e.visible = e.visible or c.visible > 0
                    e.enabled = c.enabled
    if fingerprint:
        for item in _collect(reader, scope, str(fingerprint.get("tag") or "")):
            e = elements.setdefault(item.id, _Element(item.id))
            e.fp = bound(item.fp, redact)
            e.visible, e.enabled = item.visible, item.enabled
    for e in elements.values():
        e.f = similarity(fingerprint, e.fp) if fingerprint and e.fp else None
        e.score = combine(e.d, e.f)
    ranked_elements = sorted(elements.values(), key=lambda e: (-e.score, e.id))
    # details (fingerprint, a unique selector) for what may be shown or used
    shown = [e for e in ranked_elements if e.visible][:MAX_FOR_MODEL if agent is not None else KEPT + 1]
    details = _details(reader, [e.id for e in shown])
    for e in shown:
        info = details.get(e.id)
        if info is None:
            e.visible = False
            continue
        if e.fp is None:
            e.fp = bound(info.fp, redact)
            if fingerprint and e.fp:
                e.f = similarity(fingerprint, e.fp)
                e.score = combine(e.d, e.f)
        e.css = info.css
        e.visible, e.enabled = info.visible, info.enabled
    visible = sorted((e for e in shown if e.visible), key=lambda e: (-e.score, e.id))
    kept = tuple(e.record() for e in visible[:KEPT])
    if not visible:
        why = problem or ("no candidates" if not elements else f"no visible candidates ({len(elements)} hidden)")
        return HealOutcome(None, "none", 0.0, why, kept)
    best = visible[0]
    second = visible[1] if len(visible) > 1 else None
    lead = best.score - (second.score if second else 0.0)
    usable = _selector_for(reader, best, scope)
    if best.score >= THRESHOLD and lead >= MARGIN and usable:
        return HealOutcome(usable, "deterministic", round(min(best.score, 1.0), 3),
                           f"{describe_element(best.fp)} scored {best.score:.2f}"
                           + (f", {lead:.2f} ahead of the next" if second else ", the only candidate"), kept)
    if best.score < THRESHOLD:
        why = f"no candidate reaches the threshold {THRESHOLD:.2f}"
    elif lead < MARGIN:
        why = (f"no clear winner: {describe_element(best.fp)} scored {best.score:.2f}, "
               f"{describe_element(second.fp if second else None)} {second.score if second else 0:.2f} "
               f"(a heal needs a lead of {MARGIN:.2f})")
    else:
        why = "the best candidate has no selector that matches only it"
    if agent is None:
        return HealOutcome(None, "none", 0.0, why, kept)
    plausible = [e for e in visible if e.score >= MODEL_FLOOR][:MAX_FOR_MODEL]
    if not plausible:
        return HealOutcome(None, "none", 0.0, f"{why}; no candidate is plausible enough ({MODEL_FLOOR:.2f}) "
                                              "to ask the model about", kept)
    return _ask(reader, agent, plausible, kept, why, pinned=pinned, target=target, action=action,
                scope=scope, step=step, timeout_s=timeout_s, redact=redact, record=record)


def _ask(reader: Reader, agent: Agent, listed: list[_Element], kept: tuple[dict[str, Any], ...], why: str, *,
         pinned: str, target: str | None, action: str, scope: str | None, step: Hashable | None,
         timeout_s: float | None, redact: Callable[[str], str],
         record: Callable[[ModelCall], None] | None) -> HealOutcome:
    """The model picks among the listed candidates, or none (only when deterministic could not)."""
    context = ""
    try:
        context = redact(reader.body_text(CONTEXT_CHARS))
    except PageGone:
        raise
    except PageError:
        pass
    items = [describe_element(e.fp) for e in listed]
    described = target or f"the element the selector '{pinned}' matched before"
    calls: list[ModelCall] = []

    def keep(call: ModelCall) -> None:
        calls.append(call)
        if record is not None:
            record(call)

    try:
        choice = choose_candidate(agent, action, described, items, context, step=step, timeout_s=timeout_s,
                                  record=keep)
    except (QuotaExceeded, ModelUnavailable, NoValidAnswer) as exc:
        return HealOutcome(None, "none", 0.0, f"{why}; the model could not decide: {exc}", kept,
                           model_error=exc, model_calls=tuple(calls))
    if choice.index is None:
        return HealOutcome(None, "none", 0.0, f"{why}; the model found none of the {len(items)} candidates fits",
                           kept, model_calls=tuple(calls))
    picked = listed[choice.index]
    usable = _selector_for(reader, picked, scope)
    if not usable:
        return HealOutcome(None, "none", 0.0, f"{why}; the model's pick has no selector that matches only it",
                           kept, model_calls=tuple(calls))
    return HealOutcome(usable, "model", round(min(picked.score, 1.0), 3),
                       f"the model picked {describe_element(picked.fp)} (candidate {choice.index + 1} of "
                       f"{len(items)}; deterministic: {why})", kept, model_calls=tuple(calls))


def _selector_for(reader: Reader, e: _Element, scope: str | None) -> str | None:
    """A selector that finds exactly this element now: its unique CSS, else the description's."""
    for selector in (e.css, e.desc_selector):
        if not selector:
            continue
        try:
            if reader.owns(selector, scope, e.id):
                return selector
        except PageGone:
            raise
        except (PageError, InvalidSelector):   # a page mid-navigation, an invalid selector: try the next
            continue
    return None


def _collect(reader: Reader, scope: str | None, tag: str) -> list[Collected]:
    try:
        return reader.collect(tag, MAX_COLLECTED, scope) or []
    except PageGone:
        raise
    except (PageError, InvalidSelector):
        return []   # a page mid-navigation: no candidates from here this time


def _details(reader: Reader, ids: list[int]) -> dict[int, Detail]:
    try:
        return reader.details(ids)
    except PageGone:
        raise
    except PageError:
        return {}
