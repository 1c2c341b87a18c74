#!/usr/bin/env python3
"""Record what flowwalk produces, normalised, so a refactor can show it changed nothing.

    .venv/bin/python scripts/same_output.py OUT_DIR        # at the branch point, then after
    .venv/bin/python scripts/same_output.py compare before/norm after/norm

SAME_OUTPUT_ROOT=DIR records another tree (`git archive <commit> | tar -x -C DIR`) with this
venv's libraries, so the branch point can be recorded while the worktree changes.

It runs, into OUT_DIR/raw (kept for inspection) and writes the normalised copies to OUT_DIR/norm:

- the examples: `flowwalk run examples/flows examples/rules examples/robot` and `examples/failing`
  against the served example site, and `tests/report-flows` against the failing run's report;
  each folder's emit.jsonl, then every report `flowwalk report` rebuilds from that log;
- `flowwalk discover` on tests/site/pages/discover (what the page survey sees becomes specs);
- the healing corpus (tests/integration/test_heal_corpus.py's steps and pages): each heal's
  outcome (selector, method, score, reason, candidates);
- the bad-input corpus: `flowwalk validate` on every input under tests/corpus, its message and
  exit code.

Normalised away: times and durations, ports, the temporary paths, run ids. Everything runs with
one worker so the events come in one order.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: the tree whose code, examples and corpus are recorded (default: this one); its src/ comes first
ROOT = Path(os.environ.get("SAME_OUTPUT_ROOT") or Path(__file__).resolve().parent.parent).resolve()
sys.path.insert(0, str(ROOT / "src"))
FLOWWALK = [sys.executable, "-c", "import sys; from flowwalk.entry import main; sys.exit(main())"]
DEMO = ["--var", "DEMO_USER=ada@example.com", "--secret", "DEMO_PASSWORD"]

_TIME_KEYS = re.compile(r'"(t|ts|time|started|ended|start|end|duration_ms|duration_s|elapsed_ms|elapsed_s|'
                        r'wall_s|cpu_s|at|timestamp|started_at|finished_at|waited_ms|took_ms|read_ms|ms)"'
                        r':\s*-?[0-9.e+-]+')
_ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")
_PORT = re.compile(r"(127\.0\.0\.1|localhost):\d+")
_SECONDS = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")
_NUMBER_TIME = re.compile(r'(time=|"time": ?|duration=)"?[0-9.]+"?')


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEMO_PASSWORD": "correct-horse-battery", "NO_COLOR": "1", "GITHUB_ACTIONS": "",
           "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([*FLOWWALK, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def normalise(text: str, tmp: Path) -> str:
    text = text.replace(str(tmp), "<TMP>").replace(str(ROOT), "<ROOT>")
    # timings under any name, and what depends on them: how many reads a failing check took before
    # its deadline; the analytics client id the site makes from the clock; ports inside encoded URLs
    text = re.sub(r'"(\w+_(?:ms|s))":\s*-?[0-9.e+-]+', r'"\1": 0', text)
    text = re.sub(r'"reads":\s*\d+', '"reads": <N>', text)
    text = re.sub(r"\b\d+ read\(s\)", "<N> read(s)", text)
    text = re.sub(r"cid=\d+\.\d+", "cid=<CID>", text)
    # whether a check passed on a page that had been still for an interval (one read) or on two
    # reads depends on when the page last changed: timing too
    text = re.sub(r'"stability":\s*\{"by":\s*"(?:quiet|reads)"(?:,\s*"quiet_ms":\s*[^}]*)?\}', '"stability": "<BY>"', text)
    text = re.sub(r'"by":\s*"(?:quiet|reads)"(,\s*"quiet_ms":\s*[0-9.]+)?', '"by": "<BY>"', text)
    text = re.sub(r"%3A\d{2,5}", "%3A<PORT>", text)
    text = _TIME_KEYS.sub(lambda m: f'"{m.group(1)}": 0', text)
    text = _ISO.sub("<ISO>", text)
    text = _PORT.sub(r"\1:<PORT>", text)
    text = _NUMBER_TIME.sub(r"\1<T>", text)
    text = _SECONDS.sub("<DUR>", text)
    text = re.sub(r"\b\d+ min <DUR>", "<DUR>", text)   # a run that took over a minute (a loaded machine)
    text = re.sub(r'"run_id":\s*"[^"]*"', '"run_id": "<ID>"', text)
    text = re.sub(r"[0-9a-f]{32}|[0-9a-f]{12,16}", "<HEX>", text)
    return text


def emit_lines(path: Path, tmp: Path) -> str:
    """emit.jsonl with its lines sorted by (kind, scenario, rule, step) so ordering of concurrent
    writers cannot differ; each line normalised."""
    lines = [normalise(line, tmp) for line in path.read_text().splitlines() if line.strip()]
    return "\n".join(lines) + "\n"


def examples(raw: Path, norm: Path) -> None:
    runs = {
        "passing": ["examples/flows", "examples/rules", "examples/robot"],
        "failing": ["examples/failing"],
    }
    for name, paths in runs.items():
        out = raw / name
        result = run("run", *paths, "--serve", "examples/site", *DEMO, "--workers", "1", "--out", str(out))
        (norm / f"{name}.exit").write_text(f"{result.returncode}\n")
        collect(out, norm / name, raw)
    served = raw / "failing-artifact"
    shutil.copytree(raw / "failing", served)
    out = raw / "report-flows"
    result = run("run", "tests/report-flows", "--serve", str(served), "--offline", "--workers", "1", "--out", str(out))
    (norm / "report-flows.exit").write_text(f"{result.returncode}\n")
    collect(out, norm / "report-flows", raw)


def collect(out: Path, dest: Path, tmp: Path) -> None:
    """emit.jsonl, and every report rebuilt from it by `flowwalk report`."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(out / "emit.jsonl", dest / "emit.raw.jsonl")
    (dest / "emit.jsonl").write_text(emit_lines(out / "emit.jsonl", tmp))
    rebuilt = tmp / f"rebuilt-{out.name}"
    rebuilt.mkdir(exist_ok=True)
    shutil.copy(out / "emit.jsonl", rebuilt / "emit.jsonl")
    result = run("report", str(rebuilt))
    (dest / "report.exit").write_text(f"{result.returncode}\n{normalise(result.stderr, tmp)}")
    for f in sorted(rebuilt.iterdir()):
        if f.is_file() and f.suffix in (".xml", ".json", ".md", ".html", ".txt") and f.name != "emit.jsonl":
            (dest / f"rebuilt-{f.name}").write_text(normalise(f.read_text(errors="replace"), tmp))


