"""The test tree's own rules: pytest imports test modules by basename (tests/ has no packages), so
two test files with one name in different folders stop collection of the whole suite."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_module_has_a_name_of_its_own() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("test_*.py"):
        if "node_modules" not in path.parts:
            by_name[path.name].append(path.relative_to(TESTS).as_posix())
    twice = {name: sorted(paths) for name, paths in by_name.items() if len(paths) > 1}
    assert not twice, f"rename one of each: {twice}"
