/**
 * "Labels to reprint" with more labels than one batch takes (1000), in real Chromium against a
 * real server with the folder printer: one click prints all 1006 never-printed labels, and
 * after a rename above them one click reprints all 1005 out-of-date ones, batch after batch
 * (the progress says there are more to come), until the list is empty.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { buildStudio, openStudio, signIn } from './page.js';

const MANY = 1000;
let srv: TestServer;
let spool: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  spool = mkdtempSync(join(tmpdir(), 'lm-studio-reprint-many-'));
  // Over the default print quota (1000 labels a minute), which is not this test's subject.
  [srv, browser] = await Promise.all([startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50', PRINT_QUOTA_PER_MINUTE: '100000' }), launchBrowser()]);
  await srv.store.records.upsertMany(Array.from({ length: MANY }, (_, i) => ({ kind: 'item' as const, id: `part-${i}`, name: `Part ${String(i).padStart(4, '0')}`, description: '', parentId: 'bin-12', assetId: null })));
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
  rmSync(spool, { recursive: true, force: true });
});

const printedFiles = () => readdirSync(spool).filter((f) => f.endsWith('.png')).length;

describe('labels to reprint, more than one batch', () => {
  it('prints and reprints every label with one click each, batch after batch', async () => {
    const all = FIXTURES.length + MANY;
    const tab = await openStudio(browser.context, `${srv.url}/`);
    const { page } = tab;
    try {
      await signIn(page, srv.tokens.print);
      await page.locator('#reprint').waitFor();
      await page.selectOption('#reprint-state', 'neverPrinted');
      await expect.poll(() => page.locator('#reprint-all').textContent()).toBe('Print all 50+ labels');
      await page.click('#reprint-all');
      await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 60_000 }).toBe(`Done: ${all} of ${all} printed.`);
      await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every record has a printed label.');
      expect(printedFiles()).toBe(all);

      // The top location renamed: every label below it (all but the unplaced item's) is out of date.
      await srv.store.records.upsertMany([{ ...FIXTURES[0]!, name: 'Workshop' }]);
      await page.selectOption('#reprint-state', 'stale');
      await expect.poll(() => page.locator('#reprint-all').textContent()).toBe('Reprint all 50+ labels');
      await page.click('#reprint-all');
      // The first batch takes 1000: the progress says more are to come while it prints.
      await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 30_000 }).toMatch(/^Printing: \d+ of 1000 printed, more to come\.$/);
      await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 60_000 }).toBe(`Done: ${all - 1} of ${all - 1} printed.`);
      await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every printed label is up to date.');
      expect(await page.locator('#reprint-error').isHidden()).toBe(true);
      expect(printedFiles()).toBe(all + all - 1);
      expect(tab.consoleErrors).toEqual([]);
    } finally {
      await tab.close();
    }
  }, 180_000);
});
