"""The test tree's own rules: pytest imports test modules by basename (tests/ has no packages), so
two test files with one name in different folders stop collection of the whole suite; and under
`--dist loadgroup` (scripts/test.sh) an `xdist_group` runs on one worker, so a module's costly
fixture is made once per suite run, not once per worker that takes one of its tests."""

from __future__ import annotations

import os
import subprocess
import sys
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


GROUPED = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("costly")


@pytest.fixture(scope="module")
def costly():
    with open(os.environ["MADE"], "a") as made:
        made.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")


@pytest.mark.parametrize("n", range(6))
def test_costly(costly, n):
    pass
"""

UNGROUPED = """
import pytest


@pytest.mark.parametrize("n", range(12))
def test_plain(n):
    pass
"""


def test_an_xdist_group_runs_on_one_worker_and_its_module_fixture_once(tmp_path: Path) -> None:
    (tmp_path / "test_costly.py").write_text(GROUPED)
    (tmp_path / "test_plain.py").write_text(UNGROUPED)
    made = tmp_path / "made.txt"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                           "loadgroup", "-c", "/dev/null", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MADE": str(made)})
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(made.read_text().split()) == 1, (
        f"the module fixture was made on workers {made.read_text().split()}: --dist loadgroup ignored "
        "xdist_group (see the pytest pin in pyproject.toml)")
