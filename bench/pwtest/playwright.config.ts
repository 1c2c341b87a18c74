// Playwright Test side of the flowwalk benchmark (bench/README.md). bench/run.py sets the
// environment: BENCH_BASE_URL (the example site it serves), BENCH_CHROMIUM (the same Chromium
// executable flowwalk uses) and DEMO_PASSWORD. Workers come from the command line (--workers N).
import { defineConfig } from '@playwright/test';

const baseURL = process.env.BENCH_BASE_URL;
if (!baseURL) {
  throw new Error('BENCH_BASE_URL is not set: run the suite through bench/run.py, or set it to the served site');
}

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  reporter: 'dot',
  // Playwright Test's own defaults for every timeout (issue 11): 5 s for an expect (flowwalk's
  // expect_timeout_ms is 5 s too), 30 s for a test, no action or navigation timeout of their own
  outputDir: '../out/pwtest-results',
  use: {
    baseURL,
    headless: true,
    trace: 'off',
    screenshot: 'off',
    video: 'off',
    launchOptions: {
      executablePath: process.env.BENCH_CHROMIUM || '/usr/lib/chromium/chromium-headless-shell',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
             '--disable-sync', '--disable-quic', '--no-first-run'],
    },
  },
});
