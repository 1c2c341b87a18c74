"""Fixtures for the GitHub tests: a fresh fake GitHub per test, a clock that never really sleeps."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_github import FakeGitHub  # noqa: E402


class FakeClock:
    """Time that moves only when flowwalk sleeps: retry paths run at full speed, waits are recorded."""

    def __init__(self, start: float = 1_800_000_000.0):
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


@pytest.fixture()
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    """A running fake; at the end, every request flowwalk sent must have been valid.

    A test that sends a bad request on purpose sets `github.expect_problems = True`.
    """
    with FakeGitHub() as fake:
        yield fake
        if not fake.expect_problems:
            assert fake.problems == [], "flowwalk sent requests GitHub's description refuses"