def discover(raw: Path, norm: Path) -> None:
    from flowwalk.serve import StaticServer

    site = StaticServer(ROOT / "tests" / "site" / "pages")
    site.start()
    try:
        out = raw / "discover"
        result = run("discover", f"{site.url}/discover/index.html", "--out", str(out), "--no-model")
    finally:
        site.stop()
    dest = norm / "discover"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "exit").write_text(f"{result.returncode}\n")
    for f in sorted(out.rglob("*")):
        if f.is_file() and f.suffix in (".yaml", ".json", ".md"):
            rel = str(f.relative_to(out)).replace("/", "__")
            (dest / rel).write_text(normalise(f.read_text(errors="replace"), raw))


def heal_corpus(norm: Path) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "integration"))
    from playwright.sync_api import sync_playwright

    import test_heal_corpus as corpus  # type: ignore[import-not-found]
    from flowwalk.browser import Browser
    from flowwalk.serve import StaticServer
    from flowwalk.settings import Settings, default_executable

    site = StaticServer(ROOT / "tests" / "site" / "pages")
    site.start()
    lines = []
    try:
        with sync_playwright() as pw:
            browser = Browser.launch(Settings(executable=default_executable(), action_timeout_ms=5_000, navigation_timeout_ms=10_000), playwright=pw)
            try:
                def fresh():  # type: ignore[no-untyped-def]
                    return browser.new_session(entry_url=f"{site.url}/", allowed_hosts=())

                s = fresh()
                fps = corpus.fingerprints(s, site)
                s.close()
                for page, steps in corpus.CASES.items():
                    for name in steps:
                        for use_fp in (True, False):
                            s = fresh()
                            outcome, right, _ = corpus.heal_on(s, site, page, name, fps[name] if use_fp else None)
                            s.close()
                            lines.append(json.dumps({"page": page, "step": name, "fingerprint": use_fp,
                                                     "selector": outcome.selector, "method": outcome.method,
                                                     "score": outcome.score, "reason": outcome.reason,
                                                     "candidates": outcome.candidates, "right": right},
                                                    sort_keys=True))
            finally:
                browser.close()
    finally:
        site.stop()
    (norm / "heal-corpus.jsonl").write_text("\n".join(lines) + "\n")


