"""flowwalk's own keywords in aitester-bdd suites: the baseline and accessibility checks, saved
sessions and the browser's environment. Each becomes the same `model.Expect`, `Rule.saves_session`,
`Scenario.session` and `Scenario.environment` a flow spec or a rule file gives, validated by the same
models, and each bad argument is refused at its own `path:line:col` with a hint. No browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.model import AxeOptions, Environment, Expect, Snapshot
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites
from flowwalk.spec.robot_keywords import Miss, match_keyword

from test_robot_load import HEAD, URL, load, ok, refused, rule, suite_text

BASELINES = "suites/s.robot.snapshots"


def problem_lines(tmp_path: Path, body: str) -> list[str]:
    """Each problem as `line:col: message | hint` (the first line of `body` is line 12)."""
    return [f"{p.loc.line}:{p.loc.col}: {p.message} | {p.hint}" for p in refused(tmp_path, suite_text(body))]


def one_problem(tmp_path: Path, lines: str) -> tuple[int, int, str, str]:
    body = '    I define rule "r"\n        When I open "${BASE_URL}/"\n' + "".join(
        f"        {line}\n" for line in lines.strip("\n").splitlines())
    problems = refused(tmp_path, suite_text(body))
    assert len(problems) == 1, [p.render() for p in problems]
    p = problems[0]
    assert p.loc.path == "suites/s.robot"
    return p.loc.line, p.loc.col, p.message, p.hint


# --- baselines and accessibility -------------------------------------------------------------------


def test_aria_snapshot_checks_of_the_page_and_of_an_element(tmp_path: Path) -> None:
    r = rule(tmp_path, '''
When I open "${BASE_URL}/"
Then page matches aria snapshot "home"
And locator "main" matches aria snapshot "main-part"
''')
    page, element = r.steps[1], r.steps[2]
    assert isinstance(page, Expect) and page.kind == "aria_snapshot" and page.selector is None
    assert page.snapshot == Snapshot(name="home", baseline=f"{BASELINES}/home.yml")
    assert isinstance(element, Expect) and element.selector == "main"
    assert element.snapshot == Snapshot(name="main-part", baseline=f"{BASELINES}/main-part.yml")
    assert element.text == 'And locator "main" matches aria snapshot "main-part"'


def test_screenshot_checks_take_the_options_a_flow_step_takes(tmp_path: Path) -> None:
    r = rule(tmp_path, '''
When I open "${BASE_URL}/"
Then page matches screenshot "page"    full_page=true    mask=.clock    mask=#ad    max_diff_ratio=0.01
And locator ".card" matches screenshot "card"    threshold=0.1    max_diff_pixels=12
''')
    page, card = r.steps[1], r.steps[2]
    assert isinstance(page, Expect) and isinstance(card, Expect)
    assert page.kind == card.kind == "screenshot"
    assert page.snapshot == Snapshot(name="page", baseline=f"{BASELINES}/page.png", mask=(".clock", "#ad"),
                                     full_page=True, max_diff_ratio=0.01)
    assert card.selector == ".card"
    assert card.snapshot == Snapshot(name="card", baseline=f"{BASELINES}/card.png", threshold=0.1,
                                     max_diff_pixels=12)


def test_accessibility_checks_take_impact_rules_and_exclusions(tmp_path: Path) -> None:
    r = rule(tmp_path, '''
When I open "${BASE_URL}/"
Then page is accessible
And locator "main" is accessible    impact=serious    include=wcag2a,wcag2aa    exclude=.ad    exclude=#chat
And page is accessible    skip=color-contrast
''')
    plain, scoped, skipping = r.steps[1], r.steps[2], r.steps[3]
    assert isinstance(plain, Expect) and plain.kind == "accessible" and plain.axe == AxeOptions()
    assert isinstance(scoped, Expect) and scoped.selector == "main"
    assert scoped.axe == AxeOptions(impact="serious", include=("wcag2a", "wcag2aa"), exclude=(".ad", "#chat"))
    assert isinstance(skipping, Expect) and skipping.axe == AxeOptions(skip=("color-contrast",))


def test_the_same_check_in_a_flow_spec_gives_the_same_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.flow.yaml").write_text(
        'spec_version: "1.1"\nname: f\nurl: http://127.0.0.1:8000/\nsteps:\n'
        "  - {type: expect, kind: screenshot, name: card, selector: .card, threshold: 0.1, mask: [.clock]}\n"
        "  - {type: expect, kind: accessible, impact: serious, rules: {skip: [color-contrast]}}\n")
    flow = load_suites(["f.flow.yaml"], Settings())[0].scenarios[0].rules[0].steps
    r = rule(tmp_path, '''
When I open "${BASE_URL}/"
Then locator ".card" matches screenshot "card"    threshold=0.1    mask=.clock
And page is accessible    impact=serious    skip=color-contrast
''')
    for from_flow, from_robot in zip(flow, r.steps[1:]):
        assert isinstance(from_flow, Expect) and isinstance(from_robot, Expect)
        assert (from_flow.kind, from_flow.selector, from_flow.axe) == (from_robot.kind, from_robot.selector,
                                                                       from_robot.axe)
        if from_flow.snapshot is not None:
            assert from_robot.snapshot is not None
            assert from_flow.snapshot.threshold == from_robot.snapshot.threshold
            assert from_flow.snapshot.mask == from_robot.snapshot.mask


@pytest.mark.parametrize(("line", "at", "message", "hint"), [
    ('Then page matches screenshot "p"    threshold=1.5', "threshold=", "'threshold' is 1.5, out of range",
     "use a value from 0 to 1"),
    ('Then page matches screenshot "p"    threshold=x', "threshold=", "option 'threshold=' of 'Then page matches "
     "screenshot \"p\"' is 'x', not a number", "write digits only, e.g. threshold=0.2"),
    ('Then page matches screenshot "p"    max_diff_pixels=1.5', "max_diff", "not a whole number", "max_diff_pixels=10"),
    ('Then page matches screenshot "p"    full_page=yes', "full_page", "is 'yes', not true or false",
     "write full_page=true or full_page=false"),
    ('Then page matches screenshot "p"    masks=.clock', "masks", "unknown option 'masks='", "did you mean 'mask='?"),
    ('Then locator ".c" matches screenshot "p"    full_page=true', "full_page", "unknown option 'full_page='",
     "valid options: threshold=, max_diff_pixels=, max_diff_ratio=, mask="),
    ('Then page matches screenshot "p"    mask=.a    mask=//div', "mask=//", "XPath selector '//div' is not allowed",
     "use a CSS or text= selector"),
    ('Then page matches screenshot "home/page"', "home/", "baseline name 'home/page' is not a plain file name",
     "use letters, digits"),
    ('Then page matches aria snapshot "a b"', "a b", "baseline name 'a b' is not a plain file name", "no spaces"),
    ('Then locator "//main" matches aria snapshot "m"', "//main", "XPath selector '//main' is not allowed", "CSS"),
    ('Then page is accessible    impact=severe', "impact", "unknown impact 'severe'",
     "valid values of impact: minor, moderate, serious, critical"),
    ('Then page is accessible    include=colour-contrast', "include", "unknown axe-core rule or tag 'colour-contrast'",
     "did you mean 'color-contrast'?"),
    ('Then page is accessible    skip=wcag2aa', "skip", "unknown axe-core rule 'wcag2aa'", "write a rule id"),
    ('Then page is accessible    include=image-alt    skip=image-alt', "skip",
     "rule 'image-alt' is both included and skipped", "keep it in one list"),
    ('Then page is accessible    include=a,,b', "include", "has an empty entry", "separate rule ids with single commas"),
    ('Then page is accessible    impact=minor    impact=serious', "impact=serious", "option 'impact=' given twice",
     "once"),
    ('Then page is accessible    rules=label', "rules", "unknown option 'rules='",
     "valid options: impact=, include=, skip=, exclude="),
])
def test_a_bad_check_argument_is_refused_at_its_cell(tmp_path: Path, line: str, at: str, message: str,
                                                     hint: str) -> None:
    at_line, at_col, got_message, got_hint = one_problem(tmp_path, line)
    assert (at_line, at_col) == (14, 9 + line.index(at)), got_message
    assert message in got_message and hint in got_hint


def test_two_checks_of_one_suite_cannot_share_a_baseline(tmp_path: Path) -> None:
    problems = problem_lines(tmp_path, '''    I define rule "r"
        When I open "${BASE_URL}/"
        Then page matches screenshot "home"
    I define rule "s"
        When I open "${BASE_URL}/"
        Then locator "main" matches screenshot "home"
''')
    assert problems == ["17:49: baseline 'home.png' is already used by the check at line 14 | give each check its "
                        "own name; two checks cannot share one baseline file"]


def test_a_check_outside_a_rule_is_refused(tmp_path: Path) -> None:
    problems = problem_lines(tmp_path, '    Then page is accessible\n    I define rule "r"\n        When I open "/"\n')
    assert problems[0].startswith("12:5: 'Then page is accessible' comes before any rule of this test case")


# --- sessions and the browser's environment ---------------------------------------------------------


def test_sessions_and_environment_become_the_scenario_and_rule_keys(tmp_path: Path) -> None:
    text = HEAD + f"""
