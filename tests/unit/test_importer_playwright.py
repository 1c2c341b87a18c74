"""Playwright Test files imported: what each call becomes, the ledger row of every call, a test that
cannot be imported whole in needs-review/ with its rows on top, a file that does not parse refused at
its line and column while the others import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from flowwalk.importer.ledger import LEDGER_SCHEMA
from flowwalk.importer.suite import ImportRequest, ImportResult, import_suite
from flowwalk.importer.syntax import Source, calls_in, parse

ROOT = Path(__file__).resolve().parents[2]

SUITE = """\
import { test, expect, Page } from '@playwright/test';

const ITEMS = ['milk', "it's \\"fresh\\""];

test.beforeEach(async ({ page }) => {
  await page.goto('https://shop.example.com/app');
});

test.describe('Cart', () => {
  test.beforeEach(async ({ page }) => {
    await addItems(page, 2);
  });

  test('shows the items', async ({ page }) => {
    const rows = page.getByTestId('cart-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toHaveText(ITEMS[0]);
    await expect(page.getByRole('button', { name: 'Pay' })).toBeVisible();
    await page.getByPlaceholder('Coupon').fill(`${ITEMS[1]} now`);
    await expect(page.locator('.total')).not.toContainText('0.00');
    await test.step('empty it', async () => {
      await page.getByText('Empty cart', { exact: true }).click();
      await expect(page).toHaveTitle(/Cart/);
    });
  });

  test('reads a price', async ({ page }) => {
    const price = await page.locator('.price').textContent();
    await page.locator('.coupon').fill(price);
    if (await page.locator('.banner').isVisible()) {
      await page.locator('.banner .close').click();
    }
    await expect(page.locator('.total')).toHaveText('9.99');
  });
});

async function addItems(page: Page, count: number) {
  for (const item of ITEMS) {
    await page.locator('#search').fill(item);
    await page.locator('#search').press('Enter');
  }
  await expect.poll(() => page.evaluate(() => JSON.parse(localStorage['cart']).length)).toBe(count);
}
"""


def _import(tmp_path: Path, files: dict[str, str]) -> tuple[ImportResult, Path]:
    for name, code in files.items():
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / name).write_text(code)
    out = tmp_path / "out"
    result = import_suite(ImportRequest((tmp_path / "src",), out, (("https://shop.example.com", ""),)))
    return result, out


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def test_each_call_becomes_its_step(tmp_path: Path) -> None:
    result, out = _import(tmp_path, {"cart.spec.ts": SUITE})
    spec = _load(out / "cart" / "cart" / "shows-the-items.flow.yaml")
    assert spec["name"] == "shows the items" and spec["url"] == "/app"
    assert spec["steps"] == [
        {"type": "expect", "kind": "count", "selector": '[data-testid="cart-row"]', "equals": 2},
        {"type": "expect", "kind": "has_text", "selector": '[data-testid="cart-row"] >> nth=0', "value": "milk"},
        {"type": "expect", "kind": "visible", "selector": 'role=button[name="Pay"i]'},
        # a template string with a quote in it: the value as the test types it
        {"type": "act", "action": "fill", "selector": '[placeholder*="Coupon" i]', "value": 'it\'s "fresh" now'},
        {"type": "expect", "kind": "text_not_contains", "selector": ".total", "value": "0.00"},
        {"group": "empty it", "steps": [
            {"type": "act", "action": "click", "selector": 'text="Empty cart"'},
            {"type": "expect", "kind": "js", "expr": "document.title", "matches": "Cart"}]},
    ]
    hook = _load(out / "cart" / "cart" / "before_each.steps.yaml")
    assert hook["steps"] == [{"use": "../steps/add-items.steps.yaml", "with": {"count": 2}}]
    helper = _load(out / "cart" / "steps" / "add-items.steps.yaml")
    assert helper["params"] == {"count": {"type": "integer"}}
    assert helper["steps"][:2] == [{"type": "act", "action": "fill", "selector": "#search", "value": "milk"},
                                   {"type": "act", "action": "press", "selector": "#search", "value": "Enter"}]
    assert helper["steps"][-1] == {"type": "expect", "kind": "js", "expr": "JSON.parse(localStorage['cart']).length",
                                   "equals": "{{count}}"}
    assert "cart/cart/shows-the-items.flow.yaml" in result.written.specs


def test_a_test_with_a_call_that_is_not_converted_goes_to_needs_review_with_its_rows_on_top(tmp_path: Path) -> None:
    result, out = _import(tmp_path, {"cart.spec.ts": SUITE})
    assert not (out / "cart" / "cart" / "reads-a-price.flow.yaml").exists()
    review = out / "needs-review" / "cart" / "cart" / "reads-a-price.flow.yaml"
    text = review.read_text()
    header = text.split("spec_version")[0]
    assert "needs review: calls not converted" in header
    assert "cart.spec.ts:28:25: page.locator('.price').textContent()" in header.replace("src/", "")
    assert "a condition" in header
    spec = _load(review)
    # the hooks that run around it are written into it, since needs-review/ has no hook files
    assert spec["before_each"] == [{"use": "../../../cart/steps/add-items.steps.yaml", "with": {"count": 2}}]
    figures = result.ledger.figures
    assert (figures.tests, figures.tests_whole) == (2, 1)
    assert result.ledger.tests[1]["whole"] is False


def test_every_call_expression_has_a_ledger_row_and_the_ledger_fits_its_schema(tmp_path: Path) -> None:
    result, out = _import(tmp_path, {"cart.spec.ts": SUITE})
    parsed = parse("x.spec.ts", SUITE.encode())
    assert isinstance(parsed, Source)
    calls = {(c.start_point[0] + 1, c.start_point[1] + 1, c.end_byte) for c in calls_in(parsed.root)}
    rows = [r for r in result.ledger.rows if r.kind == "call"]
    # one row per call expression: a loop's body and a helper called twice are listed once
    assert len(rows) == len(calls)
    not_converted = {(r.line, r.col): r.detail for r in rows if r.outcome == "not_converted"}
    assert not_converted[(28, 25)].startswith("'price' is not known before the test runs")
    assert any("no row of the table maps" in d or "a condition" in d for d in not_converted.values())
    data = json.loads((out / "import" / "ledger.json").read_text())
    schema = json.loads((ROOT / "schemas" / LEDGER_SCHEMA).read_text())
    assert list(Draft202012Validator(schema).iter_errors(data)) == []
    assert data["counts"]["not_converted"] == sum(r["outcome"] == "not_converted" for r in data["rows"])
    assert "| `src/cart.spec.ts:28:25` |" in (out / "import" / "ledger.md").read_text().replace(str(tmp_path) + "/", "")


def test_a_file_that_does_not_parse_is_refused_at_its_line_and_the_others_import(tmp_path: Path) -> None:
    broken = "import { test } from '@playwright/test';\ntest('x', async ({ page }) => {\n  await page.goto('/';\n});\n"
    result, out = _import(tmp_path, {"broken.spec.ts": broken, "cart.spec.ts": SUITE})
    assert len(result.ledger.refused) == 1
    refusal = result.ledger.refused[0]
    assert "broken.spec.ts:3:" in refusal and "error: the file does not parse as typescript" in refusal
    assert "hint:" in refusal
    assert (out / "cart" / "cart" / "shows-the-items.flow.yaml").is_file()
    assert result.ledger.figures.files_refused == 1


def test_a_file_that_is_no_playwright_test_is_refused(tmp_path: Path) -> None:
    result, _ = _import(tmp_path, {"util.spec.js": "export const add = (a, b) => a + b;\n"})
    assert result.ledger.refused and "not a Playwright Test file" in result.ledger.refused[0]
