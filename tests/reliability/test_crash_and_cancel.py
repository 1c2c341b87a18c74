"""Chromium killed mid-run, and the run cancelled by SIGTERM / SIGINT: nothing is lost.

Each test runs the real CLI (`python -m flowwalk.cli run ... --serve tests/site/pages`) as its own
process session and acts on it from outside, as an OOM killer or a CI runner would:

- crash: the browser process (or the in-flight page's renderer) of the run, found through /proc
  under the flowwalk process, is SIGKILLed while a scenario waits; that scenario fails with
  `infrastructure_error`, a new Chromium takes the rest, and every artifact is complete;
- cancel: SIGTERM or SIGINT, to the flowwalk process (`kill PID`) or to its whole process group
  (Ctrl-C in a terminal), while a scenario is in flight: within 5 s flowwalk exits 5 and leaves a
  final `run_cancelled` record and junit.xml, verdict.json, summary.md and report.html for what ran.
"""

from __future__ import annotations

import os
import signal
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from runkit import ARTIFACTS, SITE, Flowwalk, browser_processes, by_file, descendants, records, verdict, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs Linux /proc")]

QUICK = ('spec_version: "1"\nname: {name}\nurl: /walker/basic.html\nsteps:\n'
         '  - {{type: act, action: click, selector: "#bump"}}\n'
         '  - {{type: expect, kind: text_contains, selector: "#counter", value: "1"}}\n')
WAITING = ('spec_version: "1"\nname: {name}\nurl: /walker/basic.html\nsteps:\n'
           '  - {{type: act, action: click, selector: "#bump"}}\n'
           '  - {{type: wait, ms: {ms}}}\n'
           '  - {{type: act, action: click, selector: "#bump"}}\n'
           '  - {{type: expect, kind: text_contains, selector: "#counter", value: "2"}}\n')


