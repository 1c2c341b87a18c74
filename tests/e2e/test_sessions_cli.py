"""Sign in once (examples/sessions): the setup runs once, its dependants start signed in, a failed
setup leaves them not run naming it, and the saved state never reaches a file, after a run, a
cancel or a killed process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from _cli import DEMO_ARGS, DEMO_ENV, FLOWWALK, ROOT, flowwalk

pytestmark = pytest.mark.browser

SETUP = "examples/sessions/sign-in.flow.yaml#sign in as the demo user"
#: the local storage key the demo site keeps its signed-in user under: in the saved state only
STATE_KEY = b"acme.session"


def records(out: Path) -> list[dict[str, Any]]:
    """emit.jsonl's records (a line still being written is left out)."""
    found = []
    for line in (out / "emit.jsonl").read_text().splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue
    return found


def finals(out: Path) -> dict[str, dict[str, Any]]:
    return {r["test_id"]: r for r in records(out) if r["event"] == "rule_finished"}


def files_holding_state(*folders: Path) -> list[Path]:
    """Every file under `folders` whose bytes hold the saved session's local storage key."""
    found = []
    for folder in folders:
        for path in folder.rglob("*"):
            try:
                if path.is_file() and not path.is_symlink() and STATE_KEY in path.read_bytes():
                    found.append(path)
            except OSError:
                continue
    return found


def test_the_setup_runs_once_and_its_dependants_start_signed_in(tmp_path: Path) -> None:
    out, tmp = tmp_path / "report", tmp_path / "tmp"
    tmp.mkdir()
    result = flowwalk("run", "examples/sessions", "--serve", "examples/site", "--out", str(out), "--workers", "2",
                      *DEMO_ARGS, env={"TMPDIR": str(tmp)})
    assert result.returncode == 0, result.stdout + result.stderr
    started = [r["scenario_id"] for r in records(out) if r["event"] == "scenario_started"]
    assert started.count(SETUP) == 1
    assert len(started) == 3
    tests = finals(out)
    assert {t["status"] for t in tests.values()} == {"passed"}
    # the dependants never signed in nor accepted the cookies: they pass only from the session
    assert files_holding_state(out, tmp) == []


def test_a_failed_setup_leaves_its_dependants_not_run_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = flowwalk("run", "examples/sessions", "--serve", "examples/site", "--out", str(out), *DEMO_ARGS,
                      env={"DEMO_PASSWORD": "not-the-password"})
    assert result.returncode == 2, result.stdout + result.stderr
    tests = finals(out)
    assert tests[SETUP]["status"] == "failed"
    dependants = [t for tid, t in tests.items() if tid != SETUP]
    assert len(dependants) == 3
    for test in dependants:
        assert test["status"] == "skipped" and test["reason"] == "session_failed"
        assert test["failure"]["context"] == {"session": "demo", "setup": SETUP}
        assert "session 'demo' was not saved" in test["failure"]["message"]
    # one root cause, the setup, with the three dependants under it: no cascade of login failures
    verdict = json.loads((out / "verdict.json").read_text())
    assert [c["test_id"] for c in verdict["root_causes"]] == [SETUP]
    assert len(verdict["root_causes"][0]["dependents"]) == 3
    assert f"session_failed: setup {SETUP}" in result.stdout


def _slow_dependant(folder: Path) -> Path:
    """The example's setup and a dependant that waits long enough to be stopped in flight."""
    folder.mkdir()
    shutil.copy(ROOT / "examples/sessions/sign-in.flow.yaml", folder / "sign-in.flow.yaml")
    (folder / "slow.flow.yaml").write_text(
        'spec_version: "1.1"\nname: slow\nsession: demo\nurl: /dashboard.html\nsteps:\n'
        "  - type: wait\n    ms: 30000\n")
    return folder


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=lambda s: s.name)
def test_no_state_file_is_left_by_a_cancel_or_a_killed_run(tmp_path: Path, how: signal.Signals) -> None:
    specs = _slow_dependant(tmp_path / "specs")
    out, tmp = tmp_path / "report", tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, **DEMO_ENV, "TMPDIR": str(tmp)}
    env.pop("GITHUB_ACTIONS", None)
    proc = subprocess.Popen([*FLOWWALK, "run", str(specs), "--serve", "examples/site", "--out", str(out),
                             *DEMO_ARGS], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        # the session is saved, and the dependant started from it (it starts only once it is saved)
        while time.monotonic() < deadline:
            emit = out / "emit.jsonl"
            if emit.is_file() and len([r for r in records(out) if r["event"] == "scenario_started"]) >= 2:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.5)
        # the run's temporary files are in `tmp` (Chromium's profile): a state file would be too
        assert any(tmp.iterdir())
        assert files_holding_state(out, tmp) == []
        proc.send_signal(how)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    if how != signal.SIGKILL:
        assert proc.returncode == 5, stdout + stderr
        assert any(r["event"] == "run_cancelled" for r in records(out))
    else:
        # what a killed process leaves is all there is: its driver and browser end with their pipe
        time.sleep(1)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert files_holding_state(out, tmp) == []


