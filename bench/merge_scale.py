"""merge and the merged report as the work grows (issue 52 item 3), no browser walking anything.

    .venv/bin/python bench/merge_scale.py [--tests 10000] [--shards 64]

Writes `--shards` shard report folders holding `--tests` tests together, as the shards of one CI
run would upload them (tests/sample_run.py's synthetic runs: about 4 % failing, each failure with
its screenshot, flaky retries, skipped dependents; each shard's own reports built), then measures:

- `flowwalk merge` of them, run as a user runs it: wall, CPU (user + system) and peak RSS;
- the merged report.html: its size, and in headless Chromium the time until its test list is on
  screen, and the time to filter it by status (a chip unticked) and by text (the search box,
  without its 120 ms typing pause);
- the PR comment rendered from the merged verdict and the merged summary.md (the job summary):
  their length against GitHub's limits (65,536 characters for a comment, 1 MiB for a step's
  summary), and that no table is cut mid-row.

The load average is recorded with the figures: they mean something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from flowwalk.github.render import COMMENT_LIMIT, RunLinks, render_comment
from flowwalk.plan.shard import plan_run
from flowwalk.report.build import build_reports
from flowwalk.serve import StaticServer
from flowwalk.settings import CHROMIUM_ARGS, Settings, default_executable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the synthetic runs are test data
from sample_run import sample_events, sample_suites, write_sample_run  # noqa: E402

OUT = Path(__file__).parent / "out" / "merge-scale"
FLOWWALK = Path(sys.executable).with_name("flowwalk")
#: GitHub's limit on a step's job summary (bytes)
SUMMARY_LIMIT = 1_048_576
LINKS = RunLinks(repository="acme/shop", sha="0" * 40, run_url="https://github.com/acme/shop/actions/runs/1",
                 artifact_url="https://github.com/acme/shop/actions/runs/1/artifacts/2")


def make_shards(tests: int, shards: int) -> list[Path]:
    suites = sample_suites(extra=max(0, tests - len(sample_suites())))
    folders = []
    for k in range(1, shards + 1):
        folder = OUT / "shards" / f"shard-{k:02d}"
        plan = plan_run(suites, Settings(shard_index=k, shard_total=shards))
        write_sample_run(folder, sample_events(suites, plan.record(), run_id="run-1"))
        build_reports(folder, warn=False)
        folders.append(folder)
    return folders


def merge(folders: list[Path], out: Path) -> dict[str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([str(FLOWWALK), "merge", *map(str, folders), "--out", str(out)],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: the run has failing tests, as it should
        raise SystemExit(f"flowwalk merge exited {done.returncode}:\n{done.stderr[-2000:]}")
    return {"wall_s": round(wall, 2),
            "cpu_s": round((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024, 1)}


FILTER_MS = """async ([how, value]) => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const t0 = performance.now();
  if (how === "status") {
    document.getElementById("status-" + value).click();
  } else {
    const box = document.getElementById("search");
    box.value = value;
    box.dispatchEvent(new Event("input"));
    await new Promise(r => setTimeout(r, 120));
  }
  await frames();
  return performance.now() - t0 - (how === "text" ? 120 : 0);
}"""


def page_figures(folder: Path, rounds: int) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    ready, by_status, by_text = [], [], []
    with StaticServer(folder) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=default_executable(), args=list(CHROMIUM_ARGS))
        for _ in range(rounds):
            page = browser.new_page()
            start = time.perf_counter()
            page.goto(f"{server.url}/report.html")
            page.wait_for_selector("#list details")
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            ready.append((time.perf_counter() - start) * 1000)
            by_status.append(page.evaluate(FILTER_MS, ["status", "passed"]))
            page.evaluate(FILTER_MS, ["status", "passed"])  # ticked again: the whole list
            by_text.append(page.evaluate(FILTER_MS, ["text", "generated/flow-0042"]))
            page.close()
        browser.close()
    return {"list_on_screen_ms": round(statistics.median(ready)),
            "filter_by_status_ms": round(statistics.median(by_status)),
            "filter_by_text_ms": round(statistics.median(by_text))}


def cut_mid_table(text: str) -> bool:
    """Whether a markdown table in `text` ends in a row that is not whole."""
    lines = text.splitlines()
    return any(line.startswith("|") and not line.rstrip().endswith("|") for line in lines)


def comment_figures(folder: Path) -> dict[str, object]:
    verdict = json.loads((folder / "verdict.json").read_text())
    comment = render_comment(verdict, LINKS)
    summary = (folder / "summary.md").read_text()
    failed = sum(1 for t in verdict.get("tests", []) if t.get("status") == "failed")
    return {"failed_tests": failed, "comment_chars": len(comment), "comment_limit": COMMENT_LIMIT,
            "summary_bytes": len(summary.encode()), "summary_limit": SUMMARY_LIMIT,
            "comment_cut_mid_table": cut_mid_table(comment), "summary_cut_mid_table": cut_mid_table(summary)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=10_000)
    parser.add_argument("--shards", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    shutil.rmtree(OUT, ignore_errors=True)
    folders = make_shards(args.tests, args.shards)
    loads, merges = [], []
    for n in range(args.rounds):
        loads.append(round(os.getloadavg()[0], 2))
        merges.append(merge(folders, OUT / f"merged-{n}"))
    merged = OUT / "merged-0"
    result = {"tests": args.tests, "shards": args.shards, "load_1min_at_each_round": loads,
              "merge": {key: statistics.median(m[key] for m in merges) for key in merges[0]},
              "report_html_mib": round((merged / "report.html").stat().st_size / 2**20, 2),
              "page": page_figures(merged, args.rounds), "comment": comment_figures(merged)}
    print(json.dumps(result, indent=2))
    (OUT / f"merge-scale-{time.strftime('%Y%m%dT%H%M%S')}.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
