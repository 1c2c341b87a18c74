"""Where flowwalk's wall time goes, next to the floor's: pyinstrument over every thread that matters.

flowwalk walks scenarios in worker threads (even with --workers 1) and pyinstrument follows only
the thread it was started in, so this script starts one profiler in the main thread (start-up,
loading, planning, report building) and one in each worker thread (the walk itself), by wrapping
`threading.Thread.run` for threads whose name starts with a given prefix. The same is done for the
floor's worker threads. Profiles are written as text (and HTML) into bench/out/profile/.

    .venv/bin/pip install pyinstrument
    .venv/bin/python bench/profile.py                       # all 40 flows, workers 1, both
    .venv/bin/python bench/profile.py --flows team-1,login-1 --impl flowwalk

It serves the example site itself, like bench/run.py. Profiling slows Python down a little;
read the split of the time, not the totals.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out" / "profile"
sys.path.insert(0, str(ROOT / "src"))


def _profile_threads(prefix: str, sink: list[Any]) -> Callable[[], None]:
    """Profile every thread whose name starts with `prefix`; returns a function that undoes it."""
    from pyinstrument import Profiler

    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        if not self.name.startswith(prefix):
            original(self)
            return
        profiler = Profiler(interval=0.0005)
        profiler.start()
        try:
            original(self)
        finally:
            profiler.stop()
            sink.append((self.name, profiler))

    threading.Thread.run = run  # type: ignore[method-assign]
    return lambda: setattr(threading.Thread, "run", original)


def _write(name: str, profiler: Any) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.txt").write_text(profiler.output_text(unicode=True, color=False, show_all=False))
    (OUT / f"{name}.html").write_text(profiler.output_html())


def profile(impl: str, argv: list[str], thread_prefix: str) -> float:
    from pyinstrument import Profiler

    workers: list[Any] = []
    undo = _profile_threads(thread_prefix, workers)
    main = Profiler(interval=0.0005)
    saved_argv = sys.argv
    started = time.perf_counter()
    main.start()
    try:
        if impl == "flowwalk":
            from flowwalk.cli import main as cli

            sys.argv = ["flowwalk", *argv]
            try:
                cli.main(args=argv, prog_name="flowwalk", standalone_mode=False)
            except SystemExit:
                pass
        else:
            sys.argv = [str(BENCH / "floor.py"), *argv]
            try:
                runpy.run_path(str(BENCH / "floor.py"), run_name="__main__")
            except SystemExit:
                pass
    finally:
        main.stop()
        sys.argv = saved_argv
        undo()
    wall = time.perf_counter() - started
    _write(f"{impl}-main", main)
    for name, profiler in workers:
        _write(f"{impl}-{name}", profiler)
    return wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", choices=("flowwalk", "floor", "both"), default="both")
    parser.add_argument("--flows", default="", help="comma-separated slugs [all]")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(BENCH))
    from run import FLOWS, FLOWWALK_CONFIG, build_site, demo_password

    from flowwalk.serve import StaticServer
    from flowwalk.settings import default_executable

    slugs = [s for s in args.flows.split(",") if s]
    os.environ["DEMO_PASSWORD"] = demo_password()
    with StaticServer(build_site()) as site:
        if args.impl in ("flowwalk", "both"):
            paths = [os.path.relpath(FLOWS / f"{s}.flow.yaml", ROOT) for s in slugs] or [os.path.relpath(FLOWS, ROOT)]
            os.chdir(ROOT)
            wall = profile("flowwalk", ["run", *paths, "--base-url", site.url, "--workers", str(args.workers),
                                        "--out", "bench/out/profile/flowwalk-report", "--secret", "DEMO_PASSWORD",
                                        "--config", os.path.relpath(FLOWWALK_CONFIG, ROOT)],
                           "flowwalk-worker")
            print(f"profile: flowwalk {wall:.2f} s")
        if args.impl in ("floor", "both"):
            floor_args = ["--base-url", site.url, "--workers", str(args.workers), "--chromium", default_executable()]
            for slug in slugs:
                floor_args += ["--only", slug]
            wall = profile("floor", floor_args, "floor-")
            print(f"profile: floor {wall:.2f} s")
    print(f"profile: text and HTML in {os.path.relpath(OUT, ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
