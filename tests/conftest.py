"""Shared fixtures: one loopback site server and one Chromium per test session, a fresh context per test."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

# The tests target only servers they start on 127.0.0.1: every run they make (in-process or a CLI
# subprocess) aborts requests to any other host rather than trying to reach it.
os.environ["FLOWWALK_OFFLINE"] = "1"
# A run's defaults follow `CI` (traces on a CI, settings.on_ci): the suite itself runs the same in
# CI as on a developer's machine, so the variable is taken out of every run the tests make. The
# container tests keep its meaning (on CI they must run, not be skipped) through FLOWWALK_TESTS_ON_CI;
# the tests of the CI default set `CI` themselves.
if os.environ.pop("CI", None) == "true":
    os.environ["FLOWWALK_TESTS_ON_CI"] = "1"

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "tests" / "site" / "pages"
EXAMPLES_SITE = ROOT / "examples" / "site"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with a test marked `long` come first, each whole (its module fixtures are made
    once). pytest-xdist hands work out in collection order (scripts/test.sh turns off its reordering
    by group size), so a long test or group starts while short ones fill the other workers, and
    never starts last and holds the end of the run."""
    long = {item.path for item in items if item.get_closest_marker("long")}
    items.sort(key=lambda item: item.path not in long)


@pytest.fixture(scope="session")
def checkout_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding this checkout's sdist and the wheel built from it, as the release builds them,
    made once a suite run. A build writes build/ and the egg-info into the checkout, so two builds at
    once break each other: under pytest-xdist the first worker to ask builds, under a lock, and the
    others wait for it and take its folder."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base   # the session's, not older ones'
    out, built = shared / "checkout-dist", shared / "checkout-dist.built"
    with (shared / "checkout-dist.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not built.is_file():
            shutil.rmtree(out, ignore_errors=True)
            env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GITHUB_ACTIONS")}
            done = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                                  capture_output=True, text=True, timeout=300,
                                  env={**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
            assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
            built.touch()
    return out


@pytest.fixture(scope="session")
def site() -> Iterator[StaticServer]:
    """tests/site/pages served on 127.0.0.1:<free port>."""
    with StaticServer(SITE) as server:
        yield server


@pytest.fixture(scope="session")
def example_site() -> Iterator[StaticServer]:
    """examples/site served on 127.0.0.1:<free port>."""
    with StaticServer(EXAMPLES_SITE) as server:
        yield server


@pytest.fixture(scope="session")
def playwright_instance():  # type: ignore[no-untyped-def]
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def chromium(playwright_instance):  # type: ignore[no-untyped-def]
    """The one raw Playwright browser of the session (for tests of the browser layer)."""
    browser = playwright_instance.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
    yield browser
    browser.close()


@pytest.fixture()
def page(chromium):  # type: ignore[no-untyped-def]
    context = chromium.new_context()
    page = context.new_page()
    yield page
    context.close()
