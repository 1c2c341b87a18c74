"""The container tests' session: podman checked once, the Dockerfile built once, timings reported.

On a machine where podman cannot run a container the tests are skipped with the reason, except
under CI=true, where they fail with it: CI must not go green without having built and run the image.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "github"))

from engine import IMAGE_REPO, Podman, engine_problem  # noqa: E402

#: what the session measured, printed at its end (docs/action.md quotes such figures)
TIMINGS: dict[str, str] = {}


@dataclass(frozen=True)
class Image:
    id: str
    tag: str
    build_seconds: float
    size: int


@pytest.fixture(scope="session")
def podman() -> Podman:
    engine = Podman()
    problem = engine_problem(engine)
    if problem:
        message = f"tests/container: podman cannot build and run the Action's image here: {problem}"
        if os.environ.get("FLOWWALK_TESTS_ON_CI") == "1":  # CI=true (tests/conftest.py)
            pytest.fail(message + "\n(CI=true: the container tests are part of CI and must run, not be skipped)",
                        pytrace=False)
        pytest.skip(message)
    state, seconds = engine.base_state
    TIMINGS["stand-in base"] = f"{state} in {seconds:.0f} s"
    return engine


@pytest.fixture(scope="session")
def image(podman: Podman) -> Iterator[Image]:
    """The Dockerfile, built once per session on the stand-in base (layers cached between sessions)."""
    tag = f"{IMAGE_REPO}:session-{os.getpid()}"
    image_id, seconds = podman.build(tag)
    built = Image(image_id, tag, seconds, podman.image_size(image_id))
    TIMINGS["image build"] = f"{seconds:.0f} s"
    TIMINGS["image size"] = f"{built.size / 1e6:.0f} MB"
    yield built
    # the newest build keeps a tag (and so its layers: the next session's build cache); the
    # session's own tag goes, and earlier builds of the tests' storage go once they are an hour old
    podman("tag", image_id, f"{IMAGE_REPO}:latest", check=False)
    podman("untag", image_id, tag, check=False)
    podman.prune_own_leftovers()


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    if TIMINGS:
        terminalreporter.write_sep("-", "tests/container: measured")
        for name, value in TIMINGS.items():
            terminalreporter.write_line(f"{name}: {value}")


@pytest.hookimpl(tryfirst=True)   # before pytest-xdist reads the group marks, however pytest was started
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The first test of a session carries the base (minutes, when missing) and the image build."""
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.timeout(1800))
            # one worker takes them all under pytest-xdist: one image build, one podman storage user;
            # minutes together, so they start first (tests/conftest.py)
            item.add_marker(pytest.mark.xdist_group("container"))
            item.add_marker(pytest.mark.long)
