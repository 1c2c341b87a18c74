"""Input files as plain Python values plus a line and column for every key and value.

This is the raw layer under the pydantic models: it knows YAML and JSON, nothing about specs.
It refuses, with a located `Problem`, what no spec can be: files over 1 MiB, binary or non-UTF-8
bytes, empty files, syntax errors, duplicate keys, non-string keys, nesting deeper than 64 and
YAML alias expansion past 100,000 nodes (a "billion laughs" file is small on disk but huge once
its aliases are expanded, so the bound is on nodes produced, not on bytes read).

Positions are kept in two maps keyed by the path of a node from the document root, for example
`("steps", 2, "value")`: `values` holds where a value starts, `keys` where a mapping key starts.
Both are 1-based (line, column) pairs; `Source.loc` turns them into `errors.Location`.
Lines are counted as an editor counts them (`LineTable`): a line ends at `\n`, `\r\n` or a lone
`\r`, nothing else.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from flowwalk.errors import Location, Problem

MAX_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_NODES = 100_000

PathKey = tuple[Union[str, int], ...]

_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
#: the tag our fast loader gives an untagged plain scalar; resolved below exactly as SafeLoader would
_PLAIN = "!flowwalk-plain"
_IMPLICIT = yaml.resolver.Resolver.yaml_implicit_resolvers
_CONSTRUCTOR = yaml.constructor.SafeConstructor()


@functools.lru_cache(maxsize=4096)
def _plain_tag(value: str) -> str:
    """YAML 1.1 implicit typing of a plain scalar (`yes` is a bool, `0x1F` an int), as SafeLoader does."""
    for tag, regexp in _IMPLICIT.get(value[:1], ()):
        if regexp.match(value):
            return str(tag)
    return _STR


def reads_as_text(value: str) -> bool:
    """Whether `value` written as a plain scalar reads back as that string (not `yes` or `0x1F`)."""
    return _plain_tag(value) == _STR


if getattr(yaml, "__with_libyaml__", False):
    from yaml._yaml import CParser

    class _FastLoader(CParser):
        """libyaml's parser and composer without PyYAML's Python resolver.

        CSafeLoader calls a Python resolver (regular expressions, path bookkeeping) for every
        node; that was half the load time of a 1,000-spec repository. Here plain scalars are only
        marked, and resolved with the same table in `_plain_tag` when walked.
        """

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode:
                return _PLAIN if implicit[0] else _STR
            return _SEQ if kind is SequenceNode else _MAP

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            return None

        def ascend_resolver(self) -> None:
            return None

    _YAML_LOADER: Any = _FastLoader
else:  # pragma: no cover - every supported install has libyaml
    _YAML_LOADER = yaml.SafeLoader


class SourceError(Exception):
    """The file cannot be read as a document at all; carries the one located problem."""

    def __init__(self, problem: Problem):
        self.problem = problem
        super().__init__(problem.render())


@dataclass
class Source:
    """One parsed document: its values and where each of them was written."""

    path: str
    data: Any
    values: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    keys: dict[PathKey, tuple[int, int]] = field(default_factory=dict)
    #: the text as written of non-string YAML scalars (`yes`, `0x1F`), for hints such as "quote it"
    raw: dict[PathKey, str] = field(default_factory=dict)

    def loc(self, path: PathKey) -> Location:
        """Where the value at `path` starts, or its nearest written ancestor (a missing key)."""
        for end in range(len(path), -1, -1):
            pos = self.values.get(path[:end])
            if pos is not None:
                return Location(self.path, pos[0], pos[1])
        return Location(self.path, 1, 1)

    def key_loc(self, path: PathKey) -> Location:
        """Where the key naming `path` is written (falls back to the value)."""
        pos = self.keys.get(path)
        if pos is not None:
            return Location(self.path, pos[0], pos[1])
        return self.loc(path)

    def get(self, path: PathKey, default: Any = None) -> Any:
        """The plain value at `path`, or `default` when any part of the path is absent."""
        node = self.data
        for part in path:
            if isinstance(node, dict) and isinstance(part, str) and part in node:
                node = node[part]
            elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
                node = node[part]
            else:
                return default
        return node


class LineTable:
    """Where each line of a text starts, counting only the line breaks an editor (and GitHub's diff)
    shows: `\n`, `\r\n` and a lone `\r`. Parsers count more (PyYAML also NEL, LS and PS), so
    their positions are turned back into these through the parser's character index."""

    _BREAK = re.compile(r"\r\n?|\n")

    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in self._BREAK.finditer(text)]

    def position(self, index: int) -> tuple[int, int]:
        """The 1-based (line, column) of the character at `index` (columns count characters)."""
        line = bisect.bisect_right(self.starts, index)
        return line, index - self.starts[line - 1] + 1


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape(value: object) -> str:
    """`value` as text with its control characters escaped (a line break shows as `\\n`), so that a
    key, name or value put into a problem's message or hint keeps it on one line."""
    text = str(value)
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text) if _CONTROL.search(text) else text


