/**
 * The label studio in real Chromium (issue 31 and what was left of 30): its stock lists
 * come from the service (listStocks), not from the server's table built into the page;
 * a label's warnings are said in words (text-shortened), for one label and for a batch;
 * a sheet product's calibration is saved, read back after a reload and cleared, with its
 * test page; and "Cancel printing" in the job box under "Print this label" cancels a job
 * waiting in the queue. At phone and desk widths; screenshots go to out/studio/.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { STUDIO_CSP } from '../../src/api/studio.js';
import { launchBrowser } from '../helpers/browser.js';
import { pdfPageCount } from '../helpers/pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { refusedPort } from '../helpers/tcp-sink.js';
import { documentedResponse } from '../helpers/spec.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };
const WIDTHS = [['phone', PHONE], ['desktop', DESK]] as const;
const STOCKS_PATH = '/v1/labelmaker/stocks';
const LONG_NAME = 'Heavy-duty cordless hammer drill with two batteries';

type StockList = { stocks: { name: string; title: string }[] };

let srv: TestServer;
/** Its printer refuses connections and the next try is 10 minutes away: a job sent there waits in the queue. */
let waiting: TestServer;
let mock: RunningMock;
let mockPage: PreviewServer;
let mockUrl: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  const port = await refusedPort();
  [srv, waiting, mock, browser] = await Promise.all([
    startTestServer({ PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-studio31-spool-${process.pid}`)).href, PRINT_RETRY_BASE_MS: '50' }),
    // Not polled (PRINTER_STATUS_INTERVAL_S=0): its jobs are tried and fail or wait to retry; a polled printer
    // that is not answering holds its jobs instead (test/integration/printer-fleet.test.ts).
    startTestServer({ PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`, PRINTER_STATUS_INTERVAL_S: '0', PRINT_MAX_ATTEMPTS: '5', PRINT_RETRY_BASE_MS: '600000', PRINT_TIMEOUT_MS: '1000' }),
    startMock(),
    launchBrowser(),
  ]);
  await srv.store.records.upsertMany([{ kind: 'item', id: 'long-name', name: LONG_NAME, description: '', parentId: 'shelf-3', assetId: null }]);
  mockPage = await preview({
    configFile: join(ROOT, 'studio/vite.config.ts'),
    logLevel: 'silent',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, headers: { 'Content-Security-Policy': STUDIO_CSP }, proxy: { '/v1': { target: mock.url, changeOrigin: true } } },
  });
  mockUrl = mockPage.resolvedUrls!.local[0]!.replace(/\/$/, '');
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop(), waiting?.stop(), mock?.close(), mockPage?.close()]);
});

/** The Template list's stocks and the designer's Stock list, as [value, text]. */
const options = (page: Page, selector: string) => page.locator(selector).evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));

