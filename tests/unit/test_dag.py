"""Rule order: Kahn with declaration order for ties; cycles named from their first-declared rule."""

from __future__ import annotations

import pytest

from flowwalk.errors import Location, SpecError
from flowwalk.model import Rule
from flowwalk.dag import ancestors, find_cycle, topo_order


def rules(*spec: tuple[str, tuple[str, ...]]) -> list[Rule]:
    return [Rule(name=name, loc=Location("r.rules.yaml", i + 1, 7), steps=(), parents=parents)
            for i, (name, parents) in enumerate(spec)]


def names(items: list[Rule]) -> list[str]:
    return [r.name for r in items]


def test_independent_rules_keep_declaration_order() -> None:
    assert names(topo_order(rules(("c", ()), ("a", ()), ("b", ())))) == ["c", "a", "b"]


def test_parents_run_before_children_even_when_declared_after() -> None:
    order = names(topo_order(rules(("cart", ("login",)), ("home", ()), ("login", ()))))
    assert order == ["home", "login", "cart"]


def test_ties_are_broken_by_declaration_order_not_by_discovery() -> None:
    # when login finishes, both 'search' (declared 2nd) and 'profile' (declared 4th) become ready,
    # while 'about' (3rd) was ready from the start: declaration order decides among ready rules
    order = names(topo_order(rules(("login", ()), ("search", ("login",)), ("about", ()), ("profile", ("login",)))))
    assert order == ["login", "search", "about", "profile"]


def test_diamond() -> None:
    order = names(topo_order(rules(("d", ("b", "c")), ("b", ("a",)), ("c", ("a",)), ("a", ()))))
    assert order == ["a", "b", "c", "d"]


def test_unknown_parents_are_ignored_by_the_sort() -> None:
    assert names(topo_order(rules(("b", ("ghost",)), ("a", ())))) == ["b", "a"]


def test_no_cycle() -> None:
    assert find_cycle(rules(("a", ()), ("b", ("a",)), ("c", ("a", "b")))) is None


def test_two_rule_cycle_reads_parent_to_child_from_the_first_declared() -> None:
    assert find_cycle(rules(("login", ("session",)), ("session", ("login",)))) == ["login", "session", "login"]


def test_cycle_starts_at_its_earliest_declared_rule() -> None:
    found = find_cycle(rules(("home", ()), ("c", ("b",)), ("a", ("c",)), ("b", ("a",))))
    assert found == ["c", "a", "b", "c"]


def test_self_parent_is_a_cycle() -> None:
    assert find_cycle(rules(("a", ("a",)))) == ["a", "a"]


def test_topo_order_refuses_a_cycle_at_the_rules_line() -> None:
    with pytest.raises(SpecError) as caught:
        topo_order(rules(("ok", ()), ("login", ("session",)), ("session", ("login",))))
    assert str(caught.value) == ("r.rules.yaml:2:7: error: rule cycle: login -> session -> login\n"
                                 "  hint: remove one of the parents; rules must form a DAG")


def test_ancestors_are_transitive() -> None:
    found = ancestors(rules(("a", ()), ("b", ("a",)), ("c", ("b",)), ("d", ())))
    assert found == {"a": set(), "b": {"a"}, "c": {"a", "b"}, "d": set()}


def test_a_long_chain_sorts_without_recursion_limits() -> None:
    chain = rules(*[(f"r{i}", (f"r{i - 1}",) if i else ()) for i in range(3000)][::-1])
    assert names(topo_order(chain))[:3] == ["r0", "r1", "r2"]
    assert find_cycle(chain) is None
