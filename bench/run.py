"""The one benchmark command: flowwalk against Playwright Test and the bare Python floor (issue #6).

    .venv/bin/python bench/run.py              # the full measurement (5 rounds, workers 1 and 2, scaling)
    .venv/bin/python bench/run.py --quick      # the same without the 1,000-scenario run
    .venv/bin/python bench/run.py --rounds 1 --flows team-1,login-2 --skip-scaling   # a small dev run

It installs the Playwright Test dependencies when missing (`npm ci` in bench/pwtest), serves the
example site once with flowwalk's own StaticServer, and runs the three implementations
interleaved (flowwalk, Playwright Test, floor, flowwalk, ...) on the same corpus, the same site
and the same Chromium executable. For every run it measures

- wall time, from just before the process starts to its exit;
- CPU time (user + sys) of the whole process tree: the `RUSAGE_CHILDREN` delta around the run,
  cross-checked by summing the last-seen CPU ticks of every process of the tree from /proc
  (the larger of the two is kept, so a process its parent never reaped still counts);
- peak memory: the tree's RSS summed over its processes, sampled every 50 ms, the maximum kept;

checks that every flow passed (a failing flow in any implementation invalidates the comparison
and is reported as such), then measures the time to the first result of a one-flow run, the
scaling of flowwalk to 100 and 1,000 scenarios, and `flowwalk validate` over 1,000 specs. Raw
numbers go to bench/out/bench-<time>.json, the summary to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
PWTEST = BENCH / "pwtest"
FLOWS = BENCH / "flows"
#: the corpus as rule files (the example site's flows and the lab's: at most 50 scenarios a file)
RULES = BENCH / "rules"
FAILING_FLOWS = BENCH / "failing" / "flows"
EXAMPLE_SITE = ROOT / "examples" / "site"
#: the lab pages of the corpus (dashboard, late consent, late feed, beacons), served overlaid on EXAMPLE_SITE
LAB_SITE = BENCH / "site"
#: where build_site() puts the two together: the one folder (one origin) every form is served from
SITE = OUT / "site"
#: what every flowwalk run of the corpus reads: the interrupts (make_corpus.py's DISMISS)
FLOWWALK_CONFIG = BENCH / "flowwalk.yaml"
VENV_BIN = Path(sys.executable).parent
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.05

sys.path.insert(0, str(ROOT / "src"))


# --- measuring one process tree -------------------------------------------------------------------


def _proc_table() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, utime + stime ticks) for every process visible in /proc."""
    table: dict[int, tuple[int, int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: the fields start after the last ')'
        fields = raw[raw.rfind(b")") + 2:].split()
        table[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    return table


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE_SIZE
    except (OSError, IndexError, ValueError):
        return 0


def _pss_bytes(pid: int) -> int:
    """Proportional set size: shared pages (the Chromium binary every renderer maps) count once
    across the processes that share them, so a sum over a tree is not inflated by them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0


class TreeSampler(threading.Thread):
    """Samples a process tree every 50 ms: the peaks of its summed RSS and PSS, CPU ticks per pid,
    process count."""

    def __init__(self, root: int):
        super().__init__(name="tree-sampler", daemon=True)
        self.root = root
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_procs = 0
        self.samples = 0
        self.ticks: dict[int, int] = {}
        self._halt = threading.Event()

    def sample(self) -> None:
        table = _proc_table()
        children: dict[int, list[int]] = {}
        for pid, (ppid, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        tree, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            if pid in table:
                tree.append(pid)
                todo.extend(children.get(pid, ()))
        total = sum(_rss_bytes(pid) for pid in tree)
        for pid in tree:
            self.ticks[pid] = table[pid][1]
        self.samples += 1
        self.peak_rss = max(self.peak_rss, total)
        self.peak_pss = max(self.peak_pss, sum(_pss_bytes(pid) for pid in tree))
        self.peak_procs = max(self.peak_procs, len(tree))

    def run(self) -> None:
        while not self._halt.is_set():
            self.sample()
            self._halt.wait(SAMPLE_S)

    def stop(self) -> None:
        self._halt.set()
        self.join()

    @property
    def cpu_s(self) -> float:
        return sum(self.ticks.values()) / CLOCK_TICKS


@dataclass
class Measurement:
    impl: str
    label: str
    command: list[str]
    #: the --workers given; 0 for the tool's own default (the defaults line)
    workers: int
    flows: int
    #: the workers the tool said it used ("using 2 workers", "…, 4 workers"), when it said
    workers_used: int | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0
    cpu_rusage_s: float = 0.0
    cpu_sampled_s: float = 0.0
    peak_rss_mb: float = 0.0
    peak_pss_mb: float = 0.0
    peak_procs: int = 0
    first_result_s: float | None = None
    first_result_how: str = ""
    #: the machine's 1-minute load average as the run ended (the machine is shared)
    loadavg_1m: float = 0.0
    #: and as it started
    loadavg_start_1m: float = 0.0
    returncode: int = 0
    ok: bool = False
    problems: list[str] = field(default_factory=list)
    stdout_tail: str = ""
    stderr_tail: str = ""


def measurement(record: dict[str, Any]) -> Measurement:
    """A Measurement again from its record in a bench-*.json (fields added later get their defaults)."""
    return Measurement(**{k: v for k, v in record.items() if k in Measurement.__dataclass_fields__})


def flowwalk_round(impl: "Flowwalk", form: str, round_no: int, env: "Env", workers: int, out: Path,
                   slugs: Sequence[str] | None, paths: Sequence[Path] | None,
                   expected: int) -> tuple[Measurement, list[str]]:
    """One measured, checked flowwalk run of an interleaved comparison (trace_cost.py, sessions.py):
    its measurement and what its `verify` found wrong, said on a line as it ends."""
    cmd, cwd, run_env = impl.command(env, workers, slugs, out, paths)
    result, stdout, _ = measure(form, f"round {round_no}", cmd, cwd=cwd, env=run_env, workers=workers,
                                flows=expected)
    found = impl.verify(result, stdout, out, expected)
    print(f"  {form:18} round {round_no}: {result.wall_s:6.2f} s wall, {result.cpu_s:6.2f} s CPU"
          + (f"  INVALID: {found[:2]}" if found else ""), flush=True)
    return result, found


FirstResult = Callable[[str], bool]


def measure(impl: str, label: str, command: Sequence[str], *, cwd: Path, env: dict[str, str], workers: int,
            flows: int, first_result: FirstResult | None = None, emit_file: Path | None = None,
            timeout_s: float = 3600) -> tuple[Measurement, str, str]:
    """Run one command; time it, sample its tree, watch stdout (and emit.jsonl) for the first result."""
    result = Measurement(impl, label, list(command), workers, flows)
    seen: dict[str, float] = {}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result.loadavg_start_1m = float(Path("/proc/loadavg").read_text().split()[0])
    started = time.perf_counter()
    proc = subprocess.Popen(list(command), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = TreeSampler(proc.pid)
    sampler.start()
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []

    def read_stdout() -> None:
        assert proc.stdout is not None
        text = ""
        while chunk := os.read(proc.stdout.fileno(), 65536):
            out_chunks.append(chunk)
            if first_result is not None and "stdout" not in seen:
                text += chunk.decode("utf-8", "replace")
                if first_result(text):
                    seen["stdout"] = time.perf_counter() - started

    def read_stderr() -> None:
        assert proc.stderr is not None
        while chunk := os.read(proc.stderr.fileno(), 65536):
            err_chunks.append(chunk)

    def watch_emit() -> None:
        assert emit_file is not None
        while proc.poll() is None and "emit" not in seen:
            try:
                if b'"rule_finished"' in emit_file.read_bytes():
                    seen["emit"] = time.perf_counter() - started
                    return
            except OSError:
                pass
            time.sleep(0.005)

    readers = [threading.Thread(target=read_stdout, daemon=True), threading.Thread(target=read_stderr, daemon=True)]
    if emit_file is not None:
        readers.append(threading.Thread(target=watch_emit, daemon=True))
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        result.problems.append(f"timed out after {timeout_s:.0f} s")
    result.wall_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sampler.stop()
    for reader in readers:
        reader.join(timeout=5)
    result.cpu_rusage_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    result.cpu_sampled_s = sampler.cpu_s
    result.cpu_s = max(result.cpu_rusage_s, result.cpu_sampled_s)
    result.peak_rss_mb = sampler.peak_rss / 2**20
    result.peak_pss_mb = sampler.peak_pss / 2**20
    result.peak_procs = sampler.peak_procs
    result.returncode = proc.returncode
    result.loadavg_1m = float(Path("/proc/loadavg").read_text().split()[0])
    if seen:
        how = min(seen, key=lambda k: seen[k])
        result.first_result_s, result.first_result_how = seen[how], how
    stdout = b"".join(out_chunks).decode("utf-8", "replace")
    stderr = b"".join(err_chunks).decode("utf-8", "replace")
    result.stdout_tail = stdout[-2000:]
    result.stderr_tail = stderr[-2000:]
    return result, stdout, stderr


# --- the three implementations ----------------------------------------------------------------------


@dataclass(frozen=True)
class Env:
    base_url: str
    chromium: str
    demo_password: str
    #: where flowwalk is imported from: a snapshot of one commit's src/ (None: the working tree)
    flowwalk_src: str | None = None


def _base_env(env: Env) -> dict[str, str]:
    out = dict(os.environ)
    for name in ("GITHUB_ACTIONS", "CI", "FORCE_COLOR", "PYTHONPATH"):
        out.pop(name, None)
    out.update({"NO_COLOR": "1", "DEMO_PASSWORD": env.demo_password, "PYTHONDONTWRITEBYTECODE": "0"})
    return out


def _flowwalk_env(env: Env) -> dict[str, str]:
    out = _base_env(env)
    if env.flowwalk_src:
        # ahead of the editable install: every flowwalk process of the run imports the snapshot
        out["PYTHONPATH"] = env.flowwalk_src
    return out


def snapshot(rev: str) -> tuple[str, str]:
    """`git archive <rev> src` unpacked under bench/out/snapshot/<sha>: (its src folder, the short sha).

    Other engineers commit while a measurement runs; every flowwalk process of one measurement
    imports the same commit this way, and RESULTS.md names it.
    """
    sha = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    folder = OUT / "snapshot" / sha
    if not (folder / "src" / "flowwalk" / "__init__.py").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", sha, "src"], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return str(folder / "src"), sha


def _workers_option(workers: int) -> list[str]:
    """`--workers N`, or nothing for 0: the tool then picks its own default (the defaults line)."""
    return ["--workers", str(workers)] if workers else []


def workers_used(stdout: str) -> int | None:
    """The workers a run said it used: Playwright Test's "using 2 workers", flowwalk's "…, 4 workers"."""
    found = re.search(r"\b(\d+) workers?\b", stdout)
    return int(found.group(1)) if found else None


class Impl:
    name = ""

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        raise NotImplementedError

    def first_result(self, slug: str) -> FirstResult:
        raise NotImplementedError

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        raise NotImplementedError


class Flowwalk(Impl):
    name = "flowwalk"

    def __init__(self, extra: Sequence[str] = ()):
        #: more options for `flowwalk run` (experiments: `--config fast.yaml`); none in a real measurement.
        #: Without a `--config` of its own, the run reads bench/flowwalk.yaml (the corpus's interrupts);
        #: an experiment's config must carry the same dismiss_selectors (`check_config`)
        self.extra = list(extra)

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        if paths is None:
            paths = [FLOWS / f"{slug}.flow.yaml" for slug in slugs] if slugs else [FLOWS]
        rel = [os.path.relpath(p, ROOT) for p in paths]
        config = [] if "--config" in self.extra else ["--config", os.path.relpath(FLOWWALK_CONFIG, ROOT)]
        cmd = [str(VENV_BIN / "flowwalk"), "run", *rel, "--base-url", env.base_url, *_workers_option(workers),
               "--out", os.path.relpath(out_dir, ROOT), "--secret", "DEMO_PASSWORD", *config, *self.extra]
        return cmd, ROOT, _flowwalk_env(env)

    def first_result(self, slug: str) -> FirstResult:
        # only complete lines: what follows the last newline may still be arriving (splitlines()[:-1]
        # dropped the newest complete line too, so a run whose result was its last line so far
        # was seen only at the next line: the rule file's first result, which has no emit watch)
        return lambda text: any(slug in line for line in text.split("\n")[:-1])

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        problems = []
        if result.returncode != 0:
            problems.append(f"exit code {result.returncode}")
        verdict_path = out_dir / "verdict.json"
        if not verdict_path.is_file():
            return problems + ["no verdict.json"]
        verdict = json.loads(verdict_path.read_text())
        counts = verdict.get("counts", {})
        if counts.get("total") != expected or counts.get("passed") != expected:
            problems.append(f"counts {counts}, expected {expected} passed")
        for test in verdict.get("tests", []):
            if test.get("status") != "passed":
                failure = test.get("failure") or {}
                problems.append(f"{test.get('test_id')}: {test.get('status')} {failure.get('failure_class', '')} "
                                f"{failure.get('message', '')}"[:300])
            elif test.get("findings"):
                problems.append(f"{test.get('test_id')}: findings {test['findings']}"[:300])
        return problems


def _slug_of(test_id: str) -> str:
    found = re.search(r"#([a-z]+-\d+): ", test_id)
    return found.group(1) if found else test_id


def rules_subset(slugs: Sequence[str]) -> Path:
    """The rule-file corpus cut down to the scenarios of `slugs` (a dev subset), under bench/out: one
    file per rule file of the corpus that has any of them."""
    import yaml

    folder = OUT / "rules-subset"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for source in sorted(RULES.glob("*.rules.yaml")):
        data = yaml.safe_load(source.read_text())
        data["scenarios"] = [s for s in data["scenarios"] if s["rules"][0]["name"] in slugs]
        if data["scenarios"]:
            (folder / source.name).write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000))
    return folder


def check_config(extra: Sequence[str]) -> str | None:
    """Why the `--config` among `extra` would walk the corpus differently (None: fine): it replaces
    bench/flowwalk.yaml, so it must dismiss the same interrupts."""
    import yaml

    if "--config" not in extra:
        return None
    at = list(extra).index("--config") + 1
    if at >= len(extra):
        return "--flowwalk-arg=--config needs a file after it"
    path = Path(extra[at]) if Path(extra[at]).is_absolute() else ROOT / extra[at]
    if not path.is_file():
        return f"--flowwalk-arg: no config file {extra[at]}"
    wanted = yaml.safe_load(FLOWWALK_CONFIG.read_text()).get("dismiss_selectors") or []
    given = (yaml.safe_load(path.read_text()) or {}).get("dismiss_selectors") or []
    missing = [s for s in wanted if s not in given]
    if missing:
        return (f"{extra[at]} replaces bench/flowwalk.yaml but does not dismiss {missing}: add "
                f"`dismiss_selectors: {wanted}` to it, or the consent flows meet an overlay no one dismisses")
    return None


class FlowwalkRules(Flowwalk):
    """The same flows as rule files (bench/rules): RFC 010's two reads per check (issue 11: no target, the cost)."""

    name = "flowwalk-rules"

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        if paths is None:
            paths = [rules_subset(slugs)] if slugs else [RULES]
        return super().command(env, workers, None, out_dir, paths)


def expected_failures(slugs: Sequence[str] | None) -> dict[str, Any]:
    """slug -> its Break, for the broken flows among `slugs` (all of them when None)."""
    from make_corpus import BREAKS

    return {b.slug: b for b in BREAKS if not slugs or b.slug in slugs}


class FailingFlowwalk(Flowwalk):
    """flowwalk on the failing corpus: exactly the broken flows fail, each at its broken step."""

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        if paths is None:
            paths = [FAILING_FLOWS / f"{slug}.flow.yaml" for slug in slugs] if slugs else [FAILING_FLOWS]
        return super().command(env, workers, None, out_dir, paths)

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        from make_corpus import broken_index

        problems = []
        verdict_path = out_dir / "verdict.json"
        if not verdict_path.is_file():
            return [f"exit code {result.returncode}", "no verdict.json"]
        verdict = json.loads(verdict_path.read_text())
        tests = verdict.get("tests", [])
        slugs = [_slug_of(t.get("test_id", "")) for t in tests]
        breaks = expected_failures(slugs)
        if result.returncode != (1 if any(b.failure_class == "assertion_failed" for b in breaks.values()) else 2):
            problems.append(f"exit code {result.returncode}")
        if len(tests) != expected:
            problems.append(f"{len(tests)} tests, expected {expected}")
        for test, slug in zip(tests, slugs):
            failure = test.get("failure") or {}
            brk = breaks.get(slug)
            if brk is None:
                if test.get("status") != "passed" or test.get("findings"):
                    problems.append(f"{slug}: {test.get('status')} {failure.get('message', '')}"[:300])
                continue
            got = (test.get("status"), failure.get("failure_class"), failure.get("step_index"))
            want = ("failed", brk.failure_class, broken_index(brk))
            if got != want:
                problems.append(f"{slug} ({brk.what}): {got}, expected {want}: {failure.get('message', '')}"[:300])
        return problems


class PlaywrightTest(Impl):
    name = "playwright-test"

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        cmd = [str(PWTEST / "node_modules" / ".bin" / "playwright"), "test", *_workers_option(workers)]
        if slugs:
            files = sorted({f"tests/{slug.rsplit('-', 1)[0]}.spec.ts" for slug in slugs})
            cmd += [*files, "--grep", "(?:^|\\s)(?:" + "|".join(slugs) + "): "]
        full = _base_env(env)
        full.update({"BENCH_BASE_URL": env.base_url, "BENCH_CHROMIUM": env.chromium})
        return cmd, PWTEST, full

    def first_result(self, slug: str) -> FirstResult:
        # the dot reporter prints one character per finished test after its "Running N tests" line
        pattern = re.compile(r"Running [^\n]*\n\s*[·F×±°T]")
        return lambda text: bool(pattern.search(text))

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        problems = []
        if result.returncode != 0:
            problems.append(f"exit code {result.returncode}")
        passed = re.search(r"(\d+) passed", stdout)
        if not passed or int(passed.group(1)) != expected:
            problems.append(f"{passed.group(1) if passed else 0} passed, expected {expected}")
        for word in ("failed", "flaky", "did not run", "interrupted"):
            found = re.search(rf"(\d+) {word}", stdout)
            if found and int(found.group(1)):
                problems.append(found.group(0))
        if problems:
            problems.append(stdout[-1500:])
        return problems


class Floor(Impl):
    name = "floor"

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        cmd = [sys.executable, str(BENCH / "floor.py"), "--base-url", env.base_url, "--workers", str(workers),
               "--chromium", env.chromium]
        for slug in slugs or ():
            cmd += ["--only", slug]
        return cmd, ROOT, _base_env(env)

    def first_result(self, slug: str) -> FirstResult:
        return lambda text: bool(re.search(r"^(ok|FAIL) ", text, re.M))

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        problems = []
        if result.returncode != 0:
            problems.append(f"exit code {result.returncode}")
        if f"{expected} passed, 0 failed" not in stdout:
            problems.append("; ".join(line for line in stdout.splitlines() if line.startswith("FAIL"))[:1500]
                            or f"expected '{expected} passed, 0 failed'")
        return problems


class FailingPlaywrightTest(PlaywrightTest):
    """Playwright Test on the failing corpus (failing.config.ts: its default timeouts)."""

    #: the flows of the run (None: all of them), set by main
    slugs: Sequence[str] | None = None

    def command(self, env: Env, workers: int, slugs: Sequence[str] | None, out_dir: Path,
                paths: Sequence[Path] | None = None) -> tuple[list[str], Path, dict[str, str]]:
        cmd, cwd, full = super().command(env, workers, slugs, out_dir, paths)
        cmd = [word.replace("tests/", "failing/", 1) if word.startswith("tests/") else word for word in cmd]
        return cmd[:2] + ["--config", "failing.config.ts"] + cmd[2:], cwd, full

    def verify(self, result: Measurement, stdout: str, out_dir: Path, expected: int) -> list[str]:
        failed_titles = set(re.findall(r"^\s+\d+\) \S+ › (?:\S+ › )?([a-z]+-\d+): ", stdout, re.M))
        breaks = expected_failures(self.slugs)
        problems = []
        if result.returncode != 1:
            problems.append(f"exit code {result.returncode}")
        counts = {word: int(m.group(1)) if (m := re.search(rf"(\d+) {word}", stdout)) else 0
                  for word in ("passed", "failed", "flaky", "did not run", "interrupted")}
        if counts["failed"] != len(breaks) or counts["passed"] != expected - len(breaks):
            problems.append(f"{counts['passed']} passed and {counts['failed']} failed, expected "
                            f"{expected - len(breaks)} and {len(breaks)}")
        if failed_titles != set(breaks):
            problems.append(f"failed {sorted(failed_titles)}, expected {sorted(breaks)}")
        if problems:
            problems.append(stdout[-1500:])
        return problems


IMPLS: dict[str, Impl] = {impl.name: impl for impl in (Flowwalk(), PlaywrightTest(), Floor(), FlowwalkRules())}
#: the failing corpus: the same names, so the summary's ratios read flowwalk / Playwright Test
FAILING: dict[str, Impl] = {impl.name: impl for impl in (FailingFlowwalk(), FailingPlaywrightTest())}


# --- setup ---------------------------------------------------------------------------------------------


def ensure_npm_deps() -> None:
    if (PWTEST / "node_modules" / "@playwright" / "test" / "package.json").is_file():
        return
    print("bench: installing Playwright Test (npm ci in bench/pwtest) ...", flush=True)
    env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=PWTEST, env=env, check=True)


def demo_password() -> str:
    """The demo account's password, read from the site itself so the login flows follow the site."""
    text = (EXAMPLE_SITE / "assets" / "app.js").read_text()
    found = re.search(r"DEMO_USER\s*=\s*\{[^}]*password:\s*\"([^\"]+)\"", text)
    if not found:
        raise SystemExit("bench: cannot find DEMO_USER's password in examples/site/assets/app.js")
    return found.group(1)


def build_site() -> Path:
    """examples/site with bench/site copied over it, as SITE (bench/out/site), rebuilt each run.

    One folder served by one StaticServer, so every form meets one origin; examples/site itself stays
    what the examples and the discover tests see. A lab file may not replace an example file.
    """
    clashes = sorted(str(p.relative_to(LAB_SITE)) for p in LAB_SITE.rglob("*")
                     if p.is_file() and (EXAMPLE_SITE / p.relative_to(LAB_SITE)).exists())
    if clashes:
        raise SystemExit(f"bench: bench/site would replace examples/site files: {', '.join(clashes)}; "
                         "give the lab page another path (they live under bench/site/lab/)")
    shutil.rmtree(SITE, ignore_errors=True)
    shutil.copytree(EXAMPLE_SITE, SITE)
    shutil.copytree(LAB_SITE, SITE, dirs_exist_ok=True)
    return SITE


def _run_text(cmd: Sequence[str], cwd: Path | None = None) -> str:
    try:
        return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def machine_info(chromium: str) -> dict[str, Any]:
    meminfo = Path("/proc/meminfo").read_text()
    mem_kb = int(re.search(r"MemTotal:\s+(\d+)", meminfo).group(1))  # type: ignore[union-attr]
    cpu = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text())
    from importlib.metadata import version

    pw_pkg = PWTEST / "node_modules" / "@playwright" / "test" / "package.json"
    return {
        "nproc": len(os.sched_getaffinity(0)),
        "memory_gb": round(mem_kb / 2**20, 1),
        "cpu_model": cpu.group(1).strip() if cpu else platform.processor(),
        "kernel": platform.release(),
        "chromium": chromium,
        "chromium_version": _run_text([chromium, "--version"]),
        "python": platform.python_version(),
        "node": _run_text(["node", "--version"]),
        "playwright_python": version("playwright"),
        "playwright_test": json.loads(pw_pkg.read_text())["version"] if pw_pkg.is_file() else "?",
        "flowwalk": version("flowwalk"),
        "commit": _run_text(["git", "rev-parse", "--short", "HEAD"], ROOT),
        "loadavg_start": Path("/proc/loadavg").read_text().split()[:3],
    }


def make_scale_corpus(size: int) -> Path:
    """`size` specs: the corpus (bench/flows) repeated, each copy in its own file with its own name."""
    import yaml

    import hashlib

    folder = OUT / "scale" / str(size)
    sources = sorted(FLOWS.glob("*.flow.yaml"))
    digest = hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in sources)).hexdigest()
    stamp = folder / ".corpus-sha256"
    # reused only when made from exactly the current corpus
    if stamp.is_file() and stamp.read_text() == digest and len(list(folder.glob("*.flow.yaml"))) == size:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for index in range(size):
        source = sources[index % len(sources)]
        spec = yaml.safe_load(source.read_text())
        spec["name"] = f"#{index + 1:04d} {spec['name']}"[:120]
        (folder / f"{index + 1:04d}-{source.name}").write_text(
            yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=1000))
    stamp.write_text(digest)
    return folder


