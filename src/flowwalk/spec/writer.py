"""The one writer of authoring trees: a flow spec, rule file or steps file (spec/models/'s
pydantic models) rendered as the text a person would write.

YAML, as docs/flow-spec.md writes it:

- keys in the documented order: a flow spec's top level as its table lists them (`spec_version`,
  `name`, `description`, `tags`, `saves_session`, `session`, `url`, `allowed_hosts`, the
  environment keys, `routes`, `examples`, `before_each`, `steps`, `after_each`, `assertions`); a
  step or check's `type`, `action`, `kind`, `target`, `selector`, `name`, `url`, `value`, `equals`,
  `contains`, `at_least`, `at_most` first and its other keys as the model declares them; any other
  mapping's keys as its model declares them, the environment keys last. Only what the tree was
  given is written: a default it was not given stays unwritten;
- a step on one line in flow style (`- {type: goto, url: /}`) where it fits in `WIDTH` columns,
  in block style otherwise; a list of scalars likewise (`allowed_hosts: [checkout.stripe.com]`);
- a string with a line break as a literal block (`|`); a string quoted only where YAML needs it,
  as the loader reads it (YAML 1.1: `'yes'` is quoted), and in flow style wherever PyYAML or libyaml
  would not read it back plain there (`?`, `:` and `#` inside a URL pattern: YAML 1.2 allows them,
  YAML 1.1 readers stop at them);
- first, the `# yaml-language-server: $schema=<url>` modeline naming the format's JSON Schema by its
  `$id` (editors with YAML support check and complete the file with it), then the header comments.

JSON (`.flow.json`, `.steps.json`): the same keys in the same order, indented by two spaces; JSON
holds no comments, so no modeline and no header.

`YamlEdit` edits a person's YAML file in place through the same library, changing only the
characters of the values it changes (heal/patch.py).
"""

from __future__ import annotations

import difflib
import io
import json
import os
import re
from functools import lru_cache
from typing import Any, Sequence

import yaml as pyyaml

from pydantic import BaseModel
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import (DoubleQuotedScalarString, FoldedScalarString, LiteralScalarString,
                                      SingleQuotedScalarString)

from flowwalk.spec.formats import FileFormat, format_of
from flowwalk.spec.models import ENVIRONMENT_KEYS, FlowSpecModel
from flowwalk.spec.schemas import ID_BASE
from flowwalk.spec.source import reads_as_text

__all__ = ["WIDTH", "YamlEdit", "anchored", "block_scalar", "modeline", "render", "render_as", "spelled",
           "value_line"]

#: the columns a one-line step may take
WIDTH = 100
_FLOW_TOP = ("spec_version", "name", "description", "tags", "saves_session", "session", "url", "allowed_hosts",
             *ENVIRONMENT_KEYS, "routes", "examples", "before_each", "steps", "after_each", "assertions")
_STEP_FIRST = ("type", "action", "kind", "target", "selector", "name", "url", "value", "equals", "contains",
               "at_least", "at_most")
#: the keys whose list holds steps
_STEP_LISTS = frozenset({"steps", "before_each", "after_each"})
#: a mapping's keys are indented by 2; a list's dashes by 2 under its key, its items' keys by 4
_MAP_INDENT, _SEQ_INDENT, _SEQ_OFFSET = 2, 4, 2


def modeline(form: FileFormat) -> str:
    """The first line that names the format's JSON Schema for editors (empty: the format has none)."""
    return f"# yaml-language-server: $schema={ID_BASE}{form.schema}\n" if form.schema else ""


def render_as(tree: BaseModel, name: str, header: Sequence[str] = ()) -> str:
    """`tree` written in the format the file name `name` says (spec/formats.py)."""
    form = format_of(name)
    if form is None or not form.syntax:
        raise ValueError(f"flowwalk writes no file named {name!r}")
    return render(tree, form, header)


def render(tree: BaseModel, form: FileFormat, header: Sequence[str] = ()) -> str:
    """`tree` as the text of a file of `form`; `header`: comment lines after the modeline (YAML only)."""
    if form.model is not None and not isinstance(tree, form.model):
        raise TypeError(f"a {form.kind} file holds a {form.model.__name__}, not a {type(tree).__name__}")
    data = tree.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if form.syntax == "json":
        return json.dumps(_plain(_ordered(tree, data, 0, False)), indent=2, ensure_ascii=False) + "\n"
    comments = "".join(f"# {line}\n" if line else "#\n" for line in header)
    return modeline(form) + comments + _dump(_ordered(tree, data, 0, False))


