"""The benchmark harness measures what it claims and refuses a comparison with failing flows.

No browser: the measurements are checked on small processes whose memory, CPU and output are
known, and the verdict checks on the outputs each tool writes. Run with
`.venv/bin/pytest bench/tests`.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import make_corpus  # noqa: E402
import run  # noqa: E402
from results_md import render_results  # noqa: E402


def test_the_committed_corpus_is_in_step_with_the_table() -> None:
    assert make_corpus.main(["--check"]) == 0
    families: dict[str, int] = {}
    for flow in make_corpus.FLOWS:
        families[flow.family] = families.get(flow.family, 0) + 1
    assert len(make_corpus.FLOWS) >= 40
    # the example site's ten families and the lab's four (bench/site), four variants each
    assert len(families) == 14 and set(families.values()) == {4}
    assert len(list((BENCH / "flows").glob("*.flow.yaml"))) == len(make_corpus.FLOWS)


def test_each_step_becomes_one_statement_in_both_code_forms() -> None:
    ts = "\n".join(make_corpus.ts_file(f.family, [f]) for f in make_corpus.FLOWS)
    py = make_corpus.py_module(make_corpus.FLOWS)
    for flow in make_corpus.FLOWS:
        body_ts = ts.split(json.dumps(flow.slug + ": " + flow.name))[1].split("\n});")[0]
        statements_ts = [line for line in body_ts.splitlines()[1:] if line.strip().startswith(("await", "vars."))]
        assert len(statements_ts) == len(flow.steps), flow.slug
        func = "def flow_" + flow.slug.replace("-", "_") + "("
        body_py = py.split(func)[1].split("\n\n")[0]
        statements_py = [line for line in body_py.splitlines()[1:] if not line.strip().startswith("extracted: dict")]
        assert len(statements_py) == len(flow.steps), flow.slug


def test_a_placeholder_nothing_supplies_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = make_corpus.Flow("x", 1, "uses an unknown variable", "/", (make_corpus.fill("#a", "{{NOPE}}", "a"),))
    monkeypatch.setattr(make_corpus, "FLOWS", (bad,))
    with pytest.raises(SystemExit, match="NOPE"):
        make_corpus._check_table()


CHILD = """
import os, sys, time, subprocess
# a grandchild holding ~150 MB, and this process burning ~0.6 s of CPU, then a result line
holder = subprocess.Popen([sys.executable, "-c", "b = bytearray(150 * 2**20); import time; time.sleep(1.0)"])
time.sleep(0.4)
end = time.process_time() + 0.6
while time.process_time() < end:
    pass
