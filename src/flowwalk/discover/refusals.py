"""What a form refuses and what a field keeps: values just outside a field's constraint, and the edges it takes.

After a journey across pages saved a form (journeys.py `_Saving`: values the form took), a person
tries what the form must refuse and the edges it must keep. Pure choices first:

- `refusals(asks, accepted, said)`: for each constrained field, one value just outside what it
  allows, the rest of the form as it was taken: one digit short of the length the server's message
  asked for ("An ISBN has 13 digits."), one above the upper bound the server gave ("less than or
  equal to 5000") or the field's `max`, one short of a simple `pattern`, one below `min`, one
  character over a length only the server states, a date no format takes, a required field left
  empty. One value a field (its most telling), at most MAX_REFUSALS a form, the ones only the
  server knows first.
- `kept_values(asks, accepted, said)`: the values at the edges the form must take: the upper bound
  itself (the exact bound accepted), the length asked for, and the text with outer spaces.
- `probe_values(asks, accepted, said)`: for a number field whose bound the page does not show, a
  value no integer column takes, submitted once so the server's message says the bound.

`FormLimits` walks them (each walk from a fresh context, as journeys do): the probe, then the
edge save twice (saved, found again, and how the list shows its text: trimmed or as typed, read
from the DOM's textContent; a save the second walk cannot repeat, a unique name, writes none), then the refusals in one chain from a fresh form, each submitted alone
with everything else valid. What it observed becomes two journeys of the page: the refusals (each
checks the field's own message as the page showed it, the URL still the form's, no success message;
then a search finds no row with the refused text) and the edges (the save is taken, the row's
text is exactly the trimmed text where the app trims). A refusal the form took is not written (its
row carries the crawl's text); a model, when configured, may propose a value for a field whose
message says a rule the choices above do not read, and its value is tried like any other.

Never against data the crawl did not create: the refusals carry `crawl_text(REFUSED)`, the edges
`crawl_text(EDGE)`; nothing is deleted. Both specs are verified twice like every other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence
from urllib.parse import urlsplit

from flowwalk.browser import InvalidSelector, PageError
from flowwalk.browser.explored import FieldAsks, FormAsks, Observation
from flowwalk.discover.effects import quote_text, row_selector
from flowwalk.discover.page import JourneyPage, MoveFailed
from flowwalk.discover.state import CrawledPage, Effect, Journey, Move, Step
from flowwalk.discover.values import CRAWL_TEXT, crawl_text, fillable, from_pattern

if TYPE_CHECKING:
    from flowwalk.agent import ModelCall
    from flowwalk.settings import Settings

__all__ = ["EDGE", "FormAt", "FormLimits", "Kept", "MAX_REFUSALS", "PROBE", "Proposer", "REFUSED", "Refusal",
           "kept_values", "model_proposer", "probe_values", "proposed", "refusals", "success_fragment", "trim_edge",
           "upper_bound"]

#: refusals written for one form
MAX_REFUSALS = 3
#: the crawl's text numbers the refused submits and the edge save carry (crawl_text(n))
REFUSED = 9
EDGE = 3
#: a number no integer column takes: the server's answer to it says the field's bound
PROBE = "9" * 20
#: a bound the server gives above this is a storage limit (an integer column), not a rule of the app
RULE_BOUND = 10 ** 9
#: a date no format takes (month and day 31)
NO_DATE = "31.31.2024"
_DIGITS = re.compile(r"(\d+)\s+digits", re.I)
_UPPER = re.compile(r"less than or equal to\s+(-?\d+(?:\.\d+)?)", re.I)
_LOWER = re.compile(r"greater than or equal to\s+(-?\d+(?:\.\d+)?)", re.I)
_AT_MOST = re.compile(r"at most (\d+) characters", re.I)
_DATEISH = re.compile(r"\b(date|published|born|birth|dob|due|deadline)\b|vDateField", re.I)


@dataclass(frozen=True)
class Refusal:
    """A value `field` must refuse, and why a person would try it."""

    field: str
    value: str
    why: str


@dataclass(frozen=True)
class Kept:
    """A value at an edge `field` must take."""

    field: str
    value: str
    why: str


def _key(f: FieldAsks) -> str:
    return f.name or f.id


def _num(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def upper_bound(f: FieldAsks, said: Sequence[str]) -> tuple[float | None, bool]:
    """The field's upper bound and whether only the server said it (a message, no `max`); a
    storage limit (above RULE_BOUND) is no bound."""
    told = [b for b in (_num(m.group(1)) for s in said for m in _UPPER.finditer(s)) if b is not None and b < RULE_BOUND]
    shown = _num(f.max)
    if shown is not None:
        return shown, False
    return (min(told), True) if told else (None, False)


def _lower_bound(f: FieldAsks, said: Sequence[str]) -> float | None:
    shown = _num(f.min)
    if shown is not None:
        return shown
    told = [b for b in (_num(m.group(1)) for s in said for m in _LOWER.finditer(s)) if b is not None]
    return max(told) if told else None


def _step(f: FieldAsks) -> float:
    return _num(f.step) or 1.0


def _digits(said: Sequence[str]) -> int | None:
    found = [int(m.group(1)) for s in said for m in _DIGITS.finditer(s)]
    return found[0] if found else None


def _candidates(f: FieldAsks, value: str, said: Sequence[str]) -> list[tuple[int, Refusal]]:
    """(rank, refusal) for one field: lower ranks are what only the server knows."""
    key = _key(f)
    out: list[tuple[int, Refusal]] = []
    digits = _digits(said)
    if digits and value.isdigit() and len(value) == digits and digits > 1:
        out.append((0, Refusal(key, value[:-1], f"one digit short of the {digits} the server asked for")))
    high, told = upper_bound(f, said)
    if high is not None and f.type in ("number", "text", ""):
        out.append((0 if told else 1, Refusal(key, _show(high + _step(f)), f"one above the bound {_show(high)}"
                                              + (" the server gave" if told else " (its max)"))))
    if f.pattern and f.type in ("text", ""):
        fits = from_pattern(f.pattern)
        if fits and len(fits) > 1 and not re.fullmatch(f.pattern.strip("^$"), fits[:-1]):
            out.append((1, Refusal(key, fits[:-1], "one character short of its pattern")))
    low = _lower_bound(f, said)
    if low is not None and f.type == "number":
        out.append((2, Refusal(key, _show(low - _step(f)), f"one below the bound {_show(low)}")))
    most = [int(m.group(1)) for s in said for m in _AT_MOST.finditer(s)]
    if most and not f.maxlength and f.type in ("text", "textarea", ""):
        out.append((2, Refusal(key, (value + " " + CRAWL_TEXT * 9)[:most[0] + 1], f"one character over {most[0]}")))
    if f.type in ("text", "") and _DATEISH.search(" ".join((f.name, f.id, " ".join(f.classes)))):
        out.append((3, Refusal(key, NO_DATE, "a date no format takes")))
    if f.required and value and f.type not in ("select", "checkbox", "radio"):
        out.append((4, Refusal(key, "", "left empty, though it is required")))
    return out


def refusals(asks: FormAsks, accepted: Mapping[str, str], said: Mapping[str, Sequence[str]]) -> list[Refusal]:
    """The values the form must refuse (see the module docstring): one a field, at most
    MAX_REFUSALS, the ones only the server's messages tell of first, then in the form's order."""
    best: list[tuple[int, int, Refusal]] = []
    for index, f in enumerate(asks.fields):
        key = _key(f)
        if not fillable(f) or key not in accepted:
            continue
        found = _candidates(f, accepted[key], said.get(key, ()))
        if found:
            rank, refusal = min(found, key=lambda rr: rr[0])
            best.append((rank, index, refusal))
    return [r for _, _, r in sorted(best, key=lambda t: (t[0], t[1]))[:MAX_REFUSALS]]


def probe_values(asks: FormAsks, accepted: Mapping[str, str], said: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """field -> PROBE for each number field whose upper bound neither the page nor a message shows."""
    return {_key(f): PROBE for f in asks.fields
            if f.type == "number" and _key(f) in accepted and upper_bound(f, said.get(_key(f), ()))[0] is None}


def kept_values(asks: FormAsks, accepted: Mapping[str, str], said: Mapping[str, Sequence[str]],
                text: str) -> tuple[dict[str, str], list[Kept]]:
    """The values of the edge save: the accepted ones with each upper bound at the bound itself,
    the length asked for kept, and the first field that carried the crawl's text given `text`
    between outer spaces."""
    values = dict(accepted)
    edges: list[Kept] = []
    padded = False
    for f in asks.fields:
        key = _key(f)
        if key not in accepted or not fillable(f):
            continue
        value = accepted[key]
        high, _ = upper_bound(f, said.get(key, ()))
        digits = _digits(said.get(key, ()))
        if high is not None and f.type in ("number", "text", ""):
            values[key] = _show(high)
            edges.append(Kept(key, values[key], f"the bound {_show(high)} itself"))
        elif digits and value.isdigit() and len(value) == digits:
            edges.append(Kept(key, value, f"exactly {digits} digits"))
        elif not padded and CRAWL_TEXT in value and f.type in ("text", "textarea", ""):
            values[key] = f"  {text}  "
            padded = True
            edges.append(Kept(key, values[key], "the text with outer spaces"))
    return values, edges


def success_fragment(message: str, typed: str) -> str:
    """The part of a success message that names no item ("was added successfully" of "The book
    “X” was added successfully."): what a refused save must not say."""
    pieces = [re.sub(r"^[\W_]+|[\W_]+$", "", p.strip()) for p in message.split(typed)] if typed in message else [message]
    longest = max(pieces, key=len, default="")
    return longest if len(longest) >= 6 else ""


def trim_edge(raw: Sequence[str], text: str) -> bool | None:
    """What the DOM holds for a row saved as `  text  `: True when every copy is `text` exactly
    (the app trims), False when one kept its outer spaces, None when none was read."""
    found = [r for r in raw if r.strip() == text]
    if not found:
        return None
    return all(r == text for r in found)


#: a model's answer for a field: (field, the messages it showed) -> a value to try, or None
Proposer = Callable[[FieldAsks, Sequence[str]], "str | None"]


#: the model's answer: one value the field must refuse
PROPOSE_FORMAT = '{"value": "<one value, at most 200 characters>", "reason": "<short>"}'


def model_proposer(settings: "Settings", record: "Callable[[ModelCall], None] | None" = None) -> Proposer | None:
    """The configured model (flowwalk.yaml `model:`) as a Proposer: one question per field, the
    field's messages fenced as data; an answer that is not one line of at most 200 characters is
    refused by the agent's validator, and a model that is unavailable, over its cap or never
    answers usably proposes nothing. None without a model."""
    config = settings.llm
    if config is None:
        return None
    from flowwalk.agent import Agent, InvalidAnswer, ModelUnavailable, NoValidAnswer, Question, QuotaExceeded

    secrets = {name: settings.secrets.get(name) or "" for name in settings.secrets.names()}
    agent = Agent.open(config, secrets=secrets, record=record)

    def validate(data: dict[str, object]) -> str:
        value = data.get("value")
        if not isinstance(value, str) or not value.strip() or len(value) > 200 or "\n" in value:
            raise InvalidAnswer('"value" must be one line of text, at most 200 characters')
        return value

    def propose(f: FieldAsks, said: Sequence[str]) -> str | None:
        question = Question(purpose="discover", task=(
            "A web form's field showed the messages below about a value typed into it. Propose one value "
            "the field must refuse under the rule the messages state, as close to the rule's edge as you can "
            "(one character or one unit outside it)."), answer_format=PROPOSE_FORMAT,
            facts={"field": _key(f), "type": f.type}, items=list(said))
        try:
            answer: str = agent.ask(question, validate, describe=lambda v: f"refuse {v!r}"[:200]).value
        except (ModelUnavailable, QuotaExceeded, NoValidAnswer):
            return None
        return answer

    return propose


def proposed(asks: FormAsks, accepted: Mapping[str, str], said: Mapping[str, Sequence[str]],
             chosen: Sequence[Refusal], propose: Proposer | None) -> list[Refusal]:
    """A refusal the model proposes for each field that showed a message none of the choices
    reads (one line, at most 200 characters, not the accepted value), while fewer than MAX_REFUSALS."""
    if propose is None:
        return []
    out: list[Refusal] = []
    taken = {r.field for r in chosen}
    for f in asks.fields:
        key = _key(f)
        messages = [m for m in said.get(key, ()) if "required" not in m.lower()]
        if len(chosen) + len(out) >= MAX_REFUSALS or key in taken or key not in accepted or not messages \
                or not fillable(f):
            continue
        try:
            value = propose(f, messages)
        except Exception:  # noqa: BLE001 - a model that fails proposes nothing
            value = None
        if isinstance(value, str) and value != accepted[key] and len(value) <= 200 and "\n" not in value:
            out.append(Refusal(key, value, "the value a model proposed from the message"))
    return out


# --- walking them ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FormAt:
    """A form a journey saved: its plan's selectors, where it is, what it took, what it said."""

    #: the form's selector, its fields (name -> selector, target, action), its submit step
    form: str
    fields: Mapping[str, tuple[str, str, str]]
    submit: Step
    #: the form page's path, and the values it took (the crawl's text in them)
    path: str
    accepted: Mapping[str, str]
    typed: str
    #: field -> the messages the server showed for it while the journey saved
    said: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: where the save landed (path), and that page's search field
    landing: str = ""
    search: str = ""

    def fill(self, values: Mapping[str, str]) -> tuple[Step, ...]:
        return tuple({"type": "act", "action": self.fields[name][2], "target": self.fields[name][1],
                      "selector": self.fields[name][0], "value": value}
                     for name, value in values.items() if name in self.fields)


class FormLimits:
    """Walks a saved form's probe, edge save and refusals (see the module docstring) with the
    journey explorer's opener and player, and writes what held as journeys of `page`."""

    def __init__(self, open_state: Callable[[CrawledPage], JourneyPage], play: Callable[[JourneyPage, Step], None],
                 take_action: Callable[[], bool], progress: Callable[[str], None], propose: Proposer | None = None):
        self.open_state = open_state
        self.play = play
        self.take_action = take_action
        self.progress = progress
        self.propose = propose

    # --- one walk: steps, then what the page shows ---------------------------------------------

    def _steps(self, page: JourneyPage, steps: Sequence[Step]) -> Observation:

        for step in steps:
            self.play(page, step)
        page.settle_quiet()
        try:
            return page.observe()
        except (PageError, InvalidSelector) as error:
            raise MoveFailed(f"the page could not be read: {str(error).splitlines()[0][:200]}") from None

    def kept_in_place(self, page: CrawledPage, selector: str, target: str) -> Journey | None:
        """A single field that adds an item with Enter (TodoMVC's new todo): `  text  ` typed, and
        the item's text as the list shows it, read from the DOM: exactly `text` where the app trims."""

        text = crawl_text(EDGE)
        if not self.take_action():
            return None
        move = Move(name=f"add '  {text}  ' (outer spaces)", key=f"edges|{selector}", typed=text, field=selector,
                    steps=({"type": "act", "action": "fill", "target": target, "selector": selector,
                            "value": f"  {text}  "},
                           {"type": "act", "action": "press", "target": target, "selector": selector,
                            "value": "Enter"}))
        try:
            opened = self.open_state(page)
        except MoveFailed as failed:
            self.progress(f"    the edges of {selector}: {failed}")
            return None
        try:
            opened.settle_quiet()
            now = self._steps(opened, move.steps)
            shown, _ = self._trimmed(opened, now, text)
        except MoveFailed as failed:
            self.progress(f"    the edges of {selector}: {failed}")
            return None
        finally:
            opened.close()
        if not any(e.kind == "trimmed" for e in shown):
            return None   # the app keeps what was typed: nothing to hold it to
        journey = Journey(id=f"{page.slug}/journey-edges", page=page.id, name="add an item with outer spaces",
                          why="the app stores a new item's text trimmed: '  x  ' is shown as 'x'", moves=(move,),
                          effects=(tuple(shown),), walks=1)
        self.progress(f"  journey {journey.name}: 1 move, {len(shown)} checks")
        return journey

    def _asks(self, page: JourneyPage, at: FormAt) -> FormAsks | None:
        if urlsplit(page.url).path != at.path:
            return None   # the save was taken: the page left the form
        try:
            return page.form(at.form)
        except (PageError, InvalidSelector):
            return None

    def _opened(self, page: CrawledPage, at: FormAt) -> JourneyPage:
        opened = self.open_state(page)
        self.play(opened, {"type": "goto", "url": at.path})
        opened.settle_quiet()
        return opened

    def explore(self, page: CrawledPage, at: FormAt, target: CrawledPage) -> list[Journey]:
        """The refusal and edge journeys of the form `at` (reached from `page`, on `target`)."""

        out: list[Journey] = []
        try:
            found = self._read(page, at)
            if found is None:
                return []
            asks, said = found
            edges, success, list_sel = self._edges(page, at, asks, said, target)
            chain = self._refusals(page, at, asks, said, success, list_sel, target)
            out = [j for j in (chain, edges) if j is not None]
        except MoveFailed as failed:
            self.progress(f"    limits of {at.path}: {failed}")
        return out

    def _read(self, page: CrawledPage, at: FormAt) -> tuple[FormAsks, dict[str, tuple[str, ...]]] | None:
        """What the fresh form asks, and what the server says of each field: the journey's messages,
        and its answer to PROBE in each number field whose bound is not shown."""
        said = {k: tuple(v) for k, v in at.said.items()}
        opened = self._opened(page, at)
        try:
            asks = self._asks(opened, at)
            if asks is None:
                return None
            probe = probe_values(asks, at.accepted, said)
            if not probe or not self.take_action():
                return asks, said
            self._steps(opened, at.fill({**at.accepted, **probe}) + (at.submit,))
            answer = self._asks(opened, at)
        finally:
            opened.close()
        if answer is None:
            self.progress(f"    {at.path} took {PROBE} in {', '.join(probe)}: no bound to find")
            return asks, said
        for f in answer.fields:
            if _key(f) in probe and f.errors:
                said[_key(f)] = tuple(dict.fromkeys(said.get(_key(f), ()) + f.errors))
        return asks, said

    def _edges(self, page: CrawledPage, at: FormAt, asks: FormAsks, said: Mapping[str, Sequence[str]],
               target: CrawledPage) -> tuple[Journey | None, str, str]:
        """The edge save: (its journey, the success message's fragment, the list's selector)."""
        text = crawl_text(EDGE)
        values, kept = kept_values(asks, {k: v.replace(at.typed, text) for k, v in at.accepted.items()}, said, text)
        if not kept or not self.take_action():
            return None, "", ""
        goto: Step = {"type": "goto", "url": at.path}
        save = Move(name="fill the form at its edges (" + "; ".join(f"{k.field} '{k.value}': {k.why}" for k in kept)[:200]
                    + ") and save it", key=f"edges|{at.submit.get('selector', '')}", typed=text,
                    steps=(goto,) + at.fill(values) + (at.submit,))
        search = Move(name=f"search for '{text}'", key=f"search|{at.search}", typed=text, field=at.search,
                      steps=({"type": "act", "action": "fill", "target": "the search field", "selector": at.search,
                              "value": text},
                             {"type": "act", "action": "press", "target": "the search field", "selector": at.search,
                              "value": "Enter"})) if at.search else None
        first = self._edge_walk(page, at, save, search, text)
        if first is None:
            return None, "", ""
        moves, effects, fragment, list_sel = first
        # walked again from a fresh context, as its spec's two verification runs will: a field that
        # must be unique (a group's name) refuses the same save twice, and nothing is written of it
        second = self._edge_walk(page, at, save, search, text)
        if second is None or [[e.check for e in m] for m in second[1]] != [[e.check for e in m] for m in effects]:
            self.progress(f"    the edges of {at.path}: the second walk did not see the same")
            return None, fragment, list_sel
        while moves and not effects[-1]:
            moves.pop()
            effects.pop()
        if not moves:
            return None, fragment, list_sel
        why = "; ".join(f"{k.field}: {k.why}" for k in kept)
        journey = Journey(id=f"{page.slug}/journey-edges-{target.slug}"[:120], page=page.id,
                          name=f"save {target.path} at its edges",
                          why=f"the form must take the values at its edges ({why})"[:300], moves=tuple(moves),
                          effects=tuple(tuple(e) for e in effects), through=target.id)
        self.progress(f"  journey {journey.name}: {len(moves)} moves, {sum(len(e) for e in effects)} checks")
        return journey, fragment, list_sel

    def _edge_walk(self, page: CrawledPage, at: FormAt, save: Move, search: Move | None,
                   text: str) -> tuple[list[Move], list[list[Effect]], str, str] | None:
        """One walk of the edge save (and the search for it): (moves, their effects, the success
        message's fragment, the list's selector); None when the form refused it."""
        opened = self.open_state(page)
        try:
            after = self._steps(opened, save.steps)
            refused = self._asks(opened, at)
            if refused is not None:
                said_now = "; ".join(f"{_key(f)}: {' '.join(f.errors)}" for f in refused.fields if f.errors)
                self.progress(f"    {at.path} refused its edges ({said_now[:200]}): none written")
                return None
            checks: list[Effect] = []
            message = next((m for m in after.messages if text in m), "")
            fragment = success_fragment(message, text) if message else ""
            if fragment:
                checks.append(Effect("message", f"the page says '{fragment}'",
                                     {"type": "expect", "kind": "text_contains", "value": fragment}, 1))
            checks.append(Effect("url", f"the page left {at.path}",
                                 {"type": "expect", "kind": "url_not_contains", "value": at.path}, 2))
            moves, effects = [save], [checks]
            now = after
            if search is not None:
                now = self._steps(opened, search.steps)
                moves.append(search)
                effects.append([])
            shown, list_sel = self._trimmed(opened, now, text)
            effects[-1].extend(shown)
        finally:
            opened.close()
        return moves, effects, fragment, list_sel

    def _trimmed(self, opened: JourneyPage, now: Observation, text: str) -> tuple[list[Effect], str]:
        """The row that shows `text` after the edge save, and whether its text is exactly `text`."""
        for entry in now.lists:
            for row in entry.rows:
                if text not in row.text:
                    continue
                row_sel = row_selector(entry.sel, entry.item, text)
                # the link by what it says, not by its href: the row's id differs on every run
                holder = (f"a:has-text({quote_text(text)})" if any(c.kind == "link" and text in c.name
                                                                 for c in row.controls) else row.label)
                out = [Effect("row_added", f"the list shows '{text}'",
                              {"type": "expect", "kind": "text_contains", "selector": entry.sel, "value": text}, 1)]
                if holder:
                    sel = f"{row_sel} {holder}"
                    trims = trim_edge(opened.raw_texts(sel), text)
                    if trims:
                        out.insert(0, Effect("trimmed", f"'  {text}  ' is shown trimmed, exactly '{text}'",
                                             {"type": "expect", "kind": "has_text", "selector": sel, "value": text,
                                              "keep_whitespace": True}, 1))
                    elif trims is False:
                        self.progress(f"    '{text}' is shown with its outer spaces: the app keeps them")
                return out, entry.sel
        return [], ""

    def _refusals(self, page: CrawledPage, at: FormAt, asks: FormAsks, said: Mapping[str, Sequence[str]],
                  success: str, list_sel: str, target: CrawledPage) -> Journey | None:
        """The refusals in one chain from a fresh form: each field's value just outside, alone."""
        text = crawl_text(REFUSED)
        valid = {k: v.replace(at.typed, text) for k, v in at.accepted.items()}
        chosen = refusals(asks, valid, said)
        chosen += proposed(asks, valid, said, chosen, self.propose)
        if not chosen:
            return None
        opened = self.open_state(page)
        moves: list[Move] = []
        effects: list[list[Effect]] = []
        try:
            current: dict[str, str] = {}
            for refusal in chosen:
                if not self.take_action():
                    break
                wanted = {**valid, refusal.field: refusal.value}
                changed = {k: v for k, v in wanted.items() if current.get(k) != v}
                lead: tuple[Step, ...] = () if current else ({"type": "goto", "url": at.path},)
                shown = "empty" if not refusal.value else f"'{refusal.value}'"
                move = Move(name=f"{refusal.field} {shown} ({refusal.why}), the rest valid: submit",
                            key=f"refuse|{refusal.field}", steps=lead + at.fill(changed) + (at.submit,))
                self._steps(opened, move.steps)
                answer = self._asks(opened, at)
                if answer is None:
                    self.progress(f"    {at.path} took {refusal.field} {shown}: not a refusal (its row carries "
                                  f"'{text}')")
                    break
                own = next((f for f in answer.fields if _key(f) == refusal.field), None)
                others = [_key(f) for f in answer.fields if f.errors and _key(f) != refusal.field]
                if own is None or not own.errors or others:
                    self.progress(f"    {refusal.field} {shown}: refused without its own message"
                                  + (f" ({', '.join(others)} refused too)" if others else ""))
                    break
                current = wanted
                moves.append(move)
                effects.append(self._refused_checks(at, own, refusal, success))
            if moves and list_sel and at.search and self.take_action():
                look = Move(name=f"search the list for '{text}': no row was added", key=f"none|{at.search}",
                            steps=({"type": "goto", "url": at.landing},
                                   {"type": "act", "action": "fill", "target": "the search field",
                                    "selector": at.search, "value": text},
                                   {"type": "act", "action": "press", "target": "the search field",
                                    "selector": at.search, "value": "Enter"}))
                now = self._steps(opened, look.steps)
                if not any(text in row.text for entry in now.lists for row in entry.rows):
                    moves.append(look)
                    effects.append([Effect("no_row", f"the list holds no '{text}'",
                                           {"type": "expect", "kind": "text_not_contains", "selector": list_sel,
                                            "value": text}, 1)])
        finally:
            opened.close()
        if not moves:
            return None
        journey = Journey(id=f"{page.slug}/journey-refusals-{target.slug}"[:120], page=page.id,
                          name=f"values {target.path} must refuse",
                          why="each value just outside a field's rule, the rest of the form valid, must be refused "
                              "with the field's own message, on the form, with no success message and no new row",
                          moves=tuple(moves), effects=tuple(tuple(e) for e in effects), through=target.id, walks=1)
        self.progress(f"  journey {journey.name}: {len(moves)} moves, {sum(len(e) for e in effects)} checks")
        return journey

    def _refused_checks(self, at: FormAt, own: FieldAsks, refusal: Refusal, success: str) -> list[Effect]:
        message = own.errors[0][:200]
        field_sel = at.fields[refusal.field][0]
        where = f"{own.row}:has({field_sel})" if own.row else at.form
        out = [Effect("message", f"{refusal.field} says '{message}'",
                      {"type": "expect", "kind": "text_contains", "selector": where, "value": message}, 1),
               Effect("url", f"the page is still {at.path}", {"type": "expect", "kind": "url_contains", "value": at.path}, 2)]
        if success:
            out.append(Effect("no_message", f"the page does not say '{success}'",
                              {"type": "expect", "kind": "text_not_contains", "value": success}, 2))
        return out
