"""Where the CPU of a run goes, per kind of process, and how many Playwright calls it makes.

`bench/run.py` gives each form's tree CPU as one number. This script splits it, for flowwalk, the
floor and the rule-file form on the bench corpus (interleaved, `--rounds` times):

- CPU seconds per kind of process: Python (the tool itself and Playwright's client), the Node driver,
  and Chromium's browser, GPU, utility and renderer processes (read from /proc every 50 ms, each
  process classified by its command line, which Chromium sets to `--type=...` after the fork);
- with `--calls`, the Playwright protocol calls each made, by object and method, and the messages
  its client received (answers, objects created, events), each of which Python decodes, validates
  and dispatches (one untimed run each, in this process: the count does not depend on the
  machine's load);
- with `--spy FILE`, one run of flowwalk's Python process sampled by py-spy (holding the GIL, 250 Hz,
  `pip install py-spy`): FILE gets the collapsed stacks, and the output the share of samples by
  where they were spent (the innermost frame in flowwalk, Playwright, pydantic, ... and the
  flowwalk function that called into it).

    .venv/bin/python bench/where_cpu.py --workers 1 --rounds 3
    .venv/bin/python bench/where_cpu.py --calls
    .venv/bin/python bench/where_cpu.py --spy bench/out/spy.txt

It measures the working tree (`src/` as installed). The figures and what they showed are in
bench/PROFILE.md.
"""

from __future__ import annotations

import argparse
import collections
import os
import runpy
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import run as harness  # noqa: E402  (bench/run.py: the site, the password, /proc reading)

TICKS = os.sysconf("SC_CLK_TCK")
FORMS = ("flowwalk", "floor", "flowwalk-rules")