describe('the stock lists come from the service', () => {
  it('asks listStocks at sign-in and offers exactly its stocks, in its order, with their titles (phone and desk)', async () => {
    const served = (await (await fetch(srv.url + STOCKS_PATH, { headers: { Authorization: `Bearer ${srv.tokens.editor}` } })).json()) as StockList;
    const expected = served.stocks.map((s) => [s.name, s.title]);
    for (const [name, viewport] of WIDTHS) {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      // The first sign-in asks the service; later ones may take the answer from the browser's cache (an hour).
      const asked = name === 'phone' ? page.waitForResponse((r) => r.url() === srv.url + STOCKS_PATH) : null;
      await signIn(page, srv.tokens.editor);
      if (asked) {
        const res = await asked;
        expect(res.status()).toBe(200);
        expect(res.headers()['cache-control']).toBe('private, max-age=3600');
      }
      await expect.poll(() => options(page, '#template optgroup[label="Label stock"] option')).toEqual(expected);
      await searchFor(page, 'drill');
      await page.locator('#results .record').first().click();
      // The label's paper edge is the service's (edgeMm): the whole 62 x 29 mm label.
      await page.locator('#label-size').filter({ hasText: 'on a 62 × 29 mm label' }).waitFor();
      await page.getByText('Design a label: place elements').click();
      expect(await options(page, '#cd-stock option')).toEqual(expected);
      // The designer starts on the default stock, from the same list.
      expect(await page.locator('#cd-stock').inputValue()).toBe('brother-ql-62x29');
      await page.getByText('Design a label: place elements').click();
      expect(await axeSerious(page), `stocks, ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}-stocks-from-service.png`), fullPage: true });
      expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }
  }, 60_000);

  it('carries no stock table of its own: no stock title or part number is in the built page', () => {
    const dist = join(ROOT, 'studio/dist/studio');
    const built = readdirSync(dist).map((f) => readFileSync(join(dist, f), 'utf8')).join('\n');
    for (const text of ['DK-11241', 'brother-dk-11209', 'Zebra 4 × 6 in', 'DYMO 30334']) expect(built).not.toContain(text);
  });

  it("on the mock, offers the spec example's stocks", async () => {
    const example = documentedResponse('listStocks', 200).content['application/json'].example as StockList;
    const tab = await openStudio(browser.context, `${mockUrl}/`, PHONE);
    const { page } = tab;
    await signIn(page, 'any-token-will-do');
    await expect.poll(() => options(page, '#template optgroup[label="Label stock"] option')).toEqual(example.stocks.map((s) => [s.name, s.title]));
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  });
});

describe('warnings in words', () => {
  for (const [name, viewport] of WIDTHS) {
    it(`a name shortened to fit says so in words, for the label and for a batch (${name})`, async () => {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      await signIn(page, srv.tokens.print);
      await searchFor(page, 'Heavy-duty');
      await page.locator('#results .record', { hasText: 'Heavy-duty' }).click();
      await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
      await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-23x23');
      const warnings = page.locator('#warnings');
      await warnings.waitFor();
      expect(await warnings.textContent()).toBe('This label is not quite as asked:Some text did not fit and is printed shortened, ending in “…”. A larger stock, or a shorter name, shows it whole.');
      expect(await warnings.textContent()).not.toContain('text-shortened');
      await warnings.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `${name}-warning-text-shortened.png`), fullPage: name === 'desktop' });
      // On a label where the name fits whole, no warning.
      await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-62x100');
      await warnings.waitFor({ state: 'hidden' });

      // A batch of its label, twice, on the 23 mm square: the batch's answer names it, in words.
      await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-23x23');
      await page.getByRole('checkbox', { name: `Select ${LONG_NAME}` }).check();
      await page.getByLabel('Copies').fill('2');
      await page.getByRole('button', { name: 'Print all on the label printer' }).click();
      const batchWarnings = page.locator('#batch-warnings');
      await batchWarnings.waitFor();
      expect(await batchWarnings.locator('strong').textContent()).toBe('2 labels are not quite as asked:');
      expect(await batchWarnings.locator('li').allTextContents()).toEqual([`item label: ${LONG_NAME} (2 copies): Some text did not fit and is printed shortened, ending in “…”. A larger stock, or a shorter name, shows it whole.`]);
      await page.locator('#batch-status .state[data-state="printed"]').waitFor({ timeout: 30_000 });
      expect(await axeSerious(page), `batch warnings, ${name}`).toEqual([]);
      await batchWarnings.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `${name}-batch-warnings.png`) });
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }, 60_000);
  }
});

