"""Bad input never gets a traceback: the short fuzz of loading, and the bugs the long one found.

The strategies and the property live in `fuzzkit.py`: an input is accepted, or refused with
problems that each render as `path:line:col: error: <one line>` + `  hint: <one line>`; never
another exception, each load under 2 s of CPU and 64 MiB of traced memory. Here a few hundred
derandomized examples run (so CI is repeatable); `scripts/fuzz_load.py` runs >= 10,000 per target.

Every kind of violation the fuzz found has its own regression test below. While a bug was open
its test was xfail(strict) and its kind excused in `fuzzkit.KNOWN_BUGS`; all are fixed now, so
the marks are gone, `KNOWN_BUGS` is empty, and any violation fails the fuzz tests.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import fuzzkit
from flowwalk.errors import SpecError
from flowwalk.spec.loader import load_suites
from flowwalk.spec.robot import load_robot_suite



def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def _check(check, folder: Path, example: tuple[str, bytes]) -> fuzzkit.LoadResult | None:  # type: ignore[no-untyped-def]
    name, data = example
    try:
        return check(folder / name, data)
    except fuzzkit.PropertyViolation as violation:
        if fuzzkit.classify(violation) is None:
            saved = fuzzkit.save_failure(folder / "failures", "fuzz", name, data, violation)
            raise AssertionError(f"{violation}\n(the input is kept in {saved})") from None
        return None  # a known bug, pinned by its regression test below


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_the_seeds_are_valid_inputs() -> None:
    """Mutations start from real, accepted inputs (robot: the corpus also keeps refused suites)."""
    assert len(fuzzkit.SEEDS["docs"]) >= 20 and len(fuzzkit.SEEDS["robot"]) >= 3
    for path in fuzzkit.SEEDS["docs"]:
        # a spec that starts from a saved session is valid with the setup that saves it (its folder's)
        setups = [str(p) for p in path.parent.glob("*.flow.y*ml") if p != path and "saves_session:" in p.read_text()]
        assert load_suites([str(path), *setups], fuzzkit.SETTINGS), path
    assert load_suites([str(fuzzkit.REPO / "examples/robot/site.robot")], fuzzkit.SETTINGS)


@fuzz(150)
@given(example=fuzzkit.documents())
def test_random_documents_are_accepted_or_refused_with_locations(folder: Path, example: tuple[str, bytes]) -> None:
    _check(fuzzkit.check_load, folder, example)


@fuzz(100)
@given(example=fuzzkit.mutations())
def test_mutated_examples_are_accepted_or_refused_with_locations(folder: Path, example: tuple[str, bytes]) -> None:
    _check(fuzzkit.check_load, folder, example)


@pytest.mark.parametrize("kind", fuzzkit.STRUCTURAL)
def test_every_structural_mutation_of_the_examples(folder: Path, kind: str) -> None:
    @fuzz(6)
    @given(example=fuzzkit.mutations(structural_kind=kind))
    def run(example: tuple[str, bytes]) -> None:
        _check(fuzzkit.check_load, folder, example)

    run()


@pytest.mark.parametrize("kind", sorted(set(fuzzkit.TEXT_DAMAGE) - {"none"}))
def test_every_kind_of_textual_damage_to_the_examples(folder: Path, kind: str) -> None:
    outcomes: list[str] = []

    @fuzz(5)
    @given(example=fuzzkit.mutations(damage_kind=kind))
    def run(example: tuple[str, bytes]) -> None:
        result = _check(fuzzkit.check_load, folder, example)
        if result is not None:
            outcomes.append(result.outcome)

    run()
    if kind in ("nul", "invalid_utf8", "empty", "whitespace", "comments_only", "alias_bomb", "two_documents",
                "unknown_tag"):
        assert set(outcomes) <= {"refused"}, f"{kind} must always be refused"


@fuzz(20)
@given(example=fuzzkit.robot_suites())
def test_robot_suites_with_random_cells_are_accepted_or_refused_with_locations(
        folder: Path, example: tuple[str, bytes]) -> None:
    _check(fuzzkit.check_robot, folder, example)


# --- the bugs the fuzz found (A to F in docs/reliability.md, all fixed) ------------------------------

ROBOT_HEAD = ("*** Settings ***\nLibrary    aitester_bdd.AITester\n\n*** Test Cases ***\nT\n"
              "    [Setup]    Given I start scenario \"s\" at \"http://127.0.0.1/\"\n"
              "    I define rule \"r\"\n        Then url contains \"/x\"\n")


def test_a_control_character_in_yaml_is_refused_on_one_line_where_it_is(folder: Path) -> None:
    data = 'spec_version: "1"\nname: x\nurl: /\nsteps:\n  - {type: goto, url: "/a\u0099b"}\n'.encode()
    result = fuzzkit.check_load(folder / "c1.flow.yaml", data)
    assert result.outcome == "refused"
    with pytest.raises(SpecError) as caught:
        load_suites([str(folder / "c1.flow.yaml")], fuzzkit.SETTINGS)
    assert caught.value.problems[0].loc.line == 5
    assert caught.value.problems[0].message == "invalid YAML: control character U+0099 is not allowed"


def test_an_unclosed_variable_in_a_robot_call_is_refused(folder: Path) -> None:
    result = fuzzkit.check_robot(folder / "unclosed.robot", (ROBOT_HEAD + "    Given ${\n").encode())
    assert result.outcome == "refused"


def test_robot_frameworks_own_complaint_renders_on_one_line(folder: Path) -> None:
    text = ROBOT_HEAD.replace("Library    aitester_bdd.AITester\n",
                              "Library    aitester_bdd.AITester\nSuit Teardown    Then I finalize verification\n")
    result = fuzzkit.check_robot(folder / "misspelled.robot", text.encode())
    assert result.outcome == "refused"


def test_a_key_with_a_line_break_is_refused_on_one_line(folder: Path) -> None:
    data = b'spec_version: "1"\nname: x\nurl: /\nsteps: [{type: goto, url: /}]\n"two\\nlines": 1\n'
    assert fuzzkit.check_load(folder / "key.flow.yaml", data).outcome == "refused"
    with pytest.raises(SpecError) as caught:
        load_suites([str(folder / "key.flow.yaml")], fuzzkit.SETTINGS)
    assert caught.value.problems[0].message == "unknown key 'two\\nlines' at the top level"


def test_a_value_with_a_line_break_is_quoted_on_one_line(folder: Path) -> None:
    data = b'rules_version: "1"\nverification: v\nscenarios: ["two\\nlines"]\n'
    assert fuzzkit.check_load(folder / "value.rules.yaml", data).outcome == "refused"
    with pytest.raises(SpecError) as caught:
        load_suites([str(folder / "value.rules.yaml")], fuzzkit.SETTINGS)
    assert any("'two\\nlines'" in p.message for p in caught.value.problems)


def test_positions_count_only_real_line_breaks(folder: Path) -> None:
    data = 'name: "a\u0085b\u0085c\u0085d\u2028e"\nspec_version: "1"\nurl: /\nsteps: [{type: goto, url: /}]\nbogus: 1\n'.encode()
    assert fuzzkit.check_load(folder / "nel.flow.yaml", data).outcome == "refused"
    with pytest.raises(SpecError) as caught:
        load_suites([str(folder / "nel.flow.yaml")], fuzzkit.SETTINGS)
    assert (caught.value.problems[0].loc.line, caught.value.problems[0].loc.col) == (5, 1)


def test_robot_positions_count_only_real_line_breaks(folder: Path) -> None:
    text = ROBOT_HEAD.replace('"/x"', '"/x\x0cy\x1cz\u2028w"') + "        Then bogus keyword\n"
    assert fuzzkit.check_robot(folder / "ff.robot", text.encode()).outcome == "refused"
    _, problems = load_robot_suite(folder / "ff.robot", "ff.robot", fuzzkit.SETTINGS)
    assert [(p.loc.line, p.loc.col) for p in problems if "bogus" in p.message] == [(9, 9)]


def robot_variable_bomb(levels: int) -> bytes:
    """*** Variables *** where each variable is the one before it, twice: 2**levels characters."""
    rows = ["${V0}    ha"] + [f"${{V{i}}}    ${{V{i - 1}}}${{V{i - 1}}}" for i in range(1, levels + 1)]
    return ROBOT_HEAD.replace("*** Test Cases ***", "*** Variables ***\n" + "\n".join(rows) +
                              "\n\n*** Test Cases ***").encode()


def test_a_robot_variable_bomb_is_refused_quickly(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fuzzkit, "HANG_S", 5.0)
    result = fuzzkit.check_robot(folder / "bomb.robot", robot_variable_bomb(40))
    assert result.outcome == "refused" and result.problems == 1


def test_a_small_robot_variable_chain_is_fine(folder: Path) -> None:
    # the same shape, small: accepted, so the bug above is about the bound, not the syntax
    assert fuzzkit.check_robot(folder / "chain.robot", robot_variable_bomb(4)).outcome == "accepted"


# --- the bugs the fuzz found that are fixed (one-line fixes, kept from coming back) --------------------


def test_a_very_long_unknown_robot_call_costs_little(folder: Path) -> None:
    lines = "".join(f"        Then {'x' * 3000} {i}\n" for i in range(5))
    result = fuzzkit.check_robot(folder / "long.robot", (ROBOT_HEAD + lines).encode())
    assert result.outcome == "refused" and result.problems == 5
    assert result.cpu_s < 1.5, f"{result.cpu_s:.2f} s of CPU for five long unknown calls"


@pytest.mark.parametrize("name", ["long.flow.json", "long.flow.yaml"])
def test_a_huge_unknown_value_costs_little_memory(folder: Path, name: str) -> None:
    data = ('{"spec_version": "1", "name": "x", "url": "/", "steps": [{"type": "act", "action": "'
            + "{{X}}" * 100_000 + '", "selector": "#a"}]}').encode()
    result = fuzzkit.check_load(folder / name, data)
    assert result.outcome == "refused"
    assert result.peak_bytes < 24 * 2**20, f"{result.peak_bytes / 2**20:.1f} MiB for a {len(data):,} byte file"


def test_each_load_is_timed_and_bounded(folder: Path) -> None:
    """The property's own bounds hold for the largest accepted input the limit allows."""
    steps = "".join(f"  - {{type: wait, ms: {i + 1}}}\n" for i in range(30))
    data = f'spec_version: "1"\nname: x\ndescription: "{"d" * 500}"\nurl: /\nsteps:\n{steps}'.encode()
    padded = data + b"# " + b"x" * ((1 << 20) - len(data) - 10) + b"\n"
    started = time.monotonic()
    result = fuzzkit.check_load(folder / "big.flow.yaml", padded)
    assert result.outcome == "accepted" and len(padded) < 1 << 20
    assert time.monotonic() - started < 10
    assert fuzzkit.check_load(folder / "over.flow.yaml", padded + b"x" * 20).outcome == "refused"


