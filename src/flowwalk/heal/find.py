"""Finding the element a step means: with a pinned selector that broke, or with none at all.

A step names its element with a pinned `selector`, a `target` as a person writes it ("the Save
button"), or both. When the selector matches nothing, or there is none, finding the element is
one job: resolving a target with no selector is healing without a fingerprint. The same page read
(`Page.candidates` in browser/page.py), the same ranking (heal/meaning.py `d`,
heal/score.py `f`, heal/decide.py `rank`) and the same acceptance rule (`decide`) serve both.

Pure over the page read's records; the page calls are the walker's seam (walk/healing.py):

1. `Lookup` says what is sought (the target, the last fingerprint, the act's action or None for
   a read, the scope, the pinned selector) and what to ask the page read for (`words`, `tag`,
   `position`);
2. `elements_of` turns one frame's records into `PageElement`s;
3. `judge` ranks them and applies the rule: a `Judgement`. Its `winner` is used once the seam has
   confirmed that the winner's selector still finds it alone (`Page.owns`): `healed`;
   else `unconfirmed`;
4. with no winner, `consult` asks a configured model to pick one of the listed candidates by id
   (agent/; the model never sees more than `heal_question` lists), and `answered` judges its
   pick; `unanswered` is the outcome when no model is asked.

`HealOutcome` is what the seam acts on: a selector, or None and why, the candidates kept as
evidence, and what the failure names.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping

from flowwalk.heal.decide import Decision, HealQuestion, Ranked, decide, explain_miss, heal_question, rank, read_choice
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.meaning import PageElement, Want, cheap_words, parse_target
from flowwalk.heal.score import THRESHOLD

if TYPE_CHECKING:
    from flowwalk.agent import Agent, ModelCall

__all__ = ["Lookup", "Judgement", "Consulted", "HealOutcome", "elements_of", "judge", "consult", "KEPT"]

#: candidates kept as evidence in the step's record and the failure
KEPT = 5


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class Lookup:
    """What a step seeks on the page (see the module docstring)."""

    target: str | None = None
    #: the pinned selector's last fingerprint (heal/fingerprint.py), when there is one
    fingerprint: Mapping[str, Any] | None = None
    #: the act's action ("click", "fill" ...); None when a read seeks it (a wait, an expect, a scope)
    action: str | None = "click"
    scope: str | None = None
    #: the selector that matched nothing; None when the step pins none
    pinned: str | None = None
    want: Want | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "want", parse_target(self.target) if self.target else None)

    @property
    def words(self) -> list[str]:
        """What the page read ranks its elements by before the full score."""
        return cheap_words(self.want, self.fingerprint)

    @property
    def tag(self) -> str:
        """The fingerprint's tag: elements of it are read even when no other rule picks them."""
        return str((self.fingerprint or {}).get("tag") or "")

    @property
    def position(self) -> int | None:
        """The target's ordinal, for the page read's positional selectors (heal/decide.py `positional`)."""
        return self.want.ordinal if self.want is not None else None

    @property
    def sought(self) -> str:
        """The target, or what stands for it in a model's question when the step has none."""
        return self.target or f"the element the selector '{self.pinned}' matched before"


def elements_of(frame: int, url: str, records: Iterable[Mapping[str, Any]], *, fingerprinted: bool,
                redact: Callable[[str], str] = _same) -> list[PageElement]:
    """One frame's page-read records (`CandidatesRead.items`) as elements: keys made unique across
    frames (`<frame>:<element id>`), fingerprints bounded and redacted when they were read."""
    return [PageElement.from_record({**raw, "key": f"{frame}:{raw.get('key')}", "frame": frame, "frame_url": url,
                                     "fp": bound(raw.get("fp"), redact) if fingerprinted else None})
            for raw in records]


@dataclass(frozen=True)
class HealOutcome:
    """What finding decided: a selector to act on, or None and why (with the best candidates)."""

    selector: str | None
    method: str                                   # deterministic | model | none
    score: float
    reason: str
    candidates: tuple[dict[str, Any], ...] = ()
    #: the model could not decide (QuotaExceeded, ModelUnavailable, NoValidAnswer): the step's class
    model_error: BaseException | None = None
    model_calls: tuple["ModelCall", ...] = field(default=())
    #: the three best candidates, their scores and what each lacked (the failure message's tail)
    missed: str = ""
    #: no pick although a usable candidate reached the threshold (two close ones, no unique
    #: selector): AMBIGUOUS_TARGET; otherwise nothing on the page is good enough: ELEMENT_NOT_FOUND
    ambiguous: bool = False
    #: with no model configured and no deterministic winner: the question a model would have been
    #: asked (heal/decide.py `HealQuestion.as_dict`), for an agent to answer over MCP
    question: dict[str, Any] | None = None


