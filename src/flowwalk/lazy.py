"""Packages whose names are imported on first use (PEP 562), so that importing one small module of
the package does not import all of it: `flowwalk.agent` (the settings read its config on every
command; the client under it imports an HTTP stack) and `flowwalk.browser` (its driver module is
imported before Playwright, see browser/driver.py).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, Mapping


def exports(package: str, modules: Mapping[str, Iterable[str]]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `modules[module]` comes from
    `package.module`, imported when the name is first asked for, then kept in the package."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__
