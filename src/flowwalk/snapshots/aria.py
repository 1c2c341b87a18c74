"""Aria snapshots as text: reading a baseline, and the diff a reviewer reads.

Matching is Playwright's (`browser/capture.py`, its `to_match_aria_snapshot`): a baseline is a
template, matched partially (children listed are looked for in order, others may sit between;
attributes and names not written are not compared; `/regex/` names match by pattern). The diff
here only shows a person where the page and the baseline part: a unified diff of the baseline
against the page's full snapshot.
"""

from __future__ import annotations

import difflib
import re

__all__ = ["aria_diff", "first_change", "normalize_snapshot", "template_lines"]

#: a diff longer than this many lines is cut (the whole observed snapshot is in the report folder)
DIFF_LINES_MAX = 400


def normalize_snapshot(text: str) -> str:
    """The form a baseline file is written in: LF line ends, no trailing spaces, one final newline."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def template_lines(text: str) -> list[str]:
    """A baseline's lines without its YAML comments (a person's notes are not the page's)."""
    return [line for line in normalize_snapshot(text).splitlines() if not line.lstrip().startswith("#")]


_SLASHED = re.compile(r"/((?:\\.|[^/\\\n])+)/")


def _line_pattern(line: str) -> re.Pattern[str] | None:
    """A template line with `/regex/` parts as one pattern over a whole observed line."""
    if not _SLASHED.search(line):
        return None
    parts, pos = [], 0
    for found in _SLASHED.finditer(line):
        parts.append(re.escape(line[pos:found.start()]))
        parts.append(f"(?:{found.group(1)})")
        pos = found.end()
    parts.append(re.escape(line[pos:]))
    try:
        return re.compile("".join(parts) + r"\Z")
    except re.error:
        return None


def _resolve_patterns(template: list[str], observed: list[str]) -> list[str]:
    """Each template line holding a `/regex/` replaced by the first unused observed line it matches,
    so that a regex that matched does not show as a difference."""
    used: set[int] = set()
    out = []
    for line in template:
        pattern = _line_pattern(line)
        hit = None
        if pattern is not None:
            hit = next((i for i, seen in enumerate(observed) if i not in used and pattern.match(seen)), None)
        if hit is None:
            out.append(line)
        else:
            used.add(hit)
            out.append(observed[hit])
    return out


def aria_diff(expected: str, observed: str, *, baseline: str) -> str:
    """A unified diff from the baseline (`--- <baseline>`, comments left out) to what the page
    showed (`+++ observed`). With a partial baseline, `+` lines may be ones it lets pass; the `-`
    lines are what the page lacks. A `/regex/` line the page matches is shown as that page line."""
    seen = normalize_snapshot(observed).splitlines()
    lines = list(difflib.unified_diff(_resolve_patterns(template_lines(expected), seen), seen,
                                      fromfile=baseline, tofile="observed", lineterm="", n=3))
    if len(lines) > DIFF_LINES_MAX:
        lines = lines[:DIFF_LINES_MAX] + [f"... {len(lines) - DIFF_LINES_MAX} more diff lines"]
    return "\n".join(lines)


def first_change(text_diff: str) -> str:
    """The first baseline line the page lacks (else the first line it adds), for one-line reports."""
    body = text_diff.splitlines()[2:]
    for mark in "-+":
        for line in body:
            if line.startswith(mark) and line[1:].strip():
                return f"first difference: {line.strip()[:160]}"
    return ""
