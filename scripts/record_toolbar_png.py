"""docs/record-toolbar.png: the recorder's toolbar as a person sees it, taken headless.

A recording (record/__init__.py's `start`, the recorder's own init script injected as for a
person) opens tests/site/pages/record/form.html, presses the toolbar's List button as a person
picking a check would (the button lit, the status saying what to do next) and points at a list
item (the element lit in orange), then screenshots the page's bottom right: the real toolbar,
over the real page.

    .venv/bin/python scripts/record_toolbar_png.py [--out docs/record-toolbar.png]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from flowwalk.record import RecordRequest, start
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

ROOT = Path(__file__).resolve().parents[1]
PAGES = ROOT / "tests" / "site" / "pages" / "record"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "record-toolbar.png")
    options = parser.parse_args()
    with StaticServer(PAGES) as server, tempfile.TemporaryDirectory() as scratch:
        ask = RecordRequest(url=f"{server.url}/form.html", out=Path(scratch) / "shot.flow.yaml", headless=True,
                            executable=default_executable(), browser_args=CHROMIUM_ARGS)
        recording = start(ask)
        try:
            page = recording.pages[0]
            page.set_viewport_size({"width": 900, "height": 420})
            page.locator("flowwalk-recorder button", has_text="List").click()
            item = page.locator("[data-testid=fruits] li", has_text="Banana")
            box = item.bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + 10, box["y"] + box["height"] / 2)
            bar = page.locator("flowwalk-recorder").bounding_box()
            assert bar is not None, "the toolbar is not on the page"
            top = max(min(box["y"], bar["y"]) - 60, 0)
            page.screenshot(path=str(options.out), clip={"x": 0, "y": top, "width": 900, "height": 420 - top})
        finally:
            recording.close()
    print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
