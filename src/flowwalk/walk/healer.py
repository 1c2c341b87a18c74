"""Healing a pinned act selector that matched nothing: deterministic first, a model only if configured.

`heal_selector` reads the page's actionable elements once (`Page.candidates`: links, buttons,
fields, roles, focusable and labelled elements, list items and rows, in the main frame and its
same-origin frames; the best 50 per frame by a cheap word count) and scores each (heal/decide.py):

- against the step's `target` as a person wrote it (heal/meaning.py: its name, role, context and
  ordinal words): `d`;
- against the selector's last fingerprint (heal/fingerprint.py, heal/score.py): `f`.

The best is used only if it is visible, may be used (it can take the step's action, is no
destructive control the target does not name, does not leave the site, is in the main frame),
reaches THRESHOLD and leads the next visible element by MARGIN, and a CSS selector matches only
it. Otherwise, when a model is configured, it is asked to pick among the best MODEL_ITEMS (15)
elements that may be used, by id, or none (agent/). Never "the nearest thing": with no pick the
step fails naming the three best candidates, their scores and what each lacked.

A heal only ever replaces the act's selector: the action, its value and every later check stay
the spec's (the walker runs them all; a later check that fails after a heal is reported as the
heal being wrong, see walk/healing.py's `contradicted`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Mapping

from urllib.parse import urlsplit

from flowwalk.agent import Agent, ModelCall, ModelUnavailable, NoValidAnswer, QuotaExceeded, candidate_question
from flowwalk.browser.errors import InvalidSelector, PageError, PageGone
from flowwalk.browser.records import Reader
from flowwalk.heal.decide import HealQuestion, Ranked, decide, explain_miss, heal_question, rank, read_choice
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.meaning import PageElement, Want, cheap_words, parse_target
from flowwalk.heal.score import THRESHOLD

__all__ = ["HealOutcome", "heal_selector", "read_page", "KEPT"]

#: candidates kept as evidence in the step's record and the failure
KEPT = 5
CONTEXT_CHARS = 8 * 1024
#: full records per frame (the best by the cheap first score), elements looked at per frame,
#: same-origin child frames read
LIMIT, SCANNED, MAX_FRAMES = 50, 3000, 4


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
    #: the three best candidates, their scores and what each lacked (the failure message's tail)
    missed: str = ""
    #: no heal although a candidate reached the threshold (two close ones, no unique selector):
    #: AMBIGUOUS_TARGET; otherwise nothing on the page is good enough: ELEMENT_NOT_FOUND
    ambiguous: bool = False
    #: with no model configured and no deterministic winner: the question a model would have been
    #: asked (heal/decide.py `HealQuestion.as_dict`), for an agent to answer over MCP
    question: dict[str, Any] | None = None


def read_page(reader: Reader, *, target: str | None, fingerprint: Mapping[str, Any] | None,
              scope: str | None = None, action: str = "click",
              redact: Callable[[str], str] = lambda s: s) -> tuple[Want | None, list[Ranked]]:
    """The page's candidates for a step, scored and ranked: one read of the main frame (within
    `scope`) and, without a scope, of each same-origin child frame (at most MAX_FRAMES)."""
    want = parse_target(target) if target else None
    words = cheap_words(want, fingerprint)
    tag = str((fingerprint or {}).get("tag") or "")
    places: list[tuple[int, Reader, str]] = [(0, reader, "")]
    if not scope:
        home = _origin(reader.frame_name())
        for number, frame in enumerate(_child_frames(reader), start=1):
            name = frame.frame_name()
            url = name.url if name else ""
            if home and (_origin(name) == home or url.startswith(("about:srcdoc", "about:blank"))):
                places.append((number, frame, url))
    elements: list[PageElement] = []
    for number, where, url in places:
        try:
            read = where.candidates(words, tag=tag, fingerprints=bool(fingerprint), limit=LIMIT, scanned=SCANNED,
                                    scope=scope if number == 0 else None,
                                    position=want.ordinal if want is not None else None)
        except PageGone:
            if number == 0:
                raise
            continue   # a child frame that went away
        except (PageError, InvalidSelector):
            continue   # a page mid-navigation: no candidates from here this time
        for raw in read.items if read is not None else ():
            fp = bound(raw.get("fp"), redact) if fingerprint else None
            elements.append(PageElement.from_record({**raw, "key": f"{number}:{raw.get('key')}", "frame": number,
                                                     "frame_url": url, "fp": fp}))
    return want, rank(want, elements, fingerprint, action)


def _origin(name: Any) -> str:
    parts = urlsplit(str(getattr(name, "url", "") or ""))
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def _child_frames(reader: Reader) -> list[Reader]:
    try:
        return reader.child_frames(MAX_FRAMES)
    except PageError:
        return []


def _records(ranked: list[Ranked]) -> tuple[dict[str, Any], ...]:
    return tuple(r.record() for r in [r for r in ranked if r.element.visible][:KEPT])


def heal_selector(reader: Reader, *, pinned: str, target: str | None, fingerprint: Mapping[str, Any] | None,
                  scope: str | None = None, action: str = "click", agent: Agent | None = None,
                  step: Hashable | None = None, timeout_s: float | None = None,
                  redact: Callable[[str], str] = lambda s: s,
                  record: Callable[[ModelCall], None] | None = None) -> HealOutcome:
    """Find what the pinned selector meant (see the module docstring), reading the page through
    `reader`. Raises `PageGone` only for a closed page or browser (the caller's boundary judges);
    never for page content."""
    _, ranked = read_page(reader, target=target, fingerprint=fingerprint, scope=scope, action=action, redact=redact)
    kept = _records(ranked)
    decision = decide(ranked)
    missed = explain_miss(ranked)
    if decision.winner is not None:
        usable = _selector_for(reader, decision.winner, scope)
        if usable:
            return HealOutcome(usable, "deterministic", round(min(decision.winner.score, 1.0), 3), decision.reason,
                               kept)
        why = f"the best candidate has no selector that matches only it ({decision.reason})"
        ask = True
    else:
        why, ask = decision.reason, decision.ask
    ambiguous = any(r.score >= THRESHOLD for r in ranked if r.element.visible and r.barred is None)
    question = heal_question(action, target or f"the element the selector '{pinned}' matched before", ranked)
    if agent is None or not ask:
        return HealOutcome(None, "none", 0.0, why, kept, missed=missed, ambiguous=ambiguous,
                           question=question.as_dict() if ask and question.listed else None)
    if not question.listed:
        return HealOutcome(None, "none", 0.0, f"{why}; no candidate may be shown to the model", kept, missed=missed,
                           ambiguous=ambiguous)
    return _ask(reader, agent, question, kept, why, missed, ambiguous, scope=scope, step=step, timeout_s=timeout_s,
                redact=redact, record=record)


def _ask(reader: Reader, agent: Agent, question: HealQuestion, kept: tuple[dict[str, Any], ...], why: str, missed: str,
         ambiguous: bool, *, scope: str | None, step: Hashable | None, timeout_s: float | None, redact: Callable[[str], str],
         record: Callable[[ModelCall], None] | None) -> HealOutcome:
    """The model picks one listed candidate by id, or none (only when deterministic could not)."""
    context = ""
    try:
        context = redact(reader.body_text(CONTEXT_CHARS))
    except PageGone:
        raise
    except PageError:
        pass   # a page mid-navigation: the model gets the candidates without the page's text
    shown = len(question.items)

    def validate(data: dict[str, Any]) -> Ranked | None:
        return read_choice(question, data)

    def said(picked: Ranked | None) -> str:
        return "none" if picked is None else f"candidate {question.listed.index(picked) + 1} of {shown}"

    calls: list[ModelCall] = []

    def keep(call: ModelCall) -> None:
        calls.append(call)
        if record is not None:
            record(call)

    try:
        answer = agent.ask(candidate_question(question.action, question.target, question.items, context), validate,
                           step=step, timeout_s=timeout_s, record=keep, describe=said)
    except (QuotaExceeded, ModelUnavailable, NoValidAnswer) as exc:
        return HealOutcome(None, "none", 0.0, f"{why}; the model could not decide: {exc}", kept,
                           model_error=exc, model_calls=tuple(calls), missed=missed,
                           ambiguous=ambiguous)
    picked = answer.value
    if picked is None:
        return HealOutcome(None, "none", 0.0, f"{why}; the model found none of the {shown} candidates fits",
                           kept, model_calls=tuple(calls), missed=missed, ambiguous=ambiguous)
    usable = _selector_for(reader, picked, scope)
    if not usable:
        return HealOutcome(None, "none", 0.0, f"{why}; the model's pick has no selector that matches only it",
                           kept, model_calls=tuple(calls), missed=missed, ambiguous=ambiguous)
    return HealOutcome(usable, "model", round(min(picked.score, 1.0), 3),
                       f"the model picked {picked.element.describe()} (candidate "
                       f"{question.listed.index(picked) + 1} of {shown}; deterministic: {why})", kept,
                       model_calls=tuple(calls))


def _selector_for(reader: Reader, r: Ranked, scope: str | None) -> str | None:
    """The candidate's selector to act on and write (heal/decide.py `written_selector`: for a
    target that names a position, a positional one free of the row's data), when it still finds
    exactly this element now."""
    frame, _, number = r.element.key.partition(":")
    if frame != "0" or not number.isdigit() or not r.selector:
        return None
    try:
        return r.selector if reader.owns(r.selector, scope, int(number)) else None
    except PageGone:
        raise
    except (PageError, InvalidSelector):   # a page mid-navigation, an invalid selector
        return None
