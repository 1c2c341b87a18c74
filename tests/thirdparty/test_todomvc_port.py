"""examples/todomvc, Playwright's TodoMVC suite ported to flow specs, against TodoMVC's Backbone.js app.

One CLI run walks the whole port against the app as published (todomvc@0.1.1, fetched by
`scripts/fetch_thirdparty.sh`): every test passes, its steps nested under the calls, groups and
hooks they ran in. Then copies of the app with bugs planted walk the tests those bugs break: each
fails at the check written for that behaviour, and junit.xml, report.html and the PR comment say
what was expected and what was observed, a list check with its item-by-item diff.
"""

from __future__ import annotations

import json
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator

import pytest

from flowwalk.github.render import RunLinks, render_comment
from flowwalk.report.verdict_json import parse_verdict
from flowwalk.serve import StaticServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from _cli import ROOT, flowwalk  # noqa: E402  (the e2e tests' helper: the CLI as a user runs it)

# one worker takes the module, so the port is walked once a suite run (`walked`)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("todomvc_port"), pytest.mark.long]

PACKAGE = ROOT / ".cache" / "thirdparty" / "todomvc" / "package"
PORT = "examples/todomvc"
#: upstream's 25 tests, by the file each is ported to
FILES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / PORT).rglob("*.flow.yaml"))


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines() if line.strip()]


def _verdict(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "verdict.json").read_text()))


@pytest.fixture(scope="module")
def package() -> Path:
    if not (PACKAGE / "examples" / "backbone" / "index.html").is_file():
        pytest.fail(f"{PACKAGE.relative_to(ROOT)} has no TodoMVC copy: run `scripts/fetch_thirdparty.sh`",
                    pytrace=False)
    return PACKAGE


