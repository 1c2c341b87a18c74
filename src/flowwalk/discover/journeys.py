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
- **across pages**: from a page that links to a form page, open the form, fill it with the crawl's
  text, save, see where it lands (the list shows the new row, the message), then search for the
  text there when the page has a search field.

Each journey is walked twice, each time in a fresh browser context; an effect counts only when
both walks saw it with the same value (a timestamp, a generated id, a row count that grows with
every run is dropped and recorded). Destructive controls keep their rule (safety.py), with one
exception under `--submit-forms`: what the journey itself created may be deleted, when the
control sits in the row that carries the crawl's text, or when every row the page lists is one
the journey created.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import urljoin, urlsplit

from flowwalk.browser import InvalidSelector, NavigationBlocked, PageError, PageSession
from flowwalk.browser.errors import translating
from flowwalk.discover.effects import (LONG_CHECKS, Effect, agree, by_novelty, checks_per_move, diff_states,
                                       own_text, quote_text, row_selector, state_checks)
from flowwalk.discover.safety import destructive_word

__all__ = ["CRAWL_TEXT", "Journey", "JourneyExplorer", "Move", "crawl_text"]

#: what the crawl types: every item a journey creates carries it, so its own rows are recognisable
CRAWL_TEXT = "Written by flowwalk discover"
#: moves in one journey (the creates included)
MAX_MOVES = 9
#: journeys per page
MAX_JOURNEYS = 6
#: steps a flow spec may have (flow-spec v1)
SPEC_STEPS = 30
#: how long a move may keep the page busy before it is observed
SETTLE_MAX_MS = 2_000
QUIET_MS = 150


def crawl_text(n: int) -> str:
    return f"{CRAWL_TEXT} {n}"


@dataclass(frozen=True)
class Move:
    """One user action of a journey, as the spec steps that perform it."""

    name: str
    steps: tuple[dict[str, Any], ...]
    #: what makes two moves the same control (a move is taken once per page)
    key: str
    #: the text this move typed (the journey's own), and the field it typed it into
    typed: str | None = None
    field: str | None = None
    #: a reload: its checks are what is still there, not what changed
    reload: bool = False

    @property
    def pressed(self) -> str | None:
        """The selector of the control the move clicks (None: it types, selects or reloads)."""
        last = self.steps[-1] if self.steps else {}
        return last.get("selector") if last.get("action") in ("click", "check", "uncheck") else None


@dataclass
class Journey:
    """A chain of moves from a page's start state, each with the checks its effects gave."""

    id: str
    page: str
    name: str
    why: str
    moves: list[Move]
    effects: list[list[Effect]] = field(default_factory=list)
    #: effects one walk saw and the other did not (or saw with another value)
    dropped: list[str] = field(default_factory=list)
    #: effects recorded but not checkable in a spec (storage, requests)
    noted: list[str] = field(default_factory=list)
    #: the page id of the form a journey across pages created its item through
    through: str = ""

    def covers(self) -> list[str]:
        out: list[str] = []
        for move, effects in zip(self.moves, self.effects):
            shown = "; ".join(e.what for e in effects if e.check is not None) or "no checkable change"
            out.append(f"{move.name}: {shown}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "page": self.page, "name": self.name, "why": self.why,
                "moves": [{"name": m.name, "key": m.key, "steps": list(m.steps), "effects": [e.to_dict() for e in effects]}
                          for m, effects in zip(self.moves, self.effects)],
                "covers": self.covers(), "dropped": list(self.dropped), "noted": list(self.noted),
                **({"through": self.through} if self.through else {})}


Opener = Callable[[dict[str, Any]], PageSession]


class MoveFailed(Exception):
    """A move could not be made (its element is gone, the page would not answer)."""


