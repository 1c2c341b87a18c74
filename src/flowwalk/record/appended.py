"""`record --append`: the recorded steps added at the end of an existing flow spec's `steps`.

A YAML spec keeps every character it had: the new steps are written by the one writer (rendered
as a spec of their own, spec/writer.py) and their lines put after the last line of the spec's
`steps` list, at the column of its dashes, so comments, quoting and layout above stay as the
person wrote them. The new steps are in the writer's layout. A JSON spec holds no comments: it is
written again whole through the writer, its steps and then the new ones.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Sequence

from pydantic import ValidationError

from flowwalk.errors import UsageError
from flowwalk.record.transcript import Node
from flowwalk.record.written import build_tree, steps_of
from flowwalk.spec.formats import format_of
from flowwalk.spec.models import FlowSpecModel
from flowwalk.spec.writer import render_as

__all__ = ["Continued", "continued", "with_steps"]

_ITEM = re.compile(r"^( *)- ")


class Continued:
    """The spec being continued: its text, its steps' count, the column of its steps' dashes and
    the line after which new steps go (0-based index into its lines)."""

    def __init__(self, path: Path, text: str, steps: int, dash: int, after: int):
        self.path, self.text, self.steps, self.dash, self.after = path, text, steps, dash, after


def _refuse(path: Path, line: int, what: str, hint: str) -> UsageError:
    return UsageError(f"{path}:{line}:1: --append: {what}\n  hint: {hint}")


def continued(path: Path) -> Continued:
    """The spec at `path` as `--append` continues it; a UsageError at path:line:col when it cannot."""
    form = format_of(path.name)
    if form is None or form.kind != "flow":
        raise UsageError(f"--append: '{path}' is not a flow spec's name\n  hint: continue a *.flow.yaml or *.flow.json")
    if not path.is_file():
        raise UsageError(f"--append: '{path}' does not exist\n  hint: record it first without --append")
    with open(path, encoding="utf-8", newline="") as file:
        text = file.read()   # as written: its line endings are kept
    if form.syntax == "json":
        try:
            data = json.loads(text)
        except ValueError as error:
            raise _refuse(path, getattr(error, "lineno", 1), f"not JSON: {error}", "fix the file first") from None
        listed = data.get("steps") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            raise _refuse(path, 1, "the spec has no `steps` list", "continue a flow spec whose steps are a list")
        return Continued(path, text, len(listed), 0, 0)
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedSeq
    from ruamel.yaml.error import YAMLError

    try:
        doc = YAML().load(text)
    except YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise _refuse(path, line, f"not YAML: {str(error).strip().splitlines()[0]}", "fix the file first") from None
    steps = doc.get("steps") if hasattr(doc, "get") else None
    if not isinstance(steps, CommentedSeq):
        raise _refuse(path, 1, "the spec has no `steps` list", "continue a flow spec whose steps are a list")
    key_line = doc.lc.key("steps")[0]
    if not steps:
        raise _refuse(path, key_line + 1, "its `steps` list is empty", "record it again without --append")
    if steps.fa.flow_style():
        raise _refuse(path, key_line + 1, "its `steps` are one flow list ([...])",
                      "write them one per line (`  - {...}`), then append")
    lines = text.splitlines()
    first = steps.lc.item(0)[0]
    found = _ITEM.match(lines[first])
    dash = len(found.group(1)) if found else 2
    after = key_line
    for index in range(key_line + 1, len(lines)):
        line = lines[index]
        body = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if not body or (body.startswith("#") and indent <= dash):
            continue   # a comment deeper than the dashes is inside a step (or a block scalar's text)
        if indent < dash or (indent == dash and not line.lstrip(" ").startswith("-")):
            break
        after = index
    return Continued(path, text, len(steps), dash, after)


def _new_lines(nodes: Sequence[Node], name: str, dash: int) -> list[str]:
    """The writer's lines of the new steps, their dashes at column `dash`."""
    rendered = render_as(build_tree(nodes, name="appended", url="/"), name)
    lines = rendered.split("\nsteps:\n", 1)[1].splitlines()
    shift = dash - 2
    return [(" " * shift + line) if shift >= 0 else line[-shift:] for line in lines]


def with_steps(spec: Continued, nodes: Sequence[Node]) -> str:
    """The spec's text with the new steps at the end of its `steps` (see the module docstring)."""
    form = format_of(spec.path.name)
    assert form is not None
    if form.syntax == "json":
        data: dict[str, Any] = json.loads(spec.text)
        data["steps"] = [*data["steps"], *steps_of(nodes)]
        try:
            tree = FlowSpecModel.model_validate(data)
        except ValidationError as error:
            raise UsageError(f"{spec.path}: --append: the spec does not validate: {error.errors()[0]['msg']}\n"
                             "  hint: `flowwalk validate` it and fix it first") from None
        return render_as(tree, spec.path.name)
    ending = "\r\n" if "\r\n" in spec.text else "\n"
    lines = spec.text.splitlines()
    added = _new_lines(nodes, spec.path.name, spec.dash)
    out = [*lines[:spec.after + 1], *added, *lines[spec.after + 1:]]
    return ending.join(out) + ending
