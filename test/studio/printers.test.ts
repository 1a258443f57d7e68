/**
 * The printer fleet in the label studio (issue 31), in real Chromium against a real server
 * with three folder printers: `default` (PRINTER_URI, any stock), `shelf` on Shelf 3 with
 * 62 x 29 mm labels, `lab` in Bin 12 with 62 mm continuous tape. The picker lists every
 * printer with its status; the service's choice for the label in view is preselected and
 * follows the label's stock and location; a printer on the wrong roll is warned about
 * before printing, in the service's words; a job printed there anyway is held, says why,
 * and is moved (it prints on the new printer) or cancelled, in the job box and the job
 * list. At phone and desk widths, with axe; screenshots go to out/studio/.
 */
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };
const WRONG_ROLL = 'Lab printer has Brother QL 62 mm continuous (DK-22205) loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).';

let srv: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
const folders = { default: '', shelf: '', lab: '' };
const files = (dir: string) => readdirSync(dir).filter((f) => !f.startsWith('.'));

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  for (const name of Object.keys(folders) as (keyof typeof folders)[]) folders[name] = mkdtempSync(join(tmpdir(), `lm-studio-fleet-${name}-`));
  [srv, browser] = await Promise.all([startTestServer({ PRINTER_URI: pathToFileURL(folders.default).href, PRINT_RETRY_BASE_MS: '50' }), launchBrowser()]);
  const put = async (name: string, body: Record<string, unknown>) => {
    const res = await fetch(`${srv.url}/v1/labelmaker/printers/${name}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBe(201);
  };
  await put('shelf', { title: 'Shelf printer', deviceUri: pathToFileURL(folders.shelf).href, locationId: 'shelf-3', stocks: ['brother-ql-62x29'] });
  await put('lab', { title: 'Lab printer', deviceUri: pathToFileURL(folders.lab).href, locationId: 'bin-12', stocks: ['brother-ql-62'] });
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
});

/** The drill (in Bin 12, on Shelf 3) with its label on screen. */
async function openDrill(page: Page): Promise<void> {
  await signIn(page, srv.tokens.print);
  await searchFor(page, 'Cordless');
  await page.locator('#results .record', { hasText: 'Cordless drill' }).first().click();
  await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
  await page.locator('#printer-choice').waitFor();
}

const chosen = (page: Page) => page.getByLabel('Printer', { exact: true }).inputValue();
const jobState = (page: Page) => page.locator('#job strong.state').getAttribute('data-state');

describe('the printer picker', () => {
  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESK]] as const) {
    it(`lists every printer with its status, preselects the service's choice for the label, and warns before printing on the wrong roll (${name})`, async () => {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      await openDrill(page);
      // Every printer, the rule's choice marked and chosen: the drill's bin has only tape, Shelf 3's printer has the labels.
      const options = await page.locator('#printer option').allTextContents();
      expect(options).toHaveLength(3);
      expect(options).toContain('Shelf printer (suggested)');
      expect(options).toContain('Lab printer (cannot print this now)');
      await expect.poll(() => chosen(page)).toBe('shelf');
      expect(await page.locator('#printer-warning').isHidden()).toBe(true);
      // Status in words, with the roll: folder printers cannot tell their state.
      // Set up for its stock, which a folder does not report loaded (nor say "loaded").
      await expect.poll(() => page.locator('#printer-status').textContent()).toMatch(/^Shelf printer: (status unknown \(this kind of printer cannot tell\)|status not read yet) · set up for Brother QL 62 × 29 mm die-cut \(DK-11209\)\.$/);
      await page.getByText('All printers (3)').click();
      const rows = page.locator('#printers-list li');
      await expect.poll(() => rows.count()).toBe(3);
      expect(await rows.filter({ hasText: 'Lab printer' }).textContent()).toContain(`Cannot print this label now: ${WRONG_ROLL}`);
      expect(await rows.filter({ hasText: 'Shelf printer' }).textContent()).toContain('suggested for this label');
      // The default printer has no stocks set and reports no roll: it takes any, and says nothing is known loaded.
      expect(await rows.filter({ hasNotText: /Shelf printer|Lab printer/ }).textContent()).toContain('takes any stock (reports no roll)');
      // "Read printer status" asks each printer now (refreshPrinterStatus): a folder says it cannot tell.
      const refreshed = page.waitForResponse((r) => r.url().endsWith('/printers/lab/status') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Read printer status' }).click();
      expect((await refreshed).status()).toBe(200);
      await expect.poll(() => rows.filter({ hasText: 'Lab printer' }).textContent()).toContain('status unknown');

      // The label on the lab's tape: the lab printer, the nearest with it.
      await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-62');
      await expect.poll(() => chosen(page)).toBe('lab');
      await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-62x29');
      await expect.poll(() => chosen(page)).toBe('shelf');

      // Choosing the lab printer for 62 x 29 mm labels: warned before printing, in the service's words.
      await page.getByLabel('Printer', { exact: true }).selectOption('lab');
      const warning = page.locator('#printer-warning');
      await warning.waitFor();
      expect(await warning.getAttribute('role')).toBe('alert');
      expect(await warning.textContent()).toBe(`Lab printer cannot print this label now: ${WRONG_ROLL} Printed there, the job waits until that changes. Choose a printer that can print it, or fix this one first.`);
      expect(await page.locator('#print').getAttribute('aria-describedby')).toContain('printer-warning');
      await warning.scrollIntoViewIfNeeded();
      expect(await axeSerious(page), `picker, ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}-printer-picker-warning.png`), fullPage: name === 'desktop' });
      expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }, 90_000);
  }
});

