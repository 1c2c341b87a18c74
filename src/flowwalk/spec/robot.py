"""aitester-bdd `.robot` suites -> `model.Suite`, through Robot Framework's own parser.

Owns reading a suite: `get_model` gives the file as RF sees it (sections, settings, test cases,
keyword calls with line and column, `...` continuations already joined); this module replays the
calls in the order RF would run them (Suite Setup, then each test's [Setup], body, [Teardown], then
Suite Teardown), substitutes `${VARS}` (the suite's *** Variables ***, `--var` winning), resolves
each call against the keyword table of `robot_keywords.py` and assembles frozen scenarios. Every
problem comes back as a located `errors.Problem`; nothing here raises for bad input.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional, Union
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel
from robot.api import Token, get_model
from robot.api.parsing import ModelVisitor
from robot.parsing.model import blocks, statements
from robot.utils import timestr_to_secs, unescape
from robot.variables import VariableMatches, search_variable

from flowwalk.errors import Location, Problem
from flowwalk.events import StepFrame
from flowwalk.model import (SETTING_RANGES, Act, Goto, Rule, Scenario, Step, Suite, merge_tags,
                            tag_problem)
from flowwalk.settings import Settings
from flowwalk.spec import models as sm
from flowwalk.spec.robot_calls import (Call, CallError, Cell, Keyword, OpenPlace, PlanDraft, RuleDraft, ScenarioDraft,
                                       SecretMode)
from flowwalk.spec.robot_foreign import FOREIGN_LIBRARIES, foreign_call
from flowwalk.spec.robot_keywords import Match, Miss, match_keyword, typed_secrets
from flowwalk.spec.flow import environment_of
from flowwalk.spec.lower import StepBuilder
from flowwalk.spec.robot_user import Expansion, Group, UserKeyword, keyword_key, parse_argument
from flowwalk.spec.models import EnvironmentKeys
from flowwalk.spec.source import MAX_BYTES, LineTable, Source, escape
from flowwalk.spec.spelling import did_you_mean

LIBRARY = "aitester_bdd.AITester"
#: the rule `And I configure state setup` becomes in every scenario
STATE_SETUP_RULE = "state_setup"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER = re.compile(r"\{\{\s*[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
_BUILTINS = {"empty": "", "space": " "}
#: bounds of `${NAME}` substitution (each variable doubling the one before is 2**n characters after n
#: lines): the characters one value may grow to, all substitutions of a suite together, and how many
#: variables deep a value may nest
MAX_EXPANDED_CHARS = 100_000
MAX_EXPANDED_TOTAL = 2_000_000
MAX_VARIABLE_DEPTH = 100
#: a test's [Timeout] / Test Timeout becomes each rule's timeout: the bounds of a rule timeout
RULE_TIMEOUT_MS = tuple(int(v or 0) for v in SETTING_RANGES["rule_timeout_ms"])


def _problem(loc: Location, message: str, hint: str) -> Problem:
    """A located problem, on one line: names and values in it come from cells Robot Framework has
    unescaped (`I define rule "a\\nb"` names a rule with a line break), so control characters are
    escaped here, once for every message of this module and of the keyword modules (robot_calls.py,
    robot_builders.py, robot_keywords.py)."""
    return Problem(loc, escape(message), escape(hint))


# --- discovery --------------------------------------------------------------------------------------


class _ImportFinder(ModelVisitor):  # type: ignore[misc]  # RF ships no types for it
    def __init__(self) -> None:
        self.found: list[statements.LibraryImport] = []

    def visit_LibraryImport(self, node: statements.LibraryImport) -> None:  # noqa: N802 (RF's visitor API)
        if node.name == LIBRARY:
            self.found.append(node)


def is_aitester_suite(path: Path) -> bool:
    """A `.robot` file whose *** Settings *** import `aitester_bdd.AITester`.

    At most the size limit is read: a longer file counts as a suite when that much of it names the
    library, unparsed, so that loading refuses it for its size instead of skipping it unsaid."""
    try:
        with path.open(encoding="utf-8", errors="replace") as file:
            text = file.read(MAX_BYTES + 1)
    except OSError:
        return False
    if "aitester_bdd" not in text:  # cheap pre-check: most .robot files are plain RF suites
        return False
    if len(text) > MAX_BYTES:
        return True
    try:
        model = get_model(text, data_only=True)
    except Exception:  # RF's parser is lenient; anything it cannot read is simply not a suite
        return False
    finder = _ImportFinder()
    finder.visit(model)
    return bool(finder.found)


# --- the raw layer: calls in RF's execution order ---------------------------------------------------


@dataclass(frozen=True)
class _CallSite:
    name: str
    loc: Location
    cells: tuple[Cell, ...]
    text: str


@dataclass(frozen=True)
class _Setting:
    """A setting's value cell as written (a tag, a timeout), with where it is."""

    value: str
    loc: Location


@dataclass(frozen=True)
class _TestStart:
    name: str
    loc: Location
    description: str
    #: `[Tags]` of the test (None: it has none, so `Default Tags` apply)
    tags: tuple[_Setting, ...] | None = None
    #: `[Timeout]` of the test (None: `Test Timeout`, if any)
    timeout: _Setting | None = None


@dataclass(frozen=True)
class _TestEnd:
    pass


@dataclass(frozen=True)
class _Variable:
    name: str
    value: str
    loc: Location


#: characters str.splitlines() (so Robot Framework) ends a line at and an editor does not
_RF_ONLY_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class _Lines:
    """Robot Framework's line numbers as an editor's. RF numbers the lines of `str.splitlines()`,
    which also ends a line at VT, FF, FS, GS, RS, NEL, LS and PS; an editor (and GitHub's diff) only
    at \\n, \\r\\n and a lone \\r. A position becomes an offset in the text, then a line and column."""

    def __init__(self, text: str):
        self.starts: list[int] = []  # where each of RF's lines starts in the text
        offset = 0
        for line in text.splitlines(keepends=True):
            self.starts.append(offset)
            offset += len(line)
        self.table = LineTable(text)

    @staticmethod
    def of(path: Path) -> _Lines | None:
        """The table for the file as RF reads it (UTF-8, no BOM, CRLF as LF), or None when RF's
        line numbers are already an editor's."""
        try:
            text = path.read_bytes().decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
        except (OSError, UnicodeDecodeError):
            return None  # RF cannot read it either
        return _Lines(text) if _RF_ONLY_BREAKS.search(text) else None

    def position(self, lineno: int, col_offset: int) -> tuple[int, int]:
        if not 1 <= lineno <= len(self.starts):
            return lineno, col_offset + 1
        return self.table.position(self.starts[lineno - 1] + col_offset)