*** Test Cases ***
Sign In
    [Setup]    Given I start scenario "sign_in" at "{URL}/login"
    I define rule "login"
        When I click locator "#go"
        And I save session "admin"
Phone
    [Setup]    Given I start scenario "phone" at "{URL}/"
    And I use session "admin"
    Given I use device "iPhone 13"
    And I set viewport to 390 x 700
    And I set locale "fr-FR"
    And I set timezone "Europe/Paris"
    And I set color scheme "dark"
    And I set geolocation to 48.8566, 2.3522    accuracy=25
    I define rule "r"
        Then url contains "/"
"""
    suite, problems = load(tmp_path, text)
    assert not problems, [p.render() for p in problems]
    assert suite is not None
    sign_in, phone = suite.scenarios
    assert sign_in.rules[0].saves_session == "admin" and sign_in.session is None
    assert phone.session == "admin" and phone.session_loc is not None and phone.session_loc.line == 14
    assert phone.environment == Environment(viewport=(390, 700), device="iPhone 13", locale="fr-FR",
                                            timezone="Europe/Paris", color_scheme="dark",
                                            geolocation=(48.8566, 2.3522, 25.0))
    assert sign_in.environment == Environment()


def test_a_session_no_suite_saves_is_refused_with_the_names_saved(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.robot").write_text(HEAD + f"""
*** Test Cases ***
Sign In
    [Setup]    Given I start scenario "sign_in" at "{URL}/login"
    I define rule "login"
        When I click locator "#go"
        And I save session "admin"