describe('sheet calibration', () => {
  const calibration = (sheet: string) => fetch(`${srv.url}/v1/labelmaker/sheet-calibrations/${sheet}`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });

  it('is saved, read back after a reload, printed on the test page, and cleared (desk, then phone)', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    const panel = page.locator('#calibration');
    // Closed until asked for; opened, it reads the product's saved calibration.
    expect(await panel.getByLabel('Sheet product').isVisible()).toBe(false);
    await panel.locator('summary').click();
    await panel.getByLabel('Sheet product').selectOption('avery-l7160');
    await expect.poll(() => page.locator('#calibration-saved').textContent()).toBe('Nothing is saved for Avery L7160: its sheets print without an offset.');
    expect(await page.getByLabel('Move right (mm, −5 to 5; left if negative)').inputValue()).toBe('0');
    // The test page, with no offset: a PDF, and the page says what it was printed with.
    const [blank] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the test page' }).click()]);
    const pdf = readFileSync((await blank.path())!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdfPageCount(pdf)).toBe(1);
    expect(blank.suggestedFilename()).toBe('calibration-avery-l7160.pdf');
    await expect.poll(() => page.locator('#calibration-done').textContent()).toBe('The test page is printed with no offset (none is saved). Add what you read on it to the numbers in the form.');

    // Readings of +0.5 on the left edge's scale and -1.5 on the top's: entered and saved.
    await page.getByLabel('Move right (mm, −5 to 5; left if negative)').fill('0.5');
    await page.getByLabel('Move down (mm, −5 to 5; up if negative)').fill('-1.5');
    await page.getByRole('button', { name: 'Save calibration' }).click();
    await expect.poll(() => page.locator('#calibration-done').textContent()).toBe('Saved: Avery L7160 sheets now print with 0.5 mm right and 1.5 mm up.');
    expect(await page.locator('#calibration-saved').textContent()).toMatch(/^Saved for Avery L7160: everything printed moves 0\.5 mm right and 1\.5 mm up \(since .+\)\.$/);
    expect(await calibration('avery-l7160').then((r) => r.json())).toMatchObject({ sheet: 'avery-l7160', offsetXMm: 0.5, offsetYMm: -1.5 });
    // Out of bounds is said before anything is sent.
    await page.getByLabel('Move down (mm, −5 to 5; up if negative)').fill('7');
    await page.getByRole('button', { name: 'Save calibration' }).click();
    await expect.poll(() => page.locator('#calibration-error').textContent()).toBe('Move down must be a number from -5 to 5 mm.');
    expect(await calibration('avery-l7160').then((r) => r.json())).toMatchObject({ offsetYMm: -1.5 });

    // A reload reads it back from the service.
    await page.reload();
    await page.locator('#studio').waitFor();
    await panel.locator('summary').click();
    await panel.getByLabel('Sheet product').selectOption('avery-l7160');
    await expect.poll(() => page.getByLabel('Move right (mm, −5 to 5; left if negative)').inputValue()).toBe('0.5');
    expect(await page.getByLabel('Move down (mm, −5 to 5; up if negative)').inputValue()).toBe('-1.5');
    expect(await page.locator('#calibration-saved').textContent()).toContain('everything printed moves 0.5 mm right and 1.5 mm up');
    // The test page is printed with the saved calibration; with other numbers in the form, with those.
    await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the test page' }).click()]);
    await expect.poll(() => page.locator('#calibration-done').textContent()).toBe('The test page is printed with 0.5 mm right and 1.5 mm up (the saved calibration). Add what you read on it to the numbers in the form.');
    await page.getByLabel('Move right (mm, −5 to 5; left if negative)').fill('1');
    await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the test page' }).click()]);
    await expect.poll(() => page.locator('#calibration-done').textContent()).toContain('printed with 1 mm right and 1.5 mm up (the offset in the form)');
    // Another product has its own (none).
    await panel.getByLabel('Sheet product').selectOption('avery-5160');
    await expect.poll(() => page.locator('#calibration-saved').textContent()).toBe('Nothing is saved for Avery 5160: its sheets print without an offset.');
    await panel.getByLabel('Sheet product').selectOption('avery-l7160');
    await expect.poll(() => page.locator('#calibration-saved').textContent()).toContain('0.5 mm right');
    expect(await axeSerious(page), 'calibration, desk').toEqual([]);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'desktop-calibration-saved.png'), fullPage: true });

    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await panel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'phone-calibration-saved.png') });
    await page.getByRole('button', { name: 'Clear calibration' }).click();
    await expect.poll(() => page.locator('#calibration-done').textContent()).toBe('Cleared: Avery L7160 sheets print without an offset.');
    expect(await page.locator('#calibration-saved').textContent()).toBe('Nothing is saved for Avery L7160: its sheets print without an offset.');
    expect(await page.getByRole('button', { name: 'Clear calibration' }).isHidden()).toBe(true);
    expect((await calibration('avery-l7160')).status).toBe(404);
    expect(await axeSerious(page), 'calibration, phone').toEqual([]);
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    // Chromium logs the 404s of "none saved" itself; nothing else.
    expect(tab.consoleErrors.filter((e) => !e.includes('status of 404 (Not Found)'))).toEqual([]);
    await tab.close();
  }, 90_000);

  it('a token without templates:write reads it and gets the test page, and is told why it cannot save', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, srv.tokens.read);
    await page.locator('#calibration summary').click();
    await page.locator('#calibration-saved').filter({ hasText: 'Avery L7160' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save calibration' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Clear calibration' }).isHidden()).toBe(true);
    expect(await page.locator('#calibration-why').textContent()).toBe('Saving and clearing a calibration need a token with templates:write; the test page works with this one.');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the test page' }).click()]);
    expect(readFileSync((await download.path())!).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await page.locator('#calibration').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'phone-calibration-read-only.png') });
    expect(tab.consoleErrors.filter((e) => !e.includes('status of 404 (Not Found)'))).toEqual([]);
    await tab.close();
  });
});

