"""The reports at scale (issue #5): build time and size of report.html for 100 and 1,000 scenarios,
and how long the page takes to be usable in Chromium.

    .venv/bin/python bench/report_scale.py [--rounds 3]

The runs are synthetic (`tests/sample_run.py`: the same event stream a real run writes, with
failures, screenshots, skipped dependents, flaky retries), so only the reports are measured.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, Settings, default_executable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the synthetic runs are test data
from sample_run import sample_events, sample_suites, write_sample_run  # noqa: E402

OUT = Path(__file__).parent / "out" / "report-scale"


def make_run(size: int) -> Path:
    folder = OUT / f"{size}"
    suites = sample_suites(extra=max(0, size - len(sample_suites())))
    plan = plan_run(suites, Settings())
    write_sample_run(folder, sample_events(suites, plan.record()))
    return folder


def page_ready_ms(folder: Path) -> float:
    """Open report.html from a loopback server; time until the test list is on screen."""
    from playwright.sync_api import sync_playwright

    with StaticServer(folder) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto(f"{server.url}/report.html")
        page.wait_for_selector("#list li")
        ready = (time.perf_counter() - t0) * 1000
        browser.close()
    return ready


def measure(sizes: list[int], rounds: int) -> dict[int, dict[str, float]]:
    results: dict[int, dict[str, float]] = {}
    for size in sizes:
        folder = make_run(size)
        builds = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            verdict = build_reports(folder, warn=False)
            builds.append((time.perf_counter() - t0) * 1000)
        results[size] = {
            "tests": verdict["counts"]["total"],
            "build_ms": statistics.median(builds),
            "emit_kib": (folder / "emit.jsonl").stat().st_size / 1024,
            "html_kib": (folder / "report.html").stat().st_size / 1024,
            "page_ready_ms": statistics.median(page_ready_ms(folder) for _ in range(rounds)),
        }
    return results


def render(results: dict[int, dict[str, float]]) -> str:
    lines = ["| scenarios | tests | all reports built ms | emit.jsonl KiB | report.html KiB | page ready in Chromium ms |",
             "|---:|---:|---:|---:|---:|---:|"]
    for size, r in results.items():
        lines.append(f"| {size} | {int(r['tests'])} | {r['build_ms']:.0f} | {r['emit_kib']:.0f} | "
                     f"{r['html_kib']:.0f} | {r['page_ready_ms']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    results = measure([100, 1000], args.rounds)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    print(render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
