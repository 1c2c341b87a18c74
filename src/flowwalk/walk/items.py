"""Lists, item by item: what the `texts` and `classes` checks compare, and the diff a failure shows.

Pure functions over the items a read found (`browser.records.ItemsRead`) and the items a spec
expects. Texts compare as Playwright's `toHaveText([...])` / `toContainText([...])` do: case counts,
runs of whitespace count as one space (unless the check keeps whitespace), `equals` needs every item
in order and no other, `contains` needs the expected items among the found ones, in order, each
found item containing its expected text (other items may come between). Classes compare as
`toHaveClass([...])` / `toContainClass([...])`: an item has exactly the expected class names (in
any order: `toHaveClass` compares the attribute as written, which makes the order a page happens to
write its classes in part of the check), or has every expected class name among its own; a missing
class attribute counts as empty; either way one expected entry per item.
"""

from __future__ import annotations

import difflib
from typing import Callable, Sequence

from flowwalk.spec.source import escape

__all__ = ["DIFF_LINES_MAX", "class_names", "items_match", "list_diff", "normalized", "shown_list"]

#: a list diff shows at most this many lines (the rest is counted)
DIFF_LINES_MAX = 60
#: an item is shown with at most this many characters
ITEM_SHOWN = 120


def normalized(text: str) -> str:
    """Runs of whitespace become one space, trimmed (what a rendered text read already is)."""
    return " ".join(text.split())


def class_names(attribute: str) -> list[str]:
    """The class names of a class attribute (`' completed  editing '` -> completed, editing)."""
    return attribute.split()


def _contains_text(found: str, wanted: str) -> bool:
    return wanted in found


def _has_classes(found: str, wanted: str) -> bool:
    names = class_names(found)
    return all(name in names for name in class_names(wanted))


def _same_classes(found: str, wanted: str) -> bool:
    return set(class_names(found)) == set(class_names(wanted))


def _pairing(kind: str, match: str) -> Callable[[str, str], bool]:
    if kind == "classes":
        return _same_classes if match == "equals" else _has_classes
    return (lambda found, wanted: found == wanted) if match == "equals" else _contains_text


def _in_order(found: Sequence[str], wanted: Sequence[str], fits: Callable[[str, str], bool]) -> int:
    """How many of `wanted`, from the first, fit distinct items of `found` in order (greedy)."""
    at = 0
    for item in found:
        if at < len(wanted) and fits(item, wanted[at]):
            at += 1
    return at


def items_match(kind: str, match: str, found: Sequence[str], wanted: Sequence[str]) -> bool:
    """Whether the items found (texts, or class attributes) satisfy the check (see the module doc).
    Texts are compared as given: the caller normalises both sides, or neither (keep_whitespace)."""
    fits = _pairing(kind, match)
    if kind == "classes" or match == "equals":
        return len(found) == len(wanted) and all(fits(f, w) for f, w in zip(found, wanted))
    return _in_order(found, wanted, fits) == len(wanted)


def _shown(item: str) -> str:
    text = item if len(item) <= ITEM_SHOWN else item[: ITEM_SHOWN - 1] + "…"
    # control characters escaped: page text in a console line or a report cannot move the cursor
    return "'" + escape(text) + "'"


def shown_list(items: Sequence[str], limit: int = 10) -> str:
    """`['a', 'b', … 3 more]` for a one-line message."""
    head = ", ".join(_shown(i) for i in items[:limit])
    more = f", … {len(items) - limit} more" if len(items) > limit else ""
    return f"[{head}{more}]"


def list_diff(kind: str, match: str, found: Sequence[str], wanted: Sequence[str]) -> str:
    """The expected items against the found ones, a line each: `  ` both, `- ` expected only,
    `+ ` found only. Texts with `equals` align as a sequence diff; classes pair up by position;
    texts with `contains` list every found item, and mark `- ` the expected items that no item
    after the last fitting one contains."""
    noun = "item" if len(wanted) == 1 else "items"
    lines = [f"- expected ({len(wanted)} {noun})", f"+ observed ({len(found)} item{'s' * (len(found) != 1)})"]
    fits = _pairing(kind, match)
    if kind == "texts" and match == "contains":
        at = 0
        for item in found:
            if at < len(wanted) and fits(item, wanted[at]):
                lines.append(f"  {_shown(item)}  (contains {_shown(wanted[at])})")
                at += 1
            else:
                lines.append(f"  {_shown(item)}")
        lines.extend(f"- {_shown(w)}  (no item after the last match contains it)" for w in wanted[at:])
    elif kind == "classes":
        # one expected entry per item: they pair up by position
        for i in range(max(len(found), len(wanted))):
            if i < len(found) and i < len(wanted) and fits(found[i], wanted[i]):
                lines.append(f"  {_shown(found[i])}")
                continue
            if i < len(wanted):
                lines.append(f"- {_shown(wanted[i])}")
            if i < len(found):
                lines.append(f"+ {_shown(found[i])}")
    else:
        matcher = difflib.SequenceMatcher(a=list(wanted), b=list(found), autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                lines.extend(f"  {_shown(found[j])}" for j in range(j1, j2))
                continue
            lines.extend(f"- {_shown(wanted[i])}" for i in range(i1, i2))
            lines.extend(f"+ {_shown(found[j])}" for j in range(j1, j2))
    if len(lines) > DIFF_LINES_MAX:
        lines = lines[:DIFF_LINES_MAX] + [f"… {len(lines) - DIFF_LINES_MAX} more line(s)"]
    return "\n".join(lines)
