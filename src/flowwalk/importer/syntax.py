"""Foreign test code as a concrete syntax tree (tree-sitter), with the positions every ledger row
and error names.

TypeScript (`.ts`, `.mts`, `.cts`), TSX (`.tsx`) and JavaScript (`.js`, `.mjs`, `.cjs`, `.jsx`)
parse with their own grammars from the `tree-sitter-typescript` and `tree-sitter-javascript`
wheels: no Node at import time. A file that does not parse is a `SyntaxProblem` at the first node
tree-sitter could not place, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import Iterator

import tree_sitter_javascript
import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

__all__ = ["LANGUAGES", "Source", "SyntaxProblem", "calls_in", "children", "field", "language_of", "parse",
           "text"]

#: a file's suffix -> the grammar it parses with
LANGUAGES = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
             ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript"}


@lru_cache(maxsize=None)
def _language(name: str) -> Language:
    if name == "typescript":
        return Language(tree_sitter_typescript.language_typescript())
    if name == "tsx":
        return Language(tree_sitter_typescript.language_tsx())
    return Language(tree_sitter_javascript.language())


def language_of(path: str) -> str | None:
    """The grammar a file of this name parses with; None for a suffix no grammar reads."""
    return LANGUAGES.get(PurePath(path).suffix.lower())


@dataclass(frozen=True)
class Source:
    """One parsed file: its display path, its bytes and its tree's root."""

    path: str
    data: bytes
    root: Node

    def where(self, node: Node) -> str:
        """`path:line:col` of the node's start, both from 1."""
        line, col = node.start_point
        return f"{self.path}:{line + 1}:{col + 1}"


@dataclass(frozen=True)
class SyntaxProblem:
    """A file that does not parse: where, what, and how to fix it."""

    path: str
    line: int
    col: int
    message: str
    hint: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}\n  hint: {self.hint}"


def parse(path: str, data: bytes) -> Source | SyntaxProblem:
    """`data` parsed with the grammar its file name says; a `SyntaxProblem` at the first error."""
    name = language_of(path)
    if name is None:
        return SyntaxProblem(path, 1, 1, f"'{PurePath(path).suffix}' is not a file flowwalk imports",
                             "import .ts, .tsx, .js, .mjs, .cjs or .jsx files")
    root = Parser(_language(name)).parse(data).root_node
    if root.has_error:
        bad = _first_error(root)
        line, col = bad.start_point
        if bad.is_missing:
            what = f"'{bad.type}' is missing here"
        else:
            found = text_of(data, bad).splitlines()[0][:40] if text_of(data, bad).strip() else bad.type
            what = f"unexpected {found!r}"
        return SyntaxProblem(path, line + 1, col + 1, f"the file does not parse as {name}: {what}",
                             "fix the syntax (the file must run under its test runner as it is), "
                             "then import it again")
    return Source(path, data, root)


def _first_error(node: Node) -> Node:
    """The first node, in source order, that is an error or a missing token."""
    for child in node.children:
        if child.is_missing or child.type == "ERROR":
            inner = _first_error(child) if child.has_error and child.children else child
            return inner if (inner.is_missing or inner.type == "ERROR") else child
        if child.has_error:
            return _first_error(child)
    return node


def text_of(data: bytes, node: Node) -> str:
    return data[node.start_byte:node.end_byte].decode("utf-8", "replace")


def text(source: Source, node: Node) -> str:
    """The node's source text."""
    return text_of(source.data, node)


def field(node: Node, name: str) -> Node | None:
    return node.child_by_field_name(name)


def children(node: Node | None) -> list[Node]:
    """The named children of a node, comments left out."""
    if node is None:
        return []
    return [c for c in node.named_children if c.type != "comment"]


def calls_in(node: Node) -> Iterator[Node]:
    """Every call expression in `node` (itself included), in source order: what the ledger accounts for."""
    if node.type == "call_expression":
        yield node
    for child in node.children:
        yield from calls_in(child)
