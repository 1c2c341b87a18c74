// The failing corpus (bench/make_corpus.py BREAKS, issue 11): the same suite settings as
// playwright.config.ts, Playwright Test's default timeouts, over the tests in ./failing.
import { defineConfig } from '@playwright/test';
import config from './playwright.config';

export default defineConfig({ ...config, testDir: './failing', outputDir: '../out/pwtest-failing-results' });
