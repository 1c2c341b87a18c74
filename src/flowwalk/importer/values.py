"""The values a test writes as literals, evaluated from the syntax tree: strings (quotes and escapes
resolved), template strings, numbers, booleans, arrays, objects, regular expressions, and the
names of constants and loop variables bound to them (`TODO_ITEMS[0]`, `TODO_ITEMS.slice(0, 2)`).

A value known only when the test runs (a function's result, a variable the test reassigns) is
`Unevaluable`, with why: the importer says so in the ledger instead of guessing. A helper's
parameter is a `Param`: inside a string it becomes `{{name}}`, the steps file's parameter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Mapping

from tree_sitter import Node

from flowwalk.importer.syntax import Source, children, field, text

__all__ = ["Param", "Regex", "Unevaluable", "value_of", "spelled", "unquote"]


@dataclass(frozen=True)
class Regex:
    """A regular expression literal (`/3/`, `/^todo$/i`)."""

    pattern: str
    flags: str = ""


@dataclass(frozen=True)
class Param:
    """A helper function's parameter: a steps file's `{{name}}`."""

    name: str
    type: str = "string"


class Unevaluable(Exception):
    """A value the importer cannot know before the test runs."""

    def __init__(self, node: Node, why: str):
        super().__init__(why)
        self.node = node
        self.why = why


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _escape(seq: str) -> str:
    """One escape sequence's character (`\\n`, `\\'`, `\\u00e9`, `\\u{1F600}`, `\\x41`)."""
    body = seq[1:]
    if body[:1] in _ESCAPES and len(body) == 1:
        return _ESCAPES[body]
    if body.startswith("u{"):
        return chr(int(body[2:-1], 16))
    if body.startswith(("u", "x")) and len(body) > 1:
        return chr(int(body[1:], 16))
    if body.startswith(("\n", "\r\n")):
        return ""  # a line continuation
    return body


def unquote(source: Source, node: Node) -> str:
    """A string literal's value: its fragments with the escapes resolved."""
    out = []
    for child in node.named_children:
        if child.type == "string_fragment":
            out.append(text(source, child))
        elif child.type == "escape_sequence":
            out.append(_escape(text(source, child)))
    return "".join(out)


def spelled(value: Any) -> str:
    """A value as text in a spec: a parameter as `{{name}}`, a number as JS prints it."""
    if isinstance(value, Param):
        return "{{" + value.name + "}}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _template(source: Source, node: Node, scope: Mapping[str, Any]) -> str:
    out = []
    for child in node.named_children:
        if child.type == "string_fragment":
            out.append(text(source, child))
        elif child.type == "escape_sequence":
            out.append(_escape(text(source, child)))
        elif child.type == "template_substitution":
            inner = children(child)
            value = value_of(source, inner[0], scope) if len(inner) == 1 else None
            if value is None or isinstance(value, (list, dict, Regex)):
                raise Unevaluable(child, f"the template's '{text(source, child)}' is not a text or a number")
            out.append(spelled(value))
    return "".join(out)


def _number(source: Source, node: Node) -> int | float:
    raw = text(source, node).replace("_", "")
    try:
        if raw.lower().startswith(("0x", "0o", "0b")):
            return int(raw, 0)
        value = float(raw)
    except ValueError:
        raise Unevaluable(node, f"'{raw}' is not a number flowwalk reads") from None
    return int(value) if value.is_integer() and not math.isinf(value) else value


def _index(source: Source, node: Node, scope: Mapping[str, Any]) -> Any:
    target = value_of(source, field(node, "object"), scope)
    index = value_of(source, field(node, "index"), scope)
    if isinstance(target, list) and isinstance(index, int) and -1 < index < len(target):
        return target[index]
    if isinstance(target, dict) and isinstance(index, str) and index in target:
        return target[index]
    raise Unevaluable(node, f"'{text(source, node)}' does not name an item of a known list or object")


def _member(source: Source, node: Node, scope: Mapping[str, Any]) -> Any:
    target = value_of(source, field(node, "object"), scope)
    name = text(source, field(node, "property"))  # type: ignore[arg-type]
    if name == "length" and isinstance(target, (list, str)):
        return len(target)
    if isinstance(target, dict) and name in target:
        return target[name]
    raise Unevaluable(node, f"'{text(source, node)}' is not a value known before the test runs")


def _call(source: Source, node: Node, scope: Mapping[str, Any]) -> Any:
    """The few calls on a literal that keep it literal: `list.slice(a, b)`, `text.trim()`."""
    callee = field(node, "function")
    if callee is not None and callee.type == "member_expression":
        method = text(source, field(callee, "property"))  # type: ignore[arg-type]
        target = value_of(source, field(callee, "object"), scope)
        args = [value_of(source, a, scope) for a in children(field(node, "arguments"))]
        if method == "slice" and isinstance(target, (list, str)) and all(isinstance(a, int) for a in args):
            return target[slice(*args)] if args else target[:]
        if method == "trim" and isinstance(target, str) and not args:
            return target.strip()
    raise Unevaluable(node, f"'{text(source, node)}' is computed when the test runs")


def _binary(source: Source, node: Node, scope: Mapping[str, Any]) -> Any:
    operator = text(source, field(node, "operator"))  # type: ignore[arg-type]
    left = value_of(source, field(node, "left"), scope)
    right = value_of(source, field(node, "right"), scope)
    if operator == "+" and all(isinstance(v, (str, int, float, Param)) and not isinstance(v, bool)
                               for v in (left, right)):
        if isinstance(left, (int, float)) and isinstance(right, (int, float)):
            return left + right
        return spelled(left) + spelled(right)
    if operator in ("-", "*") and all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right)):
        return left - right if operator == "-" else left * right
    raise Unevaluable(node, f"'{text(source, node)}' is computed when the test runs")


def _object(source: Source, node: Node, scope: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in children(node):
        if pair.type == "shorthand_property_identifier":
            out[text(source, pair)] = value_of(source, pair, scope)
            continue
        key = field(pair, "key")
        if pair.type != "pair" or key is None:
            raise Unevaluable(pair, f"'{text(source, pair)}' is not a plain key and value")
        name = unquote(source, key) if key.type == "string" else text(source, key)
        out[name] = value_of(source, field(pair, "value"), scope)
    return out


#: wrappers that change nothing of the value: parentheses, TypeScript's `as`, `!`, `satisfies`
_TRANSPARENT = ("parenthesized_expression", "as_expression", "non_null_expression", "satisfies_expression")


def value_of(source: Source, node: Node | None, scope: Mapping[str, Any]) -> Any:
    """The value `node` writes, names looked up in `scope`; `Unevaluable` for one known only at run time."""
    if node is None:
        raise Unevaluable(source.root, "a value is missing")
    kind = node.type
    if kind in _TRANSPARENT:
        return value_of(source, children(node)[0], scope)
    if kind == "string":
        return unquote(source, node)
    if kind == "template_string":
        return _template(source, node, scope)
    if kind == "number":
        return _number(source, node)
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("null", "undefined"):
        return None
    if kind == "regex":
        pattern = field(node, "pattern")
        flags = field(node, "flags")
        return Regex(text(source, pattern) if pattern else "", text(source, flags) if flags else "")
    if kind == "array":
        return [value_of(source, item, scope) for item in children(node)]
    if kind == "object":
        return _object(source, node, scope)
    if kind in ("identifier", "shorthand_property_identifier"):
        name = text(source, node)
        if name in scope:
            return scope[name]
        raise Unevaluable(node, f"'{name}' is not a constant of the file, a parameter or a loop's item")
    if kind == "unary_expression" and text(source, field(node, "operator")) == "-":  # type: ignore[arg-type]
        value = value_of(source, field(node, "argument"), scope)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if kind == "subscript_expression":
        return _index(source, node, scope)
    if kind == "member_expression":
        return _member(source, node, scope)
    if kind == "call_expression":
        return _call(source, node, scope)
    if kind == "binary_expression":
        return _binary(source, node, scope)
    raise Unevaluable(node, f"'{_short(text(source, node))}' is computed when the test runs")


def _short(value: str) -> str:
    one = re.sub(r"\s+", " ", value)
    return one if len(one) <= 60 else one[:57] + "..."
