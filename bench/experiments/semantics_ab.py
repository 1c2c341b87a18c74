"""What the two faster semantics left open by issue 11 would buy: an interleaved A/B.

    .venv/bin/python bench/experiments/semantics_ab.py                  # 5 rounds at workers 1 and 2, failing 2
    .venv/bin/python bench/experiments/semantics_ab.py --rounds 1 --failing-rounds 0   # a quick look

Four forms of flowwalk, each from a copy of the working tree's `src/` (bench/out/semantics-src):

- `flowwalk`: as it is;
- `dcl`: `goto` waits for `domcontentloaded` instead of `load`;
- `nocount`: an act with a one-alternative selector acts at once, without counting its matches
  (and so without the `matches` detail and the healing fingerprint);
- `both`.

They run interleaved with Playwright Test and the floor, measured and checked as bench/run.py
measures and checks them (every run must pass, or the failing corpus fail exactly where broken).
The copy is patched by exact text; a patch whose anchor has moved stops the script with the file
that changed. Nothing here touches the product: the switches exist only in the copy.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any, Sequence

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402  (bench/run.py: the measurement, the checks, the site)

COPY = bench.OUT / "semantics-src"

#: (file under src/, the exact text, what replaces it): the switches, read from the environment
PATCHES = [
    ("flowwalk/browser/session.py",
     '    def goto(self, url: str, timeout_ms: int, wait_until: str = "load") -> None:\n',
     '    def goto(self, url: str, timeout_ms: int, wait_until: str = "load") -> None:\n'
     '        if __import__("os").environ.get("SEMANTICS_DCL"):\n'
     '            wait_until = "domcontentloaded"\n'),
    ("flowwalk/walk/actions.py",
     "    if selector:\n"
     "        waited_ms = state.budget.cap_ms(TARGET_GRACE_MS",
     '    if selector and __import__("os").environ.get("SEMANTICS_NOCOUNT"):\n'
     "        from flowwalk.browser.locate import scoped, split_pipe\n"
     "        from flowwalk.browser.records import Element\n"
     "        whole = scoped(selector, state.scope)\n"
     "        if len(split_pipe(whole)) <= 1:\n"
     '            result.detail["selector"] = whole\n'
     "            return Element(whole)\n"
     "    if selector:\n"
     "        waited_ms = state.budget.cap_ms(TARGET_GRACE_MS"),
]

#: form -> the switches it turns on (None: flowwalk as it is, from the working tree)
FORMS: dict[str, tuple[str, ...] | None] = {
    "flowwalk": None, "dcl": ("SEMANTICS_DCL",), "nocount": ("SEMANTICS_NOCOUNT",),
    "both": ("SEMANTICS_DCL", "SEMANTICS_NOCOUNT"),
}


def patched_copy() -> str:
    """bench/out/semantics-src: the working tree's src/ with the switches in; its path."""
    shutil.rmtree(COPY, ignore_errors=True)
    shutil.copytree(bench.ROOT / "src", COPY, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, anchor, replacement in PATCHES:
        path = COPY / rel
        text = path.read_text()
        if text.count(anchor) != 1:
            raise SystemExit(f"semantics_ab: src/{rel} changed: its patch's anchor is not found exactly once")
        path.write_text(text.replace(anchor, replacement))
    return str(COPY)


class Form(bench.Flowwalk):
    """flowwalk with some switches on (a copy of src/ ahead of the install), under its own name."""

    def __init__(self, form: str, switches: Sequence[str] | None, src: str):
        super().__init__()
        self.form, self.switches, self.src = form, switches, src

    def command(self, env: bench.Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        cmd, cwd, full = super().command(env, workers, slugs, out_dir, paths)
        if self.switches is not None:
            full = {**full, "PYTHONPATH": self.src, **{name: "1" for name in self.switches}}
        return cmd, cwd, full


class FailingForm(Form, bench.FailingFlowwalk):
    """The same, on the failing corpus (checked as bench/run.py checks it)."""


def median_ratio(runs: Sequence[bench.Measurement], peers: Sequence[bench.Measurement]) -> float:
    """The median over rounds of wall(run) / wall(peer in the same round)."""
    return statistics.median(a.wall_s / b.wall_s for a, b in zip(runs, peers))


def rounds_of(forms: Sequence[tuple[str, bench.Impl]], env: bench.Env, workers: Sequence[int], rounds: int,
              tag: str) -> dict[tuple[str, int], list[bench.Measurement]]:
    """Run every form once a round, interleaved, for each worker count."""
    runs: dict[tuple[str, int], list[bench.Measurement]] = {}
    for count in workers:
        for round_no in range(1, rounds + 1):
            for name, impl in forms:
                result = bench.run_one(impl, env, count, None, f"{tag}{name} w{count} round {round_no}", 40,
                                       tag=f"semantics-{tag}{name}-w{count}")
                runs.setdefault((name, count), []).append(result)
    return runs


def table(runs: dict[tuple[str, int], list[bench.Measurement]], names: Sequence[str], workers: Sequence[int],
          floor: bool) -> list[str]:
    head = "| form | workers | wall s (median) | CPU s | / Playwright Test | " + ("/ floor | " if floor else "")
    lines = [head + "all valid |", "|---" * (head.count("|")) + "|"]
    for count in workers:
        pwt = runs[("playwright-test", count)]
        for name in names:
            rs = runs[(name, count)]
            cells = [name, str(count), f"{statistics.median(r.wall_s for r in rs):.2f}",
                     f"{statistics.median(r.cpu_s for r in rs):.2f}", f"{median_ratio(rs, pwt):.3f}"]
            if floor:
                cells.append(f"{median_ratio(rs, runs[('floor', count)]):.3f}")
            cells.append("yes" if all(r.ok for r in rs) else "NO")
            lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds of the 40 flows [5]")
    parser.add_argument("--workers", type=bench.worker_counts_arg, default="1,2", help="worker counts [1,2]")
    parser.add_argument("--failing-rounds", type=int, default=2,
                        help="rounds of the failing corpus (flowwalk, both, Playwright Test) [2]; 0 skips it")
    args = parser.parse_args(argv)
    workers: list[int] = args.workers

    from flowwalk.serve import StaticServer
    from flowwalk.settings import default_executable

    bench.ensure_npm_deps()
    src = patched_copy()
    forms: list[tuple[str, bench.Impl]] = [(name, Form(name, switches, src)) for name, switches in FORMS.items()]
    peers = [("playwright-test", bench.IMPLS["playwright-test"]), ("floor", bench.IMPLS["floor"])]
    record: dict[str, Any] = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                              "argv": sys.argv, "machine": bench.machine_info(default_executable())}
    with StaticServer(bench.build_site()) as site:
        env = bench.Env(base_url=site.url, chromium=default_executable(), demo_password=bench.demo_password())
        runs = rounds_of([*forms, *peers], env, workers, args.rounds, "")
        lines = table(runs, [*FORMS, "playwright-test", "floor"], workers, floor=True)
        failing: dict[tuple[str, int], list[bench.Measurement]] = {}
        if args.failing_rounds:
            bench.FAILING["playwright-test"].slugs = None  # type: ignore[attr-defined]
            failing_forms: list[tuple[str, bench.Impl]] = [
                ("flowwalk", FailingForm("flowwalk", None, src)),
                ("both", FailingForm("both", FORMS["both"], src)),
                ("playwright-test", bench.FAILING["playwright-test"])]
            failing = rounds_of(failing_forms, env, workers, args.failing_rounds, "failing-")
            lines += ["", "failing corpus:", *table(failing, [n for n, _ in failing_forms], workers, floor=False)]
    record["runs"] = {f"{name} w{count}": [dataclasses.asdict(r) for r in rs] for (name, count), rs in runs.items()}
    record["failing"] = {f"{name} w{count}": [dataclasses.asdict(r) for r in rs]
                         for (name, count), rs in failing.items()}
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = bench.OUT / f"semantics-{stamp}.json"
    out.write_text(json.dumps(record, indent=1))
    print("\n".join(lines))
    print(f"raw: {out.relative_to(bench.ROOT)}")
    valid = all(r.ok for rs in [*runs.values(), *failing.values()] for r in rs)
    return 0 if valid else 1


if __name__ == "__main__":
    raise SystemExit(main())
