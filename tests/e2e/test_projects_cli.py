"""Devices and projects (examples/projects): every spec runs once per project of flowwalk.yaml, in
that project's browser; `--project` selects them; a wrong name is refused before any browser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import flowwalk

pytestmark = pytest.mark.browser

CONFIG = ["--config", "examples/projects/flowwalk.yaml"]
BROWSER = "examples/projects/browser.flow.yaml#what the page sees of its browser"


def emitted(out: Path) -> dict[str, dict[str, object]]:
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines()]
    return {r["scenario_id"]: r["fields"] for r in records if r["event"] == "emit_recorded"}


def test_each_spec_runs_in_each_projects_browser(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = flowwalk("run", "examples/projects", *CONFIG, "--serve", "examples/site", "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    verdict = json.loads((out / "verdict.json").read_text())
    assert sorted(t["test_id"] for t in verdict["tests"]) == sorted(
        f"[{p}] examples/projects/{f}" for p in ("desktop", "iphone-13")
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
