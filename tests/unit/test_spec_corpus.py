"""The corpus of good and bad inputs: every bad file's exact error output is kept beside it.

Each `tests/corpus/{flows,rules}/bad/<name>` has `<name>.expected`, the text `flowwalk validate`
prints for it (every problem, `path:line:col: error: ...` plus its hint). Set
FLOWWALK_UPDATE_CORPUS=1 to rewrite the expected files after a deliberate wording change, then
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flowwalk.errors import Problem, SpecError
from flowwalk.settings import Settings
from flowwalk.spec.loader import load_suites

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
#: the corpus is validated as a run that names these secrets (`--secret PASSWORD --secret API_TOKEN`)
SETTINGS = Settings(secret_names=("PASSWORD", "API_TOKEN"))
INPUT_SUFFIXES = (".yaml", ".yml", ".json")


def corpus_files(kind: str, verdict: str) -> list[Path]:
    folder = CORPUS / kind / verdict
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in INPUT_SUFFIXES)


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@pytest.fixture(autouse=True)
def _at_repo_root(monkeypatch: pytest.MonkeyPatch) -> None:
    # error paths are relative to the working directory, as users see them
    monkeypatch.chdir(REPO)


BAD = corpus_files("flows", "bad") + corpus_files("rules", "bad") + corpus_files("steps", "bad")
GOOD = corpus_files("flows", "good") + corpus_files("rules", "good")
#: the steps files the flows of the corpus call (good and bad alike: a bad call names a good file)
CALLED = CORPUS / "flows" / "steps"


@pytest.mark.parametrize("path", BAD, ids=rel)
def test_bad_input_is_refused_with_the_expected_message(path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_suites([rel(path)], SETTINGS)
    rendered = "\n".join(p.render() for p in caught.value.problems) + "\n"
    expected_file = path.with_name(path.name + ".expected")
    if os.environ.get("FLOWWALK_UPDATE_CORPUS") == "1":
        expected_file.write_text(rendered, encoding="utf-8")
    assert expected_file.is_file(), f"{rel(expected_file)} is missing (FLOWWALK_UPDATE_CORPUS=1 writes it)"
    assert rendered == expected_file.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", BAD, ids=rel)
def test_every_problem_is_located_in_its_own_file_with_a_hint(path: Path) -> None:
    with pytest.raises(SpecError) as caught:
        load_suites([rel(path)], SETTINGS)
    for problem in caught.value.problems:
        # a call's own problems are at the call; what a called steps file does wrong, in that file
        assert problem.loc.path == rel(path) or problem.loc.path.startswith(rel(CALLED) + "/"), problem.render()
        assert problem.loc.line >= 1 and problem.loc.col >= 1
        assert problem.hint, problem.render()
        # never a raw pydantic message
        assert "Input should be" not in problem.message and "validation error" not in problem.message


@pytest.mark.parametrize("path", GOOD, ids=rel)
def test_good_input_loads(path: Path) -> None:
    suites = load_suites([rel(path)], SETTINGS)
    assert len(suites) == 1
    assert suites[0].path == rel(path)
    assert suites[0].scenarios


#: the steps files the corpus calls that call each other in a loop (refused, in rule-use-recursive)
LOOPS = ("loop-a.steps.yaml", "loop-b.steps.yaml")


@pytest.mark.parametrize("path", corpus_files("steps", "good") + [p for p in sorted(CALLED.iterdir())
                                                                   if p.name not in LOOPS], ids=rel)
def test_good_steps_files_are_checked_on_their_own_and_make_no_suite(path: Path) -> None:
    assert load_suites([rel(path)], SETTINGS) == []


def test_every_bad_file_has_an_expected_file_and_no_expected_file_is_orphaned() -> None:
    for kind in ("flows", "rules", "steps"):
        folder = CORPUS / kind / "bad"
        inputs = {p.name for p in folder.iterdir() if p.suffix in INPUT_SUFFIXES}
        expected = {p.name[: -len(".expected")] for p in folder.glob("*.expected")}
        assert inputs == expected


def test_all_bad_files_are_reported_together_in_one_pass() -> None:
    with pytest.raises(SpecError) as caught:
        load_suites([rel(CORPUS / kind / "bad") for kind in ("flows", "rules", "steps")], SETTINGS)
    files = {p.loc.path for p in caught.value.problems}
    # (a bad call whose problems are all in the steps file it calls is located there alone)
    called = {f for f in files if f.startswith(rel(CALLED) + "/")}
    assert files - called == {rel(p) for p in BAD} - {rel(CORPUS / "flows" / "bad" / n) for n in (
        "rule-use-bound-badly.flow.yaml", "rule-use-recursive.flow.yaml", "rule-use-out-of-range.flow.yaml")}
    # the combined output is every file's output, sorted by path (a called steps file's problems sort
    # under its own path, after the files that call it)
    alone: list[Problem] = []
    for path in sorted(BAD, key=rel):
        with pytest.raises(SpecError) as one:
            load_suites([rel(path)], SETTINGS)
        alone.extend(one.value.problems)
    assert caught.value.problems == SpecError(list(dict.fromkeys(alone))).problems
