"""Run selection (plan/select.py): --grep, --grep-invert, --tag expressions, --last-failed ids;
whole scenarios kept, selection before sharding, and a selection that picks nothing refused."""

from __future__ import annotations

import pytest

from flowwalk.errors import Location, UsageError
from flowwalk.model import Expect, Rule, Scenario, Suite
from flowwalk.plan.select import Selection, parse_tag_expression, select_scenarios
from flowwalk.plan.shard import plan_run, render_plan
from flowwalk.settings import Settings


def _rule(name: str, tags: tuple[str, ...] = (), parents: tuple[str, ...] = ()) -> Rule:
    loc = Location("x", 1, 1)
    return Rule(name=name, loc=loc, steps=(Expect(loc=loc, text="expect", kind="url_contains", value="/"),),
                parents=parents, tags=tags)


def _scenario(sid: str, kind: str = "flow", tags: tuple[str, ...] = (), rules: tuple[Rule, ...] = ()) -> Scenario:
    path, _, name = sid.partition("#")
    return Scenario(id=sid, name=name, source=path, kind=kind, loc=Location(path, 1, 1), entry_url="http://h/",
                    rules=rules or (_rule(name),), tags=tags)


SCENARIOS = [
    _scenario("flows/home.flow.yaml#Home", tags=("smoke",)),
    _scenario("flows/search.flow.yaml#Search", tags=("smoke", "slow")),
    _scenario("flows/admin.flow.yaml#Admin", tags=("Admin",)),
    _scenario("rules/shop.rules.yaml#shop", kind="rules", tags=("shop",),
              rules=(_rule("login"), _rule("cart", ("checkout",), ("login",)))),
]


def ids(scenarios: list[Scenario]) -> list[str]:
    return [s.id for s in scenarios]


@pytest.mark.parametrize("text, tags, expected", [
    ("smoke", ["smoke"], True),
    ("SMOKE", ["Smoke"], True),
    ("smoke and not slow", ["smoke", "slow"], False),
    ("smoke and not slow", ["smoke"], True),
    ("not smoke or slow", ["smoke", "slow"], True),        # (not smoke) or slow
    ("not (smoke or slow)", ["smoke"], False),
    ("a or b and c", ["a"], True),                         # a or (b and c)
    ("(a or b) and c", ["a"], False),
    ("not not a", ["a"], True),
])
def test_tag_expressions_bind_not_then_and_then_or(text: str, tags: list[str], expected: bool) -> None:
    assert parse_tag_expression(text).matches(tags) is expected


@pytest.mark.parametrize("text, why", [
    ("", "the expression is empty"),
    ("smoke and", "it ends where a tag or '(' should come"),
    ("(smoke or slow", "a '(' is not closed"),
    ("smoke)", "a ')' without its '('"),
    ("smoke slow", "'slow' follows a complete expression (and? or?)"),
    ("or smoke", "'or' where a tag should come"),
    ("sm!ke", "tag 'sm!ke' is not one word"),
])
def test_a_bad_tag_expression_is_a_clear_usage_error(text: str, why: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_tag_expression(text)
    message = str(caught.value)
    assert message.startswith(f"--tag '{text}': {why}")
    assert "hint: join tag words with and, or, not and parentheses" in message


def test_grep_and_grep_invert_search_the_test_id() -> None:
    assert ids(select_scenarios(SCENARIOS, Selection(grep=r"flows/.*#(Home|Search)"))) == ids(SCENARIOS[:2])
    assert ids(select_scenarios(SCENARIOS, Selection(grep_invert="flows/"))) == ids(SCENARIOS[3:])
    # a rule's test id is '<scenario id>/<rule>': matching one rule keeps the whole scenario
    assert ids(select_scenarios(SCENARIOS, Selection(grep="#shop/cart$"))) == ids(SCENARIOS[3:])


def test_tags_of_a_rule_count_with_its_scenarios_and_the_scenario_stays_whole() -> None:
    assert ids(select_scenarios(SCENARIOS, Selection(tag="checkout"))) == ids(SCENARIOS[3:])
    assert ids(select_scenarios(SCENARIOS, Selection(tag="smoke and not slow"))) == ids(SCENARIOS[:1])
    assert ids(select_scenarios(SCENARIOS, Selection(tag="admin or shop"))) == ids(SCENARIOS[2:])


def test_last_failed_keeps_the_scenarios_of_the_tests_that_did_not_pass() -> None:
    chosen = Selection(last_failed="old", last_failed_ids=frozenset({"rules/shop.rules.yaml#shop/cart"}))
    assert ids(select_scenarios(SCENARIOS, chosen)) == ids(SCENARIOS[3:])


def test_criteria_combine_with_and() -> None:
    chosen = Selection(grep="flows/", tag="smoke", grep_invert="Search")
    assert ids(select_scenarios(SCENARIOS, chosen)) == ids(SCENARIOS[:1])


SUITES = [Suite("all", "flow", tuple(SCENARIOS))]


def test_the_plan_selects_before_it_shards_and_records_the_selection() -> None:
    one = plan_run(SUITES, Settings(tag="smoke or shop", shard_index=1, shard_total=2))
    two = plan_run(SUITES, Settings(tag="smoke or shop", shard_index=2, shard_total=2))
    assert sorted(one.assigned + two.assigned) == sorted(ids(SCENARIOS[:2] + SCENARIOS[3:]))
    assert sorted((len(one.assigned), len(two.assigned))) == [1, 2]
    record = one.record()["selection"]
    assert record == {"grep": None, "grep_invert": None, "tag": "smoke or shop", "last_failed": None,
                      "last_failed_tests": None, "scenarios": 3, "of": 4}
    assert "selected by --tag 'smoke or shop': 3 of 4 scenarios" in render_plan(one)
    assert plan_run(SUITES, Settings()).record()["selection"] is None


def test_a_selection_that_picks_nothing_is_refused_naming_the_tags_there_are() -> None:
    with pytest.raises(UsageError) as caught:
        plan_run(SUITES, Settings(tag="smok"))
    assert str(caught.value) == ("--tag 'smok' selects none of the 4 scenarios found\n"
                                 "  hint: the tags of these tests: admin, checkout, shop, slow, smoke; "
                                 "`flowwalk plan` shows the test ids")


def test_last_failed_with_nothing_failed_plans_nothing_without_an_error() -> None:
    plan = plan_run(SUITES, Settings(last_failed="old", tag="smoke"), last_failed_ids=frozenset())
    assert plan.scenarios == () and plan.assigned == ()
