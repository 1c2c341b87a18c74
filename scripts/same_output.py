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
  exit code;
- the presenters (part `presenters`) over tests/sample_run.py's synthetic runs (failing, passing
  on retry, cancelled, excused by a gate, healed, a shard of two, generated flows): verdict.json,
  summary.md, report.html, junit.xml, the console's last lines, the PR comment (GitHub and GitLab
  links, a tight limit), the job summary, the Action's outputs, annotations and check-run
  headline, and the MCP server's answers (list_reports, explain_failure for every test,
  heal questions). Each presenter takes what `build_reports` returns in the tree recorded.

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


def _sample_runs(base: Path) -> dict[str, Path]:
    """tests/sample_run.py's runs, each written to its own folder under `base`."""
    import dataclasses

    sys.path.insert(0, str(ROOT / "tests"))
    from sample_run import healed_events, sample_events, sample_suites, write_sample_run  # type: ignore[import-not-found]

    from flowwalk.events import Heal, RunStarted
    from flowwalk.plan.shard import plan_run
    from flowwalk.settings import Settings

    suites = sample_suites()
    record = plan_run(suites, Settings()).record()
    checkout = "examples/flows/checkout.flow.yaml#Checkout saves the order"
    gate = {"fail_on": "new",
            "base": {"path": "base", "run_id": "base-1",
                     "tests": {"examples/flows/account.flow.yaml#Account settings": "failed",
                               "examples/rules/shop.rules.yaml#shop/login": "failed"}},
            "quarantine": {"path": "flowwalk-quarantine.yaml", "today": "2026-01-01", "unknown": ["gone#x"],
                           "entries": [{"id": checkout, "owner": "@ada", "reason": "slow_ci [tracked]",
                                        "expires": "2099-12-31", "expired": False, "line": 3, "tests": [checkout]}]}}
    excused = sample_events(suites, record)
    assert isinstance(excused[0], RunStarted)
    excused[0] = dataclasses.replace(excused[0], gate=gate)
    heal = Heal(old_selector="#old", new_selector="#new", method="deterministic", score=0.9, target="the button",
                step_index=2, path="examples/flows/a.flow.yaml", line=5, screenshot="screenshots/heal.png",
                candidates=({"selector": "#new", "score": 0.9},), renames={"#old": "#new"})
    other = dataclasses.replace(heal, old_selector="button.buy", new_selector="role=button[name='Buy']",
                                method="model", score=0.7, step_index=3, line=9, screenshot=None, renames={})
    # a failure with every kind of evidence, and a readiness wait that ran out
    from flowwalk.events import Baseline, Failure, RuleFinished, Violation
    evidence = sample_events(suites, record)
    assert isinstance(evidence[0], RunStarted)
    evidence[0] = dataclasses.replace(evidence[0], readiness={
        "url": "http://127.0.0.1:9/health", "expected": "200", "ready": False, "attempts": 3, "waited_s": 1.5,
        "last": "connection refused", "timeout_s": 1.5, "cancelled": False})
    first = next(i for i, e in enumerate(evidence) if isinstance(e, RuleFinished) and e.status == "failed"
                 and e.failure is not None and e.failure.step_kind != "parent_failed")
    failed = evidence[first]
    assert isinstance(failed, RuleFinished) and failed.failure is not None
    evidence[first] = dataclasses.replace(failed, screenshots=(), failure=dataclasses.replace(
        failed.failure, screenshot=None, runtime_code="AMBIGUOUS_TARGET", message="3 candidates tied",
        diff="- Apples\n+ Pears\n  Plums",
        violations=(Violation(rule="image-alt", impact="critical", help="Images must have alternative text",
                              help_url="https://dequeuniversity.com/rules/axe/4.9/image-alt",
                              targets=("img.hero", "img.logo"), count=3, url="http://127.0.0.1:1/"),
                    Violation(rule="label", impact="serious", help="Form elements must have labels",
                              help_url="http://elsewhere/label", count=1)),
        baseline=Baseline(kind="screenshot", name="home", path="baselines/home.png", status="mismatch",
                          observed="baselines/home.observed.png", expected="baselines/home.expected.png",
                          diff="baselines/home.diff.png", text_diff="- a\n+ b", diff_pixels=120, diff_ratio=0.0123),
        recovery=(), candidates=({"selector": "#a", "score": 0.5}, "not a dict"),
        context={"url": "http://127.0.0.1:1/cart", "title": "Cart", "a11y_snapshot": "- button \"Save\"",
                 "console": [{"type": "error", "text": "boom"}, "old string"], "page_errors": ["TypeError: x"],
                 "network": [{"url": "/a", "status": 200}, {"url": "/b", "status": 500}, {"url": "/c"}],
                 "blocked": ["http://tracker/"], "last_click": {"x": 1, "y": 2},
                 "evidence_skipped": {"screenshot": "the page did not answer"}, "setup": "x#setup"}))
    bigger = sample_suites(extra=12)
    sharded = plan_run(suites, Settings(shard_index=1, shard_total=2)).record()
    runs = {
        "failing": sample_events(suites, record),
        "no-retries": sample_events(suites, record, retries=0, arrival="reversed"),
        "cancelled": sample_events(suites, record, cancel_after=3),
        "flaky-fails": sample_events(suites, record, flaky_policy="fail"),
        "excused": excused,
        "healed": healed_events([("examples/flows/a.flow.yaml#A", heal), ("examples/flows/a.flow.yaml#A", other),
                                 ("examples/flows/b.flow.yaml#B", heal)]),
        "healed-flaky-fail": healed_events([("examples/flows/a.flow.yaml#A", heal)], attempts=2, heal_policy="fail"),
        "shard-1-of-2": sample_events(suites, sharded),
        "generated": sample_events(bigger, plan_run(bigger, Settings()).record()),
        "evidence": evidence,
    }
    folders = {}
    for name, events in runs.items():
        folders[name] = base / name
        write_sample_run(folders[name], events)
    return folders


