"""Reusable steps, settled at load (spec/calls.py): steps files called with `use:` and `with:`, their
typed parameters, nested calls, groups, recursion refused, and the frames every built step keeps
for the reports."""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from flowwalk.errors import SpecError
from flowwalk.model import Expect, Rule, titled
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites
from flowwalk.walk.preflight import check_variables

SETTINGS = Settings()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def write(path: str, text: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(dedent(text).lstrip(), encoding="utf-8")


def flow(steps: str, version: str = "1.1", name: str = "todos") -> None:
    write("specs/todos.flow.yaml", f'spec_version: "{version}"\nname: {name}\nurl: /\nsteps:\n' + dedent(steps))


def rule_of(paths: tuple[str, ...] = ("specs",)) -> Rule:
    suites = load_suites(list(paths), SETTINGS)
    return suites[0].scenarios[0].rules[0]


def problems(paths: tuple[str, ...] = ("specs",)) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_suites(list(paths), SETTINGS)
    return [p.render() for p in caught.value.problems]


ADD_TODO = """
    steps_version: "1"
    description: Type a todo into the new-todo field and press Enter.
    params:
      title: {type: string}
      field: {default: "#new-todo"}
    steps:
      - {type: act, action: fill, selector: "{{field}}", value: "{{title}}"}
      - {type: act, action: press, selector: "{{field}}", value: Enter}
    """
DEFAULTS = """
    steps_version: "1"
    params:
      count: {type: integer, default: 2}
      titles: {type: list, default: [buy some cheese, feed the cat]}
    steps:
      - {use: add-todo.steps.yaml, with: {title: buy some cheese}}
      - {use: add-todo.steps.yaml, with: {title: feed the cat}}
      - {type: expect, kind: count, selector: "#todo-list li", equals: "{{count}}"}
      - {type: expect, kind: texts, selector: "#todo-list li", equals: "{{titles}}"}
    """


def test_a_call_runs_the_steps_files_steps_bound_to_its_arguments_where_they_are_written() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    write("specs/steps/two-todos.steps.yaml", DEFAULTS)
    flow("""\
      - use: steps/two-todos.steps.yaml
        with: {count: 2}
      - {type: expect, kind: count, selector: "#todo-list li", equals: 2}
    """)
    steps = rule_of().steps
    assert [s.text for s in steps] == [
        "act fill '#new-todo'", "act press '#new-todo'", "act fill '#new-todo'", "act press '#new-todo'",
        "expect count '#todo-list li' == 2", "expect texts '#todo-list li' == ['buy some cheese', 'feed the cat']",
        "expect count '#todo-list li' == 2"]
    fill = steps[2]
    assert fill.value == "feed the cat"   # type: ignore[attr-defined]
    # where the step is written: the steps file's line; the frames: each call with its own line
    assert (fill.loc.path, fill.loc.line) == ("specs/steps/add-todo.steps.yaml", 7)
    assert [(f.kind, f.title, f.path, f.line, f.file) for f in fill.frames] == [
        ("call", "use steps/two-todos.steps.yaml", "specs/todos.flow.yaml", 5, "specs/steps/two-todos.steps.yaml"),
        ("call", "use add-todo.steps.yaml", "specs/steps/two-todos.steps.yaml", 7, "specs/steps/add-todo.steps.yaml")]
    assert fill.frames[1].args == {"title": "feed the cat", "field": "#new-todo"}
    assert fill.frames[0].args == {"count": 2, "titles": ["buy some cheese", "feed the cat"]}
    # a whole-value placeholder takes the typed argument: a number, a list
    count, texts = steps[4], steps[5]
    assert isinstance(count, Expect) and count.count == 2
    assert isinstance(texts, Expect) and texts.items == ("buy some cheese", "feed the cat")
    # a failure names the call's line and the steps file's (the failure's path:line is the step's)
    assert titled(fill) == ("use steps/two-todos.steps.yaml (at specs/todos.flow.yaml:5) › use add-todo.steps.yaml "
                            "(at specs/steps/two-todos.steps.yaml:7) › act fill '#new-todo'")
    assert steps[6].frames == ()
    # each call opens its own frame: the two calls of add-todo are told apart
    assert steps[0].frames[1].id != steps[2].frames[1].id


def test_a_group_names_its_steps_and_nests_calls() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    flow("""\
      - group: Showing all items
        steps:
          - {use: steps/add-todo.steps.yaml, with: {title: a}}
          - group: the count
            steps:
              - {type: expect, kind: count, selector: li, equals: 1}
    """)
    steps = rule_of().steps
    assert [[(f.kind, f.title) for f in s.frames] for s in steps] == [
        [("group", "Showing all items"), ("call", "use steps/add-todo.steps.yaml")],
        [("group", "Showing all items"), ("call", "use steps/add-todo.steps.yaml")],
        [("group", "Showing all items"), ("group", "the count")]]
    assert titled(steps[2]) == "Showing all items › the count › expect count 'li' == 1"
    assert steps[2].loc.line == 10


def test_recursion_is_refused_at_the_call_that_closes_the_loop() -> None:
    write("specs/steps/a.steps.yaml", 'steps_version: "1"\nsteps:\n  - use: b.steps.yaml\n')
    write("specs/steps/b.steps.yaml", 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 1}\n  - use: a.steps.yaml\n')
    write("specs/steps/self.steps.yaml", 'steps_version: "1"\nsteps:\n  - use: self.steps.yaml\n')
    flow("  - use: steps/a.steps.yaml\n  - use: steps/self.steps.yaml\n")
    found = problems(("specs/todos.flow.yaml",))
    assert found == [
        "specs/steps/b.steps.yaml:4:10: error: recursive use: specs/steps/a.steps.yaml -> specs/steps/b.steps.yaml"
        " -> specs/steps/a.steps.yaml\n  hint: a steps file cannot call itself, directly or through other steps "
        "files: move the steps they share into a third file both call",
        "specs/steps/self.steps.yaml:3:10: error: recursive use: specs/steps/self.steps.yaml -> "
        "specs/steps/self.steps.yaml\n  hint: a steps file cannot call itself, directly or through other steps "
        "files: move the steps they share into a third file both call"]


def test_calls_nest_at_most_ten_deep() -> None:
    for n in range(12):
        write(f"specs/steps/s{n}.steps.yaml", f'steps_version: "1"\nsteps:\n  - use: s{n + 1}.steps.yaml\n')
    write("specs/steps/s12.steps.yaml", 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 1}\n')
    flow("  - use: steps/s0.steps.yaml\n")
    assert problems(("specs/todos.flow.yaml",))[0].startswith(
        "specs/steps/s9.steps.yaml:3:10: error: calls nest more than 10 deep here")


def test_wrong_arguments_are_refused_at_the_call() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    write("specs/steps/two-todos.steps.yaml", DEFAULTS)
    flow("""\
      - use: steps/add-todo.steps.yaml
      - use: steps/add-todo.steps.yaml
        with: {titel: a}
      - use: steps/two-todos.steps.yaml
        with: {count: "3", titles: cheese}
      - use: steps/add-todo.steps.yml
      - use: steps/two-todos.steps.yaml
        with: {count: "{{COUNT}}"}
    """)
    assert problems(("specs/todos.flow.yaml",)) == [
        "specs/todos.flow.yaml:5:8: error: missing parameter 'title' of 'specs/steps/add-todo.steps.yaml'\n"
        "  hint: add it: with: {title: ...}",
        "specs/todos.flow.yaml:6:8: error: missing parameter 'title' of 'specs/steps/add-todo.steps.yaml'\n"
        "  hint: add it: with: {title: ...}",
        "specs/todos.flow.yaml:7:10: error: 'specs/steps/add-todo.steps.yaml' has no parameter 'titel'\n"
        "  hint: did you mean 'title'? its parameters: title, field",
        "specs/todos.flow.yaml:9:17: error: parameter 'count' takes an integer, got text '3'\n"
        "  hint: remove the quotes: count: 3",
        "specs/todos.flow.yaml:9:30: error: parameter 'titles' takes a list, got text 'cheese'\n"
        "  hint: write it as a list: titles: [cheese]",
        "specs/todos.flow.yaml:10:8: error: steps file 'steps/add-todo.steps.yml' not found "
        "(specs/steps/add-todo.steps.yml)\n"
        "  hint: did you mean 'add-todo.steps.yaml'? steps files in specs/steps/: add-todo.steps.yaml, "
        "two-todos.steps.yaml",
        "specs/todos.flow.yaml:12:17: error: parameter 'count' takes an integer, got text '{{COUNT}}'\n"
        "  hint: a run variable is text, known only when the run starts: write the integer out"]


def test_what_a_steps_file_does_with_its_parameters_is_checked_where_it_is_written() -> None:
    write("specs/steps/bad.steps.yaml", """
        steps_version: "1"
        params:
          titles: {type: list}
          path: {default: /a}
        steps:
          - {type: expect, kind: text_contains, value: "{{titles}} left"}
          - {type: expect, kind: url_matches, value: "{{path}}$"}
          - {type: expect, kind: text_contains, value: "{{titels}}"}
          - {type: expect, kind: count, selector: li, equals: "{{path}}"}
        """)
    flow("  - {use: steps/bad.steps.yaml, with: {titles: [a]}}\n")
    assert problems(("specs/todos.flow.yaml",)) == [
        "specs/steps/bad.steps.yaml:6:48: error: list parameter 'titles' is part of a text\n"
        "  hint: a list takes a whole value: write \"{{titles}}\" alone, where a list goes (equals: of a texts "
        "check, a list parameter)",
        "specs/steps/bad.steps.yaml:7:46: error: parameter 'path' is not substituted in a regular expression\n"
        "  hint: a regular expression is literal (flow-spec v1): write the pattern out, or check with "
        "text_contains, which takes the parameter",
        "specs/steps/bad.steps.yaml:8:48: error: '{{titels}}' names no parameter\n"
        "  hint: did you mean '{{titles}}'? parameters here: titles, path; any other name is a run variable (--var)",
        "specs/steps/bad.steps.yaml:9:55: error: 'equals' in step 4 must be a whole number, got text '/a'\n"
        "  hint: write a whole number, e.g. 500"]


def test_a_default_may_name_another_parameter_bound_to_each_calls_arguments() -> None:
    write("specs/steps/login.steps.yaml", """
        steps_version: "1"
        params:
          base: {}
          url: {default: "{{base}}/login"}
          shown: {type: list, default: ["{{base}}", "{{url}}"]}
        steps:
          - {type: goto, url: "{{url}}"}
          - {type: expect, kind: texts, selector: li, equals: "{{shown}}"}
        """)
    flow("""\
      - {use: steps/login.steps.yaml, with: {base: "https://a.example"}}
      - {use: steps/login.steps.yaml, with: {base: "https://b.example", url: /sign-in}}
    """)
    suites = load_suites(["specs/todos.flow.yaml"], SETTINGS)
    goto_a, texts_a, goto_b, texts_b = suites[0].scenarios[0].rules[0].steps
    assert (goto_a.url, texts_a.items) == ("https://a.example/login", ("https://a.example", "https://a.example/login"))
    assert (goto_b.url, texts_b.items) == ("/sign-in", ("https://b.example", "/sign-in"))
    assert goto_a.frames[0].args == {"base": "https://a.example", "url": "https://a.example/login",
                                     "shown": ["https://a.example", "https://a.example/login"]}
    # the run finds every placeholder bound: it asks for no --var
    assert check_variables(suites[0].scenarios[0], SETTINGS, {}) == []


def test_a_default_that_leads_back_to_itself_or_cannot_be_bound_is_refused_at_the_default() -> None:
    write("specs/steps/loops.steps.yaml", """
        steps_version: "1"
        params:
          a: {default: "{{b}}/x"}
          b: {default: "{{a}}"}
          c: {default: "{{c}}"}
        steps:
          - {type: goto, url: "{{a}}"}
        """)
    write("specs/steps/unbound.steps.yaml", """
        steps_version: "1"
        params:
          base: {}
          titles: {type: list, default: [a]}
          url: {default: "{{bse}}/login"}
          shown: {default: "{{titles}}"}
        steps:
          - {type: goto, url: "{{url}}{{shown}}"}
        """)
    flow("  - use: steps/loops.steps.yaml\n  - {use: steps/unbound.steps.yaml, with: {base: /}}\n")
    loops = [
        "specs/steps/loops.steps.yaml:3:16: error: the default of parameter 'a' leads back to itself: a -> b -> a\n"
        "  hint: a default may name other parameters (\"{{base}}/login\"), not one whose default names it: write "
        "one of the defaults out",
        "specs/steps/loops.steps.yaml:5:16: error: the default of parameter 'c' leads back to itself: c -> c\n"
        "  hint: a default may name other parameters (\"{{base}}/login\"), not one whose default names it: write "
        "one of the defaults out"]
    assert problems(("specs/todos.flow.yaml",)) == loops + [
        "specs/steps/unbound.steps.yaml:5:18: error: '{{bse}}' names no parameter\n"
        "  hint: did you mean '{{base}}'? parameters here: base, titles, url, shown; any other name is a run "
        "variable (--var)",
        "specs/steps/unbound.steps.yaml:6:20: error: the default of parameter 'shown' is a list here, not a string\n"
        "  hint: a whole-value placeholder in a default takes the named parameter's type: name one of the same "
        "type, or write it inside text"]
    # validate of the steps file alone says the same of its loops
    assert problems(("specs/steps/loops.steps.yaml",)) == loops


def test_a_steps_file_is_checked_on_its_own_when_every_parameter_has_a_default() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    write("specs/steps/two-todos.steps.yaml", DEFAULTS.replace("equals: \"{{count}}\"", "equals: \"{{cuont}}\""))
    write("specs/steps/header.steps.yaml", 'steps_version: 1\nparams: {t: {}}\nstep: []\n')
    assert problems(("specs/steps",)) == [
        "specs/steps/header.steps.yaml:1:1: error: missing key 'steps' at the top level\n"
        "  hint: a steps file needs 'steps'; its keys: steps_version, description, params, steps",
        "specs/steps/header.steps.yaml:1:16: error: steps_version must be a string, got a number '1'\n"
        "  hint: quote the version: steps_version: \"1\"",
        "specs/steps/header.steps.yaml:3:1: error: unknown key 'step' at the top level\n"
        "  hint: did you mean 'steps'? valid keys of a steps file: steps_version, description, params, steps",
        "specs/steps/two-todos.steps.yaml:8:68: error: 'equals' in step 3 must be a whole number, got text "
        "'{{cuont}}'\n  hint: write a whole number, e.g. 500",
        "specs/steps/two-todos.steps.yaml:8:68: error: '{{cuont}}' names no parameter\n"
        "  hint: did you mean '{{count}}'? parameters here: count, titles; any other name is a run variable (--var)"]


def test_calls_and_groups_are_v1x_additions() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    flow("  - {use: steps/add-todo.steps.yaml, with: {title: a}}\n  - {group: g, steps: [{type: wait, ms: 1}]}\n",
         version="1")
    found = problems(("specs/todos.flow.yaml",))
    assert [p.split(": error: ")[1].split("\n")[0] for p in found] == [
        "a call ('use') is a v1.x addition, not part of spec_version \"1\"",
        "a group ('group') is a v1.x addition, not part of spec_version \"1\""]


def test_a_snapshot_check_in_a_steps_file_names_its_baseline_beside_the_spec() -> None:
    write("specs/steps/shot.steps.yaml", """
        steps_version: "1"
        params: {page: {}}
        steps:
          - {type: expect, kind: aria_snapshot, name: "list-{{page}}"}
          - {type: expect, kind: aria_snapshot}
        """)
    flow("  - {use: steps/shot.steps.yaml, with: {page: a}}\n")
    assert problems(("specs/todos.flow.yaml",)) == [
        "specs/steps/shot.steps.yaml:5:5: error: aria_snapshot check in a steps file has no 'name'\n"
        "  hint: name its baseline (a parameter can: name: \"cart-{{page}}\"), so that each call compares with its own"]
    write("specs/steps/shot.steps.yaml", """
        steps_version: "1"
        params: {page: {}}
        steps:
          - {type: expect, kind: aria_snapshot, name: "list-{{page}}"}
        """)
    flow("  - {use: steps/shot.steps.yaml, with: {page: a}}\n  - {use: steps/shot.steps.yaml, with: {page: b}}\n")
    steps = rule_of(("specs/todos.flow.yaml",)).steps
    assert [s.snapshot.baseline for s in steps] == [  # type: ignore[attr-defined]
        "specs/todos.flow.yaml.snapshots/list-a.yml", "specs/todos.flow.yaml.snapshots/list-b.yml"]


# --- hooks: before_each / after_each of a folder and of a file ------------------------------------------


def test_folder_hooks_wrap_every_flow_below_them_outermost_first_before_and_last_after() -> None:
    write("specs/steps/add-todo.steps.yaml", ADD_TODO)
    write("specs/before_each.steps.yaml", 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 1}\n')
    write("specs/after_each.steps.yaml", 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 3}\n')
    write("specs/todo/before_each.steps.yaml",
          'steps_version: "1"\nsteps:\n  - {use: ../steps/add-todo.steps.yaml, with: {title: a}}\n')
    write("specs/todo/after_each.steps.yml", 'steps_version: "1"\nsteps:\n  - {type: wait, ms: 2}\n')
    write("specs/todo/x.flow.yaml", """
        spec_version: "1.1"
        name: x
        url: /
        before_each:
          - {type: wait, ms: 10}
        after_each:
          - {type: wait, ms: 20}
        steps:
          - {type: wait, ms: 100}
        """)
    steps = rule_of(("specs/todo/x.flow.yaml",)).steps
    assert [(s.text, [f.title for f in s.frames], s.teardown) for s in steps] == [
        ("wait 1ms", ["before each (specs/before_each.steps.yaml)"], False),
        ("act fill '#new-todo'", ["before each (specs/todo/before_each.steps.yaml)", "use ../steps/add-todo.steps.yaml"],
         False),
        ("act press '#new-todo'", ["before each (specs/todo/before_each.steps.yaml)",
                                   "use ../steps/add-todo.steps.yaml"], False),
        ("wait 10ms", ["before each"], False),
        ("wait 100ms", [], False),
        ("wait 20ms", ["after each"], True),
        ("wait 2ms", ["after each (specs/todo/after_each.steps.yml)"], True),
        ("wait 3ms", ["after each (specs/after_each.steps.yaml)"], True)]
    hook = steps[0].frames[0]
    assert (hook.kind, hook.path, hook.line, hook.file) == ("before_each", "specs/before_each.steps.yaml", 1,
                                                            "specs/before_each.steps.yaml")
    assert (steps[3].frames[0].path, steps[3].frames[0].line) == ("specs/todo/x.flow.yaml", 4)


def test_a_hook_takes_no_arguments_and_a_v1_flow_cannot_be_under_one() -> None:
    write("specs/before_each.steps.yaml", ADD_TODO)
    write("specs/v1.flow.yaml", 'spec_version: "1"\nname: v1\nurl: /\nsteps:\n  - {type: goto, url: /}\n')
    found = problems(("specs/v1.flow.yaml",))
    # at the parameter the hook leaves without a value: a hook has no call to point at
    assert found == [
        "specs/before_each.steps.yaml:4:3: error: missing parameter 'title' of 'specs/before_each.steps.yaml'\n"
        "  hint: a hook is called with no arguments: give 'title' a default",
        "specs/v1.flow.yaml:1:15: error: specs/before_each.steps.yaml runs around each flow of its folder, a v1.x "
        "addition not part of spec_version \"1\"\n"
        "  hint: set spec_version to \"1.1\" (flow-spec v1 plus the documented v1.x additions) to use it"]


# --- data tables -------------------------------------------------------------------------------------------

TABLE = """
    spec_version: "1.1"
    name: filter
    url: /?filter={{link}}
    examples:
      active: {link: Active, shown: 2, titles: [a, c]}
      completed: {link: Completed, shown: 1, titles: [b]}
    steps:
      - {type: act, action: click, selector: "#filters >> text={{link}}"}
      - {type: expect, kind: count, selector: "li:not(.hidden)", equals: "{{shown}}"}
      - {type: expect, kind: texts, selector: "li:not(.hidden)", equals: "{{titles}}"}
    """


def test_a_data_table_runs_the_flow_once_per_row_each_its_own_test_id() -> None:
    write("specs/filter.flow.yaml", TABLE)
    suite = load_suites(["specs/filter.flow.yaml"], SETTINGS)[0]
    assert [(s.id, s.name, s.entry_url) for s in suite.scenarios] == [
        ("specs/filter.flow.yaml#filter[active]", "filter [active]", "/?filter=Active"),
        ("specs/filter.flow.yaml#filter[completed]", "filter [completed]", "/?filter=Completed")]
    completed = suite.scenarios[1].rules[0]
    assert completed.name == "filter [completed]"
    assert [getattr(s, "count", None) for s in completed.steps] == [None, 1, None]
    assert completed.steps[2].items == ("b",)   # type: ignore[attr-defined]
    # the id names the row, not its values or its place: rows reordered or edited keep their ids
    write("specs/filter.flow.yaml", TABLE.replace(
              "active: {link: Active, shown: 2, titles: [a, c]}\n      completed: {link: Completed, shown: 1, titles: [b]}",
              "completed: {link: Completed, shown: 3, titles: [b]}\n      active: {link: Active, shown: 2, titles: [a]}"))
    again = load_suites(["specs/filter.flow.yaml"], SETTINGS)[0]
    assert sorted(s.id for s in again.scenarios) == sorted(s.id for s in suite.scenarios)


def test_a_data_tables_mistakes_are_refused_naming_the_rows_they_are_in() -> None:
    write("specs/filter.flow.yaml", TABLE.replace("completed: {link: Completed,", "completed: {lnk: Completed,").replace(
        "url: /?filter={{link}}", "url: /?filter={{lnik}}"))
    assert problems(("specs/filter.flow.yaml",)) == [
        "specs/filter.flow.yaml:3:6: error: '{{lnik}}' names no column\n"
        "  hint: did you mean '{{link}}'? columns here: link, shown, titles; any other name is a run variable (--var)",
        "specs/filter.flow.yaml:6:3: error: row 'completed' of 'examples' has no 'link'\n"
        "  hint: every row names the same columns, as the first does: link, shown, titles"]
    write("specs/filter.flow.yaml", TABLE.replace("shown: 1", "shown: one"))
    assert problems(("specs/filter.flow.yaml",)) == [
        "specs/filter.flow.yaml:9:70: error: 'equals' in step 2 must be a whole number, got text 'one'\n"
        "  hint: write a whole number, e.g. 500 (row 'completed')"]
    write("specs/filter.flow.yaml", TABLE.replace("url: /?filter={{link}}", "url: /\n    saves_session: admin"))
    assert problems(("specs/filter.flow.yaml",))[0].startswith(
        "specs/filter.flow.yaml:4:1: error: the file saves a session and runs once per row of 'examples'")
