"""Write src/flowwalk/devices.json: Playwright's device descriptors, from the installed Playwright.

flowwalk checks a `device:` name when it loads a spec, before any browser (or Playwright's driver)
starts, and builds the context options from the same table, so every job of a matrix resolves a
device the same way. Run this after upgrading Playwright:

    .venv/bin/python scripts/devices.py

tests/integration/test_environment.py fails when the file and the installed Playwright disagree.
"""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import sync_playwright

OUT = Path(__file__).resolve().parents[1] / "src" / "flowwalk" / "devices.json"


def main() -> None:
    with sync_playwright() as playwright:
        devices = playwright.devices
    OUT.write_text(json.dumps(devices, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(devices)} devices to {OUT}")


if __name__ == "__main__":
    main()
