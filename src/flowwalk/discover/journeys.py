"""Journeys: act, observe what changed, follow the state the action left, and write the chain as one flow.

With `--submit-forms`, a page that can create something (a single field that takes Enter, such
as TodoMVC's new-todo input, or a link to a page with a form) is explored as a user would: add an
item carrying the crawl's own text, then use the controls that the new state revealed, up to a
bounded depth. Every move is observed before and after (`Page.observe`), and what changed
(`effects.diff_states`) becomes the move's checks: the list gained the row with the typed text,
the counter went from 1 to 2, the row got `completed`, a filter hid one of two rows, the URL
gained `#/active`. Nothing asserts the input itself.

The journeys of a page, in this order:

- **the main chain**: add two items, then the first item's own checkbox, then every control the
  state revealed that stays on the page (hash-route links, buttons), and last a control that
  clears or removes, when the page lists nothing but what the journey created;
- **branches**, each from one added item: editing it in place (double-click its text, type,
  Enter), each other revealed control (a "mark all" checkbox), and deleting it with the delete
  control of its own row;
- **reload**: add, change the item's state, load the page again: it is still there, in that state
  (only when an action changed storage or sent a request);
- **across pages**: from a page that links to a form page, open the form, submit it empty, fill it
  the way it asks (values.py) and save, correcting what the server refused from its messages (at
  most SAVES saves), see where it lands (the list shows the new row, the message), then search for
  the text there when the page has a search field;
- **refusals and edges**, when that save was taken (refusals.py): values just outside each field's
  rule, each refused alone, and a save at the form's edges (a bound itself, text with outer spaces
  shown trimmed); a single field that adds with Enter gets the trimmed-text edge too;
- **edit and delete**, when that save was taken: the same values under the journey's second text,
  then open the new row, edit it and save, continuing to edit, open its delete page, confirm;
- **through a scene**: from a control of the page at rest that opens a scene with a creating form
  in place (a single-page app's "new" button): fill it and save, see the row listed, open the
  row's edit control, change its text and save, then its delete control, and confirm on the
  scene that names the row (typing the phrase it asks for).

Each journey is walked twice, each time in a fresh browser context; an effect counts only when
both walks saw it with the same value (a timestamp, a generated id, a row count that grows with
every run is dropped and recorded). Destructive controls keep their rule (safety.py), with one
exception under `--submit-forms`: what the journey itself created may be deleted, when the
control sits in the row that carries the crawl's text, when every row the page lists is one the
journey created, or on the delete page of the journey's own row whose text names it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Mapping, Sequence, cast
from urllib.parse import urljoin, urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError
from flowwalk.browser.explore import Action
from flowwalk.browser.explored import Control, Form, Named, ObservedList, Observation, Row, Survey
from flowwalk.discover.effects import (LONG_CHECKS, agree, by_novelty, checks_per_move, diff_states, own_text,
                                       quote_text, removal_checks, row_selector, state_checks)
from flowwalk.discover.features import form_kind
from flowwalk.discover.page import JourneyPage, MoveFailed
from flowwalk.discover.refusals import FormAt, FormLimits, Proposer
from flowwalk.discover.safety import destructive, destructive_control
from flowwalk.discover.selectors import choose_selector, target_of
from flowwalk.discover.state import CrawledPage, Edge, Effect, Journey, Move, Step
from flowwalk.discover.values import CRAWL_TEXT, corrected, crawl_text, first_values

__all__ = ["CRAWL_TEXT", "JourneyExplorer", "MoveFailed", "crawl_text"]

#: moves in one journey (the creates included)
MAX_MOVES = 9
_ROW_ID = re.compile(r"/\d+(/|$|\?)")
#: journeys per page
MAX_JOURNEYS = 8
#: steps a flow spec may have (flow-spec v1)
SPEC_STEPS = 30
#: the step actions a journey's move plays
_PLAYED: dict[str, Action] = {"click": "click", "dblclick": "dblclick", "hover": "hover", "fill": "fill",
                              "press": "press", "select": "select", "check": "check"}


Opener = Callable[[CrawledPage], JourneyPage]
#: picks a journey's next move from its start state, the state now, the texts typed so far, the
#: effects so far and the page (None: the journey ends)
Extend = Callable[[Observation, Observation, list[str], list[list[Effect]], JourneyPage], "Move | None"]


class JourneyExplorer:
    """Explores one page's journeys in fresh sessions from `open_state(page)`."""

    def __init__(self, open_state: Opener, *, words: tuple[str, ...], take_action: Callable[[], bool],
                 progress: Callable[[str], None], propose: Proposer | None = None):
        self.open_state = open_state
        self.words = words
        self.take_action = take_action
        self.progress = progress
        #: what a saved form refuses and what its fields keep (refusals.py)
        self.limits = FormLimits(open_state, self._play, take_action, progress, propose)
        #: the create moves already explored (a form shown on several pages is explored once)
        self._explored: set[str] = set()
        #: the form pages a journey across pages already creates through (one journey each)
        self._claimed: set[str] = set()

    # --- playing moves ----------------------------------------------------------------------------

    @staticmethod
    def _play(page: JourneyPage, step: Step) -> None:
        try:
            if step.get("type") == "goto":
                page.goto(urljoin(page.url, step.get("url", "")))
                return
            action, selector = _PLAYED.get(step.get("action", "")), step.get("selector", "")
            if action is None:
                raise MoveFailed(f"cannot play {step.get('action')}")
            if not page.act(action, selector, step.get("value", "")).found:
                raise MoveFailed(f"{selector} matches nothing")
        except (PageError, InvalidSelector, NavigationBlocked) as error:
            raise MoveFailed(str(error).splitlines()[0][:200] if str(error) else type(error).__name__) from None

    @staticmethod
    def _observe(page: JourneyPage) -> Observation:
        try:
            return page.observe()
        except (PageError, InvalidSelector) as error:
            raise MoveFailed(f"the page could not be read: {str(error).splitlines()[0][:200]}") from None

    # --- one walk ---------------------------------------------------------------------------------

    def walk(self, page: CrawledPage, moves: Sequence[Move], *,
             extend: Extend | None = None) -> tuple[list[Move], list[list[Effect]]]:
        """Play `moves` (then whatever `extend` picks, one at a time) from a fresh start state.

        Returns (moves played, effects of each). A move that cannot be made ends the walk there."""
        opened = self.open_state(page)
        played: list[Move] = []
        effects: list[list[Effect]] = []
        typed: list[str] = []
        try:
            opened.settle_quiet()
            start = self._observe(opened)
            now = start
            seen = [start]
            pending = list(moves)
            while len(played) < MAX_MOVES:
                move = pending.pop(0) if pending else (extend(start, now, typed, effects, opened) if extend else None)
                if move is None or not self.take_action():
                    break
                known = opened.mark()
                try:
                    for step in move.steps:
                        self._play(opened, step)
                    opened.settle_quiet()
                    after = self._observe(opened)
                except MoveFailed as failed:
                    self.progress(f"    {move.name}: {failed}")
                    break
                if move.typed:
                    typed.append(move.typed)
                if move.reload:
                    found = state_checks(now, after, typed)
                else:
                    found = diff_states(now, after, typed=typed, acted=move.field, typed_value=move.typed,
                                        pressed=move.pressed, requests=opened.requests(since=known))
                if move.removes:
                    gone = removal_checks(seen, after, move.removes)
                    checks = [e.check for e in gone]
                    found = gone + [e for e in found if e.check is None or e.check not in checks]
                played.append(move)
                effects.append(found)
                now = after
                seen.append(after)
        finally:
            opened.close()
        return played, effects

    def journey(self, page: CrawledPage, jid: str, name: str, why: str, moves: Sequence[Move], *,
                extend: Extend | None = None, through: str = "",
                worth: Callable[[], bool] = lambda: True) -> Journey | None:
        """Walk the moves twice; the journey keeps the effects both walks agreed on. `worth`, asked
        after the first walk, says whether it reached what the journey is for."""
        first_moves, first = self.walk(page, moves, extend=extend)
        if not first_moves or not any(e.check for effects in first for e in effects) or not worth():
            return None
        second_moves, second = self.walk(page, first_moves)
        played: list[Move] = []
        checked: list[list[Effect]] = []
        noted: list[str] = []
        dropped: list[str] = []
        for index, move in enumerate(first_moves):
            if index >= len(second_moves):
                dropped.append(f"{move.name}: the second walk could not make this move")
                break
            kept, differed = agree(first[index], second[index])
            played.append(move)
            # a URL that names a row by its id (`/authors/6/change/`) holds only while the store
            # hands out the same ids: another run's rows take them
            by_id = [e for e in kept if e.check is not None and e.check.get("kind") in ("url_contains", "url_matches")
                     and _ROW_ID.search(str(e.check.get("value") or ""))]
            kept = [e for e in kept if e not in by_id]
            dropped.extend(f"{move.name}: {e.what} (the URL names a row by its id)" for e in by_id)
            checked.append([e for e in kept if e.check is not None])
            noted.extend(f"{move.name}: {e.what}" for e in kept if e.check is None)
            dropped.extend(f"{move.name}: {e.what} (the two walks differed)" for e in differed if e.check is not None)
        # a journey ends with its last move that checks something
        while played and not checked[-1]:
            played.pop()
            checked.pop()
        if not played:
            return None
        # the checks each move keeps (generate.journey_spec) look at what the journey has not yet
        ordered = by_novelty(checked, checks_per_move(len(played)))
        self.progress(f"  journey {name}: {len(played)} moves, {sum(len(e) for e in ordered)} checks")
        return Journey(id=jid, page=page.id, name=name, why=why, moves=tuple(played),
                       effects=tuple(tuple(e) for e in ordered), dropped=tuple(dropped), noted=tuple(noted),
                       through=through)

    # --- the journeys of one page -----------------------------------------------------------------

    def explore(self, page: CrawledPage, pages: Mapping[str, CrawledPage], edges: Sequence[Edge]) -> list[Journey]:
        journeys: list[Journey] = []
        for journey in self._in_place(page):
            journeys.append(journey)
        for journey in self._across_pages(page, pages, edges):
            journeys.append(journey)
        for journey in self._in_scenes(page):
            journeys.append(journey)
        return journeys[:MAX_JOURNEYS]

    def _in_scenes(self, page: CrawledPage) -> Iterator[Journey]:
        """From each in-page control the crawl clicked without leaving the URL: the scene it opens,
        when that has a creating form, is a create, edit and delete journey of its own item."""
        for index, control in enumerate(page.controls):
            if control.route:
                continue
            open_move = Move(name=f"open '{control.name or control.target}'", key=f"scene|{control.selector}",
                             steps=({"type": "act", "action": "click", "target": control.target,
                                     "selector": control.selector},))
            scene = _InScene(self.words, at_rest={choose_selector(f) or "" for f in page.survey.forms})
            journey = self.journey(page, f"{page.slug}/journey-scene-{index + 1}",
                                   f"create an item through '{control.name or control.target}', edit it, delete it",
                                   f"'{control.name or control.target}' opens a form in place: saving it must list the "
                                   "new item, its edit must be kept, and its own delete removes it",
                                   [open_move], extend=scene.next_move, worth=scene.listed)
            if journey is not None:
                yield journey
                return   # one item's journey per page: the other controls open other scenes of it

    def _creates(self, page: CrawledPage) -> Callable[[int], Move] | None:
        """The page's own way to add an item: a single field outside a form that takes Enter."""
        for form in page.survey.forms:
            if not form.implicit or form.search or destructive(form, self.words):
                continue
            fields = [f for f in form.fields if f.type in ("text", "textarea", "")]
            if len(fields) != 1:
                continue
            selector = choose_selector(fields[0])
            if selector is None:
                continue
            target = target_of(fields[0])

            def create(n: int, selector: str = selector, target: str = target) -> Move:
                text = crawl_text(n)
                return Move(name=f"add '{text}'", key=f"create|{selector}", typed=text, field=selector, steps=(
                    {"type": "act", "action": "fill", "target": target, "selector": selector, "value": text},
                    {"type": "act", "action": "press", "target": target, "selector": selector, "value": "Enter"}))
            return create
        return None

    def _in_place(self, page: CrawledPage) -> Iterator[Journey]:
        create = self._creates(page)
        if create is None or create(1).key in self._explored:
            return   # the same field on another page (TodoMVC's input on every route): explored once
        self._explored.add(create(1).key)
        slug = page.slug
        taken: set[str] = {f"create|{create(1).field}"}
        branches: dict[str, Move] = {}
        path = _path(page.url)

        def extend(start: Observation, now: Observation, typed: list[str],
                   effects: list[list[Effect]], _page: JourneyPage) -> Move | None:
            options = self._candidates(start, now, typed)
            for priority, move in options:
                if priority in BRANCH and move.key not in taken and move.key not in branches:
                    branches[move.key] = move
            chain = [(p, m) for p, m in options if p not in BRANCH and m.key not in taken]
            if not chain:
                return None
            priority, move = min(chain, key=lambda pm: pm[0])
            if _steps_after(effects) + len(move.steps) + 1 > SPEC_STEPS:
                return None
            taken.add(move.key)
            return move

        chain = self.journey(page, f"{slug}/journey-main", "add two items and use what they reveal",
                             "adding items reveals controls a fresh page does not show: each one is used in turn, "
                             "and what it changed is checked", [create(1), create(2)], extend=extend)
        if chain is not None:
            yield chain
        first_text = crawl_text(1)
        storing = chain is not None and any(n for n in chain.noted)
        for key, move in sorted(branches.items(), key=lambda kv: BRANCH.index(_priority_of(kv[1]))
                                if _priority_of(kv[1]) in BRANCH else 99):
            if key in taken:
                continue
            taken.add(key)
            own = _for_text(move, first_text)
            kind = key.split("|", 1)[0]
            name, why = {
                "row-edit": ("add an item and edit it in place", "an item's text can be edited where it is shown"),
                "row-delete": ("add an item and delete it", "the item's own delete control, on the item the journey "
                                                           "just created"),
            }.get(kind, (f"add an item and {move.name}", "a control the first item revealed"))
            journey = self.journey(page, f"{slug}/journey-{kind}", name, why, [create(1), own])
            if journey is not None:
                yield journey
        field_step = create(1).steps[0]
        kept = self.limits.kept_in_place(page, field_step.get("selector", ""), field_step.get("target", ""))
        if kept is not None:
            yield kept
        if storing:
            # reload after the add, then after changing the item: each change must have been saved
            reload = Move(name="load the page again", key="reload", reload=True, steps=({"type": "goto", "url": path},))
            moves = [create(1), reload]
            toggle = next((m for m in (chain.moves if chain else ()) if m.key.startswith("row-check|")), None)
            if toggle is not None:
                moves += [_for_text(toggle, first_text), reload]
            journey = self.journey(page, f"{slug}/journey-reload", "add an item, reload, change it, reload: it is kept",
                                   "the page saved what the journey did (storage or a request): a reload must show it",
                                   moves)
            if journey is not None:
                yield journey

    def _candidates(self, start: Observation, now: Observation, typed: list[str]) -> list[tuple[int, Move]]:
        """Moves the state `now` offers, with their priority (lower first; BRANCH ones are branches)."""
        out: list[tuple[int, Move]] = []
        start_rows = {entry.sel: len(entry.rows) for entry in start.lists}
        # the lists that hold the journey's items hold nothing else, and held nothing at the start:
        # a control that clears or removes on this page can only take what the journey created
        all_own = bool(typed)
        for entry in now.lists:
            if any(own_text(r.text, typed) for r in entry.rows):
                all_own = all_own and start_rows.get(entry.sel, 0) == 0 and all(own_text(r.text, typed) for r in entry.rows)
        for entry in now.lists:
            for row in entry.rows:
                own = own_text(row.text, typed)
                if own is not None:
                    out.extend(self._row_moves(entry, row, own))
        start_visible = {e.sel for e in start.elements if e.visible}
        here = urlsplit(now.url)
        for element in now.elements:
            control = element.control
            if control is None or not element.visible or element.sel in start_visible:
                continue
            word = destructive_control(control, self.words)
            name = control.name or element.sel
            step: Step = {"type": "act", "action": "click", "target": f"the {name} {control.kind}", "selector": element.sel}
            if control.kind == "link":
                href = urlsplit(control.href)
                if word or (href.scheme, href.netloc, href.path, href.query) != (here.scheme, here.netloc, here.path, here.query) \
                        or not href.fragment.startswith(("/", "!")):
                    continue
                out.append((2, Move(name=f"open '{name}'", key=f"link|{element.sel}", steps=(step,))))
            elif control.kind == "checkbox":
                out.append((5, Move(name=f"tick '{name}'", key=f"check|{element.sel}", steps=(step,))))
            elif control.kind == "button" and control.type not in ("submit", "reset"):
                if not word:
                    out.append((3, Move(name=f"press '{name}'", key=f"button|{element.sel}", steps=(step,))))
                elif all_own:
                    # it can only clear what the journey created: the page lists nothing else
                    out.append((8, Move(name=f"press '{name}' ({word}; the page lists only the journey's items)",
                                        key=f"clear|{element.sel}", steps=(step,))))
        return out

    def _row_moves(self, entry: ObservedList, row: Row, own: str) -> Iterator[tuple[int, Move]]:
        """What the journey's own row offers: its checkbox, editing its text in place, its delete control."""
        row_sel = row_selector(entry.sel, entry.item, own)
        for control in row.controls:
            if not control.sel:
                continue
            sel = f"{row_sel} {control.sel}"
            word = destructive_control(control, self.words)
            reach: tuple[Step, ...] = () if control.visible else (
                {"type": "act", "action": "hover", "target": f"the row '{own}'", "selector": row_sel},)
            what = control.name or control.sel
            if control.kind == "checkbox":
                yield 1, Move(name=f"tick the checkbox of '{own}'", key=f"row-check|{entry.sel}|{control.sel}",
                              steps=reach + ({"type": "act", "action": "click", "target": f"the checkbox of '{own}'",
                                              "selector": sel},))
            elif control.kind == "field" and not control.visible and row.label:
                new = f"{own} (edited)"
                yield 4, Move(name=f"edit '{own}' to '{new}'", key=f"row-edit|{entry.sel}|{control.sel}",
                              typed=new, field=sel, steps=(
                                  {"type": "act", "action": "dblclick", "target": f"the text of '{own}'",
                                   "selector": f"{row_sel} {row.label}"},
                                  {"type": "act", "action": "fill", "target": f"the edit field of '{own}'",
                                   "selector": sel, "value": new},
                                  {"type": "act", "action": "press", "target": f"the edit field of '{own}'",
                                   "selector": sel, "value": "Enter"}))
            elif control.kind == "button" and word:
                # the one destructive exception: the control of the row the journey created
                yield 9, Move(name=f"delete '{own}' with its own {what!r} control ({word})",
                              key=f"row-delete|{entry.sel}|{control.sel}",
                              steps=reach + ({"type": "act", "action": "click", "target": f"the {word} control of '{own}'",
                                              "selector": sel},))

    def _across_pages(self, page: CrawledPage, pages: Mapping[str, CrawledPage],
                      edges: Sequence[Edge]) -> Iterator[Journey]:
        """From this page, a link to a page with a form: open it, fill it with the crawl's text, save."""
        for edge in edges:
            if edge.from_ != page.id or edge.kind != "link" or not edge.selector:
                continue
            target = pages.get(edge.to)
            if target is None or target.id in self._claimed or _source(target, pages, edges) != page.id:
                continue
            plan = _form_plan(target.survey, self.words)
            if plan is None:
                continue
            self._claimed.add(target.id)
            typed = crawl_text(1)
            open_move = Move(name=f"open '{edge.name or target.path}'", key=f"open|{edge.selector}",
                             steps=({"type": "act", "action": "click", "target": f"the {edge.name or 'add'} link",
                                     "selector": edge.selector},))
            # first the form as it is, submitted empty: what it says is missing (and it creates nothing)
            empty = Move(name="submit the form empty", key=f"empty|{plan.submit['selector']}", steps=(plan.submit,))
            saving = _Saving(plan, typed, urlsplit(target.url).path)
            journey = self.journey(page, f"{page.slug}/journey-create-{target.slug}"[:120],
                                   f"create an item through {target.path} and find it",
                                   f"{page.path} links to the form on {target.path}: saving it with values the "
                                   f"form takes (corrected where the server refused them) must show the new item, and a "
                                   f"search must find it", [open_move, empty], extend=saving.next_move, through=target.id)
            if journey is None:
                continue
            yield journey
            if not saving.saved:
                continue
            # what the saved form refuses and the edges it keeps (refusals.py)
            yield from self.limits.explore(page, FormAt(
                form=plan.form, fields=plan.fields, submit=plan.submit, path=urlsplit(target.url).path,
                accepted=saving.values, typed=typed, said=saving.said, landing=saving.landing,
                search=saving.search), target)
            # the same form with the values it took, under the journey's own text: open the new row,
            # edit it, delete it (the one destructive exception: the journey's own item)
            text = crawl_text(2)
            values = {k: v.replace(typed, text) for k, v in saving.values.items()}
            save = Move(name=f"fill the form with '{text}' and save it", key=f"save|{plan.submit['selector']}",
                        typed=text, steps=plan.fill(values) + (plan.submit,))
            editing = _Editing(text, self.words)
            crud = self.journey(page, f"{page.slug}/journey-edit-{target.slug}"[:120],
                                f"create an item through {target.path}, edit it, delete it",
                                "the journey's own item: its page shows what was saved, an edit is kept, and its "
                                "delete removes it from the list", [open_move, save], extend=editing.next_move,
                                through=target.id)
            if crud is not None:
                yield crud


