"""Placeholders, availability of variables, secret placement, and redaction of secret values."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from flowwalk import events
from flowwalk.model import Scenario
from flowwalk.settings import Settings
from flowwalk.spec.flow import load_flow
from flowwalk.spec.rules import load_rules
from flowwalk.spec.source import parse_yaml
from flowwalk.spec.variables import Redactor, missing_variables, placeholders, secret_misuse, substitute


def flow(text: str) -> Scenario:
    suite, problems = load_flow(parse_yaml(text, "t.flow.yaml"), Settings())
    assert not problems and suite is not None, [p.render() for p in problems]
    return suite.scenarios[0]


def rules(text: str) -> Scenario:
    suite, problems = load_rules(parse_yaml(text, "t.rules.yaml"), Settings())
    assert not problems and suite is not None, [p.render() for p in problems]
    return suite.scenarios[0]


def test_placeholders_in_order_once_with_optional_inner_spaces() -> None:
    assert placeholders("{{A}}/{{ B }}/{{A}}/{{  C_1}}") == ["A", "B", "C_1"]
    assert placeholders("{{ 1X }} {{a-b}} {single} {{}}") == []
    assert placeholders(None) == []


def test_substitute_replaces_known_names_and_leaves_others_as_written() -> None:
    assert substitute("/u/{{ USER }}?q={{Q}}&x={{MISSING}}", {"USER": "bob", "Q": "a b"}) == "/u/bob?q=a b&x={{MISSING}}"
    assert substitute("no braces", {"X": "y"}) == "no braces"
    # a value that looks like a placeholder is not expanded again
    assert substitute("{{A}}", {"A": "{{B}}", "B": "nope"}) == "{{B}}"


FLOW = '''spec_version: "1"
name: vars
url: "{{BASE_URL}}/start"
steps:
  - {type: goto, url: "/orders/{{ORDER}}"}
  - {type: extract, selector: "#order", into: ORDER}
  - {type: goto, url: "/orders/{{ORDER}}"}
  - {type: act, action: fill, selector: "#email", value: "{{EMAIL}}"}
  - {type: expect, kind: url_matches, value: "/orders/{{2,}}"}
  - {type: expect, kind: text_contains, value: "{{GREETING}}", selector: "#{{AREA}}"}
'''


def test_missing_variables_follow_step_order_and_skip_regexes() -> None:
    scenario = flow(FLOW)
    found = [(str(loc), name) for loc, name in missing_variables(scenario, {"EMAIL"})]
    assert found == [("t.flow.yaml:2:7", "BASE_URL"), ("t.flow.yaml:5:5", "ORDER"),
                     ("t.flow.yaml:10:5", "AREA"), ("t.flow.yaml:10:5", "GREETING")]
    everything = {"BASE_URL", "EMAIL", "GREETING", "AREA"}
    assert missing_variables(scenario, everything) == [(scenario.rules[0].steps[0].loc, "ORDER")]


RULES = '''rules_version: "1"
verification: v
variables: {DEFAULTED: x}
scenarios:
  - name: s
    url: /
    rules:
      - name: login
        steps:
          - {type: extract, selector: "#user", into: USER}
      - name: profile
        parents: [login]
        steps:
          - {type: goto, url: "/u/{{USER}}/{{DEFAULTED}}"}
          - {type: extract, selector: "#tab", into: TAB}
      - name: settings
        parents: [profile]
        child_scope: "#{{TAB}}"
        steps:
          - {type: goto, url: "/u/{{USER}}/{{TAB}}/{{LATER}}"}
          - {type: extract, selector: "#x", into: LATER}
      - name: sibling
        steps:
          - {type: goto, url: "/u/{{USER}}"}
'''


def test_rule_extracts_are_available_to_descendants_only() -> None:
    scenario = rules(RULES)
    found = [(loc.line, name) for loc, name in missing_variables(scenario, set())]
    # settings sees USER (grandparent) and TAB (parent), not LATER (extracted after use);
    # sibling is not a descendant of login, so USER is missing there
    assert found == [(20, "LATER"), (24, "USER")]


def test_secret_placeholders_only_in_fill_and_press_values() -> None:
    scenario = flow('''spec_version: "1"
name: secrets
url: /
steps:
  - {type: act, action: fill, selector: "#pw", value: "{{PASSWORD}}"}
  - {type: act, action: press, selector: "#otp", value: "{{ OTP }}"}
  - {type: act, action: click, target: "the {{PASSWORD}} button"}
  - {type: expect, kind: url_matches, value: "token={{OTP}}"}
''')
    problems = secret_misuse(scenario, {"PASSWORD", "OTP"})
    assert [p.render().splitlines()[0] for p in problems] == [
        "t.flow.yaml:7:5: error: secret {{PASSWORD}} is used in the target of step 3 (act click 'the {{PASSWORD}} button')",
        "t.flow.yaml:8:5: error: secret {{OTP}} is used in the regular expression of step 4 (expect url_matches 'token={{OTP}}')",
    ]
    assert secret_misuse(scenario, set()) == []


def test_rule_file_secrets_count_without_run_secrets() -> None:
    scenario = rules('''rules_version: "1"
verification: v
secrets: [TOKEN]
scenarios:
  - name: s
    rules:
      - name: r
        steps:
          - {type: act, action: fill, selector: "#t", value: "{{TOKEN}}"}
          - {type: wait, for: "[data-token='{{TOKEN}}']"}
''')
    (problem,) = secret_misuse(scenario, ())
    assert problem.render().splitlines()[0] == (
        "t.rules.yaml:10:13: error: secret {{TOKEN}} is used in the for of step 2 (wait for "
        "'[data-token='{{TOKEN}}']') of rule 'r'")


def test_names_with_a_line_break_stay_on_the_problem_line() -> None:
    # flow and rule file names are identifiers, but a .robot suite may name a scenario or rule
    # `"s\nx"` (Robot Framework unescapes it); here the names are set on a loaded rule file's model
    loaded = rules('''rules_version: "1"
verification: v
secrets: [TOKEN]
scenarios:
  - name: s
    url: "/?t={{TOKEN}}"
    rules:
      - name: r
        child_scope: "#{{TOKEN}}"
        steps:
          - {type: wait, for: "[data-token='{{TOKEN}}']"}
          - {type: extract, selector: "#t", into: TOKEN}
''')
    rule = loaded.rules[0]
    wait = dataclasses.replace(rule.steps[0], text="wait for\r\n'x'")
    renamed = dataclasses.replace(loaded, name="s\nx", rules=(
        dataclasses.replace(rule, name="a\nb\u2028c", steps=(wait, rule.steps[1])),))
    rendered = [p.render() for p in secret_misuse(renamed, ())]
    assert [line.split(": error: ", 1)[1] for line in (r.split("\n")[0] for r in rendered)] == [
        "secret {{TOKEN}} is used in the url of scenario 's\\nx'",
        "secret {{TOKEN}} is used in the child_scope of rule 'a\\nb\\u2028c'",
        "secret {{TOKEN}} is used in the for of step 1 (wait for\\r\\n'x') of rule 'a\\nb\\u2028c'",
        "step 2 (extract '#t' into TOKEN) of rule 'a\\nb\\u2028c' extracts into 'TOKEN', which is a secret",
    ]
    # each problem is its message line and its hint line, nothing more
    assert all(len(r.splitlines()) == 2 for r in rendered)


SECRET = "s3cr+t/&\"ü"


def test_redactor_masks_plain_percent_encoded_and_json_escaped_forms() -> None:
    redact = Redactor([SECRET])
    assert redact.text(f"typed {SECRET} ok") == "typed *** ok"
    assert redact.text("q=s3cr%2Bt%2F%26%22%C3%BC") == "q=***"
    assert redact.text("q=s3cr%2Bt/%26%22%C3%BC") == "q=***"
    assert Redactor(["two words"]).text("q=two+words&r=two%20words") == "q=***&r=***"
    # a query shown with decodeURIComponent: `+` for the space, the rest decoded
    assert Redactor(['two words/é"']).text('?pw=two+words/é"') == "?pw=***"
    assert redact.text(json.dumps({"v": SECRET})) == '{"v": "***"}'
    assert redact.text(json.dumps({"v": SECRET}, ensure_ascii=False)) == '{"v": "***"}'
    assert redact.text(json.dumps(json.dumps({"v": SECRET}))) == '"{\\"v\\": \\"***\\"}"'


def test_longest_secret_is_masked_first() -> None:
    redact = Redactor(["abc", "abcdef"])
    assert redact.text("xabcdefx abc") == "x***x ***"


def test_empty_values_are_ignored_and_an_empty_redactor_is_identity() -> None:
    assert not Redactor(["", ""])
    thing = {"a": ["b"]}
    assert Redactor([]).deep(thing) is thing


def test_deep_redaction_of_records_and_events() -> None:
    redact = Redactor(["hunter2"])
    record = {"msg": "pw hunter2", "hunter2": [("x", "hunter2"), {"n": 3}], "ok": True}
    assert redact.deep(record) == {"msg": "pw ***", "***": [("x", "***"), {"n": 3}], "ok": True}
    failure = events.Failure(failure_class="assertion_failed", runtime_code="EXPECT_STATE_MISMATCH", retryable=False,
                             step_kind="observation_or_assertion", message="saw hunter2",
                             observed="value=hunter2", context={"url": "https://x/?p=hunter2"})
    event = events.StepFinished(scenario_id="s", rule="r", test_id="s", attempt=1, index=1, text="t", kind="act",
                                role="body", status="failed", duration_ms=1.0, path="p", line=1, failure=failure)
    clean = redact.deep(event)
    assert isinstance(clean, events.StepFinished)
    assert "hunter2" not in json.dumps(clean.record())
    assert clean.failure is not None and clean.failure.observed == "value=***"


def test_redaction_never_leaks_through_a_written_file(tmp_path: Path) -> None:
    redact = Redactor(["p@ss w0rd"])
    lines = [json.dumps(redact.deep({"typed": "p@ss w0rd", "url": "https://x/?p=p%40ss%20w0rd",
                                     "form": "p%40ss+w0rd"}))]
    (tmp_path / "emit.jsonl").write_text("\n".join(lines))
    text = (tmp_path / "emit.jsonl").read_text()
    assert "p@ss w0rd" not in text and "p%40ss" not in text and text.count("***") == 3


@pytest.mark.parametrize("value", ["a", "αβγ", "line\nbreak", "tab\tand\\slash"])
def test_any_secret_round_trips_through_json_masked(value: str) -> None:
    redact = Redactor([value])
    assert value not in json.loads(redact.text(json.dumps({"k": f"<{value}>"})))["k"]
