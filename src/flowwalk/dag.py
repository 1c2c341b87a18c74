"""The order rules run in: Kahn's topological sort over `parents`, declaration order for ties.

A rule runs after all its parents; among rules that are ready at the same time the one declared
first runs first, so an independent rule keeps its place in the file. A parent name that is not a
rule of the scenario is ignored here: the loaders refuse it with its location before planning.

spec/ refuses cycles and scopes variables with it, plan/ and walk/ order rules with it; it sits
at the top level, beside `model`, so that spec/ imports nothing of plan/.
"""

from __future__ import annotations

import heapq
from typing import Sequence

from flowwalk.errors import Problem, SpecError
from flowwalk.model import Rule

CYCLE_HINT = "remove one of the parents; rules must form a DAG"


def _children(rules: Sequence[Rule]) -> tuple[dict[str, int], list[list[int]]]:
    index = {rule.name: i for i, rule in enumerate(rules)}
    children: list[list[int]] = [[] for _ in rules]
    for i, rule in enumerate(rules):
        for parent in dict.fromkeys(rule.parents):
            if parent in index:
                children[index[parent]].append(i)
    return index, children


def find_cycle(rules: Sequence[Rule]) -> list[str] | None:
    """One cycle as rule names, first name repeated at the end (`["a", "b", "a"]`), or None.

    Each arrow goes from a parent to its child (`a -> b`: b declares a as parent). The cycle starts
    at its earliest-declared rule, so the same file always gives the same message.
    """
    _, children = _children(rules)
    state = [0] * len(rules)  # 0 new, 1 on the current path, 2 done
    for start in range(len(rules)):
        if state[start]:
            continue
        path: list[int] = [start]
        iters = [iter(children[start])]
        state[start] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iters.pop()
                continue
            if state[nxt] == 1:
                cycle = path[path.index(nxt):]
                first = cycle.index(min(cycle))
                cycle = cycle[first:] + cycle[:first]
                return [rules[i].name for i in cycle] + [rules[cycle[0]].name]
            if state[nxt] == 0:
                state[nxt] = 1
                path.append(nxt)
                iters.append(iter(children[nxt]))
    return None


def cycle_problem(rules: Sequence[Rule], cycle: list[str]) -> Problem:
    """The cycle refused at the line of the rule it starts with."""
    first = next(rule for rule in rules if rule.name == cycle[0])
    return Problem(first.loc, f"rule cycle: {' -> '.join(cycle)}", CYCLE_HINT)


def topo_order(rules: Sequence[Rule]) -> list[Rule]:
    """Parents before children; ties in declaration order. Raises SpecError on a cycle."""
    _, children = _children(rules)
    indegree = [0] * len(rules)
    for kids in children:
        for kid in kids:
            indegree[kid] += 1
    ready = [i for i, n in enumerate(indegree) if n == 0]
    heapq.heapify(ready)
    order: list[Rule] = []
    while ready:
        i = heapq.heappop(ready)
        order.append(rules[i])
        for kid in children[i]:
            indegree[kid] -= 1
            if indegree[kid] == 0:
                heapq.heappush(ready, kid)
    if len(order) != len(rules):
        cycle = find_cycle(rules)
        assert cycle is not None  # Kahn stops short only on a cycle
        raise SpecError([cycle_problem(rules, cycle)])
    return order


def ancestors(rules: Sequence[Rule]) -> dict[str, set[str]]:
    """Every rule's ancestors (parents, their parents, ...); rules in a cycle stop at the cycle."""
    by_name = {rule.name: rule for rule in rules}
    out: dict[str, set[str]] = {}
    for rule in rules:
        seen: set[str] = set()
        stack = [p for p in rule.parents if p in by_name]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            stack.extend(p for p in by_name[name].parents if p in by_name and p not in seen)
        out[rule.name] = seen
    return out