Other
    [Setup]    Given I start scenario "other" at "{URL}/"
    And I use session "admim"
    I define rule "r"
        Then url contains "/"
""", encoding="utf-8")
    from flowwalk.errors import SpecError

    with pytest.raises(SpecError) as caught:
        load_suites(["s.robot"], Settings())
    [problem] = caught.value.problems
    assert (problem.loc.line, problem.message) == (14, "no setup saves session 'admim'")
    assert "did you mean 'admin'?" in problem.hint


@pytest.mark.parametrize(("line", "at", "message", "hint"), [
    ('Given I use device "iphone 13"', "iphone", "unknown device 'iphone 13'", "did you mean 'iPhone 13'?"),
    ('And I set viewport to 0 x 720', "0 x", "'width' in 'viewport' is 0, out of range", "from 100 to 10000"),
    ('And I set viewport to wide x 720', "wide", "'wide' is not a whole number", "e.g. I set viewport to 1280 x 720"),
    ('And I set locale "english language"', "english", "locale 'english language' is not a language tag",
     "BCP 47"),
    ('And I set timezone "Europe/Pariss"', "Europe", "timezone 'Europe/Pariss' is not an IANA time zone",
     "did you mean 'Europe/Paris'?"),
    ('And I set color scheme "dim"', "dim", "unknown color_scheme 'dim'",
     "valid values of color_scheme: light, dark, no-preference"),
    ('And I set geolocation to 100, 2.35', "100", "'latitude' in 'geolocation' is 100, out of range", "-90 to 90"),
    ('And I set geolocation to 48.8, east', "east", "'east' is not a number", "48.8566, 2.3522"),
    ('And I set geolocation to 48.8, 2.3    accuracy=-1', "accuracy", "'accuracy' in 'geolocation' is -1", "from 0"),
    ('And I set geolocation to 48.8, 2.3    radius=1', "radius", "unknown option 'radius='", "valid options: accuracy="),
    ('And I use session "the admin"', "the admin", "is 'the admin', with characters a name here cannot have", "letters, digits"),
])
def test_a_bad_setting_is_refused_at_its_argument(tmp_path: Path, line: str, at: str, message: str,
                                                  hint: str) -> None:
    problems = problem_lines(tmp_path, f"    {line}\n" + '    I define rule "r"\n        Then url contains "/"\n')
    assert len(problems) == 1, problems
    where, text = problems[0].split(": ", 1)
    assert where == f"12:{5 + line.index(at)}", problems[0]
    assert message in text and hint in text.split(" | ", 1)[1]


@pytest.mark.parametrize(("body", "where", "message", "hint"), [
    ('    I define rule "r"\n        Then url contains "/"\n        And I use device "Pixel 7"\n', "14:9",
     "comes after rule 'r'", "move it above the first 'I define rule' line"),
    ('    And I set locale "de"\n    And I set locale "fr"\n    I define rule "r"\n        Then url contains "/"\n',
     "13:5", "test case 'T' sets the locale twice", "the first is at suites/s.robot:12:5; keep one"),
    ('    And I use session "a"\n    And I use session "b"\n    I define rule "r"\n        Then url contains "/"\n',
     "13:5", "test case 'T' uses two sessions", "a scenario starts from one saved session"),
    ('    And I save session "a"\n    I define rule "r"\n        Then url contains "/"\n', "12:5",
     "comes before any rule of this test case", "put it under an 'I define rule"),
    ('    I define rule "r"\n        Then url contains "/"\n        And I save session "a"\n'
     '        And I save session "b"\n', "15:9", "rule 'r' saves two sessions", "save one session per rule"),
])
def test_a_setting_in_the_wrong_place_is_refused(tmp_path: Path, body: str, where: str, message: str,
                                                 hint: str) -> None:
    problems = problem_lines(tmp_path, body)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{where}: ") and message in problems[0] and hint in problems[0].split(" | ")[1]


def test_a_setting_in_the_suite_setup_is_refused(tmp_path: Path) -> None:
    text = HEAD.replace('Given I start verification "v"', 'Given I use device "Pixel 7"') + suite_text("")[len(HEAD):]
    text += '    I define rule "r"\n        Then url contains "/"\n'
    problems = refused(tmp_path, text)
    assert "comes before this test case started a scenario" in problems[0].message


@pytest.mark.parametrize(("call", "hint"), [
    ('When I use device "Pixel 7"', "did you mean 'And I use device \"Pixel 7\"'?"),
    ('Given I save session "a"', "did you mean 'And I save session \"a\"'?"),
    ('When page is accessible', "did you mean 'And page is accessible'?"),
])
def test_flowwalks_keywords_are_registered_with_their_prefixes_only(call: str, hint: str) -> None:
    miss = match_keyword(call)
    assert isinstance(miss, Miss)
    assert miss.message.startswith("flowwalk does not register")
    assert miss.hint.startswith(hint)


def test_existing_checks_still_match_their_own_keywords() -> None:
    # the new patterns share words with aitester-bdd's: each call still resolves to one keyword
    for call, pattern in [('Then locator "a" matches "x"', 'locator "${css}" matches "${regex}"'),
                          ('Then locator "a" is visible', 'locator "${css}" is visible'),
                          ('Then screenshot semantically matches "x"', 'screenshot semantically matches "${prompt}"'),
                          ('Then locator "a" matches aria snapshot "n"',
                           'locator "${css}" matches aria snapshot "${name}"')]:
        found = match_keyword(call)
        assert not isinstance(found, Miss) and found.keyword.pattern == pattern


def test_every_bad_cell_of_one_call_is_reported_together(tmp_path: Path) -> None:
    line = 'Then page matches screenshot "p"    threshold=2    masks=.a    max_diff_pixels=many    max_diff_ratio=-1'
    body = '    I define rule "r"\n        When I open "${BASE_URL}/"\n' + f"        {line}\n"
    problems = refused(tmp_path, suite_text(body))
    assert [(p.loc.line, p.loc.col) for p in problems] == [
        (14, 9 + line.index(cell)) for cell in ("threshold=", "masks=", "max_diff_pixels=", "max_diff_ratio=")]
    assert [p.message.split(",")[0] for p in problems] == [
        "'threshold' is 2", "unknown option 'masks=' on 'Then page matches screenshot \"p\"'",
        "option 'max_diff_pixels=' of 'Then page matches screenshot \"p\"' is 'many'", "'max_diff_ratio' is -1"]
