/**
 * "Labels to reprint" under a small print quota (PRINT_QUOTA_PER_MINUTE=4), in real Chromium
 * against a real server with the folder printer: one click prints all 6 never-printed labels.
 * The studio sends batches no larger than the quota the session reports; when the quota is used
 * up (429), it says so, waits Retry-After (up to a minute) and sends the next batch, instead of
 * stopping with "nothing was printed".
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { buildStudio, openStudio, signIn } from './page.js';

const QUOTA = 4;
let srv: TestServer;
let spool: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  spool = mkdtempSync(join(tmpdir(), 'lm-studio-reprint-quota-'));
  [srv, browser] = await Promise.all([startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50', PRINT_QUOTA_PER_MINUTE: String(QUOTA) }), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
  rmSync(spool, { recursive: true, force: true });
});

const printedFiles = () => readdirSync(spool).filter((f) => f.endsWith('.png')).length;

describe('labels to reprint, past the print quota', () => {
  it('prints in batches within the quota, waits out a 429 and prints the rest', async () => {
    const all = FIXTURES.length;
    expect(all).toBeGreaterThan(QUOTA);
    const tab = await openStudio(browser.context, `${srv.url}/`);
    const { page } = tab;
    const batchSizes: number[] = [];
    const statuses: number[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/v1/labelmaker/print-jobs')) batchSizes.push((JSON.parse(r.postData() ?? '{}') as { selection: { limit: number } }).selection.limit);
    });
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && r.url().endsWith('/v1/labelmaker/print-jobs')) statuses.push(r.status());
    });
    try {
      await signIn(page, srv.tokens.print);
      await page.locator('#reprint').waitFor();
      await page.selectOption('#reprint-state', 'neverPrinted');
      await expect.poll(() => page.locator('#reprint-all').textContent()).toBe(`Print all ${all} labels`);
      await page.click('#reprint-all');
      // The first batch took the whole quota; the next is refused until the minute is over, and the page says so.
      await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 30_000 }).toMatch(
        new RegExp(`^${QUOTA} printed\\. The print quota is used up for this minute: the next batch goes in \\d+ s\\.$`),
      );
      expect(printedFiles()).toBe(QUOTA);
      await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 90_000 }).toBe(`Done: ${all} of ${all} printed.`);
      await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every record has a printed label.');
      expect(await page.locator('#reprint-error').isHidden()).toBe(true);
      expect(printedFiles()).toBe(all);
      // Every batch asked for at most the quota; one 429, then the rest.
      expect(batchSizes.every((n) => n === QUOTA)).toBe(true);
      expect(statuses).toEqual([201, 429, 201]);
      // The browser reports the refused request itself as a console error; nothing else.
      expect(tab.consoleErrors.filter((e) => !/status of 429/.test(e))).toEqual([]);
    } finally {
      await tab.close();
    }
  }, 180_000);
});
