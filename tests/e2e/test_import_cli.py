"""`flowwalk import` as a user runs it: a folder of Playwright Test files and a file that does not
parse; the good files are written, the bad one is refused at its line and column without a
traceback, and the console sums up the ledger."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from _cli import ROOT, flowwalk

CORPUS = ROOT / "tests" / "corpus" / "import" / "playwright-todomvc"

BROKEN = """\
import { test, expect } from '@playwright/test';

test('adds', async ({ page }) => {
  await page.goto('/';
});
"""

PARTLY = """\
import { test, expect } from '@playwright/test';

test('reads the total', async ({ page }) => {
  await page.goto('https://demo.playwright.dev/todomvc/');
  const total = await page.locator('.total').textContent();
  await expect(page.locator('.sum')).toHaveText(total);
});
"""


def test_import_writes_the_good_files_refuses_the_bad_one_and_sums_up(tmp_path: Path) -> None:
    (tmp_path / "broken.spec.ts").write_text(BROKEN)
    (tmp_path / "partly.spec.ts").write_text(PARTLY)
    out = tmp_path / "out"
    done = flowwalk("import", str(CORPUS), str(tmp_path / "broken.spec.ts"), str(tmp_path / "partly.spec.ts"),
                    "--out", str(out), "--base-url", "https://demo.playwright.dev/todomvc", timeout=120)
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "broken.spec.ts:4:22: error: the file does not parse as typescript" in done.stderr
    assert "hint:" in done.stderr
    assert "imported 2 of 3 file(s): 25 of 26 test(s) written whole, 86 of 87 check(s) kept" in done.stdout
    assert "partly.spec.ts:5:23: not converted: page.locator('.total').textContent()" in done.stdout
    spec = yaml.safe_load((out / "integration" / "new-todo" / "should-allow-me-to-add-todo-items.flow.yaml")
                          .read_text())
    assert spec["url"] == "/" and spec["steps"][0] == {"type": "act", "action": "fill", "selector": ".new-todo",
                                                       "value": "buy some cheese"}
    review = out / "needs-review" / "partly" / "reads-the-total.flow.yaml"
    assert "needs review: calls not converted" in review.read_text()
    ledger = json.loads((out / "import" / "ledger.json").read_text())
    assert ledger["figures"]["files_refused"] == 1 and len(ledger["refused"]) == 1
    assert ledger["counts"]["not_converted"] >= 2
    # the written specs are valid flow specs: `flowwalk validate` takes the folder
    checked = flowwalk("validate", str(out / "integration"), timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_import_run_with_no_base_url_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = flowwalk("import", str(CORPUS), "--out", str(out), "--run", timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "--run walks the imported specs against the app, and no --base-url names it" in done.stderr
    assert "hint: flowwalk import ... --base-url" in done.stderr
    assert not out.exists()
