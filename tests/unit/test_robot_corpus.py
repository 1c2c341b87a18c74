"""The aitester-bdd compatibility corpus (aitester-bdd.md section 5): each suite either loads into the
expected scenarios, rules and steps, or is refused at exactly the expected lines with the expected
messages. Each `<suite>.robot` has its `<suite>.expected` beside it."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from flowwalk.model import Rule, Scenario, Step, Suite
from flowwalk.settings import Settings
from flowwalk.spec.robot import is_aitester_suite, load_robot_suite

CORPUS = Path(__file__).parent.parent / "corpus" / "robot"
SUITES = sorted(CORPUS.glob("*.robot"))


def _fields(obj: object, skip: tuple[str, ...] = ()) -> str:
    """The fields of a frozen dataclass that differ from their defaults, as `name=value`."""
    out = []
    for f in dataclasses.fields(obj):  # type: ignore[arg-type]
        if f.name in ("loc", "text", "pattern", "steps", "rules", *skip):
            continue
        value = getattr(obj, f.name)
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else object())
        # the kind of a check and the action of an act are always shown, default or not
        if value != default or f.name in ("kind", "action"):
            if isinstance(value, frozenset):
                value = sorted(value)
            if isinstance(value, dict):
                value = dict(sorted(value.items()))
            out.append(f"{f.name}={value!r}")
    return " ".join(out)


def _step(step: Step) -> str:
    return f"{step.loc.line}:{step.loc.col} {type(step).__name__.lower()} {_fields(step)}".rstrip()


def _rule(rule: Rule) -> list[str]:
    lines = [f"  rule {rule.name} @{rule.loc.line}:{rule.loc.col} {_fields(rule, ('name',))}".rstrip()]
    lines += [f"    {_step(s)}" for s in rule.steps]
    return lines


def _scenario(scenario: Scenario) -> list[str]:
    lines = [f"scenario {scenario.id} @{scenario.loc.line}:{scenario.loc.col}",
             f"  {_fields(scenario, ('id',))}"]
    for rule in scenario.rules:
        lines += _rule(rule)
    return lines


def describe(suite: Suite) -> str:
    lines = [f"suite {suite.path} kind={suite.kind}"]
    for scenario in suite.scenarios:
        lines += _scenario(scenario)
    return "\n".join(lines) + "\n"


def _outcome(path: Path) -> str:
    rel = f"tests/corpus/robot/{path.name}"
    suite, problems = load_robot_suite(path, rel, Settings())
    if suite is not None:
        assert not problems
        return describe(suite)
    assert problems, "a refused suite names at least one problem"
    return "".join(p.render() + "\n" for p in problems)


@pytest.mark.parametrize("path", SUITES, ids=[p.name for p in SUITES])
def test_corpus_suite_matches_expected(path: Path) -> None:
    expected = path.with_suffix(".expected").read_text(encoding="utf-8")
    assert _outcome(path) == expected


@pytest.mark.parametrize("path", SUITES, ids=[p.name for p in SUITES])
def test_corpus_suites_are_recognised_as_aitester_suites(path: Path) -> None:
    assert is_aitester_suite(path)


def test_every_corpus_suite_has_an_expected_file() -> None:
    assert SUITES
    assert sorted(p.stem for p in CORPUS.glob("*.expected")) == sorted(p.stem for p in SUITES)


# The lines of login_flow.robot that aitester-bdd.md section 5.3 lists as using names aitester-bdd
# does not register: the suite must be refused at exactly these lines and no other.
UNREGISTERED_53 = [
    'When I type "admin" into "#username"',
    'And I type "password123" into "#password"',
    'And selector exists "[data-testid=\'user-avatar\']"',
    "And I set retry 2 delay 1000",
    'Given count at least ".widget-card" 3',
    'Then selector exists ".widget-detail-panel"',
    'Then selector exists ".sidebar-panel"',
    'And set child scope ".sidebar-panel"',
    'Then count at least "a.nav-link" 5',
    'And contains "a.nav-link:first-child" "Home"',
    'And selector exists ".nav-section-header"',
]


def test_docs_dialect_suite_is_refused_exactly_at_its_unregistered_lines() -> None:
    path = CORPUS / "login_flow.robot"
    lines = path.read_text(encoding="utf-8").splitlines()
    expected_lines = sorted(i for i, line in enumerate(lines, start=1)
                            if any(line.strip().startswith(u) for u in UNREGISTERED_53))
    assert len(expected_lines) == len(UNREGISTERED_53)
    suite, problems = load_robot_suite(path, "login_flow.robot", Settings())
    assert suite is None
    assert [p.loc.line for p in problems] == expected_lines
    assert all("does not register" in p.message for p in problems)
    # every one of them says which registered form was meant
    assert all(re.match(r"did you mean '(Given|When|Then|And|But) ", p.hint) for p in problems)


def test_canonical_suite_is_refused_only_at_its_shell_lines() -> None:
    path = CORPUS / "canonical.robot"
    suite, problems = load_robot_suite(path, "canonical.robot", Settings())
    assert suite is None
    texts = path.read_text(encoding="utf-8").splitlines()
    assert [texts[p.loc.line - 1].strip() for p in problems] == [
        'When I run shell "echo ok" with timeout 5000 ms',
        "Then last shell exit equals 0",
        'And last shell stdout matches "^ok"',
    ]
    assert all(p.message.startswith("flowwalk does not run ") for p in problems)


def test_canonical_suite_without_shell_rule_splits_guards_from_body_as_documented() -> None:
    # aitester-bdd.md 5.5 "expected plan split": the steps before the first action or emit are guards
    suite, problems = load_robot_suite(CORPUS / "canonical_browser_only.robot", "c.robot", Settings())
    assert suite is not None, problems
    rules = {r.name: r for r in suite.scenarios[0].rules}
    assert [r.name for r in suite.scenarios[0].rules] == ["login", "widgets", "retrying_guard"]

    def split(rule: Rule) -> tuple[list[str], list[str]]:
        kinds = [getattr(s, "kind", None) or type(s).__name__ for s in rule.steps]
        first = next(i for i, s in enumerate(rule.steps) if type(s).__name__ in ("Act", "Goto", "Emit"))
        return kinds[:first], kinds[first:]

    assert split(rules["login"]) == (["selector_exists"], ["Act", "Act", "Act", "url_not_contains", "has_text"])
    assert split(rules["widgets"]) == ([], ["Act", "count", "selector_absent", "Emit"])
    assert split(rules["retrying_guard"]) == (["text_contains"], ["Act", "selector_exists"])
    assert rules["widgets"].timeout_ms == 5000


def test_a_suite_moved_from_other_libraries_loads_once_each_hint_is_followed(tmp_path: Path) -> None:
    # selenium_moved.robot calls SeleniumLibrary's and the Browser library's keywords: each refusal
    # that names an aitester-bdd call is followed (the line replaced by that call), the two without
    # one are dropped, and the suite then loads
    path = CORPUS / "selenium_moved.robot"
    _, problems = load_robot_suite(path, "selenium_moved.robot", Settings())
    lines = path.read_text(encoding="utf-8").splitlines()
    told = 0
    for problem in sorted(problems, key=lambda p: -p.loc.line):
        found = re.search(r"aitester-bdd's call for it is: (.*?)   \(", problem.hint)
        told += bool(found)
        indent = lines[problem.loc.line - 1][:problem.loc.col - 1]
        lines[problem.loc.line - 1:problem.loc.line] = [indent + found.group(1)] if found else []
    assert told == len(problems) - 2
    fixed = tmp_path / "fixed.robot"
    fixed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite, problems = load_robot_suite(fixed, "fixed.robot", Settings(secret_names=("PASSWORD",)))
    assert suite is not None and not problems, [p.render() for p in problems]
    (scenario,) = suite.scenarios
    assert [len(rule.steps) for rule in scenario.rules] == [5, 11]
