"""Frames and popups in `.robot` suites (docs/robot.md, "Frames and popups"): the blocks they build
are the flow spec's, and a suite moved from SeleniumLibrary or the Browser library is told, switch by
switch, what to write instead."""

from __future__ import annotations

import re
from pathlib import Path

from flowwalk.model import Act
from flowwalk.settings import Settings
from flowwalk.spec.robot import load_robot_suite

CORPUS = Path(__file__).parent.parent / "corpus" / "robot"


def _follow(lines: list[str], line: int, col: int, hint: str) -> bool:
    """Rewrite `lines` as the hint of the problem at `line` says; True when it also rewrote the line before."""
    indent = lines[line - 1][:col - 1]
    both = re.search(r"call for both is: (.*?)   \(", hint)
    many = re.search(r"calls for it are, one a line: (.*?)   \(", hint)
    one = re.search(r"call for it is: (.*?)   \(", hint)
    if both:
        lines[line - 2:line] = [indent + both.group(1)]
    elif many:
        lines[line - 1:line] = [indent + call for call in many.group(1).split(", then ")]
    else:
        lines[line - 1:line] = [indent + one.group(1)] if one else []
    return both is not None


def test_a_suite_moved_with_frame_and_window_switches_loads_once_each_hint_is_followed(tmp_path: Path) -> None:
    # frames_moved.robot switches frames and windows as SeleniumLibrary and the Browser library do:
    # each hint is followed (a Switch Window NEW merged with the click before it, a '>>>' locator
    # split into a frame block, a Switch Window after a Close Window deleted), and the suite loads
    path = CORPUS / "frames_moved.robot"
    _, problems = load_robot_suite(path, "frames_moved.robot", Settings())
    lines = path.read_text(encoding="utf-8").splitlines()
    merged: set[int] = set()
    for problem in sorted(problems, key=lambda p: -p.loc.line):
        if problem.loc.line not in merged and _follow(lines, problem.loc.line, problem.loc.col, problem.hint):
            merged.add(problem.loc.line - 1)
    fixed = tmp_path / "fixed.robot"
    fixed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite, problems = load_robot_suite(fixed, "fixed.robot", Settings())
    assert suite is not None and not problems, [p.render() for p in problems]
    guide, chat, frames = suite.scenarios[0].rules
    opened = guide.steps[0]
    assert isinstance(opened, Act) and opened.popup is not None and opened.popup.close, opened
    assert [[f.title for f in s.frames] for s in guide.steps] == [[], ["popup of click '#guide'"]]
    kept = chat.steps[0]
    assert isinstance(kept, Act) and kept.popup is not None and not kept.popup.close, kept
    assert [[f.title for f in s.frames] for s in frames.steps] == [
        ["frame '#faq'"], ["frame '#pay'"], ["frame '#pay'"], ["frame '#pay'"]]
    assert len({s.frames[0].id for s in frames.steps}) == 4   # each '>>>' call is a frame block of its own
