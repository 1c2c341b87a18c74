"""Every private name of Playwright that flowwalk uses (browser/seams.py), touched against the
installed Playwright: an upgrade that moves one fails here, naming it, instead of somewhere deep
in a run. The live names are read off a started sync Playwright (its driver, no browser)."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from flowwalk.browser.seams import PRIVATE_NAMES, PUBLIC_API_ONLY_ENV, private_api_allowed

ROOT = Path(__file__).resolve().parents[2]


def _resolve(owner: str, dotted: str) -> Any:
    """`owner` (a module, or a module's class) then `dotted` below it."""
    parts = owner.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:] + dotted.split("."):
            obj = getattr(obj, part)
        return obj
    raise ImportError(owner)


#: names that exist only on a live object, not on its class
_LIVE = {name for (owner, name) in PRIVATE_NAMES if name.startswith(("_impl_obj", "_loop", "_dispatcher_fiber"))}


@pytest.mark.parametrize("owner,name", sorted(k for k in PRIVATE_NAMES if k[1] not in _LIVE),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_a_module_or_class_level_private_name_is_there(owner: str, name: str) -> None:
    assert _resolve(owner, name) is not None, f"{owner}.{name} (used by {PRIVATE_NAMES[(owner, name)]})"


def test_the_transport_seam_the_early_driver_replaces_still_has_its_shape() -> None:
    from flowwalk.browser import driver

    assert driver._seam_present(), ("playwright._impl.transport.PipeTransport.connect no longer sets _proc and "
                                    "_output as browser/driver.py expects")


def test_the_spare_context_options_are_parameters_of_the_implementation() -> None:
    from playwright._impl.browser import Browser as ImplBrowser
    from playwright._impl.browser_context import BrowserContext as ImplContext

    from flowwalk.browser.launch import _plain_options

    assert set(_plain_options()) <= set(inspect.signature(ImplBrowser.new_context).parameters)
    assert {"script"} <= set(inspect.signature(ImplContext.add_init_script).parameters)
    assert {"url", "handler"} <= set(inspect.signature(ImplContext.route).parameters)


_LIVE_CHECK = """
import sys
from playwright._impl._sync_base import SyncBase
from playwright.sync_api import Browser, BrowserContext, sync_playwright
from flowwalk.browser.seams import PRIVATE_NAMES
manager = sync_playwright()
playwright = manager.start()
missing = []
try:
    for (owner, name), user in PRIVATE_NAMES.items():
        if owner.endswith(".Playwright") and name.startswith(("_impl_obj", "_loop", "_dispatcher_fiber")):
            obj = playwright
            for part in name.split("."):
                if not hasattr(obj, part):
                    missing.append(f"Playwright has no {name} ({user} uses it)")
                    break
                obj = getattr(obj, part)
    # the sync API's Browser and BrowserContext get _impl_obj, _loop and _sync from SyncBase
    if not (issubclass(Browser, SyncBase) and issubclass(BrowserContext, SyncBase) and callable(SyncBase._sync)):
        missing.append("Browser and BrowserContext no longer get _sync from SyncBase")
    if playwright._dispatcher_fiber.dead:
        missing.append("the dispatcher greenlet of a started Playwright is dead")
finally:
    manager.__exit__(None, None, None)
print(chr(10).join(missing))
"""


def test_the_live_private_names_are_on_a_started_playwright() -> None:
    # in a process of its own: the sync API refuses to start where a test left an asyncio loop
    done = subprocess.run([sys.executable, "-c", _LIVE_CHECK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_playwright_is_pinned_to_the_range_these_tests_pass_on() -> None:
    import tomllib

    pins = [Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    (pin,) = [r for r in pins if r.name == "playwright"]
    assert any(s.operator == "<" for s in pin.specifier), f"{pin}: give Playwright an upper bound"
    assert version("playwright") in pin.specifier, f"the installed Playwright {version('playwright')} is outside {pin}"


@pytest.mark.parametrize("value,allowed", [("", True), ("0", True), ("1", False), ("true", False), (" Yes ", False)])
def test_the_switch_reads_the_environment(monkeypatch: pytest.MonkeyPatch, value: str, allowed: bool) -> None:
    monkeypatch.setenv(PUBLIC_API_ONLY_ENV, value)
    assert private_api_allowed() is allowed


def test_with_the_switch_on_no_seam_is_installed_in_a_fresh_process() -> None:
    script = ("from flowwalk.browser import driver\n"
              "from playwright._impl import out_of_process\n"
              "print(driver.install(), getattr(out_of_process.PipeTransport, '_flowwalk_adopting', False))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          env={**os.environ, PUBLIC_API_ONLY_ENV: "1"})
    assert done.stdout.split() == ["False", "False"], done.stdout + done.stderr
