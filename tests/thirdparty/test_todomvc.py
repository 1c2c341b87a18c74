"""flowwalk against real third-party web apps: TodoMVC's VanillaJS and Backbone.js implementations.

The apps are other people's code, fetched (never committed) by `scripts/fetch_thirdparty.sh` from
the npm package todomvc@0.1.1 into `.cache/thirdparty/todomvc/package`, and served here on
127.0.0.1. One real CLI run walks every spec of `tests/thirdparty/specs/` (flows in v1 and v1.1, a
rule file, an aitester-bdd suite); the tests then hold its reports to the exact outcome each spec
was written for: which pass, which fail with which class, runtime code and step, the rule DAG's
order, skips and their reasons, retries and emits. `docs/thirdparty.md` has the same table.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import pytest

from flowwalk.serve import StaticServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from _cli import ROOT, flowwalk  # noqa: E402  (the e2e tests' helper: the CLI as a user runs it)

# one worker takes the module, so its one run (`run`) is walked once a suite run
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("todomvc"), pytest.mark.long]

PACKAGE = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
SPECS = "tests/thirdparty/specs"
RULES = f"{SPECS}/todomvc.rules.yaml#vanillajs"
ROBOT = f"{SPECS}/todomvc-backbone.robot#Backbone Todos"

PASSING_FLOWS = {
    f"{SPECS}/vanillajs-lifecycle.flow.yaml#vanillajs add, complete, filter, clear",
    f"{SPECS}/vanillajs-edit-persist.flow.yaml#vanillajs edit, reload, extract",
    f"{SPECS}/backbone-v1.flow.yaml#backbone todos in flow-spec v1",
    f"{SPECS}/backbone-v11.flow.yaml#backbone mark all, filter, edit, clear",
}

#: test id -> (failure class, runtime code, 1-based step, step kind, steps reported as skipped)
FAILING_FLOWS: dict[str, tuple[str, str, int, str, list[str]]] = {
    f"{SPECS}/fail-vanillajs-count.flow.yaml#vanillajs counter off by one (fails, assertion_failed)": (
        "assertion_failed", "EXPECT_STATE_MISMATCH", 5, "observation_or_assertion",
        ["step 6 (expect count '#todo-list li' == 3)"]),
    f"{SPECS}/fail-backbone-archive.flow.yaml#backbone archive a todo (fails, spec_step_unresolvable)": (
        "spec_step_unresolvable", "ELEMENT_NOT_FOUND", 3, "action",
        ["step 4 (expect count '#todo-list li' == 0)"]),
    f"{SPECS}/fail-vanillajs-offsite.flow.yaml#vanillajs follow the TodoMVC link (fails, spec_step_unresolvable)": (
        "spec_step_unresolvable", "NAVIGATION_BLOCKED", 2, "action",
        ["step 3 (expect url_contains 'todomvc.com')"]),
    f"{SPECS}/fail-backbone-missing-var.flow.yaml#backbone todo from a variable (fails, credential_rejected)": (
        "credential_rejected", "VARIABLE_MISSING", 1, "setup",
        ["step 2 (act press '#new-todo')", "step 3 (expect text_contains '{{TODO_TITLE}}')"]),
}

#: the rule file (VanillaJS) and the .robot suite (Backbone) share one DAG and one expected outcome
DAG_ORDER = ["add", "complete", "clear", "rename", "archive", "active_filter", "completed_filter", "persisted"]
DAG_OUTCOME = {
    "add": ("passed", ""), "complete": ("passed", ""), "clear": ("passed", ""), "rename": ("passed", ""),
    "archive": ("skipped", "guard_failed"), "active_filter": ("failed", ""),
    "completed_filter": ("skipped", "parent_failed"), "persisted": ("passed", ""),
}


@dataclass(frozen=True)
class Run:
    out: Path
    exit_code: int
    console: str
    verdict: dict[str, Any]
    records: list[dict[str, Any]]

    def test(self, test_id: str) -> dict[str, Any]:
        matches = [t for t in self.verdict["tests"] if t["test_id"] == test_id]
        assert len(matches) == 1, f"{test_id} is not one test of verdict.json"
        return matches[0]

    def events(self, name: str, **where: Any) -> list[dict[str, Any]]:
        return [r for r in self.records if r["event"] == name and all(r.get(k) == v for k, v in where.items())]


@pytest.fixture(scope="module")
def todomvc() -> Iterator[StaticServer]:
    if not (PACKAGE / "examples" / "vanillajs" / "index.html").is_file() \
            or not (PACKAGE / "examples" / "backbone" / "index.html").is_file():
        pytest.fail(f"the third-party apps are missing: {PACKAGE.relative_to(ROOT)} has no TodoMVC copy. "
                    "Run `scripts/install.sh --with-tests` (or `scripts/fetch_thirdparty.sh`) to fetch "
                    "todomvc@0.1.1 from the npm registry.", pytrace=False)
    with StaticServer(PACKAGE) as server:
        yield server


@pytest.fixture(scope="module")
def run(todomvc: StaticServer, tmp_path_factory: pytest.TempPathFactory) -> Run:
    out = tmp_path_factory.mktemp("todomvc-report")
    # FLOWWALK_OFFLINE=1 (tests/conftest.py) reaches the subprocess: requests to other hosts are aborted
    done = flowwalk("run", SPECS, "--base-url", todomvc.url, "--out", str(out), "--workers", "2",
                    timeout=180)
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines() if line.strip()]
    return Run(out, done.returncode, done.stdout + done.stderr,
               json.loads((out / "verdict.json").read_text()), records)


def test_the_run_reports_the_site_misbehaving_with_exact_counts(run: Run) -> None:
    assert run.exit_code == 1, run.console
    assert run.verdict["outcome"] == "site_misbehaved"
    assert run.verdict["counts"] == {"total": 27, "passed": 17, "failed": 6, "skipped": 4, "flaky": 0}
    assert run.verdict["by_class"]["assertion_failed"] == 3
    assert run.verdict["by_class"]["spec_step_unresolvable"] == 2
    assert run.verdict["by_class"]["credential_rejected"] == 1
    assert "Traceback" not in run.console


#: the passing flows written with a stale selector, and what it heals to
HEALED = {"tests/thirdparty/specs/vanillajs-edit-persist.flow.yaml#vanillajs edit, reload, extract":
          [("input.new-todo", "#new-todo")]}


@pytest.mark.parametrize("test_id", sorted(PASSING_FLOWS))
def test_flows_written_for_the_apps_pass(run: Run, test_id: str) -> None:
    test = run.test(test_id)
    # a pinned selector that drifted is healed and said so (docs/healing.md): never silently
    heals = [(f["heal"]["old_selector"], f["heal"]["new_selector"]) for f in test["findings"] if f["kind"] == "healed"]
    assert heals == HEALED.get(test_id, [])
    others = [f for f in test["findings"] if f["kind"] != "healed"]
    assert (test["status"], test["failure"], test["skipped_steps"], others) == ("passed", None, [], [])
    steps = run.events("step_finished", test_id=test_id)
    assert steps and {s["status"] for s in steps} == {"passed"}


@pytest.mark.parametrize("test_id", sorted(FAILING_FLOWS))
def test_flows_that_fail_on_purpose_fail_with_their_class_code_and_step(run: Run, test_id: str) -> None:
    failure_class, code, step, step_kind, skipped = FAILING_FLOWS[test_id]
    test = run.test(test_id)
    failure = test["failure"]
    assert test["status"] == "failed"
    assert (failure["failure_class"], failure["runtime_code"], failure["step_index"], failure["step_kind"]) \
        == (failure_class, code, step, step_kind)
    assert test["skipped_steps"] == skipped
    # the console line names the class and the step, as a user reads it in CI
    line = next(l for l in run.console.splitlines() if test_id in l)
    assert f"{failure_class}  step {step} (" in line


def test_failure_evidence_names_what_the_app_really_shows(run: Run) -> None:
    count = run.test(next(t for t in FAILING_FLOWS if "counter off by one" in t))["failure"]
    assert count["expected"] == "text exactly '3 items left' in '#todo-count'"
    assert "'2 items left'" in count["observed"]
    offsite = run.test(next(t for t in FAILING_FLOWS if "TodoMVC link" in t))["failure"]
    assert "http://todomvc.com/" in offsite["message"]
    archive = run.test(next(t for t in FAILING_FLOWS if "archive" in t))["failure"]
    assert [(a["strategy"], a["outcome"]) for a in archive["recovery"]] == [("re_resolve_target", "failed")]
    missing = run.test(next(t for t in FAILING_FLOWS if "variable" in t))["failure"]
    assert "{{TODO_TITLE}}" in missing["message"]
    # credential_rejected is decided before any browser starts: the flow never walked a step
    assert run.events("step_finished", scenario_id=next(t for t in FAILING_FLOWS if "variable" in t)) == []


def test_a_stale_selector_and_a_target_only_step_are_re_resolved_on_the_live_page(run: Run) -> None:
    edit = next(t for t in PASSING_FLOWS if "edit, reload" in t)
    steps = {s["index"]: s for s in run.events("step_finished", test_id=edit)}
    for index, why in ((1, "pinned selector 'input.new-todo' matched nothing"), (2, "no pinned selector")):
        detail = steps[index]["detail"]
        assert detail["recovery"][0]["strategy"] == "re_resolve_target"
        assert detail["recovery"][0]["outcome"] == "recovered"
        assert detail["recovery"][0]["detail"].startswith(why)
        # the field has no label: its accessible name is its placeholder
        assert detail["candidates"][0]["role"] == "textbox" and detail["candidates"][0]["count"] == 1
    # the extracted title was reused in a later step
    assert {k: steps[15]["detail"][k] for k in ("into", "value")} == {"into": "SECOND_TODO",
                                                                       "value": "Call the electrician"}
    backbone = next(t for t in PASSING_FLOWS if "flow-spec v1" in t)
    first = run.events("step_finished", test_id=backbone, index=1)[0]
    assert first["detail"]["recovery"][0]["outcome"] == "recovered"


@pytest.mark.parametrize("prefix", [RULES, ROBOT], ids=["rules-vanillajs", "robot-backbone"])
def test_rule_dag_runs_in_kahn_order_with_skips_and_failure_kinds(run: Run, prefix: str) -> None:
    finished = [r for r in run.events("rule_finished") if r["test_id"].startswith(prefix + "/")]
    # 'clear' is declared before its parent 'complete' and still runs after it
    assert [r["rule"] for r in finished] == DAG_ORDER
    assert {r["rule"]: (r["status"], r["reason"]) for r in finished} == DAG_OUTCOME
    by_rule = {r["rule"]: r for r in finished}
    archive = by_rule["archive"]["failure"]
    assert (archive["step_kind"], archive["step_index"], archive["runtime_code"]) == ("guard", 1, "EXPECT_STATE_MISMATCH")
    active = by_rule["active_filter"]["failure"]
    assert (active["failure_class"], active["runtime_code"], active["step_index"], active["step_kind"]) \
        == ("assertion_failed", "EXPECT_STATE_MISMATCH", 3, "observation_or_assertion")
    # child scope: 'active_filter' is a child of 'complete', whose child_scope is '#todoapp'
    assert "within '#todoapp'" in active["expected"] and active["observed"].startswith("2 element(s)")
    skipped = by_rule["completed_filter"]["failure"]
    assert (skipped["step_kind"], skipped["parent"]) == ("parent_failed", "active_filter")
    # the summary groups it under its root cause rather than as a second failure
    root = [c for c in run.verdict["root_causes"] if c["test_id"] == f"{prefix}/active_filter"]
    assert len(root) == 1 and root[0]["dependents"] == [f"{prefix}/completed_filter"]


@pytest.mark.parametrize("prefix", [RULES, ROBOT], ids=["rules-vanillajs", "robot-backbone"])
def test_retry_redo_replays_the_actions_until_the_guard_holds(run: Run, prefix: str) -> None:
    test_id = f"{prefix}/rename"
    finished = run.events("rule_finished", test_id=test_id)[0]
    assert finished["guard_attempts"] == 2
    steps = [(s["index"], s["role"], s["status"], s["detail"].get("round"), s["detail"].get("replay"))
             for s in run.events("step_finished", test_id=test_id)]
    assert steps == [
        (1, "guard", "failed", 1, None),
        (2, "body", "passed", None, 1), (3, "body", "passed", None, 1), (4, "body", "passed", None, 1),
        (1, "guard", "passed", 2, None),
        (2, "body", "passed", None, None), (3, "body", "passed", None, None), (4, "body", "passed", None, None),
        (5, "body", "passed", None, None),
    ]
    assert [f["source"] for f in run.test(test_id)["findings"]] == ["retry_redo"]


@pytest.mark.parametrize("prefix", [RULES, ROBOT], ids=["rules-vanillajs", "robot-backbone"])
def test_emits_record_the_todo_list_before_and_after_a_reload(run: Run, prefix: str) -> None:
    scenario_id = prefix
    emits = {e["name"]: e["fields"] for e in run.events("emit_recorded", scenario_id=scenario_id)}
    assert emits["todos_added"]["rows"] == 3 and emits["todos_added"]["counter"] == "3 items left"
    after = emits["todos_after_reload"]
    if prefix == RULES:
        # the rule file also added "Vet after: {{FIRST}}" with the title it extracted after the reload
        assert after == {"rows": 3, "last": "Vet after: Walk the cat"}
    else:
        assert after == {"rows": 2, "first": "Walk the cat"}


def test_junit_marks_each_failure_with_its_class(run: Run) -> None:
    failures = {}
    for case in ET.parse(run.out / "junit.xml").getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is not None:
            failures[(case.get("classname"), case.get("name"))] = failure.get("type")
    assert sorted(failures.values()) == sorted(
        ["assertion_failed", "spec_step_unresolvable", "spec_step_unresolvable", "credential_rejected",
         "assertion_failed", "assertion_failed"])
