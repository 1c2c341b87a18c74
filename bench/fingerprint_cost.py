"""What the heal fingerprint adds to an act on the passing path (issue 12).

An act with a pinned selector counts its matches once (`locate`); with a fingerprint, that count
is replaced by one `evaluate_all` (`browser.probe.PROBE_JS`) that returns the count and the
first match's fingerprint in the same round trip. This times both on the same page, interleaved
(A, B, A, B ...) so the machine's load hits both alike, and prints the median of each and their
ratio. Usage: python bench/fingerprint_cost.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from flowwalk.browser.locate import locate
from flowwalk.browser.probe import PROBE_JS
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

SITE = Path(__file__).resolve().parents[1] / "tests" / "site" / "pages"
SELECTORS = ("#save-btn", "input.field", "#todo-1 .toggle", 'text="Save"', "#nav-docs")


def main(rounds: int = 300) -> None:
    with StaticServer(SITE) as site, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        page = browser.new_page()
        page.goto(f"{site.url}/heal/v1.html")
        plain: list[float] = []
        probed: list[float] = []
        for _ in range(20):   # warm up both paths
            for sel in SELECTORS:
                locate(page, sel)
                locate(page, sel, probe=PROBE_JS)
        for _ in range(rounds):
            for sel in SELECTORS:
                t0 = time.perf_counter()
                locate(page, sel)
                t1 = time.perf_counter()
                found = locate(page, sel, probe=PROBE_JS)
                t2 = time.perf_counter()
                assert found.probe and found.probe["fp"]
                plain.append((t1 - t0) * 1000)
                probed.append((t2 - t1) * 1000)
        browser.close()
    a, b = statistics.median(plain), statistics.median(probed)
    print(f"locate, count only:          median {a:.3f} ms over {len(plain)} calls")
    print(f"locate, count + fingerprint: median {b:.3f} ms over {len(probed)} calls")
    print(f"ratio {b / a:.2f}, +{b - a:.3f} ms per act with a pinned selector")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
