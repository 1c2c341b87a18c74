"""A refactor's cost: the same suites on TodoMVC Backbone as published and refactored (issue 37).

The refactored copy renames five ids and a class in the app's HTML, JS and CSS alike
(tests/todomvc_refactor.py). The suites are Playwright's TodoMVC suite as ported (examples/todomvc,
25 specs) and the three hand-written specs of tests/thirdparty/specs/refactor. First one run on
the app as published writes the earlier report; then, interleaved round by round so the machine's
load hits both alike, a run on the app as published and a run on the refactored copy with
`--fingerprints` of that report, each timed wall-clock as the CLI runs. It prints each pair, the
medians and their ratio (issue 37's target: the refactored run within 1.5x), and checks that every
run passed (a refactored run that failed is no measurement of healing).

    scripts/fetch_thirdparty.sh
    .venv/bin/python bench/heal_refactor.py [--rounds 5] [--workers 2] [--sample N] [--out DIR]

`--sample N` walks the first N spec files only (a quick check that the bench works, not a figure).
Run it on a quiet machine: the numbers are wall time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from flowwalk.serve import StaticServer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from todomvc_refactor import original, refactored  # noqa: E402

PACKAGE = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
SUITES = (ROOT / "examples" / "todomvc", ROOT / "tests" / "thirdparty" / "specs" / "refactor")


def _project(work: Path, sample: int | None) -> tuple[Path, list[str]]:
    project = work / "project"
    for suite in SUITES:
        shutil.copytree(suite, project / suite.name)
    files = sorted(p.relative_to(project).as_posix() for p in project.rglob("*.flow.yaml"))
    return project, files[:sample] if sample else [s.name for s in SUITES]


def _run(project: Path, targets: list[str], app: Path, out: Path, workers: int, *extra: str) -> tuple[float, dict]:
    with StaticServer(app) as served:
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "flowwalk", "run", *targets, "--base-url", served.url,
                               "--out", str(out), "--workers", str(workers), *extra],
                              cwd=project, capture_output=True, text=True)
        wall = time.monotonic() - started
    verdict = json.loads((out / "verdict.json").read_text())
    if done.returncode != 0:
        raise SystemExit(f"{out.name}: exit {done.returncode}, {verdict.get('counts')}\n{done.stdout[-2000:]}")
    return wall, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample", type=int, default=None, help="walk only the first N spec files")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if not (PACKAGE / "examples" / "backbone" / "index.html").is_file():
        raise SystemExit("no TodoMVC copy: run scripts/fetch_thirdparty.sh")
    work = args.out or Path(tempfile.mkdtemp(prefix="heal-refactor-"))
    work.mkdir(parents=True, exist_ok=True)
    project, targets = _project(work, args.sample)
    plain, moved = original(PACKAGE, work / "plain"), refactored(PACKAGE, work / "moved")
    earlier = work / "earlier"
    _run(project, targets, plain, earlier, args.workers)
    before: list[float] = []
    after: list[float] = []
    heals = 0
    for n in range(1, args.rounds + 1):
        wall, _ = _run(project, targets, plain, work / f"plain-{n}", args.workers, "--fingerprints", str(earlier))
        before.append(wall)
        wall, verdict = _run(project, targets, moved, work / f"moved-{n}", args.workers, "--fingerprints",
                             str(earlier))
        after.append(wall)
        heals = sum(1 for t in verdict["tests"] for f in t.get("findings") or () if f.get("kind") == "healed")
        print(f"round {n}: as published {before[-1]:.1f} s, refactored {after[-1]:.1f} s ({heals} heals)")
    a, b = statistics.median(before), statistics.median(after)
    print(f"{len(targets) if args.sample else 28} spec(s), {args.workers} worker(s), {args.rounds} round(s): "
          f"median as published {a:.1f} s, refactored {b:.1f} s, ratio {b / a:.2f} (target <= 1.5)")
    print(f"reports under {work}")


if __name__ == "__main__":
    main()