print("ok first", flush=True)
time.sleep(0.3)
holder.wait()
"""


def test_measure_sums_the_tree_memory_counts_cpu_and_times_the_first_result(tmp_path: Path) -> None:
    result, stdout, _ = run.measure("floor", "probe", [sys.executable, "-c", CHILD], cwd=tmp_path,
                                    env={"PATH": "/usr/bin:/bin"}, workers=1, flows=1,
                                    first_result=lambda text: "ok first" in text)
    assert "ok first" in stdout
    assert result.returncode == 0
    assert result.peak_rss_mb >= 150          # the grandchild's memory is part of the tree
    assert 150 <= result.peak_pss_mb <= result.peak_rss_mb   # its pages are its own: PSS counts them too
    assert result.peak_procs >= 2
    assert result.cpu_s >= 0.55               # user + sys of the tree
    assert result.first_result_s is not None and 0.9 <= result.first_result_s < result.wall_s
    assert result.wall_s >= 1.0


def test_a_failed_flowwalk_run_is_refused(tmp_path: Path) -> None:
    verdict = {"counts": {"total": 2, "passed": 1, "failed": 1},
               "tests": [{"test_id": "a", "status": "passed", "findings": []},
                         {"test_id": "b", "status": "failed",
                          "failure": {"failure_class": "assertion_failed", "message": "no 'Saved'"}}]}
    (tmp_path / "verdict.json").write_text(json.dumps(verdict))
    result = run.Measurement("flowwalk", "r1", [], 1, 2, returncode=1)
    problems = run.Flowwalk().verify(result, "", tmp_path, 2)
    assert any("b: failed assertion_failed no 'Saved'" in p for p in problems)
    assert any("exit code 1" in p for p in problems)


def test_a_passed_flow_with_a_finding_is_refused_too(tmp_path: Path) -> None:
    verdict = {"counts": {"total": 1, "passed": 1},
               "tests": [{"test_id": "a", "status": "passed", "findings": [{"message": "console error"}]}]}
    (tmp_path / "verdict.json").write_text(json.dumps(verdict))
    problems = run.Flowwalk().verify(run.Measurement("flowwalk", "r1", [], 1, 1), "", tmp_path, 1)
    assert problems and "findings" in problems[0]


def test_playwright_test_and_floor_outputs_are_checked() -> None:
    good = run.Measurement("playwright-test", "r1", [], 1, 40)
    assert run.PlaywrightTest().verify(good, "Running 40 tests\n····\n  40 passed (20.1s)\n", Path("."), 40) == []
    bad = run.PlaywrightTest().verify(run.Measurement("playwright-test", "r1", [], 1, 40, returncode=1),
                                      "  1 failed\n  39 passed (20.1s)\n", Path("."), 40)
    assert "1 failed" in bad and "39 passed, expected 40" in bad
    assert run.Floor().verify(run.Measurement("floor", "r1", [], 1, 40), "40 passed, 0 failed\n", Path("."), 40) == []
    floor_bad = run.Floor().verify(run.Measurement("floor", "r1", [], 1, 40, returncode=1),
                                   "FAIL team-1: AssertionError: x\n39 passed, 1 failed\n", Path("."), 40)
    assert any("FAIL team-1" in p for p in floor_bad)


def test_first_result_detectors_ignore_headers() -> None:
    dot = run.PlaywrightTest().first_result("team-1")
    assert not dot("\nRunning 1 test using 1 worker\n")
    assert dot("\nRunning 1 test using 1 worker\n·")
    floor = run.Floor().first_result("team-1")
    assert not floor("starting\n") and floor("ok team-1: five members (180 ms)\n")
    flowwalk = run.Flowwalk().first_result("team-1")
    # the result line counts as soon as it is complete, even as the last line so far
    assert flowwalk("flowwalk: 1 scenario\n✓ team-1: five members are listed\n")
    assert not flowwalk("flowwalk: 1 scenario\n✓ team-1: five mem")


def _run(impl: str, workers: int, wall: float, mem: float, label: str = "r") -> dict:
    return {"impl": impl, "workers": workers, "flows": 40, "wall_s": wall, "cpu_s": wall / 2, "peak_rss_mb": mem, "ok": True,
            "label": label, "command": [impl], "first_result_s": None, "problems": []}


def test_results_name_each_target_met_or_not() -> None:
    runs = [run.Measurement(**{k: v for k, v in _run(i, w, wall, mem).items()
                               if k in run.Measurement.__dataclass_fields__})
            for w in (1, 2) for i, wall, mem in (("flowwalk", 8.0, 500), ("playwright-test", 10.0, 600),
                                                 ("floor", 7.0, 450), ("flowwalk-rules", 8.2, 500))]
    data = {"started_at": "t0", "finished_at": "t1", "valid": True, "corpus": 40,
            "impls": ["flowwalk", "playwright-test", "floor", "flowwalk-rules"],
            "machine": {"flowwalk": "0.1.0", "commit": "abc", "nproc": 2, "loadavg_start": ["0", "0", "0"],
                        "loadavg_end": ["1", "1", "1"], "cpu_model": "cpu", "memory_gb": 8, "kernel": "k",
                        "chromium": "/c", "chromium_version": "C 1", "python": "3", "playwright_python": "1",
                        "node": "v20", "playwright_test": "1"},
            "runs": [_run("flowwalk", 1, 8.0, 500)],
            "summary": run.summarize(runs, ["flowwalk", "playwright-test", "floor", "flowwalk-rules"]),
            "first_result": [], "scaling": [{**_run("flowwalk", 2, 50.0, 700), "flows": 100},
                                            {**_run("flowwalk", 2, 520.0, 760), "flows": 1000}],
            "validate": [_run("flowwalk", 0, 1.2, 90)]}
    failing = [run.Measurement(i, "f", [], w, 40, wall_s=wall, cpu_s=5, peak_rss_mb=500)
               for w in (1, 2) for i, wall in (("flowwalk", 40.0), ("playwright-test", 50.0))]
    data.update(failing=[dataclasses.asdict(m) | {"ok": True} for m in failing],
                failing_impls=["flowwalk", "playwright-test"],
                failing_summary=run.summarize(failing, ["flowwalk", "playwright-test"]))
    text = render_results(data)
    # issue 30's targets: against the floor, and the rule file against the flows
    assert "≤ 0.85, workers 1" not in text
    assert "| flowwalk / floor wall ≤ 1.00, workers 2 | 1.143 | **not met** |" in text
    assert "| flowwalk tree CPU ≤ 1.05 × the floor's, workers 1 | 1.143 | **not met** |" in text
    assert "| rule file (RFC 010's stability) ≤ 1.05 × the flows' wall, workers 1 | 1.025 | met |" in text
    assert "| failing corpus: time to verdict vs Playwright Test's, workers 2 | 0.80 | withdrawn (issue 30) |" in text
    assert "| 1,000 scenarios ≤ 10.5 × the time of 100 | 10.40 × | met |" in text
    assert "| `flowwalk validate` of 1,000 specs < 1 s | 1.20 s | **not met** |" in text
    assert "5 wrong text, 3 wrong count, 4 missing element, 2 wrong URL" in text


def test_the_floor_lists_every_flow_by_the_spec_names() -> None:
    names = subprocess.run([sys.executable, "-c", "import floor_flows; print('\\n'.join(n for n, _ in floor_flows.FLOWS))"],
                           cwd=BENCH, capture_output=True, text=True, check=True).stdout.split("\n")
    import yaml

    spec_names = {yaml.safe_load(p.read_text())["name"] for p in (BENCH / "flows").glob("*.flow.yaml")}
    assert set(filter(None, names)) == spec_names


def test_targets_resting_on_failing_runs_are_marked_invalid() -> None:
    bad = {**_run("flowwalk", 1, 8.0, 500), "ok": False, "problems": ["team-1: failed"]}
    data = {"started_at": "t0", "finished_at": "t1", "valid": False, "corpus": 40, "impls": ["flowwalk", "floor"],
            "machine": {"flowwalk": "0.1.0", "commit": "abc", "nproc": 2, "loadavg_start": ["0", "0", "0"],
                        "cpu_model": "cpu", "memory_gb": 8, "kernel": "k", "chromium": "/c", "chromium_version": "C",
                        "python": "3", "playwright_python": "1", "node": "v20", "playwright_test": "1"},
            "runs": [bad, _run("floor", 1, 7.0, 450)],
            "summary": run.summarize([run.Measurement("flowwalk", "r", [], 1, 40, wall_s=8.0, cpu_s=4, peak_rss_mb=500),
                                      run.Measurement("floor", "r", [], 1, 40, wall_s=7.0, cpu_s=3, peak_rss_mb=450)],
                                     ["flowwalk", "floor"]),
            "first_result": [], "validate": [],
            "scaling": [{**_run("flowwalk", 2, 50.0, 700), "flows": 100},
                        {**_run("flowwalk", 2, 300.0, 760), "flows": 1000, "ok": False, "problems": ["timeout"]}]}
    text = render_results(data)
    assert "**INVALID**" in text
    assert "| flowwalk / floor wall ≤ 1.00, workers 1 | 1.143 | **invalid** (failing flows) |" in text
    assert "a scaling run had failing flows | **invalid** |" in text
    assert "- r, flowwalk: team-1: failed" in text


def test_flowwalk_is_measured_from_a_snapshot_of_one_commit() -> None:
    src, sha = run.snapshot("HEAD")
    assert sha == subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=BENCH, capture_output=True,
                                 text=True, check=True).stdout.strip()
    env = run._flowwalk_env(run.Env("http://127.0.0.1:1", "/c", "pw", flowwalk_src=src))
    where = subprocess.run([sys.executable, "-c", "import flowwalk; print(flowwalk.__file__)"], env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(Path(src) / "flowwalk" / "__init__.py")


def test_the_scale_corpus_follows_the_flows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    for name in ("a", "b"):
        (flows / f"{name}.flow.yaml").write_text(f"spec_version: '1'\nname: {name}\nurl: /\nsteps:\n"
                                                 f"- {{type: goto, url: /{name}.html}}\n")
    monkeypatch.setattr(run, "FLOWS", flows)
    monkeypatch.setattr(run, "OUT", tmp_path / "out")
    folder = run.make_scale_corpus(3)
    names = sorted(p.name for p in folder.glob("*.flow.yaml"))
    assert names == ["0001-a.flow.yaml", "0002-b.flow.yaml", "0003-a.flow.yaml"]
    assert "name: '#0003 a'" in (folder / "0003-a.flow.yaml").read_text()
    (flows / "a.flow.yaml").write_text((flows / "a.flow.yaml").read_text().replace("/a.html", "/changed.html"))
    folder = run.make_scale_corpus(3)
    assert "/changed.html" in (folder / "0003-a.flow.yaml").read_text()


def test_the_rule_file_and_the_failing_corpus_follow_the_table() -> None:
    import yaml

    scenarios = [scenario for where in ("corpus", "lab")
                 for scenario in yaml.safe_load((BENCH / "rules" / f"{where}.rules.yaml").read_text())["scenarios"]]
    assert sorted(p.name for p in (BENCH / "rules").glob("*.rules.yaml")) == ["corpus.rules.yaml", "lab.rules.yaml"]
    assert [s["rules"][0]["name"] for s in scenarios] == [f.slug for f in make_corpus.FLOWS]
    assert all(s["rules"][0]["steps"] == [dict(step) for step in f.steps]
               for s, f in zip(scenarios, make_corpus.FLOWS))
    failing = {p.name[:-len(".flow.yaml")]: yaml.safe_load(p.read_text())
               for p in (BENCH / "failing" / "flows").glob("*.flow.yaml")}
    assert len(failing) == len(make_corpus.FLOWS) and len(make_corpus.BREAKS) == 14
    assert {b.what for b in make_corpus.BREAKS} == {"wrong text", "wrong count", "missing element", "wrong URL"}
    for flow in make_corpus.FLOWS:
        steps = failing[flow.slug]["steps"]
        brk = next((b for b in make_corpus.BREAKS if b.slug == flow.slug), None)
        differ = [i + 1 for i, (a, b) in enumerate(zip(steps, flow.steps)) if a != b]
        assert differ == ([make_corpus.broken_index(brk)] if brk else []), flow.slug


def _verdict(tmp_path: Path, tests: list[dict]) -> Path:
    (tmp_path / "verdict.json").write_text(json.dumps({"tests": tests}))
    return tmp_path


def test_a_failing_corpus_run_must_fail_exactly_the_broken_flows_at_their_step(tmp_path: Path) -> None:
    def test(slug: str, status: str = "passed", cls: str | None = None, index: int | None = None) -> dict:
        failure = {"failure_class": cls, "step_index": index, "message": "m"} if cls else None
        return {"test_id": f"bench/failing/flows/{slug}.flow.yaml#{slug}: x", "status": status, "failure": failure}

    team = next(b for b in make_corpus.BREAKS if b.slug == "team-1")
    cookies = next(b for b in make_corpus.BREAKS if b.slug == "cookies-4")
    good = [test("team-1", "failed", "assertion_failed", make_corpus.broken_index(team)),
            test("cookies-4", "failed", "spec_step_unresolvable", make_corpus.broken_index(cookies)), test("login-1")]
    result = run.Measurement("flowwalk", "f", [], 1, 3, returncode=1)
    assert run.FailingFlowwalk().verify(result, "", _verdict(tmp_path, good), 3) == []
    wrong_step = [good[0] | {"failure": {"failure_class": "assertion_failed", "step_index": 2}}, *good[1:]]
    problems = run.FailingFlowwalk().verify(result, "", _verdict(tmp_path, wrong_step), 3)
    assert problems and "team-1 (wrong count)" in problems[0]
    unexpected = [*good[:2], test("login-1", "failed", "assertion_failed", 3)]
    assert any("login-1: failed" in p for p in run.FailingFlowwalk().verify(result, "", _verdict(tmp_path, unexpected), 3))


def test_playwright_test_on_the_failing_corpus_must_fail_exactly_the_broken_tests() -> None:
    impl = run.FailingPlaywrightTest()
    impl.slugs = ["team-1", "login-1"]
    out = ("Running 2 tests using 1 worker\n·F\n\n  1) team.spec.ts:3:5 › team-1: five members are listed ──\n\n"
           "  1 failed\n    team.spec.ts:3:5 › team-1: five members are listed\n  1 passed (9.0s)\n")
    assert impl.verify(run.Measurement("playwright-test", "f", [], 1, 2, returncode=1), out, Path("."), 2) == []
    other = out.replace("team-1", "login-1")
    assert impl.verify(run.Measurement("playwright-test", "f", [], 1, 2, returncode=1), other, Path("."), 2)
    cmd, _, _ = impl.command(run.Env("http://127.0.0.1:1", "/c", "pw"), 2, ["team-1"], Path("."))
    assert cmd[1:4] == ["test", "--config", "failing.config.ts"] and "failing/team.spec.ts" in cmd


def test_the_defaults_line_leaves_the_workers_to_each_tool_and_reads_what_it_used(tmp_path: Path) -> None:
    env = run.Env("http://127.0.0.1:1", "/c", "pw")
    for impl in (run.Flowwalk(), run.PlaywrightTest(), run.FailingFlowwalk(), run.FailingPlaywrightTest()):
        assert "--workers" not in impl.command(env, 0, None, tmp_path)[0]
        assert impl.command(env, 2, None, tmp_path)[0].count("--workers") == 1
    assert run.workers_used("\nRunning 40 tests using 1 worker\n····") == 1
    assert run.workers_used("flowwalk: 40 scenarios, 40 tests, 4 workers\n  ✓ a  0.2s\n") == 4
    assert run.workers_used("40 passed, 0 failed\n") is None

    def measured(impl: str, corpus: str, wall: float, used: int) -> dict:
        return dataclasses.asdict(run.Measurement(impl, f"defaults {corpus} round 1", [impl], 0, 40, workers_used=used,
                                                  wall_s=wall, cpu_s=5, peak_rss_mb=500, ok=True))

    records = [measured("flowwalk", "passing", 12.0, 4), measured("playwright-test", "passing", 22.0, 1),
               measured("flowwalk", "failing", 24.0, 4), measured("playwright-test", "failing", 80.0, 1)]
    data = {"started_at": "t0", "finished_at": "t1", "valid": True, "corpus": 40, "impls": ["flowwalk"],
            "machine": {"flowwalk": "0.1.0", "commit": "abc", "nproc": 2, "loadavg_start": ["0", "0", "0"],
                        "cpu_model": "cpu", "memory_gb": 8, "kernel": "k", "chromium": "/c", "chromium_version": "C",
                        "python": "3", "playwright_python": "1", "node": "v20", "playwright_test": "1"},
            "runs": [], "summary": {}, "first_result": [], "scaling": [], "validate": [],
            "failing_impls": ["flowwalk", "playwright-test"], "defaults": records,
            "defaults_summary": run.defaults_summary(records, ["flowwalk", "playwright-test"])}
    text = render_results(data)
    assert "### The 40 flows (workers used: flowwalk 4, Playwright Test 1)" in text
    assert "| ratio flowwalk/Playwright Test | 0.55 (0.55–0.55) |" in text
    assert ("| failing corpus: time to verdict ≤ 0.85 × Playwright Test's, each at its defaults (workers 4 and 1) "
            "| 0.30 | met |") in text
    records[2]["ok"] = False
    records[2]["problems"] = ["flowwalk exit 3"]
    assert "(workers 4 and 1) | 0.30 | **invalid** (unexpected results) |" in render_results(data)


def test_the_semantics_experiment_patches_the_current_code_and_only_its_copy(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH / "experiments"))
    import semantics_ab

    monkeypatch.setattr(semantics_ab, "COPY", tmp_path / "src")
    copy = Path(semantics_ab.patched_copy())
    for rel, anchor, replacement in semantics_ab.PATCHES:
        original = (BENCH.parent / "src" / rel).read_text()
        assert original.count(anchor) == 1 and "SEMANTICS_" not in original
        assert (copy / rel).read_text() == original.replace(anchor, replacement)
    # a moved anchor stops the experiment instead of measuring flowwalk unchanged
    monkeypatch.setattr(semantics_ab, "PATCHES", [("flowwalk/walk/actions.py", "no such text", "")])
    with pytest.raises(SystemExit, match="src/flowwalk/walk/actions.py changed"):
        semantics_ab.patched_copy()


@pytest.mark.parametrize("script", ["run.py", "experiments/semantics_ab.py"])
@pytest.mark.parametrize("given", ["1,x", "0", ","])
def test_a_bad_worker_list_is_refused_with_a_usage_line(script: str, given: str) -> None:
    done = subprocess.run([sys.executable, str(BENCH / script), "--workers", given], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"'{given}' is not a list of worker counts of 1 or more, such as 1,2" in done.stderr
    assert run.worker_counts_arg(" 1, 2 ") == [1, 2]


def test_the_login_heavy_variant_is_in_step_with_the_corpus_and_loads() -> None:
    import sessions

    files = sessions.corpus()
    committed = {p: p.read_text(encoding="utf-8") for p in [*sessions.EACH.glob("*.flow.yaml"),
                                                             *sessions.SESSION.glob("*.flow.yaml")]}
    assert committed == files, "run .venv/bin/python bench/sessions.py --make"
    each = sorted(p.name for p in sessions.EACH.glob("*.flow.yaml"))
    assert len(each) == 16 and sorted(p.name for p in sessions.SESSION.glob("*.flow.yaml")) == \
        ["0-sign-in.flow.yaml", *each]
    from flowwalk.settings import Settings
    from flowwalk.spec.loader import load_suites

    suites = load_suites([str(sessions.LOGIN)], Settings(secret_names=("DEMO_PASSWORD",)))
    scenarios = [sc for s in suites for sc in s.scenarios]
    assert sum(sc.session == "demo" for sc in scenarios) == 16
    assert sum(bool(sc.saves) for sc in scenarios) == 1


def test_the_sessions_section_survives_a_rewrite_of_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessions

    results = tmp_path / "RESULTS.md"
    results.write_text("# bench\n\nold text\n")
    monkeypatch.setattr(sessions, "RESULTS", results)
    sessions.write_results(f"{sessions.BEGIN}\n## Sign in once\nfigures\n{sessions.END}\n")
    sessions.write_results(f"{sessions.BEGIN}\n## Sign in once\nnew figures\n{sessions.END}\n")
    assert results.read_text().count(sessions.BEGIN) == 1 and "new figures" in results.read_text()
    assert sessions.kept_block() == f"\n{sessions.BEGIN}\n## Sign in once\nnew figures\n{sessions.END}\n"


def test_the_lab_pages_are_served_over_the_example_site_from_one_folder(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run, "SITE", tmp_path / "site")
    site = run.build_site()
    assert (site / "index.html").read_text() == (run.EXAMPLE_SITE / "index.html").read_text()
    assert (site / "lab" / "ops.html").is_file() and (site / "lab" / "data" / "feed-3.json").is_file()
    lab = tmp_path / "lab-site"
    (lab / "assets").mkdir(parents=True)
    (lab / "assets" / "app.js").write_text("// would replace the example site's script")
    monkeypatch.setattr(run, "LAB_SITE", lab)
    with pytest.raises(SystemExit, match="would replace examples/site files: assets/app.js"):
        run.build_site()


def test_every_form_dismisses_the_same_interrupts() -> None:
    import yaml

    import floor_flows

    wanted = list(make_corpus.DISMISS)
    assert yaml.safe_load((BENCH / "flowwalk.yaml").read_text())["dismiss_selectors"] == wanted
    assert list(floor_flows.DISMISS) == wanted
    assert f"export const DISMISS: string[] = {json.dumps(wanted)};" in (BENCH / "pwtest" / "tests" / "interrupts.ts").read_text()
    assert "addLocatorHandler" in (BENCH / "pwtest" / "tests" / "fixtures.ts").read_text()
    for rule_file in (BENCH / "rules").glob("*.rules.yaml"):
        assert yaml.safe_load(rule_file.read_text())["dismiss"] == wanted
    # the consent flows meet the overlay: their first action comes after the messages, which come after it
    for flow in make_corpus.FLOWS:
        if flow.family == "consent":
            assert flow.steps[1] == make_corpus.wait_for(make_corpus.MESSAGE)


def test_flowwalk_reads_the_corpus_config_unless_an_experiment_brings_one_that_dismisses_the_same(
        tmp_path: Path) -> None:
    env = run.Env("http://127.0.0.1:1", "/c", "pw")
    cmd, _, _ = run.Flowwalk().command(env, 2, None, tmp_path)
    assert cmd[cmd.index("--config") + 1] == "bench/flowwalk.yaml"
    experiment = ["--config", "bench/experiments/stable-reads-1.yaml"]
    cmd, _, _ = run.Flowwalk(experiment).command(env, 2, None, tmp_path)
    assert cmd.count("--config") == 1 and cmd[-2:] == experiment
    assert run.check_config(experiment) is None
    bare = tmp_path / "bare.yaml"
    bare.write_text("stabilize:\n  stable_reads: 1\n")
    problem = run.check_config(["--config", str(bare)])
    assert problem and "does not dismiss ['[data-testid=consent-accept]']" in problem
