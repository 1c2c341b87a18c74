"""Loading aitester-bdd suites: each keyword family onto the model, variables and secrets, and every
refusal at its `path:line:col` with a hint. No browser needed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from flowwalk.errors import Problem
from flowwalk.model import Act, Emit, EmitField, Expect, Goto, Retry, Rule, Scenario, Suite
from flowwalk.settings import Secrets, Settings
from flowwalk.spec.robot import is_aitester_suite, load_robot_suite

HEAD = """\
*** Settings ***
Library           aitester_bdd.AITester
Suite Setup       Given I start verification "v"
Suite Teardown    Then I finalize verification
"""
URL = "http://127.0.0.1:8000"


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.robot"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str, settings: Settings | None = None) -> tuple[Suite | None, list[Problem]]:
    return load_robot_suite(_write(tmp_path, text), "suites/s.robot", settings or Settings())


def suite_text(body: str, variables: str = "") -> str:
    """A suite with one test case `T` whose scenario `s` starts at URL; `body` is indented as written."""
    text = HEAD + f"\n*** Variables ***\n${{BASE_URL}}    {URL}\n{variables}\n*** Test Cases ***\nT\n"
    text += '    [Setup]    Given I start scenario "s" at "${BASE_URL}/"\n'
    return text + body


def ok(tmp_path: Path, body: str, variables: str = "", settings: Settings | None = None) -> Scenario:
    suite, problems = load(tmp_path, suite_text(body, variables), settings)
    assert not problems, "\n".join(p.render() for p in problems)
    assert suite is not None and len(suite.scenarios) == 1
    return suite.scenarios[0]


def rule(tmp_path: Path, lines: str, variables: str = "", settings: Settings | None = None) -> Rule:
    """The rule `r` made of `lines` (one keyword call per line, indented by the helper)."""
    body = '    I define rule "r"\n' + "".join(f"        {line}\n" for line in lines.strip("\n").splitlines())
    return ok(tmp_path, body, variables, settings).rules[0]


def refused(tmp_path: Path, text: str, settings: Settings | None = None) -> list[Problem]:
    suite, problems = load(tmp_path, text, settings)
    assert suite is None and problems
    return problems


def refused_rule(tmp_path: Path, lines: str, variables: str = "",
                 settings: Settings | None = None) -> tuple[Problem, str]:
    """The single problem of a rule made of `lines`, and the source line it points at."""
    text = suite_text('    I define rule "r"\n' + "".join(f"        {line}\n" for line in lines.strip("\n").splitlines()),
                      variables)
    problems = refused(tmp_path, text, settings)
    assert len(problems) == 1, "\n".join(p.render() for p in problems)
    return problems[0], text.splitlines()[problems[0].loc.line - 1]


def fields(step: Any, *names: str) -> tuple[Any, ...]:
    return tuple(getattr(step, n) for n in names)


# --- discovery --------------------------------------------------------------------------------------


def test_a_suite_importing_the_library_is_an_aitester_suite(tmp_path: Path) -> None:
    assert is_aitester_suite(_write(tmp_path, suite_text('    I define rule "r"\n        And url contains "/"\n')))


def test_a_plain_robot_suite_is_not(tmp_path: Path) -> None:
    path = _write(tmp_path, "*** Settings ***\nLibrary    Browser\n\n*** Test Cases ***\nT\n    Log    hi\n")
    assert not is_aitester_suite(path)


def test_mentioning_the_library_outside_the_settings_is_not_enough(tmp_path: Path) -> None:
    path = _write(tmp_path, "*** Comments ***\nLibrary    aitester_bdd.AITester\n\n"
                            "*** Test Cases ***\nT\n    Log    aitester_bdd.AITester\n")
    assert not is_aitester_suite(path)


def test_a_missing_file_is_not_a_suite_and_loads_as_one_problem(tmp_path: Path) -> None:
    assert not is_aitester_suite(tmp_path / "nope.robot")
    suite, problems = load_robot_suite(tmp_path / "nope.robot", "nope.robot", Settings())
    assert suite is None and len(problems) == 1 and str(problems[0].loc) == "nope.robot:1:1"


# --- lifecycle and scenarios ------------------------------------------------------------------------


def test_each_test_case_becomes_a_scenario(tmp_path: Path) -> None:
    text = HEAD + f"""
*** Test Cases ***
First Case
    [Documentation]    logs in
    [Setup]    Given I start scenario "login" at "{URL}/login"
    I define rule "a"
        Then url contains "/login"
Second Case
    [Setup]    Given I start scenario "plain"
    I define rule "b"
        When I open "{URL}/x"
    [Teardown]    Then I finalize verification
"""
    suite, problems = load(tmp_path, text)
    assert not problems and suite is not None
    assert suite.path == "suites/s.robot" and suite.kind == "robot"
    first, second = suite.scenarios
    assert (first.id, first.name, first.kind, first.source) == ("suites/s.robot#First Case", "login", "robot",
                                                                 "suites/s.robot")
    assert first.entry_url == f"{URL}/login" and first.description == "logs in"
    assert (first.loc.line, first.loc.col) == (7, 1)
    assert (second.id, second.entry_url) == ("suites/s.robot#Second Case", None)
    assert first.test_id(first.rules[0]) == "suites/s.robot#First Case/a"


def test_test_setup_setting_starts_the_scenario_of_tests_without_their_own(tmp_path: Path) -> None:
    text = HEAD + f'Test Setup        Given I start scenario "shared" at "{URL}"\n' + """
*** Test Cases ***
A
    I define rule "a"
        Then url contains "/"
B
    [Setup]    Given I start scenario "own" at "http://127.0.0.1:9/"
    I define rule "b"
        Then url contains "/"
"""
    suite, problems = load(tmp_path, text)
    assert not problems and suite is not None
    assert [s.name for s in suite.scenarios] == ["shared", "own"]


def test_a_scenario_started_in_the_suite_setup_is_refused(tmp_path: Path) -> None:
    text = ("*** Settings ***\nLibrary    aitester_bdd.AITester\n"
            f'Suite Setup    Given I start scenario "s" at "{URL}"\n\n*** Test Cases ***\nT\n'
            '    I define rule "r"\n        Then url contains "/"\n')
    problems = refused(tmp_path, text)
    assert str(problems[0].loc) == "suites/s.robot:3:16"
    assert "Suite Setup" in problems[0].message and "[Setup]" in problems[0].hint


def test_a_second_scenario_in_one_test_case_is_refused(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'Then url contains "/"\nGiven I start scenario "again" at "http://x/"')
    assert "starts a second scenario" in problem.message and "I start scenario" in line


def test_a_rule_before_any_scenario_is_refused(tmp_path: Path) -> None:
    text = HEAD + '\n*** Test Cases ***\nT\n    I define rule "r"\n        Then url contains "/"\n'
    problems = refused(tmp_path, text)
    assert str(problems[0].loc) == "suites/s.robot:8:5"
    assert "before this test case started a scenario" in problems[0].message
    assert "Given I start scenario" in problems[0].hint


def test_a_step_before_any_rule_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text('    Then url contains "/"\n    I define rule "r"\n        When I scroll down\n'))
    assert len(problems) == 1 and "comes before any rule" in problems[0].message


def test_a_scenario_without_rules_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text("    Then I finalize verification\n"))
    assert "defines no rule" in problems[0].message and problems[0].loc.line == 11


def test_duplicate_test_names_are_refused(tmp_path: Path) -> None:
    text = HEAD + f"""