class _Editing:
    """After a save lands on the list: open the journey's own row, edit its text and save with
    the form's "continue editing" button, open its delete page, confirm there (the page names the
    journey's text: the one destructive exception). Each step is taken once, in that order."""

    def __init__(self, text: str, words: tuple[str, ...]):
        self.text = text
        #: the text the item was created with (its edit keeps it: "... 2 (edited)")
        self.created = text
        self.words = words
        self.done: list[str] = []

    def next_move(self, start: Observation, now: Observation, typed: list[str], effects: list[list[Effect]],
                  page: JourneyPage) -> Move | None:
        if not self.done:
            return self._step("open", self._open_row(now))
        if self.done == ["open"]:
            return self._step("edit", self._edit(now))
        if self.done == ["open", "edit"]:
            return self._step("delete", self._delete_link(now))
        if self.done == ["open", "edit", "delete"]:
            try:
                names_it = self.text in page.text()
                forms = page.survey().forms if names_it else ()
            except (PageError, InvalidSelector):
                return None
            return self._step("confirm", self._confirm(forms) if names_it else None)
        return None

    def _step(self, kind: str, move: Move | None) -> Move | None:
        if move is not None:
            self.done.append(kind)
        return move

    def _open_row(self, now: Observation) -> Move | None:
        for entry in now.lists:
            for row in entry.rows:
                if self.text not in row.text:
                    continue
                link = next((c for c in row.controls if c.kind == "link" and c.sel), None)
                if link is not None:
                    # the link by what it says, not by its href: the new row's id differs on every walk
                    own = self.text in link.name
                    sel = f"{row_selector(entry.sel, entry.item, self.text)} " + (
                        f"a:has-text({quote_text(self.text)})" if own else "a")
                    return Move(name=f"open '{self.text}'", key=f"open-row|{entry.sel}",
                                steps=({"type": "act", "action": "click", "target": f"the row '{self.text}'",
                                        "selector": sel},))
        return None

    @staticmethod
    def _controls(now: Observation, kind: str) -> list[tuple[Named, Control]]:
        return [(e, e.control) for e in now.elements if e.visible and e.control is not None and e.control.kind == kind]

    def _edit(self, now: Observation) -> Move | None:
        field = next((e for e, c in self._controls(now, "field") if (e.value or "") == self.text), None)
        keep = next((e for e, c in self._controls(now, "button")
                     if c.type == "submit" and "continue" in f"{c.name} {c.words}".lower()), None)
        if field is None or keep is None:
            return None
        edited = f"{self.text} (edited)"
        move = Move(name=f"edit '{self.text}' to '{edited}' and save, continuing to edit", key="edit", typed=edited,
                    field=field.sel, steps=(
                        {"type": "act", "action": "fill", "target": f"the field holding '{self.text}'",
                         "selector": field.sel, "value": edited},
                        {"type": "act", "action": "click", "target": "the save and continue editing button",
                         "selector": keep.sel}))
        self.text = edited
        return move

    def _delete_link(self, now: Observation) -> Move | None:
        """The item's own delete link: the one that says just that ("Delete"), before links that say
        more ("Delete selected author", a related object's)."""
        links: list[tuple[int, str, str]] = []
        for _element, control in self._controls(now, "link"):
            word = destructive_control(control, self.words)
            if word in ("delete", "remove") and control.name and '"' not in control.name:
                links.append((len(control.name.split()), control.name, word))
        if not links:
            return None
        _, name, word = min(links)
        return Move(name=f"open the {word} page of '{self.text}' (the journey's own item)", key="delete",
                    steps=({"type": "act", "action": "click", "target": f"the {name} link",
                            "selector": f"a:text-is({quote_text(name)})"},))

    def _confirm(self, forms: Sequence[Form]) -> Move | None:
        """The submit of the delete page's own form (Django's "Yes, I'm sure", posted to the page
        itself): not a button of the page's header (a theme toggle), nor its logout form."""
        for form in forms:
            word = destructive(form, self.words)
            selector = choose_selector(form.submit) if form.submit is not None and not form.search else None
            if selector is None or (word not in ("delete", "remove") and (word or form.action.strip() not in ("", "."))):
                continue
            return Move(name=f"confirm deleting '{self.text}' (the page names the journey's own item)", key="confirm",
                        removes=self.created, steps=({"type": "act", "action": "click", "target": "the confirm button",
                                                      "selector": selector},))
        return None


