"""Running the flowwalk CLI as a user does, for the end-to-end tests (imported by them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from flowwalk.github.render import RunLinks, render_comment
from flowwalk.report.verdict_json import parse_verdict

ROOT = Path(__file__).resolve().parents[2]
FLOWWALK = [sys.executable, "-m", "flowwalk"]  # the console script's entry (entry.py)
DEMO_ENV = {"DEMO_PASSWORD": "correct-horse-battery"}
DEMO_ARGS = ["--var", "DEMO_USER=ada@example.com", "--secret", "DEMO_PASSWORD"]


def flowwalk(*args: str, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **DEMO_ENV, **(env or {})}
    full_env.pop("GITHUB_ACTIONS", None)
    full_env.pop("CI", None)   # a CI runs with traces on by default; the tests choose their own
    return subprocess.run([*FLOWWALK, *args], cwd=ROOT, env=full_env, capture_output=True, text=True,
                          timeout=timeout)


def verdict(out: Path) -> dict[str, Any]:
    """The verdict.json of the report folder `out`."""
    return dict(json.loads((out / "verdict.json").read_text()))


def reports_say_what_was_expected_and_observed(out: Path, result: dict[str, Any], failure: dict[str, Any]) -> None:
    """junit.xml, report.html and the PR comment of the run in `out` (its verdict `result`) say what
    `failure` (one test's) expected and observed."""
    test = next(t for t in result["tests"] if t["failure"] == failure)
    name = test["test_id"].split("#", 1)[1]
    # a flow's testcase is named by its test id; a rule's (of a rule file, a .robot suite) by the rule
    [case] = [c for c in ET.parse(out / "junit.xml").iter("testcase")
              if name in (c.get("name"), f"{c.get('classname', '').partition('#')[2]}/{c.get('name')}")]
    text = case.findtext("failure") or ""
    assert f"expected: {failure['expected']}" in text and f"observed: {failure['observed']}" in text, text
    html = (out / "report.html").read_text()
    assert json.dumps(failure["observed"])[1:-1] in html
    comment = render_comment(parse_verdict(result), RunLinks())
    assert failure["expected"] in comment and failure["observed"] in comment