# --- the benchmark ---------------------------------------------------------------------------------------


def _show(result: Measurement) -> None:
    state = "ok" if result.ok else "FAILED: " + " | ".join(result.problems)[:600]
    first = f" first {result.first_result_s:.2f}s({result.first_result_how})" if result.first_result_s else ""
    print(f"  {result.label:<22} {result.impl:<16} wall {result.wall_s:6.2f}s  cpu {result.cpu_s:6.2f}s  "
          f"rss {result.peak_rss_mb:5.0f} MB pss {result.peak_pss_mb:5.0f} MB{first}  {state}", flush=True)


def settle(below: float, limit_s: float = 300.0) -> None:
    """Wait until the machine's 1-minute load average is under `below` (a run keeps two cores busy,
    so the next one would otherwise start at a load of 2 or more); at most `limit_s`."""
    if below <= 0:
        return
    end = time.monotonic() + limit_s
    while float(Path("/proc/loadavg").read_text().split()[0]) >= below and time.monotonic() < end:
        time.sleep(5)


def run_one(impl: Impl, env: Env, workers: int, slugs: Sequence[str] | None, label: str, expected: int, *,
            paths: Sequence[Path] | None = None, first_slug: str | None = None, tag: str = "") -> Measurement:
    out_dir = OUT / "runs" / f"{impl.name}-{tag or f'w{workers}'}"
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd, cwd, full_env = impl.command(env, workers, slugs, out_dir, paths)
    emit = out_dir / "emit.jsonl" if first_slug and impl.name == "flowwalk" else None
    if emit is not None:
        emit.unlink(missing_ok=True)
    result, stdout, _ = measure(impl.name, label, cmd, cwd=cwd, env=full_env, workers=workers, flows=expected,
                                first_result=impl.first_result(first_slug) if first_slug else None, emit_file=emit)
    (out_dir / "stdout.txt").write_text(stdout)  # the floor's per-flow times feed bench/breakdown.py --floor
    result.workers_used = workers_used(stdout)
    result.problems += impl.verify(result, stdout, out_dir, expected)
    result.ok = not result.problems
    _show(result)
    return result


