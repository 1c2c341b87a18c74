"""Playwright's own TodoMVC suite (tests/corpus/import/playwright-todomvc, upstream revision and
licence in its header) imported whole: every test written whole, every check kept, a ledger row for
every call expression of the file, and the specs valid flow specs of the tree."""

from __future__ import annotations

from pathlib import Path

import yaml

from flowwalk.importer.suite import ImportRequest, import_suite
from flowwalk.importer.syntax import Source, calls_in, parse

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "corpus" / "import" / "playwright-todomvc" / "integration.spec.ts"


def test_the_upstream_todomvc_suite_imports_whole_with_every_check_kept(tmp_path: Path) -> None:
    result = import_suite(ImportRequest((SUITE,), tmp_path, (("https://demo.playwright.dev/todomvc", ""),)))
    figures = result.ledger.figures
    assert (figures.tests, figures.tests_whole) == (25, 25)
    # upstream's explicit checks: 86, the number the hand port in examples/todomvc keeps
    assert (figures.checks, figures.checks_kept) == (86, 86)
    assert result.ledger.refused == [] and result.written.review == []
    parsed = parse("integration.spec.ts", SUITE.read_bytes())
    assert isinstance(parsed, Source)
    calls = sum(1 for _ in calls_in(parsed.root))
    assert sum(r.kind == "call" for r in result.ledger.rows) == calls
    assert result.ledger.counts()["not_converted"] == 0
    spec = yaml.safe_load((tmp_path / "integration" / "persistence" / "should-persist-its-data.flow.yaml").read_text())
    assert spec["url"] == "/"
    assert {"use": "../steps/check-number-of-completed-todos-in-local-storage.steps.yaml",
            "with": {"expected": 1}} in spec["steps"]
    assert spec["steps"][spec["steps"].index({"type": "reload"}) + 1] == {
        "type": "expect", "kind": "texts", "selector": ".todo-list li", "equals": ["buy some cheese", "feed the cat"]}


def test_docs_import_md_holds_the_table_the_code_maps_by() -> None:
    from flowwalk.importer.playwright import render_table

    page = (ROOT / "docs" / "import.md").read_text()
    start, end = "<!-- import-table:start -->\n", "\n<!-- import-table:end -->"
    assert page[page.index(start) + len(start):page.index(end)] == render_table().rstrip("\n")
