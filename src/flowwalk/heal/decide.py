"""From scored page elements to a decision: heal to one, ask a model about a few, or explain the miss.

Pure: the page read is `Page.candidates` (browser/page.py), the page calls are walk/healing.py's. Each element
gets `d` (heal/meaning.py, from the target) and `f` (heal/score.py, from the last fingerprint),
merged by `combine`. `decide` applies the acceptance rule: the best element must be visible,
eligible (it can take the step's action, is not a destructive control the target does not name,
does not leave the site, sits in the main frame), reach THRESHOLD and lead the next visible
element that can take the action by MARGIN; an element that cannot take it is left out of the
contest, so it neither wins nor counts against one that can. `heal_question` is what a model (or
an agent over MCP, when no model is configured) is asked when that rule finds no winner: the best
MODEL_ITEMS eligible elements, each with an id and one line; `read_choice` accepts only one of
those ids or "none". With no model configured, the question is recorded in the step's
`detail.heal_question` (`as_dict`) and `choose_recorded` holds an agent's answer (over MCP) to the
same rule.
`explain_miss` names the three best candidates, their scores and what each lacked.

`written_selector` picks the selector a heal acts on and `flowwalk heal --apply` writes into the
spec. For a target that names a position (`positional`: "the first book's checkbox", "last todo
row") on an element that sits in a row or list item, it is the positional one the page read built
(`PageElement.css_position`: the container, then `tr:first-of-type` or the like, then the path
inside the row), not a unique attribute: Django admin's checkbox is unique by its
`aria-label="Select this object for an action - Dune"`, which names the row's book, so once
another book is first that selector still finds Dune's checkbox and the spec's check of the first
row fails. `row_data` is the test it is held to: no attribute value, id or class of the written
selector holds a word of the row's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from flowwalk.agent.prompt import CANDIDATE_FORMAT, CANDIDATE_TASK, read_pick
from flowwalk.heal.meaning import PageElement, Want, can_take, eligible, like_positions, meaning_score, stem
from flowwalk.heal.score import MARGIN, THRESHOLD, combine, similarity
from flowwalk.model import words_of

__all__ = ["Ranked", "Decision", "rank", "decide", "heal_question", "read_choice", "choose_recorded", "explain_miss",
           "MODEL_ITEMS", "HealQuestion", "positional", "row_data", "written_selector"]

#: how many candidates a model (or an MCP agent) is shown
MODEL_ITEMS = 15


@dataclass(frozen=True)
class Ranked:
    """One page element with its scores, why it may not be used (None: it may), and what it lacked."""

    element: PageElement
    score: float
    d: float | None
    f: float | None
    barred: str | None
    lacked: tuple[str, ...]
    #: the selector a heal onto it acts on and writes (`written_selector`)
    selector: str | None = None
    #: it can take the step's action (heal/meaning.py `can_take`); one that cannot is no rival
    takes: bool = True

    def record(self) -> dict[str, Any]:
        """As kept in the step's evidence and the failure's `candidates` (explain_failure shows it)."""
        el = self.element
        return {"selector": self.selector, "score": round(min(self.score, 1.0), 3),
                "description_score": self.d, "fingerprint_score": self.f,
                "strategy": "+".join(k for k, v in (("target", self.d), ("fingerprint", self.f)) if v is not None)
                or "page", "visible": el.visible, "enabled": el.enabled, "count": 1, "role": el.role,
                "element": el.describe(), "lacked": list(self.lacked), "barred": self.barred}


def rank(want: Want | None, elements: Sequence[PageElement], fingerprint: Mapping[str, Any] | None,
         action: str | None) -> list[Ranked]:
    """Every element scored, best first (document order breaks ties). `action`: the act's, None for a read."""
    like = like_positions(elements)
    out: list[Ranked] = []
    for el in elements:
        lacked: list[str] = []
        d = None
        if want is not None:
            m = meaning_score(want, el, like.get(el.key))
            d = m.score
            lacked.extend(m.lacked)
        elif not el.visible:
            lacked.append("being visible")
        f = similarity(fingerprint, el.fingerprint) if fingerprint and el.fingerprint else None
        if f is not None and f < THRESHOLD and (d is None or d < THRESHOLD):
            lacked.append(f"a likeness to the last fingerprint ({f:.2f})")
        barred = eligible(want, action, el, fingerprint)
        if barred is None and el.frame:
            barred = f"inside the frame {el.frame_url or el.frame}: acts do not cross into frames"
        out.append(Ranked(el, combine(d, f), d, f, barred, tuple(lacked), written_selector(want, el),
                          can_take(action, el)))
    out.sort(key=lambda r: (-r.score, r.element.frame, r.element.order))
    return out