@dataclass
class _Reader:
    """Walks RF's model once and keeps what flowwalk needs, with positions."""

    rel: str
    #: RF's line numbers -> an editor's, when they differ
    lines: _Lines | None = None
    problems: list[Problem] = field(default_factory=list)
    variables: dict[str, _Variable] = field(default_factory=dict)
    imports_library: bool = False
    #: the first import of a library flowwalk does not run (SeleniumLibrary, Browser): who, where
    foreign_library: tuple[str, Location] | None = None
    suite_setup: _CallSite | None = None
    suite_teardown: _CallSite | None = None
    test_setup: _CallSite | None = None
    test_teardown: _CallSite | None = None
    events: list[_CallSite | Group | _TestStart | _TestEnd] = field(default_factory=list)
    #: `Test Tags` (and its old name `Force Tags`), `Default Tags`, `Test Timeout` of *** Settings ***
    test_tags: tuple[_Setting, ...] = ()
    default_tags: tuple[_Setting, ...] = ()
    test_timeout: _Setting | None = None
    #: the suite's own keywords (*** Keywords ***), by their name as RF compares names
    keywords: dict[str, UserKeyword] = field(default_factory=dict)

    def loc(self, token: Token) -> Location:
        if self.lines is not None:
            return Location(self.rel, *self.lines.position(token.lineno, token.col_offset))
        return Location(self.rel, token.lineno, token.col_offset + 1)

    def node_loc(self, node: statements.Statement) -> Location:
        tokens = [t for t in node.tokens if t.type not in (Token.SEPARATOR, Token.EOL, Token.EOS)]
        first = tokens[0] if tokens else node.tokens[0]
        return self.loc(first)

    def problem(self, loc: Location, message: str, hint: str = "") -> None:
        self.problems.append(_problem(loc, message, hint))

    def cells(self, node: statements.Statement) -> tuple[_Setting, ...]:
        return tuple(_Setting(t.value, self.loc(t)) for t in node.get_tokens(Token.ARGUMENT))

    def call_from(self, node: statements.Statement, name_type: str) -> _CallSite | None:
        name_token = node.get_token(name_type)
        if name_token is None or not name_token.value or name_token.value.upper() == "NONE":
            return None
        cells = tuple(Cell(t.value, self.loc(t)) for t in node.get_tokens(Token.ARGUMENT))
        text = "    ".join([name_token.value, *(c.raw for c in cells)])
        return _CallSite(name_token.value, self.loc(name_token), cells, text)

    # -- sections

    def read(self, model: blocks.File) -> None:
        for section in model.sections:
            if section.header is not None:
                self.rf_errors(section.header)
            if isinstance(section, blocks.SettingSection):
                for node in section.body:
                    self.setting(node)
            elif isinstance(section, blocks.VariableSection):
                for node in section.body:
                    self.variable(node)
            elif isinstance(section, blocks.TestCaseSection):
                for test in section.body:
                    if isinstance(test, blocks.TestCase):
                        self.test_case(test)
                    else:
                        self.other(test, "in *** Test Cases ***")
            elif isinstance(section, blocks.KeywordSection):
                for keyword in section.body:
                    if isinstance(keyword, blocks.Keyword):
                        self.user_keyword(keyword)
                    else:
                        self.other(keyword, "in *** Keywords ***")
            elif isinstance(section, (blocks.ImplicitCommentSection, blocks.CommentSection)):
                continue
            elif isinstance(section, blocks.InvalidSection) and section.header is not None:
                self.problem(self.node_loc(section.header),
                             f"unrecognized section header '{section.header.get_value(Token.INVALID_HEADER)}'",
                             "valid sections: *** Settings ***, *** Variables ***, *** Test Cases ***, "
                             "*** Keywords ***, *** Comments ***")
            else:
                for node in section.body:
                    self.rf_errors(node)

    def rf_errors(self, node: object) -> None:
        for error in getattr(node, "errors", ()) or ():
            loc = self.node_loc(node) if isinstance(node, statements.Statement) else Location(self.rel)
            message, hint = _rf_message(str(error))
            self.problem(loc, f"Robot Framework cannot read this line: {message}", hint)

    def setting(self, node: statements.Statement) -> None:
        if isinstance(node, statements.LibraryImport):
            if node.name == LIBRARY:
                self.imports_library = True
            elif node.name in FOREIGN_LIBRARIES and self.foreign_library is None:
                self.foreign_library = (FOREIGN_LIBRARIES[node.name], self.node_loc(node))
        elif isinstance(node, statements.SuiteSetup):
            self.suite_setup = self.call_from(node, Token.NAME)
        elif isinstance(node, statements.SuiteTeardown):
            self.suite_teardown = self.call_from(node, Token.NAME)
        elif isinstance(node, statements.TestSetup):
            self.test_setup = self.call_from(node, Token.NAME)
        elif isinstance(node, statements.TestTeardown):
            self.test_teardown = self.call_from(node, Token.NAME)
        elif isinstance(node, (statements.ResourceImport, statements.VariablesImport)):
            what = "resource files" if isinstance(node, statements.ResourceImport) else "variable files"
            self.problem(self.node_loc(node), f"importing {what} ('{node.name}') is not supported",
                         "flowwalk reads only this file: put the variables in its *** Variables *** "
                         "section or pass them with --var")
        elif isinstance(node, statements.TestTemplate):
            self.problem(self.node_loc(node), "Test Template is not supported",
                         "write each keyword call out in the test cases")
        elif isinstance(node, statements.TestTags) and not node.errors:
            self.test_tags += self.cells(node)
        elif isinstance(node, statements.DefaultTags) and not node.errors:
            self.default_tags += self.cells(node)
        elif isinstance(node, statements.TestTimeout) and not node.errors:
            self.test_timeout = next(iter(self.cells(node)), None)
        else:
            self.rf_errors(node)

    def variable(self, node: statements.Statement) -> None:
        if not isinstance(node, statements.Variable):
            self.rf_errors(node)
            return
        if node.errors:
            self.rf_errors(node)
            return
        token = node.get_token(Token.VARIABLE)
        assert token is not None
        loc = self.loc(token)
        raw = token.value.rstrip("=").rstrip()
        match = search_variable(raw)
        if match.identifier != "$":
            self.problem(loc, f"'{raw}': only scalar ${{NAME}} variables are supported",
                         "aitester-bdd keywords take strings; define a scalar, e.g. ${NAMES}    a, b")
            return
        if ":" in match.base:
            self.problem(loc, f"'{raw}': typed variables are not supported", f"write ${{{match.base.split(':')[0]}}}")
            return
        values = list(node.value)
        if values and values[0].startswith("separator="):
            sep, values = values[0][len("separator="):], values[1:]
        else:
            sep = " "
        key = _normalize(match.base)
        if key in self.variables:
            self.problem(loc, f"variable '{raw}' is defined twice",
                         f"the first definition is at {self.variables[key].loc}; keep one")
            return
        args = node.get_tokens(Token.ARGUMENT)
        value_loc = self.loc(args[0]) if args else loc
        self.variables[key] = _Variable(match.base, sep.join(values), value_loc)

    def test_case(self, test: blocks.TestCase) -> None:
        name_token = test.header.get_token(Token.TESTCASE_NAME)
        assert name_token is not None
        template = next((n for n in test.body if isinstance(n, statements.Template)), None)
        if template is not None:
            # with a template RF reads every line of the test as data for it: nothing else to check
            self.problem(self.node_loc(template), "[Template] is not supported",
                         "write each keyword call out in the test case")
            return
        setup: _CallSite | None = self.test_setup
        teardown: _CallSite | None = self.test_teardown
        description = ""
        tags: tuple[_Setting, ...] | None = None
        timeout: _Setting | None = None
        timeout_set = False
        body: list[_CallSite | Group] = []
        for node in test.body:
            if isinstance(node, statements.Setup):
                setup = self.call_from(node, Token.NAME)
            elif isinstance(node, statements.Teardown):
                teardown = self.call_from(node, Token.NAME)
            elif isinstance(node, statements.Documentation):
                description = node.value
            elif isinstance(node, statements.Tags) and not node.errors:
                tags = (tags or ()) + self.cells(node)
            elif isinstance(node, statements.Timeout) and not node.errors:
                timeout, timeout_set = next(iter(self.cells(node)), None), True
            elif isinstance(node, (statements.EmptyLine, statements.Comment)):
                continue
            elif isinstance(node, (statements.KeywordCall, blocks.Group)):
                body.extend(self.calls([node], "in a test case"))
            else:
                self.other(node, "in a test case")
        if not timeout_set:
            timeout = self.test_timeout
        self.events.append(_TestStart(name_token.value, self.loc(name_token), description, tags, timeout))
        self.events.extend(s for s in (setup, *body, teardown) if s is not None)
        self.events.append(_TestEnd())

    def calls(self, nodes: object, where: str) -> tuple[_CallSite | Group, ...]:
        """The keyword calls and GROUP blocks of a body (a test's, a keyword's, a group's)."""
        out: list[_CallSite | Group] = []
        for node in nodes:  # type: ignore[attr-defined]
            if isinstance(node, statements.KeywordCall):
                if node.errors:
                    self.rf_errors(node)
                elif node.assign:
                    self.problem(self.node_loc(node), f"assigning '{node.keyword}' to {', '.join(node.assign)} "
                                 "is not supported", "aitester-bdd keywords return nothing; call it without "
                                 "the variable")
                else:
                    site = self.call_from(node, Token.KEYWORD)
                    if site is not None:
                        out.append(site)
            elif isinstance(node, blocks.Group):
                name = node.header.get_value(Token.ARGUMENT) if node.header is not None else None
                loc = self.node_loc(node.header)
                if node.errors or not name:
                    self.rf_errors(node.header)
                    if not node.errors:
                        self.problem(loc, "GROUP has no name", "name it: GROUP    Showing all items")
                    continue
                out.append(Group(name, loc, self.calls(node.body, where)))
            elif isinstance(node, (statements.EmptyLine, statements.Comment)):
                continue
            else:
                self.other(node, where)
        return tuple(out)

    def user_keyword(self, keyword: blocks.Keyword) -> None:
        """One user keyword: its [Arguments] and the calls of its body (robot_user.py runs them)."""
        token = keyword.header.get_token(Token.KEYWORD_NAME)
        assert token is not None
        name, loc = token.value, self.loc(token)
        if search_variable(name).is_variable() or "${" in name:
            self.problem(loc, f"keyword '{name}' takes embedded arguments, which flowwalk does not read",
                         "take them as [Arguments] instead, e.g. [Arguments]    ${title}")
            return
        if keyword_key(name) in self.keywords:
            self.problem(loc, f"keyword '{name}' is defined twice",
                         f"the first is at {self.keywords[keyword_key(name)].loc}; keep one")
            return
        arguments = []
        body: list[object] = []
        for node in keyword.body:
            if isinstance(node, statements.Arguments) and not node.errors:
                for cell in node.get_tokens(Token.ARGUMENT):
                    parsed = parse_argument(cell.value, self.loc(cell))
                    if isinstance(parsed, str):
                        self.problem(self.loc(cell), parsed, "write ${name}, or ${name}=<default>")
                    else:
                        arguments.append(parsed)
            elif isinstance(node, (statements.Documentation, statements.Tags)):
                continue
            else:
                body.append(node)
        self.keywords[keyword_key(name)] = UserKeyword(name, loc, tuple(arguments), self.calls(body, "in a keyword"))

    def other(self, node: object, where: str) -> None:
        if isinstance(node, statements.TemplateArguments):
            return  # only under Test Template / [Template], which are refused on their own line
        if getattr(node, "errors", None) and isinstance(node, statements.Statement):
            self.rf_errors(node)
            return
        header = getattr(node, "header", node)
        if isinstance(header, statements.Statement):
            kind = header.type if header.type else type(node).__name__
            self.problem(self.node_loc(header), f"{kind} {where} is not supported",
                         "flowwalk reads a suite as data: write each aitester-bdd keyword call on its own line")

    def calls_in_order(self) -> Iterator[_CallSite | Group | _TestStart | _TestEnd]:
        if self.suite_setup is not None:
            yield self.suite_setup
        yield from self.events
        if self.suite_teardown is not None:
            yield self.suite_teardown