class JourneyExplorer:
    """Explores one page's journeys in fresh sessions from `open_state(page)`."""

    def __init__(self, open_state: Opener, *, words: tuple[str, ...], action_timeout_ms: int,
                 navigation_timeout_ms: int, take_action: Callable[[], bool], progress: Callable[[str], None]):
        self.open_state = open_state
        self.words = words
        self.action_timeout_ms = action_timeout_ms
        self.navigation_timeout_ms = navigation_timeout_ms
        self.take_action = take_action
        self.progress = progress
        #: the create moves already explored (a form shown on several pages is explored once)
        self._explored: set[str] = set()

    # --- playing moves ----------------------------------------------------------------------------

    def _settle(self, session: PageSession) -> None:
        """Until no request is in flight for QUIET_MS (at most SETTLE_MAX_MS), then the load event."""
        deadline = time.monotonic() + SETTLE_MAX_MS / 1000
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            session.wait(50)
            if session.in_flight():
                quiet_since = time.monotonic()
            elif (time.monotonic() - quiet_since) * 1000 >= QUIET_MS:
                break
        try:
            with translating():
                session.playwright_page.wait_for_load_state("load", timeout=SETTLE_MAX_MS)
        except (PageError, InvalidSelector):
            pass

    def _play(self, session: PageSession, step: dict[str, Any]) -> None:
        from flowwalk.browser.locate import locate

        try:
            with translating():
                if step["type"] == "goto":
                    session.goto(urljoin(session.page.last_url(), step["url"]), timeout_ms=self.navigation_timeout_ms)
                    return
                found = locate(session.playwright_page, step["selector"])
                if found.count == 0:
                    raise MoveFailed(f"{step['selector']} matches nothing")
                target = found.locator.first
                action, timeout = step["action"], self.action_timeout_ms
                with session.translating():
                    if action == "click":
                        target.click(timeout=timeout)
                    elif action == "dblclick":
                        target.dblclick(timeout=timeout)
                    elif action == "hover":
                        target.hover(timeout=timeout)
                    elif action == "fill":
                        target.fill(step["value"], timeout=timeout)
                    elif action == "press":
                        target.press(step["value"], timeout=timeout)
                    elif action == "select":
                        target.select_option(step["value"], timeout=timeout)
                    elif action == "check":
                        target.check(timeout=timeout)
                    else:
                        raise MoveFailed(f"cannot play {action}")
                session.check_navigation()
        except (PageError, InvalidSelector, NavigationBlocked) as error:
            raise MoveFailed(str(error).splitlines()[0][:200] if str(error) else type(error).__name__) from None

    def _observe(self, session: PageSession) -> dict[str, Any]:
        try:
            with translating():
                return session.page.observe()
        except (PageError, InvalidSelector) as error:
            raise MoveFailed(f"the page could not be read: {str(error).splitlines()[0][:200]}") from None

    # --- one walk ---------------------------------------------------------------------------------

    def walk(self, page: dict[str, Any], moves: Sequence[Move], *,
             extend: Callable[[dict[str, Any], dict[str, Any], list[str], list[list[Effect]]], Move | None] | None = None,
             ) -> tuple[list[Move], list[list[Effect]], list[dict[str, Any]]]:
        """Play `moves` (then whatever `extend` picks, one at a time) from a fresh start state.

        Returns (moves played, effects of each, the observation after each). A move that cannot
        be made ends the walk there."""
        session = self.open_state(page)
        played: list[Move] = []
        effects: list[list[Effect]] = []
        states: list[dict[str, Any]] = []
        typed: list[str] = []
        try:
            self._settle(session)
            start = self._observe(session)
            now = start
            pending = list(moves)
            while len(played) < MAX_MOVES:
                move = pending.pop(0) if pending else (extend(start, now, typed, effects) if extend else None)
                if move is None or not self.take_action():
                    break
                known = {id(entry) for entry in session.network}
                try:
                    for step in move.steps:
                        self._play(session, step)
                    self._settle(session)
                    after = self._observe(session)
                except MoveFailed as failed:
                    self.progress(f"    {move.name}: {failed}")
                    break
                if move.typed:
                    typed.append(move.typed)
                requests = [entry for entry in session.network if id(entry) not in known]
                if move.reload:
                    found = state_checks(now, after, typed)
                else:
                    found = diff_states(now, after, typed=typed, acted=move.field, typed_value=move.typed,
                                        pressed=move.pressed, requests=requests)
                played.append(move)
                effects.append(found)
                states.append(after)
                now = after
        finally:
            session.close()
        return played, effects, states

    def journey(self, page: dict[str, Any], jid: str, name: str, why: str, moves: Sequence[Move], *,
                extend: Any = None) -> Journey | None:
        """Walk the moves twice; the journey keeps the effects both walks agreed on."""
        first_moves, first, _ = self.walk(page, moves, extend=extend)
        if not first_moves or not any(e.check for effects in first for e in effects):
            return None
        second_moves, second, _ = self.walk(page, first_moves)
        journey = Journey(id=jid, page=page["id"], name=name, why=why, moves=[])
        for index, move in enumerate(first_moves):
            if index >= len(second_moves):
                journey.dropped.append(f"{move.name}: the second walk could not make this move")
                break
            kept, dropped = agree(first[index], second[index])
            journey.moves.append(move)
            journey.effects.append([e for e in kept if e.check is not None])
            journey.noted.extend(f"{move.name}: {e.what}" for e in kept if e.check is None)
            journey.dropped.extend(f"{move.name}: {e.what} (the two walks differed)" for e in dropped
                                   if e.check is not None)
        # a journey ends with its last move that checks something
        while journey.moves and not journey.effects[-1]:
            journey.moves.pop()
            journey.effects.pop()
        if not journey.moves:
            return None
        # the checks each move keeps (generate.journey_spec) look at what the journey has not yet
        journey.effects = by_novelty(journey.effects, checks_per_move(len(journey.moves)))
        self.progress(f"  journey {name}: {len(journey.moves)} moves, "
                      f"{sum(len(e) for e in journey.effects)} checks")
        return journey

    # --- the journeys of one page -----------------------------------------------------------------

    def explore(self, page: dict[str, Any], pages: dict[str, dict[str, Any]], edges: list[dict[str, Any]]) -> list[Journey]:
        journeys: list[Journey] = []
        for journey in self._in_place(page):
            journeys.append(journey)
        for journey in self._across_pages(page, pages, edges):
            journeys.append(journey)
        return journeys[:MAX_JOURNEYS]

    def _creates(self, page: dict[str, Any]) -> Callable[[int], Move] | None:
        """The page's own way to add an item: a single field outside a form that takes Enter."""
        for form in page["survey"].get("forms") or ():
            if not form.get("implicit") or form.get("search") or destructive_word(form, self.words):
                continue
            fields = [f for f in form.get("fields") or () if f.get("type") in ("text", "textarea", "")]
            if len(fields) != 1:
                continue
            from flowwalk.discover.selectors import choose_selector, target_of

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

    def _in_place(self, page: dict[str, Any]) -> Iterator[Journey]:
        create = self._creates(page)
        if create is None or create(1).key in self._explored:
            return   # the same field on another page (TodoMVC's input on every route): explored once
        self._explored.add(create(1).key)
        slug = page["slug"]
        taken: set[str] = {f"create|{create(1).field}"}
        branches: dict[str, Move] = {}
        path = _path(page["url"])

        def extend(start: dict[str, Any], now: dict[str, Any], typed: list[str],
                   effects: list[list[Effect]]) -> Move | None:
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
            if own is None:
                continue
            kind = key.split("|", 1)[0]
            name, why = {
                "row-edit": ("add an item and edit it in place", "an item's text can be edited where it is shown"),
                "row-delete": ("add an item and delete it", "the item's own delete control, on the item the journey "
                                                           "just created"),
            }.get(kind, (f"add an item and {move.name}", "a control the first item revealed"))
            journey = self.journey(page, f"{slug}/journey-{kind}", name, why, [create(1), own])
            if journey is not None:
                yield journey
        if storing:
            # reload after the add, then after changing the item: each change must have been saved
            reload = Move(name="load the page again", key="reload", reload=True,
                          steps=({"type": "goto", "url": path},))
            moves = [create(1), reload]
            toggle = next((m for m in (chain.moves if chain else []) if m.key.startswith("row-check|")), None)
            own = _for_text(toggle, first_text) if toggle is not None else None
            if own is not None:
                moves += [own, reload]
            journey = self.journey(page, f"{slug}/journey-reload", "add an item, reload, change it, reload: it is kept",
                                   "the page saved what the journey did (storage or a request): a reload must show it",
                                   moves)
            if journey is not None:
                yield journey

    def _candidates(self, start: dict[str, Any], now: dict[str, Any], typed: list[str]) -> list[tuple[int, Move]]:
        """Moves the state `now` offers, with their priority (lower first; BRANCH ones are branches)."""
        out: list[tuple[int, Move]] = []
        start_rows = {entry["sel"]: len(entry.get("rows") or ()) for entry in start.get("lists") or ()}
        # the lists that hold the journey's items hold nothing else, and held nothing at the start:
        # a control that clears or removes on this page can only take what the journey created
        all_own = bool(typed)
        for entry in now.get("lists") or ():
            rows = entry.get("rows") or ()
            if any(own_text(r.get("text", ""), typed) for r in rows):
                all_own = all_own and start_rows.get(entry["sel"], 0) == 0 and all(
                    own_text(r.get("text", ""), typed) for r in rows)
        for entry in now.get("lists") or ():
            for row in entry.get("rows") or ():
                own = own_text(row.get("text", ""), typed)
                if own is None:
                    continue
                row_sel = row_selector(entry["sel"], entry["item"], own)
                for control in row.get("controls") or ():
                    if not control.get("sel"):
                        continue
                    sel = f"{row_sel} {control['sel']}"
                    word = destructive_word({"name": control.get("name"), "text": control.get("words")}, self.words)
                    reach = () if control.get("visible") else ({"type": "act", "action": "hover",
                                                                 "target": f"the row '{own}'", "selector": row_sel},)
                    what = control.get("name") or control["sel"]
                    if control.get("kind") == "checkbox":
                        out.append((1, Move(name=f"tick the checkbox of '{own}'", key=f"row-check|{entry['sel']}|{control['sel']}",
                                            steps=reach + ({"type": "act", "action": "click",
                                                            "target": f"the checkbox of '{own}'", "selector": sel},))))
                    elif control.get("kind") == "field" and not control.get("visible") and row.get("label"):
                        new = f"{own} (edited)"
                        label = f"{row_sel} {row['label']}"
                        out.append((4, Move(name=f"edit '{own}' to '{new}'", key=f"row-edit|{entry['sel']}|{control['sel']}",
                                            typed=new, field=sel, steps=(
                                                {"type": "act", "action": "dblclick", "target": f"the text of '{own}'",
                                                 "selector": label},
                                                {"type": "act", "action": "fill", "target": f"the edit field of '{own}'",
                                                 "selector": sel, "value": new},
                                                {"type": "act", "action": "press", "target": f"the edit field of '{own}'",
                                                 "selector": sel, "value": "Enter"}))))
                    elif control.get("kind") == "button" and word:
                        # the one destructive exception: the control of the row the journey created
                        out.append((9, Move(name=f"delete '{own}' with its own {what!r} control ({word})",
                                            key=f"row-delete|{entry['sel']}|{control['sel']}",
                                            steps=reach + ({"type": "act", "action": "click",
                                                            "target": f"the {word} control of '{own}'", "selector": sel},))))
        start_visible = {e["sel"] for e in start.get("elements") or () if e.get("visible")}
        here = urlsplit(str(now.get("url") or ""))
        for element in now.get("elements") or ():
            control = element.get("control")
            if not control or not element.get("visible") or element["sel"] in start_visible:
                continue
            word = destructive_word({"name": control.get("name"), "text": control.get("words")}, self.words)
            name = control.get("name") or element["sel"]
            step = {"type": "act", "action": "click", "target": f"the {name} {control.get('kind')}",
                    "selector": element["sel"]}
            if control.get("kind") == "link":
                href = urlsplit(str(control.get("href") or ""))
                if word or (href.scheme, href.netloc, href.path, href.query) != (here.scheme, here.netloc, here.path, here.query) \
                        or not href.fragment.startswith(("/", "!")):
                    continue
                out.append((2, Move(name=f"open '{name}'", key=f"link|{element['sel']}", steps=(step,))))
            elif control.get("kind") == "checkbox":
                out.append((5, Move(name=f"tick '{name}'", key=f"check|{element['sel']}", steps=(step,))))
            elif control.get("kind") == "button" and control.get("type") not in ("submit", "reset"):
                if not word:
                    out.append((3, Move(name=f"press '{name}'", key=f"button|{element['sel']}", steps=(step,))))
                elif all_own:
                    # it can only clear what the journey created: the page lists nothing else
                    out.append((8, Move(name=f"press '{name}' ({word}; the page lists only the journey's items)",
                                        key=f"clear|{element['sel']}", steps=(step,))))
        return out

    def _across_pages(self, page: dict[str, Any], pages: dict[str, dict[str, Any]],
                      edges: list[dict[str, Any]]) -> Iterator[Journey]:
        """From this page, a link to a page with a form: open it, fill it with the crawl's text, save."""
        for edge in edges:
            if edge.get("from") != page["id"] or edge.get("kind") != "link" or not edge.get("selector"):
                continue
            target = pages.get(edge["to"])
            if target is None or target.get("_create_claimed") or _source(target, pages, edges) != page["id"]:
                continue
            fill = _form_fill(target, self.words)
            if fill is None:
                continue
            target["_create_claimed"] = True
            steps, submit, typed = fill
            open_move = Move(name=f"open '{edge.get('name') or target['path']}'", key=f"open|{edge['selector']}",
                             steps=({"type": "act", "action": "click", "target": f"the {edge.get('name') or 'add'} link",
                                     "selector": edge["selector"]},))
            save = Move(name=f"fill the form with '{typed}' and submit it", key=f"save|{submit['selector']}",
                        typed=typed, steps=tuple(steps) + (submit,))
            # first the form as it is, submitted empty: what it says is missing (and it creates nothing)
            empty = Move(name="submit the form empty", key=f"empty|{submit['selector']}", steps=(submit,))
            searched: list[Move] = []

            def extend(start: dict[str, Any], now: dict[str, Any], typed_so_far: list[str],
                       effects: list[list[Effect]], searched: list[Move] = searched) -> Move | None:
                if searched or len(effects) < 3:
                    return None
                field_sel = _search_field(now)
                if field_sel is None:
                    return None
                move = Move(name=f"search for '{typed}'", key=f"search|{field_sel}", typed=typed, field=field_sel,
                            steps=({"type": "act", "action": "fill", "target": "the search field", "selector": field_sel,
                                    "value": typed},
                                   {"type": "act", "action": "press", "target": "the search field", "selector": field_sel,
                                    "value": "Enter"}))
                searched.append(move)
                return move

            journey = self.journey(page, f"{page['slug']}/journey-create-{target['slug']}"[:120],
                                   f"create an item through {target['path']} and find it",
                                   f"{page['path']} links to the form on {target['path']}: saving it with the crawl's "
                                   f"text must show the new item, and a search must find it",
                                   [open_move, empty, save], extend=extend)
            if journey is not None:
                journey.through = target["id"]
                yield journey


