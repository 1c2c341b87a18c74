"""How fast `flowwalk import` takes a suite of 100 test files (issue 48: under 10 s on this machine).

    .venv/bin/python bench/import_speed.py [--files 100] [--rounds 3] [--quiet-below 0.5]

Two suites of `--files` test files each, made of copies of the two upstream suites kept as
fixtures: Playwright's TodoMVC suite (`integration.spec.ts`, 25 tests, 405 lines) and Cypress's
(`app.cy.js` with the project's `cypress/support/commands.js`, 32 tests, 680 lines). Each is
imported as a user imports it, in a subprocess from the suite's folder; wall and CPU seconds and
peak RSS are the medians over the rounds. The load average is printed with each round: a figure
means something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from spec_scale import timed  # bench/: one way a command is timed

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "import"
OUT = Path(__file__).parent / "out" / "import-speed"
FLOWWALK = Path(sys.executable).with_name("flowwalk")
TARGET_S = 10.0


def make_suites(files: int) -> dict[str, Path]:
    shutil.rmtree(OUT, ignore_errors=True)
    playwright = OUT / "playwright" / "tests"
    playwright.mkdir(parents=True)
    text = (CORPUS / "playwright-todomvc" / "integration.spec.ts").read_text()
    for n in range(files):
        (playwright / f"todo-{n:03d}.spec.ts").write_text(text)
    cypress = OUT / "cypress"
    shutil.copytree(CORPUS / "cypress-todomvc" / "cypress" / "support", cypress / "cypress" / "support")
    (cypress / "cypress" / "e2e").mkdir(parents=True)
    text = (CORPUS / "cypress-todomvc" / "cypress" / "e2e" / "app.cy.js").read_text()
    for n in range(files):
        (cypress / "cypress" / "e2e" / f"app-{n:03d}.cy.js").write_text(text)
    return {"Playwright Test": OUT / "playwright", "Cypress": cypress}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quiet-below", type=float, default=0.0, metavar="LOAD",
                        help="wait (at most 5 minutes) for the 1-minute load average to fall below LOAD before "
                             "each round; refuse (exit 2) when it does not")
    args = parser.parse_args()
    suites = make_suites(args.files)
    met = True
    for name, folder in suites.items():
        runs: list[dict[str, float]] = []
        loads: list[float] = []
        summary = ""
        for _ in range(args.rounds):
            end = time.monotonic() + 300
            while args.quiet_below and os.getloadavg()[0] >= args.quiet_below:
                if time.monotonic() > end:
                    print(f"import_speed: the load average stayed at {os.getloadavg()[0]:.2f}; no figure taken",
                          file=sys.stderr)
                    return 2
                time.sleep(5)
            loads.append(os.getloadavg()[0])
            out = folder.parent / f"{folder.name}-out"
            runs.append(timed([str(FLOWWALK), "import", ".", "--out", str(out)], folder))
            f = json.loads((out / "import" / "ledger.json").read_text())["figures"]
            summary = (f"{f['tests_whole']} of {f['tests']} test(s) written whole, "
                       f"{f['checks_kept']} of {f['checks']} check(s) kept")
        wall = statistics.median(r["wall_s"] for r in runs)
        cpu = statistics.median(r["cpu_s"] for r in runs)
        rss = max(r["peak_rss_mb"] for r in runs)
        met = met and wall < TARGET_S
        print(f"{name}: {args.files} files, {summary}")
        print(f"  wall {wall:.2f} s, CPU {cpu:.2f} s, peak RSS {rss:.0f} MB (median of {args.rounds}; "
              f"load {', '.join(f'{x:.2f}' for x in loads)}); target under {TARGET_S:g} s: "
              f"{'met' if wall < TARGET_S else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
