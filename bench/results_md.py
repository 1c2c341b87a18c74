"""Turns the raw numbers of one benchmark run (bench/out/bench-*.json) into bench/RESULTS.md.

Kept apart from run.py so that a results file can be re-rendered from its JSON:

    .venv/bin/python bench/results_md.py bench/out/bench-<time>.json > bench/RESULTS.md
"""

from __future__ import annotations

import json
import re
import shlex
import statistics
import sys
from pathlib import Path
from typing import Any, Sequence

NAMES = {"flowwalk": "flowwalk", "playwright-test": "Playwright Test", "floor": "floor (bare Python Playwright)",
         "flowwalk-rules": "flowwalk, the flows as a rule file (two reads)"}


#: the groups of a bench-*.json whose every run is checked: one failing run invalidates the comparison
CHECKED_GROUPS = ("runs", "first_result", "failing", "defaults", "scaling", "validate")


def _round_loads(runs: list[dict[str, Any]], workers: str) -> list[str]:
    """The 1-minute load average at the start and end of each run of a workers block, round by round."""
    by_round: dict[str, list[str]] = {}
    for r in runs:
        label = str(r.get("label", ""))
        if not label.startswith(f"w{workers} round ") or not r.get("loadavg_1m"):
            continue
        start = r.get("loadavg_start_1m")
        by_round.setdefault(label.rsplit(" ", 1)[-1], []).append(
            f"{NAMES[r['impl']].split(' (')[0]} {start:.2f}→{r['loadavg_1m']:.2f}" if start
            else f"{NAMES[r['impl']].split(' (')[0]} →{r['loadavg_1m']:.2f}")
    return [f"- load average (1 min) at each run's start→end, round {n}: {'; '.join(v)}" for n, v in by_round.items()]


def failed_runs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The records of `data` (a bench-*.json) whose run failed its checks."""
    return [r for group in CHECKED_GROUPS for r in data.get(group, []) if not r["ok"]]


def _range(stats: dict[str, float], fmt: str = "{:.2f}") -> str:
    if not stats or "median" not in stats:
        return "n/a"
    return f"{fmt.format(stats['median'])} ({fmt.format(stats['min'])}–{fmt.format(stats['max'])})"


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _command(run: dict[str, Any], root_hint: str = "") -> str:
    words = [re.sub(r"http://127\.0\.0\.1:\d+", "http://127.0.0.1:$PORT", w) for w in run["command"]]
    words = [re.sub(r"^/.*/\.venv/bin/", ".venv/bin/", w) for w in words]
    words = [re.sub(r"^/.*/bench/pwtest/", "", w) for w in words]
    words = [re.sub(r"^/.*/bench/", "bench/", w) for w in words]
    return shlex.join(words)


def _ratio_label(name: str) -> str:
    return name.replace("playwright-test", "Playwright Test").replace("flowwalk-rules", "rule file")


def _block_table(heading: str, block: dict[str, Any], names: Sequence[str]) -> list[str]:
    """One worker count's medians per implementation and their ratios, as a table under `heading`."""
    lines = [f"{heading}: medians (min–max) over {block[names[0]]['rounds']} rounds", "",
             "| | wall s | CPU s | peak RSS MB | peak PSS MB |", "|---|---|---|---|---|"]
    for name in names:
        row = block[name]
        lines.append(f"| {NAMES[name]} | {_range(row['wall_s'])} | {_range(row['cpu_s'])} | "
                     f"{_range(row['peak_rss_mb'], '{:.0f}')} | {_range(row.get('peak_pss_mb', {}), '{:.0f}')} |")
    for ratio_name, ratio in block.get("ratios", {}).items():
        lines.append(f"| ratio {_ratio_label(ratio_name)} | {_range(ratio['wall_s'])} | {_range(ratio['cpu_s'])} | "
                     f"{_range(ratio['peak_rss_mb'])} | {_range(ratio.get('peak_pss_mb', {}))} |")
    lines.append("")
    return lines


def _mark(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "**not met**")