def _source(target: dict[str, Any], pages: dict[str, dict[str, Any]], edges: list[dict[str, Any]]) -> str:
    """The page a journey to `target`'s form starts on: of the pages linking to it, the one whose
    path is the longest start of the form page's (the list `/books/` for `/books/add/`), else the first."""
    sources = [e["from"] for e in edges if e.get("to") == target["id"] and e.get("kind") == "link" and e.get("selector")
               and e.get("from") in pages]
    if not sources:
        return ""
    path = urlsplit(target["url"]).path

    def shared(source: str) -> int:
        other = urlsplit(pages[source]["url"]).path
        return len(other) if path.startswith(other) and other != path else 0

    return str(max(sources, key=lambda s: (shared(s), -sources.index(s))))


#: priorities that make branches of their own rather than steps of the main chain
BRANCH = (4, 5, 9)


def _priority_of(move: Move) -> int:
    kind = move.key.split("|", 1)[0]
    return {"row-edit": 4, "check": 5, "row-delete": 9}.get(kind, 6)


def _for_text(move: Move, text: str) -> Move | None:
    """The same move on the row carrying `text` (branches start from the first item alone)."""
    if not move.key.startswith("row-"):
        return move
    for other in (crawl_text(n) for n in range(1, 3)):
        quoted = quote_text(other)
        if quoted in str(move.steps):
            if other == text:
                return move
            steps = tuple({k: (v.replace(quoted, quote_text(text)).replace(f"'{other}'", f"'{text}'")
                               if isinstance(v, str) else v) for k, v in step.items()} for step in move.steps)
            return Move(name=move.name.replace(other, text), key=move.key, steps=steps,
                        typed=move.typed.replace(other, text) if move.typed else None,
                        field=move.field.replace(quoted, quote_text(text)) if move.field else None)
    return move


