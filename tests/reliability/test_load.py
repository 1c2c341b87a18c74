"""Load: 1,000 scenarios in one run with 2 workers, against a 100-scenario run of the same kind.

Runs only with FLOWWALK_LOAD_TEST=1 (it takes several minutes on 2 cores):

    FLOWWALK_LOAD_TEST=1 .venv/bin/pytest -s tests/reliability/test_load.py

While the real CLI runs, a sampler reads /proc every 0.25 s for the resident memory of the whole
process tree (flowwalk, Playwright's drivers, both Chromiums and their renderers), and reads
emit.jsonl every 0.5 s: every complete line must parse, the file must grow as the run goes. Checked:
the run completes with every test passed and every artifact written; the 1,000-scenario run's peak
tree memory is within 20% of the 100-scenario run's. The figures are printed for docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from runkit import ARTIFACTS, SITE, Flowwalk, records, tree_rss_kb, verdict

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(os.environ.get("FLOWWALK_LOAD_TEST") != "1", reason="set FLOWWALK_LOAD_TEST=1"),
              pytest.mark.timeout(3600)]

KINDS = (
    ('/walker/basic.html', '  - {type: act, action: click, selector: "#bump"}\n'
                           '  - {type: expect, kind: text_contains, selector: "#counter", value: "1"}\n'),
    ('/walker/basic.html', '  - {type: act, action: fill, selector: "#name", value: "n{i}"}\n'
                           '  - {type: act, action: click, selector: "#save"}\n'
                           '  - {type: expect, kind: text_contains, selector: "#status", value: "Saved n{i}"}\n'),
    ('/hostile/index.html', '  - {type: expect, kind: text_contains, selector: "#arrived", value: Arrived}\n'),
)


def generate(folder: Path, n: int) -> Path:
    """`n` small flows over the test site, three kinds in turn, in ten folders."""
    for i in range(n):
        url, steps = KINDS[i % len(KINDS)]
        sub = folder / f"g{i % 10}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{i:04d}.flow.yaml").write_text(
            f'spec_version: "1"\nname: generated {i:04d}\nurl: {url}\nsteps:\n' + steps.replace("{i}", str(i)))
    return folder


class Sampler(threading.Thread):
    """Tree RSS every 0.25 s; emit.jsonl parsed every 0.5 s (complete lines only) while the run goes."""

    def __init__(self, pid: int, emit: Path):
        super().__init__(daemon=True)
        self.pid, self.emit = pid, emit
        self.stop = threading.Event()
        self.peak_kb = 0
        self.rss: list[int] = []
        self.reads = 0
        self.lines_seen: list[int] = []
        self.bad_lines: list[str] = []

    def run(self) -> None:
        last_read = 0.0
        while not self.stop.is_set():
            kb = tree_rss_kb(self.pid)
            if kb:
                self.rss.append(kb)
                self.peak_kb = max(self.peak_kb, kb)
            now = time.monotonic()
            if now - last_read >= 0.5 and self.emit.is_file():
                last_read = now
                self.read_emit()
            self.stop.wait(0.25)

    def read_emit(self) -> None:
        data = self.emit.read_bytes()
        complete = data[: data.rfind(b"\n") + 1]
        count = 0
        for line in complete.split(b"\n"):
            if not line:
                continue
            try:
                json.loads(line)
                count += 1
            except ValueError:
                self.bad_lines.append(line[:200].decode(errors="replace"))
        self.reads += 1
        self.lines_seen.append(count)


def load_run(tmp_path: Path, n: int) -> dict[str, Any]:
    flows = generate(tmp_path / f"flows{n}", n)
    out = tmp_path / f"report{n}"
    run = Flowwalk(["run", str(flows), "--serve", str(SITE), "--out", str(out), "--workers", "2",
                    "--run-timeout", "3000"], logs=tmp_path / f"logs{n}")
    sampler = Sampler(run.pid, out / "emit.jsonl")
    sampler.start()
    try:
        done = run.finish(timeout=3000)
    finally:
        sampler.stop.set()
        sampler.join()
        run.kill_tree()
    assert not done.timed_out and done.returncode == 0, done.output[-3000:]
    result = verdict(out)
    assert result["counts"]["total"] == n and result["counts"]["passed"] == n
    for name in ARTIFACTS:
        assert (out / name).is_file(), name
    recs = records(out)
    growing = sum(1 for a, b in zip(sampler.lines_seen, sampler.lines_seen[1:]) if b > a)
    return {"n": n, "wall_s": done.wall_s, "peak_mib": sampler.peak_kb / 1024, "samples": len(sampler.rss),
            "reads": sampler.reads, "bad_lines": sampler.bad_lines, "growing_reads": growing,
            "records": len(recs), "emit_bytes": (out / "emit.jsonl").stat().st_size,
            "report_html_bytes": (out / "report.html").stat().st_size,
            "median_mib": sorted(sampler.rss)[len(sampler.rss) // 2] / 1024 if sampler.rss else 0}


def test_1000_scenarios_with_2_workers_complete_in_bounded_memory(tmp_path: Path) -> None:
    small = load_run(tmp_path, 100)
    large = load_run(tmp_path, 1000)
    for run in (small, large):
        print(f"\nFIGURE load {run['n']}: {run['wall_s']:.0f} s, peak tree RSS {run['peak_mib']:.0f} MiB "
              f"(median {run['median_mib']:.0f} MiB, {run['samples']} samples), emit.jsonl read {run['reads']} "
              f"times while running ({run['growing_reads']} reads saw it grow, {len(run['bad_lines'])} bad lines), "
              f"{run['records']} records, {run['emit_bytes']:,} B, report.html {run['report_html_bytes']:,} B")
    for run in (small, large):
        assert run["bad_lines"] == [], run["bad_lines"][:3]
        assert run["reads"] >= 5 and run["growing_reads"] >= 3, "emit.jsonl is written as the run goes"
    ratio = large["peak_mib"] / small["peak_mib"]
    print(f"FIGURE load ratio: peak 1,000 / peak 100 = {ratio:.3f}")
    assert ratio <= 1.2, f"1,000 scenarios peaked at {ratio:.2f}x the memory of 100"
