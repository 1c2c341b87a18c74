"""devices.json is Playwright's own device table: a drift after a Playwright upgrade fails here
(scripts/devices.py rewrites it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flowwalk

pytestmark = pytest.mark.browser


def test_devices_json_is_the_installed_playwrights_table(playwright_instance) -> None:  # type: ignore[no-untyped-def]
    committed = json.loads((Path(flowwalk.__file__).parent / "devices.json").read_text(encoding="utf-8"))
    assert committed == playwright_instance.devices
