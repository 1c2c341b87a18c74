"""Discovery and loading of a repository's inputs: which files, in which order, all problems at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowwalk.errors import SpecError
from flowwalk.settings import Settings
from flowwalk.spec.loader import discover, load_suites

FLOW = 'spec_version: "1"\nname: {name}\nurl: /\nsteps:\n  - {{type: goto, url: /}}\n'
RULES = 'rules_version: "1"\nverification: v\nscenarios:\n  - name: s\n    rules:\n      - {name: r, steps: [{type: goto, url: /}]}\n'
ROBOT = "*** Settings ***\nLibrary    aitester_bdd.AITester\n\n*** Test Cases ***\nT\n    No Operation\n"
PLAIN_ROBOT = "*** Test Cases ***\nT\n    Log    hi\n"


def put(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    put(tmp_path, "specs/b.flow.yaml", FLOW.format(name="b"))
    put(tmp_path, "specs/a.flow.json", '{"spec_version": "1", "name": "a", "url": "/", "steps": [{"type": "goto", "url": "/"}]}')
    put(tmp_path, "specs/sub/c.flow.yml", FLOW.format(name="c"))
    put(tmp_path, "specs/auth.rules.yaml", RULES)
    put(tmp_path, "specs/suite.robot", ROBOT)
    put(tmp_path, "specs/plain.robot", PLAIN_ROBOT)
    put(tmp_path, "specs/notes.yaml", "not: a spec\n")
    put(tmp_path, "specs/README.md", "docs\n")
    for skipped in (".git", "node_modules", ".venv", "flowwalk-report"):
        put(tmp_path, f"specs/{skipped}/x.flow.yaml", "broken: [\n")
    return tmp_path


def names(paths: list[Path]) -> list[str]:
    return [p.as_posix() for p in paths]


def test_default_discovery_finds_inputs_sorted_and_skips_tooling_folders(repo: Path) -> None:
    found = names(discover(["specs"], exclude=["specs/flowwalk-report"]))
    assert found == ["specs/a.flow.json", "specs/auth.rules.yaml", "specs/b.flow.yaml", "specs/sub/c.flow.yml",
                     "specs/suite.robot"]


def test_paths_are_deduplicated_and_explicit_files_load_whatever_their_name(repo: Path) -> None:
    found = names(discover(["specs/sub", "specs/sub/c.flow.yml", "./specs/sub/", "specs/notes.yaml"]))
    assert found == ["specs/notes.yaml", "specs/sub/c.flow.yml"]


def test_missing_paths_are_refused_together(repo: Path) -> None:
    with pytest.raises(SpecError) as caught:
        discover(["specs", "nope", "specs/gone.flow.yaml"])
    assert [p.render() for p in caught.value.problems] == [
        "nope:1:1: error: path 'nope' does not exist\n  hint: check the spelling, or run from the repository root",
        "specs/gone.flow.yaml:1:1: error: path 'specs/gone.flow.yaml' does not exist\n"
        "  hint: check the spelling, or run from the repository root",
    ]


def test_load_suites_skips_the_report_folder_and_loads_every_kind(repo: Path) -> None:
    settings = Settings(out_dir="specs/flowwalk-report")
    # the robot loader may refuse this minimal suite; here we only look at flows and rule files
    suites = load_suites(["specs/a.flow.json", "specs/b.flow.yaml", "specs/sub", "specs/auth.rules.yaml"], settings)
    assert [(s.path, s.kind) for s in suites] == [("specs/a.flow.json", "flow"), ("specs/auth.rules.yaml", "rules"),
                                                  ("specs/b.flow.yaml", "flow"), ("specs/sub/c.flow.yml", "flow")]
    assert [s.scenarios[0].id for s in suites] == ["specs/a.flow.json#a", "specs/auth.rules.yaml#s",
                                                    "specs/b.flow.yaml#b", "specs/sub/c.flow.yml#c"]


def test_every_problem_of_every_file_in_one_error(repo: Path) -> None:
    put(repo, "more/x.flow.yaml", 'spec_version: "1"\nname: x\nurl: /\nsteps:\n  - {type: wait, ms: 0}\n'
                                  '  - {type: goto, url: "/{{PASSWORD}}"}\n')
    put(repo, "more/y.flow.json", '{"spec_version": "1",}')
    put(repo, "more/z.rules.yaml", RULES.replace("steps:", "parents: [q], steps:"))
    with pytest.raises(SpecError) as caught:
        load_suites(["more"], Settings(secret_names=("PASSWORD",)))
    firsts = [p.render().splitlines()[0] for p in caught.value.problems]
    assert firsts == [
        "more/x.flow.yaml:5:22: error: 'ms' in step 1 is 0, out of range",
        "more/y.flow.json:1:22: error: invalid JSON: Expecting property name enclosed in double quotes",
        "more/z.rules.yaml:6:29: error: unknown parent 'q' of rule 'r'",
    ]


def test_secret_misuse_is_refused_at_load(repo: Path) -> None:
    put(repo, "s/x.flow.yaml", 'spec_version: "1"\nname: x\nurl: /\nsteps:\n  - {type: goto, url: "/{{PASSWORD}}"}\n')
    with pytest.raises(SpecError) as caught:
        load_suites(["s"], Settings(secret_names=("PASSWORD",)))
    assert str(caught.value).startswith(
        "s/x.flow.yaml:5:5: error: secret {{PASSWORD}} is used in the url of step 1 (goto '/{{PASSWORD}}')")
    # without the secret named, the same text is a plain variable and loads
    assert load_suites(["s"], Settings())


def test_an_empty_folder_loads_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    assert load_suites(["empty"], Settings()) == []


def test_default_paths_come_from_the_settings(repo: Path) -> None:
    settings = Settings(paths=("specs/sub",))
    assert [s.path for s in load_suites([], settings)] == ["specs/sub/c.flow.yml"]


def test_a_missing_path_with_a_line_break_is_one_problem_line(repo: Path) -> None:
    # the path comes from the command line; its line break is shown escaped, in the location too
    with pytest.raises(SpecError) as caught:
        discover(["no\nsuch.flow.yaml"])
    assert [p.render() for p in caught.value.problems] == [
        "no\\nsuch.flow.yaml:1:1: error: path 'no\\nsuch.flow.yaml' does not exist\n"
        "  hint: check the spelling, or run from the repository root",
    ]


def test_a_file_name_with_a_line_break_is_shown_escaped(repo: Path) -> None:
    put(repo, "odd/a\nb.flow.yaml", 'spec_version: "1"\nname: [\n')
    put(repo, "odd/c\rd.flow.yaml", FLOW.format(name="cd"))
    with pytest.raises(SpecError) as caught:
        load_suites(["odd"], Settings())
    (problem,) = caught.value.problems
    first, hint = problem.render().split("\n")
    assert first.startswith("odd/a\\nb.flow.yaml:") and hint.startswith("  hint: ")
    (suite,) = load_suites(["odd/c\rd.flow.yaml"], Settings())
    assert suite.path == "odd/c\\rd.flow.yaml" and suite.scenarios[0].id == "odd/c\\rd.flow.yaml#cd"


def test_names_from_the_command_line_and_a_durations_file_are_escaped_in_messages(tmp_path: Path) -> None:
    from flowwalk.errors import UsageError
    from flowwalk.plan.shard import load_durations

    odd = tmp_path / "two\nlines.json"
    with pytest.raises(UsageError) as missing:
        load_durations(str(odd))
    assert "two\\nlines.json" in str(missing.value).splitlines()[0]
    durations = tmp_path / "durations.json"
    durations.write_text('{"a\\nb": -1}')
    with pytest.raises(UsageError) as bad:
        load_durations(str(durations))
    assert "the duration of 'a\\nb' is -1" in str(bad.value).splitlines()[0]


def test_a_new_format_is_one_row_of_the_table(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flowwalk.spec import formats

    flow_yaml = formats.format_of("x.flow.yaml")
    assert flow_yaml is not None
    row = formats.FileFormat("flow", (".walk.yaml",), flow_yaml.load, flow_yaml.model, "yaml", flow_yaml.schema)
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, row))
    put(repo, "specs/new.walk.yaml", FLOW.format(name="walked"))
    assert "specs/new.walk.yaml" in [p.as_posix() for p in discover(["specs"])]
    names = [sc.id for suite in load_suites(["specs/new.walk.yaml"], Settings()) for sc in suite.scenarios]
    assert names == ["specs/new.walk.yaml#walked"]


@pytest.mark.parametrize(("name", "kind"), [("a.flow.yaml", "flow"), ("A.FLOW.JSON", "flow"), ("r.Rules.yml", "rules"),
                                            ("s.steps.json", "steps"), ("s.STEPS.yaml", None), ("t.robot", "robot"),
                                            ("notes.yaml", None)])
def test_the_table_says_a_files_kind_by_its_name(name: str, kind: str | None) -> None:
    from flowwalk.spec.loader import file_kind

    assert file_kind(name) == kind
