"""flowwalk.agent and flowwalk.browser export their names lazily (flowwalk/lazy.py): every name
they list resolves, and importing the package imports none of the heavy modules under it."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["flowwalk.agent", "flowwalk.browser"])
def test_every_listed_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []


def test_importing_the_packages_imports_neither_playwright_nor_requests() -> None:
    code = ("import sys, flowwalk.agent, flowwalk.browser, flowwalk.browser.driver, flowwalk.settings\n"
            "print(sorted(m for m in ('playwright.sync_api', 'requests', 'pydantic') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
