/**
 * "Labels to reprint" in the label studio (issue 32), in real Chromium against a real server
 * with the folder printer: never-printed records are listed and printed with one click (the
 * progress shows until every job is done), a renamed location makes the labels below it
 * out of date, they are listed and reprinted with one click, and the list empties. At phone
 * and desk widths, with axe; screenshots go to out/studio/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };

let srv: TestServer;
let spool: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  spool = mkdtempSync(join(tmpdir(), 'lm-studio-reprint-'));
  [srv, browser] = await Promise.all([startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50' }), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
  rmSync(spool, { recursive: true, force: true });
});

describe('labels to reprint', () => {
  for (const [width, viewport] of [['desk', DESK], ['phone', PHONE]] as const) {
    it(`lists never-printed and out-of-date labels and reprints them with one click (${width})`, async () => {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      try {
        await signIn(page, srv.tokens.print);
        const panel = page.locator('#reprint');
        await panel.waitFor();
        if (width === 'desk') {
          await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every printed label is up to date.');
          await page.selectOption('#reprint-state', 'neverPrinted');
          await expect.poll(() => page.locator('#reprint-list li').count()).toBe(FIXTURES.length);
          expect(await axeSerious(page), 'never printed').toEqual([]);
          await panel.screenshot({ path: join(SHOTS, `${width}-reprint-never.png`) });
          expect(await page.locator('#reprint-all').textContent()).toBe(`Print all ${FIXTURES.length} labels`);
          await page.click('#reprint-all');
          await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 60_000 }).toBe(`Done: ${FIXTURES.length} of ${FIXTURES.length} printed.`);
          await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every record has a printed label.');
          // A location renamed: the labels below it show another path.
          await srv.store.records.upsertMany([{ ...FIXTURES[1]!, name: 'Shelf three' }]);
          await page.selectOption('#reprint-state', 'stale');
        } else {
          await page.locator('#reprint-status').filter({ hasText: 'out-of-date' }).waitFor();
        }
        await expect.poll(() => page.locator('#reprint-list li').allTextContents()).toEqual(
          expect.arrayContaining([expect.stringContaining('Bin 12'), expect.stringContaining('Cordless drill'), expect.stringContaining('Shelf three')]),
        );
        expect(await page.locator('#reprint-list li').count()).toBe(4);
        expect(await page.locator('#reprint-status').textContent()).toBe('4 records with an out-of-date label.');
        expect(await axeSerious(page), 'out of date').toEqual([]);
        await panel.screenshot({ path: join(SHOTS, `${width}-reprint-stale.png`) });
        expect(await page.locator('#reprint-all').textContent()).toBe('Reprint all 4 labels');
        if (width === 'phone') {
          await page.click('#reprint-all');
          await expect.poll(() => page.locator('#reprint-progress-text').textContent(), { timeout: 60_000 }).toBe('Done: 4 of 4 printed.');
          await expect.poll(() => page.locator('#reprint-status').textContent()).toBe('Every printed label is up to date.');
          expect(await axeSerious(page), 'reprinted').toEqual([]);
          await panel.screenshot({ path: join(SHOTS, `${width}-reprint-done.png`) });
        }
        expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
        expect(tab.consoleErrors).toEqual([]);
      } finally {
        await tab.close();
      }
    }, 180_000);
  }
});