#: what a confirmation asks to be typed: "please enter the phrase DELETE in the box below"
_PHRASE = re.compile(r"\b(?:enter|type)\s+(?:the\s+(?:phrase|word|text)\s+)?[\"“'‘]?([^\s\"”'’]+)[\"”'’]?\s+(?:in|into)\b",
                     re.I)
_EDIT = re.compile(r"\b(edit|change|rename|update|modify)\b", re.I)


class _InScene:
    """A scene with a creating form that the control opened in place, one the page did not show at
    rest (`JourneyExplorer._in_scenes`): fill the fields the form left empty the way they ask (what
    it filled itself, a generated id or colour, keeps its value) and save; once the list shows the journey's row, open the row's edit control,
    change its text and save, open its delete control, and confirm on the scene that names the
    row, typing the phrase it asks for (the one destructive exception: the journey's own item)."""

    def __init__(self, words: tuple[str, ...], at_rest: set[str]):
        self.words = words
        #: the forms the page showed before the control was used: none of them is the scene's
        self.at_rest = at_rest
        self.text = self.created = crawl_text(1)
        self.done: list[str] = []
        #: the journey's row was listed after its save
        self.saved = False

    def listed(self) -> bool:
        return self.saved

    def next_move(self, start: Observation, now: Observation, typed: list[str], effects: list[list[Effect]],
                  page: JourneyPage) -> Move | None:
        try:
            step = {0: self._save, 1: self._open_edit, 2: self._edit, 3: self._open_delete, 4: self._confirm}.get(
                len(self.done))
            move = step(now, page) if step is not None else None
        except (PageError, InvalidSelector):
            return None
        if move is not None:
            self.done.append(move.key)
        return move

    def _save(self, now: Observation, page: JourneyPage) -> Move | None:
        plan = _form_plan(page.survey(), self.words, filled=True)
        if plan is None or plan.form in self.at_rest:
            return None   # a form the page showed at rest (an item's own change form) is not a scene's
        asks = page.form(plan.form)
        if asks is None:
            return None
        empty = tuple(f for f in asks.fields if not f.value and f.type not in ("select", "color"))
        values = first_values(replace(asks, fields=empty), 1)
        if self.text not in values.values():
            return None
        shown = "; ".join(f"{name} '{value}'" for name, value in values.items())[:200]
        return Move(name=f"fill the form ({shown}) and submit it", key="save", typed=self.text,
                    steps=plan.fill(values) + (plan.submit,))

    def _own_row(self, now: Observation) -> tuple[str, Row] | None:
        for entry in now.lists:
            for row in entry.rows:
                if self.text in row.text and row.visible:
                    return row_selector(entry.sel, entry.item, self.text), row
        return None

    def _row_control(self, now: Observation, delete: bool) -> Move | None:
        found = self._own_row(now)
        if found is None:
            return None
        row_sel, row = found
        for control in row.controls:
            word = destructive_control(control, self.words)
            said = f"{control.name} {control.words}"
            if not control.sel or control.kind not in ("link", "button") or (
                    word not in ("delete", "remove") if delete else (word or not _EDIT.search(said))):
                continue
            reach: tuple[Step, ...] = () if control.visible else (
                {"type": "act", "action": "hover", "target": f"the row '{self.text}'", "selector": row_sel},)
            what = control.name or control.sel
            return Move(name=(f"open the {word} control of '{self.text}' (the journey's own item)" if delete
                              else f"open the {what!r} control of '{self.text}'"),
                        key="open-delete" if delete else "open-edit",
                        steps=reach + ({"type": "act", "action": "click", "target": f"the {what} control of '{self.text}'",
                                        "selector": f"{row_sel} {control.sel}"},))
        return None

    def _open_edit(self, now: Observation, page: JourneyPage) -> Move | None:
        self.saved = self._own_row(now) is not None
        return self._row_control(now, delete=False) if self.saved else None

    def _edit(self, now: Observation, page: JourneyPage) -> Move | None:
        field = next((e for e in now.elements if e.visible and e.control is not None and e.control.kind == "field"
                      and (e.value or "") == self.text), None)
        save = next((e for e in now.elements if e.visible and e.control is not None and e.control.kind == "button"
                     and e.control.type == "submit" and not destructive_control(e.control, self.words)), None)
        plan = _form_plan(page.survey(), self.words, filled=True) if save is None else None
        submit = {"type": "act", "action": "click", "target": "the save button", "selector": save.sel} if save else (
            plan.submit if plan is not None else None)
        if field is None or submit is None:
            return None
        edited = f"{self.text} (edited)"
        move = Move(name=f"edit '{self.text}' to '{edited}' and save", key="edit", typed=edited, field=field.sel,
                    steps=({"type": "act", "action": "fill", "target": f"the field holding '{self.text}'",
                            "selector": field.sel, "value": edited}, submit))
        self.text = edited
        return move

    def _open_delete(self, now: Observation, page: JourneyPage) -> Move | None:
        return self._row_control(now, delete=True)

    def _confirm(self, now: Observation, page: JourneyPage) -> Move | None:
        text = page.text()
        if self.text not in text:
            return None   # the scene does not name the journey's item: nothing is confirmed
        steps: list[Step] = []
        phrase = _PHRASE.search(text)
        field = next((e for e in now.elements if e.visible and e.control is not None and e.control.kind == "field"
                      and not e.value), None)
        if phrase is not None and field is not None:
            steps.append({"type": "act", "action": "fill", "target": "the confirmation field", "selector": field.sel,
                          "value": phrase.group(1)})
        button = next((e.sel for e in now.elements if e.visible and e.control is not None
                       and e.control.kind == "button" and destructive_control(e.control, self.words)), None)
        if button is None:
            said = next((line.strip() for line in text.splitlines()
                         if line.strip().lower() in ("delete", "remove", "confirm", "yes, delete")), None)
            button = f"button:visible:text-is({quote_text(said)})" if said else None
        if button is None:
            return None
        steps.append({"type": "act", "action": "click", "target": "the confirm button", "selector": button})
        return Move(name=f"confirm deleting '{self.text}' (the scene names the journey's own item)", key="confirm",
                    removes=self.created, steps=tuple(steps))


