"""Cypress's TodoMVC suite (cypress-example-todomvc's `cypress/e2e/app.cy.js` with its
`cypress/support/commands.js`, tests/corpus/import/cypress-todomvc) imported by `flowwalk import`
and walked against the app of the same repository: the React app built from its sources by
`scripts/fetch_thirdparty.sh` into .cache/thirdparty/cypress-todomvc, served on 127.0.0.1. The
specs are walked as the import wrote them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from flowwalk.importer.syntax import Source, calls_in, parse
from flowwalk.serve import StaticServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from _cli import ROOT, flowwalk  # noqa: E402  (the e2e tests' helper: the CLI as a user runs it)

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("import_cypress_todomvc"), pytest.mark.long]

CORPUS = ROOT / "tests" / "corpus" / "import" / "cypress-todomvc"
SUITE = (CORPUS / "cypress" / "e2e" / "app.cy.js", CORPUS / "cypress" / "support" / "commands.js")
APP = ROOT / ".cache" / "thirdparty" / "cypress-todomvc"
#: upstream's tests and explicit checks (each should / and, each checkA11y, each contains ending a
#: chain; the checks of testState(), which the persistence test calls twice, twice)
TESTS, CHECKS = 32, 79


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("imported")
    done = flowwalk("import", str(SUITE[0]), "--out", str(out), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return out, json.loads((out / "import" / "ledger.json").read_text())


def test_the_suite_imports_with_its_checks_kept_and_its_tests_whole(imported: tuple[Path, dict]) -> None:
    _, ledger = imported
    figures = ledger["figures"]
    assert figures["files"] == 2 and figures["files_refused"] == 0   # the test file and its commands
    assert figures["tests"] == TESTS and figures["checks"] == CHECKS
    assert figures["tests_whole"] >= 0.9 * TESTS
    assert figures["checks_kept"] >= 0.95 * CHECKS
    # the bar this importer holds: every test whole, every check kept
    assert (figures["tests_whole"], figures["checks_kept"]) == (TESTS, CHECKS)


def test_the_ledger_has_a_row_for_every_call_expression_of_both_files(imported: tuple[Path, dict]) -> None:
    _, ledger = imported
    for path in SUITE:
        parsed = parse(path.name, path.read_bytes())
        assert isinstance(parsed, Source)
        calls = {(c.start_point[0] + 1, c.start_point[1] + 1, c.end_byte) for c in calls_in(parsed.root)}
        rows = [r for r in ledger["rows"] if r["kind"] == "call" and r["path"].endswith(
            "/".join(path.parts[-3:]))]
        assert len(rows) == len(calls), path.name
        assert {(r["line"], r["col"]) for r in rows} == {(line, col) for line, col, _ in calls}, path.name
    assert ledger["counts"]["not_converted"] == 0


def test_every_written_spec_passes_against_the_app(imported: tuple[Path, dict], tmp_path: Path) -> None:
    if not (APP / "js" / "bundle.js").is_file():
        pytest.fail("no build of Cypress's TodoMVC app in .cache/thirdparty: run `scripts/fetch_thirdparty.sh`",
                    pytrace=False)
    out, ledger = imported
    written = [t["file"] for t in ledger["tests"] if t["whole"]]
    report = tmp_path / "report"
    with StaticServer(APP) as app:
        done = flowwalk("run", str(out), "--base-url", app.url, "--out", str(report), "--workers", "2", timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    verdict = json.loads((report / "verdict.json").read_text())
    assert verdict["counts"] == {"total": len(written), "passed": len(written), "failed": 0, "skipped": 0,
                                 "flaky": 0}
    records = [json.loads(line) for line in (report / "emit.jsonl").read_text().splitlines() if line.strip()]
    checks = [r for r in records if r["event"] == "step_finished" and r["kind"] == "expect"]
    assert checks and all(r["status"] == "passed" for r in checks)