def _rf_message(error: str) -> tuple[str, str]:
    """Robot Framework's complaint as one line of message and one of hint. RF puts its suggestions
    on lines of their own ("Non-existing setting 'X'. Did you mean:\\n    Y"): they become the hint."""
    head, said, rest = error.partition(" Did you mean:")
    if said:
        options = [" ".join(line.split()) for line in rest.splitlines()]
        options = [f"'{option}'" for option in options if option]
        if options:
            choice = options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]
            return _one_line(head), f"did you mean {choice}?"
    return _one_line(error), "see the Robot Framework user guide for the syntax of this line"


def _one_line(text: str) -> str:
    return " ".join(text.split()).removesuffix(".")


# --- variables --------------------------------------------------------------------------------------


def _normalize(name: str) -> str:
    """RF variable names ignore case, spaces and underscores."""
    return "".join(name.lower().split()).replace("_", "")


class _Unbounded(CallError):
    """A value past the bounds of substitution; refused even when nothing uses the variable."""


#: the outcome of expanding one file variable: (value, how many variables deep it nests), or the
#: refusal as (exception class, message, hint, location)
_Outcome = Union[tuple[str, int], tuple[type[CallError], str, str, Optional[Location]]]


class _Expander:
    """`${NAME}` substitution as RF does it before a library sees a value, plus flowwalk's secrets.

    A file variable is expanded once per secret mode and its outcome (value or refusal) remembered,
    so variables built from each other cost their length, not the number of paths through them.
    The variables a value uses are expanded before it, deepest first, so that a long chain does not
    nest Python calls (only a cycle does, and the cycle is refused). Lengths are bounded by
    `MAX_EXPANDED_CHARS` (one value) and `MAX_EXPANDED_TOTAL` (the suite), nesting by
    `MAX_VARIABLE_DEPTH`."""

    def __init__(self, file_vars: dict[str, _Variable], run_vars: dict[str, tuple[str, str]],
                 settings_secrets: dict[str, str]):
        self.file_vars = file_vars
        self.run_vars = run_vars
        self.settings_secrets = settings_secrets
        #: normalized name -> the spelling used in `{{NAME}}` placeholders
        self.secrets: dict[str, str] = dict(settings_secrets)
        self.marked: set[str] = set()   # names the file itself marks secret
        self._stack: list[str] = []
        self._memo: dict[tuple[str, SecretMode], _Outcome] = {}
        self._uses: dict[str, list[str]] = {}  # normalized name -> the names its value refers to
        self._deepest = 0  # the deepest variable the value being expanded refers to
        self._total = 0  # characters produced by substitution so far
        self._exhausted: _Unbounded | None = None  # the refusal once _total passed its bound

    def known(self, key: str) -> bool:
        return key in self.run_vars or key in self.settings_secrets or key in self.file_vars

    def spelling(self, key: str, written: str) -> str:
        """The name a secret's `{{NAME}}` placeholder uses: as --secret spells it when the run
        supplies it (the walker looks its value up by that name), else as the suite defines it."""
        if key in self.settings_secrets:
            return self.settings_secrets[key]
        if key in self.file_vars:
            return self.file_vars[key].name
        if key in self.run_vars:
            return self.run_vars[key][0]
        return written

    def mark_secret(self, raw: str) -> None:
        match = search_variable(raw.strip())
        if match.is_variable() and match.identifier == "$" and not match.items:
            key = _normalize(match.base)
            self.secrets[key] = self.spelling(key, match.base)
            self.marked.add(self.secrets[key])
            self._memo.clear()  # values that use it now hold its placeholder
            self._uses.clear()

    def expand(self, text: str, loc: Location, what: str, secrets: SecretMode) -> str:
        if secrets == "only":
            return self._only(text, loc, what)
        out: list[str] = []
        consumed = 0
        size = 0
        after = text
        for match in VariableMatches(text, identifiers="$@&%"):
            at = Location(loc.path, loc.line, loc.col + consumed + match.start)
            out.append(self._literal(match.before, at))
            out.append(self._value(match.identifier, match.base, match.items, match.match, at, what, secrets))
            size += len(out[-2]) + len(out[-1])
            if size > MAX_EXPANDED_CHARS:
                raise _Unbounded(f"{what} expands to more than {MAX_EXPANDED_CHARS:,} characters",
                                 "each ${NAME} in a value is replaced by that variable's whole value, so "
                                 "variables built from each other grow fast: use fewer of them, or write "
                                 "the value out", loc)
            consumed += match.end
            after = match.after
        out.append(self._literal(after, loc))
        if consumed:
            self._spend(size + len(out[-1]), loc)
        return "".join(out)

    def _spend(self, size: int, loc: Location) -> None:
        """Count characters produced by substitution against the suite's bound."""
        self._total += size
        if self._exhausted is None and self._total > MAX_EXPANDED_TOTAL:
            self._exhausted = _Unbounded(
                f"substituting variables in this suite comes to more than {MAX_EXPANDED_TOTAL:,} characters",
                "each ${NAME} is replaced by that variable's whole value: use long values in fewer places", loc)
        if self._exhausted is not None:  # the same refusal every time, so it is reported once
            raise _Unbounded(self._exhausted.message, self._exhausted.hint, self._exhausted.loc)

    def _literal(self, text: str, loc: Location) -> str:
        value = str(unescape(text))
        found = _PLACEHOLDER.search(value)
        if found:
            raise CallError(f"'{found.group(0)}' would be read as a flowwalk placeholder",
                            "in a .robot suite write Robot Framework variables: ${NAME}", loc)
        return value

    def _only(self, text: str, loc: Location, what: str) -> str:
        match = search_variable(text.strip())
        if not match.is_variable() or match.identifier != "$" or match.items:
            raise CallError(f"{what} is the literal '{text}'",
                            "a typed secret must be a variable fed by --secret, e.g. \"${PASSWORD}\" "
                            "with --secret PASSWORD (read from the environment variable PASSWORD)", loc)
        key = _normalize(match.base)
        if not self.known(key):
            raise self._undefined(match.base, loc, secret=True)
        name = self.spelling(key, match.base)
        if not _IDENTIFIER.fullmatch(name):
            raise CallError(f"secret variable '${{{name}}}' is not a plain identifier",
                            "name secrets with letters, digits and underscores, e.g. ${ADMIN_PASSWORD}", loc)
        return "{{" + name + "}}"

    def _value(self, identifier: str, base: str, items: tuple[str, ...], written: str, loc: Location,
               what: str, secrets: SecretMode) -> str:
        if identifier == "%":
            raise CallError(f"environment variable '{written}' is not read from a suite",
                            f"pass the value with --var {base}=<value> (or --secret {base}, read from the "
                            "environment, for a secret) and write ${" + base + "}", loc)
        if identifier in "@&":
            raise CallError(f"list or dictionary variable '{written}' is not supported",
                            "aitester-bdd keywords take strings; use a scalar ${NAME}", loc)
        if items or "${" in base or not re.fullmatch(r"[\w \-]+", base):
            raise CallError(f"'{written}': item access and extended variable syntax are not supported",
                            "use a plain ${NAME}; define a separate variable for the value you need", loc)
        key = _normalize(base)
        if key in self.secrets:
            if secrets == "refuse":
                raise CallError(f"secret variable '{written}' is used in {what}",
                                "flowwalk types secrets only into fields (I type, I fill, I type secret); it "
                                "never puts them into URLs, selectors, checks or names", loc)
            if not self.known(key):
                raise self._undefined(base, loc, secret=True)
            name = self.secrets[key]
            if not _IDENTIFIER.fullmatch(name):
                raise CallError(f"secret variable '${{{name}}}' is not a plain identifier",
                                "name secrets with letters, digits and underscores", loc)
            return "{{" + name + "}}"
        if key in self.run_vars:
            return self.run_vars[key][1]
        if key in self.file_vars:
            return self._file_value(key, secrets)
        if key in _BUILTINS:
            return _BUILTINS[key]
        if re.fullmatch(r"-?\d+(\.\d+)?", base):
            return base
        raise self._undefined(base, loc)

    def _file_value(self, key: str, secrets: SecretMode) -> str:
        """The value of a *** Variables *** entry, expanded once per secret mode."""
        outcome = self._memo.get((key, secrets))
        if outcome is None:
            if key in self._stack:
                chain = " -> ".join(f"${{{self.file_vars[k].name}}}"
                                    for k in [*self._stack[self._stack.index(key):], key])
                var = self.file_vars[key]
                raise CallError(f"variable '${{{var.name}}}' refers to itself: {chain}",
                                "break the loop in *** Variables ***", var.loc)
            if len(self._stack) >= MAX_VARIABLE_DEPTH:  # only through a cycle: see _dependencies_first
                raise self._too_deep(self.file_vars[key])
            if not self._stack:
                for dependency in self._dependencies_first(key, secrets):
                    self._outcome(dependency, secrets)
            outcome = self._outcome(key, secrets)
        if len(outcome) == 4:
            cls, message, hint, loc = outcome
            raise cls(message, hint, loc)
        value, depth = outcome
        self._deepest = max(self._deepest, depth)
        return value

    def _outcome(self, key: str, secrets: SecretMode) -> _Outcome:
        """Expand one file variable (the ones it uses are mostly remembered already) and remember it."""
        outcome = self._memo.get((key, secrets))
        if outcome is not None:
            return outcome
        var = self.file_vars[key]
        outer, self._deepest = self._deepest, 0
        self._stack.append(key)
        try:
            value = self.expand(var.value, var.loc, f"the value of '${{{var.name}}}'", secrets)
            if self._deepest + 1 > MAX_VARIABLE_DEPTH:
                raise self._too_deep(var)
            outcome = (value, self._deepest + 1)
        except CallError as err:
            outcome = (type(err), err.message, err.hint, err.loc)
        finally:
            self._stack.pop()
            self._deepest = outer
        self._memo[(key, secrets)] = outcome
        return outcome

    def _dependencies_first(self, key: str, secrets: SecretMode) -> list[str]:
        """The file variables `key`'s value uses, directly or not, each after the ones it uses, and
        `key` last: depth-first without recursion. Those on a cycle through the current path are left
        out (low-link, as in Tarjan's algorithm): expanding them from `key` refuses the cycle as seen
        from `key`."""
        order: list[str] = []
        done: set[str] = set()
        index = {key: 0}  # position on the current path
        low = {key: 0}    # the lowest position on the path a cycle from here leads back to
        stack = [(key, iter(self._refs(key)))]
        while stack:
            name, refs = stack[-1]
            ref = next(refs, None)
            if ref is None:
                stack.pop()
                del index[name]
                done.add(name)
                if low[name] >= len(stack):
                    order.append(name)
                else:
                    parent = stack[-1][0]
                    low[parent] = min(low[parent], low[name])
            elif ref in index:
                low[name] = min(low[name], index[ref])
            elif ref not in done and (ref, secrets) not in self._memo:
                index[ref] = low[ref] = len(stack)
                stack.append((ref, iter(self._refs(ref))))
        return order

    def _refs(self, key: str) -> list[str]:
        """The file variables the value of `key` names (as `_value` would look them up)."""
        refs = self._uses.get(key)
        if refs is None:
            refs = []
            for match in VariableMatches(self.file_vars[key].value, identifiers="$@&%"):
                ref = _normalize(match.base)
                if (match.identifier == "$" and not match.items and ref in self.file_vars and ref not in self.secrets
                        and ref not in self.run_vars and ref not in refs):
                    refs.append(ref)
            self._uses[key] = refs
        return refs

    def _too_deep(self, var: _Variable) -> _Unbounded:
        return _Unbounded(f"the value of '${{{var.name}}}' nests variables more than {MAX_VARIABLE_DEPTH} deep",
                          "its value uses a variable whose value uses another, and so on, more than "
                          f"{MAX_VARIABLE_DEPTH} times (or in a loop): write one of the values out", var.loc)

    def _undefined(self, base: str, loc: Location, secret: bool = False) -> CallError:
        names = [v.name for v in self.file_vars.values()] + [n for n, _ in self.run_vars.values()]
        guess = did_you_mean(base, names)
        hint = f"did you mean '${{{guess}}}'? " if guess else ""
        if secret:
            hint += (f"define it in *** Variables *** or pass --secret {base} "
                     f"(read from the environment variable {base})")
        else:
            hint += f"define it in *** Variables *** or pass --var {base}=<value>"
        return CallError(f"variable '${{{base}}}' is not defined", hint, loc)

    def defaults(self) -> tuple[dict[str, str], list[CallError]]:
        """The file's own values, resolved; one that cannot be resolved is left out (RF resolves
        lazily, so an unused broken value is no error), unless it is past the bounds of substitution:
        those come back as errors (every value is resolved here, used or not)."""
        out: dict[str, str] = {}
        unbounded: list[CallError] = []
        for var in self.file_vars.values():
            try:
                out[var.name] = self.expand(var.value, var.loc, f"the value of '${{{var.name}}}'", "placeholder")
            except _Unbounded as err:
                unbounded.append(err)
            except CallError:
                continue
        return out, unbounded