def _source(target: CrawledPage, pages: Mapping[str, CrawledPage], edges: Sequence[Edge]) -> str:
    """The page a journey to `target`'s form starts on: of the pages linking to it, the one whose
    path is the longest start of the form page's (the list `/books/` for `/books/add/`), else the first."""
    sources = [e.from_ for e in edges if e.to == target.id and e.kind == "link" and e.selector and e.from_ in pages]
    if not sources:
        return ""
    path = urlsplit(target.url).path

    def shared(source: str) -> int:
        other = urlsplit(pages[source].url).path
        return len(other) if path.startswith(other) and other != path else 0

    return max(sources, key=lambda s: (shared(s), -sources.index(s)))


#: priorities that make branches of their own rather than steps of the main chain
BRANCH = (4, 5, 9)


def _priority_of(move: Move) -> int:
    kind = move.key.split("|", 1)[0]
    return {"row-edit": 4, "check": 5, "row-delete": 9}.get(kind, 6)


def _for_text(move: Move, text: str) -> Move:
    """The same move on the row carrying `text` (branches start from the first item alone)."""
    if not move.key.startswith("row-"):
        return move
    for other in (crawl_text(n) for n in range(1, 3)):
        quoted = quote_text(other)
        if quoted in str(move.steps):
            if other == text:
                return move
            steps = tuple(cast(Step, {k: (v.replace(quoted, quote_text(text)).replace(f"'{other}'", f"'{text}'")
                                          if isinstance(v, str) else v) for k, v in step.items()})
                          for step in move.steps)
            return Move(name=move.name.replace(other, text), key=move.key, steps=steps,
                        typed=move.typed.replace(other, text) if move.typed else None,
                        field=move.field.replace(quoted, quote_text(text)) if move.field else None)
    return move