*** Test Cases ***
Same
    [Setup]    Given I start scenario "a" at "{URL}"
    I define rule "r"
        Then url contains "/"
Same
    [Setup]    Given I start scenario "b" at "{URL}"
    I define rule "r"
        Then url contains "/"
"""
    problems = refused(tmp_path, text)
    assert any("used twice" in p.message and p.loc.line == 11 for p in problems)


def test_start_verification_after_scenarios_is_refused(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'Then url contains "/"\nGiven I start verification "again"')
    assert "discard everything declared before it" in problem.hint and "start verification" in line


def test_entry_url_must_be_absolute(tmp_path: Path) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n').replace(
        '"${BASE_URL}/"', '"login.html"')
    problems = refused(tmp_path, text)
    assert "'login.html' is not an absolute http(s) URL" in problems[0].message


def test_a_path_entry_url_uses_base_url(tmp_path: Path) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n').replace('"${BASE_URL}/"', '"/login"')
    suite, problems = load(tmp_path, text, Settings(base_url="http://127.0.0.1:7000/app/"))
    assert suite is not None and suite.scenarios[0].entry_url == "http://127.0.0.1:7000/login"


# --- rule structure ---------------------------------------------------------------------------------


def test_rules_keep_declaration_order_and_cumulative_parents(tmp_path: Path) -> None:
    scenario = ok(tmp_path, """\
    I define rule "login"
        Then url contains "/"
    I define rule "child"
        And I declare parents "login"
        And I declare parents    other,    login2
        Then url contains "/"
    I define rule "other"
        Then url contains "/"
    I define rule "login2"
        Then url contains "/"
""")
    assert [r.name for r in scenario.rules] == ["login", "child", "other", "login2"]
    assert scenario.rules[1].parents == ("login", "other", "login2")
    assert all(r.guards_enabled for r in scenario.rules)
    assert (scenario.rules[1].loc.line, scenario.rules[1].loc.col) == (14, 5)


def test_an_unknown_parent_is_refused_at_its_declare_line(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'And I declare parents "logn"\nThen url contains "/"')
    assert problem.message == "rule 'r' declares parent 'logn', which scenario 's' does not define"
    assert "I declare parents" in line and problem.loc.col == 9


def test_an_unknown_parent_gets_a_did_you_mean(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text("""\
    I define rule "login"
        Then url contains "/"
    I define rule "next"
        And I declare parents "logn"
        Then url contains "/"
"""))
    assert problems[0].hint.startswith("did you mean 'login'?")


@pytest.mark.parametrize("written", ["LOGIN", "user_login"])
def test_the_parent_hint_reads_past_case_and_shared_words_as_the_other_formats_do(tmp_path: Path,
                                                                                 written: str) -> None:
    # one did-you-mean (spec/spelling.py) for flow specs, rule files and .robot suites
    problems = refused(tmp_path, suite_text(f"""\
    I define rule "login"
        Then url contains "/"
    I define rule "next"
        And I declare parents "{written}"
        Then url contains "/"
"""))
    assert problems[0].hint.startswith("did you mean 'login'?")


def test_a_cycle_is_refused_at_a_declare_parents_line_naming_it(tmp_path: Path) -> None:
    text = suite_text("""\
    I define rule "a"
        And I declare parents "c"
        Then url contains "/"
    I define rule "b"
        And I declare parents "a"
        Then url contains "/"
    I define rule "c"
        And I declare parents "b"
        Then url contains "/"
""")
    problems = refused(tmp_path, text)
    assert len(problems) == 1
    assert problems[0].message == "rule cycle: a -> b -> c -> a"
    assert "I declare parents" in text.splitlines()[problems[0].loc.line - 1]
    assert problems[0].hint == "remove one of the parents; rules must form a DAG"


def test_a_rule_that_is_its_own_parent_is_a_cycle(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'And I declare parents "r"\nThen url contains "/"')
    assert problem.message == "rule cycle: r -> r" and "declare parents" in line


def test_a_rule_defined_twice_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text("""\
    I define rule "r"
        Then url contains "/"
    I define rule "r"
        Then url contains "/x"
"""))
    assert len(problems) == 1 and "defined twice" in problems[0].message and problems[0].loc.line == 14
    assert "suites/s.robot:12:5" in problems[0].hint


def test_a_name_with_an_escaped_line_break_is_shown_escaped_on_one_line(tmp_path: Path) -> None:
    # Robot Framework unescapes "\\n" in a cell into a line break: the problem still reads on one line
    problems = refused(tmp_path, suite_text('    I define rule "a\\nb"\n        Then url contains "/"\n'
                                            '    I define rule "a\\nb"\n        Then url contains "/"\n'))
    assert [p.render() for p in problems] == [
        "suites/s.robot:14:5: error: rule 'a\\nb' is defined twice in scenario 's'\n"
        "  hint: the first definition is at suites/s.robot:12:5; aitester-bdd would silently replace it, "
        "so rename one of them"]


def test_a_rule_without_steps_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text('    I define rule "empty"\n        And I set retry 1 times with 0 ms delay\n'
                                            '    I define rule "r"\n        Then url contains "/"\n'))
    assert problems[0].message == "rule 'empty' has no steps" and problems[0].loc.line == 12


def test_a_parent_list_with_an_empty_name_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'And I declare parents "a,,b"\nThen url contains "/"')
    assert "empty parent name" in problem.message


# --- configuration ----------------------------------------------------------------------------------


def test_rule_configuration_keywords(tmp_path: Path) -> None:
    r = rule(tmp_path, """\