def _steps_after(effects: list[list[Effect]]) -> int:
    return sum(min(len(e), LONG_CHECKS) + 2 for e in effects)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _form_fill(page: dict[str, Any], words: tuple[str, ...]) -> tuple[list[dict[str, Any]], dict[str, Any], str] | None:
    """(fill steps, the submit step, the text typed) for the page's one creating form, or None."""
    from flowwalk.discover.features import form_kind
    from flowwalk.discover.generate import SAMPLE_VALUES
    from flowwalk.discover.selectors import choose_selector, target_of

    for form in page["survey"].get("forms") or ():
        if form.get("implicit") or form.get("search") or form_kind(form)[0] != "form":
            continue
        if any(f.get("value") for f in form.get("fields") or () if f.get("type") not in ("select", "checkbox", "radio")):
            continue   # a form that shows an item's values edits that item: it creates nothing
        if destructive_word(form, words) or (form.get("submit") and destructive_word(form["submit"], words)):
            continue
        submit = form.get("submit")
        submit_sel = choose_selector(submit) if submit else None
        if submit_sel is None or submit.get("disabled"):
            continue
        text = crawl_text(1)
        steps: list[dict[str, Any]] = []
        first = True
        for f in form.get("fields") or ():
            selector = choose_selector(f)
            ftype = str(f.get("type") or "text")
            if selector is None or f.get("disabled"):
                if f.get("required"):
                    break
                continue
            if ftype in ("text", "textarea", "search"):
                value = text if first else f"{text} {str(f.get('field_name') or f.get('name') or 'note').lower()}"
                first = False
                steps.append({"type": "act", "action": "fill", "target": target_of(f), "selector": selector, "value": value})
            elif ftype in SAMPLE_VALUES:
                steps.append({"type": "act", "action": "fill", "target": target_of(f), "selector": selector,
                              "value": SAMPLE_VALUES[ftype]})
            elif ftype == "select":
                option = next((o for o in f.get("options") or () if o.get("value")), None)
                if option is None:
                    if f.get("required"):
                        break
                    continue
                steps.append({"type": "act", "action": "select", "target": target_of(f), "selector": selector,
                              "value": option["value"]})
            elif f.get("required"):
                break
        else:
            if first:
                continue   # no text field: nothing would carry the crawl's text
            return steps, {"type": "act", "action": "click", "target": target_of(submit), "selector": submit_sel}, text
    return None



def _search_field(state: dict[str, Any]) -> str | None:
    for element in state.get("elements") or ():
        control = element.get("control") or {}
        if control.get("kind") != "field" or not element.get("visible"):
            continue
        words = f"{element['sel']} {control.get('words', '')}".lower()
        if control.get("type") == "search" or any(w in words for w in ("search", "[name=\"q\"]", "query", "filter")):
            return str(element["sel"])
    return None


