"""Playwright's private names that flowwalk relies on, listed once, and the switch that stops using them.

Three speed-ups reach below Playwright for Python's public API:

- the early driver (`browser/driver.py`): the client's transport class,
  `playwright._impl.out_of_process.PipeTransport`, is replaced by one that adopts a driver
  spawned before Python imported Playwright; the driver's command comes from
  `playwright._impl._driver` (`compute_driver_executable`, `get_driver_env`);
- the spare context and the close without waiting (`browser/launch.py`): implementation objects
  (`_impl_obj`), the sync API's event loop and waiter (`_loop`, `_sync`), its wrapper for route
  handlers (`_wrap_handler`) and its map from implementation to sync objects
  (`playwright._impl._sync_base.mapping`);
- workers sharing one browser (`browser/together.py`): `_sync` and `_loop` again, and, to tell
  that the driver is gone, the dispatcher greenlet (`_dispatcher_fiber`) and the connection's
  `_closed_error`.

`PRIVATE_NAMES` lists them; tests/contract/test_playwright_seams.py touches every one against the
installed Playwright, so an upgrade that moves one fails there, by name, and pyproject.toml pins
Playwright to the range that test has passed on.

`FLOWWALK_PUBLIC_API_ONLY=1` in the environment turns all three off: no early driver, no spare
context (each context is opened and closed on the spot), one browser per worker. The run then
uses Playwright's public API only, at the cost measured in bench/PROFILE.md, and is the way out
when an upgrade breaks a seam before flowwalk follows it. It is read from the environment, not
from flowwalk.yaml, because the early driver starts before any file is read.
"""

from __future__ import annotations

import os

__all__ = ["PRIVATE_NAMES", "PUBLIC_API_ONLY_ENV", "private_api_allowed"]

#: the environment variable that turns the private seams off (see the module doc)
PUBLIC_API_ONLY_ENV = "FLOWWALK_PUBLIC_API_ONLY"

#: where each private name is used: (owner, name) -> the flowwalk module that uses it
PRIVATE_NAMES: dict[tuple[str, str], str] = {
    ("playwright._impl.out_of_process", "PipeTransport"): "browser/driver.py",
    ("playwright._impl.transport", "PipeTransport.connect"): "browser/driver.py",
    ("playwright._impl._driver", "compute_driver_executable"): "browser/driver.py",
    ("playwright._impl._driver", "get_driver_env"): "browser/driver.py",
    ("playwright._impl._sync_base", "mapping.from_impl"): "browser/launch.py",
    ("playwright._impl._sync_base.SyncBase", "_wrap_handler"): "browser/launch.py",
    ("playwright.sync_api.Browser", "_impl_obj"): "browser/launch.py",
    ("playwright.sync_api.Browser", "_loop"): "browser/launch.py",
    ("playwright.sync_api.Browser", "_sync"): "browser/launch.py",
    ("playwright.sync_api.BrowserContext", "_impl_obj"): "browser/launch.py",
    ("playwright.sync_api.Playwright", "_loop"): "browser/together.py",
    ("playwright.sync_api.Playwright", "_sync"): "browser/together.py",
    ("playwright.sync_api.Playwright", "_dispatcher_fiber"): "browser/together.py",
    ("playwright.sync_api.Playwright", "_impl_obj._connection._closed_error"): "browser/together.py",
}

_TRUE = {"1", "true", "yes", "on"}


def private_api_allowed() -> bool:
    """False when `FLOWWALK_PUBLIC_API_ONLY` is set to a true value (1, true, yes, on)."""
    return os.environ.get(PUBLIC_API_ONLY_ENV, "").strip().lower() not in _TRUE
