"""The CLI over examples/, as a user runs it: real processes, real Chromium, the bundled site."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from _cli import DEMO_ARGS, DEMO_ENV, FLOWWALK, ROOT, flowwalk

pytestmark = pytest.mark.browser
#: the examples that pass and those that fail, walked once unsharded (`whole`); the tests that
#: compare against that run are one xdist group, so it is walked once a suite run
WHOLE = ("examples/flows", "examples/failing")


def comparable_tests(report: Path) -> list[dict]:
    """verdict.json tests without what legitimately differs between runs (timings, paths of folders)."""
    verdict = json.loads((report / "verdict.json").read_text())
    out = []
    for test in verdict["tests"]:
        failure = test.get("failure") or {}
        out.append({
            "test_id": test["test_id"], "status": test["status"], "reason": test.get("reason"),
            "class": failure.get("failure_class"), "code": failure.get("runtime_code"),
            "step": failure.get("step_index"), "screenshot": failure.get("screenshot"),
        })
    return out


def junit_cases(report: Path) -> list[tuple[str, str, str]]:
    import xml.etree.ElementTree as ET

    root = ET.parse(report / "junit.xml").getroot()
    cases = []
    for case in root.iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = f"{child.tag}:{child.get('type') or ''}"
        cases.append((case.get("classname") or "", case.get("name") or "", outcome))
    return cases


def test_the_examples_pass_and_every_artifact_is_written(tmp_path: Path) -> None:
    out = tmp_path / "report"
    # what scripts/demo.sh runs: flow specs, the rule file and the .robot suite
    result = flowwalk("run", "examples/flows", "examples/rules", "examples/robot", "--serve", "examples/site",
                      "--out", str(out), *DEMO_ARGS)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("emit.jsonl", "junit.xml", "verdict.json", "summary.md", "report.html"):
        assert (out / name).is_file(), name
    first = json.loads((out / "emit.jsonl").read_text().splitlines()[0])
    assert first["event"] == "run_started" and first["schema"] == "flowwalk.emit/1"
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["outcome"] == "passed" and verdict["counts"]["total"] >= 8
    kinds = {test["kind"] for test in verdict["tests"]}
    assert kinds == {"flow", "rules", "robot"}, kinds
    assert "Traceback" not in result.stderr


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The report folder and the process of one unsharded run of WHOLE (workers 2)."""
    out = tmp_path_factory.mktemp("whole") / "report"
    return out, flowwalk("run", *WHOLE, "--serve", "examples/site", "--out", str(out), "--workers", "2", *DEMO_ARGS)


@pytest.mark.long
@pytest.mark.xdist_group("cli_examples_whole")
def test_sharded_and_merged_equals_one_unsharded_run(whole: tuple[Path, Any], tmp_path: Path) -> None:
    whole_out = whole[0]
    shards = [tmp_path / f"shard{k}" for k in (1, 2)]
    with ThreadPoolExecutor(2) as pool:   # the shard jobs at once, as a CI runs them
        runs = list(pool.map(lambda k: flowwalk("run", *WHOLE, "--serve", "examples/site", "--out", str(shards[k - 1]),
                                                "--shard", f"{k}/2", *DEMO_ARGS), (1, 2)))
    for k, shard, ran in zip((1, 2), shards, runs):
        # each shard job reports its own work: its tests, its totals, no word about the other job
        verdict = json.loads((shard / "verdict.json").read_text())
        counts = verdict["counts"]
        assert verdict["shards"]["shard"] == k and verdict["shards"]["missing"] == []
        assert len(junit_cases(shard)) == counts["total"] == len(verdict["tests"]) > 0
        assert not [t for t in verdict["tests"] if t.get("reason") == "shard_missing"]
        assert "is missing" not in ran.stdout + ran.stderr and "is missing" not in (shard / "summary.md").read_text()
        assert f"{counts['total']} tests: {counts['passed']} passed, {counts['failed']} failed" in ran.stdout
        assert f"shard {k} of 2" in (shard / "summary.md").read_text()
        first = json.loads((shard / "emit.jsonl").read_text().splitlines()[0])
        assert len(first["plan"]["scenarios"]) > len(first["plan"]["assigned"])  # the whole plan stays
    # together the shards hold every test exactly once
    assert sorted(c for s in shards for c in junit_cases(s)) == sorted(junit_cases(whole_out))
    merged = tmp_path / "merged"
    result = flowwalk("merge", *map(str, shards), "--out", str(merged))
    assert "Traceback" not in result.stderr, result.stderr
    assert comparable_tests(merged) == comparable_tests(whole_out)
    assert junit_cases(merged) == junit_cases(whole_out)
    for test in comparable_tests(whole_out):
        if test["screenshot"]:
            assert (merged / test["screenshot"]).is_file()

    missing = flowwalk("merge", str(shards[0]), "--out", str(tmp_path / "half"))
    assert "shard 2 of 2 is missing" in missing.stderr
    assert missing.returncode != 0
    half = json.loads((tmp_path / "half" / "verdict.json").read_text())
    assert half["shards"]["missing"] == [2] and "shard" not in half["shards"]
    assert half["counts"]["total"] == len(comparable_tests(whole_out))
    assert {t["test_id"] for t in half["tests"] if t.get("reason") == "shard_missing"} == \
        {t["test_id"] for t in json.loads((shards[1] / "verdict.json").read_text())["tests"]}


