"""How big an MCP tool answer may be, and how an answer is cut down to that size.

Agents choke on huge tool results, so every answer the server gives is at most ANSWER_LIMIT
characters: its text content plus its structured content serialized as compact JSON (images are
bounded separately, by IMAGE_LIMIT bytes). `fit` shrinks a structured answer deterministically
(the longest string or list is halved first, again and again) and the answer says so and where
the full artifact lies. `trim_snapshot` keeps the part of an accessibility snapshot around the
element a failure is about.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: the most characters one tool answer holds (text content + structured JSON)
ANSWER_LIMIT = 20_000
#: the largest screenshot sent as image content; a larger one is named by path only
IMAGE_LIMIT = 1_000_000
#: an accessibility snapshot is trimmed to this many characters around the failure
SNAPSHOT_LIMIT = 4_000
#: lines of snapshot context kept on each side of the line the failure is about
SNAPSHOT_WINDOW = 25

_CUT = "… [cut]"


def compact(data: Any) -> str:
    """The JSON text the structured content travels as (the measure of its size)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _largest(node: Any, path: tuple[Any, ...], best: list[Any]) -> None:
    """The string or list with the most characters, found depth-first (ties: the first found)."""
    if isinstance(node, str):
        size = len(node)
        if size > 120 and size > best[0]:
            best[:] = [size, path]
    elif isinstance(node, list):
        size = len(compact(node))
        if len(node) > 1 and size > best[0]:
            best[:] = [size, path]
        for i, item in enumerate(node):
            _largest(item, path + (i,), best)
    elif isinstance(node, dict):
        for key, item in node.items():
            _largest(item, path + (key,), best)


def fit(data: dict[str, Any], budget: int) -> tuple[dict[str, Any], bool]:
    """`data` cut until its compact JSON has at most `budget` characters; (data, whether cut).

    Lists keep their first half, strings their first half plus a marker; types never change,
    so the result still matches the tool's output schema.
    """
    data = json.loads(compact(data))  # a private copy
    cut = False
    while len(compact(data)) > budget:
        best: list[Any] = [0, None]
        _largest(data, (), best)
        if best[1] is None:
            break  # nothing left to cut: many small fields (does not happen with these answers)
        *parents, last = best[1]
        holder: Any = data
        for key in parents:
            holder = holder[key]
        value = holder[last]
        if isinstance(value, str):
            holder[last] = value[: max(60, len(value) // 2)] + _CUT
        else:
            holder[last] = value[: max(1, len(value) // 2)]
        cut = True
    return data, cut


def clip(text: str, limit: int) -> str:
    """`text` with at most `limit` characters, marked when it was cut."""
    return text if len(text) <= limit else text[: max(0, limit - len(_CUT))] + _CUT


# --- accessibility snapshots ---------------------------------------------------------------------

_QUOTED = re.compile(r"'([^']{2,200})'|\"([^\"]{2,200})\"")
_NOISE = frozenset({"the", "a", "an", "of", "on", "in", "to", "for", "and", "with", "button", "link", "field",
                    "input", "text", "page", "expect", "act", "click", "fill", "press", "contains", "containing"})


def snapshot_terms(*texts: str) -> tuple[list[str], list[str]]:
    """Phrases (quoted in the step or the expectation) and single words to look for in a snapshot."""
    phrases: list[str] = []
    words: list[str] = []
    for text in texts:
        for match in _QUOTED.finditer(text or ""):
            phrase = (match.group(1) or match.group(2) or "").strip()
            if phrase and not phrase.startswith(("[", "#", ".")) and phrase.lower() not in phrases:
                phrases.append(phrase.lower())
            for word in re.findall(r"[A-Za-z0-9][A-Za-z0-9_-]{2,}", phrase):
                if word.lower() not in _NOISE and word.lower() not in words:
                    words.append(word.lower())
    return phrases, words


def _focus_line(lines: list[str], phrases: list[str], words: list[str]) -> int | None:
    lowered = [line.lower() for line in lines]
    for phrase in phrases:
        for i, line in enumerate(lowered):
            if phrase in line:
                return i
    best, best_hits = None, 0
    for i, line in enumerate(lowered):
        hits = sum(1 for word in words if word in line)
        if hits > best_hits:
            best, best_hits = i, hits
    return best


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def trim_snapshot(snapshot: str, *about: str, limit: int = SNAPSHOT_LIMIT,
                  window: int = SNAPSHOT_WINDOW) -> tuple[str, bool]:
    """The part of `snapshot` around the line that best matches `about` (the step, the expectation),
    with that line's ancestors kept so the tree still reads; (text, whether trimmed).

    Without a match the snapshot's beginning is kept. Deterministic: the same snapshot and texts
    always give the same cut.
    """
    if len(snapshot) <= limit:
        return snapshot, False
    lines = snapshot.splitlines()
    phrases, words = snapshot_terms(*about)
    focus = _focus_line(lines, phrases, words)
    if focus is None:
        return clip(snapshot, limit), True
    start, end = max(0, focus - window), min(len(lines), focus + window + 1)
    ancestors: list[str] = []
    depth = _indent(lines[start]) if start < len(lines) else 0
    for i in range(start - 1, -1, -1):
        if _indent(lines[i]) < depth:
            ancestors.insert(0, lines[i])
            depth = _indent(lines[i])
            if depth == 0:
                break
    kept = ancestors + ([f"# … {start - len(ancestors)} line(s) above left out"] if start > len(ancestors) else [])
    kept += lines[start:end]
    if end < len(lines):
        kept.append(f"# … {len(lines) - end} line(s) below left out")
    return clip("\n".join(kept), limit), True
