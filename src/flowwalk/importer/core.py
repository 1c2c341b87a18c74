"""The walk every front end shares: a test file's structure (describe, test, hooks, steps, helper
functions, loops over literal data) turned into the parts of a flow-spec suite, with a ledger row
for every call expression and for every statement that holds calls flowwalk cannot follow.

Nothing here knows a tool's calls: a `Frontend` names its structure calls (`test.describe`,
`describe`, `it` ...), binds a test's fixtures, and maps one statement's call (`Mapped`) or one
bound value (a locator). The walk decides where the steps go:

- `describe(title, fn)` -> a folder; its `beforeEach`/`afterEach` -> the folder's hook files;
- `test(title, fn)` -> one flow spec (its steps, in order), `test.step(title, fn)` -> a group;
- a function of the file called as a statement -> a steps file with its parameters, and `use:`;
- `for (const x of <literal list>)` -> the body unrolled once per item;
- anything else with calls in it (a condition, a try, a return) -> `not_converted` rows.

A test depends on the rows of its own body, of the hooks that run around it, of the helpers it
calls and of its file's top level: it is whole when none of those rows is `not_converted`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

from tree_sitter import Node

from flowwalk.importer.ledger import Outcome, Row, one_line
from flowwalk.importer.syntax import Source, calls_in, children, text
from flowwalk.importer.values import Param, Unevaluable, spelled, value_of

__all__ = ["Block", "FileImport", "Folder", "Frontend", "Helper", "Mapped", "ImportedTest", "Noted", "Route", "RowKey",
           "Use", "Walk", "deps_of", "kebab", "slug"]

#: a row's key: the file's display path and the node's byte range
RowKey = tuple[str, int, int]


@dataclass(frozen=True)
class Use:
    """A call of a helper's steps file, with its arguments."""

    helper: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Route:
    """An entry of the flow's `routes:` (a request the flow answers itself): installed before the
    flow's first step, wherever the test set it up."""

    route: Mapping[str, Any]


@dataclass(frozen=True)
class Mapped:
    """What a front end makes of one statement's call: steps (plain step mappings, `Use`s, groups)
    and the ledger's word for it. `checks`: how many of upstream's checks the call is."""

    steps: tuple[Any, ...]
    outcome: Outcome
    detail: str
    checks: int = 0
    #: the blocks the steps run (a helper's, a callback's): their rows, checks and helpers count for the test
    blocks: tuple["Block", ...] = ()


@dataclass(frozen=True)
class Noted:
    """A value a front end binds (`const x = <node>`) with the ledger's word for the binding."""

    value: Any
    outcome: Outcome
    detail: str


class Frontend(Protocol):
    """A tool's side of an import (Playwright Test: importer/playwright.py)."""

    @property
    def structure(self) -> Mapping[str, str]:
        """The structure calls by their callee's text -> role: describe, test, skip, only, fixme,
        before_each, after_each, before_all, after_all, step."""

    def recognises(self, source: Source) -> bool: ...

    def fixture(self, name: str, annotation: str) -> Any | None:
        """The value a test's (or helper's) parameter of this name and type stands for (`page`), else None."""

    def statement(self, walk: "Walk", node: Node, scope: Mapping[str, Any]) -> Mapped | None:
        """One statement's call as steps; None: no row of the table knows it."""

    def bound(self, walk: "Walk", node: Node, scope: Mapping[str, Any]) -> Any:
        """The value a `const x = <node>` binds (a locator); raises `Unevaluable`."""


@dataclass
class Block:
    """Steps being gathered, the rows they depend on, the checks among them, the helpers they call."""

    steps: list[Any] = field(default_factory=list)
    rows: set[RowKey] = field(default_factory=set)
    checks: int = 0
    kept: int = 0
    helpers: set[str] = field(default_factory=set)

    def absorb(self, other: "Block") -> None:
        self.rows |= other.rows
        self.checks += other.checks
        self.kept += other.kept
        self.helpers |= other.helpers