@pytest.mark.xdist_group("cli_examples_whole")
def test_failing_examples_fail_with_their_class_and_step(whole: tuple[Path, Any]) -> None:
    out, result = whole
    verdict = json.loads((out / "verdict.json").read_text())
    classes = {t["failure"]["failure_class"] for t in verdict["tests"] if t.get("failure")}
    assert {"assertion_failed", "spec_step_unresolvable", "credential_rejected"} <= classes
    assert result.returncode == 1  # an assertion_failed is among them: the site misbehaved
    junit = (out / "junit.xml").read_text()
    assert re.search(r'message="step \d+ \(', junit), "failure messages name the step by index and text"


def test_bad_input_is_refused_with_locations_and_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.flow.yaml"
    bad.write_text('spec_version: "1"\nname: x\nurl: /\nsteps:\n  - type: wait\n    ms: 5\n    for: "#a"\n'
                   "  - type: act\n    action: clik\n    selector: '#b'\n")
    result = flowwalk("validate", str(bad))
    assert result.returncode == 3
    assert "Traceback" not in result.stderr + result.stdout
    assert re.search(r"bad\.flow\.yaml:\d+:\d+: error: ", result.stderr)
    assert "hint:" in result.stderr
    assert result.stderr.count(": error: ") >= 2, "all errors are reported in one pass"


def test_no_secret_value_reaches_the_report_or_the_console(tmp_path: Path) -> None:
    secret = "s3cr3t-Value-9f8e7d"
    spec = tmp_path / "secret.flow.yaml"
    spec.write_text(
        'spec_version: "1"\nname: types a secret then fails\nurl: /login.html\nsteps:\n'
        "  - type: act\n    action: fill\n    selector: 'input[type=password]'\n    value: '{{PASSWORD}}'\n"
        "  - type: expect\n    kind: text_contains\n    value: 'this text is not on the page'\n")
    out = tmp_path / "report"
    result = flowwalk("run", str(spec), "--serve", "examples/site", "--out", str(out), "--secret", "PASSWORD",
                      "--screenshots", "on", env={"PASSWORD": secret})
    assert result.returncode == 1, result.stdout + result.stderr
    assert secret not in result.stdout + result.stderr
    for path in out.rglob("*"):
        assert secret not in path.name
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


def test_sigterm_stops_the_run_and_keeps_the_reports(tmp_path: Path) -> None:
    """The flow waits five minutes (ten waits of 30 s, the longest a wait step may be); SIGTERM ends
    the run, its reports written, well before that. The bound is loose (60 s) so that a loaded
    machine's report writing and browser exit fit in it: it tells a run that stops from one that
    waits its steps out."""
    spec = tmp_path / "slow.flow.yaml"
    spec.write_text('spec_version: "1"\nname: slow\nurl: /\nsteps:\n'
                    + "  - {type: wait, ms: 30000}\n" * 10)
    out = tmp_path / "report"
    env = {**os.environ, **DEMO_ENV}
    proc = subprocess.Popen([*FLOWWALK, "run", str(spec), "--serve", "examples/site", "--out", str(out)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        emit = out / "emit.jsonl"
        if emit.is_file() and "scenario_started" in emit.read_text():
            break
        time.sleep(0.1)
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=90)
    assert time.monotonic() - sent < 60
    assert proc.returncode == 5, stdout + stderr
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]
    assert any(r["event"] == "run_cancelled" for r in records)
    for name in ("junit.xml", "verdict.json", "summary.md", "report.html"):
        assert (out / name).is_file(), name


@pytest.mark.xdist_group("cli_examples_whole")
def test_the_public_api_only_switch_walks_the_examples_to_the_same_verdict(whole: tuple[Path, Any],
                                                                           tmp_path: Path) -> None:
    """FLOWWALK_PUBLIC_API_ONLY=1 (browser/seams.py): no early driver, no spare context, a browser per
    worker; the same tests end the same way as with the seams on (`whole`)."""
    seams_out, seams = whole
    public = flowwalk("run", *WHOLE, "--serve", "examples/site", "--workers", "2", *DEMO_ARGS,
                      "--out", str(tmp_path / "public"), env={"FLOWWALK_PUBLIC_API_ONLY": "1"})
    assert public.returncode == seams.returncode == 1, public.stdout + public.stderr
    assert "Traceback" not in public.stderr
    key = lambda row: row["test_id"]  # noqa: E731 - arrival order differs between workers
    assert sorted(comparable_tests(tmp_path / "public"), key=key) == sorted(comparable_tests(seams_out), key=key)
