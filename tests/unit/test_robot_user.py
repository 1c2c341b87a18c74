"""A suite's own keywords and GROUP blocks (spec/robot_user.py): calls expanded in place with their
arguments, each step built inside the frames of the keywords and groups it runs in, and what Robot
Framework would refuse (or flowwalk cannot read) refused at its line."""

from __future__ import annotations

from pathlib import Path

from flowwalk.model import Act, Expect, titled
from flowwalk.settings import Settings
from flowwalk.spec.robot import load_robot_suite

HEAD = """\
*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Todos
    [Setup]    Given I start scenario "todos" at "http://127.0.0.1:8000/"
    I define rule "add"
"""
ADD_TODO = """
*** Keywords ***
Add Todo
    [Arguments]    ${title}    ${field}=#new-todo
    [Documentation]    Type a todo and press Enter.
    When I type "${title}" into locator "${field}"
    When I press keys "${field}"    Enter
"""


def load(tmp_path: Path, body: str, keywords: str = ADD_TODO) -> tuple[object, list[str]]:
    path = tmp_path / "s.robot"
    path.write_text(HEAD + body + keywords, encoding="utf-8")
    suite, problems = load_robot_suite(path, "suites/s.robot", Settings())
    return suite, [p.render() for p in problems]


def test_a_user_keyword_runs_its_calls_with_the_arguments_of_each_call(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, """\
    GROUP    Adding two
        When Add Todo    buy cheese
        And add_todo    field=#other    title=feed the cat
    END
    Then count of locator "#todo-list li" equals 2
""")
    assert problems == []
    steps = suite.scenarios[0].rules[0].steps  # type: ignore[attr-defined]
    assert [(type(s).__name__, s.selector, getattr(s, "value", None)) for s in steps] == [
        ("Act", "#new-todo", "buy cheese"), ("Act", "#new-todo", "Enter"),
        ("Act", "#other", "feed the cat"), ("Act", "#other", "Enter"), ("Expect", "#todo-list li", None)]
    fill = steps[2]
    assert isinstance(fill, Act) and (fill.loc.path, fill.loc.line) == ("suites/s.robot", 18)
    assert [(f.kind, f.title, f.line, f.args) for f in fill.frames] == [
        ("group", "Adding two", 8, {}),
        ("call", "Add Todo", 10, {"title": "feed the cat", "field": "#other"})]
    assert titled(fill) == ('Adding two › Add Todo (at suites/s.robot:10) › '
                            'When I type "feed the cat" into locator "#other"')
    assert isinstance(steps[4], Expect) and steps[4].frames == ()


def test_keywords_may_call_keywords_and_the_suites_variables_still_apply(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, "    Two Todos    cheese\n", ADD_TODO + """
Two Todos
    [Arguments]    ${first}    ${second}=${first} again
    Add Todo    ${first}
    Add Todo    ${second}
""")
    assert problems == []
    steps = suite.scenarios[0].rules[0].steps  # type: ignore[attr-defined]
    assert [s.value for s in steps if s.action == "fill"] == ["cheese", "cheese again"]  # type: ignore[attr-defined]
    assert [[f.title for f in s.frames] for s in steps][:1] == [["Two Todos", "Add Todo"]]


def test_wrong_calls_and_keywords_flowwalk_cannot_read_are_refused_at_their_line(tmp_path: Path) -> None:
    _, problems = load(tmp_path, """\
    Add Todo
    Add Todo    a    b    c
    Add Todo    title=a    b
    Loop A
""", ADD_TODO + """
Loop A
    Loop B
Loop B
    Loop A
Listed
    [Arguments]    @{titles}
    Add Todo    x
${embedded} Todo
    Add Todo    x
Looping
    FOR    ${t}    IN    a    b
        Add Todo    ${t}
    END
add todo
    Add Todo    x
""")
    assert problems == [
        "suites/s.robot:8:5: error: 'Add Todo' needs argument 'title'\n"
        "  hint: call it as: Add Todo    ${title}    ${field}=#new-todo",
        "suites/s.robot:9:27: error: 'Add Todo' takes 2 argument(s), got more\n"
        "  hint: its arguments: Add Todo    ${title}    ${field}=#new-todo",
        "suites/s.robot:10:28: error: 'b' comes after a named argument of 'Add Todo'\n"
        "  hint: pass arguments by position first, then by name: Add Todo    ${title}    ${field}=#new-todo",
        "suites/s.robot:23:5: error: recursive keyword: Loop A -> Loop B -> Loop A\n"
        "  hint: a keyword cannot call itself, directly or through other keywords: move the calls they share into "
        "a third keyword both call",
        "suites/s.robot:25:20: error: '@{titles}': list and dictionary arguments are not supported\n"
        "  hint: write ${name}, or ${name}=<default>",
        "suites/s.robot:27:1: error: keyword '${embedded} Todo' takes embedded arguments, which flowwalk does not "
        "read\n  hint: take them as [Arguments] instead, e.g. [Arguments]    ${title}",
        "suites/s.robot:30:5: error: FOR in a keyword is not supported\n"
        "  hint: flowwalk reads a suite as data: write each aitester-bdd keyword call on its own line",
        "suites/s.robot:33:1: error: keyword 'add todo' is defined twice\n"
        "  hint: the first is at suites/s.robot:14:1; keep one"]
