"""The browser's environment: Playwright's device descriptors, and the context options of a scenario.

`Environment` (model.py) comes in layers: flowwalk.yaml, then the project the scenario runs in,
then the spec (or the rule file's scenario) itself. Each layer's `device` expands first into its
descriptor (viewport, screen, user agent, device scale factor, mobile, touch), then the layer's own
keys go on top; a higher layer wins key by key. `context_options` gives the result as Playwright's
`new_context` keyword arguments; browser/launch.py opens the context with them.

The descriptors are a table committed with flowwalk (`devices.json`, written from Playwright by
scripts/devices.py), so that a device's name is checked at load, before any browser or driver
starts, and every job of a matrix resolves it the same way. A descriptor's `default_browser_type`
is dropped: flowwalk walks in Chromium whatever the device (a phone's Safari is emulated by its
viewport, user agent and touch, not by WebKit).

Stdlib only: the spec layer checks names with it, browser/ builds options with it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Iterable

from flowwalk.model import Environment

__all__ = ["context_options", "describe", "device_names", "layers_of"]

_DEVICES = Path(__file__).with_name("devices.json")


@functools.lru_cache(maxsize=1)
def _descriptors() -> dict[str, dict[str, Any]]:
    data: dict[str, dict[str, Any]] = json.loads(_DEVICES.read_text(encoding="utf-8"))
    return data


def device_names() -> tuple[str, ...]:
    """Every device name a spec may give, in Playwright's spelling."""
    return tuple(_descriptors())


def _layer(env: Environment) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if env.device is not None:
        options.update({k: (dict(v) if isinstance(v, dict) else v)
                        for k, v in _descriptors()[env.device].items() if k != "default_browser_type"})
    if env.viewport is not None:
        options["viewport"] = {"width": env.viewport[0], "height": env.viewport[1]}
    if env.locale is not None:
        options["locale"] = env.locale
    if env.timezone is not None:
        options["timezone_id"] = env.timezone
    if env.color_scheme is not None:
        options["color_scheme"] = env.color_scheme
    if env.geolocation is not None:
        latitude, longitude, accuracy = env.geolocation
        options["geolocation"] = {"latitude": latitude, "longitude": longitude, "accuracy": accuracy}
        options["permissions"] = ["geolocation"]
    return options


def context_options(layers: Iterable[Environment]) -> dict[str, Any]:
    """Playwright `new_context` options for these layers, lowest first (empty: the defaults)."""
    options: dict[str, Any] = {}
    for env in layers:
        options.update(_layer(env))
    return options


def layers_of(config: Environment, projects: Iterable[Any], scenario: Any) -> tuple[Environment, ...]:
    """The layers of `scenario` (a model.Scenario): flowwalk.yaml's, its project's, its own."""
    project = next((p.environment for p in projects if p.name == scenario.project), Environment())
    return (config, project, scenario.environment)


def describe(layers: Iterable[Environment]) -> dict[str, Any]:
    """What a report says of a scenario's browser: the merged keys as written (the device by name,
    not its user agent), for emit.jsonl's plan."""
    out: dict[str, Any] = {}
    for env in layers:
        if env.device is not None:
            out["device"] = env.device
            out["viewport"] = dict(_descriptors()[env.device]["viewport"])
        if env.viewport is not None:
            out["viewport"] = {"width": env.viewport[0], "height": env.viewport[1]}
        for key in ("locale", "timezone", "color_scheme"):
            if getattr(env, key) is not None:
                out[key] = getattr(env, key)
        if env.geolocation is not None:
            out["geolocation"] = dict(zip(("latitude", "longitude", "accuracy"), env.geolocation))
    return out