@dataclass
class Helper:
    """A function of the file that a test calls: a steps file."""

    name: str
    node: Node
    params: dict[str, str]
    #: which parameters stand for fixtures (`page`), by position
    fixtures: tuple[bool, ...]
    block: Block | None = None
    #: the display path of the file it is written in
    path: str = ""
    #: the scope it sees, for a function declared in a test or a describe (None: the file's)
    scope: dict[str, Any] | None = None


@dataclass
class Folder:
    """A describe (or the file itself): its hooks and the rows of its own calls."""

    titles: tuple[str, ...]
    before: Block = field(default_factory=Block)
    after: Block = field(default_factory=Block)
    own: Block = field(default_factory=Block)
    #: the names its tests and hooks see: the file's constants, the describe's own, what its hooks carry
    scope: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportedTest:
    title: str
    folders: tuple[Folder, ...]
    line: int
    col: int
    block: Block
    #: skip, only, fixme: how the test was marked
    marks: tuple[str, ...] = ()


@dataclass
class FileImport:
    """One file's import: its folders (the file's own first), tests and helpers, and its rows."""

    source: Source
    folders: list[Folder]
    tests: list[ImportedTest]
    helpers: dict[str, Helper]
    rows: dict[RowKey, Row]


def slug(title: str, limit: int = 60) -> str:
    """A file or folder name from a title: lower case, words joined by '-'."""
    words = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "untitled"
    return words[:limit].rstrip("-")


def kebab(name: str) -> str:
    """A helper's name as a steps file's stem: `addTodo` -> `add-todo`."""
    return slug(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name))


_RANK = {"converted": 0, "approximated": 1, "not_converted": 2}
#: statements that hold no call of their own worth a row
_QUIET = ("comment", "empty_statement", "import_statement", "type_alias_declaration", "interface_declaration")


