"""Effects: what an action changed, read from two observations of the page, and the checks that say so.

Pure functions over `browser.explored.Observation` records. `diff_states(before, after, ...)` lists what
changed between the observation before an action and the one after it: a list gained or lost
rows (or showed fewer of them), a row the journey created got or lost a class or had its checkbox
ticked, a counter's text changed, an element appeared or went away, a control's state changed
(`checked`, `aria-pressed`, a class such as `selected`), the URL, the field typed into was
cleared, a message appeared, local or session storage changed, a request was sent. Each effect
that a spec can check carries the `expect` step that checks it; the current app is the oracle, so
these are regression checks. What only echoes the input (the field holds what was typed) is not
an effect.

`agree(first, second)` keeps the effects two walks of the same actions both saw with the same
value (a timestamp, a random id or a row count that grows on every run is dropped), and says
which were dropped.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence
from urllib.parse import urlsplit

from flowwalk.browser.explored import Named, ObservedList, Observation, Request, Row
from flowwalk.discover.state import Effect, Step

__all__ = ["Effect", "agree", "by_novelty", "checks_per_move", "diff_states", "kept_checks", "own_text", "quote_text",
           "removal_checks", "row_selector", "state_checks", "url_check"]

#: checks a move keeps, its most telling first (a long journey keeps LONG_CHECKS a move)
CHECKS_PER_ACTION = 4
LONG_CHECKS = 3


def checks_per_move(moves: int) -> int:
    """How many checks each move of a journey of `moves` moves keeps (its spec, its record, and
    `by_novelty`'s choice all take this many)."""
    return CHECKS_PER_ACTION if moves <= 3 else LONG_CHECKS


def kept_checks(effects: Sequence[Effect], per_move: int) -> list[Effect]:
    """The checks a move's spec keeps: its first `per_move`, or all its removal checks when it has
    more of them (a delete of the journey's own item is never written without them)."""
    checking = [e for e in effects if e.check is not None]
    return checking[:max(per_move, sum(1 for e in checking if e.kind == "removed"))]


#: longest text a `has_text` check pins exactly (longer texts are checked with text_contains)
EXACT_TEXT = 80
#: class names that say how a row looks under the mouse or while focused, not what state it is in
_TRANSIENT_CLASSES = {"hover", "focus", "focused", "active", "animating", "fade", "show", "in", "ng-touched",
                      "ng-dirty", "ng-pristine", "ng-untouched", "hidden", "is-hidden", "d-none", "visible"}


def _effect(kind: str, what: str, check: Step | None, rank: int) -> Effect:
    key = json.dumps([kind, check if check is not None else what], sort_keys=True, ensure_ascii=False)
    return Effect(kind=kind, what=what, check=check, rank=rank, key=key)


def quote_text(text: str) -> str:
    """A string as a quoted CSS/Playwright argument: `"a \\"b\\""`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def row_selector(list_sel: str, item: str, text: str) -> str:
    """The row of a list that carries `text`: `#todo-list > li:has-text("Buy milk")`."""
    last = item.split(">")[-1].strip()
    head = item[: len(item) - len(last)]
    return f"{list_sel} > {head}{last}:has-text({quote_text(text)})"


def url_check(url: str) -> Step:
    """The check that the page is at `url`: its hash route, else its path (and query)."""
    parts = urlsplit(url)
    if parts.fragment.startswith(("/", "!")):
        return {"type": "expect", "kind": "url_contains", "value": "#" + parts.fragment}
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return {"type": "expect", "kind": "url_contains", "value": path}


def _visible_rows(entry: ObservedList | None) -> list[Row]:
    return [r for r in entry.rows if r.visible] if entry is not None else []


def own_text(text: str, typed: Sequence[str]) -> str | None:
    """The typed text (the crawl's own) a row carries, longest first: 'X 1 (edited)' is X 1's."""
    for value in sorted(typed, key=len, reverse=True):
        if value and value in text:
            return value
    return None


def _list_effects(before: ObservedList | None, after: ObservedList, typed: Sequence[str]) -> list[Effect]:
    out: list[Effect] = []
    sel, item = after.sel, after.item
    visible_sel = f"{sel} > {item}:visible"
    was = before.count if before is not None and before.visible else 0
    now = after.count if after.visible else 0
    if was != now:
        mine = any(own_text(r.text, typed) for r in [*after.rows, *(before.rows if before is not None else ())])
        out.append(_effect("count", f"{sel} shows {now} {'row' if now == 1 else 'rows'} (was {was})",
                           {"type": "expect", "kind": "count", "selector": visible_sel, "equals": now}, 0 if mine else 5))
    old_rows = {r.text: r for r in _visible_rows(before)} if before is not None and before.visible else {}
    new_rows = {r.text: r for r in _visible_rows(after)} if after.visible else {}
    for text in new_rows:
        if text in old_rows or not text:
            continue
        own = own_text(text, typed)
        if own is not None and not any(own in t for t in old_rows):
            out.append(_effect("row_added", f"{sel} shows the row '{text[:80]}'",
                               {"type": "expect", "kind": "text_contains", "value": own, "selector": sel}, 0))
        elif own is not None:
            out.append(_effect("row_text", f"the row '{own[:60]}' now reads '{text[:80]}'",
                               {"type": "expect", "kind": "text_contains", "value": text[:120], "selector": sel}, 1))
    for text in old_rows:
        own = own_text(text, typed)
        if own is None or any(own in t for t in new_rows):
            continue
        out.append(_effect("row_gone", f"{sel} no longer shows '{text[:80]}'",
                           {"type": "expect", "kind": "text_not_contains", "value": own, "selector": sel}, 1))
    # the journey's own rows: their classes and checkboxes
    old_all = {(own_text(r.text, typed) or ""): r for r in (before.rows if before is not None else ())}
    for row in after.rows:
        own = own_text(row.text, typed)
        if own is None or own not in old_all or not row.visible:
            continue
        prior = old_all[own]
        row_sel = row_selector(sel, item, own)
        gained = [c for c in row.classes if c not in prior.classes and c not in _TRANSIENT_CLASSES]
        lost = [c for c in prior.classes if c not in row.classes and c not in _TRANSIENT_CLASSES]
        for cls in gained[:1]:
            out.append(_effect("row_class", f"the row '{own[:60]}' got the class '{cls}'",
                               {"type": "expect", "kind": "attribute", "selector": row_sel, "name": "class",
                                "contains": cls}, 1))
        for cls in lost[:1]:
            gone_sel = row_selector(sel, f"{item}.{cls}", own)
            out.append(_effect("row_class", f"the row '{own[:60]}' lost the class '{cls}'",
                               {"type": "expect", "kind": "selector_absent", "selector": gone_sel}, 1))
        prior_controls = {c.sel: c for c in prior.controls if c.sel}
        for control in row.controls:
            old = prior_controls.get(control.sel)
            if old is None or control.kind != "checkbox":
                continue
            was_checked, is_checked = old.state.get("checked"), control.state.get("checked")
            if was_checked is not None and is_checked is not None and was_checked != is_checked:
                out.append(_effect("row_checked", f"the checkbox of '{own[:60]}' is {'on' if is_checked else 'off'}",
                                   {"type": "expect", "kind": "checked" if is_checked else "unchecked",
                                    "selector": f"{row_sel} {control.sel}"}, 1))
    return out


def _element_effects(before: Named | None, after: Named | None, acted: str | None,
                     typed_value: str | None, pressed: str | None = None) -> list[Effect]:
    out: list[Effect] = []
    shown = after or before
    assert shown is not None
    sel = shown.sel
    # the control the move pressed showing its new state (a filter link now `selected`, a toggle
    # now `aria-pressed`) is what the user sees answer the press: as telling as a text that changed
    own_state = 3 if pressed is not None and sel == pressed else 5
    was_visible = before is not None and before.visible
    is_visible = after is not None and after.visible
    if after is not None and sel == acted and typed_value is not None:
        value = after.value
        if value is not None and value != typed_value:
            out.append(_effect("cleared" if value == "" else "value", f"{sel} holds '{value[:60]}' after the action",
                               {"type": "expect", "kind": "input_value", "selector": sel, "value": value}, 4))
        return out
    if after is not None and is_visible and not was_visible:
        text = after.text
        if text and len(text) <= EXACT_TEXT:
            out.append(_effect("appeared", f"{sel} appeared, reading '{text}'",
                               {"type": "expect", "kind": "has_text", "selector": sel, "value": text}, 3))
        else:
            out.append(_effect("appeared", f"{sel} appeared", {"type": "expect", "kind": "visible", "selector": sel}, 6))
        return out
    if was_visible and not is_visible:
        out.append(_effect("disappeared", f"{sel} went away", {"type": "expect", "kind": "hidden", "selector": sel}, 6))
        return out
    if before is None or after is None or not (was_visible and is_visible):
        return out
    if before.text != after.text and after.text and sel != acted:
        text = after.text
        check: Step = ({"type": "expect", "kind": "has_text", "selector": sel, "value": text} if len(text) <= EXACT_TEXT
                       else {"type": "expect", "kind": "text_contains", "selector": sel, "value": text[:120]})
        out.append(_effect("text", f"{sel} reads '{text[:80]}' (was '{before.text[:80]}')", check, 3))
    old_state, new_state = before.state, after.state
    if "checked" in new_state and old_state.get("checked") != new_state["checked"]:
        out.append(_effect("checked", f"{sel} is {'checked' if new_state['checked'] else 'unchecked'}",
                           {"type": "expect", "kind": "checked" if new_state["checked"] else "unchecked",
                            "selector": sel}, 5))
    for name in ("aria-pressed", "aria-expanded", "aria-selected", "aria-current", "aria-checked"):
        if name in new_state and old_state.get(name) != new_state[name]:
            out.append(_effect("state", f"{sel} {name}={new_state[name]}",
                               {"type": "expect", "kind": "attribute", "selector": sel, "name": name,
                                "equals": str(new_state[name])}, own_state))
    if after.control is not None:
        for cls in [c for c in after.classes if c not in before.classes and c not in _TRANSIENT_CLASSES][:1]:
            out.append(_effect("class", f"{sel} got the class '{cls}'",
                               {"type": "expect", "kind": "attribute", "selector": sel, "name": "class",
                                "contains": cls}, own_state))
    return out


def diff_states(before: Observation, after: Observation, *, typed: Sequence[str] = (),
                acted: str | None = None, typed_value: str | None = None, pressed: str | None = None,
                requests: Iterable[Request] = ()) -> list[Effect]:
    """What changed from `before` to `after` (see the module docstring), most telling first.

    `typed`: every text the journey typed so far (its rows are recognised by them); `acted`: the
    selector of the field typed into by this action and `typed_value` what was typed there;
    `pressed`: the selector of the control it clicked, if it clicked one.
    """
    out: list[Effect] = []
    if before.url != after.url:
        out.append(_effect("url", f"the URL became {after.url}", url_check(after.url), 2))
    old_lists = {entry.sel: entry for entry in before.lists}
    if _document(before) != _document(after):
        # another page: what was on the last one is no news. Where it landed, what it says, and
        # the journey's own rows there are
        if after.heading and after.heading != before.heading:
            out.append(_effect("heading", f"the page's heading reads '{after.heading[:80]}'",
                               {"type": "expect", "kind": "text_contains", "selector": "h1",
                                "value": after.heading[:120]}, 2))
        for message in after.messages:
            out.append(_effect("message", f"the page says '{message[:120]}'",
                               {"type": "expect", "kind": "text_contains", "value": message[:120]}, 1))
        for entry in after.lists:
            out.extend(e for e in _list_effects(None, entry, typed) if e.kind == "row_added")
        out.extend(_noted(before, after, requests))
        return _ranked(out)
    for entry in after.lists:
        out.extend(_list_effects(old_lists.get(entry.sel), entry, typed))
        if typed_value and any(typed_value in r.text for r in _visible_rows(entry)):
            # what was typed (a search, an edit) is what the list shows now, and a row it no
            # longer shows is what the search left out
            out.append(_effect("row_added", f"{entry.sel} shows '{typed_value[:80]}'",
                               {"type": "expect", "kind": "text_contains", "value": typed_value,
                                "selector": entry.sel}, 0))
            shown = {r.text for r in _visible_rows(entry)}
            left = [r.text for r in _visible_rows(old_lists.get(entry.sel))
                    if r.text not in shown and not own_text(r.text, typed)]
            if left and left[0]:
                out.append(_effect("row_gone", f"{entry.sel} no longer shows '{left[0][:80]}'",
                                   {"type": "expect", "kind": "text_not_contains", "value": left[0][:60],
                                    "selector": entry.sel}, 1))
    new_lists = {entry.sel for entry in after.lists}
    for sel, gone in old_lists.items():
        if sel not in new_lists and gone.count:
            out.append(_effect("count", f"{sel} went away", {"type": "expect", "kind": "hidden", "selector": sel}, 2))
    old_elements = {e.sel: e for e in before.elements}
    new_elements = {e.sel: e for e in after.elements}
    for sel, element in new_elements.items():
        out.extend(_element_effects(old_elements.get(sel), element, acted, typed_value, pressed))
    for sel, element in old_elements.items():
        if sel not in new_elements:
            out.extend(_element_effects(element, None, acted, typed_value))
    old_messages = set(before.messages)
    for message in after.messages:
        if message not in old_messages:
            out.append(_effect("message", f"the page says '{message[:120]}'",
                               {"type": "expect", "kind": "text_contains", "value": message[:120]}, 2))
    out.extend(_noted(before, after, requests))
    return _ranked(out)


def removal_checks(seen: Sequence[Observation], after: Observation, text: str) -> list[Effect]:
    """What a move that deletes the journey's own item (`text`) must leave: each list that last
    showed a row with `text` (the latest of `seen` that did) is shown, without that row, and its
    count.

    Read against that observation, not the one just before the move: a delete confirmed on a
    scene or page of its own starts where the list is out of view, so a list showing the row
    again (a delete that did nothing) differs from nothing the move's own diff looks at. The list
    shown comes first: a single-page app hides it while it loads it again, and a hidden list
    shows no row."""
    for state in reversed(seen):
        showing = {entry.sel: entry for entry in state.lists if any(text in r.text for r in _visible_rows(entry))}
        if showing:
            break
    else:
        return []
    out: list[Effect] = []
    for entry in after.lists:
        prior = showing.get(entry.sel)
        if prior is None or not entry.visible or any(text in r.text for r in _visible_rows(entry)):
            continue
        changed = [e for e in _list_effects(prior, entry, (text,)) if e.kind in ("row_gone", "count")]
        if changed:
            out.append(_effect("removed", f"{entry.sel} is shown", {"type": "expect", "kind": "visible",
                                                                    "selector": entry.sel}, 0))
            out.extend(_effect("removed", e.what, e.check, 0)
                       for e in sorted(changed, key=lambda e: e.kind != "row_gone"))
    return out


def _document(state: Observation) -> tuple[str, ...]:
    parts = urlsplit(state.url)
    return parts.scheme, parts.netloc, parts.path


def _noted(before: Observation, after: Observation, requests: Iterable[Request]) -> list[Effect]:
    """Storage that changed and requests that were sent: recorded, not checked."""
    out: list[Effect] = []
    for area, old, new in (("local", before.local, after.local), ("session", before.session, after.session)):
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                verb = "gained" if key not in old else "lost" if key not in new else "changed"
                out.append(_effect("storage", f"{area}Storage {verb} '{key}'", None, 9))
    for request in requests:
        method = request.method or "GET"
        if method != "GET" or request.resource_type in ("xhr", "fetch"):
            path = urlsplit(request.url).path or "/"
            out.append(_effect("request", f"{method} {path} answered {request.status}", None, 9))
    return out


def _ranked(out: list[Effect]) -> list[Effect]:
    """One check per selector and kind, most telling first; stable order within a rank."""
    seen: set[str] = set()
    unique: list[Effect] = []
    for effect in sorted(out, key=lambda e: e.rank):
        if effect.key in seen:
            continue
        seen.add(effect.key)
        unique.append(effect)
    return unique


#: how much less telling a check is when an earlier move of its journey already checked the same
#: thing (the same kind of check of the same element, or the URL): a move's few checks go to what
#: the journey has not looked at yet before they repeat what it has
REPEAT_RANK = 2


def _aspect(check: Step) -> tuple[str, str]:
    kind = str(check.get("kind"))
    if kind.startswith("url_"):
        return ("url", "")
    return (kind, check.get("selector") or check.get("value") or "")


def by_novelty(moves: Sequence[Sequence[Effect]], per_move: int) -> list[list[Effect]]:
    """Each move's effects reordered so that its first `per_move` (the checks its spec keeps) are
    the most telling once REPEAT_RANK is added to what an earlier move's kept checks already
    looked at. Nothing is dropped; within a rank the order stays as it was.

    On TodoMVC the second add kept "2 items left", which the first add's "1 item left" had
    already looked at, over the field being cleared, which nothing looked at (a bug leaving the
    text in the field went uncaught); the Active filter kept the URL, checked one move before,
    over its link becoming `selected`."""
    seen: set[tuple[str, str]] = set()
    out: list[list[Effect]] = []
    for effects in moves:
        def rank(indexed: tuple[int, Effect]) -> tuple[int, int]:
            index, effect = indexed
            # the journey's own item gone from its list is the point of its delete, however often
            # the journey looked at that list before
            repeat = effect.kind != "removed" and effect.check is not None and _aspect(effect.check) in seen
            return (effect.rank + (REPEAT_RANK if repeat else 0), index)
        ordered = [e for _, e in sorted(enumerate(effects), key=rank)]
        seen.update(_aspect(e.check) for e in ordered[:per_move] if e.check is not None)
        out.append(ordered)
    return out


def agree(first: Sequence[Effect], second: Sequence[Effect]) -> tuple[list[Effect], list[Effect]]:
    """(kept, dropped): the effects both walks saw with the same value, and those only one saw."""
    keys = {e.key for e in second}
    kept = [e for e in first if e.key in keys]
    dropped = [e for e in first if e.key not in keys]
    return kept, dropped


def state_checks(before: Observation, after: Observation, typed: Sequence[str]) -> list[Effect]:
    """What a reload must keep: the journey's rows that `before` showed, read in `after` (the
    rows, the list's count, each row's classes and checkbox)."""
    out: list[Effect] = []
    old_lists = {entry.sel: entry for entry in before.lists}
    for entry in after.lists:
        prior = old_lists.get(entry.sel)
        if prior is None or not any(own_text(r.text, typed) for r in _visible_rows(prior)):
            continue
        sel, item = entry.sel, entry.item
        out.append(_effect("kept", f"{sel} still shows {entry.count} rows",
                           {"type": "expect", "kind": "count", "selector": f"{sel} > {item}:visible",
                            "equals": entry.count}, 0))
        for row in _visible_rows(entry):
            own = own_text(row.text, typed)
            if own is None:
                continue
            row_sel = row_selector(sel, item, own)
            out.append(_effect("kept", f"the row '{own[:60]}' is still there",
                               {"type": "expect", "kind": "text_contains", "value": row.text[:120],
                                "selector": sel}, 0))
            for cls in [c for c in row.classes if c not in _TRANSIENT_CLASSES][:1]:
                out.append(_effect("kept", f"the row '{own[:60]}' still has the class '{cls}'",
                                   {"type": "expect", "kind": "attribute", "selector": row_sel, "name": "class",
                                    "contains": cls}, 1))
            for control in row.controls:
                checked = control.state.get("checked")
                if control.kind == "checkbox" and control.sel and checked is not None:
                    out.append(_effect("kept", f"the checkbox of '{own[:60]}' is still {'on' if checked else 'off'}",
                                       {"type": "expect", "kind": "checked" if checked else "unchecked",
                                        "selector": f"{row_sel} {control.sel}"}, 1))
                    break
    return out
