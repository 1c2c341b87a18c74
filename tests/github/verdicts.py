"""verdict.json fixtures written by hand in the `flowwalk.verdict/1` shape of docs/architecture.md."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from flowwalk.report.verdict_json import parse_verdict
from flowwalk.report.verdict_model import Verdict

CHECKOUT = "examples/flows/checkout.flow.yaml"
SHOP = "examples/rules/shop.rules.yaml"
ACCOUNT = "examples/flows/account.flow.yaml"
NO_FAILURES = {name: 0 for name in ("assertion_failed", "spec_step_unresolvable", "credential_rejected",
                                    "agent_uncertain", "quota_exceeded", "infrastructure_error")}


def _test(test_id: str, source: str, line: int, status: str, *, failure: dict[str, Any] | None = None,
          duration_ms: float = 1200.0, attempts: int = 1, kind: str = "flow", reason: str = "",
          screenshots: list[str] | None = None) -> dict[str, Any]:
    scenario_id, _, rule = test_id.partition("/") if kind == "rules" else (test_id, "", "")
    return {"test_id": test_id, "scenario_id": scenario_id, "rule": rule or test_id.split("#")[-1],
            "name": rule or test_id.split("#")[-1], "source": source, "line": line, "kind": kind, "tags": [],
            "status": status, "reason": reason, "duration_ms": duration_ms, "attempts": attempts,
            "failure": failure, "findings": [], "skipped_steps": [], "screenshots": screenshots or [],
            "change": "", "quarantine": None, "excused": "", "blocking": status == "failed"}


#: a verdict's gate without a base report, a quarantine or fail-on new
NO_GATE = {"fail_on": "any", "base": None, "changes": None, "quarantine": None, "not_new": []}


def _failure(failure_class: str, message: str, step_text: str, path: str, line: int, expected: str = "",
             observed: str = "", step_kind: str = "observation_or_assertion", screenshot: str | None = None,
             parent: str | None = None) -> dict[str, Any]:
    return {"failure_class": failure_class, "runtime_code": "EXPECT_STATE_MISMATCH", "retryable": False,
            "step_kind": step_kind, "message": message, "step_index": 5, "step_text": step_text,
            "expected": expected, "observed": observed, "path": path, "line": line, "col": 7,
            "screenshot": screenshot, "parent": parent, "recovery": [], "max_recovery_attempts": 3,
            "candidates": [], "context": {}}


def failing_verdict() -> dict[str, Any]:
    """One of each: the site misbehaved (with dependents), a spec needs review, infrastructure; a
    flaky test; 3 shards with shard 3 missing."""
    checkout_id = f"{CHECKOUT}#Checkout saves the order"
    login_id = f"{SHOP}#shop/login"
    checkout_failure = _failure(
        "assertion_failed", "text 'Saved' not found in '#status' after 5 fresh reads",
        "expect text_contains 'Saved'", CHECKOUT, 12, expected="'#status' contains 'Saved'",
        observed="'#status' reads 'Saving failed, try again' @octocat `rm -rf` <script>",
        screenshot="screenshots/checkout-saves-the-order-5.png")
    login_failure = _failure(
        "spec_step_unresolvable", "no element matches '#signin' and the target was not found",
        "act click 'the sign in button'", SHOP, 17, step_kind="action")
    account_failure = _failure(
        "infrastructure_error", "the browser crashed", "goto '/login'", ACCOUNT, 4, step_kind="action")
    tests = [
        _test(checkout_id, CHECKOUT, 1, "failed", failure=checkout_failure, duration_ms=8200,
              screenshots=["screenshots/checkout-saves-the-order-5.png"]),
        _test(login_id, SHOP, 14, "failed", failure=login_failure, kind="rules", duration_ms=3100),
        _test(f"{SHOP}#shop/cart", SHOP, 24, "skipped", kind="rules", reason="parent_failed", duration_ms=0,
              failure=_failure("spec_step_unresolvable", "parent 'login' failed", "", SHOP, 24,
                               step_kind="parent_failed", parent="login")),
        _test(f"{SHOP}#shop/checkout", SHOP, 33, "skipped", kind="rules", reason="parent_failed", duration_ms=0),
        _test(f"{SHOP}#shop/home", SHOP, 5, "passed", kind="rules", duration_ms=900),
        _test(f"{ACCOUNT}#Account settings", ACCOUNT, 1, "failed", failure=account_failure, duration_ms=30000),
        _test("examples/flows/about.flow.yaml#About page", "examples/flows/about.flow.yaml", 1, "flaky",
              attempts=2, duration_ms=2500),
        _test("examples/flows/signup.flow.yaml#Sign up", "examples/flows/signup.flow.yaml", 1, "passed",
              duration_ms=1500),
    ]
    return {
        "schema": "flowwalk.verdict/1", "outcome": "site_misbehaved", "exit_code": 1,
        "run_id": "run-2026-11-22-abc", "started_at": "2026-11-22T04:00:00Z", "duration_ms": 48200.0, "root": None,
        "shards": {"total": 3, "reported": [1, 2], "missing": [3], "duplicated": [], "mismatched": []},
        "counts": {"total": 8, "passed": 2, "failed": 3, "skipped": 2, "flaky": 1},
        "by_class": {**NO_FAILURES, "assertion_failed": 1, "spec_step_unresolvable": 1, "infrastructure_error": 1},
        "tests": tests,
        "root_causes": [
            {"test_id": checkout_id, "failure_class": "assertion_failed", "message": checkout_failure["message"],
             "step_text": checkout_failure["step_text"], "path": CHECKOUT, "line": 12,
             "expected": checkout_failure["expected"], "observed": checkout_failure["observed"], "dependents": []},
            {"test_id": login_id, "failure_class": "spec_step_unresolvable", "message": login_failure["message"],
             "step_text": login_failure["step_text"], "path": SHOP, "line": 17, "expected": "", "observed": "",
             "dependents": [f"{SHOP}#shop/cart", f"{SHOP}#shop/checkout"]},
            {"test_id": f"{ACCOUNT}#Account settings", "failure_class": "infrastructure_error",
             "message": "the browser crashed", "step_text": "goto '/login'", "path": ACCOUNT, "line": 4,
             "expected": "", "observed": "", "dependents": []},
        ],
        "flaky": ["examples/flows/about.flow.yaml#About page"],
        "slowest": [{"test_id": f"{ACCOUNT}#Account settings", "duration_ms": 30000},
                    {"test_id": checkout_id, "duration_ms": 8200}],
        "warnings": ["shard 3 of 3 is missing: its scenarios are reported as not run"],
        "gate": copy.deepcopy(NO_GATE),
    }


def gated_verdict() -> dict[str, Any]:
    """The failing verdict compared with a base report, with a quarantine: the checkout failure is
    new, the login failure was failing on the base too, the account failure is quarantined until
    2099, an expired quarantine covers the checkout, and signup was fixed."""
    verdict = failing_verdict()
    tests = {t["test_id"]: t for t in verdict["tests"]}
    checkout, login, account = (f"{CHECKOUT}#Checkout saves the order", f"{SHOP}#shop/login",
                                f"{ACCOUNT}#Account settings")
    signup = "examples/flows/signup.flow.yaml#Sign up"
    tests[checkout].update(change="new", quarantine={"id": checkout, "owner": "@ada", "reason": "slow CI",
                                                     "expires": "2020-01-31", "expired": True})
    tests[login].update(change="still_failing")
    tests[account].update(change="new", excused="quarantined", blocking=False,
                          quarantine={"id": account, "owner": "team-infra", "reason": "the browser crashes on CI",
                                      "expires": "2099-12-31", "expired": False})
    tests[signup].update(change="fixed")
    verdict["gate"] = {
        "fail_on": "any", "base": {"path": "base-report", "run_id": "base-run-1", "started_at": "2026-11-21T04:00:00Z",
                                   "tests": 8},
        "changes": {"new": [checkout, account], "still_failing": [login], "newly_flaky": [], "still_flaky": [],
                    "fixed": [signup]},
        "quarantine": {"path": "flowwalk-quarantine.yaml", "today": "2026-11-22",
                       "entries": [{"id": checkout, "owner": "@shop-team", "reason": "payment sandbox is down",
                                    "expires": "2026-11-01", "expired": True, "line": 2, "tests": [checkout]},
                                   {"id": account, "owner": "@accounts", "reason": "flaky login redirect",
                                    "expires": "2099-12-31", "expired": False, "line": 6, "tests": [account]}],
                       "excused": [account], "expired": [checkout], "unknown": ["gone.flow.yaml#old"]},
        "not_new": []}
    return verdict


def passing_verdict() -> dict[str, Any]:
    verdict = failing_verdict()
    for test in verdict["tests"]:
        test.update(status="passed", failure=None, reason="")
    verdict.update(outcome="passed", exit_code=0, root_causes=[], flaky=[], by_class=dict(NO_FAILURES), warnings=[],
                   shards={"total": 1, "reported": [1], "missing": [], "duplicated": [], "mismatched": []},
                   counts={"total": 8, "passed": 8, "failed": 0, "skipped": 0, "flaky": 0})
    return verdict


def many_failures(n: int, text_len: int = 2000) -> dict[str, Any]:
    """`n` assertion failures with long observed texts: far over GitHub's comment limit."""
    verdict = failing_verdict()
    base = verdict["tests"][0]
    verdict["tests"], verdict["root_causes"] = [], []
    for i in range(n):
        test = copy.deepcopy(base)
        test["test_id"] = f"generated/g{i // 10:03d}.flow.yaml#generated flow {i:04d}"
        test["source"] = f"generated/g{i // 10:03d}.flow.yaml"
        test["failure"]["line"] = 3 + i % 10
        verdict["tests"].append(test)
        verdict["root_causes"].append({
            "test_id": test["test_id"], "failure_class": "assertion_failed", "message": "text not found " * 20,
            "step_text": f"expect text_contains 'Item {i} ready'", "path": test["source"], "line": 3 + i % 10,
            "expected": "contains 'ready'", "observed": ("x" * text_len), "dependents": [
                f"generated/dep{i:04d}.rules.yaml#shop/step-{j}" for j in range(30)]})
    dependents = [_test(d, d.split("#")[0], 3 + j, "skipped", kind="rules", reason="parent_failed")
                  for cause in verdict["root_causes"] for j, d in enumerate(cause["dependents"])]
    flaky = [_test(f"generated/flaky-{j}.flow.yaml#f", f"generated/flaky-{j}.flow.yaml", 1, "flaky", attempts=2)
             for j in range(200)]
    verdict["tests"] += dependents + flaky
    verdict["counts"] = {"total": len(verdict["tests"]), "passed": 0, "failed": n, "skipped": len(dependents),
                         "flaky": len(flaky)}
    verdict["by_class"] = {**NO_FAILURES, "assertion_failed": n}
    verdict["shards"] = {"total": 1, "reported": [1], "missing": [], "duplicated": [], "mismatched": []}
    verdict["warnings"] = []
    verdict["flaky"] = [t["test_id"] for t in flaky]
    verdict["slowest"] = [{"test_id": t["test_id"], "duration_ms": 1000} for t in verdict["tests"][:10]]
    return verdict


def write_report(folder: Path, verdict: dict[str, Any], *, summary: str | None = "## flowwalk summary\n",
                 base_url: str | None = "https://staging.example.com") -> Path:
    """A report folder as `flowwalk run` leaves it (the parts publish reads)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "verdict.json").write_text(json.dumps(verdict, indent=2), encoding="utf-8")
    if summary is not None:
        (folder / "summary.md").write_text(summary, encoding="utf-8")
    first = {"event": "run_started", "schema": "flowwalk.emit/1", "run_id": verdict.get("run_id", "r"),
             "started_at": "2026-11-22T04:00:00Z", "flowwalk_version": "0.1.0", "shard": {"index": 1, "total": 1},
             "plan": {}, "settings": {"base_url": base_url}}
    (folder / "emit.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")
    return folder


def typed(verdict: dict[str, Any]) -> Verdict:
    """A hand-written verdict as the records every presenter takes (checked against the schema)."""
    return parse_verdict(verdict)