def _yaml() -> YAML:
    yaml = YAML()
    yaml.indent(mapping=_MAP_INDENT, sequence=_SEQ_INDENT, offset=_SEQ_OFFSET)
    yaml.width = 4096   # a long value stays on its line: a line break inside it would be the writer's
    yaml.representer.add_representer(type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null"))
    return yaml


def _dump(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def _key_order(model: type[BaseModel]) -> list[str]:
    declared = [field.alias or name for name, field in model.model_fields.items()]
    if model is FlowSpecModel:
        return [*_FLOW_TOP, *(k for k in declared if k not in _FLOW_TOP)]
    if "type" in model.model_fields or "kind" in model.model_fields:
        return [*_STEP_FIRST, *(k for k in declared if k not in _STEP_FIRST)]
    return [*(k for k in declared if k not in ENVIRONMENT_KEYS), *ENVIRONMENT_KEYS]


def _field(model: BaseModel, key: str) -> Any:
    """The value under the written key `key` of `model` (a key may be a field's alias)."""
    for name, field in type(model).model_fields.items():
        if (field.alias or name) == key:
            return getattr(model, name)
    return None


def _ordered(node: Any, data: Any, column: int, step: bool) -> Any:
    """`data` (the dump of `node`) as ruamel's mappings and lists in the writer's order and style;
    `column`: where the node's text starts; `step`: whether it is an item of a list of steps."""
    if isinstance(data, dict):
        order = _key_order(type(node)) if isinstance(node, BaseModel) else list(data)
        out = CommentedMap()
        for key in sorted(data, key=lambda k: order.index(k) if k in order else len(order)):
            child = _field(node, key) if isinstance(node, BaseModel) else (node or {}).get(key)
            value = data[key]
            if isinstance(value, list):
                out[key] = _ordered_list(child, value, column + _SEQ_INDENT, key in _STEP_LISTS)
            else:
                out[key] = _ordered(child, value, column + _MAP_INDENT, False)
        if step and _fits(out, column):
            _flow_style(out)
        return out
    if isinstance(data, list):
        return _ordered_list(node, data, column + _SEQ_INDENT, False)
    if isinstance(data, str) and "\n" in data:
        return LiteralScalarString(data)
    if isinstance(data, str) and not reads_as_text(data):
        # YAML 1.2 (ruamel) writes `yes` plain; the loader reads YAML 1.1, where it is a boolean
        return SingleQuotedScalarString(data)
    return data


def _ordered_list(node: Any, items: list[Any], column: int, steps: bool) -> CommentedSeq:
    nodes = list(node) if isinstance(node, (list, tuple)) else [None] * len(items)
    out = CommentedSeq(_ordered(n, item, column, steps) for n, item in zip(nodes, items))
    if items and not steps and all(not isinstance(i, (dict, list)) for i in items) and _fits(out, column):
        _flow_style(out)
    return out


def _fits(node: CommentedMap | CommentedSeq, column: int) -> bool:
    """Whether `node` in flow style fits on the line it starts at `column`."""
    if _has_break(node):
        return False
    return column + _flow_width(_flowed(_plain(node))) <= WIDTH


def _flow_width(node: Any) -> int:
    """The length of `node` (flow style set) as the writer writes it on one line: `{k: v, k: v}` and
    `[v, v]` around each scalar's own flow text (tests/unit/test_spec_writer.py holds it to the dump)."""
    if isinstance(node, dict):
        parts = [len(_flow_scalar("str", key)) + 2 + _flow_width(value) for key, value in node.items()]
    elif isinstance(node, list):
        # a one-key mapping in a flow list is written as its pair alone: `[kind: no_console_errors]`
        parts = [_flow_width(value) - (2 if isinstance(value, dict) and len(value) == 1 else 0) for value in node]
    else:
        return len(_flow_scalar(type(node).__qualname__, node))
    return 2 + sum(parts) + 2 * max(len(parts) - 1, 0)


@lru_cache(maxsize=8192)
def _flow_scalar(kind: str, value: Any) -> str:
    """`value` as the writer writes it inside a flow list (`kind`: its type's name, so that a quoted
    ScalarString and the plain string equal to it are cached apart)."""
    text = _dump(_flow_style(CommentedSeq([value]))).rstrip("\n")
    if not (text.startswith("[") and text.endswith("]")) or "\n" in text:
        return text + "\n" * WIDTH   # not one flow item: never fits
    return text[1:-1]


def _has_break(node: Any) -> bool:
    if isinstance(node, dict):
        return any(_has_break(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_break(v) for v in node)
    return isinstance(node, str) and "\n" in node


def _flowed(node: Any) -> Any:
    if isinstance(node, dict):
        out: Any = CommentedMap((k, _flowed(v)) for k, v in node.items())
    elif isinstance(node, list):
        out = CommentedSeq(_flowed(v) for v in node)
    else:
        return node
    return _flow_style(out)


def _flow_style(node: CommentedMap | CommentedSeq) -> CommentedMap | CommentedSeq:
    """`node` set in flow style, each string in it quoted that would not read back plain there."""
    node.fa.set_flow_style()
    keys = node.keys() if isinstance(node, dict) else range(len(node))
    for key in keys:
        value = node[key]
        if isinstance(value, (CommentedMap, CommentedSeq)):
            _flow_style(value)
        elif type(value) is str and not _plain_in_flow(value):   # a quoted ScalarString stays as it is
            node[key] = SingleQuotedScalarString(value) if value.isprintable() else DoubleQuotedScalarString(value)
    return node


_READERS = tuple(r for r in (pyyaml.SafeLoader, getattr(pyyaml, "CSafeLoader", None)) if r is not None)


@lru_cache(maxsize=4096)
def _plain_in_flow(value: str) -> bool:
    """Whether `value`, written plain inside a flow mapping or list, reads back as itself with
    PyYAML and libyaml (YAML 1.1 readers: both stop a plain scalar at `?` there)."""
    for reader in _READERS:
        for text, wanted in ((f"{{k: {value}}}", {"k": value}), (f"[{value}]", [value])):
            try:
                if pyyaml.load(text, Loader=reader) != wanted:  # noqa: S506 (safe loaders only)
                    return False
            except pyyaml.YAMLError:
                return False
    return True


def _plain(node: Any) -> Any:
    """`node` as plain dicts, lists and scalars."""
    if isinstance(node, dict):
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


# --- editing a person's file -------------------------------------------------------------------------


class YamlEdit:
    """A person's YAML file read to be edited in place (`heal --apply`): change values of `doc`
    (ruamel's round-trip tree, which keeps comments, key order, quoting and flow style), then
    `changes` gives the smallest text edits that make them, so every other character of the file
    stays as written, even where ruamel would write it otherwise (its own indentation, a flow list
    it joins onto one line, the spaces it puts before a comment). Raises ValueError for text that is
    not YAML."""

    def __init__(self, text: str):
        from ruamel.yaml.error import YAMLError
        from ruamel.yaml.util import load_yaml_guess_indent

        self.text = text
        self.yaml = YAML()
        self.yaml.preserve_quotes = True
        self.yaml.width = 4096
        try:
            _, indent, offset = load_yaml_guess_indent(text)
            offset = offset or 0
            # the guess is the column of a list item's keys (sequence) and of its dash (offset)
            self.yaml.indent(mapping=((indent or 2) - offset) or 2, sequence=indent or 2, offset=offset)
            self.doc: Any = self.yaml.load(text)
        except YAMLError as error:
            raise ValueError(str(error).strip().splitlines()[0]) from None

    def changes(self, lines: Sequence[int]) -> dict[int, tuple[int, int, str]]:
        """For each (1-based) line of `lines` that the changes of `doc` reach: (start, end, new text),
        the characters of the file to replace, trimmed to what differs."""
        out = io.StringIO()
        self.yaml.dump(self.doc, out)
        old = re.findall(r"[^\n]*\n|[^\n]+$", self.text)
        starts = [0]
        for line in old:
            starts.append(starts[-1] + len(line))
        old_text = [line.rstrip("\r\n") for line in old]
        new_text = out.getvalue().splitlines()
        found: dict[int, tuple[int, int, str]] = {}
        matcher = difflib.SequenceMatcher(None, old_text, new_text, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            wanted = [n for n in lines if i1 < n <= i2]
            if tag == "equal" or not wanted:
                continue
            before = "".join(old[i1:i2])
            ending = "\r\n" if before.endswith("\r\n") else "\n"
            after = "".join(line + ending for line in new_text[j1:j2])
            if not old[i2 - 1].endswith("\n"):
                after = after[:-len(ending)]   # the last line had no line break: it still has none
            same = len(os.path.commonprefix([before, after]))
            tail = len(os.path.commonprefix([before[same:][::-1], after[same:][::-1]]))
            start, end, written = starts[i1] + same, starts[i2] - tail, after[same:len(after) - tail]
            if after[len(after) - tail:].lstrip(" ").startswith("#"):
                # the spaces between a value and its comment stay as the person wrote them
                kept = len(before[same:len(before) - tail]) - len(before[same:len(before) - tail].rstrip(" "))
                end, written = end - kept, written.rstrip(" ")
            for n in wanted:
                found[n] = (start, end, written)
        return found


def spelled(new: str, old: Any) -> Any:
    """`new` to replace the string `old` of a YAML file: in `old`'s quotes, or in the other quotes
    when it holds that quote and not the other (a person writes '[data-testid="x"]', not
    "[data-testid=\\"x\\"]"); plain when `old` was plain and YAML reads it back as written."""
    quote = '"' if isinstance(old, DoubleQuotedScalarString) else "'" if isinstance(old, SingleQuotedScalarString) \
        else ""
    if not quote:
        return new if reads_as_text(new) else SingleQuotedScalarString(new)
    other = "'" if quote == '"' else '"'
    if quote in new and other not in new:
        quote = other
    return DoubleQuotedScalarString(new) if quote == '"' else SingleQuotedScalarString(new)


def anchored(value: Any) -> bool:
    """Whether a value of `YamlEdit.doc` is an anchor's (so also every alias of it)."""
    anchor = getattr(value, "anchor", None)
    return getattr(anchor, "value", None) is not None


def block_scalar(value: Any) -> bool:
    """Whether a string of `YamlEdit.doc` is written as a block (`|` or `>`)."""
    return isinstance(value, (LiteralScalarString, FoldedScalarString))


def value_line(holder: Any, key: Any) -> int:
    """The (1-based) line of `holder[key]` in the file `YamlEdit.doc` was read from."""
    lc = holder.lc
    return int((lc.item(key) if isinstance(key, int) else lc.value(key))[0]) + 1
