"""Finding the element a step means: with a pinned selector that broke, or with none at all.

A step names its element with a pinned `selector`, a `target` as a person writes it ("the Save
button"), or both. When the selector matches nothing, or there is none, finding the element is
one job: resolving a target with no selector is healing without a fingerprint. The same page read
(`Reader.candidates`, browser/page.py), the same ranking (heal/meaning.py `d`, heal/score.py `f`,
heal/decide.py `rank`) and the same acceptance rule (`decide`) serve both.

Over a page `Reader` (browser/records.py); when to try, and for how long, is the walker's
(walk/healing.py):

1. `Lookup` says what is sought (the target, the last fingerprint, the act's action or None for
   a read, the scope, the pinned selector) and what to ask the page read for (`words`, `tag`,
   `position`);
2. `read_candidates` reads the main frame (within the scope) and, without a scope, up to
   MAX_FRAMES same-origin child frames, one read each; `elements_of` turns one frame's records
   into `PageElement`s;
3. `judge` ranks them and applies the rule: a `Judgement`. Its `winner` is used once `find` has
   confirmed that the winner's selector still finds it alone (`Reader.owns`): `healed`;
   else `unconfirmed`;
4. with no winner, `consult` asks a configured model (`Asking`) to pick one of the listed
   candidates by id (agent/; the model never sees more than `heal_question` lists), and
   `answered` judges its pick; `unanswered` is the outcome when no model is asked.

`find` is one try of all four and never acts. Its `HealOutcome` is a selector, or None and why,
the candidates kept as evidence, and what the failure names (`miss_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Mapping
from urllib.parse import urlsplit

from flowwalk.browser.records import InvalidSelector, PageError, PageGone, Reader
from flowwalk.heal.decide import Decision, HealQuestion, Ranked, decide, explain_miss, heal_question, rank, read_choice
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.meaning import PageElement, Want, cheap_words, parse_target
from flowwalk.heal.score import THRESHOLD

if TYPE_CHECKING:
    from flowwalk.agent import Agent, ModelCall

__all__ = ["Asking", "Lookup", "Judgement", "Consulted", "HealOutcome", "Miss", "elements_of", "judge", "consult",
           "find", "miss_of", "read_candidates", "KEPT"]

#: candidates kept as evidence in the step's record and the failure
KEPT = 5
#: the page's text a model is shown beside the candidates
CONTEXT_CHARS = 8 * 1024
#: full records per frame (the best by the cheap first score), elements looked at per frame,
#: same-origin child frames read
LIMIT, SCANNED, MAX_FRAMES = 50, 3000, 4


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
class Miss:
    """How a step that found nothing fails: its runtime code, message and expected / observed, and
    its recovery record's detail."""

    code: str
    message: str
    expected: str
    observed: str
    recovery: str


def miss_of(outcome: HealOutcome, pinned: str | None, target: str | None) -> Miss:
    """The failure of a step whose `find` found nothing: `pinned` (the selector that matched
    nothing, None when the step pins none), `target` (its words)."""
    if pinned:
        what = f"pinned selector '{pinned}' matched nothing"
        recovery = f"{what}; {outcome.reason}"
        message = f"{what} and nothing else is good enough to heal to: {outcome.reason}"
    else:
        recovery = f"no pinned selector; '{target}': {outcome.reason}"
        message = f"could not resolve the target '{target}': {outcome.reason}"
    if outcome.missed:
        message += f" (best: {outcome.missed})"
    expected = f"one element for '{target}'" if target else f"the element '{pinned}' matched before"
    if outcome.model_error is not None:
        from flowwalk.agent import runtime_code

        return Miss(runtime_code(outcome.model_error), message, expected, str(outcome.model_error), recovery)
    observed = (f"{len(outcome.candidates)} candidate(s), none good enough" if outcome.candidates
                else "no candidate")
    return Miss("AMBIGUOUS_TARGET" if outcome.ambiguous else "ELEMENT_NOT_FOUND", message, expected, observed,
                recovery)


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


@dataclass(frozen=True)
class Asking:
    """The model `find` may ask: the agent, the question's step key, its time, where calls are recorded."""

    agent: "Agent"
    step: Hashable | None = None
    timeout_s: float | None = None
    record: Callable[["ModelCall"], None] | None = None


def find(reader: Reader, lookup: Lookup, *, asking: Asking | None = None,
         redact: Callable[[str], str] = _same) -> HealOutcome:
    """One try at what `lookup` seeks on the page `reader` reads (see the module docstring).
    Raises `PageGone` only for a closed page or browser (the caller's boundary judges); never for
    page content."""
    judgement = judge(lookup, read_candidates(reader, lookup, redact))
    if judgement.winner is not None:
        selector = _confirmed(reader, judgement.winner, lookup.scope)
        if selector:
            return judgement.healed(selector)
        judgement = judgement.unconfirmed()
    question = judgement.question
    if asking is None or not judgement.decision.ask or not question.listed:
        return judgement.unanswered(asked=asking is not None and judgement.decision.ask)
    context = ""
    try:
        context = redact(reader.body_text(CONTEXT_CHARS))
    except PageGone:
        raise
    except PageError:
        pass   # a page mid-navigation: the model gets the candidates without the page's text
    consulted = consult(asking.agent, question, context, step=asking.step, timeout_s=asking.timeout_s,
                        record=asking.record)
    picked = consulted.picked
    return judgement.answered(consulted, _confirmed(reader, picked, lookup.scope) if picked is not None else None)


def read_candidates(reader: Reader, lookup: Lookup, redact: Callable[[str], str] = _same) -> list[PageElement] | None:
    """The candidates of the main frame (within the scope) and, without a scope, of each same-origin
    child frame: one page read per frame. None when the scope matches nothing."""
    places: list[tuple[int, Reader, str]] = [(0, reader, "")]
    if not lookup.scope:
        home = _origin(reader.frame_name())
        for number, frame in enumerate(_child_frames(reader), start=1):
            name = frame.frame_name()
            url = name.url if name else ""
            if home and (_origin(name) == home or url.startswith(("about:srcdoc", "about:blank"))):
                places.append((number, frame, url))
    elements: list[PageElement] = []
    for number, where, url in places:
        try:
            read = where.candidates(lookup.words, tag=lookup.tag, fingerprints=bool(lookup.fingerprint), limit=LIMIT,
                                    scanned=SCANNED, scope=lookup.scope if number == 0 else None,
                                    position=lookup.position)
        except PageGone:
            if number == 0:
                raise
            continue   # a child frame that went away
        except (PageError, InvalidSelector):
            continue   # a page mid-navigation: no candidates from here this time
        if read is None:
            return None
        elements += elements_of(number, url, read.items, fingerprinted=bool(lookup.fingerprint), redact=redact)
    return elements


def _origin(name: Any) -> str:
    parts = urlsplit(str(getattr(name, "url", "") or ""))
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


def _child_frames(reader: Reader) -> list[Reader]:
    try:
        return reader.child_frames(MAX_FRAMES)
    except PageError:
        return []


def _confirmed(reader: Reader, r: Ranked, scope: str | None) -> str | None:
    """The candidate's selector (heal/decide.py `written_selector`), when it still finds exactly
    this element of the main frame now."""
    frame, _, number = r.element.key.partition(":")
    if frame != "0" or not number.isdigit() or not r.selector:
        return None
    try:
        return r.selector if reader.owns(r.selector, scope, int(number)) else None
    except PageGone:
        raise
    except (PageError, InvalidSelector):   # a page mid-navigation, an invalid selector
        return None