#: keys and names are cut to this many characters in messages (values to `quote`'s default)
NAME_SHOWN = 120


def quote(value: object, limit: int = 60) -> str:
    """`value` in single quotes for a message: escaped (see `escape`) and cut to `limit` characters."""
    text = str(value)
    if len(text) > limit:
        return f"'{escape(text[: limit - 1])}…'"
    return f"'{escape(text)}'"


# --- reading bytes -----------------------------------------------------------------------------


def read_text(path: Path, display: str) -> str:
    """The file as text, refusing what cannot be a spec before any parser sees it."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SourceError(Problem(Location(display, 1, 1),
                                      f"file is too large ({size:,} bytes; the limit is 1 MiB)",
                                      "a spec is a reviewable artifact: split it into smaller files"))
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(Problem(Location(display, 1, 1), f"cannot read the file: {exc.strerror or exc}",
                                  "check that the path exists and is readable")) from None
    return decode(data, display)


def decode(data: bytes, display: str) -> str:
    if len(data) > MAX_BYTES:
        raise SourceError(Problem(Location(display, 1, 1),
                                  f"file is too large ({len(data):,} bytes; the limit is 1 MiB)",
                                  "a spec is a reviewable artifact: split it into smaller files"))
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _byte_position(data, nul)
        raise SourceError(Problem(Location(display, line, col), "file is binary (it contains a NUL byte)",
                                  "specs are UTF-8 text files; check that the right file was named"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, col = _byte_position(data, exc.start)
        raise SourceError(Problem(Location(display, line, col),
                                  f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x})",
                                  "save the file as UTF-8")) from None
    if not text.strip():
        raise SourceError(Problem(Location(display, 1, 1), "file is empty",
                                  "write a spec in it, or delete the file"))
    return text


def _byte_position(data: bytes, offset: int) -> tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    col = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, col


def load_source(path: Path, display: str) -> Source:
    """Read and parse one file; `.json` is JSON, everything else YAML."""
    text = read_text(path, display)
    if path.suffix.lower() == ".json":
        return parse_json(text, display)
    return parse_yaml(text, display)


# --- YAML --------------------------------------------------------------------------------------

_YAML_HINTS = (
    ("mapping values are not allowed", "a value that contains ': ' must be quoted; otherwise check the indentation"),
    ("found character '\\t'", "indent with spaces: YAML does not allow tabs"),
    ("could not find expected ':'", "each key needs ': ' after it; look for a missing colon or an unclosed quote"),
    ("found undefined alias", "define the anchor (&name) before using the alias (*name)"),
    ("expected a single document", "put one document in the file: remove the second '---'"),
    ("found unexpected end of stream", "a quoted string or a bracket is not closed"),
    ("did not find expected key", "check the indentation: keys of one mapping must line up"),
    ("did not find expected '-' indicator", "check the indentation: items of one list must line up"),
    ("found unknown escape character", "in double quotes a backslash starts an escape; use single quotes or '\\\\'"),
)


def _yaml_hint(problem: str) -> str:
    for needle, hint in _YAML_HINTS:
        if needle in problem:
            return hint
    return "fix the YAML syntax at this position"


#: characters PyYAML counts as line breaks and an editor does not (NEL, LS, PS)
_YAML_ONLY_BREAKS = re.compile("[\x85\u2028\u2029]")


def _yaml_lines(text: str) -> LineTable | None:
    """The line table to turn PyYAML's marks into editor positions, when they differ at all."""
    return LineTable(text) if _YAML_ONLY_BREAKS.search(text) else None


def _mark_position(mark: Any, lines: LineTable | None) -> tuple[int, int]:
    """A PyYAML mark as a 1-based (line, column) an editor shows (see `LineTable`)."""
    if lines is None:
        return mark.line + 1, mark.column + 1
    return lines.position(mark.index)


