"""What a stabilized check costs (issue #3, RFC 010): a check that passes at once, measured against
a single read, in the same browser and page, interleaved.

    .venv/bin/python bench/check_cost.py [--rounds 40]

For each expect kind below it times `run_check` with one read (`stable_reads=1`, the floor of
what a check can cost) and with the run's default stabilization, alternating the two, and prints
the medians, the overhead and whether it stays within one read interval over a single read.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

from flowwalk.browser import Browser
from flowwalk.errors import Location
from flowwalk.model import Expect, Stabilize
from flowwalk.serve import StaticServer
from flowwalk.settings import Settings, default_executable
from flowwalk.walk.checks import run_check

PAGE = """<!doctype html><html><head><title>checks</title></head><body>
<h1 id="title">Saved</h1><ul><li>a</li><li>b</li><li>c</li></ul>
<input id="name" value="Ada"><input id="agree" type="checkbox" checked></body></html>"""

CHECKS = {
    "url_contains": dict(kind="url_contains", value="/page.html"),
    "text_contains": dict(kind="text_contains", value="saved", selector="#title"),
    "count": dict(kind="count", selector="li", count=3, op="eq"),
    "visible": dict(kind="visible", selector="#title"),
    "input_value": dict(kind="input_value", selector="#name", value="Ada"),
    "checked": dict(kind="checked", selector="#agree"),
}


def measure(rounds: int) -> dict[str, dict[str, float]]:
    folder = Path(__file__).parent / "out" / "check-cost-site"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "page.html").write_text(PAGE)
    default = Settings().stabilize
    single = replace(default, stable_reads=1)
    results: dict[str, dict[str, float]] = {}
    with StaticServer(folder) as server:
        browser = Browser.launch(Settings(executable=default_executable()))
        try:
            session = browser.new_session(entry_url=f"{server.url}/page.html", allowed_hosts=())
            session.goto(f"{server.url}/page.html", timeout_ms=10_000)
            for name, fields in CHECKS.items():
                expect = Expect(loc=Location("bench", 1, 1), text=name, **fields)  # type: ignore[arg-type]
                one: list[float] = []
                stable: list[float] = []
                reads = 0
                for _ in range(rounds):
                    for settings, into in ((single, one), (default, stable)):
                        t0 = time.perf_counter()
                        result = run_check(session, expect, scope=None, timeout_ms=5000, stabilize=settings)
                        into.append((time.perf_counter() - t0) * 1000)
                        if not result.passed:
                            raise SystemExit(f"{name}: the check did not pass: {result.observed}")
                        if settings is default:
                            reads = result.reads
                results[name] = {
                    "single_read_ms": statistics.median(one),
                    "stabilized_ms": statistics.median(stable),
                    "reads": reads,
                    "interval_ms": default.interval_ms,
                }
            session.close()
        finally:
            browser.close()
    return results


def render(results: dict[str, dict[str, float]], stabilize: Stabilize) -> str:
    lines = [
        f"Default stabilization: {stabilize.stable_reads} consecutive matching reads, "
        f"{stabilize.interval_ms} ms between reads. A check that passes at once may cost at most one "
        "read interval over a single read.",
        "",
        "| expect kind | single read ms | stabilized ms | reads | overhead ms | within one interval |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, r in results.items():
        overhead = r["stabilized_ms"] - r["single_read_ms"]
        ok = "yes" if overhead <= r["interval_ms"] else "**no**"
        lines.append(f"| {name} | {r['single_read_ms']:.1f} | {r['stabilized_ms']:.1f} | {int(r['reads'])} | "
                     f"{overhead:.1f} | {ok} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args(argv)
    results = measure(args.rounds)
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    (out / "check-cost.json").write_text(json.dumps(results, indent=2))
    print(render(results, Settings().stabilize))
    within = all(r["stabilized_ms"] - r["single_read_ms"] <= r["interval_ms"] for r in results.values())
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
