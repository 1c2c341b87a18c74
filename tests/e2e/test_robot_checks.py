"""flowwalk's own keywords in an aitester-bdd suite, end to end (examples/robot-checks): a test case
saves the session, the other starts from it in an emulated phone with its locale, time zone, colour
scheme and position, and compares the notebook with its committed baselines and axe-core. A
changed baseline fails `assertion_failed` with the tree diff; a page with violations fails with
axe's rules; a missing baseline fails without writing anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from _cli import DEMO_ARGS, flowwalk, verdict

pytestmark = pytest.mark.browser

EXAMPLE = "examples/robot-checks"
SUITE = f"{EXAMPLE}/notes.robot"


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]


def results(out: Path) -> dict[str, dict[str, Any]]:
    """verdict.json's tests by `<test case>/<rule>` (the file part differs between the copies)."""
    return {t["test_id"].split("#", 1)[1]: t for t in verdict(out)["tests"]}


def test_the_example_walks_from_its_saved_session_in_its_environment(tmp_path: Path) -> None:
    out = tmp_path / "report"
    done = flowwalk("run", EXAMPLE, "--serve", "examples/site", "--out", str(out), "--workers", "2", *DEMO_ARGS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {t["status"] for t in results(out).values()} == {"passed"}
    assert not (out / "baselines").exists()  # every committed baseline matched: nothing to review
    events = records(out)
    started = [r["scenario_id"] for r in events if r["event"] == "scenario_started"]
    assert started.count(f"{SUITE}#Sign In Once") == 1 and len(started) == 2
    plan = next(r for r in events if r["event"] == "run_started")["plan"]
    phone = next(s for s in plan["scenarios"] if s["id"] == f"{SUITE}#Notebook On A Phone In Paris")
    assert phone["session"] == "robot_demo"
    assert phone["environment"]["device"] == "iPhone 13"
    assert phone["environment"]["geolocation"] == {"latitude": 48.8566, "longitude": 2.3522, "accuracy": 25.0}
    # what the page itself saw of its browser
    seen = next(r for r in events if r["event"] == "emit_recorded" and r["name"] == "browser")["fields"]
    assert seen == {"width": 390, "language": "fr-FR", "timezone": "Europe/Paris", "dark": True}
    kinds = [r["kind"] for r in events if r["event"] == "step_finished" and r["rule"] == "baselines"]
    assert kinds == ["emit", "expect", "expect", "expect"]


def copy_example(tmp_path: Path) -> Path:
    """examples/robot-checks copied under tmp_path (the run's ids then name that copy)."""
    folder = tmp_path / "robot-checks"
    shutil.copytree(EXAMPLE, folder)
    return folder


def test_a_changed_page_fails_with_the_tree_diff(tmp_path: Path) -> None:
    folder = copy_example(tmp_path)
    baseline = folder / "notes.robot.snapshots" / "notebook.yml"
    baseline.write_text(baseline.read_text().replace("0 notes left", "3 notes left"))
    out = tmp_path / "report"
    done = flowwalk("run", str(folder), "--serve", "examples/site", "--out", str(out), *DEMO_ARGS)
    assert done.returncode == 1, done.stdout + done.stderr
    failure = results(out)["Notebook On A Phone In Paris/baselines"]["failure"]
    assert failure["failure_class"] == "assertion_failed"
    assert "-    - text: 3 notes left" in failure["baseline"]["text_diff"]
    assert "+    - text: 0 notes left" in failure["baseline"]["text_diff"]
    assert "report.html" in {p.name for p in out.iterdir()}


def test_a_missing_baseline_fails_and_is_not_written(tmp_path: Path) -> None:
    folder = copy_example(tmp_path)
    (folder / "notes.robot.snapshots" / "note-form.png").unlink()
    out = tmp_path / "report"
    done = flowwalk("run", str(folder), "--serve", "examples/site", "--out", str(out), *DEMO_ARGS)
    assert done.returncode == 2, done.stdout + done.stderr
    failure = results(out)["Notebook On A Phone In Paris/baselines"]["failure"]
    assert failure["baseline"]["status"] == "missing" and "--update-snapshots" in failure["message"]
    assert not (folder / "notes.robot.snapshots" / "note-form.png").exists()


def test_an_inaccessible_page_fails_with_axes_rules(tmp_path: Path) -> None:
    suite = tmp_path / "a11y.robot"
    suite.write_text("""*** Settings ***
Library           aitester_bdd.AITester

*** Test Cases ***
Changed Pricing
    [Setup]    Given I start scenario "pricing" at "${BASE_URL}/pricing-changed.html"
    I define rule "accessible"
        When I scroll down
        Then page is accessible    impact=serious
""")
    out = tmp_path / "report"
    done = flowwalk("run", str(suite), "--serve", "examples/snapshots/site", "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    failure = results(out)["Changed Pricing/accessible"]["failure"]
    assert failure["failure_class"] == "assertion_failed"
    rules = {v["rule"]: v for v in failure["violations"]}
    assert "image-alt" in rules and rules["image-alt"]["targets"]