describe('"Cancel printing" in the job box', () => {
  const job = async (id: string) =>
    (await (await fetch(`${waiting.url}/v1/labelmaker/print-jobs/${id}`, { headers: { Authorization: `Bearer ${waiting.tokens.print}` } })).json()) as { state: string; cancelledAt: string | null };

  for (const [name, viewport] of WIDTHS) {
    it(`cancels the label's job while it waits in the queue, as the job list does (${name})`, async () => {
      const tab = await openStudio(browser.context, `${waiting.url}/`, viewport);
      const { page } = tab;
      await signIn(page, waiting.tokens.print);
      await searchFor(page, 'drill');
      await page.locator('#results .record').first().click();
      await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
      await page.getByRole('button', { name: 'Print this label' }).click();
      // The printer cannot be reached: the job waits to try again, with a Cancel under it.
      const box = page.locator('#job');
      await box.filter({ hasText: 'waiting to try again' }).waitFor({ timeout: 20_000 });
      const id = (await box.getAttribute('data-job'))!;
      expect(await box.locator('.state').textContent()).toBe('queued');
      expect(await box.textContent()).toMatch(/The printer cannot be reached \(.+\)\./);
      await box.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `${name}-job-box-waiting.png`) });
      // The same button as the job list's, named with the job.
      const cancel = box.getByRole('button', { name: 'Cancel printing item label: Cordless drill' });
      await cancel.focus();
      await page.keyboard.press('Enter');
      await box.locator('.state[data-state="cancelled"]').waitFor();
      expect(await box.locator('.said').textContent()).toBe('item label: Cordless drill: cancelled; it will not print.');
      expect(await box.textContent()).toMatch(/cancelled at \d{1,2}:\d\d:\d\d.*, not printed/);
      expect(await box.getByRole('button', { name: /Cancel printing/ }).count()).toBe(0);
      // The keyboard stays on the page's controls, not the body.
      expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
      expect(await job(id)).toMatchObject({ state: 'failed', cancelledAt: expect.any(String) });
      // The job list says the same.
      await page.locator(`#jobs-list li[data-job="${id}"][data-state="cancelled"]`).waitFor();
      expect(await axeSerious(page), `job box cancelled, ${name}`).toEqual([]);
      await box.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, `${name}-job-box-cancelled.png`) });
      expect(foreignRequests(tab.requests, waiting.url)).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }, 60_000);
  }
});