And I set retry 3 times with 250 ms delay
And I set guard policy "abort"
And I set rule timeout 5 s
And I scope children to ".panel"
And I screenshot on enter
And I screenshot on fail
And I scope interrupts to ".modal .close, #x"
Then url contains "/"
""")
    assert r.retry == Retry(max=3, delay_ms=250) and r.guard_policy == "abort"
    assert (r.timeout_ms, r.guard_timeout_ms) == (5000, 5000)
    assert r.child_scope == ".panel" and r.screenshot_on_enter and r.screenshot_on_fail
    assert (r.interrupts, r.interrupt_selectors) == ("override", (".modal .close", "#x"))


def test_defaults_of_a_rule(tmp_path: Path) -> None:
    r = rule(tmp_path, 'Then url contains "/"')
    assert (r.retry, r.guard_policy, r.timeout_ms, r.guard_timeout_ms, r.child_scope, r.interrupts) == (
        Retry(), "skip", None, None, None, "inherit")


@pytest.mark.parametrize(("line", "ms"), [
    ("And I set rule timeout 30000", 30000), ("And I set rule timeout 30000 ms", 30000),
    ("And I set rule timeout 30 s", 30000), ("And I set rule timeout 30s", 30000),
    ("When I set rule timeout 1.5 s", 1500), ("And I set rule timeout    2    s", 2000),
    ("When I set rule timeout    700ms", 700), ("And I set rule timeout ${T}", 4000),
])
def test_rule_timeout_forms(tmp_path: Path, line: str, ms: int) -> None:
    assert rule(tmp_path, f'{line}\nThen url contains "/"', "${T}    4 s").timeout_ms == ms


@pytest.mark.parametrize("line", ["And I set rule timeout soon", "And I set rule timeout 0",
                                  "And I set rule timeout 0 ms"])
def test_bad_rule_timeouts_are_refused(tmp_path: Path, line: str) -> None:
    problem, _ = refused_rule(tmp_path, f'{line}\nThen url contains "/"')
    assert "rule timeout" in problem.message and "30 s" in problem.hint or "zero" in problem.message


def test_pause_interrupts(tmp_path: Path) -> None:
    assert rule(tmp_path, 'And I pause interrupts\nThen url contains "/"').interrupts == "paused"


def test_pausing_and_scoping_interrupts_in_one_rule_is_refused(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'And I pause interrupts\nAnd I scope interrupts to "#x"\n'
                                           'Then url contains "/"')
    assert "both pauses and scopes" in problem.message and "scope interrupts" in line


def test_an_unknown_guard_policy_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'And I set guard policy "abrt"\nThen url contains "/"')
    assert problem.message == "unknown guard policy 'abrt'"
    assert problem.hint.startswith("did you mean 'abort'?")


def test_a_non_numeric_retry_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'And I set retry two times with 100 ms delay\nThen url contains "/"')
    assert problem.message.startswith("'two' is not a whole number") and problem.loc.col == 25


def test_configure_interrupts_collects_dismiss_selectors_for_every_scenario(tmp_path: Path) -> None:
    text = HEAD + f"""
*** Test Cases ***
A
    [Setup]    Given I start scenario "a" at "{URL}"
    And I configure interrupts    dismiss=.cookie-banner
    And I configure interrupts    dismiss=[aria-label="Close"]
    I define rule "r"
        Then url contains "/"
B
    [Setup]    Given I start scenario "b" at "{URL}"
    And I configure interrupts    dismiss="#later"
    And I configure interrupts    dismiss=text="Got it"
    I define rule "r"
        Then url contains "/"
"""
    suite, problems = load(tmp_path, text)
    assert not problems and suite is not None
    # the quote-stripping bug of aitester-bdd's _parse_options is not reproduced
    expected = (".cookie-banner", '[aria-label="Close"]', "#later", 'text="Got it"')
    assert [s.dismiss_selectors for s in suite.scenarios] == [expected, expected]


@pytest.mark.parametrize(("cells", "message"), [
    ("dismiss=#a    dismiss=#b", "option 'dismiss=' given twice"),
    ("dismis=#a", "unknown option 'dismis='"),
    ("later", "is not key=value"),
    ("dismiss=", "has no value"),
])
def test_bad_configure_interrupts_cells(tmp_path: Path, cells: str, message: str) -> None:
    problem, line = refused_rule(tmp_path, f"And I configure interrupts    {cells}\nThen url contains \"/\"")
    assert message in problem.message
    assert line[problem.loc.col - 1:].startswith(cells.split("    ")[-1] if "twice" in message else cells)


def test_state_setup_becomes_the_first_rule_of_every_scenario(tmp_path: Path) -> None:
    scenario = ok(tmp_path, f"""\
    And I configure state setup    skip_when=#logged-in
    And I configure state setup    action=open    url={URL}/login
    And I configure state setup    action=input    css=#user    value=alice
    And I configure state setup    action=password    css=#pass    value=${{PW}}
    And I configure state setup    action=click    css=button[type=submit]
    I define rule "r"
        Then url contains "/"
""", "${PW}    pw\n")
    setup = scenario.rules[0]
    assert [r.name for r in scenario.rules] == ["state_setup", "r"]
    kinds = [(type(s).__name__, getattr(s, "kind", None) or getattr(s, "action", None) or "") for s in setup.steps]
    assert kinds == [("Expect", "selector_absent"), ("Goto", ""), ("Act", "fill"), ("Act", "fill"),
                     ("Act", "click"), ("Goto", "")]
    assert all(s.optional for s in setup.steps[1:])
    assert setup.steps[3].value == "{{PW}}" and "PW" in scenario.secrets  # type: ignore[attr-defined]
    assert setup.steps[-1].url == f"{URL}/"  # type: ignore[attr-defined]


def test_a_state_setup_password_must_be_a_variable(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, "And I configure state setup    action=password    css=#p    value=hunter2\n"
                                        'Then url contains "/"')
    assert "literal 'hunter2'" in problem.message and "--secret" in problem.hint


@pytest.mark.parametrize(("cells", "message"), [
    ("action=fly", "unknown state setup action 'fly'"),
    ("action=open", "needs url="),
    ("action=click    css=#a    url=/x", "does not take url="),
    ("css=#a", "without action="),
    ("when=#a", "unknown key 'when='"),
])
def test_bad_state_setup_rows(tmp_path: Path, cells: str, message: str) -> None:
    problem, _ = refused_rule(tmp_path, f"And I configure state setup    {cells}\nThen url contains \"/\"")
    assert message in problem.message


# --- actions ----------------------------------------------------------------------------------------


def test_action_keywords(tmp_path: Path) -> None:
    r = rule(tmp_path, f"""\