def test_each_project_signs_in_once_and_its_dependants_use_their_own_projects_session(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = flowwalk("run", "examples/sessions", "--config", "examples/projects/flowwalk.yaml", "--serve",
                      "examples/site", "--out", str(out), "--workers", "3", *DEMO_ARGS)
    assert result.returncode == 0, result.stdout + result.stderr
    started = [r["scenario_id"] for r in records(out) if r["event"] == "scenario_started"]
    assert sorted(started) == sorted(f"[{p}] examples/sessions/{f}" for p in ("desktop", "iphone-13") for f in (
        "sign-in.flow.yaml#sign in as the demo user", "dashboard.flow.yaml#the dashboard greets the signed-in user",
        "notes.rules.yaml#notes signed in"))
    assert {t["status"] for t in finals(out).values()} == {"passed"} and len(finals(out)) == 8


def test_a_rule_saves_the_session_and_its_scenario_goes_on(tmp_path: Path) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "login.rules.yaml").write_text("""\
rules_version: "1"
verification: sign in by a rule
scenarios:
  - name: sign in
    url: /login.html
    rules:
      - name: consent
        steps:
          - {type: act, action: click, selector: "[data-testid=cookie-accept]"}
      - name: login
        parents: [consent]
        saves_session: demo
        steps:
          - {type: act, action: fill, selector: "#login-email", value: "{{DEMO_USER}}"}
          - {type: act, action: fill, selector: "#login-password", value: "{{DEMO_PASSWORD}}"}
          - {type: act, action: press, selector: "#login-password", value: Enter}
          - {type: expect, kind: text_contains, selector: "[data-testid=greeting]", value: Welcome back}
      - name: sign_out
        parents: [login]
        steps:
          - {type: act, action: click, selector: "text=Log out"}
""")
    shutil.copy(ROOT / "examples/sessions/dashboard.flow.yaml", specs / "dashboard.flow.yaml")
    out = tmp_path / "report"
    result = flowwalk("run", str(specs), "--serve", "examples/site", "--out", str(out), *DEMO_ARGS)
    assert result.returncode == 0, result.stdout + result.stderr
    # the state was taken when `login` passed: signing out afterwards does not sign the dependant out
    assert {t["status"] for t in finals(out).values()} == {"passed"} and len(finals(out)) == 4


def test_each_shard_walks_the_setup_its_dependants_need_and_the_merge_keeps_where_it_failed(tmp_path: Path) -> None:
    """Two shards, one dependant each: both walk the sign-in. Merged, the report is one run's; when
    the sign-in failed in one shard only, the merge shows it failed, with that shard's dependant under it."""
    shards = []
    # the sign-in fails in shard 1 and passes in shard 2, whose section comes last in the merge
    for k, password in ((1, "not-the-password"), (2, DEMO_ENV["DEMO_PASSWORD"])):
        out = tmp_path / f"shard-{k}"
        result = flowwalk("run", "examples/sessions", "--serve", "examples/site", "--out", str(out),
                          "--shard", f"{k}/2", *DEMO_ARGS, env={"DEMO_PASSWORD": password})
        started = [r["scenario_id"] for r in records(out) if r["event"] == "scenario_started"]
        assert started[0] == SETUP and started.count(SETUP) == 1 and len(started) == 2, started
        assert result.returncode == (2 if k == 1 else 0), result.stdout + result.stderr
        shards.append(out)
    merged = tmp_path / "merged"
    result = flowwalk("merge", *map(str, shards), "--out", str(merged))
    assert result.returncode == 2, result.stdout + result.stderr
    verdict = json.loads((merged / "verdict.json").read_text())
    assert verdict["counts"]["total"] == 4 and verdict["shards"]["missing"] == []
    tests = {t["test_id"]: t for t in verdict["tests"]}
    assert tests[SETUP]["status"] == "failed"
    [cause] = verdict["root_causes"]
    assert cause["test_id"] == SETUP
    held_back = {r["test_id"] for r in records(shards[0]) if r["event"] == "rule_finished"} - {SETUP}
    assert set(cause["dependents"]) == held_back and held_back
    assert all(tests[t]["status"] == "passed" for t in tests if t not in held_back | {SETUP})
