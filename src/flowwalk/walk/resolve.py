"""Deterministic re-resolution of a step's `target` ("the sign-up button") on the live page.

When an act has no pinned selector, the walker asks `resolve_target`; when its pinned selector
matches nothing, the healer (walk/healer.py) ranks the same candidates (`rank_target`). No model
is involved here: the description is reduced to a name (quotes, leading articles and role words such as
"button" or "field" removed; role words become a hint), and Playwright's own engines are asked for
elements by accessible role and name, label, placeholder, visible text (exact, then substring),
title, alt text and test id. Names match case-insensitively with any punctuation or spacing
between words ("sign-up" finds "Sign up").

Ranking (higher wins): exact accessible name 100 > label 90 > placeholder 80 > exact text 70 >
substring of a name, label or text 60 > title / alt / test id 50 > a lone element of the hinted
role 30; +8 when the element has the role the description hints, -30 when the description hints a
role and the element has another (a label found by its text is never "the checkbox"); -5 when
disabled; -40 when not visible. For a description that hints a role, an element found by its
words (label, text) also proposes the one element of that role in its nearest container, or the
control a `<label>` names (`near`, 60): `checkbox of "Write report"` finds the todo's checkbox.
Strategies that find the same elements are merged. The best candidate is used only if it is
visible, matches exactly one element, and scores strictly higher than the next visible candidate; otherwise `selector` is None and `reason` says why. Up to 10 ranked candidates are kept
as evidence, each with its selector, strategy, score, count and visibility. Strategies that cannot
reach the best visible score found so far are not asked (they could not change the pick), so a
clear winner costs a handful of queries instead of thirty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from flowwalk.browser.errors import InvalidSelector, PageError, PageGone
from flowwalk.browser.records import Reader, Seen

__all__ = ["TargetResolution", "Candidate", "resolve_target", "rank_target", "describe"]

ROLES = ("button", "link", "textbox", "searchbox", "checkbox", "radio", "combobox", "heading", "tab", "menuitem")
KEPT = 10
MAX_ELEMENTS = 20

#: words in a description that hint at a role, longest first (they are removed from the name)
_HINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("radio button", ("radio",)), ("check box", ("checkbox",)), ("text box", ("textbox", "searchbox")),
    ("text field", ("textbox", "searchbox")), ("input field", ("textbox", "searchbox", "combobox")),
    ("menu item", ("menuitem",)), ("drop-down", ("combobox",)), ("drop down", ("combobox",)),
    ("dropdown", ("combobox",)), ("combobox", ("combobox",)), ("select", ("combobox",)),
    ("checkbox", ("checkbox",)), ("tickbox", ("checkbox",)),
    ("radio", ("radio",)), ("menuitem", ("menuitem",)), ("button", ("button",)), ("btn", ("button",)),
    ("link", ("link",)), ("field", ("textbox", "searchbox", "combobox")), ("textbox", ("textbox",)),
    ("input", ("textbox", "searchbox")), ("box", ("textbox", "searchbox")), ("heading", ("heading",)),
    ("header", ("heading",)), ("tab", ("tab",)),
)
_ARTICLES = ("the", "a", "an")
_QUOTES = "\"'`“”‘’«»"
_SEP = r"[\W_]*"

BASE_SCORES = {
    "role": 100, "label": 90, "placeholder": 80, "text": 70,
    "role_substring": 60, "label_substring": 60, "text_substring": 60,
    "title": 50, "alt": 50, "test_id": 50, "role_only": 30,
    # the one element of the hinted role beside a text that names it (a todo's checkbox next to
    # its label text): what `checkbox of "Write report"` means, never the text itself
    "near": 60,
}
HINT_BONUS = 8
#: an element found by name whose role is not the one the description hints (`checkbox of
#: "Write report"` finding the label text): kept as evidence, never good enough to act on
ROLE_MISMATCH_PENALTY = 30
DISABLED_PENALTY = 5
HIDDEN_PENALTY = 40
_ORDER = {name: i for i, name in enumerate(BASE_SCORES)}


@dataclass(frozen=True)
class TargetResolution:
    #: the best unique visible candidate as a Playwright selector string, else None
    selector: str | None
    #: up to 10 ranked candidates: {"selector","strategy","score","count","visible","enabled","role"}
    candidates: tuple[dict[str, Any], ...]
    reason: str


@dataclass(frozen=True)
class Description:
    """What a target description asks for: a name and the roles its words hint at."""

    text: str
    name: str
    full: str
    roles: tuple[str, ...] = ()
    tokens: tuple[str, ...] = field(default=())


def describe(target: str) -> Description:
    """Reduce a human description to a name and role hints (pure; the unit tests use it)."""
    text = " ".join(target.split())
    quoted = re.findall(r"[\"“”«]([^\"“”«»]+)[\"“”»]|[‘'`]([^‘’'`]+)[’'`](?!\w)", text)
    quoted_name = next((a or b for a, b in quoted if (a or b).strip()), None)
    # quotes around words go; an apostrophe inside a word ("user's") stays part of it
    plain = re.sub(rf"(?<!\w)[{_QUOTES}]+|[{_QUOTES}]+(?!\w)", " ", text.lower())
    words = plain.split()
    while words and words[0] in _ARTICLES:
        words = words[1:]
    full = " ".join(words)
    roles: list[str] = []
    rest = " " + full + " "
    for phrase, hinted in _HINTS:   # longest first; a matched phrase is used up ("radio button")
        pattern = rf"(?<![\w-]){re.escape(phrase)}(?![\w-])"
        if re.search(pattern, rest):
            rest = re.sub(pattern, " ", rest)
            for r in hinted:
                if r not in roles:
                    roles.append(r)
    # role words at the end ("the email field") or the start ("button 'Save'") are not the name
    name_words = list(words)
    changed = True
    while changed and name_words:
        changed = False
        for phrase, _ in _HINTS:
            n = len(phrase.split())
            if len(name_words) > n and " ".join(name_words[-n:]) == phrase:
                name_words = name_words[:-n]
                changed = True
                break
            if len(name_words) > n and " ".join(name_words[:n]) == phrase:
                name_words = name_words[n:]
                changed = True
                break
    if len(name_words) == 1 and any(name_words[0] == p for p, _ in _HINTS):
        name_words = []   # "the button": a role and no name
    while name_words and name_words[0] in _ARTICLES:
        name_words = name_words[1:]
    name = quoted_name.strip() if quoted_name else " ".join(name_words)
    tokens = tuple(re.findall(r"[^\W_]+", name.lower()))
    return Description(text=text, name=name, full=full, roles=tuple(roles), tokens=tokens)


def _words_pattern(text: str) -> str:
    return _SEP.join(re.findall(r"[^\W_]+", text.lower()))


def _patterns(desc: Description) -> tuple[str, str] | None:
    """(exact, substring) regular expressions over names, case-insensitive, any separators."""
    core = _SEP.join(desc.tokens)
    if not core:
        return None
    variants = [core]
    full = _words_pattern(desc.full)
    if full and full != core:
        variants.append(full)
    exact = rf"^{_SEP}(?:{'|'.join(variants)}){_SEP}$"
    substring = rf"(?:^|[\W_])(?:{core})(?:[\W_]|$)"
    return exact, substring


def _queries(desc: Description) -> list[tuple[str, str, int]]:
    """(strategy, selector, best score it can reach), best first: the order they are asked in."""
    patterns = _patterns(desc)
    bonus = HINT_BONUS if desc.roles else 0
    if patterns is None:
        # "the button": any element of the hinted role, used only if it is the only one
        return [("role_only", f"internal:role={role}", BASE_SCORES["role_only"] + bonus) for role in desc.roles]
    exact, substring = patterns
    out: list[tuple[str, str, int]] = []
    for role in desc.roles:
        out.append(("role", f"internal:role={role}[name=/{exact}/i]", BASE_SCORES["role"] + bonus))
    for role in ROLES:
        if role not in desc.roles:
            out.append(("role", f"internal:role={role}[name=/{exact}/i]", BASE_SCORES["role"]))
    out.append(("label", f"internal:label=/{exact}/i", BASE_SCORES["label"] + bonus))
    out.append(("placeholder", f"internal:attr=[placeholder=/{exact}/i]", BASE_SCORES["placeholder"] + bonus))
    out.append(("text", f"internal:text=/{exact}/i", BASE_SCORES["text"] + bonus))
    for role in desc.roles or ROLES:
        out.append(("role_substring", f"internal:role={role}[name=/{substring}/i]",
                    BASE_SCORES["role_substring"] + bonus))
    out.append(("label_substring", f"internal:label=/{substring}/i", BASE_SCORES["label_substring"] + bonus))
    out.append(("text_substring", f"internal:text=/{substring}/i", BASE_SCORES["text_substring"] + bonus))
    out.append(("title", f"internal:attr=[title=/{exact}/i]", BASE_SCORES["title"] + bonus))
    out.append(("alt", f"internal:attr=[alt=/{exact}/i]", BASE_SCORES["alt"] + bonus))
    out.append(("test_id", f"internal:testid=[data-testid=/{exact}/i]", BASE_SCORES["test_id"] + bonus))
    return out


@dataclass
class Candidate:
    """One way to find the target: its selector, how it scored, and which elements it found."""

    selector: str
    strategy: str
    score: int
    count: int
    visible: int
    enabled: bool
    role: str
    ids: frozenset[int]

    def record(self) -> dict[str, Any]:
        return {"selector": self.selector, "strategy": self.strategy, "score": self.score, "count": self.count,
                "visible": self.visible > 0, "visible_count": self.visible, "enabled": self.enabled,
                "role": self.role}


def _score(strategy: str, items: list[Seen], desc: Description) -> tuple[int, int, bool, str]:
    visible_items = [i for i in items if i.visible]
    lead = visible_items[0] if visible_items else items[0]
    score = BASE_SCORES[strategy]
    role = lead.role
    if desc.roles and role in desc.roles:
        score += HINT_BONUS
    if not lead.enabled:
        score -= DISABLED_PENALTY
    if not visible_items:
        score -= HIDDEN_PENALTY
    if desc.roles and role not in desc.roles:
        score -= ROLE_MISMATCH_PENALTY
    return score, len(visible_items), lead.enabled, role


def resolve_target(reader: Reader, target: str, scope: str | None = None) -> TargetResolution:
    """Find the element a human description means on the live page (see the module docstring).

    `reader` reads a page, or a frame of one (its elements only).

    Raises `PageGone` (a closed page, context or browser) for the caller to judge (walk/boundary.py:
    gone or closed by the site); never raises for page content.
    """
    ranked, problem = rank_target(reader, target, scope)
    if problem is not None:
        return TargetResolution(None, (), problem)
    kept = tuple(c.record() for c in ranked[:KEPT])
    return _pick(ranked, kept, target)


def rank_target(reader: Reader, target: str, scope: str | None = None, *,
                slack: int = 0) -> tuple[list[Candidate], str | None]:
    """Every candidate for `target`, merged per set of elements, best first; or why there are none.

    A strategy is skipped when even its best score stays more than `slack` points under the best
    visible candidate found so far (the healer asks with a slack, to see every candidate close
    enough to matter for its margin). Raises like `resolve_target`.
    """
    desc = describe(target)
    if not desc.tokens and not desc.roles:
        return [], f"no candidates: nothing to match in '{target}'"
    prefix = ""
    if scope:
        try:
            found = reader.match(scope)
        except PageError as exc:
            return [], _page_error(exc, f"scope '{scope}'").reason
        except InvalidSelector as exc:
            return [], f"no candidates: {exc}"
        if found.count == 0:
            return [], f"no candidates: the scope '{scope}' matches nothing"
        prefix = f"{found.used} >> "
    candidates: list[Candidate] = []
    best_visible = -1
    for strategy, query, reachable in _queries(desc):
        if reachable + slack < best_visible:
            # cannot come close to the best visible candidate so far, so it cannot change the pick
            continue
        selector = prefix + query
        result = _inspect(reader, selector)
        if result is None:
            continue
        found_here = [_candidate(selector, strategy, *result, desc)]
        if desc.roles and strategy in _NAMING and found_here[0].role not in desc.roles:
            found_here += _near(reader, selector, desc, prefix)
        for c in found_here:
            candidates.append(c)
            if c.visible:
                best_visible = max(best_visible, c.score)
    return _merge(candidates), None


#: strategies that find an element by the words it shows, which may sit beside what they name
_NAMING = ("label", "text", "label_substring", "text_substring")
#: CSS for the elements of each hinted role (for `near`)
_ROLE_CSS = {
    "checkbox": "input[type=checkbox], [role=checkbox]", "radio": "input[type=radio], [role=radio]",
    "button": "button, input[type=button], input[type=submit], input[type=reset], [role=button]",
    "link": "a[href], [role=link]", "combobox": "select, [role=combobox]", "tab": "[role=tab]",
    "menuitem": "[role=menuitem]", "heading": "h1, h2, h3, h4, h5, h6, [role=heading]",
    "textbox": "input:not([type]), input[type=text], input[type=email], input[type=tel], input[type=url], "
               "input[type=password], textarea, [role=textbox]",
    "searchbox": "input[type=search], [role=searchbox]",
}

def _inspect(reader: Reader, selector: str) -> tuple[list[Seen], int] | None:
    try:
        result = reader.inspect(selector, MAX_ELEMENTS)
    except PageGone:
        raise  # see _page_error
    except (PageError, InvalidSelector):
        return None  # a page mid-navigation: this strategy sees nothing this time
    if not result.count or not result.items:
        return None
    return list(result.items), result.count


def _candidate(selector: str, strategy: str, items: list[Seen], count: int,
               desc: Description) -> Candidate:
    score, visible, enabled, role = _score(strategy, items, desc)
    ids = frozenset(i.id for i in items)
    if count > 1 and visible == 1:
        # one visible among hidden copies (a responsive menu): the visible one is meant
        selector = f"{selector} >> visible=true"
        ids = frozenset(i.id for i in items if i.visible)
        count = 1
    return Candidate(selector, strategy, score, count, visible, enabled, role, ids)


def _near(reader: Reader, selector: str, desc: Description, prefix: str) -> list[Candidate]:
    """Elements of the hinted role beside what `selector` found (`Reader.near`)."""
    # every hinted role at once: a container holding a textbox and a select is no answer for "field"
    css = ", ".join(_ROLE_CSS[role] for role in desc.roles if role in _ROLE_CSS)
    if not css:
        return []
    try:
        paths = reader.near(selector, css)
    except PageGone:
        raise
    except (PageError, InvalidSelector):
        return []
    out: list[Candidate] = []
    for path in dict.fromkeys(paths):
        near = prefix + path
        result = _inspect(reader, near)
        if result is not None:
            out.append(_candidate(near, "near", *result, desc))
    return out


def _merge(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per set of elements: the best-scoring strategy keeps its selector."""
    by_ids: dict[frozenset[int], Candidate] = {}
    names: dict[frozenset[int], list[str]] = {}
    for c in candidates:
        best = by_ids.get(c.ids)
        names.setdefault(c.ids, [])
        if c.strategy not in names[c.ids]:
            names[c.ids].append(c.strategy)
        if best is None or (c.score, -_ORDER[c.strategy]) > (best.score, -_ORDER[best.strategy]):
            by_ids[c.ids] = c
    merged = []
    for ids, c in by_ids.items():
        others = [n for n in names[ids] if n != c.strategy]
        strategy = "+".join([c.strategy, *others])
        merged.append(Candidate(c.selector, strategy, c.score, c.count, c.visible, c.enabled, c.role, ids))
    merged.sort(key=lambda c: (-c.score, _ORDER[c.strategy.split("+")[0]], c.count, c.selector))
    return merged


def _pick(ranked: list[Candidate], kept: tuple[dict[str, Any], ...], target: str) -> TargetResolution:
    if not ranked:
        return TargetResolution(None, kept, "no candidates")
    visible = [c for c in ranked if c.visible > 0]
    if not visible:
        return TargetResolution(None, kept, f"no visible candidates ({len(ranked)} hidden)")
    best = visible[0]
    ties = [c for c in visible if c.score == best.score]
    if len(ties) > 1:
        return TargetResolution(None, kept, f"ambiguous: {len(ties)} candidates with the same score ({best.score})")
    if best.count != 1:
        return TargetResolution(None, kept, f"ambiguous: {best.count} elements match the best candidate "
                                            f"({best.strategy}, score {best.score})")
    return TargetResolution(best.selector, kept, f"unique {best.strategy} match for '{target}' (score {best.score})")


def _page_error(exc: PageError, what: str) -> TargetResolution:
    if isinstance(exc, PageGone):
        # whether the browser is gone or the site closed its page is the caller's boundary's
        # answer (walk/boundary.py), not this module's
        raise exc
    return TargetResolution(None, (), f"no candidates: {what}: {exc.detail}")