def process_kind(pid: int) -> str | None:
    """"python", "node", "chromium-<type>" (browser, renderer, gpu-process, utility, zygote) or the
    program's name; None when the process is gone."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return None
    program = argv[0].decode(errors="replace")
    words = [a.decode(errors="replace") for a in argv] + program.split()
    kinds = [w.split("=", 1)[1] for w in words if w.startswith("--type=")]
    if "chrom" in program or kinds:
        return f"chromium-{kinds[0] if kinds else 'browser'}"
    if "node" in os.path.basename(program):
        return "node"
    if "python" in program or "flowwalk" in program:
        return "python"
    return os.path.basename(program) or "?"


def cpu_by_kind(command: list[str], env: dict[str, str]) -> tuple[float, dict[str, float], str]:
    """Run `command`; its wall time, CPU seconds per process kind, and the end of its output."""
    started = time.monotonic()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output: list[bytes] = []
    reader = threading.Thread(target=lambda: output.append(proc.stdout.read() if proc.stdout else b""))
    reader.start()
    ticks: dict[int, int] = {}
    kinds: dict[int, str] = {}
    while proc.poll() is None:
        table = harness._proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        todo = [proc.pid]
        while todo:
            pid = todo.pop()
            if pid not in table:
                continue
            ticks[pid] = table[pid][1]
            # a renderer starts as a fork of the zygote and renames itself: look again until it has
            if kinds.get(pid) in (None, "chromium-zygote", "chromium-browser"):
                kinds[pid] = process_kind(pid) or kinds.get(pid) or "?"
            todo.extend(children.get(pid, ()))
        time.sleep(0.05)
    reader.join()
    by_kind: dict[str, float] = collections.defaultdict(float)
    for pid, count in ticks.items():
        by_kind[kinds.get(pid, "?")] += count / TICKS
    return time.monotonic() - started, dict(by_kind), b"".join(output).decode(errors="replace")[-400:]


def command(form: str, url: str, workers: int, only: list[str] | None = None) -> list[str]:
    """The command of one form; `only`: flow slugs (a family, for a closer look), else all."""
    python, flowwalk = str(ROOT / ".venv/bin/python"), str(ROOT / ".venv/bin/flowwalk")
    config = ["--config", os.path.relpath(harness.FLOWWALK_CONFIG, ROOT)]
    if form == "floor":
        return [python, "bench/floor.py", "--base-url", url, "--workers", str(workers),
                *[a for slug in only or () for a in ("--only", slug)]]
    if form == "flowwalk-rules":
        corpus = ["bench/rules"]
    else:
        corpus = [f"bench/flows/{slug}.flow.yaml" for slug in only] if only else ["bench/flows"]
    return [flowwalk, "run", *corpus, "--base-url", url, "--workers", str(workers), "--out",
            f"bench/out/where-{form}", "--secret", "DEMO_PASSWORD", *config]


def form_env(form: str, env: dict[str, str], other_src: str | None) -> dict[str, str]:
    """`flowwalk-b` imports flowwalk from `other_src` (a patched copy of src/, for an A/B)."""
    if form == "flowwalk-b" and other_src:
        return {**env, "PYTHONPATH": other_src}
    return env


def split(url: str, env: dict[str, str], workers: int, rounds: int, forms: tuple[str, ...],
          only: list[str] | None = None, other_src: str | None = None) -> None:
    seen: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    for n in range(1, rounds + 1):
        for form in forms:
            argv = command("flowwalk" if form == "flowwalk-b" else form, url, workers, only)
            wall, by_kind, tail = cpu_by_kind(argv, form_env(form, env, other_src))
            by_kind["total"] = sum(by_kind.values())
            by_kind["wall"] = wall
            seen[form].append(by_kind)
            shown = "  ".join(f"{k} {v:.2f}" for k, v in sorted(by_kind.items()) if k not in ("total", "wall"))
            print(f"round {n} {form:15} wall {wall:6.2f} s  cpu {by_kind['total']:6.2f} s  {shown}", flush=True)
            if "passed" not in tail:
                print(f"  (its output ended: {tail.strip().splitlines()[-1] if tail.strip() else '-'})")
    kinds = sorted({k for runs in seen.values() for r in runs for k in r})
    print(f"\nmedians over {rounds} round(s), workers {workers} (seconds)")
    print(f"{'':16}" + "".join(f"{k[:16]:>17}" for k in kinds))
    for form, runs in seen.items():
        print(f"{form:16}" + "".join(f"{statistics.median(r.get(k, 0.0) for r in runs):17.2f}" for k in kinds))


def calls(url: str) -> None:
    """Count Playwright's protocol calls of one run of each form (flowwalk and the floor, in this
    process, at workers 1)."""
    from playwright._impl import connection

    sent, dispatch = connection.Connection.send_message_to_server, connection.Connection.dispatch
    for form in ("flowwalk", "floor"):
        counts: collections.Counter[tuple[str, str]] = collections.Counter()
        received: collections.Counter[str] = collections.Counter()

        def counting(self: Any, target: Any, method: str, *args: Any, **kw: Any) -> Any:
            counts[(type(target).__name__, method)] += 1
            return sent(self, target, method, *args, **kw)

        def receiving(self: Any, message: dict[str, Any]) -> None:
            method = message.get("method")
            if message.get("id"):
                received["(answers to calls)"] += 1
            elif method == "__create__":
                received[f"__create__ {(message.get('params') or {}).get('type')}"] += 1
            else:
                target = self._objects.get(message.get("guid") or "")
                received[f"{type(target).__name__}.{method}"] += 1
            dispatch(self, message)

        connection.Connection.send_message_to_server = counting  # type: ignore[method-assign]
        connection.Connection.dispatch = receiving  # type: ignore[method-assign]
        argv = command(form, url, 1)
        try:
            if form == "floor":
                sys.argv = argv[1:]
                runpy.run_path(str(BENCH / "floor.py"), run_name="__main__")
            else:
                from flowwalk.cli import main
                sys.argv = ["flowwalk", *argv[1:]]
                main()
        except SystemExit:
            pass
        finally:
            connection.Connection.send_message_to_server = sent  # type: ignore[method-assign]
            connection.Connection.dispatch = dispatch  # type: ignore[method-assign]
        print(f"\n{form}: {sum(counts.values())} Playwright calls")
        for (kind, method), n in counts.most_common():
            print(f"  {n:5}  {kind}.{method}")
        print(f"{form}: {sum(received.values())} messages received")
        for what, n in received.most_common():
            print(f"  {n:5}  {what}")


def _owner(frame: str) -> str:
    """The package a collapsed-stack frame (`function (path:line)`) belongs to."""
    path = "/" + frame.rsplit("(", 1)[-1]
    for mark, name in (("/flowwalk/", "flowwalk"), ("/playwright/", "playwright"), ("/pydantic", "pydantic"),
                       ("/yaml/", "yaml"), ("/jsonschema", "jsonschema"), ("/click/", "click"),
                       ("/<frozen importlib", "import")):
        if mark in path:
            return name
    return "python"


def spy(url: str, env: dict[str, str], out: Path) -> None:
    """One run of flowwalk's 56 flows at workers 1 under py-spy; a summary of where its Python CPU went."""
    spy_bin = ROOT / ".venv/bin/py-spy"
    if not spy_bin.exists():
        sys.exit("py-spy is not installed: .venv/bin/pip install py-spy")
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = command("flowwalk", url, 1)
    subprocess.run([str(spy_bin), "record", "--format", "raw", "--rate", "250", "--gil", "--threads", "-o", str(out),
                    "--", *argv], env=env, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
    inner: collections.Counter[str] = collections.Counter()
    callers: collections.Counter[str] = collections.Counter()
    total = 0
    for line in out.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        frames, count = stack.split(";"), int(n)
        total += count
        inner[_owner(frames[-1])] += count
        if any("<frozen importlib" in f for f in frames):
            callers["(importing modules)"] += count
            continue
        mine = [f for f in frames if _owner(f) == "flowwalk"]
        callers[mine[-1].split(" (")[0] + " " + mine[-1].rsplit("/", 1)[-1].rstrip(")") if mine else "(no flowwalk frame)"] += count
    print(f"{total} samples on CPU ({total / 250:.2f} s)")
    print("innermost frame's package:")
    for name, n in inner.most_common():
        print(f"  {100 * n / total:5.1f} %  {name}")
    print("the innermost flowwalk function on the stack (or the import machinery), top 30:")
    for name, n in callers.most_common(30):
        print(f"  {100 * n / total:5.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", action="store_true", help="count Playwright calls instead of CPU")
    parser.add_argument("--spy", metavar="FILE", type=Path,
                        help="sample one run of flowwalk's Python process with py-spy into FILE instead")
    parser.add_argument("--forms", default=",".join(FORMS),
                        help=f"comma-separated, of {', '.join(FORMS)}, flowwalk-b [all three]")
    parser.add_argument("--flows", default="", help="comma-separated flow slugs, e.g. ops-1,ops-2 [all]")
    parser.add_argument("--b-src", metavar="DIR",
                        help="the src/ folder the form flowwalk-b imports flowwalk from (an A/B)")
    args = parser.parse_args()
    forms = tuple(f for f in args.forms.split(",") if f)
    only = [f for f in args.flows.split(",") if f] or None
    unknown = [f for f in forms if f not in (*FORMS, "flowwalk-b")]
    if unknown:
        parser.error(f"unknown form(s) {', '.join(unknown)}: choose from {', '.join(FORMS)}, flowwalk-b")
    if "flowwalk-b" in forms and not args.b_src:
        parser.error("the form flowwalk-b needs --b-src (a src/ folder, e.g. a `git archive` of another commit)")
    if only:
        missing = [slug for slug in only if not (ROOT / "bench" / "flows" / f"{slug}.flow.yaml").is_file()]
        if missing:
            parser.error(f"no flow {', '.join(missing)} in bench/flows (slugs such as ops-1, consent-2)")
        if "flowwalk-rules" in forms:
            parser.error("--flows measures flows and the floor only (a rule file holds its flows together): "
                         "add --forms flowwalk,floor")
    from flowwalk.serve import StaticServer

    os.environ["DEMO_PASSWORD"] = harness.demo_password()
    # as bench/run.py runs them: bytecode is written and reused, as on a user's machine (an
    # environment that forbids it would charge flowwalk's compile, not the floor's, to every run)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_ACTIONS", "CI")}
    env["PYTHONDONTWRITEBYTECODE"] = "0"
    with StaticServer(harness.build_site()) as server:
        if args.calls:
            calls(server.url)
        elif args.spy:
            spy(server.url, env, args.spy)
        else:
            split(server.url, env, args.workers, args.rounds, forms, only, args.b_src)


if __name__ == "__main__":
    main()
