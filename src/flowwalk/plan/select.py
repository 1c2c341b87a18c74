"""Run selection: which scenarios of the loaded suites a run (and `flowwalk plan`) keeps.

Pure: `select_scenarios(scenarios, selection)` keeps the scenarios that hold at least one test the
selection picks, whole. The unit is the scenario, as for sharding: the rules of a scenario share
one page and run in dependency order, so running some of them without the others would test a
state the spec never reaches. A selected scenario is reported with all its tests.

A test is picked when every criterion given holds:
- `--grep REGEX`: Python `re.search` on the test id; `--grep-invert REGEX`: it does not match;
- `--tag EXPR`: the test's tags (its scenario's, its rule's) satisfy the expression: tag words
  joined by `and`, `or`, `not` and parentheses, `not` binding tightest, then `and`, then `or`;
  words compare without regard to case;
- `--last-failed REPORT`: the test did not pass in that report (`last_failed_ids`, read by the
  caller from the report's emit.jsonl: plan/ reads no reports).

Selection happens before sharding, so every shard job of a matrix computes the same selected plan
and `--shard` splits only what was selected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from flowwalk.errors import UsageError
from flowwalk.model import TAG_OPERATORS, Scenario, tag_problem

__all__ = ["Selection", "TagExpression", "parse_tag_expression", "select_scenarios"]

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


@dataclass(frozen=True)
class TagExpression:
    """A parsed `--tag` expression: `matches(tags)` answers it for one test's tags."""

    text: str
    _match: Callable[[frozenset[str]], bool] = field(repr=False, compare=False)

    def matches(self, tags: Sequence[str]) -> bool:
        return self._match(frozenset(t.lower() for t in tags))


def _bad(text: str, why: str, at: int | None = None) -> UsageError:
    pointer = ""
    if at is not None:
        pointer = f"\n    {text}\n    {' ' * at}^"
    return UsageError(f"--tag '{text}': {why}{pointer}\n  hint: join tag words with and, or, not and "
                      f"parentheses, e.g. --tag 'smoke and not slow' or --tag '(checkout or cart) and not flaky'")


def parse_tag_expression(text: str) -> TagExpression:
    """`smoke and not (slow or flaky)` -> a TagExpression; UsageError pointing at what is wrong."""
    tokens: list[tuple[str, int]] = []
    pos = 0
    while pos < len(text):
        found = _TOKEN.match(text, pos)
        if found is None or not found.group(1):
            break
        tokens.append((found.group(1), found.start(1)))
        pos = found.end()
    if not tokens:
        raise _bad(text, "the expression is empty")
    index = 0

    def peek() -> tuple[str, int] | None:
        return tokens[index] if index < len(tokens) else None

    def take() -> tuple[str, int]:
        nonlocal index
        token = tokens[index]
        index += 1
        return token

    def joined(word: str, inner: Callable[[], Callable[[frozenset[str]], bool]],
               combine: Callable[[Iterable[bool]], bool]) -> Callable[[frozenset[str]], bool]:
        """`inner (word inner)*`: one operator's level of the expression."""
        parts = [inner()]
        while (tok := peek()) is not None and tok[0].lower() == word:
            take()
            parts.append(inner())
        return parts[0] if len(parts) == 1 else (lambda tags: combine(p(tags) for p in parts))

    def either() -> Callable[[frozenset[str]], bool]:
        return joined("or", both, any)

    def both() -> Callable[[frozenset[str]], bool]:
        return joined("and", negation, all)

    def negation() -> Callable[[frozenset[str]], bool]:
        tok = peek()
        if tok is not None and tok[0].lower() == "not":
            take()
            inner = negation()
            return lambda tags: not inner(tags)
        return atom()

    def atom() -> Callable[[frozenset[str]], bool]:
        tok = peek()
        if tok is None:
            raise _bad(text, "it ends where a tag or '(' should come", len(text))
        word, at = take()
        if word == "(":
            inner = either()
            close = peek()
            if close is None or close[0] != ")":
                raise _bad(text, "a '(' is not closed", at)
            take()
            return inner
        if word == ")":
            raise _bad(text, "a ')' where a tag or '(' should come", at)
        if word.lower() in TAG_OPERATORS:
            raise _bad(text, f"'{word}' where a tag should come", at)
        problem = tag_problem(word)
        if problem is not None:
            raise _bad(text, problem[0], at)
        name = word.lower()
        return lambda tags: name in tags

    matcher = either()
    if (extra := peek()) is not None:
        word, at = extra
        why = "a ')' without its '('" if word == ")" else f"'{word}' follows a complete expression (and? or?)"
        raise _bad(text, why, at)
    return TagExpression(text, matcher)


def _compile(flag: str, pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as error:
        raise UsageError(f"{flag} '{pattern}' is not a regular expression: {error}\n"
                         f"  hint: a Python regular expression searched for in each test id, e.g. {flag} "
                         f"'checkout|cart'; escape a literal '.', '(' or '[' with a backslash") from None


@dataclass(frozen=True)
class Selection:
    """What a run selects (all fields empty: everything)."""

    grep: str | None = None
    grep_invert: str | None = None
    tag: str | None = None
    #: `--last-failed`: the report it read, and the ids of the tests that did not pass there
    last_failed: str | None = None
    last_failed_ids: frozenset[str] | None = None

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.grep, self.grep_invert, self.tag, self.last_failed))

    def test_filter(self) -> Callable[[str, Sequence[str]], bool]:
        """(test id, tags) -> picked; UsageError for a bad pattern or expression."""
        grep = _compile("--grep", self.grep) if self.grep is not None else None
        invert = _compile("--grep-invert", self.grep_invert) if self.grep_invert is not None else None
        expression = parse_tag_expression(self.tag) if self.tag is not None else None
        failed = self.last_failed_ids

        def picked(test_id: str, tags: Sequence[str]) -> bool:
            return ((grep is None or grep.search(test_id) is not None)
                    and (invert is None or invert.search(test_id) is None)
                    and (expression is None or expression.matches(tags))
                    and (failed is None or test_id in failed))
        return picked

    def record(self, kept: int, total: int) -> dict[str, Any]:
        """The selection as the plan records it (emit.jsonl's run_started.plan.selection)."""
        return {"grep": self.grep, "grep_invert": self.grep_invert, "tag": self.tag,
                "last_failed": self.last_failed,
                "last_failed_tests": len(self.last_failed_ids) if self.last_failed_ids is not None else None,
                "scenarios": kept, "of": total}


def select_scenarios(scenarios: Sequence[Scenario], selection: Selection) -> list[Scenario]:
    """The scenarios holding at least one picked test, whole, in the order given."""
    if not selection.active:
        return list(scenarios)
    picked = selection.test_filter()
    return [s for s in scenarios if any(picked(s.test_id(r), s.test_tags(r)) for r in s.rules)]
