"""The checks of state beyond the DOM (storage, storage_count, cookie, js, request) and the history
steps (go_back, go_forward, reload), walked by the CLI against a small shop (tests/shopapp.py).

The flows in tests/e2e/state-flows pass against the shop as it is. Against a copy with one bug
planted per flow, each fails at the step written for that behaviour, and verdict.json, junit.xml,
report.html and the PR comment say what was expected and what was observed. The session cookie's
value is in no file of either report.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from flowwalk.github.render import RunLinks, render_comment
from flowwalk.report.verdict_json import parse_verdict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cli import flowwalk, verdict  # noqa: E402
from shopapp import SECRET, ShopServer  # noqa: E402

pytestmark = pytest.mark.browser

FLOWS = "tests/e2e/state-flows"

#: flow -> (the bug that breaks it, the failing step, what the report says was expected, was observed)
BROKEN: dict[str, tuple[str, int, str, str]] = {
    "cookie": ("cookie-readable", 2,
               "cookie 'sid': httpOnly, sameSite Strict, expiring 600 s or more from now, its value matching the "
               "spec's pattern (values are never shown)",
               "cookie 'sid' (127.0.0.1/): value of 23 character(s) that matches, not httpOnly, not secure, "
               "sameSite Strict, expiring in "),
    "js": ("no-user", 3, "js 'window.shop && window.shop.user' equal to 'ada'",
           "js 'window.shop && window.shop.user': 'null'"),
    "storage": ("cart-unsaved", 4, "localStorage 'cart' at items[0].sku equal to 'A-1'",
                "no key 'cart' in localStorage ("),
    "storage-count": ("no-lines", 3, "exactly 2 localStorage key(s) starting with 'cart-line-'",
                      "0 localStorage key(s) start with 'cart-line-'"),
    "request": ("cart-500", 2, "a POST request to a URL containing '/api/cart' with JSON body sku = 'A-1', "
                               "qty = '1', answered 201",
                "1 such request(s): POST 'http://127.0.0.1:"),
    "no-request": ("tracks", 3, "no request to a URL containing '/track'",
                   "1 such request(s): POST 'http://127.0.0.1:"),
    # the shop's page was replaced: the only page before is the context's blank one, not a page to go back to
    "history": ("replaces-history", 3, "a page to go back to ('http://127.0.0.1:", "none: 'http://127.0.0.1:"),
}
#: the failure class of a flow whose failing step is not a check (else assertion_failed); the
#: history bug is the site's: it replaced the flow's first page (docs/flow-spec.md#history)
CLASS: dict[str, str] = {}


def _run(bugs: set[str], out: Path) -> tuple[int, str]:
    with ShopServer(bugs) as shop:
        done = flowwalk("run", FLOWS, "--base-url", shop.url, "--out", str(out), "--workers", "2", timeout=180)
    return done.returncode, done.stdout + done.stderr


def _files(out: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted(out.rglob("*")) if p.is_file())


def _in_page(text: str) -> str:
    """`text` as report.html embeds it in its data (JSON, with &, <, > escaped)."""
    return json.dumps(text)[1:-1].replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def test_the_state_flows_pass_against_the_shop(tmp_path: Path) -> None:
    code, console = _run(set(), tmp_path)
    assert code == 0, console
    result = verdict(tmp_path)
    assert result["counts"]["passed"] == len(BROKEN) == result["counts"]["total"]
    kinds = {json.loads(line).get("kind") for line in (tmp_path / "emit.jsonl").read_text().splitlines()}
    assert "history" in kinds
    assert SECRET not in _files(tmp_path) + console


def test_each_planted_bug_fails_its_check_and_the_reports_say_why(tmp_path: Path) -> None:
    # bugs that break one flow each: every flow fails at its own check, in one run
    code, console = _run({bug for bug, *_ in BROKEN.values()}, tmp_path)
    assert code == 1, console
    result = verdict(tmp_path)
    failures: dict[str, dict[str, Any]] = {}
    for test in result["tests"]:
        name = Path(test["source"]).name.removesuffix(".flow.yaml")
        assert test["status"] == "failed", test
        failures[name] = test["failure"]
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "junit.xml").iter("testcase")}
    html = (tmp_path / "report.html").read_text()
    comment = render_comment(parse_verdict(result), RunLinks())
    for name, (_, step, expected, observed) in BROKEN.items():
        failure = failures[name]
        assert failure["failure_class"] == CLASS.get(name, "assertion_failed"), (name, failure)
        assert failure["step_index"] == step and failure["expected"].startswith(expected), (name, failure["expected"])
        assert failure["observed"].startswith(observed), (name, failure["observed"])
        case = next(c for n, c in cases.items() if n and n == next(
            t["test_id"] for t in result["tests"] if t["failure"] is failure).split("#", 1)[1])
        body = case.find("failure")
        assert body is not None and f"expected: {expected}" in (body.text or ""), name
        assert f"observed: {failure['observed']}" in (body.text or ""), name
        assert _in_page(failure["observed"]) in html and _in_page(expected) in html, name
        assert expected in comment and failure["observed"] in comment, name
    assert SECRET not in _files(tmp_path) + console + comment


def test_going_back_with_no_page_before_fails_the_step(tmp_path: Path) -> None:
    spec = tmp_path / "flows" / "back.flow.yaml"
    spec.parent.mkdir()
    spec.write_text('spec_version: "1.1"\nname: forward from the newest page\nurl: /\nsteps:\n'
                    "  - {type: go_forward}\n")
    with ShopServer() as shop:
        done = flowwalk("run", str(spec), "--base-url", shop.url, "--out", str(tmp_path / "out"), timeout=120)
    assert done.returncode != 0, done.stdout + done.stderr
    failure = verdict(tmp_path / "out")["tests"][0]["failure"]
    assert failure["message"].startswith("go_forward: the history has no page to go forward to"), failure
