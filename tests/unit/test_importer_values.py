"""The importer's parsing and literal values: strings with quotes and escapes, template strings,
constants, list items and slices, regexes; a syntax error at its line and column."""

from __future__ import annotations

from typing import Any

import pytest

from flowwalk.importer.syntax import Source, SyntaxProblem, calls_in, parse
from flowwalk.importer.values import Param, Regex, Unevaluable, value_of


def _source(code: str, name: str = "a.spec.ts") -> Source:
    parsed = parse(name, code.encode())
    assert isinstance(parsed, Source), parsed
    return parsed


def _value(code: str, scope: dict[str, Any] | None = None) -> Any:
    source = _source(f"x = {code};")
    assignment = source.root.named_children[0].named_children[0]
    return value_of(source, assignment.child_by_field_name("right"), scope or {})


@pytest.mark.parametrize(("code", "value"), [
    ("'it\\'s'", "it's"),
    ('"say \\"hi\\""', 'say "hi"'),
    ("`it's ${'a'} \"b\" ${2 + 1}`", "it's a \"b\" 3"),
    ("'caf\\u00e9\\n'", "café\n"),
    ("[1, -2, 0x10, true, null]", [1, -2, 16, True, None]),
    ("{ name: 'x', 'quoted key': [1] }", {"name": "x", "quoted key": [1]}),
    ("/^3 items?$/i", Regex("^3 items?$", "i")),
    ("('a' as string)", "a"),
])
def test_literals_evaluate_to_their_values(code: str, value: Any) -> None:
    assert _value(code) == value


def test_constants_items_slices_and_parameters_evaluate_through_the_scope() -> None:
    scope = {"ITEMS": ["a", "b", "c"], "title": Param("title")}
    assert _value("ITEMS[1]", scope) == "b"
    assert _value("ITEMS.slice(0, 2)", scope) == ["a", "b"]
    assert _value("ITEMS.length", scope) == 3
    assert _value("`new: ${title}`", scope) == "new: {{title}}"


@pytest.mark.parametrize("code", ["Date.now()", "ITEMS[7]", "unknownName", "`a ${[1]}`"])
def test_a_value_known_only_at_run_time_is_unevaluable_with_why(code: str) -> None:
    with pytest.raises(Unevaluable) as raised:
        _value(code, {"ITEMS": ["a"]})
    assert raised.value.why


def test_a_syntax_error_is_a_problem_at_its_line_and_column_with_a_hint() -> None:
    problem = parse("tests/bad.spec.ts", b"test('x', async ({ page }) => {\n  await page.goto('/';\n});\n")
    assert isinstance(problem, SyntaxProblem)
    assert (problem.path, problem.line) == ("tests/bad.spec.ts", 2)
    assert str(problem).startswith("tests/bad.spec.ts:2:") and "hint:" in str(problem)


def test_a_file_of_another_language_is_refused_by_its_suffix() -> None:
    problem = parse("tests/test_a.py", b"x = 1\n")
    assert isinstance(problem, SyntaxProblem) and "'.py'" in problem.message


def test_typescript_tsx_and_javascript_each_parse_and_every_call_is_found() -> None:
    for name, code in [("a.spec.ts", "const a: number = f(g(1));"), ("a.spec.tsx", "f(<b>{g()}</b>);"),
                       ("a.cy.js", "f(g()); h();")]:
        source = _source(code, name)
        assert len(list(calls_in(source.root))) in (2, 3), name