# --- assembling the model ---------------------------------------------------------------------------


class _Loader:
    def __init__(self, rel: str, settings: Settings):
        self.rel = rel
        self.settings = settings
        self.problems: list[Problem] = []

    def problem(self, loc: Location, message: str, hint: str = "") -> None:
        self.problems.append(_problem(loc, message, hint))

    def load(self, path: Path) -> Suite | None:
        try:
            size = path.stat().st_size
        except OSError:
            size = 0  # RF's parser says why it cannot read it, below
        if size > MAX_BYTES:  # the same bound as flow and rule files: parsing time grows with the size
            self.problem(Location(self.rel), f"file is too large ({size:,} bytes; the limit is 1 MiB)",
                         "a suite is a reviewable artifact: split it into smaller suites")
            return None
        try:
            model = get_model(str(path), data_only=False)
        except Exception as exc:  # unreadable file: one problem, never a traceback
            self.problem(Location(self.rel), f"cannot read the suite: {exc}", "check the file exists and is UTF-8")
            return None
        reader = _Reader(self.rel, _Lines.of(path))
        reader.read(model)
        self.problems.extend(reader.problems)
        if not reader.imports_library:
            hint = f"add 'Library    {LIBRARY}' to its *** Settings ***"
            if reader.foreign_library is not None:
                who, where = reader.foreign_library
                hint += (f"; flowwalk runs aitester-bdd's keywords, not those of {who} (imported on line "
                         f"{where.line}): its calls below say what to write instead, where aitester-bdd has it")
            self.problem(Location(self.rel), f"the suite does not import {LIBRARY}", hint)
        run_vars = {_normalize(k): (k, v) for k, v in self.settings.variables.items()}
        if self.settings.base_url and "baseurl" not in run_vars:
            # `aitester run --base-url U` passes `--variable BASE_URL:U`; flowwalk's --base-url does too
            run_vars["baseurl"] = ("BASE_URL", self.settings.base_url)
        secret_names = set(self.settings.secret_names) | set(self.settings.secrets.names())
        expander = _Expander(reader.variables, run_vars, {_normalize(n): n for n in secret_names})

        # the suite's own keywords and GROUP blocks expanded: each call with the frames it runs in
        expansion = Expansion(reader.keywords, self.problem)
        expanded: list[tuple[_CallSite | _TestStart | _TestEnd, tuple[StepFrame, ...]]] = []
        #: per test case (the index of its start): the id of its last keyword call or group
        last_ids: dict[int, int] = {}
        started = 0
        for event in reader.calls_in_order():
            if isinstance(event, (_TestStart, _TestEnd)):
                if isinstance(event, _TestEnd):
                    last_ids[started] = expansion.next_id
                started = len(expanded)
                expansion.start_test()
                expanded.append((event, ()))
            else:
                expanded.extend(expansion.expand([event]))
        sites = [site for site, _ in expanded]
        matches: dict[int, Match | Miss] = {}
        for i, site in enumerate(sites):
            if isinstance(site, _CallSite):
                matches[i] = found = match_keyword(site.name)
                if isinstance(found, Match):
                    for raw in typed_secrets(found, site.cells):
                        expander.mark_secret(raw)
        # every value of *** Variables ***, used or not: one past the bounds is refused here
        defaults, unbounded = expander.defaults()
        for err in unbounded:
            self.problem(err.loc or Location(self.rel), err.message, err.hint)

        plan = PlanDraft(builder=StepBuilder(Source(path=self.rel, data=None), self.settings))
        for i, site in enumerate(sites):
            if isinstance(site, _TestStart):
                plan.test, plan.test_scenario, plan.rule = (site.name, site.loc), None, None
                plan.test_description = site.description
                plan.test_tags = self.tags(reader, site, expander)
                plan.test_timeout_ms = self.timeout(site.timeout, expander)
                # frames and popups are numbered after the test's keyword calls and groups
                plan.last_frame_id = last_ids.get(i, 0)
            elif isinstance(site, _TestEnd):
                self.unclosed(plan, plan.ended_places(()))
                self.unclosed(plan, plan.close_places())
                plan.test, plan.test_scenario, plan.rule = None, None, None
            else:
                found = matches[i]
                self.unclosed(plan, plan.ended_places(expanded[i][1]))
                if isinstance(found, Match) and found.keyword.role in ("rule", "scenario"):
                    self.unclosed(plan, plan.close_places())
                before = sites[i - 1] if i else None
                self.run_call(site, found, plan, expander, before if isinstance(before, _CallSite) else None)
        if self.problems:
            return None
        scenarios = self.assemble(plan, expander, defaults)
        if self.problems:
            return None
        return Suite(path=self.rel, kind="robot", scenarios=tuple(scenarios))

    def setting_text(self, cell: _Setting, expander: _Expander, what: str) -> str | None:
        """A setting's cell with its ${VARIABLES} substituted (None: refused, said in problems)."""
        try:
            return expander.expand(cell.value, cell.loc, what, "refuse")
        except (CallError, _Unbounded) as err:
            self.problem(err.loc or cell.loc, err.message, err.hint)
            return None

    def tags(self, reader: _Reader, site: _TestStart, expander: _Expander) -> tuple[str, ...]:
        """A test's tags as Robot Framework 7 gives them: `Test Tags`, then the test's `[Tags]` (or,
        when it has none, `Default Tags`); `[Tags]    -name` removes a tag (a `*` pattern too)."""
        out: list[str] = []
        removed: list[str] = []
        cells = (*reader.test_tags, *(site.tags if site.tags is not None else reader.default_tags))
        for cell in cells:
            text = self.setting_text(cell, expander, "a tag")
            if text is None or text.upper() == "NONE" or not text:
                continue
            if text.startswith("-") and site.tags is not None and cell in site.tags:
                removed.append(text[1:].lower())
                continue
            problem = tag_problem(text, f"'{text}'")
            if problem is not None:
                self.problem(cell.loc, *problem)
                continue
            out.append(text)
        kept = [t for t in out if not any(fnmatch.fnmatchcase(t.lower(), r) for r in removed)]
        return merge_tags(kept)

    def timeout(self, cell: _Setting | None, expander: _Expander) -> int | None:
        """`[Timeout]` / `Test Timeout` as every rule's timeout in ms (a rule's own `I set rule
        timeout` wins); None for no timeout (none written, NONE, or empty)."""
        if cell is None:
            return None
        text = self.setting_text(cell, expander, "the timeout")
        if text is None or not text.strip() or text.strip().upper() == "NONE":
            return None
        try:
            seconds = timestr_to_secs(text)
        except (ValueError, TypeError):
            self.problem(cell.loc, f"timeout '{text}' is not a time",
                         "write it as Robot Framework does, e.g. 30 seconds, 1 minute 30 s, 90s or 2 min")
            return None
        ms = int(round(float(seconds) * 1000))
        low, high = RULE_TIMEOUT_MS
        if not low <= ms <= high:
            self.problem(cell.loc, f"timeout '{text}' is {ms / 1000:g} s; flowwalk takes {low / 1000:g} s to "
                                   f"{high / 1000:g} s",
                         "it bounds each rule of the test (guards and checks), like a rule timeout: choose a time "
                         "in that range")
            return None
        return ms

    def run_call(self, site: _CallSite, found: Match | Miss, plan: PlanDraft, expander: _Expander,
                 before: _CallSite | None = None) -> None:
        """Build one call into `plan` (`before`: the call on the line before it in the same test, if any)."""
        if isinstance(found, Miss):
            told = (before.name, [c.raw for c in before.cells], before.loc.line) if before is not None else None
            foreign = foreign_call(site.name, [cell.raw for cell in site.cells], told)
            # a suite moved from SeleniumLibrary or the Browser library: the call that does the same
            hint = found.hint if foreign is None else (
                f"'{site.name}' is a keyword of {' and of '.join(foreign.libraries)}; {foreign.says()}")
            self.problem(site.loc, found.message, hint)
            self.broke(plan, None)
            return
        keyword = found.keyword
        if keyword.refused is not None:
            why, instead = keyword.refused
            self.problem(site.loc, f"flowwalk does not run '{site.name}': {why}", f"instead, {instead}")
            self.broke(plan, keyword)
            return
        call = Call(keyword=keyword, name=site.name, loc=site.loc, text=site.text, raw_args=found.args,
                    cells=site.cells, expander=expander)
        try:
            if keyword.cells == "none" and site.cells:
                raise CallError(f"'{site.name}' takes no extra cells, got '{site.cells[0].raw}'",
                                "remove the cell (cells are separated by two or more spaces)", site.cells[0].loc)
            assert keyword.build is not None
            keyword.build(call, plan)
        except CallError as err:
            for each in (err, *err.more):
                self.problem(each.loc or site.loc, each.message, each.hint)
            self.broke(plan, keyword)

    def unclosed(self, plan: PlanDraft, places: list[OpenPlace]) -> None:
        """Refuse each frame or popup of `places`, left open where its rule, keyword call or GROUP ended."""
        for place in places:
            if place.rule.broken:
                continue  # a refused line of the rule said what is wrong
            block = place.outer[-1] if plan.frames[:len(place.outer)] != place.outer else None
            where = (f"where keyword '{block.title}' ends (called at line {block.line})"
                     if block is not None and block.kind == "call" else
                     f"where GROUP '{block.title}' ends" if block is not None else f"in rule '{place.rule.name}'")
            leave = ("When I leave the frame" if place.block.kind == "frame" else
                     "When I close the popup, or When I switch back from the popup to leave it open")
            self.problem(place.loc, f"the {place.block.title} entered here is never left {where}",
                         f"end its steps with {leave}, in the same rule, keyword or GROUP")

    def broke(self, plan: PlanDraft, keyword: Keyword | None) -> None:
        """After a refused call, keep reading without piling follow-up errors onto it: the lines
        that would have gone into the scenario or rule it failed to start go into a detached one."""
        role = keyword.role if keyword is not None else ""
        here = plan.test[1] if plan.test is not None else Location(self.rel)
        if plan.test is not None and plan.test_scenario is None and role != "rule":
            plan.test_scenario = plan.scenario = ScenarioDraft(plan.test[0], here, "", here, None, broken=True)
            plan.rule = None
        elif role == "setting" and plan.test_scenario is not None:
            # a refused scenario setting: the test's next settings still come before its rules
            plan.test_scenario.broken = True
        elif role == "rule" and plan.test_scenario is not None:
            plan.rule = RuleDraft(name="", loc=here, broken=True)
            plan.test_scenario.broken = True
        elif plan.rule is not None:
            plan.rule.broken = True
        elif plan.test_scenario is not None:
            plan.test_scenario.broken = True
            plan.rule = RuleDraft(name="", loc=here, broken=True)

    # -- drafts -> frozen model

    def url(self, url: str, loc: Location, entry: bool = False) -> str | None:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            return url
        if url.startswith("/") and not url.startswith("//"):
            if self.settings.base_url:
                return urljoin(self.settings.base_url, url)
            if not entry:
                return url  # the walker resolves it against the current page
        self.problem(loc, f"'{url}' is not an absolute http(s) URL",
                     "write http://… or https://… (for example \"${BASE_URL}/login\" with --var BASE_URL=…)"
                     + (", or a path starting with / and --base-url" if entry else ""))
        return None

    def assemble(self, plan: PlanDraft, expander: _Expander, defaults: dict[str, str]) -> list[Scenario]:
        out: list[Scenario] = []
        seen: dict[str, Location] = {}
        for draft in plan.scenarios:
            scenario_id = f"{self.rel}#{draft.test_name}"
            if scenario_id in seen:
                self.problem(draft.test_loc, f"test case name '{draft.test_name}' is used twice",
                             f"the first is at {seen[scenario_id]}; scenario ids are '<file>#<test name>', "
                             "so test names must be unique")
                continue
            seen[scenario_id] = draft.test_loc
            scenario = self.scenario(draft, scenario_id, plan, defaults, expander)
            if scenario is not None:
                out.append(scenario)
        return out

    def scenario(self, draft: ScenarioDraft, scenario_id: str, plan: PlanDraft, defaults: dict[str, str],
                 expander: _Expander) -> Scenario | None:
        entry = self.url(draft.entry_url, draft.loc, entry=True) if draft.entry_url is not None else None
        rules: list[Rule] = []
        if plan.setup_actions:
            setup = self.state_setup(plan, draft, entry)
            if setup is not None:
                rules.append(setup)
        for rule in draft.rules.values():
            if not rule.steps:
                if not rule.broken:
                    self.problem(rule.loc, f"rule '{rule.name}' has no steps",
                                 "add state checks, actions or an emit under it; a rule without steps checks nothing")
                continue
            rules.append(self.rule(rule, draft.timeout_ms))
        if not draft.rules and not draft.broken:
            self.problem(draft.loc, f"scenario '{draft.name}' defines no rule",
                         "add I define rule \"<name>\" with steps to the test case")
            return None
        self.check_parents(draft, rules)
        rules = _numbered_in_order(rules)
        hosts: list[str] = []
        entry_host = urlsplit(entry).hostname if entry else None
        for built in rules:
            for step in built.steps:
                if isinstance(step, Goto):
                    host = urlsplit(step.url).hostname
                    if host and host != entry_host and host not in hosts:
                        hosts.append(host)
        return Scenario(
            id=scenario_id, name=draft.name, source=self.rel, kind="robot", loc=draft.test_loc,
            entry_url=entry, rules=tuple(rules), description=draft.description, allowed_hosts=tuple(hosts),
            dismiss_selectors=tuple(plan.dismiss), variables=defaults, secrets=frozenset(expander.marked),
            tags=draft.tags, session=draft.session, session_loc=draft.session_loc,
            environment=environment_of(EnvironmentKeys.model_validate(draft.environment)),
        )

    def rule(self, draft: RuleDraft, test_timeout_ms: int | None = None) -> Rule:
        steps: list[Step] = []
        for step in draft.steps:
            if isinstance(step, Goto):
                url = self.url(step.url, step.loc)
                step = dataclasses.replace(step, url=url or step.url)
            steps.append(step)
        # the rule's own `I set rule timeout`, else the test's [Timeout] or Test Timeout
        timeout_ms = draft.timeout_ms if draft.timeout_ms is not None else test_timeout_ms
        return Rule(
            name=draft.name, loc=draft.loc, steps=tuple(steps), parents=tuple(p for p, _ in draft.parents),
            retry=draft.retry, guard_policy=draft.guard_policy, timeout_ms=timeout_ms,
            # the walker document: `set rule timeout` bounds guards as well as observations
            guard_timeout_ms=timeout_ms, child_scope=draft.child_scope, interrupts=draft.interrupts,
            interrupt_selectors=draft.interrupt_selectors, screenshot_on_enter=draft.screenshot_on_enter,
            screenshot_on_fail=draft.screenshot_on_fail, guards_enabled=True, saves_session=draft.saves_session,
        )

    def state_setup(self, plan: PlanDraft, draft: ScenarioDraft, entry: str | None) -> Rule | None:
        if STATE_SETUP_RULE in draft.rules:
            self.problem(draft.rules[STATE_SETUP_RULE].loc,
                         f"rule name '{STATE_SETUP_RULE}' is taken by the suite's 'I configure state setup'",
                         "rename this rule")
            return None
        first = plan.setup_actions[0]
        builder = plan.builder
        assert builder is not None
        steps: list[Step] = []

        def add(step: BaseModel, loc: Location, text: str) -> None:
            steps.append(dataclasses.replace(builder.lower(step, loc), text=text))

        if plan.setup_skip_when:
            # aitester-bdd skips the setup when this selector is present: a failed guard skips the rule
            add(sm.node(sm.expect_model("selector_absent"), type="expect", kind="selector_absent",
                        selector=plan.setup_skip_when), first.loc, f"skip_when={plan.setup_skip_when}")
        for action in plan.setup_actions:
            v = action.values
            # aitester-bdd logs and skips a failing setup action: optional steps do the same
            if v["action"] == "open":
                url = self.url(v["url"], action.loc) or v["url"]
                add(sm.node(sm.GotoStep, type="goto", optional=True, url=url), action.loc, action.text)
            elif v["action"] in ("input", "password"):
                add(sm.node(sm.ActStep, type="act", optional=True, action="fill", selector=v["css"], value=v["value"]),
                    action.loc, action.text)
            else:
                add(sm.node(sm.ActStep, type="act", optional=True, action="click", selector=v["css"]),
                    action.loc, action.text)
        if entry:
            # aitester-bdd runs the setup before the scenario opens its entry URL
            add(sm.node(sm.GotoStep, type="goto", optional=True, url=entry), draft.loc, f"open the entry URL {entry}")
        return Rule(name=STATE_SETUP_RULE, loc=first.loc, steps=tuple(steps), guards_enabled=True,
                    timeout_ms=draft.timeout_ms, guard_timeout_ms=draft.timeout_ms)

    def check_parents(self, draft: ScenarioDraft, rules: list[Rule]) -> None:
        names = [r.name for r in rules]
        known = set(draft.rules) | {r.name for r in rules}
        for rule in draft.rules.values():
            for parent, loc in rule.parents:
                if parent not in known:
                    guess = did_you_mean(parent, names)
                    self.problem(loc, f"rule '{rule.name}' declares parent '{parent}', which scenario "
                                 f"'{draft.name}' does not define",
                                 (f"did you mean '{guess}'? " if guess else "")
                                 + f"rules of this scenario: {', '.join(names) or 'none'}")
        from flowwalk.dag import find_cycle  # the one cycle finder (dag.py)

        # the whole declared graph, also rules refused for other reasons, so a cycle is named once
        graph = [Rule(name=r.name, loc=r.loc, steps=(), parents=tuple(p for p, _ in r.parents if p in known))
                 for r in draft.rules.values()]
        cycle = find_cycle(graph)
        if cycle:
            self.problem(self.cycle_loc(draft, list(cycle)), f"rule cycle: {' -> '.join(cycle)}",
                         "remove one of the parents; rules must form a DAG")

    def cycle_loc(self, draft: ScenarioDraft, cycle: list[str]) -> Location:
        """The `declare parents` line of one edge of the cycle, whichever way find_cycle reads it."""
        for a, b in zip(cycle, cycle[1:] + cycle[:1]):
            for child, parent in ((b, a), (a, b)):  # find_cycle: a -> b means b declares a
                rule = draft.rules.get(child)
                if rule is not None:
                    for name, loc in rule.parents:
                        if name == parent:
                            return loc
        first = draft.rules.get(cycle[0])
        return first.loc if first is not None else draft.loc


