"""A suite's own keywords (`*** Keywords ***`) and its `GROUP` blocks, as flowwalk's calls and groups.

A user keyword is what a steps file is to a flow spec: steps with arguments, run where they are
called. Its `[Arguments]` are text parameters (`${title}`, or `${field}=#new-todo` with a default),
passed by position or by name (`field=#todo`) as Robot Framework passes them. A call is expanded in
place: each call the keyword's body makes is read with the keyword's arguments put in for its
`${names}` (the suite's other variables are left to the suite's expander, as Robot Framework's
local variables shadow the suite's), and every step it builds runs inside a frame named after the
keyword, at the call's line, which the reports nest steps under. A `GROUP` block (Robot Framework
7.2) is a named group of steps. A keyword that calls itself, directly or through others, is refused
at the call that closes the loop.

Robot Framework matches a call to a user keyword before a library's, ignoring case, spaces and
underscores, and a leading Given/When/Then/And/But; so does this module.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from robot.variables import VariableMatches, search_variable

from flowwalk.errors import Location
from flowwalk.events import StepFrame

__all__ = ["CALL_DEPTH_MAX", "Argument", "Expansion", "Group", "UserKeyword", "keyword_key", "parse_argument"]

#: how deep user keywords may call each other
CALL_DEPTH_MAX = 10
_BDD = ("given ", "when ", "then ", "and ", "but ")


def keyword_key(name: str) -> str:
    """A keyword name as Robot Framework compares them: no case, no spaces, no underscores."""
    return "".join(name.lower().split()).replace("_", "")


@dataclass(frozen=True)
class Argument:
    """One `[Arguments]` entry: `${name}`, or `${name}=default`."""

    name: str
    loc: Location
    default: str | None = None

    @property
    def key(self) -> str:
        return keyword_key(self.name)


def parse_argument(text: str, loc: Location) -> Argument | str:
    """An `[Arguments]` cell, or why it cannot be one of flowwalk's (a message)."""
    match = search_variable(text)
    if match.identifier in "@&" and match.is_variable():
        return f"'{text}': list and dictionary arguments are not supported"
    if match.identifier != "$" or match.start != 0 or match.items or ":" in match.base:
        return f"'{text}' is not a scalar argument such as ${{title}} or ${{field}}=#new-todo"
    rest = match.after
    if rest and not rest.startswith("="):
        return f"'{text}' is not a scalar argument such as ${{title}} or ${{field}}=#new-todo"
    return Argument(match.base, loc, rest[1:] if rest else None)


@dataclass(frozen=True)
class Group:
    """A `GROUP    <name>` block: the calls in it, reported under its name."""

    name: str
    loc: Location
    body: tuple[Any, ...]


@dataclass(frozen=True)
class UserKeyword:
    name: str
    loc: Location
    arguments: tuple[Argument, ...]
    #: the calls of its body (call sites of robot.py) and its GROUP blocks, in order
    body: tuple[Any, ...]


#: a problem reported by the caller: (where, message, hint)
Report = Callable[[Location, str, str], None]