def bad_input(norm: Path, tmp: Path) -> None:
    out = []
    corpus = ROOT / "tests" / "corpus"
    for f in sorted(corpus.rglob("*")):
        if not f.is_file() or f.name.endswith(".expected"):
            continue
        result = run("validate", str(f.relative_to(ROOT)))
        out.append(f"== {f.relative_to(ROOT)} exit {result.returncode}\n"
                   f"{normalise(result.stdout, tmp)}{normalise(result.stderr, tmp)}")
    (norm / "bad-input.txt").write_text("".join(out))


def _zero_times(data: object) -> object:
    """The report page's data with step times and read counts (the 5th and 6th items of a step row) and `ms` zeroed."""
    if isinstance(data, dict):
        return {k: 0 if k == "ms" else (_steps(v) if k == "steps" else _zero_times(v)) for k, v in data.items()}
    if isinstance(data, list):
        return [_zero_times(v) for v in data]
    return data


def _steps(rows: object) -> object:
    if not isinstance(rows, list):
        return _zero_times(rows)
    return [[0 if i in (4, 5) else _zero_times(x) for i, x in enumerate(r)] if isinstance(r, list) else _zero_times(r)
            for r in rows]


def _unordered_slowest(name: str, text: str) -> str:
    """The 'slowest' lists are the tests with the longest measured times: left out."""
    if name.endswith("verdict.json"):
        data = json.loads(text)
        data.pop("slowest", None)
        return json.dumps(data, indent=1, sort_keys=True)
    if name.endswith("summary.md"):
        return re.sub(r"### Slowest\n\n\| test \| duration \|\n\|---\|---:\|\n(?:\|.*\n)*", "### Slowest\n", text)
    if name.endswith("report.html"):
        text = re.sub(r"<div><h2>Slowest</h2>.*?</table></div>", "<SLOWEST>", text, flags=re.S)

        def data(m: re.Match[str]) -> str:
            return json.dumps(_zero_times(json.loads(m.group(1))), indent=1, sort_keys=True)
        return re.sub(r'id="fw-data">(.*?)</script>', data, text, flags=re.S)
    return text


def compare(a: Path, b: Path) -> int:
    """Normalise both recordings again (the rules may have grown since) and print what differs."""
    differ = 0
    files = sorted({p.relative_to(a) for p in a.rglob("*") if p.is_file()}
                   | {p.relative_to(b) for p in b.rglob("*") if p.is_file()})
    for rel in files:
        if rel.name == "emit.raw.jsonl":
            continue
        left, right = a / rel, b / rel
        if not left.exists() or not right.exists():
            print(f"only in {'the second' if right.exists() else 'the first'}: {rel}")
            differ += 1
            continue
        x = _unordered_slowest(rel.name, normalise(left.read_text(errors="replace"), a)).splitlines()
        y = _unordered_slowest(rel.name, normalise(right.read_text(errors="replace"), b)).splitlines()
        if x != y:
            differ += 1
            import difflib
            print("".join(list(difflib.unified_diff([l + "\n" for l in x], [l + "\n" for l in y],
                                                    f"a/{rel}", f"b/{rel}", n=0))[:40]))
    print(f"{len(files)} files compared, {differ} differ")
    return 1 if differ else 0


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "compare":
        return compare(Path(sys.argv[2]), Path(sys.argv[3]))
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    base = Path(sys.argv[1]).resolve()
    raw, norm = base / "raw", base / "norm"
    for d in (raw, norm):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    parts = sys.argv[1:] and os.environ.get("SAME_OUTPUT_PARTS", "examples,discover,heal,bad").split(",")
    if "bad" in parts:
        bad_input(norm, raw)
    if "examples" in parts:
        examples(raw, norm)
    if "discover" in parts:
        discover(raw, norm)
    if "heal" in parts:
        heal_corpus(norm)
    print(f"recorded in {norm}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
