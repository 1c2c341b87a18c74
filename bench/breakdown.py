"""Where a flowwalk run's time went, per flow and per step kind, read from its emit.jsonl alone.

A sampling profiler sees little of a walk: Playwright's sync API runs the walker in a greenlet
and every wait happens in the dispatcher's, so the samples pile up in the event loop. The
events flowwalk writes carry the timings that matter instead: each step's duration, each
check's number of reads, each rule's and scenario's duration. This script sums them:

    .venv/bin/python bench/breakdown.py bench/out/runs/flowwalk-w1/emit.jsonl [--floor floor-output.txt]

`--floor` takes the floor's output (`ok <name> (<ms> ms)` lines, bench/floor.py) and puts each
flow's floor time next to flowwalk's.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


def read_events(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a truncated last line
    return events


def floor_times(path: Path) -> dict[str, float]:
    out = {}
    for match in re.finditer(r"^ok (.+) \((\d+) ms\)$", path.read_text(), re.M):
        out[match.group(1)] = float(match.group(2))
    return out


def breakdown(events: list[dict[str, Any]], floor: dict[str, float] | None = None) -> str:
    scenarios: dict[str, dict[str, Any]] = defaultdict(lambda: {"steps": defaultdict(float), "n": defaultdict(int),
                                                                "reads": []})
    first_start = None
    for event in events:
        kind = event["event"]
        if kind == "scenario_started" and first_start is None:
            first_start = event["t"]
        if kind == "step_finished":
            row = scenarios[event["scenario_id"]]
            row["steps"][event["kind"]] += event["duration_ms"]
            row["n"][event["kind"]] += 1
            if event.get("reads"):
                row["reads"].append(event["reads"])
        elif kind == "rule_finished":
            scenarios[event["scenario_id"]]["rule_ms"] = event["duration_ms"]
        elif kind == "scenario_finished":
            scenarios[event["scenario_id"]]["scenario_ms"] = event["duration_ms"]
        elif kind == "run_finished":
            run_ms = event["duration_ms"]
    lines = []
    kinds = sorted({k for row in scenarios.values() for k in row["steps"]})
    header = ["flow", "scenario", "rule", "outside rule", *kinds, "floor"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    totals: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    for scenario_id, row in scenarios.items():
        name = scenario_id.split("#", 1)[-1]
        outside = row.get("scenario_ms", 0) - row.get("rule_ms", 0)
        totals["scenario"] += row.get("scenario_ms", 0)
        totals["rule"] += row.get("rule_ms", 0)
        totals["outside rule"] += outside
        cells = [name[:50], f"{row.get('scenario_ms', 0):.0f}", f"{row.get('rule_ms', 0):.0f}", f"{outside:.0f}"]
        for k in kinds:
            totals[k] += row["steps"].get(k, 0)
            counts[k] += row["n"].get(k, 0)
            cells.append(f"{row['steps'].get(k, 0):.0f} ({row['n'].get(k, 0)})")
        floor_ms = (floor or {}).get(name)
        if floor_ms is not None:
            totals["floor"] += floor_ms
        cells.append("" if floor_ms is None else f"{floor_ms:.0f}")
        lines.append("| " + " | ".join(cells) + " |")
    n = len(scenarios)
    lines.append("")
    lines.append(f"{n} scenarios; run {run_ms / 1000:.1f} s; the first scenario started {first_start:.2f} s "
                 f"into the run (browser launch).")
    lines.append(f"Per scenario on average: {totals['scenario'] / n:.0f} ms, of which the rule "
                 f"{totals['rule'] / n:.0f} ms and outside it (context, entry navigation, page set-up, assertions, "
                 f"close) {totals['outside rule'] / n:.0f} ms."
                 + (f" The floor: {totals['floor'] / n:.0f} ms per flow." if totals.get("floor") else ""))
    for k in kinds:
        lines.append(f"- {k}: {counts[k]} steps, {totals[k] / 1000:.1f} s in all, {totals[k] / max(counts[k], 1):.0f} ms each")
    reads = [r for row in scenarios.values() for r in row["reads"]]
    if reads:
        lines.append(f"- checks: {len(reads)} with reads recorded, median {statistics.median(reads):.0f} reads, "
                     f"max {max(reads)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("emit", type=Path)
    parser.add_argument("--floor", type=Path, help="the floor's output, for per-flow comparison")
    args = parser.parse_args(argv)
    print(breakdown(read_events(args.emit), floor_times(args.floor) if args.floor else None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
