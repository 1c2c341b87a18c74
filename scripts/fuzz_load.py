#!/usr/bin/env python3
"""The long fuzz of loading: >= 10,000 generated inputs per target, with figures for the docs.

Runs the strategies and the property of `tests/reliability/fuzzkit.py` (the short run in the test
suite uses the same ones) without stopping at the first violation: every violation is counted,
classified against the known bugs, and its input kept in `--failures` with the reason beside it.

    nice .venv/bin/python scripts/fuzz_load.py                      # 10,000 per target
    .venv/bin/python scripts/fuzz_load.py --examples 500 --targets robot --json out.json

Prints one Markdown table (the one in docs/reliability.md) and exits 1 when a violation of a kind
not already known was found.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import hypothesis  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

import fuzzkit  # noqa: E402


BATCH = 1000


def fuzz_target(target: str, examples: int, work: Path, failures: Path, seed: int | None) -> dict[str, Any]:
    strategy, check = fuzzkit.TARGETS[target]
    outcomes: Counter[str] = Counter()
    known: Counter[str] = Counter()
    new: list[str] = []
    cpu: list[float] = []
    wall: list[float] = []
    peaks: list[int] = []
    sizes: list[int] = []
    kept: set[str] = set()

    def one(example: tuple[str, bytes]) -> None:
        name, data = example
        sizes.append(len(data))
        try:
            result = check(work / name, data)
        except fuzzkit.PropertyViolation as violation:
            kind = fuzzkit.classify(violation)
            if kind is not None:
                known[kind] += 1
            else:
                new.append(str(violation)[:300])
            outcomes["violation"] += 1
            key = kind or str(violation)[:80]
            if key not in kept:  # keep a few examples of each kind, not thousands
                kept.add(key)
                fuzzkit.save_failure(failures, target, name, data, violation)
            return
        outcomes[result.outcome] += 1
        cpu.append(result.cpu_s)
        wall.append(result.wall_s)
        peaks.append(result.peak_bytes)

    started = time.monotonic()
    # batches of at most BATCH examples, each with its own seed: hypothesis keeps a tree of every
    # choice it made in a run (about 300 objects per example here), which slows a 10,000-example
    # run down and grows it past a gigabyte; fresh runs keep it small
    done = 0
    batch = 0
    while done < examples:
        size = min(BATCH, examples - done)
        run = settings(max_examples=size, deadline=None, database=None, phases=[Phase.generate],
                       suppress_health_check=list(HealthCheck))(given(strategy)(one))
        hypothesis.seed((seed or 0) * 1000 + batch)(run)()
        done += size
        batch += 1
    elapsed = time.monotonic() - started
    cpu_sorted = sorted(cpu) or [0.0]
    return {
        "target": target,
        "examples": sum(outcomes.values()),
        "accepted": outcomes["accepted"],
        "refused": outcomes["refused"],
        "violations": outcomes["violation"],
        "known_violations": dict(known),
        "new_violations": new,
        "new_violation_count": len(new),
        "cpu_s_median": round(statistics.median(cpu_sorted), 4),
        "cpu_s_p99": round(cpu_sorted[int(0.99 * (len(cpu_sorted) - 1))], 4),
        "cpu_s_max": round(cpu_sorted[-1], 3),
        "wall_s_max": round(max(wall or [0.0]), 3),
        "peak_mib_max": round(max(peaks or [0]) / 2**20, 2),
        "input_bytes_max": max(sizes or [0]),
        "elapsed_s": round(elapsed, 1),
    }


def table(rows: list[dict[str, Any]]) -> str:
    out = ["| target | examples | accepted | refused | violations (known / new) | CPU per load median / p99 / max | "
           "wall max | traced peak max | largest input |",
           "|---|---:|---:|---:|---|---|---:|---:|---:|"]
    for r in rows:
        known = ", ".join(f"{k} {v}" for k, v in sorted(r["known_violations"].items())) or "none"
        out.append(f"| {r['target']} | {r['examples']:,} | {r['accepted']:,} | {r['refused']:,} | "
                   f"{r['violations']:,} ({known} / {r['new_violation_count']} new) | "
                   f"{r['cpu_s_median'] * 1000:.1f} / {r['cpu_s_p99'] * 1000:.0f} / {r['cpu_s_max'] * 1000:.0f} ms | "
                   f"{r['wall_s_max']:.2f} s | {r['peak_mib_max']:.1f} MiB | {r['input_bytes_max']:,} B |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=10_000, help="generated inputs per target [10000]")
    parser.add_argument("--targets", nargs="+", default=list(fuzzkit.TARGETS), choices=list(fuzzkit.TARGETS))
    parser.add_argument("--failures", type=Path, default=Path(tempfile.gettempdir()) / "flowwalk-fuzz-failures",
                        help="where inputs that broke the property are kept")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the batches [0]: a run is repeatable")
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory(prefix="flowwalk-fuzz-") as tmp:
        for target in args.targets:
            work = Path(tmp) / target
            work.mkdir()
            row = fuzz_target(target, args.examples, work, args.failures, args.seed)
            rows.append(row)
            print(f"{target}: {row['examples']:,} examples in {row['elapsed_s']} s, "
                  f"{row['violations']} violations ({row['new_violation_count']} new)", file=sys.stderr, flush=True)
            for text in row["new_violations"][:5]:
                print(f"  new: {text}", file=sys.stderr)
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "limits": {
            "cpu_s": fuzzkit.MAX_CPU_S, "peak_bytes": fuzzkit.MAX_PEAK_BYTES, "hang_s": fuzzkit.HANG_S}}, indent=2))
    return 1 if any(r["new_violation_count"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