When I open "{URL}/form"
When I click locator "#go"    await=.done
When I click text "Save \\"all\\""
When I double click locator "#row"
When I type "alice" into locator "#user"
And I type "" into locator "#note"
When I fill locator "#a" with "1"
And I fill "#b" with "2"
When I select "fr" from locator "#lang"
When I check locator "#tos"
When I uncheck locator "#news"
When I hover locator "#menu"
When I focus locator "#q"
And I blur locator "#q"
When I press keys "#q"    Enter    Control+a
When I upload file "a.txt" to locator "#file"
When I scroll down
When I set stepper "#plus" to 3
""")
    steps = r.steps
    assert isinstance(steps[0], Goto) and steps[0].url == f"{URL}/form"
    acts = [s for s in steps if isinstance(s, Act)]
    got = [fields(a, "action", "selector", "value") for a in acts]
    assert got == [
        ("click", "#go", None),
        ("click", 'text="Save \\"all\\"" | text=Save "all"', None),
        ("dblclick", "#row", None),
        ("fill", "#user", "alice"), ("fill", "#note", ""), ("fill", "#a", "1"), ("fill", "#b", "2"),
        ("select", "#lang", "fr"), ("check", "#tos", None), ("uncheck", "#news", None),
        ("hover", "#menu", None), ("focus", "#q", None), ("blur", "#q", None),
        ("press", "#q", "Enter"), ("press", "#q", "Control+a"),
        ("upload", "#file", "a.txt"), ("scroll", "body", "1000"),
        ("click", "#plus", None), ("click", "#plus", None), ("click", "#plus", None),
    ]
    assert acts[0].await_selector == ".done" and acts[1].target == 'Save "all"'
    assert steps[1].text == 'When I click locator "#go"    await=.done'
    assert (steps[1].loc.line, steps[1].loc.col) == (14, 9)


def test_a_goto_to_another_host_is_allowed_for_the_scenario(tmp_path: Path) -> None:
    scenario = ok(tmp_path, '    I define rule "r"\n        When I open "https://pay.example.com/x"\n'
                            f'        When I open "{URL}/y"\n        When I open "/z"\n')
    assert scenario.allowed_hosts == ("pay.example.com",)
    assert scenario.rules[0].steps[2].url == "/z"  # type: ignore[attr-defined]


def test_type_secret_makes_its_variable_a_secret_everywhere_it_is_typed(tmp_path: Path) -> None:
    scenario = ok(tmp_path, """\
    I define rule "r"
        When I type "${PW}" into locator "#again"
        When I type secret "${PW}" into locator "#pass"