def test_a_property_violation_is_caught_and_classified() -> None:
    """The fuzz can fail: a problem without a hint, or on two lines, breaks the property."""
    from flowwalk.errors import Location, Problem

    with pytest.raises(fuzzkit.PropertyViolation):
        fuzzkit.check_problem(Problem(Location("a.flow.yaml", 1, 1), "no hint"), "a.flow.yaml", "x")
    with pytest.raises(fuzzkit.PropertyViolation):
        fuzzkit.check_problem(Problem(Location("a.flow.yaml", 1, 1), "two\nlines", "h"), "a.flow.yaml", "x")
    with pytest.raises(fuzzkit.PropertyViolation):
        fuzzkit.check_problem(Problem(Location("a.flow.yaml", 9, 1), "past the end", "h"), "a.flow.yaml", "x")
    fuzzkit.check_problem(Problem(Location("a.flow.yaml", 1, 1), "fine", "h"), "a.flow.yaml", "x")
    # lines as an editor counts them: a lone CR ends one, NEL and form feed do not
    fuzzkit.check_problem(Problem(Location("a.flow.yaml", 3, 1), "fine", "h"), "a.flow.yaml", "a\rb\r\nc")
    with pytest.raises(fuzzkit.PropertyViolation):
        fuzzkit.check_problem(Problem(Location("a.flow.yaml", 3, 1), "past", "h"), "a.flow.yaml", "a\x85b\x0cc")
    # a fixed bug is no longer excused: should it come back, the fuzz fails
    assert fuzzkit.classify(AssertionError("invalid YAML: unacceptable character #x0099: control "
                                           "characters are not allowed")) is None
    assert fuzzkit.classify(AssertionError("load_suites raised KeyError: 'x'")) is None



def test_a_rule_files_scenarios_or_rules_that_are_no_list_are_refused(folder: Path) -> None:
    for name, data in (("scenarios.rules.yaml", b'rules_version: "1"\nverification: x\nscenarios: 1.0\n'),
                       ("rules.rules.yaml", b'rules_version: "1"\nverification: x\nscenarios:\n'
                                            b'  - {name: a, url: /, rules: 3}\n')):
        assert fuzzkit.check_load(folder / name, data).outcome == "refused"
        with pytest.raises(SpecError) as caught:
            load_suites([str(folder / name)], fuzzkit.SETTINGS)
        assert caught.value.problems[-1].message.endswith("must be a list, got a number '1.0'" if "scenarios."
                                                          in name else "must be a list, got a number '3'")
