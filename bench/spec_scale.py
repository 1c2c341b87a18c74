"""validate and plan as a suite grows (issue 52 item 3): wall time, CPU and peak memory of
`flowwalk validate` and `flowwalk plan --shard 1/64` on about 10,000 specs, no browser.

    .venv/bin/python bench/spec_scale.py [--copies 240] [--rounds 3]

The suite is copies of the examples' own folders (flows, rule files, sessions with their setups,
projects, and the TodoMVC port with its steps files and folder hooks), each copy in a folder of its
own with its session names made its own, so every copy validates as the original does. Each command
runs as a user runs it, in a subprocess from the suite's folder; CPU is the child's user + system
time. The load average is printed before each round: the figures mean something only on a quiet
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FOLDERS = ("flows", "rules", "sessions", "projects", "todomvc")
OUT = Path(__file__).parent / "out" / "spec-scale"
FLOWWALK = Path(sys.executable).with_name("flowwalk")
SESSION = re.compile(r"\b(saves_session|session):(\s*)(\S+)")


def make_suite(copies: int) -> tuple[Path, int]:
    """`copies` copies of the examples' folders under OUT/suite; the number of spec files."""
    suite = OUT / "suite"
    shutil.rmtree(suite, ignore_errors=True)
    for n in range(copies):
        for name in FOLDERS:
            shutil.copytree(EXAMPLES / name, suite / f"c{n:04d}" / name)
        for path in (suite / f"c{n:04d}").rglob("*.yaml"):
            text = path.read_text()
            if "session" in text:
                path.write_text(SESSION.sub(lambda m, n=n: f"{m[1]}:{m[2]}{m[3]}-c{n}", text))
    specs = sum(1 for p in suite.rglob("*") if p.name.endswith((".flow.yaml", ".flow.json", ".rules.yaml")))
    return suite, specs


def timed(args: list[str], cwd: Path) -> dict[str, float]:
    """One command: wall seconds, the child's CPU seconds and its peak RSS in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": after.ru_maxrss / 1024}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    suite, specs = make_suite(args.copies)
    commands = {"validate": [str(FLOWWALK), "validate", "."],
                "plan --shard 1/64": [str(FLOWWALK), "plan", ".", "--shard", "1/64"]}
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    loads = []
    for _ in range(args.rounds):
        loads.append(os.getloadavg()[0])
        for name, command in commands.items():
            rounds[name].append(timed(command, suite))
    result = {"specs": specs, "copies": args.copies, "load_1min_at_each_round": loads,
              "commands": {name: {key: statistics.median(r[key] for r in runs) for key in runs[0]}
                           for name, runs in rounds.items()}}
    together = sum(c["cpu_s"] for c in result["commands"].values())
    result["validate_plus_plan_cpu_s"] = together
    print(json.dumps(result, indent=2))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"spec-scale-{time.strftime('%Y%m%dT%H%M%S')}.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