""", "${PW}    s3cret\n")
    assert [s.value for s in scenario.rules[0].steps] == ["{{PW}}", "{{PW}}"]  # type: ignore[attr-defined]
    assert scenario.secrets == frozenset({"PW"})
    assert scenario.variables["PW"] == "s3cret"  # the walker's default, redacted as a secret


def test_a_literal_typed_secret_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'When I type secret "hunter2" into locator "#p"')
    assert "literal 'hunter2'" in problem.message
    assert "--secret" in problem.hint and "${PASSWORD}" in problem.hint
    assert problem.loc.col == 29


def test_a_secret_outside_a_typed_value_is_refused(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'When I type secret "${PW}" into locator "#p"\n'
                                           'Then url contains "${PW}"', "${PW}    s3cret\n")
    assert problem.message.startswith("secret variable '${PW}' is used in")
    assert line[problem.loc.col - 1:].startswith("${PW}") and "url contains" in line


def test_a_secret_named_by_settings_stays_a_placeholder(tmp_path: Path) -> None:
    r = rule(tmp_path, 'When I type "${TOKEN}" into locator "#t"',
             settings=Settings(secret_names=("TOKEN",), secrets=Secrets({"TOKEN": "x"})))
    assert r.steps[0].value == "{{TOKEN}}"  # type: ignore[attr-defined]


def test_a_secret_placeholder_is_spelled_as_secret_names_it(tmp_path: Path) -> None:
    # RF names ignore case and underscores; the walker looks the value up by the --secret name
    r = rule(tmp_path, 'When I type secret "${admin_password}" into locator "#p"', "${ADMIN_PASSWORD}    x\n",
             Settings(secret_names=("AdminPassword",), secrets=Secrets({"AdminPassword": "y"})))
    assert r.steps[0].value == "{{AdminPassword}}"  # type: ignore[attr-defined]


def test_an_undefined_secret_says_to_pass_it_with_secret(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'When I type secret "${PW}" into locator "#p"')
    assert problem.message == "variable '${PW}' is not defined"
    assert "--secret PW (read from the environment variable PW)" in problem.hint


@pytest.mark.parametrize(("line", "why"), [
    ('When I add url params "a=1"', "URL-editing"),
    ("When I wait for idle", "network-idle"),
    ("When I take screenshot    filename=x.png", "screenshots per rule"),
    ('When I select date "2026-01-02"', "datepicker"),
    ('When I evaluate js "1+1"', "arbitrary JavaScript"),
    ("When I evaluate js    document.title", "arbitrary JavaScript"),
    ('When I run shell "ls"', "shell command"),
    ('When I ask LLM "why"', "language model"),
    ('And I browser step "fill_text"    #q    x', "Browser library"),
    ('And I call keyword "Log"    hi', "does not execute Robot Framework"),
    ('When I expand over elements ".row"    limit=3', "capture/artifact pipeline"),
    ("I explore    Find the settings page", "LLM agent"),
])
def test_refused_actions_name_the_keyword_and_say_why(tmp_path: Path, line: str, why: str) -> None:
    problem, source = refused_rule(tmp_path, f'{line}\nThen url contains "/"')
    name = line.split("    ")[0]
    assert problem.message.startswith(f"flowwalk does not run '{name}': ")
    assert why in problem.message and problem.hint.startswith("instead, ")
    assert source.strip().startswith(name)


def test_reload_and_the_back_and_forward_buttons_are_history_steps(tmp_path: Path) -> None:
    r = rule(tmp_path, "When I go back\nWhen I go forward\nWhen I reload\nThen url contains \"/\"")
    assert [(type(s).__name__, getattr(s, "move", None), s.text) for s in r.steps[:3]] == [
        ("History", "go_back", "When I go back"), ("History", "go_forward", "When I go forward"),
        ("History", "reload", "When I reload")]


def test_extra_cells_on_a_keyword_that_takes_none_are_refused(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'When I hover locator "#m"    await=.x')
    assert "takes no extra cells" in problem.message and line[problem.loc.col - 1:] == "await=.x"


def test_an_unknown_action_option_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'When I click locator "#m"    awiat=.x')
    assert problem.message == "unknown option 'awiat=' on 'When I click locator \"#m\"'"
    assert problem.hint.startswith("did you mean 'await='?")


def test_press_keys_without_a_key_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'When I press keys "#q"')
    assert "names no key" in problem.message


@pytest.mark.parametrize("count", ["0", "many", "101"])
def test_a_bad_stepper_count_is_refused(tmp_path: Path, count: str) -> None:
    problem, _ = refused_rule(tmp_path, f'When I set stepper "#plus" to {count}')
    assert count in problem.message


def test_an_empty_selector_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'When I click locator ""')
    assert "empty selector" in problem.message


# --- state checks and negative checks ---------------------------------------------------------------


@pytest.mark.parametrize(("line", "expected"), [
    ('Given url contains "/a"', dict(kind="url_contains", value="/a")),
    ('And url matches "/a/[0-9]+"', dict(kind="url_matches", value="/a/[0-9]+")),
    ('Then selector "#s" exists', dict(kind="selector_exists", selector="#s")),
    ('Then locator "#s" exists', dict(kind="selector_exists", selector="#s")),
    ('Then count of locator ".r" equals 2', dict(kind="count", selector=".r", count=2, op="eq")),
    ('Then count of locator ".r" is at least 3', dict(kind="count", selector=".r", count=3, op="gte")),
    ('Then count of locator ".r" is at most 4', dict(kind="count", selector=".r", count=4, op="lte")),
    ('Then locator "h1" has text "Hi"', dict(kind="has_text", selector="h1", value="Hi")),
    ('Then locator "h1" contains "Hi"', dict(kind="text_contains", selector="h1", value="Hi")),
    ('But page contains text "Hi"', dict(kind="text_contains", selector="body", value="Hi")),
    ('Then locator "h1" matches "^H.$"', dict(kind="text_matches", selector="h1", value="^H.$")),
    ('Then locator "#p" is visible', dict(kind="visible", selector="#p")),
    ('Then locator "#b" is enabled', dict(kind="enabled", selector="#b")),
    ('Then locator "#c" is checked', dict(kind="checked", selector="#c")),
    ('Then locator "#s" has class "ok"', dict(kind="selector_exists", selector='#s >> css=:scope[class~="ok"]')),
    ('Then locator "a | b" has class "ok"',
     dict(kind="selector_exists", selector='a >> css=:scope[class~="ok"] | b >> css=:scope[class~="ok"]')),
    ('Then locator "a" has attribute "href" equal to "/x"',
     dict(kind="attribute", selector="a", attr="href", value="/x", match="equals")),
    ('Then locator "a" has attribute "href" containing "x"',
     dict(kind="attribute", selector="a", attr="href", value="x", match="contains")),
    ('Then input "#q" has value "hi"', dict(kind="input_value", selector="#q", value="hi")),
    ('Then input "#q" has value ""', dict(kind="input_value", selector="#q", value="")),
    ('Then select "#l" has selected "fr"', dict(kind="input_value", selector="#l", value="fr")),
    # negative checks
    ('But url does not contain "/login"', dict(kind="url_not_contains", value="/login")),
    ('But selector ".err" does not exist', dict(kind="selector_absent", selector=".err")),
    ('Given selector ".err" does not exist', dict(kind="selector_absent", selector=".err")),
    ('But locator "#m" does not contain "error"', dict(kind="text_not_contains", selector="#m", value="error")),
    ('Then page does not contain text "Oops"', dict(kind="text_not_contains", selector="body", value="Oops")),
    ('But locator "#s" does not have class "bad"',
     dict(kind="selector_absent", selector='#s >> css=:scope[class~="bad"]')),
    ('Then locator "#p" is hidden', dict(kind="hidden", selector="#p")),
    ('Then locator "#b" is disabled', dict(kind="disabled", selector="#b")),
])
def test_check_keywords(tmp_path: Path, line: str, expected: dict[str, Any]) -> None:
    step = rule(tmp_path, line).steps[0]
    assert isinstance(step, Expect) and step.text == line
    assert {k: getattr(step, k) for k in expected} == expected
    if step.kind in ("url_matches", "text_matches"):
        assert step.pattern is not None and step.pattern.pattern == step.value


def test_table_headers_become_one_text_check_per_header(tmp_path: Path) -> None:
    steps = rule(tmp_path, 'Then table headers are "Name|Status"').steps
    assert [(s.kind, s.value) for s in steps] == [("has_text", "Name"), ("has_text", "Status")]  # type: ignore[attr-defined]
    assert steps[1].selector == "table thead th:nth-of-type(2) | table tr:first-child th:nth-of-type(2)"  # type: ignore[attr-defined]


def test_an_invalid_regex_is_refused_at_its_column(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'Then locator "h1" matches "a(b"')
    assert problem.message.startswith("invalid regular expression 'a(b'")
    assert line[problem.loc.col - 1:].startswith("a(b")


def test_a_non_integer_count_is_refused(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'Then count of locator ".r" is at least three')
    assert "'three' is not a whole number" in problem.message
    assert "ValueError" in problem.hint


@pytest.mark.parametrize(("line", "why"), [
    ("Then last response status equals 200", "never records responses"),
    ('Then last response body contains "ok"', "never records responses"),
    ('Then api "/health" returns "status" equal to "ok"', "AITESTER_API_BASE_URL"),
    ("Then last shell exit equals 0", "I run shell"),
    ('Then last shell stderr contains "x"', "I run shell"),
    ('Then page semantically matches "a login form"', "language model"),
    ('Then locator "#c" semantically matches "a chart"', "language model"),
    ('Then content of locator "#c" semantically matches "a chart"', "language model"),
    ('Then screenshot semantically matches "blue"', "language model"),
    ('Then last LLM response contains "yes"', "language model"),
    ('Then I extract table "t" from "table"', "capture/artifact pipeline"),
    ('And I emit to artifact "cases"', "capture/artifact pipeline"),
    ("And I set quality gate min records to 5", "capture/artifact pipeline"),
])
def test_refused_checks_name_the_keyword_and_say_why(tmp_path: Path, line: str, why: str) -> None:
    problem, _ = refused_rule(tmp_path, f'When I scroll down\n{line}')
    assert problem.message.startswith(f"flowwalk does not run '{line}': ") and why in problem.message


def test_a_keyword_under_an_unregistered_prefix_is_refused_at_its_line(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'When url contains "/x"')
    assert problem.message == "aitester-bdd does not register 'When url contains \"/x\"' with 'When'"
    assert problem.hint.startswith("did you mean 'And url contains \"/x\"'?")
    assert (problem.loc.line, problem.loc.col) == (13, 9) and line.strip() == 'When url contains "/x"'


def test_all_unregistered_lines_of_a_suite_are_reported_in_one_pass(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text("""\
    I define rule "a"
        Then selector exists "#x"
        When I click "#y"
        Then url contains "/"
    I define rule "b"
        And set child scope ".p"
        Then url contains "/"
"""))
    assert [p.loc.line for p in problems] == [13, 14, 17]


def test_a_misspelt_rule_line_does_not_cascade_onto_its_steps(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text("""\
    I defne rule "a"
        When I click locator "#x"
        Then url contains "/"
"""))
    assert [(p.loc.line, p.message) for p in problems] == [
        (12, "aitester-bdd does not register a keyword named 'I defne rule \"a\"'")]


def test_a_misspelt_scenario_setup_does_not_cascade_onto_its_rules(tmp_path: Path) -> None:
    text = suite_text('    I define rule "a"\n        Then url contains "/"\n').replace(
        "Given I start scenario", "Given I start scenaro")
    problems = refused(tmp_path, text)
    assert len(problems) == 1 and problems[0].loc.line == 11


# --- emit -------------------------------------------------------------------------------------------


def test_emit_rows_become_fields(tmp_path: Path) -> None:
    r = rule(tmp_path, """\
