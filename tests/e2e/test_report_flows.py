"""flowwalk checks its own report: flow specs in tests/report-flows/ walk a generated report.html."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from _cli import DEMO_ARGS, flowwalk

pytestmark = pytest.mark.browser


def test_flowwalks_own_flows_pass_on_a_failed_runs_report(tmp_path: Path) -> None:
    report = tmp_path / "failed-run"
    flowwalk("run", "examples/failing", "--serve", "examples/site", "--out", str(report), *DEMO_ARGS)
    assert (report / "report.html").is_file()
    # the report folder is opened as an unzipped artifact would be: its own files, nothing else
    served = tmp_path / "artifact"
    shutil.copytree(report, served)
    checks = tmp_path / "checks"
    result = flowwalk("run", "tests/report-flows", "--serve", str(served), "--out", str(checks), "--offline")
    verdict = json.loads((checks / "verdict.json").read_text())
    assert result.returncode == 0, result.stdout + result.stderr
    assert verdict["counts"] == {**verdict["counts"], "total": 2, "passed": 2}