describe('held jobs', () => {
  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESK]] as const) {
    it(`a job printed on the wrong roll is held with its reason, moved to a printer that can print it (and prints), or cancelled (${name})`, async () => {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      await openDrill(page);
      await expect.poll(() => chosen(page)).toBe('shelf');
      await page.getByLabel('Printer', { exact: true }).selectOption('lab');
      const before = files(folders.shelf).length;

      // Printed there anyway: held, and the box says why.
      await page.locator('#print').click();
      await expect.poll(() => jobState(page)).toBe('held');
      expect(await page.locator('#job .held-reason').textContent()).toBe(`Held, not printing: ${WRONG_ROLL}`);
      expect(await page.locator('#job').textContent()).toContain('on Lab printer');
      expect(await axeSerious(page), `held job, ${name}`).toEqual([]);
      await page.locator('#job').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `${name}-held-job.png`), fullPage: name === 'desktop' });

      // Moved, by keyboard, to the shelf printer: it prints there.
      const moveTo = page.locator('#job').getByLabel('Move to');
      await moveTo.selectOption('shelf');
      await page.locator('#job').getByRole('button', { name: /^Move / }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => jobState(page), { timeout: 20_000 }).toBe('printed');
      expect(await page.locator('#job .said').textContent()).toBe('item label: Cordless drill moved to Shelf printer; it prints there.');
      await expect.poll(() => files(folders.shelf).length).toBe(before + 1);

      // Another, cancelled while held.
      await page.getByLabel('Printer', { exact: true }).selectOption('lab');
      await page.locator('#print').click();
      await expect.poll(() => jobState(page)).toBe('held');
      await page.locator('#job').getByRole('button', { name: /^Cancel printing/ }).click();
      await expect.poll(() => jobState(page)).toBe('cancelled');
      expect(await page.locator('#job .said').textContent()).toBe('item label: Cordless drill: cancelled; it will not print.');

      // The job list shows a held job with its reason and its move, too.
      await page.getByLabel('Printer', { exact: true }).selectOption('lab');
      await page.locator('#print').click();
      await expect.poll(() => jobState(page)).toBe('held');
      const heldRow = page.locator('#jobs-list li[data-state="held"]').first();
      await heldRow.waitFor();
      expect(await heldRow.locator('.badge').textContent()).toBe('Held');
      expect(await heldRow.locator('.held-reason').textContent()).toBe(`Held, not printing: ${WRONG_ROLL}`);
      await heldRow.scrollIntoViewIfNeeded();
      expect(await axeSerious(page), `job list, ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}-held-job-list.png`), fullPage: name === 'desktop' });
      const id = await heldRow.getAttribute('data-job');
      await heldRow.getByLabel('Move to').selectOption('default');
      await heldRow.getByRole('button', { name: /^Move / }).click();
      await expect.poll(() => page.locator('#jobs-status').textContent()).toContain('moved to folder');
      await expect.poll(async () => (await (await fetch(`${srv.url}/v1/labelmaker/print-jobs/${id}`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } })).json()).state, { timeout: 20_000 }).toBe('printed');
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }, 120_000);
  }
});