When I click locator "#go"
And I emit "probe"
...    field=n    source=count    locator=.widget
...    field=title    locator=#app>h1
...    field=href    source=attr    locator=a.next    attr=href
...    field=t    source=js    expr=document.title
...    field=where    source=url
""")
    emit = r.steps[1]
    assert isinstance(emit, Emit) and emit.name == "probe"
    assert emit.fields == (
        EmitField("n", "count", ".widget"), EmitField("title", "text", "#app>h1"),
        EmitField("href", "attr", "a.next", attr="href"), EmitField("t", "js", None, expr="document.title"),
        EmitField("where", "url"),
    )


def test_an_emit_without_rows_records_an_empty_field_set(tmp_path: Path) -> None:
    emit = rule(tmp_path, 'Then I emit "marker"').steps[0]
    assert isinstance(emit, Emit) and emit.fields == ()


@pytest.mark.parametrize(("rows", "message"), [
    ("field=a    locator=.a .b", "'.b' in the rows of"),
    ("field=a    locatr=.a", "unknown emit key 'locatr='"),
    ("source=text    field=a    locator=.a", "'source=text' comes before any field="),
    ("field=a    source=colour    locator=.a", "unknown emit source 'colour'"),
    ("field=a    source=count", "has no locator="),
    ("field=a    source=js", "has no expr="),
    ("field=a    source=attr    locator=a", "has no attr="),
    ("field=a    locator=.a    field=a    locator=.b", "appears twice"),
    ("field=a    locator=.a    locator=.b", "'locator=' given twice"),
    ("field=a    locator=", "'locator=' has no value"),
])
def test_bad_emit_rows_are_refused(tmp_path: Path, rows: str, message: str) -> None:
    problem, _ = refused_rule(tmp_path, f'Then I emit "p"    {rows}')
    assert message in problem.message


# --- variables --------------------------------------------------------------------------------------


def test_variables_are_substituted_and_var_wins(tmp_path: Path) -> None:
    variables = "${HOST}    127.0.0.1\n${PATH}    /p/${ID}\n${ID}    7\n${Mixed Case}    m\n"
    r = rule(tmp_path, 'When I open "http://${HOST}${PATH}"\nThen locator "#${mixed_case}" has text "${EMPTY}x${SPACE}y"',
             variables, Settings(variables={"ID": "9"}))
    assert r.steps[0].url == "http://127.0.0.1/p/9"  # type: ignore[attr-defined]
    assert r.steps[1].selector == "#m" and r.steps[1].value == "x y"  # type: ignore[attr-defined]


def test_base_url_setting_becomes_base_url_variable_unless_var_sets_it(tmp_path: Path) -> None:
    scenario = ok(tmp_path, '    I define rule "r"\n        When I open "${BASE_URL}/a"\n',
                  settings=Settings(base_url="http://127.0.0.1:5555"))
    assert scenario.entry_url == "http://127.0.0.1:5555/"
    scenario = ok(tmp_path, '    I define rule "r"\n        When I open "${BASE_URL}/a"\n',
                  settings=Settings(base_url="http://127.0.0.1:5555", variables={"BASE_URL": "http://127.0.0.1:6"}))
    assert scenario.rules[0].steps[0].url == "http://127.0.0.1:6/a"  # type: ignore[attr-defined]


def test_escapes_are_robot_framework_escapes(tmp_path: Path) -> None:
    step = rule(tmp_path, 'Then locator "p:has-text(\\"BDD\\")" contains "\\${NOT_A_VAR}"').steps[0]
    assert step.selector == 'p:has-text("BDD")' and step.value == "${NOT_A_VAR}"  # type: ignore[attr-defined]


def test_an_undefined_variable_is_refused_at_its_column_with_a_did_you_mean(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'When I open "${BASE_URLL}/x"')
    assert problem.message == "variable '${BASE_URLL}' is not defined"
    assert problem.hint.startswith("did you mean '${BASE_URL}'?") and "--var BASE_URLL=" in problem.hint
    assert line[problem.loc.col - 1:].startswith("${BASE_URLL}")


def test_an_undefined_variable_in_a_cell_points_at_the_cell(tmp_path: Path) -> None:
    problem, line = refused_rule(tmp_path, 'When I click locator "#go"    await=${DONE}')
    assert line[problem.loc.col - 1:].startswith("${DONE}")


@pytest.mark.parametrize(("value", "message"), [
    ("%{HOME}", "environment variable '%{HOME}' is not read"),
    ("@{LIST}", "list or dictionary variable"),
    ("${X}[0]", "item access and extended variable syntax"),
    ("${X.upper()}", "item access and extended variable syntax"),
    ("{{X}}", "would be read as a flowwalk placeholder"),
])
def test_unsupported_variable_forms_are_refused(tmp_path: Path, value: str, message: str) -> None:
    problem, _ = refused_rule(tmp_path, f'Then url contains "{value}"', "${X}    x\n")
    assert message in problem.message


def test_a_variable_that_refers_to_itself_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "${A}"\n',
                                            "${A}    x${B}\n${B}    ${A}\n"))
    assert "refers to itself" in problems[0].message and "${A} -> ${B} -> ${A}" in problems[0].message


def test_an_unused_broken_variable_is_no_error(tmp_path: Path) -> None:
    r = rule(tmp_path, 'Then url contains "/"', "${UNUSED}    %{NOPE}\n")
    assert r.steps


def doubling(levels: int, first: str = "ha") -> str:
    """*** Variables *** rows where each variable is the one before it, twice."""
    return f"${{V0}}    {first}\n" + "".join(f"${{V{i}}}    ${{V{i - 1}}}${{V{i - 1}}}\n" for i in range(1, levels + 1))


def test_variables_that_each_double_the_one_before_are_refused_at_the_first_too_long(tmp_path: Path) -> None:
    # 2 characters doubled 16 times is 131,072: ${V16} (line 24) is the first past 100,000; unused, and
    # 40 levels (2**41 characters) cost no more than 17
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/"\n', doubling(40)))
    assert [p.render() for p in problems] == [
        "suites/s.robot:24:11: error: the value of '${V16}' expands to more than 100,000 characters\n"
        "  hint: each ${NAME} in a value is replaced by that variable's whole value, so variables built "
        "from each other grow fast: use fewer of them, or write the value out"]
    # used, the same one problem
    used = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "${V40}"\n', doubling(40)))
    assert [(p.loc.line, p.message) for p in used] == [(24, problems[0].message)]


def test_a_doubling_chain_below_the_bound_is_accepted(tmp_path: Path) -> None:
    r = rule(tmp_path, 'Then url contains "${V15}"', doubling(15))
    assert r.steps[0].text == 'Then url contains "${V15}"' and len(fields(r.steps[0], "value")[0]) == 2 ** 16


def test_variables_nested_more_than_100_deep_are_refused(tmp_path: Path) -> None:
    chain = "${V0}    x\n" + "".join(f"${{V{i}}}    ${{V{i - 1}}}\n" for i in range(1, 2001))
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/${V2000}"\n', chain))
    assert [(str(p.loc), p.message) for p in problems] == [
        ("suites/s.robot:108:12", "the value of '${V100}' nests variables more than 100 deep")]
    assert "write one of the values out" in problems[0].hint
    # 100 deep, written either way round, is fine
    rule(tmp_path, 'Then url contains "/${V99}"', "".join(f"${{V{i}}}    ${{V{i - 1}}}\n" for i in range(1, 100))
         + "${V0}    x\n")
    rule(tmp_path, 'Then url contains "/${V0}"', "".join(f"${{V{i}}}    ${{V{i + 1}}}\n" for i in range(99))
         + "${V99}    x\n")


def test_a_long_unused_loop_of_variables_is_refused_once(tmp_path: Path) -> None:
    loop = "".join(f"${{V{i}}}    ${{V{(i + 1) % 500}}}\n" for i in range(500))
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/"\n', loop))
    assert len(problems) == 1 and "nests variables more than 100 deep" in problems[0].message


def test_substitution_of_a_whole_suite_is_bounded(tmp_path: Path) -> None:
    big = "${BIG}    " + "x" * 90_000 + "\n" + "".join(f"${{C{i}}}    ${{BIG}}\n" for i in range(40))
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/"\n', big))
    assert [p.message for p in problems] == [
        "substituting variables in this suite comes to more than 2,000,000 characters"]
    assert problems[0].loc.line == 9 + 22 and problems[0].hint.startswith("each ${NAME} is replaced")


@pytest.mark.parametrize(("line", "message"), [
    ("@{L}    a    b", "only scalar"),
    ("&{D}    a=1", "only scalar"),
    ("${BASE_URL}    again", "defined twice"),
])
def test_bad_variable_definitions_are_refused(tmp_path: Path, line: str, message: str) -> None:
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/"\n', line + "\n"))
    assert message in problems[0].message and problems[0].loc.line == 8


# --- Robot Framework syntax flowwalk does not read -------------------------------------------------


@pytest.mark.parametrize(("snippet", "message"), [
    ("    FOR    ${i}    IN    a    b\n        Log    ${i}\n    END\n", "FOR in a test case is not supported"),
    ("    IF    True\n        Log    x\n    END\n", "IF in a test case is not supported"),
    ("    VAR    ${x}    1\n", "VAR in a test case is not supported"),
    ("    ${x}=    Get Title\n", "assigning 'Get Title' to ${x}="),
    ("    [Template]    Some Keyword\n", "[Template] is not supported"),
    ("    [Bogus]    x\n", "Robot Framework cannot read this line"),
    ("    Log    hello\n", "does not register a keyword named 'Log'"),
])
def test_robot_syntax_outside_the_data_subset_is_refused(tmp_path: Path, snippet: str, message: str) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n' + snippet)
    problems = refused(tmp_path, text)
    assert len(problems) == 1 and message in problems[0].message
    assert problems[0].loc.line == 14 and problems[0].hint


@pytest.mark.parametrize(("line", "expected"), [
    # RF puts its suggestions on lines of their own: they become the hint, the message stays one line
    ("Suit Teardown    Then I finalize verification",
     "suites/s.robot:3:1: error: Robot Framework cannot read this line: Non-existing setting 'Suit Teardown'\n"
     "  hint: did you mean 'Suite Teardown'?"),
    ("Test Tear    Then I finalize verification",
     "suites/s.robot:3:1: error: Robot Framework cannot read this line: Non-existing setting 'Test Tear'\n"
     "  hint: did you mean 'Test Teardown' or 'Test Tags'?"),
    ("Setup    Then I finalize verification",
     "suites/s.robot:3:1: error: Robot Framework cannot read this line: Setting 'Setup' is not allowed in suite file\n"
     "  hint: see the Robot Framework user guide for the syntax of this line"),
])
def test_robot_frameworks_own_complaint_renders_on_one_line_with_its_suggestion_as_hint(
        tmp_path: Path, line: str, expected: str) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n').replace(
        "Suite Setup ", line + "\nSuite Setup ", 1)
    problems = refused(tmp_path, text)
    assert [p.render() for p in problems] == [expected]


def test_resource_imports_are_refused(tmp_path: Path) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n')
    text = text.replace("Suite Setup", "Resource          common.resource\nSuite Setup", 1)
    problems = refused(tmp_path, text)
    assert [p.message for p in problems] == ["importing resource files ('common.resource') is not supported"]


def test_an_unrecognized_section_is_refused(tmp_path: Path) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n') + "\n*** Stepz ***\nfoo\n"
    problems = refused(tmp_path, text)
    assert [p.message for p in problems] == ["unrecognized section header '*** Stepz ***'"]
    assert problems[0].loc.line == 15 and "*** Test Cases ***" in problems[0].hint


def test_tasks_and_the_pipe_separated_format_read_as_robot_framework_reads_them(tmp_path: Path) -> None:
    text = ("| *** Settings *** |\n| Library | aitester_bdd.AITester |\n\n| *** Tasks *** |\n"
            f'| T | [Setup] | Given I start scenario "s" at "{URL}/" |\n| | I define rule "r" |\n'
            '| | Then url contains "/" |\n')
    suite, problems = load(tmp_path, text)
    assert not problems and suite is not None
    step = suite.scenarios[0].rules[0].steps[0]
    assert (step.loc.line, step.text) == (7, 'Then url contains "/"')


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_positions_count_only_the_line_breaks_an_editor_shows(tmp_path: Path, newline: str) -> None:
    # Robot Framework numbers the lines of str.splitlines(), which also ends one at FF, FS, LS, ...
    text = suite_text('    I define rule "r"\n        Then url contains "/x\x0cy\x1cz\u2028w"\n'
                      '        Then bogus keyword    "\x0bv"\n')
    problems = refused(tmp_path, "\ufeff" + text.replace("\n", newline))
    assert [str(p.loc) for p in problems if "bogus" in p.message] == ["suites/s.robot:14:9"]
    assert all(p.loc.line <= 14 for p in problems)


def test_a_suite_that_does_not_import_the_library_is_refused(tmp_path: Path) -> None:
    problems = refused(tmp_path, suite_text('    I define rule "r"\n        Then url contains "/"\n').replace(
        "Library           aitester_bdd.AITester", "Library           Browser"))
    assert problems[0].message == "the suite does not import aitester_bdd.AITester"
    assert str(problems[0].loc) == "suites/s.robot:1:1"


def test_problems_render_as_path_line_col_with_a_hint(tmp_path: Path) -> None:
    problem, _ = refused_rule(tmp_path, 'Then selector exists "#x"')
    assert problem.render() == (
        "suites/s.robot:13:9: error: aitester-bdd does not register a keyword named 'Then selector exists \"#x\"'\n"
        "  hint: did you mean 'Then selector \"#x\" exists'? see docs/robot.md for the keywords aitester-bdd registers")


def test_a_suite_over_1_mib_is_refused_for_its_size_unparsed(tmp_path: Path) -> None:
    text = suite_text('    I define rule "r"\n        Then url contains "/"\n') + "# padding\n" * 110_000
    path = _write(tmp_path, text)
    size = path.stat().st_size
    assert size > 1 << 20
    assert is_aitester_suite(path)  # found, so that loading can say why it is not loaded
    suite, problems = load_robot_suite(path, "suites/s.robot", Settings())
    assert suite is None and [p.render() for p in problems] == [
        f"suites/s.robot:1:1: error: file is too large ({size:,} bytes; the limit is 1 MiB)\n"
        "  hint: a suite is a reviewable artifact: split it into smaller suites"]
    plain = "*** Test Cases ***\nT\n    Log    hi\n"
    path.write_text(plain + "# aitester_bdd\n" * 100 + "# padding\n" * 110_000, encoding="utf-8")
    assert is_aitester_suite(path)  # over the limit it is not parsed: naming the library is enough
    path.write_text(plain + "# padding\n" * 110_000, encoding="utf-8")
    assert not is_aitester_suite(path)


def test_a_suite_of_thousands_of_distinct_calls_loads_quickly(tmp_path: Path) -> None:
    # each call was matched against every registered pattern (about 1 ms of CPU each: 5,000 calls
    # took 7 s); calls are now compared only with the patterns whose first word they start with
    lines = "".join(f'        When I click locator "#b{i}"\n        Then locator "#s{i}" has text "t {i}"\n'
                    f'        And I type "v{i}" into locator "#f{i}"\n        Given selector "#e{i}" exists\n'
                    for i in range(1250))
    started = time.process_time()
    r = rule(tmp_path, lines)
    assert time.process_time() - started < 3
    assert len(r.steps) == 5000 and r.steps[-1].text == 'Given selector "#e1249" exists'


# --- [Tags], Test Tags, Default Tags, [Timeout], Test Timeout (issue 27) ---------------------------

TAGGED = """\
*** Settings ***
Library           aitester_bdd.AITester
Test Tags         smoke    slow
Default Tags      nightly
Test Timeout      45 seconds