class Walk:
    """One file walked by one front end."""

    def __init__(self, source: Source, frontend: Frontend):
        self.source = source
        self.frontend = frontend
        self.rows: dict[RowKey, Row] = {}
        self.helpers: dict[str, Helper] = {}
        self.scope: dict[str, Any] = {}
        self.folders: list[Folder] = [Folder((), scope=self.scope)]
        self.tests: list[ImportedTest] = []
        #: walks of other files whose blocks this file's tests run (a Cypress suite's support commands)
        self.others: list[Walk] = []
        #: what is being walked: test, before_each, after_each, helper
        self.role = "test"
        self._walking: set[str] = set()

    def row(self, key: RowKey) -> Row:
        """The row of `key`, this file's or another walk's whose blocks a test runs."""
        if key in self.rows:
            return self.rows[key]
        return next(w.rows[key] for w in self.others if key in w.rows)

    def helper_named(self, name: str) -> Helper:
        """A helper of this file, or of another walk whose blocks a test runs."""
        if name in self.helpers:
            return self.helpers[name]
        return next(w.helpers[name] for w in self.others if name in w.helpers)

    # --- rows ---

    def record(self, node: Node, outcome: Outcome, detail: str, block: Block | None,
               kind: str = "call") -> None:
        """The row of `node`; a node met twice (a loop's body) keeps its worst outcome."""
        key = (self.source.path, node.start_byte, node.end_byte)
        line, col = node.start_point
        row = Row(self.source.path, line + 1, col + 1, one_line(text(self.source, node)), outcome, detail,
                  "statement" if kind == "statement" else "call")
        old = self.rows.get(key)
        if old is None or _RANK[outcome] > _RANK[old.outcome]:
            self.rows[key] = row
        if block is not None:
            block.rows.add(key)

    def record_calls(self, node: Node, outcome: Outcome, detail: str, block: Block | None,
                     main: Node | None = None) -> None:
        """Rows for every call in `node`: `main` (the statement's own call) with `detail`, the calls
        inside it as parts of it."""
        head = main if main is not None else node
        where = f"{head.start_point[0] + 1}:{head.start_point[1] + 1}"
        for call in calls_in(node):
            if call == head or outcome == "not_converted":
                self.record(call, outcome, detail, block)
            else:
                self.record(call, outcome, f"part of the call at {where}", block)

    def where(self, node: Node) -> str:
        return self.source.where(node)

    # --- the file ---

    def run(self) -> FileImport:
        top = children(self.source.root)
        collect = getattr(self.frontend, "collect", None)
        for node in top:
            self._collect(node)
            if collect is not None:
                collect(self, node)
        for helper in list(self.helpers.values()):
            self.helper_block(helper.name)
        for node in top:
            self._top(node, self.folders[0])
        return FileImport(self.source, self.folders, self.tests, self.helpers, self.rows)

    def _collect(self, node: Node) -> None:
        """The file's constants (literal values) and functions, before anything uses them."""
        target = children(node)[0] if node.type == "export_statement" and children(node) else node
        if target.type == "function_declaration":
            self.add_helper(target, target.child_by_field_name("name"), target)
        elif target.type in ("lexical_declaration", "variable_declaration"):
            for declarator in children(target):
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is None or value is None or name.type != "identifier":
                    continue
                if value.type in ("arrow_function", "function_expression", "function"):
                    self.add_helper(value, name, declarator)
                    continue
                try:
                    self.scope[text(self.source, name)] = value_of(self.source, value, self.scope)
                except Unevaluable:
                    pass

    def add_helper(self, function: Node, name: Node | None, node: Node, label: str = "",
                    scope: dict[str, Any] | None = None) -> None:
        """`function` as a helper named `label` (else the text of `name`), seeing `scope` (else the file's)."""
        if name is None and not label:
            return
        label = label or text(self.source, name)  # type: ignore[arg-type]
        params: dict[str, str] = {}
        fixtures: list[bool] = []
        for param in children(function.child_by_field_name("parameters")):
            pattern = param.child_by_field_name("pattern") or param
            if pattern.type != "identifier":
                params[f"arg{len(fixtures)}"] = "string"
                fixtures.append(False)
                continue
            annotation = param.child_by_field_name("type")
            typed = text(self.source, annotation).lstrip(": ").strip() if annotation is not None else ""
            pname = text(self.source, pattern)
            is_fixture = self.frontend.fixture(pname, typed) is not None
            fixtures.append(is_fixture)
            if not is_fixture:
                params[pname] = {"number": "integer", "boolean": "boolean"}.get(typed, "string")
        self.helpers[label] = Helper(label, function, params, tuple(fixtures), path=self.source.path, scope=scope)

    def helper_block(self, name: str) -> Block | None:
        """The helper's steps (walked once); None while it is being walked (a recursive helper)."""
        helper = self.helpers[name]
        if helper.block is not None or name in self._walking:
            return helper.block
        self._walking.add(name)
        scope = dict(self.scope if helper.scope is None else helper.scope)
        role, self.role = self.role, "helper"
        params = [p for p in children(helper.node.child_by_field_name("parameters"))]
        for param, is_fixture in zip(params, helper.fixtures):
            pattern = param.child_by_field_name("pattern") or param
            pname = text(self.source, pattern)
            if is_fixture:
                scope[pname] = self.frontend.fixture(pname, "Page")
            elif pname in helper.params:
                scope[pname] = Param(pname, helper.params[pname])
        block = Block()
        self.body(helper.node.child_by_field_name("body"), scope, block)
        helper.block = block
        self.role = role
        self._walking.discard(name)
        return block

    def _top(self, node: Node, folder: Folder) -> None:
        """A statement at the top of the file or of a describe."""
        if node.type in _QUIET:
            return
        if node.type == "function_declaration":
            if folder is not self.folders[0]:
                self._nested_helper(node, folder.scope)
            return
        if node.type == "export_statement":
            inner = children(node)
            if inner:
                self._top(inner[0], folder)
            return
        if node.type in ("lexical_declaration", "variable_declaration"):
            self._declare(node, folder.scope, folder.own, top=True)
            return
        call = _call_of(node)
        if call is not None:
            role = self.frontend.structure.get(text(self.source, call.child_by_field_name("function") or call))
            if role is not None:
                self._structure(call, role, folder)
                return
            mapped = self.frontend.statement(self, call, self.scope)
            if mapped is not None and not mapped.steps:
                self.record_calls(node, mapped.outcome, mapped.detail, folder.own, main=call)
                return
        self.record_calls(node, "not_converted", "a call outside any test or hook: flowwalk runs steps only in a "
                          "test", folder.own)
        if not any(True for _ in calls_in(node)):
            self.record(node, "not_converted", "a statement outside any test or hook", folder.own, "statement")

    # --- structure ---

    def _structure(self, call: Node, role: str, folder: Folder) -> None:
        args = children(call.child_by_field_name("arguments"))
        function = next((a for a in reversed(args) if a.type in ("arrow_function", "function_expression",
                                                                 "function")), None)
        title = self._title(args)
        if role in ("before_all", "after_all"):
            self.record_calls(call, "not_converted", "flowwalk starts every flow in a fresh browser context: a "
                              "hook run once for all the tests of a describe has no equivalent; move its steps "
                              "into beforeEach", folder.own, main=call)
            return
        if function is None:
            self.record_calls(call, "not_converted", f"a {role.replace('_', ' ')} with no function written "
                              "in place", folder.own, main=call)
            return
        self._record_head(call, function, role, title, folder)
        body = function.child_by_field_name("body")
        if role == "describe":
            inner = Folder((*folder.titles, title or "describe"), scope=dict(folder.scope))
            self.folders.append(inner)
            for node in children(body):
                self._top(node, inner)
            return
        scope = self._fixtures(function, folder.scope)
        if role in ("before_each", "after_each"):
            self.role = role
            self.body(body, scope, folder.before if role == "before_each" else folder.after, shared=True)
            self.role = "test"
            carries = getattr(self.frontend, "carries", None)
            if carries is not None:
                folder.scope.update({k: v for k, v in scope.items() if carries(k)})
            return
        if role in ("test", "skip", "only", "fixme"):
            block = Block()
            self.body(body, scope, block)
            chain = tuple(f for f in self.folders if folder.titles[:len(f.titles)] == f.titles)
            line, col = call.start_point
            marks = () if role == "test" else (role,)
            self.tests.append(ImportedTest(title or f"test at line {line + 1}", chain, line + 1, col + 1, block, marks))
            return
        self.record_calls(call, "not_converted", "a step outside a test", folder.own, main=call)

    def _record_head(self, call: Node, function: Node, role: str, title: str, folder: Folder) -> None:
        """The row of a structure call itself (its function's calls get their own rows)."""
        what = {"describe": f"the folder '{slug(title)}/'", "test": "a flow spec",
                "before_each": "the folder's before_each.steps.yaml", "after_each": "the folder's "
                "after_each.steps.yaml", "skip": "a flow spec written to needs-review/ (skipped upstream)",
                "fixme": "a flow spec written to needs-review/ (fixme upstream)", "only": "a flow spec"}[role]
        self.record(call, "approximated" if role == "only" else "converted",
                    what + (" (flowwalk runs every test; select with --grep)" if role == "only" else ""), folder.own)
        for arg in children(call.child_by_field_name("arguments")):
            if arg != function:
                self.record_calls(arg, "converted", "part of the call's title", folder.own)

    def _title(self, args: list[Node]) -> str:
        if not args or args[0].type not in ("string", "template_string"):
            return ""
        try:
            return str(value_of(self.source, args[0], self.scope))
        except Unevaluable:
            return text(self.source, args[0]).strip("`'\"")

    def _fixtures(self, function: Node, base: Mapping[str, Any]) -> dict[str, Any]:
        """The scope of a test's function: its folder's names and its destructured fixtures."""
        scope = dict(base)
        for param in children(function.child_by_field_name("parameters")):
            pattern = param.child_by_field_name("pattern") or param
            names = [pattern] if pattern.type == "identifier" else [
                p for p in children(pattern) if p.type == "shorthand_property_identifier_pattern"]
            for name in names:
                value = self.frontend.fixture(text(self.source, name), "")
                if value is not None:
                    scope[text(self.source, name)] = value
        return scope

    # --- bodies ---

    def body(self, node: Node | None, scope: Mapping[str, Any], block: Block, shared: bool = False) -> None:
        """A function's body (a block, or an arrow function's expression) into `block`; `shared`: what
        it binds is bound in `scope` itself (a hook's names, carried to its tests)."""
        if node is None:
            return
        inner = scope if shared and isinstance(scope, dict) else dict(scope)
        if node.type != "statement_block":
            self.statement(node, inner, block)
            return
        declared = [s for s in children(node) if s.type == "function_declaration"]
        for statement in declared:
            self._nested_helper(statement, inner)
        for statement in children(node):
            self.statement(statement, inner, block)
        for statement in declared:
            name = statement.child_by_field_name("name")
            if name is not None and text(self.source, name) in self.helpers:
                self.helper_block(text(self.source, name))

    def _nested_helper(self, node: Node, scope: dict[str, Any]) -> None:
        """A function declared in a test, a hook or a describe: a helper that sees the names around it
        as they are when it is first called (the live `scope`)."""
        name = node.child_by_field_name("name")
        if name is not None and text(self.source, name) not in self.helpers:
            self.add_helper(node, name, node, scope=scope)

    def statement(self, node: Node, scope: dict[str, Any], block: Block) -> None:
        kind = node.type
        if kind in _QUIET or kind == "function_declaration":
            return
        if kind == "return_statement" and self.role == "helper" and children(node) and \
                _call_of(children(node)[0]) is not None:
            # a helper's result (a Cypress command's query, which its caller chains on): its steps run
            node = children(node)[0]
            kind = node.type
        if kind in ("lexical_declaration", "variable_declaration"):
            self._declare(node, scope, block)
            return
        if kind == "for_in_statement":
            _loop(self, node, scope, block)
            return
        if kind == "statement_block":
            self.body(node, scope, block)
            return
        call = _call_of(node) if kind in ("expression_statement", "await_expression", "call_expression") else None
        if call is None:
            self._unfollowed(node, block)
            return
        callee = call.child_by_field_name("function")
        role = self.frontend.structure.get(text(self.source, callee)) if callee is not None else None
        if role == "step":
            self._group(call, scope, block)
            return
        if callee is not None and callee.type == "identifier" and text(self.source, callee) in self.helpers:
            self._use(node, call, scope, block)
            return
        mapped = self.frontend.statement(self, call, scope)
        if mapped is None:
            self.record_calls(node, "not_converted", "no row of the table maps this call", block, main=call)
            return
        self.record_calls(node, mapped.outcome, mapped.detail, block, main=call)
        for step in mapped.steps:
            if not (block.steps and step == block.steps[-1] and _existence(step)):
                block.steps.append(step)
        block.checks += mapped.checks
        if mapped.outcome != "not_converted":
            block.kept += mapped.checks
        for inner in mapped.blocks:
            block.absorb(inner)

    def _unfollowed(self, node: Node, block: Block) -> None:
        what = {"if_statement": "a condition", "try_statement": "a try block", "return_statement": "a return",
                "while_statement": "a loop", "for_statement": "a loop", "switch_statement": "a switch",
                "throw_statement": "a throw", "function_declaration": "a function declared in a test"}.get(
            node.type, f"a {node.type.replace('_', ' ')}")
        why = (f"{what}: a flow spec holds steps, no code; write a spec for each case, or a check of the "
               "state the test expects")
        self.record_calls(node, "not_converted", why, block)
        self.record(node, "not_converted", why, block, "statement")

    def _declare(self, node: Node, scope: dict[str, Any], block: Block, top: bool = False) -> None:
        for declarator in children(node):
            name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
            if value is None or name is None:
                continue
            if value.type in ("arrow_function", "function_expression", "function") and top:
                continue
            label = text(self.source, name)
            try:
                scope[label] = value_of(self.source, value, scope)
                self.record_calls(declarator, "converted", "a literal value, written where it is used", block)
                continue
            except Unevaluable:
                pass
            try:
                bound = self.frontend.bound(self, value, scope)
            except Unevaluable as unknown:
                scope.pop(label, None)
                self.record_calls(declarator, "not_converted", f"'{label}' is not known before the test runs: "
                                  f"{unknown.why}", block)
                if not any(True for _ in calls_in(declarator)):
                    self.record(declarator, "not_converted", unknown.why, block, "statement")
                continue
            if isinstance(bound, Noted):
                scope[label] = bound.value
                self.record_calls(declarator, bound.outcome, bound.detail, block,
                                  main=value if value.type == "call_expression" else None)
                continue
            scope[label] = bound
            self.record_calls(declarator, "converted", f"'{label}', written into each step that uses it", block)

    def _group(self, call: Node, scope: Mapping[str, Any], block: Block) -> None:
        args = children(call.child_by_field_name("arguments"))
        function = next((a for a in args if a.type in ("arrow_function", "function_expression")), None)
        title = self._title(args)
        if function is None or not title:
            self.record_calls(call, "not_converted", "a step needs a literal title and a function written in place",
                              block, main=call)
            return
        self.record(call, "converted", f"a group '{title}'", block)
        inner = Block()
        self.body(function.child_by_field_name("body"), scope, inner)
        block.absorb(inner)
        if inner.steps:
            block.steps.append({"group": title, "steps": inner.steps})

    def _use(self, node: Node, call: Node, scope: Mapping[str, Any], block: Block) -> None:
        name = text(self.source, call.child_by_field_name("function"))  # type: ignore[arg-type]
        helper = self.helpers[name]
        inner = self.helper_block(name)
        if inner is None or not inner.steps:
            why = "a helper that calls itself" if inner is None else "the helper has no step flowwalk could write"
            self.record_calls(node, "not_converted", why, block, main=call)
            return
        args: dict[str, Any] = {}
        given = children(call.child_by_field_name("arguments"))
        names = [n for n in helper.params]
        try:
            values = [value_of(self.source, arg, scope) for arg, fixture in zip(given, helper.fixtures)
                      if not fixture]
        except Unevaluable as unknown:
            self.record_calls(node, "not_converted", f"an argument known only when the test runs: {unknown.why}",
                              block, main=call)
            return
        for pname, value in zip(names, values):
            args[pname] = spelled(value) if isinstance(value, Param) else value
        self.record_calls(node, "converted", f"use: steps/{kebab(name)}.steps.yaml", block, main=call)
        block.steps.append(Use(name, args))
        block.absorb(inner)
        block.helpers.add(name)

