"""Every error in one pass: the checks that span entries (two checks sharing a baseline, a project
or a quarantined test named twice, a session no spec saves, `full_page` with `selector`) are
reported together with whatever else is wrong in the same file or entry, not one run later."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from flowwalk.errors import SpecError
from flowwalk.settings import Settings
from flowwalk.spec.config import load_config
from flowwalk.spec.loader import load_suites
from flowwalk.spec.quarantine import load_quarantine


def messages(error: pytest.ExceptionInfo[SpecError]) -> list[str]:
    return [f"{p.loc.path.rsplit('/', 1)[-1]}:{p.loc.line}: {p.message}" for p in error.value.problems]


def refused(tmp_path: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(SpecError) as error:
        load_suites([str(tmp_path)], Settings())
    return messages(error)


FLOW = 'spec_version: "1.1"\nname: {name}\nurl: https://example.com/\n'


def test_full_page_with_selector_beside_a_bad_threshold(tmp_path: Path) -> None:
    found = refused(tmp_path, {"a.flow.yaml": FLOW.format(name="a") + (
        "steps:\n  - type: expect\n    kind: screenshot\n    selector: .card\n    full_page: true\n"
        "    threshold: 1.5\n")})
    assert found == ["a.flow.yaml:8: step 1 has both 'selector' and 'full_page'",
                     "a.flow.yaml:9: 'threshold' in step 1 is 1.5, out of range"]


def test_two_checks_sharing_a_baseline_beside_an_unknown_key(tmp_path: Path) -> None:
    flow = FLOW.format(name="a") + ("steps:\n  - type: expect\n    kind: screenshot\n    name: cart\n"
                                    "  - type: expect\n    kind: screenshot\n    name: cart\n    treshold: 0.1\n")
    rules = ('rules_version: "1"\nscenarios:\n  - name: shop\n    url: https://example.com/\n    rules:\n'
             "      - name: cart\n        steps:\n          - type: expect\n            kind: aria_snapshot\n"
             "          - type: expect\n            kind: aria_snapshot\n            name: shop-cart-step-1\n"
             "          - type: wait\n            ms: -1\n")
    found = refused(tmp_path, {"a.flow.yaml": flow, "b.rules.yaml": rules})
    assert "a.flow.yaml:8: baseline 'cart.png' is already used by the check at line 5" in found
    assert any(m.startswith("a.flow.yaml:11: unknown key 'treshold'") for m in found)
    assert "b.rules.yaml:10: baseline 'shop-cart-step-1.yml' is already used by the check at line 8" in found
    assert any(m.startswith("b.rules.yaml:14: 'ms'") for m in found)


def test_a_session_no_spec_saves_beside_another_error_and_none_for_one_a_broken_file_saves(tmp_path: Path) -> None:
    found = refused(tmp_path, {
        "uses.flow.yaml": FLOW.format(name="uses") + "session: admn\nsteps:\n  - type: goto\n    url: /\n    optinal: true\n",
        "saves.flow.yaml": FLOW.format(name="saves") + "saves_session: admin\nsteps:\n  - type: goto\n    url: /\n",
        "profile.flow.yaml": FLOW.format(name="profile") + "session: owner\nsteps:\n  - type: goto\n    url: /\n",
        "owner.flow.yaml": FLOW.format(name="owner") + "saves_session: owner\nsteps:\n  - type: goto\n    urll: /\n",
    })
    assert "uses.flow.yaml:4: no setup saves session 'admn'" in found
    assert any(m.startswith("uses.flow.yaml:8: unknown key 'optinal'") for m in found)
    assert not any("'owner'" in m for m in found)   # saved by owner.flow.yaml, whatever else is wrong there


def test_a_project_named_twice_beside_a_bad_key(tmp_path: Path) -> None:
    path = tmp_path / "flowwalk.yaml"
    path.write_text("projects:\n  - name: desktop\n    devcie: Desktop Chrome\n  - name: desktop\n")
    with pytest.raises(SpecError) as error:
        load_config(path)
    assert messages(error) == ["flowwalk.yaml:3: unknown key 'devcie' in entry 1 of 'projects'",
                               "flowwalk.yaml:4: project 'desktop' is named twice"]


def test_a_test_quarantined_twice_beside_a_bad_date(tmp_path: Path) -> None:
    path = tmp_path / "flowwalk-quarantine.yaml"
    path.write_text('quarantine_version: "1"\ntests:\n'
                    "  - {id: a.flow.yaml#a, owner: ada, reason: flaky, expires: 2026-12-31}\n"
                    "  - {id: a.flow.yaml#a, owner: bob, reason: flaky, expires: 20270131}\n")
    with pytest.raises(SpecError) as error:
        load_quarantine(path, {"a.flow.yaml#a": ["a.flow.yaml#a"]}, datetime.date(2026, 1, 1))
    assert messages(error) == ["flowwalk-quarantine.yaml:4: test id 'a.flow.yaml#a' is quarantined twice (first "
                               "at line 3)",
                               "flowwalk-quarantine.yaml:4: 'expires' in entry 2 of 'tests' must be text, got a "
                               "number '20270131'"]
    assert error.value.problems[1].hint == "write the day it expires as YYYY-MM-DD, e.g. '2027-01-31' (quoted or not)"


def test_the_hints_followed_literally_give_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "flowwalk.yaml"
    path.write_text("projects: desktop\n")
    with pytest.raises(SpecError) as error:
        load_config(path)
    (problem,) = error.value.problems
    assert problem.hint == "write it as a list, e.g. projects: [{name: 'desktop'}]"
    path.write_text("projects: [{name: 'desktop'}]\n")
    assert [p.name for p in load_config(path).projects or ()] == ["desktop"]
    path.write_text("projects: [desktop]\n")
    with pytest.raises(SpecError) as error:
        load_config(path)
    assert error.value.problems[0].hint == "write it as a mapping, e.g. {name: 'desktop'}"


def test_a_list_of_steps_or_assertions_hint_gives_a_valid_entry(tmp_path: Path) -> None:
    spec = tmp_path / "a.flow.yaml"
    for key, written in (("steps", "goto"), ("assertions", "console")):
        body = FLOW.format(name="a") + ("steps: [{type: goto, url: /}]\n" if key == "assertions" else "")
        spec.write_text(body + f"{key}: {written}\n")
        with pytest.raises(SpecError) as error:
            load_suites([str(spec)], Settings())
        hint = error.value.problems[0].hint
        assert hint.startswith(f"write it as a list, e.g. {key}: ["), hint
        spec.write_text(body + hint.removeprefix("write it as a list, e.g. ") + "\n")
        assert load_suites([str(spec)], Settings())   # the hint, followed, loads


def test_a_choice_through_the_environment_is_named_as_such() -> None:
    from flowwalk.errors import UsageError
    from flowwalk.settings import Overrides, build_settings

    with pytest.raises(UsageError) as error:
        build_settings(Overrides(), {"FLOWWALK_FAIL_ON": "newest"})
    assert str(error.value) == ("FLOWWALK_FAIL_ON='newest' is not one of any, new\n"
                                "  hint: for example FLOWWALK_FAIL_ON=any")


#: a flow whose table and steps hold every error a shape error used to hide (issue 46, item 9)
ALL_AT_ONCE = {
    "all.flow.yaml": '''spec_version: "1.1"
name: all
url: https://example.com/
examples:
  one: {title: milk, count: 1}
  two: {title: eggs}
routes:
  - {url: /api/todos, file: todos.json}
  - {url: /api/other, har: other.har}
  - {url: /api/ok, statuss: 200}
steps:
  - {type: goto, url: /}
  - {type: wait, mss: 10}
  - {type: expect, kind: count, selector: li, equals: "{{count}}"}
  - {use: steps/shared.steps.yaml, with: {title: "{{title}}"}}
  - use: steps/nothere.steps.yaml
  - use: steps/self.steps.yaml
  - use: steps/a.steps.yaml
  - {use: steps/typed.steps.yaml, with: {count: lots}}
  - frame: "#checkout"
    steps:
      - {type: goto, url: /inner}
      - {type: act, action: clik, selector: "#pay"}
      - use: steps/gone.steps.yaml
''',
    "steps/shared.steps.yaml": '''steps_version: "1"
params:
  title: {}
steps:
  - {type: act, action: fill, selector: "#new", value: "{{title}}", delay: 5}
  - use: missing.steps.yaml
''',
    "steps/self.steps.yaml": 'steps_version: "1"\nsteps:\n  - use: self.steps.yaml\n',
    "steps/a.steps.yaml": 'steps_version: "1"\nsteps:\n  - use: b.steps.yaml\n',
    "steps/b.steps.yaml": 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 1}\n  - use: a.steps.yaml\n',
    "steps/typed.steps.yaml": 'steps_version: "1"\nparams:\n  count: {type: integer}\nsteps:\n'
                              '  - {type: wait, ms: "{{count}}"}\n',
}


def test_a_shape_error_hides_no_missing_file_recursion_argument_table_or_frame_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, text in ALL_AT_ONCE.items():
        Path(name).parent.mkdir(parents=True, exist_ok=True)
        Path(name).write_text(text)
    with pytest.raises(SpecError) as error:
        load_suites(["all.flow.yaml"], Settings())
    assert [f"{p.loc.path}:{p.loc.line}:{p.loc.col}: {p.message}" for p in error.value.problems] == [
        "all.flow.yaml:6:3: row 'two' of 'examples' has no 'count'",
        "all.flow.yaml:8:29: file 'todos.json' of route 1 does not exist",
        "all.flow.yaml:9:28: har 'other.har' of route 2 does not exist",
        "all.flow.yaml:10:20: unknown key 'statuss' in entry 3 of 'routes'",
        "all.flow.yaml:13:18: unknown key 'mss' in step 2",
        "all.flow.yaml:16:10: steps file 'steps/nothere.steps.yaml' not found (steps/nothere.steps.yaml)",
        "all.flow.yaml:19:49: parameter 'count' takes an integer, got text 'lots'",
        "all.flow.yaml:22:9: goto '/inner' inside the frame block at line 20 would navigate the page, not the frame",
        "all.flow.yaml:23:29: unknown action 'clik' in step 2 of step 9",
        "all.flow.yaml:24:14: steps file 'steps/gone.steps.yaml' not found (steps/gone.steps.yaml)",
        "steps/b.steps.yaml:4:10: recursive use: steps/a.steps.yaml -> steps/b.steps.yaml -> steps/a.steps.yaml",
        "steps/self.steps.yaml:3:10: recursive use: steps/self.steps.yaml -> steps/self.steps.yaml",
        "steps/shared.steps.yaml:5:69: unknown key 'delay' in step 1",
        "steps/shared.steps.yaml:6:10: steps file 'missing.steps.yaml' not found (steps/missing.steps.yaml)",
    ]


def test_a_rule_files_shape_error_hides_no_missing_file_or_frame_error_of_another_rule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("b.rules.yaml").write_text(
        'rules_version: "1"\nverification: shop\nscenarios:\n  - name: shop\n    url: https://example.com/\n'
        "    rules:\n      - name: cart\n        steps:\n          - {type: wait, ms: -1}\n"
        "          - use: nothere.steps.yaml\n"
        "      - name: pay\n        parents: [cart]\n        steps:\n"
        "          - {frame: '#pay', steps: [{type: reload}, {type: act, action: click}]}\n")
    with pytest.raises(SpecError) as error:
        load_suites(["b.rules.yaml"], Settings())
    assert messages(error) == [
        "b.rules.yaml:9: 'ms' in step 1 of rule 'cart' is -1, out of range",
        "b.rules.yaml:10: steps file 'nothere.steps.yaml' not found (nothere.steps.yaml)",
        "b.rules.yaml:14: reload inside the frame block at line 14 would navigate the page, not the frame",
        "b.rules.yaml:14: act click in step 2 of step 1 of rule 'pay' needs a selector or a target"]