def render_results(data: dict[str, Any], raw_path: str = "") -> str:
    machine = data["machine"]
    impls: list[str] = data["impls"]
    lines: list[str] = ["# flowwalk benchmark: flowwalk vs Playwright Test vs the bare floor", ""]
    sys.path.insert(0, str(Path(__file__).resolve().parent))   # make_corpus, for the failing corpus's breaks
    status = "valid: every flow passed in every run" if data.get("valid") else \
        "**INVALID**: some runs had failing flows (listed below); the figures do not compare like with like"
    lines += [
        f"Measured {data['started_at']} to {data.get('finished_at', '?')} (UTC), flowwalk {machine['flowwalk']} "
        f"at commit {machine['commit']}, by `bench/run.py` (see bench/README.md). Status: {status}.",
        "",
        f"The machine is a shared virtual machine with {machine['nproc']} cores, whose speed varies from hour to "
        f"hour (load average {' '.join(machine['loadavg_start'])} at the start, "
        f"{' '.join(machine.get('loadavg_end', ['?']))} at the end; see the notes for what else ran). "
        f"The implementations were run "
        f"interleaved, round by round, so that a busy period falls on all three alike; read the medians and the "
        f"per-round ratios, not single runs.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPUs (nproc) | {machine['nproc']} ({machine['cpu_model']}) |",
        f"| memory | {machine['memory_gb']} GB |",
        f"| kernel | {machine['kernel']} |",
        f"| Chromium (all three) | `{machine['chromium']}`: {machine['chromium_version']} |",
        f"| Python / Playwright for Python | {machine['python']} / {machine['playwright_python']} |",
        f"| Node / @playwright/test | {machine['node']} / {machine['playwright_test']} |",
        "",
        "## What was measured",
        "",
        f"{data['corpus']} flows (bench/flows, generated with bench/pwtest/tests and bench/floor_flows.py by "
        f"bench/make_corpus.py) against the example site served once by flowwalk's StaticServer on 127.0.0.1. "
        f"Each implementation launches the same Chromium with the same flags, one browser per worker and a "
        f"fresh context per flow, answers GA4 hits locally with 204, and fails a flow on its first failed check "
        f"or on a console error. Wall time runs from just before the process starts to its exit; CPU is user + "
        f"sys of the whole process tree; peak memory is the tree's RSS and PSS summed over its processes (Python "
        f"or Node, the Playwright driver, every Chromium process), sampled every 50 ms; PSS counts the pages the "
        f"processes share (the Chromium binary every renderer maps) once, RSS once per process. One discarded warm-up run "
        f"of each came first.",
        "",
        "Commands (the port is the one the harness's server got"
        + ("; flowwalk ran from `git archive " + machine["commit"] + " src` unpacked under bench/out/snapshot/, "
           "first on PYTHONPATH" if machine["commit"] != "working tree" else "") + "):",
        "",
    ]
    seen_impl: set[str] = set()
    for run in data["runs"]:
        if run["impl"] not in seen_impl:
            seen_impl.add(run["impl"])
            where = " (in bench/pwtest)" if run["impl"] == "playwright-test" else ""
            lines.append(f"- {NAMES[run['impl']]}{where}: `{_command(run)}`")
    lines.append("")

    loads = [r.get("loadavg_1m") for r in data["runs"] if r.get("loadavg_1m")]
    if loads:
        lines += [f"Load average (1 min) as each measured run ended: median {statistics.median(loads):.1f} "
                  f"(min {min(loads):.1f}, max {max(loads):.1f}) on {machine['nproc']} CPUs.", ""]

    summary = data.get("summary", {})
    for key in sorted(summary):
        block = summary[key]
        workers = key.split("_")[1]
        lines += _block_table(f"## Workers {workers}", block, impls)
        for ratio_name, ratio in block.get("ratios", {}).items():
            label = _ratio_label(ratio_name)
            per_round = ", ".join(f"{v:.2f}" for v in ratio["wall_s"]["per_round"])
            lines.append(f"- wall time {label} per round: {per_round}")
        lines += _round_loads(data["runs"], workers)
        lines.append("")

    first = data.get("first_result", [])
    first_medians: dict[str, float | None] = {}
    if first:
        lines += ["## Time to the first result of a one-flow run", "",
                  "From the command starting to the first result: flowwalk's first `rule_finished` record in "
                  "emit.jsonl or its console line for the flow, whichever came first; Playwright Test's first "
                  "dot-reporter mark; the floor's first `ok` line. Median (min–max) and the whole run's wall time.",
                  "", "| | first result s | wall s |", "|---|---|---|"]
        for name in impls:
            rs = [r for r in first if r["impl"] == name]
            values = [r["first_result_s"] for r in rs if r["first_result_s"] is not None]
            first_medians[name] = _median(values)
            stats = {"median": statistics.median(values), "min": min(values), "max": max(values)} if values else {}
            walls = [r["wall_s"] for r in rs]
            wall_stats = {"median": statistics.median(walls), "min": min(walls), "max": max(walls)} if walls else {}
            lines.append(f"| {NAMES[name]} | {_range(stats)} | {_range(wall_stats)} |")
        lines.append("")

    failing_summary = data.get("failing_summary", {})
    if failing_summary:
        from make_corpus import BREAKS

        broken = [b for b in BREAKS if b.slug in data.get("failing_broken", [b.slug for b in BREAKS])]
        kinds: dict[str, int] = {}
        for brk in broken:
            kinds[brk.what] = kinds.get(brk.what, 0) + 1
        lines += ["## The failing corpus: time to the verdict", "",
                  f"The same {data['corpus']} flows with {len(broken)} checks broken "
                  f"({', '.join(f'{n} {what}' for what, n in kinds.items())}: bench/make_corpus.py `BREAKS`, "
                  "bench/failing/flows and bench/pwtest/failing). Playwright Test runs with its default timeouts "
                  "(an expect gives up after 5 s; failing.config.ts), flowwalk with its defaults "
                  "(`expect_timeout_ms` 5 s). Every run is checked: exactly the broken flows fail, flowwalk's at the "
                  "broken step with the expected failure class. Wall time of the whole run, process start to exit "
                  "(reports included), interleaved.", ""]
        for key in sorted(failing_summary):
            block = failing_summary[key]
            names = [n for n in data.get("failing_impls", []) if n in block]
            lines += _block_table(f"### Workers {key.split('_')[1]}", block, names)

    defaults = data.get("defaults_summary", {})
    if defaults:
        lines += ["## Each tool at its own default workers", "",
                  "The runs above give both tools the same `--workers`. These give neither one: flowwalk takes its "
                  "default (2 workers per CPU), Playwright Test its own (half the CPUs), with the same configuration "
                  "as above otherwise. This is what a user gets without choosing. Interleaved, every run checked as "
                  "above.", ""]
        for corpus, title in (("passing", f"the {data['corpus']} flows"), ("failing", "the failing corpus")):
            block = defaults.get(corpus)
            if not block:
                continue
            names = [n for n in data.get("failing_impls", []) if n in block]
            used = ", ".join(f"{NAMES[n]} {block[n].get('workers_used') or '?'}" for n in names)
            lines += _block_table(f"### {title[0].upper()}{title[1:]} (workers used: {used})", block, names)

    scaling = data.get("scaling", [])
    by_size = {r["flows"]: r for r in scaling}
    if scaling:
        lines += [f"## Scaling: flowwalk on the corpus repeated (workers {scaling[0]['workers']})", "",
                  "| scenarios | wall s | s per scenario | CPU s | peak RSS MB | peak PSS MB |",
                  "|---|---|---|---|---|---|"]
        for size in sorted(by_size):
            r = by_size[size]
            lines.append(f"| {size} | {r['wall_s']:.1f} | {r['wall_s'] / size:.3f} | {r['cpu_s']:.1f} | "
                         f"{r['peak_rss_mb']:.0f} | {r.get('peak_pss_mb', 0):.0f} |")
        lines.append("")
    validate = data.get("validate", [])
    if validate:
        walls = [r["wall_s"] for r in validate]
        lines += ["## `flowwalk validate` on 1,000 specs", "",
                  f"Wall time over {len(walls)} runs: {_range({'median': statistics.median(walls), 'min': min(walls), 'max': max(walls)})} s; "
                  f"peak memory {max(r['peak_rss_mb'] for r in validate):.0f} MB; "
                  f"{'all exited 0' if all(r['ok'] for r in validate) else 'SOME FAILED'}.", ""]

    # --- targets (issue 30 restated issue 11's) --------------------------------------------------
    lines += ["## Targets (issue 30)", "",
              "Issue 30 withdrew issue 11's flowwalk ≤ 0.85 × Playwright Test at equal workers (it asked "
              "flowwalk to beat bare Playwright making the same calls; the same-workers ratios to Playwright "
              "Test stay in the tables above) and set the equal-workers targets against the floor. The "
              "lines against Playwright Test at each tool's defaults are kept as a user's figure.", "",
              "| target | figure | |", "|---|---|---|"]

    def ratio(workers: str, other: str, metric: str = "wall_s", where: dict[str, Any] = summary,
              mine: str = "flowwalk") -> float | None:
        block = where.get(f"workers_{workers}", {}).get("ratios", {}).get(f"{mine}/{other}")
        return block[metric]["median"] if block and block[metric] else None

    failed_workers = {str(r["workers"]) for r in data["runs"] if not r["ok"]}

    def verdict(workers: str, ok: bool | None) -> str:
        return "**invalid** (failing flows)" if workers in failed_workers else _mark(ok)

    def shown(value: float | None, places: int = 2) -> str:
        return "n/a" if value is None else f"{value:.{places}f}"

    worker_keys = sorted(k.split("_")[1] for k in summary)
    for workers in worker_keys:
        value = ratio(workers, "floor")
        lines.append(f"| flowwalk / floor wall ≤ 1.00, workers {workers} | {shown(value, 3)} | "
                     f"{verdict(workers, None if value is None else value <= 1.00)} |")
    for workers in worker_keys:
        value = ratio(workers, "floor", "cpu_s")
        lines.append(f"| flowwalk tree CPU ≤ 1.05 × the floor's, workers {workers} | {shown(value, 3)} | "
                     f"{verdict(workers, None if value is None else value <= 1.05)} |")
    for workers in worker_keys:
        value = ratio(workers, "flowwalk", mine="flowwalk-rules")
        lines.append(f"| rule file (RFC 010's stability) ≤ 1.05 × the flows' wall, workers {workers} | "
                     f"{shown(value, 3)} | "
                     f"{verdict(workers, None if value is None else value <= 1.05)} |")
    fw_first = first_medians.get("flowwalk")
    lines.append(f"| one-flow run: first result ≤ 0.70 s | {'n/a' if fw_first is None else f'{fw_first:.2f} s'} "
                 f"(Playwright Test {first_medians.get('playwright-test') or float('nan'):.2f} s, floor "
                 f"{first_medians.get('floor') or float('nan'):.2f} s) | {_mark(None if fw_first is None else fw_first <= 0.70)} |")
    # The 0.70 s was set on the outside machine, where the floor took 0.45 s and Playwright Test
    # 1.10 s to the first result; machines differ by more than that (this one's floor takes 0.8 to
    # 1.0 s), so the same target is also read against the peers measured in the same run
    for peer, name, outside in (("floor", "the floor's", 0.45), ("playwright-test", "Playwright Test's", 1.10)):
        peer_first = first_medians.get(peer)
        if fw_first is not None and peer_first:
            limit = 0.70 / outside
            lines.append(f"| first result ≤ {limit:.2f} × {name} (0.70 s ÷ its {outside:.2f} s where the target "
                         f"was set) | {fw_first / peer_first:.2f} × | {_mark(fw_first / peer_first <= limit)} |")
    failing_bad = {str(r["workers"]) for r in data.get("failing", []) if not r["ok"]}
    for workers in sorted(k.split("_")[1] for k in failing_summary):
        value = ratio(workers, "playwright-test", where=failing_summary)
        mark = "**invalid** (unexpected results)" if workers in failing_bad else "withdrawn (issue 30)"
        lines.append(f"| failing corpus: time to verdict vs Playwright Test's, workers {workers} | "
                     f"{shown(value)} | {mark} |")
    defaults_passing = defaults.get("passing", {})
    if defaults_passing.get("ratios", {}).get("flowwalk/playwright-test"):
        value = defaults_passing["ratios"]["flowwalk/playwright-test"]["wall_s"]["median"]
        used = {n: defaults_passing[n].get("workers_used") or "?" for n in ("flowwalk", "playwright-test")}
        lines.append(f"| the flows: wall vs Playwright Test's, each at its defaults (workers {used['flowwalk']} and "
                     f"{used['playwright-test']}) | {shown(value)} | a user's figure, no target |")
    defaults_failing = defaults.get("failing", {})
    if defaults_failing.get("ratios", {}).get("flowwalk/playwright-test"):
        value = defaults_failing["ratios"]["flowwalk/playwright-test"]["wall_s"]["median"]
        bad = any(not r["ok"] for r in data.get("defaults", []) if r["label"].startswith("defaults failing "))
        used = {n: defaults_failing[n].get("workers_used") or "?" for n in ("flowwalk", "playwright-test")}
        lines.append(f"| failing corpus: time to verdict ≤ 0.85 × Playwright Test's, each at its defaults "
                     f"(workers {used['flowwalk']} and {used['playwright-test']}) | {shown(value)} | "
                     f"{'**invalid** (unexpected results)' if bad else _mark(value <= 0.85)} |")
    for workers in worker_keys:
        block = summary[f"workers_{workers}"]
        for metric, what in (("peak_pss_mb", "PSS"), ("peak_rss_mb", "RSS")):
            if "flowwalk" in block and "playwright-test" in block and block["flowwalk"].get(metric) \
                    and block["flowwalk"][metric]["median"]:
                fw_mem = block["flowwalk"][metric]["median"]
                pw_mem = block["playwright-test"][metric]["median"]
                lines.append(f"| peak memory ({what}) ≤ Playwright Test's, workers {workers} | {fw_mem:.0f} MB vs "
                             f"{pw_mem:.0f} MB | {verdict(workers, fw_mem <= pw_mem)} |")
    if 100 in by_size and 1000 in by_size and not (by_size[100]["ok"] and by_size[1000]["ok"]):
        lines.append("| 1,000 scenarios: time and memory vs 100 | a scaling run had failing flows | **invalid** |")
    elif 100 in by_size and 1000 in by_size:
        time_ratio = by_size[1000]["wall_s"] / by_size[100]["wall_s"]
        metric = "peak_pss_mb" if by_size[100].get("peak_pss_mb") else "peak_rss_mb"
        mem_ratio = by_size[1000][metric] / by_size[100][metric]
        lines.append(f"| 1,000 scenarios ≤ 10.5 × the time of 100 | {time_ratio:.2f} × | {_mark(time_ratio <= 10.5)} |")
        lines.append(f"| peak memory at 1,000 within 20% of 100 | {mem_ratio:.2f} × | {_mark(abs(mem_ratio - 1) <= 0.20)} |")
    elif 100 in by_size:
        lines.append("| 1,000 scenarios: time and memory vs 100 | not run (--quick) | n/a |")
    if validate:
        med = statistics.median(r["wall_s"] for r in validate)
        mark = _mark(med < 1.0) if all(r["ok"] for r in validate) else "**invalid** (validate failed)"
        lines.append(f"| `flowwalk validate` of 1,000 specs < 1 s | {med:.2f} s | {mark} |")
    lines.append("")

    failures = failed_runs(data)
    if failures:
        lines += ["## Failing runs (the comparison is invalid until these pass)", ""]
        for r in failures:
            lines.append(f"- {r['label']}, {NAMES[r['impl']]}: {' | '.join(r['problems'])[:800]}")
        lines.append("")
    notes = list(data.get("notes") or [])
    if data.get("rescaled_at"):
        notes.insert(0, f"The scaling and `flowwalk validate` figures were measured again at {data['rescaled_at']} "
                        f"(UTC), same commit, by `bench/run.py --rescale`; everything else comes from the run above.")
    if notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in notes] + [""]
    if raw_path:
        lines += [f"Raw numbers: `{raw_path}` (not committed; bench/out is ignored).", ""]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: results_md.py bench/out/bench-<time>.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    print(render_results(json.loads(path.read_text()), raw_path=str(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