def deps_of(walk: Walk, test: ImportedTest) -> set[RowKey]:
    """Every row a test depends on: its body's, its folders' and hooks', its helpers' (and theirs)."""
    rows = set(test.block.rows)
    helpers = set(test.block.helpers)
    for folder in test.folders:
        rows |= folder.own.rows | folder.before.rows | folder.after.rows
        helpers |= folder.before.helpers | folder.after.helpers
    seen: set[str] = set()
    while helpers - seen:
        name = sorted(helpers - seen)[0]
        seen.add(name)
        block = walk.helper_named(name).block
        if block is not None:
            rows |= block.rows
            helpers |= block.helpers
    return rows


def _loop(walk: Walk, node: Node, scope: dict[str, Any], block: Block) -> None:
    """`for (const x of <literal list>)`: the body once per item; over anything else, not converted."""
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    body = node.child_by_field_name("body")
    is_of = any(c.type == "of" for c in node.children)
    try:
        items = value_of(walk.source, right, scope) if is_of and left is not None else None
    except Unevaluable:
        items = None
    name = left.child_by_field_name("name") if left is not None and left.type != "identifier" else left
    if not isinstance(items, list) or name is None or name.type != "identifier" or body is None:
        why = ("a loop over values known only when the test runs: write its steps once per case, or an "
               "examples: table")
        walk.record_calls(node, "not_converted", why, block)
        walk.record(node, "not_converted", why, block, "statement")
        return
    walk.record(node, "converted", f"a loop over literal data, unrolled ({len(items)} times)", block,
                "statement")
    if right is not None:
        walk.record_calls(right, "converted", "the loop's literal data", block)
    for item in items:
        inner = dict(scope)
        inner[text(walk.source, name)] = item
        walk.body(body, inner, block)


def _existence(step: Any) -> bool:
    """An existence check: the same one right after it checks nothing more (a query's implicit check)."""
    return isinstance(step, dict) and step.get("type") == "expect" and step.get("kind") == "selector_exists"


def _call_of(node: Node) -> Node | None:
    """The call an expression statement makes (`await` and parentheses aside), else None."""
    while node.type in ("expression_statement", "await_expression", "parenthesized_expression"):
        inner = children(node)
        if not inner:
            return None
        node = inner[0]
    return node if node.type == "call_expression" else None