def presenters(raw: Path, norm: Path) -> None:
    """Every presenter over the sample runs; each file of norm/presenters/RUN is one presenter's text."""
    import contextlib
    import io

    from flowwalk.github import actions, render
    from flowwalk.github.gitlab import GitLabSettings, gitlab_links
    from flowwalk.github.publish import _summary_markdown, load_verdict
    from flowwalk.mcp import explain, operations
    from flowwalk.mcp.workspace import Workspace
    from flowwalk.report.build import build_reports
    from flowwalk.report.console import ConsoleReporter
    from flowwalk.report.records import read_run
    from flowwalk.report.summary import render_summary
    from flowwalk.report.html import render_html

    links = render.RunLinks(repository="acme/shop", sha="0123456789abcdef0123", run_url="https://ci/run/1",
                            artifact_url="https://ci/run/1#artifacts", base_url="http://127.0.0.1:8000")
    lab = gitlab_links(GitLabSettings(server_url="https://gitlab.example", project_path="acme/shop",
                                      sha="0123456789abcdef0123", job_url="https://gitlab.example/job/1"))
    for name, folder in _sample_runs(raw / "samples").items():
        dest = norm / "presenters" / name
        dest.mkdir(parents=True)
        stderr = io.StringIO()
        verdict = build_reports(folder, stderr=stderr)
        records = read_run(folder)
        loaded = load_verdict(folder)
        files = {
            "build.stderr": stderr.getvalue(),
            "summary-again.md": render_summary(verdict, records),
            "summary-small.md": render_summary(verdict, records, limit=3_000),
            "report-again.html": render_html(verdict, records),
            "comment.md": render.render_comment(verdict, links, name="e2e"),
            "comment-loaded.md": render.render_comment(loaded, links),
            "comment-plain.md": render.render_comment(loaded, render.RunLinks()),
            "comment-gitlab.md": render.render_comment(loaded, lab, name="lab"),
            "comment-tight.md": render.render_comment(loaded, links, limit=2_500),
            "comment-tighter.md": render.render_comment(loaded, links, limit=900),
            "job-summary.md": _summary_markdown(folder, loaded, links),
            "markdown.md": render.render_markdown(loaded, links),
            "headline.txt": f"{render.headline(loaded)}\n{actions.headline(loaded)}\n{actions.conclusion_of(loaded)}\n"
                            f"{actions.status_state_of(loaded)}\n{render.verdict_digest(loaded)}\n",
            "outputs.txt": actions.format_outputs(actions.verdict_outputs(loaded, str(folder), "https://c/1")),
            "annotations.txt": "\n".join(actions.annotation_commands(
                actions.collect_annotations(loaded, str(raw / "samples")))) + "\n",
        }
        for nocolor in (True, False):
            stream = io.StringIO()
            ConsoleReporter(stream, color=not nocolor, report_dir=str(folder)).finish(verdict)
            files[f"console-{'plain' if nocolor else 'color'}.txt"] = stream.getvalue()
        ws = Workspace.at(raw / "samples")
        files["mcp-report.json"] = operations.report_entry(ws, folder).model_dump_json(indent=1)
        files["mcp-heal-questions.txt"] = "".join(f"{q.out().model_dump_json(indent=1)}\n"
                                                  for q in operations.heal_questions(folder))
        explained = []
        for test in json.loads((folder / "verdict.json").read_text())["tests"] + [{"test_id": "no/such#test"}]:
            try:
                explained.append(explain.explain(folder, name, test["test_id"]).model_dump_json(indent=1))
            except Exception as error:  # noqa: BLE001 - what it says is the output
                explained.append(f"{type(error).__name__}: {error}")
        files["mcp-explain.txt"] = "\n".join(explained) + "\n"
        with contextlib.suppress(FileNotFoundError):
            for f in sorted(folder.iterdir()):
                if f.is_file() and f.suffix in (".xml", ".json", ".md", ".html"):
                    files[f"written-{f.name}"] = f.read_text()
        for fname, text in files.items():
            (dest / fname).write_text(re.sub(r"ghadelimiter_[0-9a-f-]+", "ghadelimiter_<ID>", normalise(text, raw)))


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
    parts = sys.argv[1:] and os.environ.get("SAME_OUTPUT_PARTS", "examples,discover,heal,bad,presenters").split(",")
    if "bad" in parts:
        bad_input(norm, raw)
    if "examples" in parts:
        examples(raw, norm)
    if "discover" in parts:
        discover(raw, norm)
    if "heal" in parts:
        heal_corpus(norm)
    if "presenters" in parts:
        presenters(raw, norm)
    print(f"recorded in {norm}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
