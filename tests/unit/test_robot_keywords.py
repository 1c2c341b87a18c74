"""The aitester-bdd keyword table: RF-like name resolution, did-you-mean, and the docs table kept in sync."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from flowwalk.spec.foreign import KEYWORD_NAMES
from flowwalk.spec.robot_builders import parse_rule_timeout
from flowwalk.spec.robot_foreign import foreign_call
from flowwalk.spec.robot_keywords import (
    DOC_END, DOC_START, KEYWORDS, Match, Miss, match_keyword, render_keyword_table, replace_doc_table,
)

DOC = Path(__file__).parent.parent.parent / "docs" / "robot.md"


def _sample(name: str) -> str:
    """A registered name with each `${arg}` replaced by a plain value."""
    return re.sub(r"\$\{(\w+)\}", lambda m: f"v{len(m.group(1))}", name)


@pytest.mark.parametrize("keyword", KEYWORDS, ids=[k.shown() for k in KEYWORDS])
def test_every_registered_name_resolves_to_its_own_keyword(keyword) -> None:  # type: ignore[no-untyped-def]
    for name in keyword.names():
        found = match_keyword(_sample(name))
        assert isinstance(found, Match), (name, found)
        assert found.keyword is keyword


def test_every_keyword_either_builds_or_says_why_it_is_refused() -> None:
    for keyword in KEYWORDS:
        assert (keyword.build is None) == (keyword.refused is not None), keyword.shown()
        if keyword.refused:
            why, instead = keyword.refused
            assert why and instead


def test_embedded_arguments_are_captured_raw_and_case_insensitively() -> None:
    found = match_keyword('then LOCATOR "#a .b" Has Text "${GREETING} world"')
    assert isinstance(found, Match)
    assert found.keyword.pattern == 'locator "${css}" has text "${text}"'
    assert found.args == {"css": "#a .b", "text": "${GREETING} world"}


def test_best_match_prefers_the_pattern_that_spells_out_more_of_the_call() -> None:
    # both `… ${ms} ms` and `… ${ms}` match; RF (issue #4454) picks the more literal one
    found = match_keyword("And I set rule timeout 30 ms")
    assert isinstance(found, Match) and found.keyword.pattern == "I set rule timeout ${ms} ms"
    assert found.args == {"ms": "30"}
    found = match_keyword('Given I start scenario "a" at "http://x/"')
    assert isinstance(found, Match) and found.args == {"name": "a", "url": "http://x/"}
    found = match_keyword('When I type "" into locator "#q"')
    assert isinstance(found, Match) and found.keyword.pattern == 'I type "" into locator "${css}"'


def test_a_variable_in_the_call_never_splits_an_argument() -> None:
    found = match_keyword('And locator "${SEL}" contains "${TEXT}"')
    assert isinstance(found, Match) and found.args == {"css": "${SEL}", "text": "${TEXT}"}


def test_bare_registrations_accept_any_prefix_and_none() -> None:
    for name in ('I define rule "r"', 'Given I define rule "r"', 'when I define rule "r"', 'But I define rule "r"'):
        found = match_keyword(name)
        assert isinstance(found, Match) and found.args == {"name": "r"}


def test_a_prefix_aitester_bdd_does_not_register_is_refused_with_the_registered_form() -> None:
    found = match_keyword('When url contains "/x"')
    assert isinstance(found, Miss)
    assert found.message == "aitester-bdd does not register 'When url contains \"/x\"' with 'When'"
    assert found.hint.startswith("did you mean 'And url contains \"/x\"'?")
    assert 'Given/And/Then url contains "${pattern}"' in found.hint


def test_a_check_without_any_prefix_is_refused() -> None:
    found = match_keyword('url contains "/x"')
    assert isinstance(found, Miss)
    assert "without a Given/When/Then/And/But prefix" in found.message


def test_an_action_with_a_check_prefix_suggests_its_action_prefix() -> None:
    found = match_keyword('Then I click locator "#go"')
    assert isinstance(found, Miss)
    assert found.hint.startswith("did you mean 'When I click locator \"#go\"'?")


@pytest.mark.parametrize(("written", "meant"), [
    ('Then selector exists ".x"', 'Then selector ".x" exists'),
    ('And count eq ".row" 4', 'And count of locator ".row" equals 4'),
    ('Then has text "h1" "Hi"', 'Then locator "h1" has text "Hi"'),
    ('But not contains "#m" "error"', 'But locator "#m" does not contain "error"'),
    ('Then visible "#panel"', 'Then locator "#panel" is visible'),
    ('Then attr eq "a" "href" "/x"', 'Then locator "a" has attribute "href" equal to "/x"'),
    ('Then input value "#q" "hi"', 'Then input "#q" has value "hi"'),
    ('When I fill locator "#q" "hi"', 'When I fill locator "#q" with "hi"'),
    ('When I hover "#menu"', 'When I hover locator "#menu"'),
    ('When I upload file "a.txt" into "#f"', 'When I upload file "a.txt" to locator "#f"'),
    ('When I set stepper "#n" "3"', 'When I set stepper "#n" to 3'),
    ("And set rule timeout 5 s", "And I set rule timeout 5 s"),
    ('And I scope interrupts ".modal"', 'And I scope interrupts to ".modal"'),
    ("And screenshot on fail", "And I screenshot on fail"),
    ('Then last shell exit "0"', 'Then last shell exit equals 0'),
])
def test_docs_dialect_names_get_the_registered_call_with_their_values(written: str, meant: str) -> None:
    found = match_keyword(written)
    assert isinstance(found, Miss)
    assert found.message == f"aitester-bdd does not register a keyword named '{written}'"
    assert found.hint.startswith(f"did you mean '{meant}'?")
    assert isinstance(match_keyword(meant), Match)


def test_an_unrelated_name_gets_no_misleading_suggestion() -> None:
    found = match_keyword("Log    hello")
    assert isinstance(found, Miss)
    assert "did you mean" not in found.hint


@pytest.mark.parametrize(("text", "ms"), [
    ("30000", 30000), ("30000 ms", 30000), ("30 s", 30000), ("30s", 30000), ("1.5 s", 1500),
    ("250MS", 250), (" 2 S ", 2000),
])
def test_rule_timeout_forms(text: str, ms: int) -> None:
    assert parse_rule_timeout(text) == ms


@pytest.mark.parametrize("text", ["", "soon", "30 min", "-5", "5 ms s"])
def test_rule_timeout_garbage_is_not_a_duration(text: str) -> None:
    assert parse_rule_timeout(text) is None


def test_docs_table_is_generated_from_the_code_table() -> None:
    doc = DOC.read_text(encoding="utf-8")
    start, end = doc.index(DOC_START) + len(DOC_START), doc.index(DOC_END)
    assert doc[start:end].strip() == render_keyword_table().strip(), (
        "docs/robot.md is out of date: run `python -m flowwalk.spec.robot_keywords docs/robot.md`")
    assert replace_doc_table(doc) == doc


def test_docs_table_lists_every_keyword_once() -> None:
    table = render_keyword_table().splitlines()[2:]
    assert len(table) == len(KEYWORDS)
    for row, keyword in zip(table, KEYWORDS):
        assert keyword.shown().replace("|", "\\|") in row
        assert ("**refused**" in row) == (keyword.refused is not None)


@pytest.mark.parametrize("written", [
    'GIVEN\tI start scenario "a"',
    'Given\xa0I start scenario "a"',
    'Gıven I ſtart scenario "a"',  # RF's case-insensitive regex takes dotless i for i, long s for s
    'given i START SCENARIO "a"',
])
def test_the_first_word_index_keeps_every_match_rf_makes(written: str) -> None:
    # calls are compared only with patterns whose first word (with RF's own flags) starts them
    found = match_keyword(written)
    assert isinstance(found, Match) and found.keyword.pattern == 'I start scenario "${name}"', found
    assert found.args == {"name": "a"}


def test_repeated_calls_get_their_own_arguments() -> None:
    first = match_keyword('When I click locator "#a"')
    assert isinstance(first, Match)
    first.args["css"] = "changed"
    again = match_keyword('When I click locator "#a"')
    assert isinstance(again, Match) and again.args == {"css": "#a"}


#: the cells a foreign keyword is called with below, where not a locator, a text and a value
_CELLS = {"Wait For Elements State": ["id=total", "visible"], "Get Text": ["id=total", "==", "Express"],
          "Get Url": ["contains", "id=total"], "Get Element Count": ["id=total", ">=", "3"]}


@pytest.mark.parametrize("name", sorted(set(KEYWORD_NAMES)))
def test_every_foreign_keyword_of_the_table_becomes_a_registered_call(name: str) -> None:
    # SeleniumLibrary's and the Browser library's keywords: none is aitester-bdd's, and each one,
    # called with values of the shape it takes, has a registered call with those values in it
    assert isinstance(match_keyword(name), Miss)
    foreign = foreign_call(name, _CELLS.get(name, ["id=total", "Express", "v3"]))
    assert foreign is not None and isinstance(match_keyword(foreign.call), Match), foreign
    assert '"' not in foreign.call or "#total" in foreign.call or "id=total" in foreign.call, foreign.call


@pytest.mark.parametrize(("name", "cells", "call"), [
    ("Click Element", ["id=buy"], 'When I click locator "#buy"'),
    ("click element", ["css:button[type=submit]"], 'When I click locator "button[type=submit]"'),
    ("Click Element", ["//button[1]"], 'When I click locator "xpath=//button[1]"'),
    ("Click Element", ["xpath=//nav/a"], 'When I click locator "xpath=//nav/a"'),
    ("Click Element", ["id=first name"], "When I click locator \"[id='first name']\""),
    ("Click Link", ["link=Books"], 'When I click locator "text=Books"'),
    ("Input Password", ["name=pw", "${PW}"], "When I type secret \"${PW}\" into locator \"[name='pw']\""),
    ("Go To", ["${BASE_URL}/cart"], 'When I open "${BASE_URL}/cart"'),
    ("When Go To", ["/cart"], 'When I open "/cart"'),
    ("Page Should Not Contain Element", ["class=error"], 'Then selector ".error" does not exist'),
    ("Get Text", ["\\#summary", "*=", "3 items"], 'Then locator "#summary" contains "3 items"'),
    ("Get Text", [".total", "==", "42"], 'Then locator ".total" has text "42"'),
    ("Get Url", ["contains", "/done"], 'Then url contains "/done"'),
    ("Get Element Count", ["li", "<=", "3"], 'Then count of locator "li" is at most 3'),
])
def test_a_foreign_call_is_translated_with_its_own_values(name: str, cells: list[str], call: str) -> None:
    foreign = foreign_call(name, cells)
    assert foreign is not None and foreign.call == call


@pytest.mark.parametrize(("name", "cells"), [
    ("Click Element", []),                                  # no locator to put in the call
    ("Click Element", ['xpath=//img[@alt="x"]']),           # a double quote cannot go in the call's quotes
    ("Click Element", ["dom=document.forms[0]"]),           # a strategy with no equivalent
    ("Get Text", ["#s", "^=", "Sav"]),                      # an operator the table does not know
    ("Wait For Elements State", ["#x", "stable"]),          # a state aitester-bdd has no check for
    ("Log", ["hello"]),                                     # BuiltIn: not a browser library's keyword
])
def test_a_foreign_call_without_an_equivalent_gets_none(name: str, cells: list[str]) -> None:
    assert foreign_call(name, cells) is None
