"""Mending a selector that matched nothing, and the one result and record of every heal.

Any heal, of any selector a step uses, is one `Healed` result (the selector as used now, as the
spec should write it, how and why) and one record, `Healed.record` (`events.Heal`, the `heal` of
the step's `healed` finding in emit.jsonl). It is found one of three ways:

- `find` (heal/find.py): a pinned act selector replaced by what its target and last fingerprint
  pick (method `deterministic` or `model`);
- `known`: the run's heals (heal/cache.py) know the selector on this page: the selector they made of
  it, or the page's renames applied to it, read once and held to the step's fingerprint (method
  `run`);
- `renamed`: the earlier fingerprint over one candidates read (heal/find.py `read_candidates`,
  `judge`): the winner's ids and classes against the fingerprint's give renames of the selector's
  own tokens (heal/rename.py), and the rewritten selector, read once, must hold the fingerprint
  (method `renamed`); it then goes into the run's heals.

A heal that picked an element (`PICKS`: from a target, a fingerprint or a model, rather than renames
held to the fingerprint) is kept for the rest of its rule as a `HealRecord`: a later check that
fails, having found its own element, blames it (`contradicted`: HEAL_CONTRADICTED, which is
`spec_step_unresolvable`, never `assertion_failed`).

Over a page `Reader` (browser/records.py); which selectors may be mended and when is the walker's
(walk/healing.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from flowwalk import events as ev
from flowwalk.browser.records import InvalidSelector, Match, PageError, PageGone, Reader
from flowwalk.heal.cache import Accepted, HealMap, signature
from flowwalk.heal.find import HealOutcome, Lookup, judge, read_candidates
from flowwalk.heal.fingerprint import bound
from flowwalk.heal.rename import holds, renames_from, rewrite, tokens
from flowwalk.model import Step

__all__ = ["Healed", "HealRecord", "Mended", "contradicted", "healed_act", "holds_at", "known", "renamed",
           "CONTRADICTABLE", "EARLIER", "PICKS"]

#: the reason of a heal taken from the run's heals
EARLIER = "a heal accepted earlier in this run"
#: heals that picked an element rather than renamed the selector's tokens and held the result to
#: the fingerprint: each gets a screenshot (walk/healing.py), and a later failing check blames it
PICKS = ("deterministic", "model")
#: failures of a later check that a heal earlier in the rule turns into HEAL_CONTRADICTED
CONTRADICTABLE = ("EXPECT_STATE_MISMATCH", "VERIFICATION_FAILED")


@dataclass(frozen=True)
class Healed:
    """One heal: the selector as used now (an act's within its scope), as the spec should write it
    (`flowwalk heal --apply`), how (`deterministic`, `model`, `renamed`, `run`), its score and why."""

    selector: str
    written: str
    method: str
    score: float
    reason: str
    renames: Mapping[str, str] = field(default_factory=dict)
    candidates: tuple[dict[str, Any], ...] = ()
    #: taken from the run's heals before the stale selector was read at all
    first: bool = False

    @property
    def how(self) -> str:
        return "from a heal earlier in this run" if self.method == "run" else f"{self.method}, score {self.score:.2f}"

    def record(self, old: str, step: Step, index: int, *, key: str = "selector", target: str = "",
               screenshot: str | None = None) -> ev.Heal:
        """The one record of this heal of `old` (the selector as the spec writes it, at `key`)."""
        return ev.Heal(old_selector=old, new_selector=self.written, method=self.method, score=self.score,
                       target=target, step_index=index, path=step.loc.path, line=step.loc.line,
                       screenshot=screenshot, candidates=self.candidates, selector_key=key,
                       kind=type(step).__name__.lower(), renames=dict(self.renames), first=self.first)


@dataclass(frozen=True)
class Mended(Healed):
    """A mended selector's heal (`known`, `renamed`), with what its one read matched."""

    found: Match = field(kw_only=True)


def healed_act(outcome: HealOutcome, used: str) -> Healed:
    """An act's heal from `find`'s outcome; `used`: its selector within the step's scope."""
    assert outcome.selector is not None
    return Healed(used, outcome.selector, outcome.method, outcome.score, outcome.reason, candidates=outcome.candidates)


def holds_at(reader: Reader, selector: str, scope: str | None, fingerprint: Mapping[str, Any] | None, *,
             text: bool = False, gate: Sequence[str] = ()) -> Match | None:
    """One read of `selector` (asking `gate` too, `Page.match`): what it matches, when it matches and
    its first match holds `fingerprint` (with `text`, its text too); any match without one."""
    try:
        found = reader.match(selector, scope, fingerprint=True, gate=gate)
    except PageGone:
        raise
    except (PageError, InvalidSelector):
        return None
    if found.count == 0:
        return None
    if fingerprint is not None:
        now = bound(found.fingerprint)
        if now is None or not holds(fingerprint, now, text=text):
            return None
    return found


def _written(written: str, selector: str, renames: Mapping[str, str]) -> str:
    return (rewrite(written, renames) if renames else None) or selector


def known(reader: Reader, heals: HealMap, selector: str, written: str, fingerprint: Mapping[str, Any] | None, *,
          scope: str | None, text: bool = False, gate: Sequence[str] = (), first: bool = False) -> Mended | None:
    """What the run's heals make of `selector` on this page, read once and held (`holds_at`). With
    `first` (before the selector's own first read) only for the heal of exactly this selector or a
    step with a fingerprint, and a heal the read does not confirm is kept (the element may not be
    there yet); else a heal of exactly this selector the read no longer confirms is dropped."""
    page = signature(reader.last_url())
    accepted = heals.get(page, selector)
    renames = dict(accepted.renames) if accepted else heals.renames(page)
    again = accepted.selector if accepted else rewrite(selector, renames)
    if not again or (first and accepted is None and fingerprint is None):
        return None
    found = holds_at(reader, again, scope, fingerprint, text=text, gate=gate)
    if found is None:
        if accepted and not first:
            heals.drop(page, selector)
        return None
    return Mended(again, _written(written, again, renames), "run", 1.0, EARLIER, renames, first=first, found=found)


def renamed(reader: Reader, heals: HealMap, lookup: Lookup, written: str, fingerprint: Mapping[str, Any], *,
            text: bool = False, redact: Callable[[str], str] = lambda s: s) -> Mended | None:
    """`lookup.pinned` mended as renames of its ids and classes (see the module docstring), or None."""
    selector = lookup.pinned
    assert selector
    judgement = judge(lookup, read_candidates(reader, lookup, redact))
    winner = judgement.winner
    if winner is None or not winner.element.fingerprint:
        return None
    mine = set(tokens(selector))
    renames = {k: v for k, v in renames_from(fingerprint, winner.element.fingerprint).items() if k in mine}
    again = rewrite(selector, renames)
    found = holds_at(reader, again, lookup.scope, fingerprint, text=text) if again else None
    if again is None or found is None:
        return None
    heals.put(signature(reader.last_url()), selector, Accepted(again, renames))
    return Mended(again, _written(written, again, renames), "renamed", round(min(winner.score, 1.0), 3),
                  judgement.decision.reason, renames, judgement.kept, found=found)


@dataclass(frozen=True)
class HealRecord:
    """A pick (`PICKS`) of the rule in flight: the step, the selector that broke, the one it became."""

    index: int
    old: str
    new: str
    method: str


def contradicted(heals: Sequence[HealRecord], code: str, message: str, *, found: bool = True) -> tuple[str, str]:
    """(code, message) of a failing check: HEAL_CONTRADICTED when an act of its rule was healed by a
    pick (`heals`) and the check found its own element and saw it wrong. A check that did not find
    its element (`found` False) says nothing about an earlier heal; a mended selector was held to its
    fingerprint by its own step and is never among `heals`."""
    if code not in CONTRADICTABLE or not heals or not found:
        return code, message
    heal = heals[-1]
    return "HEAL_CONTRADICTED", (f"step {heal.index} was healed to '{heal.new}' and the next check failed, so "
                                 f"the heal was wrong: {message}")