@dataclass(frozen=True)
class Consulted:
    """A model's answer: the listed candidate it picked (None: none fits), its calls, or its error."""

    picked: Ranked | None
    calls: tuple["ModelCall", ...] = ()
    error: BaseException | None = None


@dataclass(frozen=True)
class Judgement:
    """The ranked elements and the acceptance rule's decision (see the module docstring)."""

    lookup: Lookup
    ranked: tuple[Ranked, ...]
    decision: Decision

    @property
    def winner(self) -> Ranked | None:
        return self.decision.winner

    @property
    def kept(self) -> tuple[dict[str, Any], ...]:
        return tuple(r.record() for r in [r for r in self.ranked if r.element.visible][:KEPT])

    @property
    def ambiguous(self) -> bool:
        return any(r.score >= THRESHOLD for r in self.ranked if r.element.visible and r.barred is None)

    @property
    def question(self) -> HealQuestion:
        return heal_question(self.lookup.action or "find", self.lookup.sought, self.ranked)

    def healed(self, selector: str) -> HealOutcome:
        """The winner, its selector confirmed."""
        assert self.winner is not None
        return HealOutcome(selector, "deterministic", round(min(self.winner.score, 1.0), 3), self.decision.reason,
                           self.kept)

    def unconfirmed(self) -> "Judgement":
        """The winner's selector no longer finds it alone: no winner, and a model may choose."""
        why = f"the best candidate has no selector that matches only it ({self.decision.reason})"
        return replace(self, decision=Decision(None, why, ask=True))

    def unanswered(self, asked: bool) -> HealOutcome:
        """No winner and no model's pick. `asked`: a model is configured and the rule lets it choose,
        but no candidate may be shown to it. Otherwise the question is kept for an agent (MCP)."""
        why = self.decision.reason
        question = self.question
        if asked:
            return self._miss(f"{why}; no candidate may be shown to the model")
        return replace(self._miss(why), question=question.as_dict() if self.decision.ask and question.listed else None)

    def answered(self, consulted: Consulted, selector: str | None) -> HealOutcome:
        """The outcome of a model's answer; `selector`: its pick's, confirmed (None: it finds another element)."""
        why, shown = self.decision.reason, len(self.question.listed)
        if consulted.error is not None:
            return replace(self._miss(f"{why}; the model could not decide: {consulted.error}"),
                           model_error=consulted.error, model_calls=consulted.calls)
        picked = consulted.picked
        if picked is None:
            return replace(self._miss(f"{why}; the model found none of the {shown} candidates fits"),
                           model_calls=consulted.calls)
        if not selector:
            return replace(self._miss(f"{why}; the model's pick has no selector that matches only it"),
                           model_calls=consulted.calls)
        number = self.question.listed.index(picked) + 1
        return HealOutcome(selector, "model", round(min(picked.score, 1.0), 3),
                           f"the model picked {picked.element.describe()} (candidate {number} of {shown}; "
                           f"deterministic: {why})", self.kept, model_calls=consulted.calls)

    def _miss(self, reason: str) -> HealOutcome:
        return HealOutcome(None, "none", 0.0, reason, self.kept, missed=explain_miss(self.ranked),
                           ambiguous=self.ambiguous)


def judge(lookup: Lookup, elements: Iterable[PageElement] | None) -> Judgement:
    """Every element scored against what `lookup` seeks, ranked, and the rule's decision. `elements`
    None: the page read found no scope to read in."""
    if elements is None:
        return Judgement(lookup, (), Decision(None, f"no candidates: the scope '{lookup.scope}' matches nothing"))
    ranked = tuple(rank(lookup.want, list(elements), lookup.fingerprint, lookup.action))
    return Judgement(lookup, ranked, decide(ranked))


def consult(agent: "Agent", question: HealQuestion, context: str, *, step: Hashable | None = None,
            timeout_s: float | None = None, record: Callable[["ModelCall"], None] | None = None) -> Consulted:
    """Ask the model to pick one of the question's candidates by id, or none, with the page's
    (redacted) text as `context`. Its errors (quota, unavailable, no valid answer) are answers."""
    from flowwalk.agent import ModelUnavailable, NoValidAnswer, QuotaExceeded, candidate_question

    calls: list[ModelCall] = []

    def keep(call: "ModelCall") -> None:
        calls.append(call)
        if record is not None:
            record(call)

    def said(picked: Ranked | None) -> str:
        shown = len(question.listed)
        return "none" if picked is None else f"candidate {question.listed.index(picked) + 1} of {shown}"

    def validate(data: dict[str, Any]) -> Ranked | None:
        return read_choice(question, data)

    try:
        answer = agent.ask(candidate_question(question.action, question.target, question.items, context), validate,
                           step=step, timeout_s=timeout_s, record=keep, describe=said)
    except (QuotaExceeded, ModelUnavailable, NoValidAnswer) as exc:
        return Consulted(None, tuple(calls), exc)
    return Consulted(answer.value, tuple(calls))