# --- the selector written ---------------------------------------------------------------------

#: a CSS selector's quoted strings; an unquoted attribute value; an id or a class
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"' + r"|'((?:[^'\\]|\\.)*)'")
_BARE_VALUE = re.compile(r"=\s*([^\]\s\"']+)\s*\]")
_NAMES = re.compile(r"[#.]((?:[\w-]|\\.)+)")


def positional(want: Want | None, el: PageElement) -> bool:
    """Does the target pick `el` by its position in a list ("the first book's checkbox", "3rd
    row", "the top row")? It names an ordinal, `el` sits in (or is) a row or list item, and the
    ordinal's word is not part of `el`'s own name ("First name field" names a field)."""
    if want is None or want.ordinal is None or el.item_index <= 0:
        return False
    return stem(want.ordinal_word) not in {stem(w) for w in words_of(el.visible_name)}


def row_data(selector: str, el: PageElement) -> tuple[str, ...]:
    """The words of `el`'s row text (`PageElement.item`) that `selector`'s attribute values, ids
    and classes hold: what makes it find this row's element only while the row shows this data.
    Words of three letters or more, and numbers; `:nth-of-type(1)` and tags are structure."""
    row = {w for w in words_of(el.item) if len(w) >= 3 or w.isdigit()}
    if not row:
        return ()
    values = [a or b for a, b in _QUOTED.findall(selector)]
    rest = _QUOTED.sub(" ", selector)
    values += _BARE_VALUE.findall(rest) + _NAMES.findall(_BARE_VALUE.sub("]", rest))
    said = {w for v in values for w in words_of(v.replace("\\", ""))}
    return tuple(sorted(said & row))


def written_selector(want: Want | None, el: PageElement) -> str | None:
    """The selector a heal onto `el` acts on and writes (see the module docstring): for a
    `positional` target the data-free positional one when the page read built one, else the
    first of the two that holds none of the row's data (`row_data`), else the unique one; for any
    other target the unique one the page read built (`PageElement.css`)."""
    if not positional(want, el):
        return el.css
    for selector in (el.css_position, el.css):
        if selector and not row_data(selector, el):
            return selector
    return el.css_position or el.css


@dataclass(frozen=True)
class Decision:
    """The winner (None when there is none) and why."""

    winner: Ranked | None
    reason: str
    #: the deterministic rule found no winner, but a model could be asked (eligible candidates exist)
    ask: bool = False