@dataclass
class Expansion:
    """Expands user keyword calls and groups into the calls they make, each with its frames."""

    keywords: dict[str, UserKeyword]
    report: Report
    #: frame ids count up from 1 in each test case
    next_id: int = 0
    stack: list[UserKeyword] = field(default_factory=list)

    def start_test(self) -> None:
        self.next_id = 0

    def find(self, name: str) -> UserKeyword | None:
        """The user keyword a call names, if any (a leading BDD word is tried without, as RF does)."""
        found = self.keywords.get(keyword_key(name))
        if found is None:
            lower = name.lower()
            for prefix in _BDD:
                if lower.startswith(prefix):
                    return self.keywords.get(keyword_key(name[len(prefix):]))
        return found

    def expand(self, items: Any, frames: tuple[StepFrame, ...] = (),
               local: dict[str, str] | None = None) -> Iterator[tuple[Any, tuple[StepFrame, ...]]]:
        """(call site, the frames it runs in) for every call of `items`, user keywords expanded."""
        for item in items:
            if isinstance(item, Group):
                with_frame = frames + (self._frame("group", item.name, item.loc),)
                yield from self.expand(item.body, with_frame, local)
                continue
            site = _bound(item, local) if local else item
            keyword = self.find(site.name)
            if keyword is None:
                yield site, frames
                continue
            args = self._arguments(keyword, site)
            if args is None:
                continue
            if keyword in self.stack:
                chain = " -> ".join(k.name for k in self.stack[self.stack.index(keyword):]) + f" -> {keyword.name}"
                self.report(site.loc, f"recursive keyword: {chain}",
                            "a keyword cannot call itself, directly or through other keywords: move the calls they "
                            "share into a third keyword both call")
                continue
            if len(self.stack) >= CALL_DEPTH_MAX:
                self.report(site.loc, f"user keywords nest more than {CALL_DEPTH_MAX} deep here",
                            "call fewer keywords from keywords: a suite stays reviewable")
                continue
            frame = self._frame("call", keyword.name, site.loc, args)
            self.stack.append(keyword)
            try:
                yield from self.expand(keyword.body, frames + (frame,), {a.key: args[a.name] for a in keyword.arguments})
            finally:
                self.stack.pop()

    def _frame(self, kind: Any, title: str, loc: Location, args: dict[str, str] | None = None) -> StepFrame:
        self.next_id += 1
        return StepFrame(id=self.next_id, kind=kind, title=title, path=loc.path, line=loc.line, args=dict(args or {}))

    def _arguments(self, keyword: UserKeyword, site: Any) -> dict[str, str] | None:
        """The call's arguments by name, as Robot Framework binds them (position, then `name=value`
        for a name the keyword has), defaults filled in; None after reporting what is wrong."""
        names = {a.key: a for a in keyword.arguments}
        given: dict[str, str] = {}
        named_seen = False
        ok = True
        usage = "    ".join([keyword.name, *(f"${{{a.name}}}" + (f"={a.default}" if a.default is not None else "")
                                             for a in keyword.arguments)])
        positional = list(keyword.arguments)
        for cell in site.cells:
            head, eq, value = cell.raw.partition("=")
            target = names.get(keyword_key(head)) if eq and not head.endswith("\\") else None
            if target is not None:
                named_seen = True
                if target.name in given:
                    self.report(cell.loc, f"argument '{target.name}' of '{keyword.name}' is given twice", usage)
                    ok = False
                given[target.name] = value
                continue
            if named_seen:
                self.report(cell.loc, f"'{cell.raw}' comes after a named argument of '{keyword.name}'",
                            f"pass arguments by position first, then by name: {usage}")
                ok = False
                continue
            slot = next((a for a in positional if a.name not in given), None)
            if slot is None:
                self.report(cell.loc, f"'{keyword.name}' takes {len(keyword.arguments)} argument(s), got more",
                            f"its arguments: {usage}")
                ok = False
                continue
            given[slot.name] = cell.raw
        bound: dict[str, str] = {}
        for argument in keyword.arguments:
            if argument.name in given:
                bound[argument.name] = given[argument.name]
            elif argument.default is not None:
                # a default may use the arguments before it, as in Robot Framework
                bound[argument.name] = _substitute(argument.default, {keyword_key(k): v for k, v in bound.items()})
            else:
                self.report(site.loc, f"'{keyword.name}' needs argument '{argument.name}'", f"call it as: {usage}")
                ok = False
        return bound if ok else None


def _substitute(text: str, local: dict[str, str]) -> str:
    """`text` with each `${name}` of `local` replaced by its value; other variables left as written."""
    if "${" not in text:
        return text
    out: list[str] = []
    after = text
    for match in VariableMatches(text, identifiers="$"):
        key = keyword_key(match.base) if not match.items else ""
        out.append(match.before)
        out.append(local[key] if key in local else match.match)
        after = match.after
    out.append(after)
    return "".join(out)


def _bound(site: Any, local: dict[str, str]) -> Any:
    """A call site of a keyword's body with the keyword's arguments put in (name, cells, text)."""
    cells = tuple(dataclasses.replace(c, raw=_substitute(c.raw, local)) for c in site.cells)
    name = _substitute(site.name, local)
    return dataclasses.replace(site, name=name, cells=cells, text="    ".join([name, *(c.raw for c in cells)]))

