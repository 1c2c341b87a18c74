"""What the heal fingerprint adds to an act on the passing path (issue 12).

An act with a pinned selector counts its matches once (`Page.match`); with a fingerprint, that
count is replaced by one `evaluate_all` (`Page.match(..., fingerprint=True)`) that returns the
count and the first match's fingerprint in the same round trip. This times both on the same page, interleaved
(A, B, A, B ...) so the machine's load hits both alike, and prints the median of each and their
ratio. Usage: python bench/fingerprint_cost.py [rounds]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from flowwalk.browser.page import Page
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, default_executable

SITE = Path(__file__).resolve().parents[1] / "tests" / "site" / "pages"
SELECTORS = ("#save-btn", "input.field", "#todo-1 .toggle", 'text="Save"', "#nav-docs")


def main(rounds: int = 300) -> None:
    with StaticServer(SITE) as site, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        raw = browser.new_page()
        raw.goto(f"{site.url}/heal/v1.html")
        page = Page(raw)
        plain: list[float] = []
        probed: list[float] = []
        for _ in range(20):   # warm up both paths
            for sel in SELECTORS:
                page.match(sel)
                page.match(sel, fingerprint=True)
        for _ in range(rounds):
            for sel in SELECTORS:
                t0 = time.perf_counter()
                page.match(sel)
                t1 = time.perf_counter()
                found = page.match(sel, fingerprint=True)
                t2 = time.perf_counter()
                assert found.fingerprint
                plain.append((t1 - t0) * 1000)
                probed.append((t2 - t1) * 1000)
        browser.close()
    a, b = statistics.median(plain), statistics.median(probed)
    print(f"match, count only:          median {a:.3f} ms over {len(plain)} calls")
    print(f"match, count + fingerprint: median {b:.3f} ms over {len(probed)} calls")
    print(f"ratio {b / a:.2f}, +{b - a:.3f} ms per act with a pinned selector")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
