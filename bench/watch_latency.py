"""From a save to its verdict under `flowwalk run --watch` (issue 49): how much longer than the
flow's own walk a person waits after saving a one-flow change.

    .venv/bin/python bench/watch_latency.py [--flow examples/flows/home.flow.yaml] [--rounds 10]
                                            [--quiet-below 0.5]

One flow spec is copied into a folder of its own, and `flowwalk run FOLDER --watch --serve
examples/site` is started as a user starts it. Once the first walk is over, each round saves an
edit to the spec (a comment line at its end, changed each round, written as one write the way an
editor saves) and times, on the watch's own console, the save to the `verdict:` line that follows.
The flow's own walk is its `duration_ms` in the report the watch rewrote. The gap between the two
is what the watch adds: noticing the save (a poll every `POLL_S`, then `SETTLE_S` of stillness),
loading and planning again, starting a context, and writing the reports. The target is a gap of
at most 1.5 s.

The load average is printed at the start and the end; with `--quiet-below`, the bench waits (at
most 5 minutes) for a quieter machine and refuses with exit 2 when it does not come, so a figure is
never taken on a loaded machine by mistake.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).parent / "out" / "watch-latency"
FLOWWALK = Path(sys.executable).with_name("flowwalk")
TARGET_GAP_S = 1.5
#: how long one walk (or the first one, with the browser's start) may take before the bench gives up
LINE_TIMEOUT_S = 120.0
VERDICT = ("out", "verdict:")
WATCHING = ("err", "flowwalk: watching")


def load() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def wait_for_quiet(below: float, limit_s: float = 300.0) -> bool:
    end = time.monotonic() + limit_s
    while load() >= below:
        if time.monotonic() >= end:
            return False
        time.sleep(5)
    return True


class Console:
    """The watch's stdout and stderr, each line with the monotonic time it arrived."""

    def __init__(self, process: subprocess.Popen[str]):
        self.lines: queue.Queue[tuple[float, str, str]] = queue.Queue()
        assert process.stdout is not None and process.stderr is not None
        for name, stream in (("out", process.stdout), ("err", process.stderr)):
            threading.Thread(target=self._read, args=(name, stream), daemon=True).start()
        self.seen: list[str] = []

    def _read(self, name: str, stream: IO[str]) -> None:
        for line in stream:
            self.lines.put((time.monotonic(), name, line.rstrip("\n")))

    def until(self, *wanted: tuple[str, str]) -> dict[tuple[str, str], float]:
        """Each (stream, line start) of `wanted` with the time its first line arrived, once all have
        (stdout and stderr are read apart, so their order is not kept)."""
        end = time.monotonic() + LINE_TIMEOUT_S
        found: dict[tuple[str, str], float] = {}
        while len(found) < len(wanted):
            try:
                at, name, line = self.lines.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                raise SystemExit(f"watch_latency: no {wanted} lines in {LINE_TIMEOUT_S:.0f} s; the watch said:\n"
                                 + "\n".join(self.seen[-20:])) from None
            self.seen.append(line)
            for key in wanted:
                if key not in found and name == key[0] and line.startswith(key[1]):
                    found[key] = at
        return found


def walked_ms(report: Path) -> float:
    verdict = json.loads((report / "verdict.json").read_text())
    (test,) = verdict["tests"]
    if test["status"] != "passed":
        raise SystemExit(f"watch_latency: the flow did not pass ({test['status']}); see {report}/summary.md")
    return float(test["duration_ms"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flow", type=Path, default=ROOT / "examples" / "flows" / "home.flow.yaml",
                        help="the flow spec to save again and again (it must pass on examples/site)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--quiet-below", type=float, default=0.0, metavar="LOAD",
                        help="start only once the 1-minute load average is below LOAD; refuse (exit 2) "
                             "after 5 minutes [start at once]")
    args = parser.parse_args()
    if args.quiet_below and not wait_for_quiet(args.quiet_below):
        print(f"watch_latency: the load average stayed at {load():.2f}, over {args.quiet_below}; "
              "no figure taken", file=sys.stderr)
        return 2
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    # outside the checkout: a flowwalk.yaml above the spec (bench/'s own) would be its configuration
    suite = Path(tempfile.mkdtemp(prefix="flowwalk-watch-"))
    spec = suite / args.flow.name
    text = args.flow.read_text()
    spec.write_text(text)
    report = OUT / "report"
    start_load = load()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "DEMO_PASSWORD": os.environ.get("DEMO_PASSWORD", "correct-horse-battery")}
    process = subprocess.Popen(
        [str(FLOWWALK), "run", ".", "--watch", "--serve", str(ROOT / "examples" / "site"), "--out", str(report),
         "--var", "DEMO_USER=ada@example.com", "--secret", "DEMO_PASSWORD"],
        cwd=suite, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rows: list[tuple[float, float]] = []
    try:
        console = Console(process)
        console.until(WATCHING)
        for n in range(args.rounds):
            time.sleep(0.5)
            saved = time.monotonic()
            spec.write_text(f"{text}# saved {n}\n")
            shown = console.until(VERDICT, WATCHING)[VERDICT]   # WATCHING: the reports are written
            rows.append((shown - saved, walked_ms(report) / 1000))
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait()
        shutil.rmtree(suite, ignore_errors=True)
    end_load = load()
    print(f"flow: {args.flow.relative_to(ROOT) if args.flow.is_relative_to(ROOT) else args.flow}; "
          f"{args.rounds} saves; load {start_load:.2f} at the start, {end_load:.2f} at the end")
    print("| save | save to verdict s | the flow's walk s | gap s |")
    print("|---|---|---|---|")
    for n, (total, walk) in enumerate(rows, 1):
        print(f"| {n} | {total:.3f} | {walk:.3f} | {total - walk:.3f} |")
    gaps = [total - walk for total, walk in rows]
    print(f"gap: median {statistics.median(gaps):.3f} s, max {max(gaps):.3f} s; target at most {TARGET_GAP_S} s: "
          f"{'met' if max(gaps) <= TARGET_GAP_S else 'NOT met'}")
    if code != 5:
        print(f"watch_latency: the watch ended with exit {code}, not 5 (cancelled)", file=sys.stderr)
        return 1
    return 0 if max(gaps) <= TARGET_GAP_S else 1


if __name__ == "__main__":
    sys.exit(main())
