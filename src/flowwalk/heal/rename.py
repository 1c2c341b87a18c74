"""A refactor as renames: which ids and classes of a selector were renamed, and the selector rewritten.

A refactor renames ids and classes and keeps the page's structure. A selector broken by it is
mended by renaming the same tokens in it, not by replacing it with whatever selector matches the
healed element alone: `#todo-list li:nth-child(2) .edit` becomes `#todos li:nth-child(2) .edit`,
which keeps its position, its `{{variables}}` and every match of a list check, and the same rename
mends every other selector that names `#todo-list`.

Pure:
- `tokens(selector)`: the `#id` and `.class` tokens of a selector's CSS parts (not inside
  attribute brackets or quotes, not in a `text=` or other engine's part);
- `renames_from(old, new)`: the renames that make the element an earlier run fingerprinted
  (`old`, heal/fingerprint.py) into the one found now (`new`): its own id and classes, and its
  ancestors', position by position;
- `rewrite(selector, renames)`: the selector with those tokens renamed (None when none applies);
- `holds(old, new, text=...)`: does the element found now show the same element as the earlier
  fingerprint: the same tag, role, ancestors' tags and place among its siblings, and, for a check
  of its text, the same text. A check heals only when it holds.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["tokens", "renames_from", "rewrite", "holds", "ENGINES", "STATE_CLASSES"]

#: Playwright selector engines whose text is not CSS (`text=Active`: "Active" is no class)
ENGINES = ("text=", "xpath=", "id=", "data-testid=", "role=", "internal:", "nth=", "visible=")
_IDENT = r"-?[_a-zA-Z][_a-zA-Z0-9-]*"
_TOKEN = re.compile(rf"([#.])({_IDENT})")
#: classes that say an element's state, not what it is: never taken for a rename
STATE_CLASSES = frozenset({"active", "selected", "completed", "done", "hidden", "editing", "disabled", "checked",
                           "open", "closed", "expanded", "collapsed", "current", "focus", "focused", "visible",
                           "invalid", "valid", "error", "loading", "is-active", "is-open", "is-selected"})
_SHORT = re.compile(rf"^([a-zA-Z][a-zA-Z0-9-]*)((?:#{_IDENT})?)((?:\.{_IDENT})*)$")


def _css_spans(selector: str) -> list[tuple[int, int]]:
    """The spans of `selector` that are CSS: its CSS parts (between `>>` and `|`), outside
    attribute brackets, quotes and `{{variables}}`."""
    spans: list[tuple[int, int]] = []
    cuts = [(m.start(), m.end()) for m in re.finditer(r"\s*>>\s*|\s*\|\s*", selector)]
    starts = [0] + [end for _, end in cuts]
    ends = [start for start, _ in cuts] + [len(selector)]
    for start, end in zip(starts, ends):
        part = selector[start:end]
        if part.startswith("css="):
            start += 4
        elif part.startswith(ENGINES) or part.startswith(("'", '"', "//")):
            continue
        closing, run, i = "", start, start
        while i < end:
            ch = selector[i]
            if closing:
                if selector.startswith(closing, i):
                    i += len(closing)
                    closing, run = "", i
                    continue
            elif ch in "'\"[" or selector.startswith("{{", i):
                if run < i:
                    spans.append((run, i))
                closing = {"[": "]", "{": "}}"}.get(ch, ch)
            i += 1
        if not closing and run < end:
            spans.append((run, end))
    return spans


def _matches(selector: str) -> list["re.Match[str]"]:
    return [m for start, end in _css_spans(selector) for m in _TOKEN.finditer(selector, start, end)]


def tokens(selector: str) -> list[str]:
    """`#id` and `.class` tokens of the selector's CSS, in order (see the module docstring)."""
    return [m.group(0) for m in _matches(selector)]


def _parts(short: str) -> tuple[str, str, list[str]] | None:
    """`ul#todo-list.a.b` (heal/fingerprint.py's ancestor entries) -> (tag, id, classes)."""
    m = _SHORT.match(short or "")
    if m is None:
        return None
    return m.group(1).lower(), m.group(2)[1:], [c for c in m.group(3).split(".") if c]


def _pair(old_id: str, new_id: str, old_classes: list[str], new_classes: list[str], into: dict[str, str | None]) -> None:
    def put(a: str, b: str) -> None:
        if a in into and into[a] != b:
            into[a] = None   # two different renames of one token: neither is trusted
        else:
            into.setdefault(a, b)

    if old_id and new_id and old_id != new_id:
        put(f"#{old_id}", f"#{new_id}")
    gone = [c for c in old_classes if c not in new_classes and c not in STATE_CLASSES]
    came = [c for c in new_classes if c not in old_classes and c not in STATE_CLASSES]
    if len(gone) == 1 and len(came) == 1:
        put(f".{gone[0]}", f".{came[0]}")


def renames_from(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, str]:
    """The renames from the fingerprinted element `old` to the element `new` (see the module docstring).
    Ancestors count only where their tags agree position by position."""
    found: dict[str, str | None] = {}
    if str(old.get("tag") or "") != str(new.get("tag") or ""):
        return {}
    _pair(str(old.get("id") or ""), str(new.get("id") or ""), list(old.get("classes") or []),
          list(new.get("classes") or []), found)
    for was, now in zip(list(old.get("ancestors") or []), list(new.get("ancestors") or [])):
        a, b = _parts(str(was)), _parts(str(now))
        if a is None or b is None or a[0] != b[0]:
            break
        _pair(a[1], b[1], a[2], b[2], found)
    return {k: v for k, v in found.items() if v is not None}


def rewrite(selector: str, renames: Mapping[str, str]) -> str | None:
    """`selector` with its tokens renamed; None when no token of it is renamed."""
    out: list[str] = []
    last = 0
    for m in _matches(selector):
        new = renames.get(m.group(0))
        if new is not None:
            out += [selector[last:m.start()], new]
            last = m.end()
    if not out:
        return None
    return "".join(out) + selector[last:]


def _words(value: Any) -> str:
    return " ".join(str(value or "").split())


def holds(old: Mapping[str, Any], new: Mapping[str, Any], *, text: bool = False) -> bool:
    """Is `new` the element `old` fingerprinted: same tag, role, ancestors' tags and place, and with
    `text`, the same text (as far as the fingerprint keeps it)."""
    if str(old.get("tag") or "") != str(new.get("tag") or "") or (old.get("role") or "") != (new.get("role") or ""):
        return False
    if old.get("type") and old.get("type") != new.get("type"):
        return False
    was = [(_parts(str(a)) or ("?", "", []))[0] for a in old.get("ancestors") or []]
    now = [(_parts(str(a)) or ("?", "", []))[0] for a in new.get("ancestors") or []]
    if was != now:
        return False
    if isinstance(old.get("nth"), int) and old.get("nth") != new.get("nth"):
        return False
    return not text or _words(old.get("text")) == _words(new.get("text"))