class _YamlWalker:
    def __init__(self, display: str, lines: LineTable | None = None):
        self.display = display
        #: None when PyYAML's marks are already editor positions (the text has no NEL, LS or PS)
        self.lines = lines
        self.values: dict[PathKey, tuple[int, int]] = {}
        self.keys: dict[PathKey, tuple[int, int]] = {}
        self.raw: dict[PathKey, str] = {}
        self.count = 0
        self.stack: set[int] = set()

    def fail(self, node: Node, message: str, hint: str) -> SourceError:
        line, col = _mark_position(node.start_mark, self.lines)
        return SourceError(Problem(Location(self.display, line, col), message, hint))

    def value(self, node: Node, path: PathKey, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            raise self.fail(node, f"document expands to more than {MAX_NODES:,} nodes",
                            "YAML aliases (*name) repeat their anchor's content; do not nest them to build large documents")
        self.values[path] = _mark_position(node.start_mark, self.lines)
        if type(node) is ScalarNode:
            if node.tag == _STR:
                return node.value
            return self.scalar(node, path)
        if depth >= MAX_DEPTH:
            raise self.fail(node, f"nesting is deeper than {MAX_DEPTH} levels",
                            "a spec needs only a few levels; flatten the structure")
        ident = id(node)
        if ident in self.stack:
            raise self.fail(node, "recursive YAML alias (the alias refers to a node that contains it)",
                            "an alias must not point into its own anchor")
        self.stack.add(ident)
        try:
            if isinstance(node, SequenceNode):
                return [self.value(child, path + (i,), depth + 1) for i, child in enumerate(node.value)]
            if isinstance(node, MappingNode):
                return self.mapping(node, path, depth)
        finally:
            self.stack.discard(ident)
        raise self.fail(node, "unsupported YAML node", "use plain mappings, lists and scalars")  # pragma: no cover

    def scalar(self, node: ScalarNode, path: PathKey) -> Any:
        tag = node.tag
        if tag == _PLAIN:
            tag = _plain_tag(node.value)
        if tag == _STR:
            return node.value
        if tag in (_TIMESTAMP,):
            # a date is text to every spec field; keeping it as written avoids a surprising type error
            return node.value
        self.raw[path] = node.value
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return _CONSTRUCTOR.construct_yaml_bool(node)
        if tag == _INT:
            return _CONSTRUCTOR.construct_yaml_int(node)
        if tag == _FLOAT:
            return _CONSTRUCTOR.construct_yaml_float(node)
        raise self.fail(node, f"unsupported YAML tag {quote(tag, NAME_SHOWN)} on value {quote(node.value)}",
                        "remove the tag; specs use plain strings, numbers, booleans, lists and mappings")

    def key_error(self, key_node: Node) -> SourceError:
        if isinstance(key_node, ScalarNode):
            shown = key_node.value
            return self.fail(key_node, f"key {quote(shown, NAME_SHOWN)} is not a string",
                             f"quote the key: \"{escape(shown)}\": ...")
        shown = "a list" if isinstance(key_node, SequenceNode) else "a mapping"
        return self.fail(key_node, f"key '{shown}' is not a string", "keys must be plain strings")

    def pairs(self, node: MappingNode, depth: int) -> list[tuple[ScalarNode, Node]]:
        """The mapping's own pairs, then pairs merged in with `<<` for keys not written here."""
        own: list[tuple[ScalarNode, Node]] = []
        merged: list[tuple[ScalarNode, Node]] = []
        seen: dict[str, ScalarNode] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _PLAIN:
                key_node.tag = _plain_tag(key_node.value)
            if key_node.tag == _MERGE:
                sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
                for src in sources:
                    if not isinstance(src, MappingNode):
                        raise self.fail(src, "'<<' merges only mappings", "point '<<' at an anchored mapping")
                    if depth >= MAX_DEPTH or id(src) in self.stack:
                        raise self.fail(src, "recursive or too deep '<<' merge", "simplify the merged anchors")
                    self.stack.add(id(src))
                    try:
                        merged.extend(self.pairs(src, depth + 1))
                    finally:
                        self.stack.discard(id(src))
                continue
            if not isinstance(key_node, ScalarNode) or key_node.tag != _STR:
                raise self.key_error(key_node)
            name = key_node.value
            if name in seen:
                first = _mark_position(seen[name].start_mark, self.lines)[0]
                shown = quote(name, NAME_SHOWN)
                raise self.fail(key_node, f"duplicate key {shown}",
                                f"{shown} is already set at line {first}; a key may appear once per mapping")
            seen[name] = key_node
            own.append((key_node, value_node))
        out = list(own)
        for key_node, value_node in merged:
            if key_node.value not in seen:
                seen[key_node.value] = key_node
                out.append((key_node, value_node))
        return out

    def mapping(self, node: MappingNode, path: PathKey, depth: int) -> dict[str, Any]:
        pairs = node.value
        for key_node, _ in pairs:
            if key_node.tag == _PLAIN:
                key_node.tag = _plain_tag(key_node.value)
            if key_node.tag != _STR or type(key_node) is not ScalarNode:
                pairs = self.pairs(node, depth)  # merge keys, or a key to refuse
                break
        out: dict[str, Any] = {}
        keys = self.keys
        for key_node, value_node in pairs:
            name = key_node.value
            sub = path + (name,)
            if name in out:
                shown = quote(name, NAME_SHOWN)
                raise self.fail(key_node, f"duplicate key {shown}",
                                f"{shown} is already set at line {keys[sub][0]}; a key may appear once per mapping")
            keys[sub] = _mark_position(key_node.start_mark, self.lines)
            out[name] = self.value(value_node, sub, depth + 1)
        return out


def parse_yaml(text: str, display: str) -> Source:
    try:
        root = yaml.compose(text, Loader=_YAML_LOADER)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = _mark_position(mark, _yaml_lines(text)) if mark is not None else (1, 1)
        problem = exc.problem or exc.context or "syntax error"
        if problem.startswith("but ") and exc.context:
            problem = f"{exc.context} {problem}"
        hint = _yaml_hint(str(exc))
        if mark is not None and text[mark.index:mark.index + 1] == "\t":
            hint = "indent with spaces: YAML does not allow tabs"
        raise SourceError(Problem(Location(display, line, col), f"invalid YAML: {escape(problem)}", hint)) from None
    except yaml.reader.ReaderError as exc:
        raise SourceError(_reader_problem(exc, text, display)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = _mark_position(mark, _yaml_lines(text)) if mark is not None else (1, 1)
        raise SourceError(Problem(Location(display, line, col), f"invalid YAML: {escape(' '.join(str(exc).split()))}",
                                  "fix the YAML syntax at this position")) from None
    if root is None:
        raise SourceError(Problem(Location(display, 1, 1), "file is empty (it holds only comments)",
                                  "write a spec in it, or delete the file"))
    walker = _YamlWalker(display, _yaml_lines(text))
    data = walker.value(root, (), 0)
    return Source(display, data, walker.values, walker.keys, walker.raw)


def _reader_problem(exc: yaml.reader.ReaderError, text: str, display: str) -> Problem:
    """A character YAML does not allow anywhere (a control character such as U+0099 or U+0016),
    at its own line and column. PyYAML's ReaderError has no mark, only a position: libyaml's is a
    UTF-8 byte offset, the pure Python reader's a character index."""
    char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)[:1]
    position = exc.position if isinstance(exc.position, int) else -1
    if _YAML_LOADER is not yaml.SafeLoader and position >= 0:
        position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore"))
    if not (0 <= position < len(text) and text[position] == char):
        position = text.find(char) if char else -1
    line, col = LineTable(text).position(position) if position >= 0 else (1, 1)
    if not char:  # pragma: no cover - PyYAML always names the character
        return Problem(Location(display, line, col), f"invalid YAML: {exc.reason}",
                       "remove the character at this position")
    code = ord(char)
    name = f"U+{code:04X}"
    escaped = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    what = "control character" if unicodedata.category(char) == "Cc" else "character"
    return Problem(Location(display, line, col), f"invalid YAML: {what} {name} is not allowed",
                   f"remove it, or write it as the escape \"{escaped}\" inside a double-quoted string")


# --- JSON --------------------------------------------------------------------------------------

_JSON_TOKEN = re.compile(
    r'[ \t\n\r]*(?:'
    # possessive `*+`: the body never needs backtracking, and without it `re` keeps a backtrack
    # point per character (a 500 kB string cost 60 MiB; found by the loading fuzz)
    r'(?P<s>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+")'
    r'|(?P<n>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)'
    r'|(?P<p>[{}\[\]:,])'
    r'|(?P<l>true|false|null))')
_LITERALS = {"true": True, "false": False, "null": None}


class _JsonSyntax(Exception):
    def __init__(self, offset: int):
        self.offset = offset


class _JsonParser:
    """A small recursive-descent JSON parser that records where every key and value starts.

    The stdlib decoder forgets positions; this one keeps them and refuses duplicate keys, which
    the stdlib silently resolves to the last one.
    """

    def __init__(self, text: str, display: str):
        self.text = text
        self.display = display
        self.lines = LineTable(text)
        self.values: dict[PathKey, tuple[int, int]] = {}
        self.keys: dict[PathKey, tuple[int, int]] = {}
        self.pos = 0

    def position(self, offset: int) -> tuple[int, int]:
        return self.lines.position(offset)

    def fail(self, offset: int, message: str, hint: str) -> SourceError:
        line, col = self.position(offset)
        return SourceError(Problem(Location(self.display, line, col), message, hint))

    def token(self) -> tuple[str, str, int]:
        match = _JSON_TOKEN.match(self.text, self.pos)
        if match is None:
            raise _JsonSyntax(self.pos)
        self.pos = match.end()
        kind = match.lastgroup or ""
        return kind, match.group(kind), match.start(kind)

    def value(self, path: PathKey, depth: int, tok: tuple[str, str, int] | None = None) -> Any:
        kind, text, start = tok or self.token()
        self.values[path] = self.position(start)
        if kind == "s":
            return text[1:-1] if "\\" not in text else json.loads(text)
        if kind == "n":
            return int(text) if text.lstrip("-").isdigit() else float(text)
        if kind == "l":
            return _LITERALS[text]
        if text not in "{[":
            raise _JsonSyntax(start)
        if depth >= MAX_DEPTH:
            raise self.fail(start, f"nesting is deeper than {MAX_DEPTH} levels",
                            "a spec needs only a few levels; flatten the structure")
        if text == "[":
            items: list[Any] = []
            tok = self.token()
            if tok[1] == "]" and tok[0] == "p":
                return items
            while True:
                items.append(self.value(path + (len(items),), depth + 1, tok))
                kind, text, start = self.token()
                if kind == "p" and text == "]":
                    return items
                if not (kind == "p" and text == ","):
                    raise _JsonSyntax(start)
                tok = self.token()
        obj: dict[str, Any] = {}
        first: dict[str, int] = {}
        kind, text, start = self.token()
        if kind == "p" and text == "}":
            return obj
        while True:
            if kind != "s":
                raise _JsonSyntax(start)
            key = text[1:-1] if "\\" not in text else json.loads(text)
            if key in first:
                raise self.fail(start, f"duplicate key {quote(key, NAME_SHOWN)}",
                                f"{quote(key, NAME_SHOWN)} is already set at line {self.position(first[key])[0]}; "
                                "a key may appear once per object")
            first[key] = start
            self.keys[path + (key,)] = self.position(start)
            kind, text, start = self.token()
            if not (kind == "p" and text == ":"):
                raise _JsonSyntax(start)
            obj[key] = self.value(path + (key,), depth + 1)
            kind, text, start = self.token()
            if kind == "p" and text == "}":
                return obj
            if not (kind == "p" and text == ","):
                raise _JsonSyntax(start)
            kind, text, start = self.token()


def parse_json(text: str, display: str) -> Source:
    parser = _JsonParser(text, display)
    try:
        data = parser.value((), 0)
        if text[parser.pos:].strip():
            raise _JsonSyntax(parser.pos + len(text[parser.pos:]) - len(text[parser.pos:].lstrip()))
    except _JsonSyntax as exc:
        # The stdlib decoder words syntax errors well; ask it, and fall back to our own position.
        try:
            json.loads(text)
        except json.JSONDecodeError as err:
            hint = _json_hint(err.msg)
            if err.msg == "Expecting value" and text[err.pos:err.pos + 1] in ("]", "}"):
                hint = "JSON allows no trailing comma: remove the ',' before this bracket"
            line, col = parser.position(err.pos)  # as an editor counts lines (also a lone CR)
            raise SourceError(Problem(Location(display, line, col), f"invalid JSON: {err.msg}", hint)) from None
        except RecursionError:  # pragma: no cover - our depth bound fires first
            pass
        line, col = parser.position(exc.offset)
        raise SourceError(Problem(Location(display, line, col), "invalid JSON: unexpected value",
                                  "JSON allows only strings, numbers, true, false, null, objects and arrays")) from None
    return Source(display, data, parser.values, parser.keys, {})


def _json_hint(message: str) -> str:
    if "delimiter" in message:
        return "look for a missing or extra comma just before this position"
    if "property name" in message:
        return "keys must be double-quoted strings, and the last entry takes no trailing comma"
    if "Extra data" in message:
        return "a file holds one JSON value; remove what follows it"
    if "control character" in message:
        return "escape line breaks and tabs inside strings as \\n and \\t"
    return "fix the JSON syntax at this position"