@pytest.fixture(scope="module")
def walked(package: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    out = tmp_path_factory.mktemp("port")
    with StaticServer(package) as app:
        done = flowwalk("run", PORT, "--base-url", app.url, "--out", str(out), "--workers", "2", timeout=300)
    return out, done.returncode, done.stdout + done.stderr


def test_the_port_is_upstreams_25_tests_and_passes_against_the_app(walked: tuple[Path, int, str]) -> None:
    out, code, console = walked
    assert len(FILES) == 25
    verdict = _verdict(out)
    assert code == 0, console
    assert verdict["counts"] == {"total": 25, "passed": 25, "failed": 0, "skipped": 0, "flaky": 0}
    assert sorted(t["source"] for t in verdict["tests"]) == FILES


def test_the_port_stays_within_upstreams_length_and_a_quarter() -> None:
    lines = sum(len(p.read_text().splitlines()) for p in (ROOT / PORT).rglob("*.yaml"))
    assert lines <= 405 * 1.25, lines


def test_the_port_keeps_upstreams_86_checks(walked: tuple[Path, int, str]) -> None:
    out, _, _ = walked
    checks = [r for r in _records(out) if r["event"] == "step_finished" and r["kind"] == "expect"]
    assert len(checks) == 86 and all(r["status"] == "passed" for r in checks)
    assert sum(r["kind"] == "history" for r in _records(out) if r["event"] == "step_finished") == 3


def test_shared_steps_groups_and_hooks_show_in_the_records(walked: tuple[Path, int, str]) -> None:
    out, _, _ = walked
    records = _records(out)
    back = f"{PORT}/routing/back-button.flow.yaml#walks the filters as the back button will undo them"
    steps = [r for r in records if r["event"] == "step_finished" and r["test_id"] == back]
    # the folder's hook adds the three default todos, each through add-todo.steps.yaml
    hook = steps[0]["frames"]
    assert [(f["kind"], f["title"]) for f in hook] == [
        ("before_each", f"before each ({PORT}/routing/before_each.steps.yaml)"),
        ("call", "use ../steps/default-todos.steps.yaml"), ("call", "use add-todo.steps.yaml")]
    assert hook[2]["args"] == {"title": "buy some cheese"} and steps[0]["path"] == f"{PORT}/steps/add-todo.steps.yaml"
    groups = [s["frames"][0]["title"] for s in steps if s["frames"] and s["frames"][0]["kind"] == "group"]
    assert groups == ["Showing all items", "Showing all items", "Showing active items", "Showing completed items"]
    # report.html nests the steps under those blocks; junit.xml lists them in system-out
    html = (out / "report.html").read_text()
    assert '"title":"Showing all items"' in html and '"kind":"before_each"' in html
    case = _case(out, back)
    assert "  Showing all items (line 7)\n    step 10 passed: act click '#filters >> text=All' (line 9)" in \
        (case.findtext("system-out") or "")


def _case(out: Path, test_id: str) -> ET.Element:
    name = test_id.split("#", 1)[1]
    cases = [c for c in ET.parse(out / "junit.xml").iter("testcase") if c.get("name") == name]
    assert len(cases) == 1, test_id
    return cases[0]


#: bugs planted in copies of the app: (file under examples/backbone/js/views, the text, what replaces it)
NO_COMPLETED_CLASS_NO_TRIM = [
    ("todo-view.js", "this.$el.toggleClass('completed', this.model.get('completed'));", ""),
    ("todo-view.js", "var trimmedValue = value.trim();", "var trimmedValue = value;"),
]
PREPENDS_KEEPS_COMPLETED_CLASS = [
    ("app-view.js", "this.$list.append(view.render().el);", "this.$list.prepend(view.render().el);"),
    ("todo-view.js", "this.$el.toggleClass('completed', this.model.get('completed'));",
     "if (this.model.get('completed')) { this.$el.addClass('completed'); }"),
]


@pytest.fixture()
def buggy(package: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[StaticServer]:
    root = tmp_path / "app"
    shutil.copytree(package / "examples" / "backbone", root / "examples" / "backbone")
    shutil.copy(package / "learn.json", root / "learn.json")
    for name, old, new in request.param:
        path = root / "examples" / "backbone" / "js" / "views" / name
        text = path.read_text()
        assert old in text, f"the app changed: {old!r} is not in {name}"
        path.write_text(text.replace(old, new))
    with StaticServer(root) as app:
        yield app


def _walk(app: StaticServer, out: Path, *files: str) -> dict[str, Any]:
    done = flowwalk("run", *(f"{PORT}/{f}" for f in files), "--base-url", app.url, "--out", str(out), timeout=180)
    assert done.returncode == 1, done.stdout + done.stderr   # assertion_failed: the site misbehaved
    return _verdict(out)


def _failure(verdict: dict[str, Any], file: str) -> dict[str, Any]:
    test = next(t for t in verdict["tests"] if t["source"] == f"{PORT}/{file}")
    assert test["status"] == "failed" and test["failure"]["failure_class"] == "assertion_failed", test
    return dict(test["failure"])


@pytest.mark.parametrize("buggy", [NO_COMPLETED_CLASS_NO_TRIM], indirect=True)
def test_items_that_lose_their_class_and_an_untrimmed_title_fail_their_checks(buggy: StaticServer,
                                                                              tmp_path: Path) -> None:
    out = tmp_path / "report"
    verdict = _walk(buggy, out, "mark-all/marks-all.flow.yaml", "item/marks-complete.flow.yaml",
                    "editing/trims.flow.yaml")
    marked = _failure(verdict, "mark-all/marks-all.flow.yaml")
    assert marked["step_text"] == "expect classes '#todo-list li' == ['completed', 'completed', 'completed']"
    assert marked["expected"] == "classes of '#todo-list li' exactly ['completed', 'completed', 'completed']"
    assert marked["observed"] == "3 item(s) match '#todo-list li': ['', '', '']"
    assert marked["diff"].splitlines() == ["- expected (3 items)", "+ observed (3 items)",
                                           *["- 'completed'", "+ ''"] * 3]
    one = _failure(verdict, "item/marks-complete.flow.yaml")
    assert (one["expected"], one["observed"]) == ("'#todo-list li:nth-child(1)' with class 'completed'",
                                                  "'#todo-list li:nth-child(1)' has no class")
    # a text check that collapses whitespace passes; the title the app stored does not
    trimmed = _failure(verdict, "editing/trims.flow.yaml")
    assert trimmed["step_index"] == 12 and trimmed["expected"] == \
        "at least 1 localStorage key(s) starting with 'todos-backbone-' holding title = 'buy some sausages'"
    assert trimmed["observed"].startswith("3 localStorage key(s) start with 'todos-backbone-', 0 holding title = "
                                          "'buy some sausages' (title: ")
    assert "    buy some sausages    " in trimmed["observed"]
    _reports_say_what_was_expected_and_observed(out, verdict, marked)
    _report_html_shows_the_diff_and_the_blocks(out, tmp_path)


@pytest.mark.parametrize("buggy", [PREPENDS_KEEPS_COMPLETED_CLASS], indirect=True)
def test_a_list_in_the_wrong_order_and_a_class_that_stays_fail_their_checks(buggy: StaticServer,
                                                                            tmp_path: Path) -> None:
    out = tmp_path / "report"
    verdict = _walk(buggy, out, "new-todo/add-items.flow.yaml", "item/unmarks-complete.flow.yaml")
    added = _failure(verdict, "new-todo/add-items.flow.yaml")
    assert added["expected"] == "texts of '#todo-list li label' exactly ['buy some cheese', 'feed the cat']"
    assert added["observed"] == "2 item(s) match '#todo-list li label': ['feed the cat', 'buy some cheese']"
    assert added["diff"].splitlines() == ["- expected (2 items)", "+ observed (2 items)", "+ 'feed the cat'",
                                          "  'buy some cheese'", "- 'feed the cat'"]
    reopened = _failure(verdict, "item/unmarks-complete.flow.yaml")
    assert reopened["step_text"] == "expect lacks_class '#todo-list li:nth-child(1)' 'completed'"
    assert reopened["observed"] == "'#todo-list li:nth-child(1)' has class 'completed'"
    _reports_say_what_was_expected_and_observed(out, verdict, added)


#: the toggle changes the item in memory only: the page shows it completed, storage does not
UNSAVED_TOGGLE = [("../models/todo.js", "this.save({", "this.set({")]
#: the filter links replace the history entry instead of adding one: the back button leaves the app
FILTERS_REPLACE_HISTORY = [
    ("../routers/router.js", "Backbone.history.start();",
     "Backbone.history.start();\n\tdocument.addEventListener('click', function (e) {\n"
     "\t\tvar link = e.target.closest('#filters a');\n"
     "\t\tif (link) { e.preventDefault(); location.replace(link.getAttribute('href')); }\n\t}, true);"),
]


@pytest.mark.parametrize("buggy", [UNSAVED_TOGGLE], indirect=True)
def test_a_state_the_app_does_not_store_fails_its_storage_check(buggy: StaticServer, tmp_path: Path) -> None:
    out = tmp_path / "report"
    verdict = _walk(buggy, out, "item/unmarks-complete.flow.yaml")
    marked = _failure(verdict, "item/unmarks-complete.flow.yaml")
    assert marked["step_text"] == ("use ../steps/stored-completed.steps.yaml (at examples/todomvc/item/unmarks-complete"
                                   ".flow.yaml:10) › expect storage_count 'todos-backbone-*' completed='true' == 1")
    assert marked["expected"] == "exactly 1 localStorage key(s) starting with 'todos-backbone-' holding completed = 'true'"
    assert marked["observed"] == ("2 localStorage key(s) start with 'todos-backbone-', 0 holding completed = 'true' "
                                  "(completed: false; false)")
    body = _case(out, verdict["tests"][0]["test_id"]).find("failure")
    assert body is not None and f"expected: {marked['expected']}" in (body.text or "")
    assert f"observed: {marked['observed']}" in (body.text or "")
    assert json.dumps(marked["observed"])[1:-1] in (out / "report.html").read_text()
    comment = render_comment(parse_verdict(verdict), RunLinks())
    assert marked["expected"] in comment and marked["observed"] in comment


@pytest.mark.parametrize("buggy", [FILTERS_REPLACE_HISTORY], indirect=True)
def test_a_back_button_that_leaves_the_app_fails_the_check_after_go_back(buggy: StaticServer, tmp_path: Path) -> None:
    verdict = _walk(buggy, tmp_path / "report", "routing/back-button.flow.yaml")
    back = _failure(verdict, "routing/back-button.flow.yaml")
    assert (back["step_index"], back["step_text"]) == (15, "go_back")
    assert back["observed"] == (f"none: '{buggy.url}/examples/backbone/index.html#/completed' replaced it in "
                                f"the history")


def _reports_say_what_was_expected_and_observed(out: Path, verdict: dict[str, Any], failure: dict[str, Any]) -> None:
    test = next(t for t in verdict["tests"] if t["failure"] and t["failure"]["diff"] == failure["diff"])
    body = _case(out, test["test_id"]).find("failure")
    assert body is not None
    text = body.text or ""
    assert f"expected: {failure['expected']}" in text and f"observed: {failure['observed']}" in text
    assert "items (- expected, + observed):\n" + "\n".join(f"  {line}" for line in failure["diff"].splitlines()) \
        in text
    html = (out / "report.html").read_text()
    assert json.dumps(failure["diff"])[1:-1] in html and json.dumps(failure["observed"])[1:-1] in html
    comment = render_comment(parse_verdict(verdict), RunLinks())
    assert failure["expected"] in comment and failure["observed"] in comment
    assert "```diff\n" in comment
    assert all(f"  {line}" in comment for line in failure["diff"].splitlines()[2:])


#: flowwalk reading its own report.html, opened on the failed marks-all test
REPORT_FLOW = """
spec_version: "1.1"
name: the report nests the steps and shows the diff
url: /report.html
steps:
  - {type: wait, for: "#list li"}
  - {type: act, action: fill, selector: "#search", value: marks-all}
  - {type: expect, kind: count, selector: "#list > li > details", equals: 1}
  - type: expect
    kind: texts
    selector: "#list .failure pre.aria-diff span"
    equals: ["- expected (3 items)", "+ observed (3 items)", "- 'completed'", "+ ''", "- 'completed'", "+ ''",
             "- 'completed'", "+ ''"]
  - {type: expect, kind: classes, selector: "#list .failure pre.aria-diff span", equals: [del, add, del, add, del, add,
                                                                                         del, add]}
  - type: expect
    kind: texts
    selector: "#list tr.frame .block"
    equals: ["before each (examples/todomvc/mark-all/before_each.steps.yaml)", "use ../steps/default-todos.steps.yaml",
             "use add-todo.steps.yaml", "use add-todo.steps.yaml", "use add-todo.steps.yaml",
             "use ../steps/stored-todos.steps.yaml", "after each (examples/todomvc/mark-all/after_each.steps.yaml)",
             "use ../steps/stored-todos.steps.yaml"]
  - {type: expect, kind: has_class, selector: "#list tr.step.failed td:nth-child(3)", value: d0}
  - {type: expect, kind: has_class, selector: "#list tr.step td:nth-child(3)", value: d3}   # the first step, 3 deep
assertions:
  - {kind: no_console_errors, severity: critical}
"""


def _report_html_shows_the_diff_and_the_blocks(out: Path, tmp_path: Path) -> None:
    spec = tmp_path / "report-check" / "report.flow.yaml"
    spec.parent.mkdir()
    spec.write_text(REPORT_FLOW)
    done = flowwalk("run", str(spec), "--serve", str(out), "--out", str(tmp_path / "report-check-out"), "--offline")
    assert done.returncode == 0, done.stdout + done.stderr