def write_flows(folder: Path, specs: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in specs.items():
        (folder / f"{name}.flow.yaml").write_text(text)
    return folder


def in_wait(out: Path, scenario_part: str) -> bool:
    """The scenario finished its first step (the click) and is in its wait."""
    emit = out / "emit.jsonl"
    if not emit.is_file():
        return False
    return any(r["event"] == "step_finished" and scenario_part in r["scenario_id"] and r["index"] == 1
               for r in records(out))


def assert_artifacts_complete(out: Path, expected_tests: int) -> dict[str, Any]:
    for name in ARTIFACTS:
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    recs = records(out)
    assert recs[0]["event"] == "run_started" and recs[-1]["event"] == "run_finished"
    assert len((out / "emit.jsonl").read_text().splitlines()) == len(recs), "every line of emit.jsonl parses"
    result = verdict(out)
    assert result["counts"]["total"] == expected_tests
    cases = list(ET.parse(out / "junit.xml").getroot().iter("testcase"))
    assert len(cases) == expected_tests
    for test in result["tests"]:
        for shot in test.get("screenshots") or []:
            assert (out / shot).is_file(), shot
    return result


# --- crash -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["browser", "renderer"])
def test_killing_chromium_mid_run_fails_only_the_scenario_in_flight(tmp_path: Path, target: str) -> None:
    flows = write_flows(tmp_path / "flows", {
        "a-first": QUICK.format(name="first"),
        "b-doomed": WAITING.format(name="doomed", ms=6000),
        **{f"c-after-{i}": QUICK.format(name=f"after {i}") for i in range(4)},
    })
    out = tmp_path / "report"
    run = Flowwalk(["run", str(flows), "--serve", str(SITE), "--out", str(out), "--workers", "1"], logs=tmp_path)
    try:
        assert wait_for(lambda: in_wait(out, "b-doomed"), 90), "the doomed scenario never reached its wait"
        time.sleep(0.5)  # into its 6 s wait
        if target == "browser":
            victims = list(browser_processes(run.pid))
        else:
            victims = [pid for pid, cmd in descendants(run.pid).items() if "--type=renderer" in cmd]
        assert victims, f"no Chromium {target} process under flowwalk ({run.pid})"
        killed_at = time.monotonic()
        for pid in victims:
            os.kill(pid, signal.SIGKILL)
        done = run.finish(timeout=120)
    finally:
        run.kill_tree()
    assert not done.timed_out
    assert done.returncode == 6, done.output                 # infrastructure failed, nothing else did
    assert "Traceback" not in done.output
    result = assert_artifacts_complete(out, expected_tests=6)
    tests = by_file(result)
    failure = tests["b-doomed.flow.yaml"]["failure"]
    assert (failure["failure_class"], failure["runtime_code"]) == ("infrastructure_error", "BROWSER_CRASHED")
    assert failure["step_index"] == 2, "the step in flight (the wait) is the one that failed"
    others = {name: t["status"] for name, t in tests.items() if name != "b-doomed.flow.yaml"}
    assert set(others.values()) == {"passed"}, others
    # the figure for the docs: from the kill to the next scenario's start on a working browser
    recs = records(out)
    doomed = next(r for r in recs if r["event"] == "scenario_finished" and "b-doomed" in r["scenario_id"])
    after = [r for r in recs if r["event"] == "scenario_started" and "c-after" in r["scenario_id"]]
    doomed_start = next(r for r in recs if r["event"] == "scenario_started" and "b-doomed" in r["scenario_id"])
    assert doomed and after
    relaunch = after[0]["t"] - (doomed_start["t"] + doomed["duration_ms"] / 1000)
    print(f"\nFIGURE crash[{target}]: killed {len(victims)} process(es); doomed scenario ended "
          f"{doomed['duration_ms'] / 1000:.1f} s after its start; next scenario started {relaunch:.2f} s later; "
          f"run ended {time.monotonic() - killed_at:.1f} s after the kill; {len(after)} later scenarios passed")


# --- cancel ------------------------------------------------------------------------------------------


def signal_in_wait(tmp_path: Path, flows: Path, out: Path, workers: int, waiting: list[str], sig: int,
                   to: str) -> tuple[Any, float]:
    """Run the flows; once every scenario of `waiting` is in its wait, send `sig` to the process
    group (`to` "group": Ctrl-C in a terminal does this) or to the flowwalk process alone. The
    finished run and how long it took to stop after the signal."""
    run = Flowwalk(["run", str(flows), "--serve", str(SITE), "--out", str(out), "--workers", str(workers)],
                   logs=tmp_path)
    try:
        assert wait_for(lambda: all(in_wait(out, name) for name in waiting), 90), f"{waiting} never all waited"
        time.sleep(0.5)
        sent = time.monotonic()
        if to == "group":
            os.killpg(run.pid, sig)   # the session this test started
        else:
            run.signal(sig)
        done = run.finish(timeout=15)
        return done, time.monotonic() - sent
    finally:
        run.kill_tree()


def assert_cancelled(done: Any, stopped_in: float, out: Path, sig: int, *, never: int) -> tuple[list[Any], dict]:
    """The run stopped within 5 s with exit 5, said which signal, wrote every report, and reported
    the `never` scenarios c-never-0.. as cancelled. Its records and its tests by file."""
    assert not done.timed_out
    assert stopped_in < 5.0, f"flowwalk took {stopped_in:.1f} s to stop after {signal.Signals(sig).name}"
    assert done.returncode == 5, done.output
    assert "Traceback" not in done.output
    recs = records(out)
    assert [r["event"] for r in recs[-2:]] == ["run_cancelled", "run_finished"]
    assert recs[-2]["signal"] == signal.Signals(sig).name
    assert recs[-1]["cancelled"] is True and recs[-1]["exit_code"] == 5
    result = assert_artifacts_complete(out, expected_tests=5)
    assert result["outcome"] == "cancelled" and result["exit_code"] == 5
    tests = by_file(result)
    for i in range(never):
        assert (tests[f"c-never-{i}.flow.yaml"]["status"], tests[f"c-never-{i}.flow.yaml"]["reason"]) == \
            ("skipped", "cancelled")
    return recs, tests


# a signal to the flowwalk process alone stops a step in flight through the run's watchdog
# (walk/watchdog.py); to the process group, Playwright's driver gets it too
@pytest.mark.parametrize("sig,to", [(signal.SIGTERM, "process"), (signal.SIGINT, "process"),
                                    (signal.SIGINT, "group"), (signal.SIGTERM, "group")],
                         ids=["SIGTERM-process", "SIGINT-process", "SIGINT-group", "SIGTERM-group"])
def test_a_signal_mid_run_stops_within_5_s_and_keeps_the_reports(tmp_path: Path, sig: int, to: str) -> None:
    flows = write_flows(tmp_path / "flows", {
        "a-first": QUICK.format(name="first"),
        "b-long": WAITING.format(name="long", ms=30000),
        **{f"c-never-{i}": QUICK.format(name=f"never {i}") for i in range(3)},
    })
    out = tmp_path / "report"
    done, stopped_in = signal_in_wait(tmp_path, flows, out, 1, ["b-long"], sig, to)
    recs, tests = assert_cancelled(done, stopped_in, out, sig, never=3)
    assert tests["a-first.flow.yaml"]["status"] == "passed", "what ran before the signal is kept"
    summary = (out / "summary.md").read_text()
    assert "cancel" in summary.lower()
    print(f"\nFIGURE cancel[{signal.Signals(sig).name} to {to}]: stopped in {stopped_in:.2f} s, exit 5, "
          f"{len(recs)} records")


@pytest.mark.parametrize("to", ["process", "group"])
def test_a_signal_stops_two_workers_on_one_browser_within_5_s(tmp_path: Path, to: str) -> None:
    """Workers 2 share one Chromium and one driver (walk/run.py): a signal to the group kills that
    driver under both, a signal to the process alone leaves it to the watchdog."""
    flows = write_flows(tmp_path / "flows", {
        "a-long": WAITING.format(name="long a", ms=30000),
        "b-long": WAITING.format(name="long b", ms=30000),
        **{f"c-never-{i}": QUICK.format(name=f"never {i}") for i in range(3)},
    })
    out = tmp_path / "report"
    done, stopped_in = signal_in_wait(tmp_path, flows, out, 2, ["a-long", "b-long"], signal.SIGINT, to)
    assert_cancelled(done, stopped_in, out, signal.SIGINT, never=3)
    print(f"\nFIGURE cancel[SIGINT to {to}, workers 2]: stopped in {stopped_in:.2f} s, exit 5")
