"""Every field of walk.attempt.RuleState has one owner: the only module that writes it.

A write is an assignment to `state.<field>` (augmented, tuple or item assignment included) or a
call that changes it in place (`append`, `pop`, `clear`, ...). Readers are free. The owners are
named beside the fields in walk/attempt.py; this table is the same list, checked."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from flowwalk.walk.attempt import RuleState

WALK = Path(__file__).resolve().parents[2] / "src" / "flowwalk" / "walk"

#: field -> the walk/ modules that may write it (empty: set once when rule.py builds the state)
OWNERS: dict[str, set[str]] = {
    **{name: set() for name in ("rule", "budget", "observe_ms", "guard_ms", "dismiss", "ahead")},
    "scope": {"places.py"},
    "guard_rounds": {"rule.py"}, "guard_failure": {"rule.py"}, "failure": {"rule.py"},
    "findings": {"attempt.py"}, "screenshots": {"attempt.py"},
    "current_index": {"step.py"}, "current_step": {"step.py"}, "current_kind": {"step.py"}, "last_act": {"step.py"},
    "current_hooks": {"step.py"},
    "clicked": {"actions.py"},
    "heals": {"healing.py"},
    "axe_scans": {"snapshots.py"},
}
#: Lookahead's fields: written by its own methods only
AHEAD = {"following", "next_step", "early"}
_MUTATE = {"append", "extend", "insert", "pop", "popitem", "clear", "update", "remove", "setdefault", "sort"}


def _field(node: ast.expr) -> str | None:
    """`state.x` / `state.ahead.x` -> x (`state` is what every walk/ room calls a RuleState)."""
    if isinstance(node, ast.Subscript):
        return _field(node.value)
    if not isinstance(node, ast.Attribute):
        return None
    base = node.value
    if isinstance(base, ast.Name) and base.id == "state":
        return node.attr
    if isinstance(base, ast.Attribute) and base.attr == "ahead":
        return f"ahead.{node.attr}"
    return None


def _writes(tree: ast.AST) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATE:
            targets = [node.func.value]
        for target in targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                name = _field(t)
                if name is not None:
                    out.append((name, node.lineno))
    return out


def test_every_field_has_an_owner() -> None:
    assert {f.name for f in dataclasses.fields(RuleState)} == set(OWNERS)


def test_each_field_is_written_only_by_its_owner() -> None:
    broken = []
    for path in sorted(WALK.glob("*.py")):
        for name, line in _writes(ast.parse(path.read_text(), str(path))):
            if name.startswith("ahead."):
                if path.name != "attempt.py":
                    broken.append(f"walk/{path.name}:{line} writes state.{name} (Lookahead's own)")
                continue
            if name in OWNERS and path.name != "attempt.py" and path.name not in OWNERS[name]:
                broken.append(f"walk/{path.name}:{line} writes state.{name} (owner: {sorted(OWNERS[name]) or 'rule.py, once'})")
    assert broken == []
