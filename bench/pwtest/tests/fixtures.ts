// What every benchmark test shares, as Playwright Test fixtures: GA4 hits are answered locally with
// 204 and recorded (as flowwalk and the floor do), and console errors are collected so that each
// test can end with the same no_console_errors check as the flow specs. The interrupts of the corpus
// (interrupts.ts: the lab inbox's late consent overlay) get a locator handler on every page, as
// flowwalk's dismiss_selectors and the floor do.
import { test as base, expect } from '@playwright/test';
import { DISMISS } from './interrupts';

export type Hit = Record<string, string>;

export const test = base.extend<{ beacons: Hit[]; consoleErrors: string[]; interrupts: void }>({
  beacons: [async ({ context }, use) => {
    const hits: Hit[] = [];
    await context.route('**/g/collect*', (route) => {
      const url = new URL(route.request().url());
      hits.push({ vendor: 'ga4', ...Object.fromEntries(url.searchParams) });
      return route.fulfill({ status: 204 });
    });
    await use(hits);
  }, { auto: true }],
  consoleErrors: [async ({ page }, use) => {
    const errors: string[] = [];
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
    page.on('pageerror', (error) => errors.push(String(error)));
    await use(errors);
  }, { auto: true }],
  interrupts: [async ({ page }, use) => {
    for (const selector of DISMISS) {
      await page.addLocatorHandler(page.locator(selector), (button) => button.click());
    }
    await use();
  }, { auto: true }],
});

export { expect };

/** Waits until a recorded hit of `vendor` names `event` (case-insensitive), as flowwalk's beacon expect
 * (for the expect timeout: 5 s by default, as flowwalk's expect_timeout_ms). */
export async function expectBeacon(hits: Hit[], vendor: string, event: string): Promise<void> {
  await expect.poll(
    () => hits.some((hit) => hit.vendor === vendor && (hit.en || '').toLowerCase() === event.toLowerCase()),
    { message: `a ${vendor} ${event} beacon` },
  ).toBe(true);
}

/** A RegExp matching any string that contains `text` literally. */
export function containing(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

/** A variable the run supplies through the environment (the demo password). */
export function runVar(name: string): string {
  const value = process.env[name];
  if (value === undefined) {
    throw new Error(`${name} is not set in the environment`);
  }
  return value;
}
