"""What traces cost (issue 50): the same flows walked with `--trace retain-on-failure` (the default
on a CI) and with `--trace off`, interleaved, every flow passing. Target: at most 10 % more wall time.

    .venv/bin/python bench/trace_cost.py                                # bench/flows, 5 rounds, workers 2
    .venv/bin/python bench/trace_cost.py --paths bench/login/session    # the sign-in variant: secrets,
                                                                        # a session, no screencast
    .venv/bin/python bench/trace_cost.py --modes off,retain-on-failure,on   # also every trace kept and scrubbed
    .venv/bin/python bench/trace_cost.py --rounds 1 --flows team-1,login-2  # a small check that it runs

When every flow passes, `retain-on-failure` records each context's trace and throws it away at
the close: what is measured is recording (DOM snapshots, the screencast where no secret can reach
the page) and a traced context's setup (it is never the pre-opened spare). `on` adds saving and
scrubbing every trace. Each run is measured with bench/run.py's `measure` (wall, CPU of the process
tree, peak memory) and checked with its `verify` (every test passed); round 0 is a discarded
warm-up. The medians, the per-round wall ratios against `off` and the raw numbers (bench/out/
trace-cost-<time>.json) are printed; RESULTS.md is left to the lead's measured run.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TARGET = 1.10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds after the warm-up [5]")
    parser.add_argument("--workers", type=int, default=2, help="flowwalk --workers [2]")
    parser.add_argument("--modes", default="off,retain-on-failure", help="trace modes, the first the baseline")
    parser.add_argument("--flows", help="comma-separated slugs of bench/flows (default: all of them)")
    parser.add_argument("--paths", nargs="*", help="spec folders or files instead of bench/flows")
    args = parser.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    sys.path.insert(0, str(BENCH))
    import run as harness  # bench/run.py: the one way runs are measured

    from flowwalk.serve import StaticServer
    from flowwalk.settings import default_executable

    slugs = [s.strip() for s in args.flows.split(",")] if args.flows else None
    paths = [Path(p).resolve() for p in args.paths] if args.paths else None
    if paths:
        expected = sum(len(list(p.glob("*.flow.yaml"))) if p.is_dir() else 1 for p in paths)
    else:
        expected = len(slugs) if slugs else len(list(harness.FLOWS.glob("*.flow.yaml")))
    harness.OUT.mkdir(exist_ok=True)
    started = dt.datetime.now(dt.timezone.utc)
    commit = harness._run_text(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT).strip()
    data: dict[str, Any] = {"started_at": started.isoformat(timespec="seconds"), "commit": commit, "modes": modes,
                            "rounds": args.rounds, "workers": args.workers, "flows": expected, "runs": []}
    problems: list[str] = []
    with StaticServer(harness.build_site()) as site:
        env = harness.Env(base_url=site.url, chromium=default_executable(), demo_password=harness.demo_password())
        for round_no in range(args.rounds + 1):
            for mode in modes:
                out = harness.OUT / "runs" / f"trace-cost-{mode}"
                result, found = harness.flowwalk_round(harness.Flowwalk(["--trace", mode]), mode, round_no, env,
                                                       args.workers, out, slugs, paths, expected)
                problems.extend(found)
                if round_no:
                    data["runs"].append(dataclasses.asdict(result))
    raw = harness.OUT / f"trace-cost-{started.strftime('%Y%m%dT%H%M%S')}.json"
    data["raw"] = os.path.relpath(raw, ROOT)
    raw.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    if problems:
        print("INVALID: a run did not pass every test", file=sys.stderr)
        return 1
    print(summary(data))
    return 0


def summary(data: dict[str, Any]) -> str:
    """Medians per mode and the wall ratio of each against the first, round by round."""
    modes = data["modes"]
    runs = {m: [r for r in data["runs"] if r["impl"] == m] for m in modes}
    lines = [f"{data['flows']} flows, workers {data['workers']}, {data['rounds']} rounds, commit {data['commit']}",
             "| trace | wall s (median) | CPU s | peak RSS MB | wall / off, per round |", "|---|---|---|---|---|"]
    for mode in modes:
        med = {k: statistics.median(r[k] for r in runs[mode]) for k in ("wall_s", "cpu_s", "peak_rss_mb")}
        ratios = [r["wall_s"] / b["wall_s"] for r, b in zip(runs[mode], runs[modes[0]])]
        verdict = "" if mode == modes[0] else (" (within" if statistics.median(ratios) <= TARGET else " (over") + \
            f" the {TARGET:.2f} target)"
        lines.append(f"| {mode} | {med['wall_s']:.2f} | {med['cpu_s']:.2f} | {med['peak_rss_mb']:.0f} | "
                     f"{', '.join(f'{x:.2f}' for x in ratios)}{verdict} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
