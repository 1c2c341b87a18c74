"""Devices and projects (examples/projects): every spec runs once per project of flowwalk.yaml, in
that project's browser; `--project` selects them; a wrong name is refused before any browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import flowwalk

pytestmark = pytest.mark.browser

CONFIG = ["--config", "examples/projects/flowwalk.yaml"]
#: examples/projects holds flowwalk.yaml, so it is the project root the ids are relative to
BROWSER = "browser.flow.yaml#what the page sees of its browser"


def emitted(out: Path) -> dict[str, dict[str, object]]:
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]
    return {r["scenario_id"]: r["fields"] for r in records if r["event"] == "emit_recorded"}


def test_each_spec_runs_in_each_projects_browser(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = flowwalk("run", "examples/projects", *CONFIG, "--serve", "examples/site", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    verdict = json.loads((out / "verdict.json").read_text())
    assert sorted(t["test_id"] for t in verdict["tests"]) == sorted(
        f"[{p}] {f}" for p in ("desktop", "iphone-13")
        for f in ("browser.flow.yaml#what the page sees of its browser",
                  "system-theme.flow.yaml#the system theme follows a dark colour scheme"))
    seen = emitted(out)
    # flowwalk.yaml's top level applies to both; each project's own keys on top
    common = {"language": "en-GB", "timezone": "Europe/London", "position": "51.5072,-0.1276"}
    assert seen[f"[desktop] {BROWSER}"] == {**common, "width": 1280, "dark": False, "touch": False}
    assert seen[f"[iphone-13] {BROWSER}"] == {**common, "width": 390, "dark": True, "touch": True}
    plan = json.loads((out / "emit.jsonl").read_text().splitlines()[0])["plan"]
    phone = next(s for s in plan["scenarios"] if s["id"] == f"[iphone-13] {BROWSER}")
    assert phone["project"] == "iphone-13" and phone["environment"]["device"] == "iPhone 13"


def test_project_runs_only_the_projects_named(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = flowwalk("run", "examples/projects", *CONFIG, "--project", "iphone-13", "--serve", "examples/site",
                      "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert set(emitted(out)) == {f"[iphone-13] {BROWSER}"}
    wrong = flowwalk("run", "examples/projects", *CONFIG, "--project", "iphone13", "--serve", "examples/site",
                     "--out", str(tmp_path / "wrong"))
    assert wrong.returncode == 3
    assert "--project 'iphone13' is not a project of flowwalk.yaml" in wrong.stderr
    assert "did you mean 'iphone-13'?" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_each_project_scenario_pair_is_its_own_unit_for_shards_merge_and_durations(tmp_path: Path) -> None:
    from flowwalk.plan.shard import load_durations

    shards = []
    for k in (1, 2):
        out = tmp_path / f"shard{k}"
        result = flowwalk("run", "examples/projects", *CONFIG, "--serve", "examples/site", "--out", str(out),
                          "--shard", f"{k}/2")
        assert result.returncode == 0, result.stdout + result.stderr
        shards.append(out)
    ran = [set(json.loads(line)["plan"]["assigned"]) for line in
           ((s / "emit.jsonl").read_text().splitlines()[0] for s in shards)]
    assert not ran[0] & ran[1] and len(ran[0] | ran[1]) == 4 and ran[0] and ran[1]
    merged = tmp_path / "merged"
    result = flowwalk("merge", str(shards[0]), str(shards[1]), "--out", str(merged))
    assert result.returncode == 0, result.stdout + result.stderr
    verdict = json.loads((merged / "verdict.json").read_text())
    assert verdict["counts"]["passed"] == 4 and verdict["shards"]["missing"] == []
    durations, _ = load_durations(merged)
    assert f"[desktop] {BROWSER}" in durations and f"[iphone-13] {BROWSER}" in durations