def _numbered_in_order(rules: list[Rule]) -> list[Rule]:
    """The test case's blocks numbered in the order they open (its keyword calls and groups were
    numbered before the frames and popups opened among them)."""
    ids: dict[int, int] = {}

    def number(old: int) -> int:
        return ids.setdefault(old, len(ids) + 1)

    out: list[Rule] = []
    for rule in rules:
        steps: list[Step] = []
        for step in rule.steps:
            if step.frames:
                step = dataclasses.replace(step, frames=tuple(dataclasses.replace(f, id=number(f.id))
                                                              for f in step.frames))
            if isinstance(step, Act) and step.popup is not None:
                step = dataclasses.replace(step, popup=dataclasses.replace(step.popup, frame=number(step.popup.frame)))
            steps.append(step)
        out.append(dataclasses.replace(rule, steps=tuple(steps)))
    return out


def load_robot_suite(path: Path, rel: str, settings: Settings) -> tuple[Suite | None, list[Problem]]:
    """Read one aitester-bdd suite. `rel` is the path shown to users and used in ids.

    Returns the Suite and no problems, or None and every problem found (never raises for bad input).
    """
    loader = _Loader(rel, settings)
    suite = loader.load(path)
    unique: dict[tuple[Location, str], Problem] = {}
    for p in loader.problems:
        unique.setdefault((p.loc, p.message), p)
    problems = sorted(unique.values(), key=lambda p: (p.loc.line, p.loc.col, p.message))
    return (suite if not problems else None), problems
