"""Playwright's TodoMVC suite imported by `flowwalk import` and walked against a TodoMVC app that
its own selectors fit, then against copies of that app with bugs planted.

The suite (tests/corpus/import/playwright-todomvc) was written for the current TodoMVC markup:
classes (`.new-todo`, `.todo-list`), filtered items removed from the list, the todos stored as
`localStorage['react-todos']`. The offline app is todomvc@0.1.1's Backbone.js app
(`scripts/fetch_thirdparty.sh`), which uses ids, hides filtered items and stores each todo under
its own key; `fitted_app` gives its elements the classes as well, renders only the items the
filter shows, drops the count from "Clear completed", and mirrors its store into `react-todos`.
The specs are not touched: they are what the import wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

import pytest

from flowwalk.serve import StaticServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from _cli import ROOT, flowwalk  # noqa: E402  (the e2e tests' helper: the CLI as a user runs it)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("import_todomvc"), pytest.mark.long]

BACKBONE = ROOT / ".cache" / "thirdparty" / "todomvc" / "package" / "examples" / "backbone"
CORPUS = ROOT / "tests" / "corpus" / "import" / "playwright-todomvc"

#: Backbone's todos written, after every change to the store, as the list the suite reads
REACT_TODOS = """\
(function () {
  var set = Storage.prototype.setItem, remove = Storage.prototype.removeItem;
  function mirror(store) {
    var ids = (store.getItem('todos-backbone') || '').split(',').filter(Boolean);
    var items = ids.map(function (id) { return JSON.parse(store.getItem('todos-backbone-' + id)); })
      .filter(Boolean).map(function (t) { return { title: t.title, completed: t.completed }; });
    set.call(store, 'react-todos', JSON.stringify(items));
  }
  Storage.prototype.setItem = function (key, value) {
    set.call(this, key, value);
    if (key !== 'react-todos') { mirror(this); }
  };
  Storage.prototype.removeItem = function (key) { remove.call(this, key); mirror(this); };
})();
"""
_IDS = ("new-todo", "main", "toggle-all", "todo-list", "footer", "todo-count", "filters", "clear-completed")
#: (file of the app, text, what replaces it): the app the suite's selectors fit
FITTING = [
    *(("index.html", f'id="{name}"', f'id="{name}" class="{name}"') for name in _IDS),
    ("index.html", "Clear completed (<%= completed %>)", "Clear completed"),
    ("index.html", '<script src="bower_components/todomvc-common/base.js"></script>',
     '<script src="react-todos.js"></script><script src="bower_components/todomvc-common/base.js"></script>'),
    ("js/views/app-view.js", "this.$list.append(view.render().el);",
     "if (!view.render().isHidden()) { this.$list.append(view.el); }"),
    ("js/views/app-view.js", "todo.trigger('visible');", "this.addAll();"),
    ("js/views/app-view.js", "app.todos.each(this.filterOne, this);", "this.addAll();"),
]
#: bugs planted in the fitted app (the hand port's, tests/thirdparty/test_todomvc_port.py)
NO_COMPLETED_CLASS_NO_TRIM = [
    ("js/views/todo-view.js", "this.$el.toggleClass('completed', this.model.get('completed'));", ""),
    ("js/views/todo-view.js", "var trimmedValue = value.trim();", "var trimmedValue = value;"),
]


def _app(root: Path, edits: Sequence[tuple[str, str, str]]) -> Path:
    if not (BACKBONE / "index.html").is_file():
        pytest.fail("no TodoMVC copy in .cache/thirdparty: run `scripts/fetch_thirdparty.sh`", pytrace=False)
    shutil.copytree(BACKBONE, root)
    (root / "react-todos.js").write_text(REACT_TODOS)
    for name, old, new in edits:
        path = root / name
        text = path.read_text()
        assert old in text, f"the app changed: {old!r} is not in {name}"
        path.write_text(text.replace(old, new))
    return root


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imported")
    done = flowwalk("import", str(CORPUS), "--out", str(out), "--base-url", "https://demo.playwright.dev/todomvc",
                    timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "25 of 25 test(s) written whole, 86 of 86 check(s) kept" in done.stdout
    return out


def _walk(app_root: Path, specs: Path, out: Path, *files: str) -> tuple[int, dict[str, Any], str]:
    targets = [str(specs / f) for f in files] or [str(specs)]
    with StaticServer(app_root) as app:
        done = flowwalk("run", *targets, "--base-url", app.url, "--out", str(out), "--workers", "2", timeout=300)
    return done.returncode, json.loads((out / "verdict.json").read_text()), done.stdout + done.stderr


def test_every_imported_spec_passes_against_the_app_with_every_check(imported: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    code, verdict, console = _walk(_app(tmp_path / "app", FITTING), imported, out)
    assert code == 0, console
    assert verdict["counts"] == {"total": 25, "passed": 25, "failed": 0, "skipped": 0, "flaky": 0}
    records = [json.loads(line) for line in (out / "emit.jsonl").read_text().splitlines() if line.strip()]
    checks = [r for r in records if r["event"] == "step_finished" and r["kind"] == "expect"]
    assert len(checks) == 86 and all(r["status"] == "passed" for r in checks)


def test_planted_bugs_fail_the_imported_tests_written_for_them(imported: Path, tmp_path: Path) -> None:
    app = _app(tmp_path / "app", [*FITTING, *NO_COMPLETED_CLASS_NO_TRIM])
    caught = "integration/mark-all-as-completed/should-allow-me-to-mark-all-items-as-completed.flow.yaml", \
        "integration/item/should-allow-me-to-mark-items-as-complete.flow.yaml", \
        "integration/editing/should-trim-entered-text.flow.yaml"
    spared = "integration/new-todo/should-allow-me-to-add-todo-items.flow.yaml"
    code, verdict, console = _walk(app, imported, tmp_path / "report", *caught, spared)
    assert code == 1, console   # assertion_failed: the site misbehaved
    # a test's source is relative to the run's root, the folder the walked files share
    status = {name: next(t for t in verdict["tests"] if name.endswith(t["source"])) for name in (*caught, spared)}
    for name in caught:
        assert status[name]["status"] == "failed", name
        assert status[name]["failure"]["failure_class"] == "assertion_failed", status[name]["failure"]
    assert status[spared]["status"] == "passed"
    assert verdict["counts"]["total"] == 4


def test_import_run_sends_the_specs_a_planted_bug_fails_to_needs_review(tmp_path: Path) -> None:
    """`--run` walks what was written whole against the app at --base-url: on the app with two bugs
    planted, the five specs they fail (each reads the `completed` class or the trimmed title) move
    to needs-review/ with the failure on top and in the ledger, and what stays out of it is green."""
    app = _app(tmp_path / "app", [*FITTING, *NO_COMPLETED_CLASS_NO_TRIM])
    caught = ("integration/mark-all-as-completed/should-allow-me-to-mark-all-items-as-completed.flow.yaml",
              "integration/item/should-allow-me-to-mark-items-as-complete.flow.yaml",
              "integration/item/should-allow-me-to-un-mark-items-as-complete.flow.yaml",
              "integration/persistence/should-persist-its-data.flow.yaml",
              "integration/editing/should-trim-entered-text.flow.yaml")
    out = tmp_path / "out"
    with StaticServer(app) as served:
        # the suite as a team keeps it against its own dev server: its gotos name the app's address
        suite = tmp_path / "suite"
        suite.mkdir()
        text = (CORPUS / "integration.spec.ts").read_text()
        (suite / "integration.spec.ts").write_text(text.replace("https://demo.playwright.dev/todomvc", served.url))
        done = flowwalk("import", str(suite), "--out", str(out), "--base-url", served.url, "--run", timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"walked 25 spec(s) against {served.url}: 20 passed, 5 moved to needs-review/" in done.stdout
        assert "20 of 25 test(s) written whole" in done.stdout
        for name in caught:
            assert not (out / name).exists(), name
            header = (out / "needs-review" / name).read_text().split("\nspec_version")[0]
            assert f"did not pass when walked against {served.url}" in header and "at step" in header, header
        ledger = json.loads((out / "import" / "ledger.json").read_text())
        held = {t["file"]: t for t in ledger["tests"] if not t["whole"]}
        assert set(held) == {f"needs-review/{name}" for name in caught}
        assert all("flowwalk import --run" in t["why"] for t in held.values())
        assert (out / "import" / "run" / "report.html").is_file()
        again = flowwalk("run", str(out / "integration"), "--base-url", served.url, "--out", str(tmp_path / "again"),
                         "--workers", "2", timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads((tmp_path / "again" / "verdict.json").read_text())["counts"]["passed"] == 20


#: one-line bugs planted one at a time in the fitted app: (name, file, the fitted text, what replaces it)
ONE_LINE_BUGS = [
    ("no completed class", "js/views/todo-view.js",
     "this.$el.toggleClass('completed', this.model.get('completed'));", ""),
    ("edit not trimmed", "js/views/todo-view.js", "var trimmedValue = value.trim();", "var trimmedValue = value;"),
    ("new items on top", "js/views/app-view.js", "this.$list.append(view.el);", "this.$list.prepend(view.el);"),
    ("the counter counts completed items", "js/views/app-view.js",
     "var remaining = app.todos.remaining().length;", "var remaining = app.todos.length;"),
]
PLAYWRIGHT = ROOT / "node_modules" / ".bin" / "playwright"
PW_CONFIG = """\
import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.', retries: 0, workers: 2, reporter: [['json', { outputFile: 'results.json' }]],
  outputDir: 'out',
  use: { headless: true, trace: 'off', screenshot: 'off', video: 'off',
         launchOptions: { executablePath: '%s', args: ['--no-sandbox', '--disable-gpu',
           '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] } },
});
"""


def _playwright_failures(url: str, where: Path) -> set[str]:
    """Upstream's suite run by Playwright Test against the app at `url`: the titles of the tests that
    did not pass. The suite sits under the checkout's .cache, so that `@playwright/test` resolves to
    node_modules/ (npm ci of package.json)."""
    import subprocess

    from flowwalk.settings import default_executable

    if not PLAYWRIGHT.is_file():
        pytest.fail("no Playwright Test in node_modules: run `scripts/install.sh --with-tests`", pytrace=False)
    where.mkdir(parents=True)
    text = (CORPUS / "integration.spec.ts").read_text()
    (where / "integration.spec.ts").write_text(text.replace("https://demo.playwright.dev/todomvc", url))
    (where / "playwright.config.ts").write_text(PW_CONFIG % default_executable())
    done = subprocess.run([str(PLAYWRIGHT), "test", "--config", str(where / "playwright.config.ts")], cwd=where,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "CI": "1"})
    results = json.loads((where / "results.json").read_text())
    assert results["stats"]["expected"] + results["stats"]["unexpected"] == 25, done.stdout[-2000:] + done.stderr

    def specs(suite: dict[str, Any]) -> Iterator[dict[str, Any]]:
        yield from suite.get("specs", [])
        for inner in suite.get("suites", []):
            yield from specs(inner)

    return {spec["title"] for top in results["suites"] for spec in specs(top) if not spec["ok"]}


@pytest.mark.parametrize(("bug", "name", "old", "new"), ONE_LINE_BUGS, ids=[b[0] for b in ONE_LINE_BUGS])
def test_with_a_planted_bug_the_import_fails_exactly_the_tests_playwright_test_fails(
        imported: Path, tmp_path: Path, bug: str, name: str, old: str, new: str) -> None:
    """Behaviour, not only shape: upstream's suite under Playwright Test and its import under
    flowwalk, against the same app with the same one-line bug, fail the same tests."""
    app = _app(tmp_path / "app", [*FITTING, (name, old, new)])
    where = ROOT / ".cache" / "pw-parity" / tmp_path.name
    shutil.rmtree(where, ignore_errors=True)
    try:
        with StaticServer(app) as served:
            upstream = _playwright_failures(served.url, where)
            done = flowwalk("run", str(imported), "--base-url", served.url, "--out", str(tmp_path / "report"),
                            "--workers", "2", timeout=600)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    verdict = json.loads((tmp_path / "report" / "verdict.json").read_text())
    ours = {t["name"] for t in verdict["tests"] if t["status"] != "passed"}   # a spec's name is its test's title
    assert upstream, f"{bug}: Playwright Test caught nothing, so the bug plants nothing"
    assert ours == upstream, done.stdout[-3000:]