def _steps_after(effects: list[list[Effect]]) -> int:
    return sum(min(len(e), LONG_CHECKS) + 2 for e in effects)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


@dataclass(frozen=True)
class FormPlan:
    """A creating form: its fields (name -> the step's selector, target and action), its submit."""

    form: str
    fields: Mapping[str, tuple[str, str, str]]
    submit: Step

    def fill(self, values: Mapping[str, str]) -> tuple[Step, ...]:
        """The steps that give the form's fields `values` (name -> value; names it has not are left out)."""
        return tuple({"type": "act", "action": self.fields[name][2], "target": self.fields[name][1],
                      "selector": self.fields[name][0], "value": value}
                     for name, value in values.items() if name in self.fields)


def _form_plan(survey: Survey, words: tuple[str, ...], *, filled: bool = False) -> FormPlan | None:
    """The page's one creating form (not a search, not an account form, showing no item's values
    unless `filled` says it opened from no item, asking for no file, not destructive, with a text
    field to carry the crawl's text), or None."""
    for form in survey.forms:
        if form.implicit or form.search or form_kind(form)[0] != "form" or any(f.type == "file" for f in form.fields):
            continue
        if not filled and any(f.value for f in form.fields if f.type not in ("select", "checkbox", "radio")):
            continue   # a form that shows an item's values edits that item: it creates nothing
        submit = form.submit
        if destructive(form, words) or (submit and destructive(submit, words)):
            continue
        submit_sel = choose_selector(submit) if submit else None
        if submit is None or submit_sel is None or submit.disabled:
            continue
        fields: dict[str, tuple[str, str, str]] = {}
        for f in form.fields:
            selector = choose_selector(f)
            if selector is not None and not f.disabled:
                fields[f.field_name or f.id] = (selector, target_of(f), "select" if f.type == "select" else "fill")
        if not any(f.type in ("text", "textarea", "") for f in form.fields):
            continue   # no text field: nothing would carry the crawl's text
        return FormPlan(form=choose_selector(form) or submit_sel, fields=fields,
                        submit={"type": "act", "action": "click", "target": target_of(submit), "selector": submit_sel})
    return None