*** Test Cases ***
First
    [Setup]    Given I start scenario "one" at "http://127.0.0.1:8000/"
    [Tags]    Checkout    -SLOW
    I define rule "a"
        Then url contains "/"

Second
    [Setup]    Given I start scenario "two" at "http://127.0.0.1:8000/"
    [Timeout]    2 min
    I define rule "b"
        Then url contains "/"
    I define rule "c"
        And I set rule timeout    5000
        Then url contains "/"
"""


def test_tags_are_test_tags_then_the_tests_own_or_default_tags(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, TAGGED)
    assert problems == [] and suite is not None
    first, second = suite.scenarios
    # `[Tags] -SLOW` takes Test Tags' slow away (case aside); Default Tags only without [Tags]
    assert first.tags == ("smoke", "Checkout")
    assert second.tags == ("smoke", "slow", "nightly")


def test_a_test_timeout_is_each_rules_timeout_unless_the_rule_sets_its_own(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, TAGGED)
    assert problems == [] and suite is not None
    first, second = suite.scenarios
    assert [(r.name, r.timeout_ms, r.guard_timeout_ms) for r in first.rules] == [("a", 45_000, 45_000)]
    assert [(r.name, r.timeout_ms) for r in second.rules] == [("b", 120_000), ("c", 5000)]


@pytest.mark.parametrize("setting, message", [
    ("Test Tags    smoke test", "3:14: error: tag 'smoke test' is not one word\n"
                                "  hint: a tag is letters, digits and _ @ . : / + - (so a --tag expression can "
                                "name it), e.g. 'smoke-test'"),
    ("Test Tags    NOT", "3:14: error: 'NOT' cannot be a tag\n"
                         "  hint: and, or and not join tags in a --tag expression: use another word"),
    ("Test Timeout    forever", "3:17: error: timeout 'forever' is not a time\n"
                                "  hint: write it as Robot Framework does, e.g. 30 seconds, 1 minute 30 s, 90s or "
                                "2 min"),
    ("Test Timeout    20 minutes", "3:17: error: timeout '20 minutes' is 1200 s; flowwalk takes 0.1 s to 600 s\n"
                                   "  hint: it bounds each rule of the test (guards and checks), like a rule "
                                   "timeout: choose a time in that range"),
    ("Test Timeout    ${NOPE}", "3:17: error: "),
])
def test_bad_tags_and_timeouts_are_refused_at_their_cell(tmp_path: Path, setting: str, message: str) -> None:
    text = TAGGED.replace("Test Tags         smoke    slow\nDefault Tags      nightly\nTest Timeout      45 seconds",
                          setting).replace("    [Timeout]    2 min\n", "")
    suite, problems = load(tmp_path, text)
    assert suite is None
    assert problems[0].render().startswith(f"suites/s.robot:{message}")


def test_timeout_none_means_the_run_default(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, TAGGED.replace("[Timeout]    2 min", "[Timeout]    NONE"))
    assert problems == [] and suite is not None
    assert suite.scenarios[1].rules[0].timeout_ms is None


def test_a_suite_that_imports_seleniumlibrary_instead_is_told_how_to_move(tmp_path: Path) -> None:
    suite, problems = load(tmp_path, """*** Settings ***
Library    SeleniumLibrary

*** Test Cases ***
T
    Go To    http://127.0.0.1:8000/
    Input Text    id=q    books
    Log    hello
""")
    assert suite is None
    by_line = {p.loc.line: p for p in problems}
    assert by_line[1].message == "the suite does not import aitester_bdd.AITester"
    assert "not those of SeleniumLibrary (imported on line 2)" in by_line[1].hint
    assert by_line[6].hint.startswith("'Go To' is a keyword of SeleniumLibrary and of the Browser library; "
                                      "aitester-bdd's call for it is: When I open \"http://127.0.0.1:8000/\"")
    assert "When I fill locator \"#q\" with \"books\"" in by_line[7].hint
    assert by_line[8].hint == "see docs/robot.md for the keywords aitester-bdd registers"