def _stats(values: Sequence[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)} if values else {}


def summarize(runs: list[Measurement], impls: Sequence[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for workers in sorted({r.workers for r in runs}):
        by_impl = {name: [r for r in runs if r.workers == workers and r.impl == name] for name in impls}
        block: dict[str, Any] = {}
        for name, rs in by_impl.items():
            block[name] = {metric: _stats([getattr(r, metric) for r in rs])
                           for metric in ("wall_s", "cpu_s", "peak_rss_mb", "peak_pss_mb")}
            block[name]["rounds"] = len(rs)
        ratios: dict[str, Any] = {}
        fw = by_impl.get("flowwalk", [])
        for other in ("playwright-test", "floor"):
            if other not in by_impl or not fw:
                continue
            per_round = {metric: [getattr(a, metric) / getattr(b, metric)
                                  for a, b in zip(fw, by_impl[other]) if getattr(b, metric)]
                         for metric in ("wall_s", "cpu_s", "peak_rss_mb", "peak_pss_mb")}
            ratios[f"flowwalk/{other}"] = {m: {"per_round": v, **_stats(v)} for m, v in per_round.items()}
        if by_impl.get("flowwalk-rules") and fw:
            per_round = {metric: [getattr(a, metric) / getattr(b, metric)
                                  for a, b in zip(by_impl["flowwalk-rules"], fw) if getattr(b, metric)]
                         for metric in ("wall_s", "cpu_s", "peak_rss_mb", "peak_pss_mb")}
            ratios["flowwalk-rules/flowwalk"] = {m: {"per_round": v, **_stats(v)} for m, v in per_round.items()}
        block["ratios"] = ratios
        summary[f"workers_{workers}"] = block
    return summary


def defaults_summary(records: Sequence[dict[str, Any]], impls: Sequence[str]) -> dict[str, Any]:
    """The defaults line's medians and ratios, one block for the corpus and one for the failing corpus."""
    summary = {}
    for corpus in ("passing", "failing"):
        runs = [measurement(r) for r in records if r["label"].startswith(f"defaults {corpus} ")]
        if runs:
            block = summarize(runs, impls)["workers_0"]
            for name in impls:
                used = {r.workers_used for r in runs if r.impl == name}
                block[name]["workers_used"] = used.pop() if len(used) == 1 else None
            summary[corpus] = block
    return summary


def worker_counts_arg(text: str) -> list[int]:
    """`--workers 1,2`: the worker counts to measure, each at least 1."""
    try:
        counts = [int(w) for w in text.split(",") if w.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of worker counts of 1 or more, such as 1,2")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per worker count [5]")
    parser.add_argument("--workers", type=worker_counts_arg, default="1,2", help="worker counts to measure [1,2]")
    parser.add_argument("--impls", default="flowwalk,playwright-test,floor,flowwalk-rules",
                        help="implementations, in round order [flowwalk,playwright-test,floor,flowwalk-rules]; "
                             "flowwalk-rules is the corpus as a rule file (two reads)")
    parser.add_argument("--flows", default="", help="comma-separated flow slugs (a dev subset) [all]")
    parser.add_argument("--first-flow", default="team-1", help="the flow of the one-flow run [team-1]")
    parser.add_argument("--first-rounds", type=int, default=5, help="rounds of the one-flow run [5]")
    parser.add_argument("--failing-rounds", type=int, default=3,
                        help="interleaved rounds of the failing corpus per worker count [3]; 0 skips it")
    parser.add_argument("--defaults-rounds", type=int, default=3,
                        help="interleaved rounds of flowwalk and Playwright Test each at its own default workers "
                             "(no --workers), on the corpus and on the failing corpus [3]; 0 skips them")
    parser.add_argument("--quick", action="store_true", help="skip the 1,000-scenario run")
    parser.add_argument("--skip-scaling", action="store_true", help="skip the 100/1,000 runs and validate")
    parser.add_argument("--no-warmup", action="store_true", help="skip the discarded warm-up run of each")
    parser.add_argument("--quiet-below", type=float, default=0.0, metavar="LOAD",
                        help="before each measured run of the corpus, wait (at most 5 min) until the 1-minute "
                             "load average is below LOAD, so that every run starts on a quiet machine [no wait]")
    parser.add_argument("--no-results", action="store_true", help="do not rewrite bench/RESULTS.md")
    parser.add_argument("--rev", default="HEAD", help="measure flowwalk as committed at REV [HEAD]")
    parser.add_argument("--live", action="store_true", help="measure the working tree instead of a commit")
    parser.add_argument("--rescale", type=Path, metavar="JSON",
                        help="keep the rounds and first results of this earlier bench-*.json (same commit) and "
                             "measure only the scaling and validate again")
    parser.add_argument("--note", action="append", default=[], help="a sentence for RESULTS.md's notes (repeatable)")
    parser.add_argument("--flowwalk-arg", action="append", default=[], metavar="ARG",
                        help="an extra argument for `flowwalk run`, for experiments (implies --no-results)")
    args = parser.parse_args(argv)
    if args.flowwalk_arg:
        problem = check_config(args.flowwalk_arg)
        if problem:
            parser.error(problem)
        IMPLS["flowwalk"] = Flowwalk(args.flowwalk_arg)
        args.no_results = True

    impl_names = [n.strip() for n in args.impls.split(",") if n.strip()]
    for name in impl_names:
        if name not in IMPLS:
            parser.error(f"--impls: unknown '{name}'; choose from {', '.join(IMPLS)}")
    worker_counts: list[int] = args.workers
    slugs = [s.strip() for s in args.flows.split(",") if s.strip()] or None
    all_slugs = sorted(p.name[:-len(".flow.yaml")] for p in FLOWS.glob("*.flow.yaml"))
    for slug in [*(slugs or ()), args.first_flow]:
        if slug not in all_slugs:
            parser.error(f"unknown flow '{slug}'; the corpus has {', '.join(all_slugs)}")
    expected = len(slugs) if slugs else len(all_slugs)

    from flowwalk.serve import StaticServer
    from flowwalk.settings import default_executable

    ensure_npm_deps()
    OUT.mkdir(exist_ok=True)
    chromium = default_executable()
    flowwalk_src, measured = (None, "working tree") if args.live else snapshot(args.rev)
    started_at = dt.datetime.now(dt.timezone.utc)
    data: dict[str, Any] = {"started_at": started_at.isoformat(timespec="seconds"), "argv": sys.argv,
                            "machine": {**machine_info(chromium), "commit": measured}, "corpus": expected,
                            "impls": impl_names, "runs": [], "first_result": [], "scaling": [], "validate": [],
                            "failing": [], "failing_impls": [], "defaults": [],
                            "notes": list(args.note)}
    earlier: dict[str, Any] | None = None
    if args.rescale:
        earlier = json.loads(args.rescale.read_text())
        if earlier["machine"]["commit"] != measured:
            parser.error(f"--rescale: {args.rescale} measured {earlier['machine']['commit']}, not {measured}")
        data.update({k: earlier.get(k, []) for k in ("started_at", "argv", "corpus", "impls", "runs", "first_result",
                                                     "failing", "failing_impls", "defaults")})
        data["machine"] = {**earlier["machine"], "loadavg_rescale_start": data["machine"]["loadavg_start"]}
        data["rescaled_at"] = started_at.isoformat(timespec="seconds")
        args.rounds = args.first_rounds = args.failing_rounds = args.defaults_rounds = 0
        args.no_warmup = True
    print(f"bench: {expected} flows, rounds {args.rounds}, workers {worker_counts}, Chromium {chromium}, "
          f"flowwalk at {measured}", flush=True)

    with StaticServer(build_site()) as site:
        env = Env(base_url=site.url, chromium=chromium, demo_password=demo_password(), flowwalk_src=flowwalk_src)
        data["site"] = site.url
        runs: list[Measurement] = []
        if not args.no_warmup:
            print("warm-up (discarded):", flush=True)
            for name in impl_names:
                run_one(IMPLS[name], env, max(worker_counts), slugs, "warm-up", expected)
        for workers in worker_counts:
            print(f"workers {workers}:", flush=True)
            for round_no in range(1, args.rounds + 1):
                for name in impl_names:
                    settle(args.quiet_below)
                    runs.append(run_one(IMPLS[name], env, workers, slugs, f"w{workers} round {round_no}", expected))
        if earlier is None:
            data["runs"] = [dataclasses.asdict(r) for r in runs]
        else:
            runs = [measurement(r) for r in data["runs"]]

        if args.first_rounds:
            print(f"one-flow run ({args.first_flow}), time to the first result:", flush=True)
        for round_no in range(1, args.first_rounds + 1):
            for name in impl_names:
                result = run_one(IMPLS[name], env, 1, [args.first_flow], f"first round {round_no}", 1,
                                 first_slug=args.first_flow, tag="first")
                data["first_result"].append(dataclasses.asdict(result))

        failing_names = [n for n in ("flowwalk", "playwright-test") if n in impl_names]
        if args.failing_rounds and failing_names:
            FAILING["playwright-test"].slugs = slugs  # type: ignore[attr-defined]
            data["failing_impls"] = failing_names
            data["failing_broken"] = sorted(expected_failures(slugs))
            print(f"failing corpus ({len(expected_failures(slugs))} of {expected} flows broken), time to the verdict:",
                  flush=True)
            for workers in worker_counts:
                for round_no in range(1, args.failing_rounds + 1):
                    for name in failing_names:
                        result = run_one(FAILING[name], env, workers, slugs, f"failing w{workers} round {round_no}",
                                         expected, tag=f"failing-w{workers}")
                        data["failing"].append(dataclasses.asdict(result))

        if args.defaults_rounds and failing_names:
            # what a user gets without choosing: flowwalk 2 workers per CPU, Playwright Test half the CPUs
            print("each tool at its own default workers (no --workers):", flush=True)
            for round_no in range(1, args.defaults_rounds + 1):
                for corpus, impls in (("passing", IMPLS), ("failing", FAILING)):
                    for name in failing_names:
                        result = run_one(impls[name], env, 0, slugs, f"defaults {corpus} round {round_no}", expected,
                                         tag=f"{corpus}-defaults")
                        data["defaults"].append(dataclasses.asdict(result))

        if not args.skip_scaling and "flowwalk" in impl_names:
            sizes = [100] if args.quick else [100, 1000]
            scale_workers = max(worker_counts)
            print(f"scaling (flowwalk, workers {scale_workers}):", flush=True)
            for size in sizes:
                folder = make_scale_corpus(size)
                # the default run timeout (300 s) is for a CI job's checks, not for 1,000 scenarios
                scaled = Flowwalk([*IMPLS["flowwalk"].extra, "--run-timeout", str(max(600, size * 6))])  # type: ignore[attr-defined]
                result = run_one(scaled, env, scale_workers, None, f"scale {size}", size,
                                 paths=[folder], tag=f"scale{size}")
                data["scaling"].append(dataclasses.asdict(result))
            folder = make_scale_corpus(1000)
            print("flowwalk validate, 1,000 specs:", flush=True)
            for round_no in range(1, 4):
                cmd = [str(VENV_BIN / "flowwalk"), "validate", os.path.relpath(folder, ROOT)]
                result, stdout, stderr = measure("flowwalk", f"validate {round_no}", cmd, cwd=ROOT,
                                                 env=_flowwalk_env(env), workers=0, flows=1000)
                result.ok = result.returncode == 0
                if not result.ok:
                    result.problems.append(f"exit code {result.returncode}: {(stdout + stderr)[-800:]}")
                _show(result)
                data["validate"].append(dataclasses.asdict(result))

    finished = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    if earlier is None:
        data["finished_at"] = finished
        data["machine"]["loadavg_end"] = Path("/proc/loadavg").read_text().split()[:3]
    else:
        data["finished_at"] = earlier["finished_at"]
        data["rescale_finished_at"] = finished
    data["summary"] = summarize(runs, impl_names)
    if data["failing"]:
        failing_runs = [measurement(r) for r in data["failing"]]
        data["failing_summary"] = summarize(failing_runs, data["failing_impls"])
    if data["defaults"]:
        data["defaults_summary"] = defaults_summary(data["defaults"], failing_names)
    from results_md import failed_runs, render_results

    failures = failed_runs(data)
    data["valid"] = not failures
    stamp = started_at.strftime("%Y%m%dT%H%M%SZ")
    raw = OUT / f"bench-{stamp}.json"
    raw.write_text(json.dumps(data, indent=1))

    text = render_results(data, raw_path=os.path.relpath(raw, ROOT))
    print()
    print(text)
    if not args.no_results:
        from sessions import kept_block

        # the sign-in-once section is bench/sessions.py's own measurement: kept as it was
        (BENCH / "RESULTS.md").write_text(text.rstrip("\n") + "\n" + kept_block())
        print(f"bench: wrote bench/RESULTS.md and {os.path.relpath(raw, ROOT)}")
    if failures:
        print(f"bench: INVALID comparison: {len(failures)} run(s) had failing flows (see above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