#: saves tried in one journey: the first values, then corrections of what the server refused
SAVES = 3


class _Saving:
    """A journey's saves through a form: the first values (values.first_values), then, while the
    page refuses them and says why, the corrected ones (values.corrected), at most SAVES; once
    saved, a search for the text where the page it landed on has a search field."""

    def __init__(self, plan: FormPlan, typed: str, form_path: str):
        self.plan = plan
        self.typed = typed
        self.form_path = form_path
        self.values: dict[str, str] = {}
        self.saves = 0
        self.searched = False
        #: the last save was taken (the values are ones the form accepts)
        self.saved = False
        #: field -> what the page said of it while refusing a save
        self.said: dict[str, tuple[str, ...]] = {}
        #: where the save landed (its path) and that page's search field, once searched
        self.landing = ""
        self.search = ""

    def _save_move(self, values: dict[str, str]) -> Move:
        steps = self.plan.fill({name: value for name, value in values.items() if self.values.get(name) != value})
        first = not self.values
        self.values = dict(values)
        self.saves += 1
        shown = "; ".join(f"{name} '{value}'" for name, value in values.items())[:200]
        return Move(name=(f"fill the form ({shown}) and submit it" if first else f"correct what was refused ({shown}) and "
                          "submit again"), key=f"save-{self.saves}|{self.plan.submit['selector']}",
                    typed=self.typed, steps=steps + (self.plan.submit,))

    def next_move(self, start: Observation, now: Observation, typed: list[str], effects: list[list[Effect]],
                  page: JourneyPage) -> Move | None:
        try:
            asks = page.form(self.plan.form) if urlsplit(page.url).path == self.form_path else None
        except (PageError, InvalidSelector):
            return None
        if not self.saves:
            return self._save_move(first_values(asks, 1)) if asks is not None else None
        if asks is not None and (asks.errors or any(f.errors for f in asks.fields)):
            for f in asks.fields:
                if f.errors:
                    key = f.name or f.id
                    self.said[key] = tuple(dict.fromkeys(self.said.get(key, ()) + f.errors))
            fixed = corrected(asks, self.values, 1) if self.saves < SAVES else None
            return self._save_move(fixed) if fixed is not None else None
        self.saved = True
        if self.searched:
            return None
        field_sel = _search_field(now)
        if field_sel is None:
            return None
        self.searched = True
        self.landing, self.search = _path(page.url), field_sel
        return Move(name=f"search for '{self.typed}'", key=f"search|{field_sel}", typed=self.typed, field=field_sel,
                    steps=({"type": "act", "action": "fill", "target": "the search field", "selector": field_sel,
                            "value": self.typed},
                           {"type": "act", "action": "press", "target": "the search field", "selector": field_sel,
                            "value": "Enter"}))


def _search_field(state: Observation) -> str | None:
    """The page's search field: one that says it searches (or is named q) before a filter box."""
    found: list[tuple[int, str]] = []
    for element in state.elements:
        control = element.control
        if control is None or control.kind != "field" or not element.visible:
            continue
        words = f"{element.sel} {control.words}".lower()
        if any(w in words for w in ("search", "[name=\"q\"]", "query")):
            found.append((0, element.sel))
        elif control.type == "search" or "filter" in words:
            found.append((1, element.sel))
    return min(found)[1] if found else None