def decide(ranked: Sequence[Ranked]) -> Decision:
    """The acceptance rule (see the module docstring)."""
    visible = [r for r in ranked if r.element.visible]
    if not ranked:
        return Decision(None, "no candidates: the page has no actionable element")
    if not visible:
        return Decision(None, f"no visible candidates ({len(ranked)} hidden)")
    usable = [r for r in visible if r.barred is None]
    # an element that cannot take the action (a span beside the field it names) is never what the
    # step meant: it neither wins nor stands in the way of one that can
    contest = [r for r in visible if r.takes] or visible
    best = contest[0]
    if best.score < THRESHOLD:
        return Decision(None, f"no candidate reaches the threshold {THRESHOLD:.2f} (best {best.score:.2f})",
                        ask=bool(usable))
    if best.barred is not None:
        why = (f"the best candidate, {best.element.describe()} ({best.score:.2f}), may not be used: {best.barred}")
        return Decision(None, why, ask=bool(usable))
    second = contest[1] if len(contest) > 1 else None
    lead = best.score - (second.score if second else 0.0)
    if lead < MARGIN:
        assert second is not None
        return Decision(None, f"no clear winner: {best.element.describe()} scored {best.score:.2f}, "
                              f"{second.element.describe()} {second.score:.2f} (a heal needs a lead of {MARGIN:.2f})",
                        ask=True)
    return Decision(best, f"{best.element.describe()} scored {min(best.score, 1.0):.2f}"
                          + (f", {lead:.2f} ahead of the next" if second else ", the only candidate"))


def explain_miss(ranked: Sequence[Ranked], n: int = 3) -> str:
    """`best: link "Change" 0.55 (lacked: its own name saying 'book'); ...` for a failure message."""
    parts = []
    for r in [r for r in ranked if r.element.visible][:n] or list(ranked)[:n]:
        why = list(r.lacked) + ([f"may not be used: {r.barred}"] if r.barred else [])
        parts.append(f"{r.element.describe()} {min(r.score, 1.0):.2f}"
                     + (f" (lacked: {'; '.join(why)})" if why else ""))
    return "; ".join(parts)


# --- the model's (or an agent's) question ----------------------------------------------------



@dataclass(frozen=True)
class HealQuestion:
    """What a model is asked: the step, and the listed candidates by id (1..n)."""

    action: str
    target: str
    items: tuple[str, ...]            # one line per candidate, item i has id i + 1
    listed: tuple[Ranked, ...]

    def as_dict(self) -> dict[str, Any]:
        """The question as recorded (the step's `detail.heal_question` when no model is configured),
        for an agent over MCP to answer with `choose_recorded`: the step, the answer format and
        the candidates by id, each with its one line, score and the selector that matched only it."""
        return {"action": self.action, "target": self.target, "task": CANDIDATE_TASK, "answer_format": CANDIDATE_FORMAT,
                "candidates": [{"id": i + 1, "element": line, "score": round(min(r.score, 1.0), 3),
                                "selector": r.selector}
                               for i, (line, r) in enumerate(zip(self.items, self.listed))]}


def heal_question(action: str, target: str, ranked: Sequence[Ranked], limit: int = MODEL_ITEMS) -> HealQuestion:
    """The bounded question: the best `limit` visible, eligible elements (never a destructive
    control the target does not name, never one that cannot take the action, never an off-site
    link), best first. The model may choose only among them."""
    listed = tuple(r for r in ranked if r.element.visible and r.barred is None)[:limit]
    return HealQuestion(action, target, tuple(r.element.describe() for r in listed), listed)


def read_choice(question: HealQuestion, answer: Mapping[str, Any]) -> Ranked | None:
    """The listed candidate an answer picks, or None for "none": the model's validator
    (`flowwalk.agent.prompt.read_pick`), so an agent's answer over MCP is held to exactly the same
    rule. Anything else raises `flowwalk.agent.prompt.InvalidAnswer`."""
    pick = read_pick(answer, len(question.listed))
    return None if pick is None else question.listed[pick - 1]


def choose_recorded(question: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any] | None:
    """The recorded candidate (`HealQuestion.as_dict`'s) an agent's answer picks, or None for
    "none": held to the model's rule (`read_pick`), so an id off the list, a selector or a URL
    raises `flowwalk.agent.prompt.InvalidAnswer`."""
    listed = [c for c in question.get("candidates") or () if isinstance(c, Mapping)]
    pick = read_pick(answer, len(listed))
    return None if pick is None else dict(listed[pick - 1])
