/**
 * The label studio (studio/, served at `/`) as people use it, in real Chromium:
 * against the real server (real SQLite, a folder printer) and against the Prism
 * mock (the built page in Vite's preview server, /v1 proxied to the mock, as
 * `npm run studio:mock` does with hot reload). Screenshots go to out/studio/.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { STUDIO_CSP } from '../../src/api/studio.js';
import { launchBrowser } from '../helpers/browser.js';
import { pdfPageCount } from '../helpers/pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { createToken } from '../../src/commands.js';
import type { Locator, Page } from 'playwright-core';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };

/** Ids (or classes) of the visible elements whose own text says `what`: where the page says it. */
function saying(page: Page, what: RegExp): Promise<string[]> {
  return page.evaluate(
    (source) => {
      const re = new RegExp(source, 'i');
      return [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((e) => e.checkVisibility() && [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && re.test(n.textContent ?? '')))
        .map((e) => e.closest<HTMLElement>('[id]')?.id ?? e.className);
    },
    what.source,
  );
}

/** Scrolls to the middle of the screen first: on a phone the action bar covers the bottom. */
async function tap(target: Locator): Promise<void> {
  await target.evaluate((e) => e.scrollIntoView({ block: 'center' }));
  await target.click();
}

let srv: TestServer;
/** A server whose printer is not there: jobs fail on their one attempt. */
let broken: TestServer;
let mock: RunningMock;
let mockPage: PreviewServer;
let mockUrl: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  [srv, broken, mock, browser] = await Promise.all([
    startTestServer({ PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-studio-spool-${process.pid}`)).href, PRINT_RETRY_BASE_MS: '50' }),
    // Not polled (PRINTER_STATUS_INTERVAL_S=0): its jobs are tried and fail or wait to retry; a polled printer
    // that is not answering holds its jobs instead (test/integration/printer-fleet.test.ts).
    startTestServer({ PRINTER_URI: 'socket://127.0.0.1:9?lang=zpl', PRINTER_STATUS_INTERVAL_S: '0', PRINT_MAX_ATTEMPTS: '1', PRINT_TIMEOUT_MS: '1000' }),
    startMock(),
    launchBrowser(),
  ]);
  await srv.store.records.upsertMany([
    { kind: 'item', id: 'hebrew-shelf', name: 'מדף עליון 3', description: '', parentId: 'shelf-3', assetId: 77 },
    { kind: 'item', id: 'tibetan-box', name: 'Box ༀ', description: '', parentId: 'shelf-3', assetId: null },
    { kind: 'location', id: 'crate', name: 'Crate', description: '', parentId: null, assetId: null },
    ...Array.from({ length: 20 }, (_, i) => ({ kind: 'item' as const, id: `crate-${i + 1}`, name: `Cable ${String(i + 1).padStart(2, '0')}`, description: '', parentId: 'crate', assetId: 100 + i })),
  ]);
  mockPage = await preview({
    configFile: join(ROOT, 'studio/vite.config.ts'),
    logLevel: 'silent',
    preview: { host: '127.0.0.1', port: 0, strictPort: false, headers: { 'Content-Security-Policy': STUDIO_CSP }, proxy: { '/v1': { target: mock.url, changeOrigin: true } } },
  });
  mockUrl = mockPage.resolvedUrls!.local[0]!.replace(/\/$/, '');
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop(), broken?.stop(), mock?.close(), mockPage?.close()]);
});

describe('the label studio on the real server', () => {
  it('is served at / with a strict Content-Security-Policy', async () => {
    const res = await fetch(`${srv.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/<style|style=/); // no inline style
    // Only names the build made are served.
    expect((await fetch(`${srv.url}/studio/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${srv.url}/studio/nope.js`)).status).toBe(404);
  });

  it('signs in, searches, previews on three stocks and a saved template at true size, prints one and watches it reach printed', async () => {
    const saved = await fetch(`${srv.url}/v1/labelmaker/templates/studio-tags`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.editor}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'Asset {assetId}' }], codes: ['qr'], codePosition: 'right' }),
    });
    expect(saved.status).toBe(201);
    const tab = await openStudio(browser.context, `${srv.url}/`);
    const { page } = tab;
    expect(await axeSerious(page), 'sign-in screen').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-sign-in.png') });
    await signIn(page, srv.tokens.print);
    expect(await page.locator('#scopes li').allTextContents()).toEqual(['labels:read', 'labels:print']);
    // The token is in sessionStorage only: not in the address, not in a cookie.
    expect(page.url()).toBe(`${srv.url}/`);
    // A reload keeps the tab signed in.
    await page.reload();
    await page.locator('#studio').waitFor();
    expect(await page.locator('#scopes li').allTextContents()).toEqual(['labels:read', 'labels:print']);
    expect(await browser.context.cookies()).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('labelmaker.token'))).toBe(srv.tokens.print);

    await searchFor(page, 'drill');
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(['Cordless drill']);
    await page.locator('#results .record').first().click();
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    // Brother QL 62 x 29 mm: 696 x 271 dots at 300 dpi, drawn in CSS millimetres.
    expect(await page.locator('#label-size').textContent()).toContain('58.9 × 22.9 mm (696 × 271 dots at 300 dpi) on a 62 × 29 mm label');
    // The label at its whole size: the printable area (58.9 x 22.9 mm), with the unprinted
    // edge around it as white paper (18 dots = 1.5 mm across, 35 dots = 3 mm along).
    const box = await page.locator('#label-img').boundingBox();
    expect(box!.width).toBeCloseTo(((58.9 + 2 * 1.5) * 96) / 25.4, 0);
    expect(box!.height).toBeCloseTo(((22.9 + 2 * 3) * 96) / 25.4, 0);
    expect(await page.locator('#warnings').isHidden()).toBe(true);
    expect(await axeSerious(page), 'label preview').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-preview.png'), fullPage: true });

    for (const [template, size] of [['zebra-2x1-203dpi', '50.8 × 25.4 mm (406 × 203 dots at 203 dpi)'], ['brother-ql-102x51', '98.6 × 44.5 mm (1164 × 526 dots at 300 dpi)']] as const) {
      await page.getByLabel('Template', { exact: true }).selectOption(template);
      await page.locator('#label-size').filter({ hasText: size }).waitFor();
      const { w, natural } = await page.locator('#label-img').evaluate((img: HTMLImageElement) => ({ w: img.style.width, natural: img.naturalWidth }));
      expect(w).toBe(`${size.split(' ')[0]}mm`);
      expect(natural).toBe(Number(size.split('(')[1]!.split(' ')[0]));
    }
    // A saved template is offered and previews; once deleted elsewhere, the service's
    // reason shows instead, and no stale picture.
    expect(await page.locator('#template optgroup[label="Saved templates"] option').allTextContents()).toEqual(['studio-tags']);
    await page.getByLabel('Template', { exact: true }).selectOption('studio-tags');
    await page.locator('#label-size').filter({ hasText: '58.9 × 22.9 mm' }).waitFor();
    const tpl = `${srv.url}/v1/labelmaker/templates/studio-tags`;
    const etag = (await fetch(tpl, { headers: { Authorization: `Bearer ${srv.tokens.editor}` } })).headers.get('etag')!;
    expect((await fetch(tpl, { method: 'DELETE', headers: { Authorization: `Bearer ${srv.tokens.editor}`, 'If-Match': etag } })).status).toBe(204);
    await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-62x29');
    await page.locator('#label-size').filter({ hasText: '58.9 × 22.9 mm' }).waitFor();
    await page.getByLabel('Template', { exact: true }).selectOption('studio-tags');
    await page.locator('#preview-error').waitFor();
    expect(await page.locator('#preview-error').textContent()).toContain('studio-tags');
    expect(await page.locator('#label-frame').isHidden()).toBe(true);
    await page.getByLabel('Template', { exact: true }).selectOption('brother-ql-62x29');
    await page.locator('#label-frame').waitFor();
    expect(await page.locator('#preview-error').isHidden()).toBe(true);
    // The asset label of the same item.
    await page.getByLabel('Which label').selectOption('asset');
    await page.locator('#label-img[alt^="Asset label"]').waitFor();

    await page.getByRole('button', { name: 'Print this label' }).click();
    await page.locator('#job .state[data-state="printed"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('#job').textContent()).toContain('asset label');

    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    // Chromium logs the deleted template's 400 itself; nothing else.
    expect(tab.consoleErrors).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    await tab.close();
  }, 60_000);

  it('previews large labels in their own shape on a 390 px phone (the QR code stays square)', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, { width: 390, height: 844 });
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await searchFor(page, 'drill');
    await page.locator('#results .record').first().click();
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    for (const [template, shot] of [['brother-ql-102x152', 'phone-preview-102x152'], ['brother-ql-102x51', 'phone-preview-102x51'], ['zebra-4x6-203dpi', 'phone-preview-zebra-4x6']] as const) {
      await page.getByLabel('Template', { exact: true }).selectOption(template);
      // This template's label is in (its alt names it; the size line is rewritten with it), then
      // decoded (only then is "shown smaller" added): the previous label's line must not pass for it.
      await expect.poll(() => page.locator('#label-img').getAttribute('alt'), { timeout: 20_000 }).toMatch(new RegExp(` on ${template}$`));
      await page.locator('#label-size').filter({ hasText: 'shown smaller to fit the screen' }).waitFor();
      // The picture's content box (inside the white paper edge) against the PNG's own shape.
      const { shown, natural, width } = await page.locator('#label-img').evaluate((img: HTMLImageElement) => {
        const r = img.getBoundingClientRect();
        const cs = getComputedStyle(img);
        const w = r.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
        const h = r.height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
        return { shown: w / h, natural: img.naturalWidth / img.naturalHeight, width: r.width };
      });
      expect(width, template).toBeLessThan(390);
      expect(Math.abs(shown / natural - 1), template).toBeLessThan(0.01);
      await page.screenshot({ path: join(SHOTS, `${shot}.png`), fullPage: true });
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 60_000);

  it('browses the location tree, shows RTL names and warns about characters no font has, on a phone, keyboard only', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    // Keyboard only: the token field has focus on arrival.
    await page.keyboard.type(srv.tokens.read);
    await page.keyboard.press('Enter');
    await page.locator('#studio').waitFor();
    expect(await page.locator('#scopes li').allTextContents()).toEqual(['labels:read']);
    await page.getByRole('button', { name: 'Browse locations' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toContain('Garage');
    await page.getByRole('button', { name: 'Show what is inside Garage' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(['Shelf 3']);
    await page.getByRole('button', { name: 'Show what is inside Shelf 3' }).press('Enter');
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(expect.arrayContaining(['מדף עליון 3', 'Box ༀ', 'Bin 12']));
    expect(await page.locator('#crumbs button').allTextContents()).toEqual(['Top', 'Garage', 'Shelf 3']);
    // Names are laid out by their own direction.
    const hebrew = page.locator('#results .name', { hasText: 'מדף' });
    expect(await hebrew.getAttribute('dir')).toBe('auto');
    expect(await hebrew.evaluate((n) => getComputedStyle(n).direction)).toBe('rtl');
    // Laid out right to left: the name's first letter sits right of its last character ("3").
    const [first, last] = await hebrew.evaluate((n) => {
      const at = (i: number) => {
        const r = document.createRange();
        r.setStart(n.firstChild!, i);
        r.setEnd(n.firstChild!, i + 1);
        return r.getBoundingClientRect().left;
      };
      return [at(0), at(n.textContent!.length - 1)];
    });
    expect(first).toBeGreaterThan(last!);

    await page.locator('#results .record', { hasText: 'Box ༀ' }).press('Enter');
    await page.locator('#warnings').waitFor();
    expect(await page.locator('#warnings').textContent()).toContain('U+0F00');
    // This token cannot print: the button says so instead of failing.
    expect(await page.getByRole('button', { name: 'Print this label' }).isDisabled()).toBe(true);
    expect(await page.locator('#canvas-designer').isHidden()).toBe(true); // no templates:write
    // Phone width: nothing wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    expect(await axeSerious(page), 'phone preview with a warning').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'phone-preview-warning.png'), fullPage: true });

    await page.locator('#results .record', { hasText: 'מדף' }).click();
    await page.locator('#preview-name', { hasText: 'מדף' }).waitFor();
    await page.locator('#warnings').waitFor({ state: 'hidden' });
    await page.screenshot({ path: join(SHOTS, 'phone-preview-rtl.png'), fullPage: true });

    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('labelmaker.token'))).toBeNull();
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  });

  it('prints a whole location as a batch of 20 and watches them reach printed; downloads sheets of it and of a selection', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`);
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await page.getByRole('button', { name: 'Browse locations' }).click();
    await page.getByRole('button', { name: 'Show what is inside Crate' }).click();
    await expect.poll(() => page.locator('#results .record .name').count()).toBe(20);
    await page.getByRole('button', { name: 'Select every item in Crate' }).click();
    // The count is shown before printing (the location is listed to count it), with the template.
    await expect.poll(() => page.locator('#batch-what').textContent()).toBe('Every item in Crate, at any depth: 20 labels.');
    expect(await page.locator('#batch-total').textContent()).toBe('Print all prints 20 labels on Brother QL 62 × 29 mm die-cut (DK-11209).');
    // Copies multiply it, visibly; a new selection starts again at one copy.
    await page.getByLabel('Copies').fill('3');
    expect(await page.locator('#batch-total').textContent()).toContain('60 labels (20 labels × 3 copies) on');
    // 20 labels is above the threshold: "Print all" asks first, naming the count and the template;
    // declined, nothing is sent.
    const asked: string[] = [];
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Print all on the label printer' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe('Print 60 labels (20 labels × 3 copies) on Brother QL 62 × 29 mm die-cut (DK-11209)?');
    expect(posts).toEqual([]);
    await page.getByRole('button', { name: 'Select every item in Crate' }).click();
    expect(await page.getByLabel('Copies').inputValue()).toBe('1');
    // Counted again (the location is listed): until then the question would say "counting…".
    await expect.poll(() => page.locator('#batch-total').textContent()).toBe('Print all prints 20 labels on Brother QL 62 × 29 mm die-cut (DK-11209).');
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Print all on the label printer' }).click();
    await expect.poll(() => asked.length).toBe(2);
    expect(asked[1]).toBe('Print 20 labels on Brother QL 62 × 29 mm die-cut (DK-11209)?');
    await page.locator('#batch-status .state[data-state="printed"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('#batch-status').textContent()).toContain('20 of 20 printed, 0 waiting, 0 failed');
    // The jobs list shows a page of them, not "10 jobs." as if that were all; printed jobs say nothing of attempts.
    await expect.poll(() => page.locator('#jobs-status').textContent(), { timeout: 10_000 }).toBe('The latest 10 jobs (more below).');
    const metas = await page.locator('#jobs-list li[data-state="printed"] .meta').allTextContents();
    expect(metas.length).toBe(10);
    for (const m of metas) expect(m).toMatch(/^item crate-\d+ · in a batch · on Brother QL 62 × 29 mm die-cut \(DK-11209\) · [^·]+$/);

    // 20 labels from position 5 of a 21-label sheet: 24 positions, 2 pages.
    await page.getByLabel('Sheet', { exact: true }).selectOption('avery-l7160');
    await page.getByLabel('Start at position').fill('5');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sheet PDF' }).click()]);
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdfPageCount(pdf)).toBe(2);
    expect(download.suggestedFilename()).toBe('labels-avery-l7160.pdf');

    // Two records picked by hand, two copies each, one label per page: 4 pages.
    await page.getByRole('button', { name: 'Clear' }).click();
    expect(await page.locator('#batch').isHidden()).toBe(true);
    await page.getByRole('checkbox', { name: 'Select Cable 01' }).check();
    await page.getByRole('checkbox', { name: 'Select Cable 02' }).check();
    expect(await page.locator('#batch-what').textContent()).toBe('2 labels selected.');
    await page.getByLabel('Sheet', { exact: true }).selectOption('label-per-page');
    await page.getByLabel('Start at position').fill('1');
    await page.getByLabel('Copies').fill('2');
    const [perPage] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sheet PDF' }).click()]);
    expect(pdfPageCount(readFileSync((await perPage.path())!))).toBe(4);

    // An asset-id range: 000-100 to 000-104, one label per page, one copy: 5 pages.
    await page.getByText('Select an asset-id range').click();
    await page.getByLabel('From asset id').fill('100');
    await page.getByLabel('To asset id').fill('000-104');
    await page.getByRole('button', { name: 'Select range' }).click();
    await expect.poll(() => page.locator('#batch-what').textContent()).toBe('Asset labels 100 to 000-104: 5 labels.');
    expect(await page.getByRole('checkbox', { name: 'Select Cable 01' }).isChecked()).toBe(false);
    await page.getByLabel('Copies').fill('1');
    const [range] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sheet PDF' }).click()]);
    expect(pdfPageCount(readFileSync((await range.path())!))).toBe(5);
    expect(await axeSerious(page), 'batch panel').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-batch.png'), fullPage: true });
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    // The screen as a person sees it at the end of the page: the batch panel above the fixed action bar
    // (a full-page shot would draw the fixed bar where the first screen ended).
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.screenshot({ path: join(SHOTS, 'phone-batch.png') });
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 90_000);

  it('says which kind of selection is made and what choosing another replaces; a location and every location inside it can be selected', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, { width: 390, height: 844 });
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await tap(page.getByRole('button', { name: 'Browse locations' }));
    await tap(page.getByRole('button', { name: 'Show what is inside Garage' }));
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(['Shelf 3']);
    await page.getByRole('checkbox', { name: 'Select Shelf 3' }).check();
    expect(await page.locator('#batch-what').textContent()).toBe('1 label selected.');
    // Before choosing: the buttons that would replace it say so.
    expect(await page.locator('#select-hint').textContent()).toBe('Selecting here replaces what is selected now: 1 ticked record.');
    await tap(page.getByRole('button', { name: 'Select Garage and every location inside it' }));
    await expect.poll(() => page.locator('#batch-what').textContent()).toBe('Garage and every location inside it, at any depth (location labels): 3 labels.');
    expect(await page.locator('#batch-replaced').textContent()).toBe('This replaced the earlier selection: 1 ticked record.');
    expect(await page.getByRole('checkbox', { name: 'Select Shelf 3' }).isChecked()).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'phone-selection-replaced.png') });
    await tap(page.getByRole('button', { name: 'Select every item in Garage' }));
    await expect.poll(() => page.locator('#batch-what').textContent()).toBe('Every item in Garage, at any depth: 4 labels.');
    expect(await page.locator('#batch-replaced').textContent()).toBe('This replaced the earlier selection: Garage and every location inside it (3 labels).');
    // Ticking a record replaces a location's selection too, and says so.
    await page.getByRole('checkbox', { name: 'Select Shelf 3' }).check();
    expect(await page.locator('#batch-what').textContent()).toBe('1 label selected.');
    expect(await page.locator('#batch-replaced').textContent()).toBe('This replaced the earlier selection: every item in Garage (4 labels).');
    // The tree as a sheet, one label per page: Garage, then the two locations inside it.
    await tap(page.getByRole('button', { name: 'Select Garage and every location inside it' }));
    await expect.poll(() => page.locator('#batch-what').textContent()).toContain('3 labels');
    await page.getByLabel('Sheet', { exact: true }).selectOption('label-per-page');
    const [download] = await Promise.all([page.waitForEvent('download'), tap(page.getByRole('button', { name: 'Download sheet PDF' }))]);
    const pdf = readFileSync((await download.path())!);
    expect(pdfPageCount(pdf)).toBe(3);
    expect(await axeSerious(page), 'selection modes, phone').toEqual([]);
    await page.locator('#batch').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'phone-selection-tree.png') });
    await page.setViewportSize(DESK);
    await page.screenshot({ path: join(SHOTS, 'desktop-selection-tree.png'), fullPage: true });
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 60_000);

  it("shows a failing printer's error on the job", async () => {
    const tab = await openStudio(browser.context, `${broken.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, broken.tokens.print);
    await searchFor(page, 'drill');
    await page.locator('#results .record').first().click();
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    await page.getByRole('button', { name: 'Print this label' }).click();
    await page.locator('#job .state[data-state="failed"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#job').textContent()).toMatch(/The printer cannot be reached \(.+\)\./);
    // Try again: a new job for the same label, which fails the same way.
    const first = await page.locator('#job').getAttribute('data-job');
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.locator('#job').getAttribute('data-job'), { timeout: 10_000 }).not.toBe(first);
    await page.locator('#job .state[data-state="failed"]').waitFor({ timeout: 30_000 });
    expect(await axeSerious(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'phone-job-failed.png'), fullPage: true });
    expect(foreignRequests(tab.requests, broken.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 60_000);

  it('a job waiting to retry says in plain words that the printer cannot be reached, and when the next try is; it can be cancelled', async () => {
    const port = await refusedPort();
    const waiting = await startTestServer({ PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`, PRINTER_STATUS_INTERVAL_S: '0', PRINT_MAX_ATTEMPTS: '5', PRINT_RETRY_BASE_MS: '600000', PRINT_TIMEOUT_MS: '1000' });
    try {
      const auth = { Authorization: `Bearer ${waiting.tokens.print}` };
      const res = await fetch(`${waiting.url}/v1/labelmaker/assets/000-001?print=true`, { headers: auth });
      const id = res.headers.get('print-job')!.split('/').pop()!;
      await expect.poll(async () => ((await (await fetch(`${waiting.url}/v1/labelmaker/print-jobs/${id}`, { headers: auth })).json()) as { attempts: number }).attempts, { timeout: 15_000 }).toBe(1);
      const tab = await openStudio(browser.context, `${waiting.url}/`, PHONE);
      const { page } = tab;
      await signIn(page, waiting.tokens.print);
      const row = page.locator(`#jobs-list li[data-job="${id}"][data-state="queued"]`);
      await row.waitFor();
      expect(await row.locator('.printer-error').textContent()).toMatch(/^The printer cannot be reached \(.*(ECONNREFUSED|refused).*\)\.$/i);
      expect(await row.locator('.meta').textContent()).toMatch(/ · waiting to try again at \d{1,2}:\d\d:\d\d.* \(1 of 5 attempts made\)$/);
      await row.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'phone-job-waiting-retry.png') });
      // Still waiting: it can be cancelled (keyboard), and then it says so and never prints.
      const cancel = page.getByRole('button', { name: 'Cancel printing asset label: 000-001' });
      await cancel.focus();
      await page.keyboard.press('Enter');
      const cancelled = page.locator(`#jobs-list li[data-job="${id}"][data-state="cancelled"]`);
      await cancelled.waitFor();
      expect(await cancelled.locator('.badge').textContent()).toBe('Cancelled');
      expect(await cancelled.locator('.meta').textContent()).toMatch(/ · cancelled at \d{1,2}:\d\d:\d\d.*, not printed$/);
      expect(await cancelled.locator('.printer-error').count()).toBe(0);
      expect(await cancelled.getByRole('button').count()).toBe(0);
      expect(await page.locator('#jobs-status').textContent()).toMatch(/^asset label: 000-001: cancelled; it will not print\. 1 job\.$/);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('jobs-state');
      const job = (await (await fetch(`${waiting.url}/v1/labelmaker/print-jobs/${id}`, { headers: auth })).json()) as { state: string; cancelledAt: string | null };
      expect(job.state).toBe('failed');
      expect(job.cancelledAt).not.toBeNull();
      expect(await axeSerious(page), 'jobs with a cancelled one, phone').toEqual([]);
      await cancelled.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'phone-job-cancelled.png') });
      await page.setViewportSize(DESK);
      await page.screenshot({ path: join(SHOTS, 'desktop-job-cancelled.png'), fullPage: true });
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    } finally {
      await waiting.stop();
    }
  }, 60_000);

  it("lists a session's jobs with a failing printer's error; Retry, once the printer is fixed, reaches printed (keyboard, phone and desk)", async () => {
    const port = await refusedPort();
    // Unpolled: a polled printer that no instance reaches holds its jobs (printer-reach.test.ts); here they fail and are retried.
    const flaky = await startTestServer({ PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`, PRINT_MAX_ATTEMPTS: '1', PRINT_TIMEOUT_MS: '1000', PRINTER_STATUS_INTERVAL_S: '0' });
    let sink: TcpSink | undefined;
    try {
      // Printed from an earlier session (another client, even): the jobs list is the token's, not the tab's.
      const auth = { Authorization: `Bearer ${flaky.tokens.print}` };
      const earlier = await fetch(`${flaky.url}/v1/labelmaker/assets/000-001?print=true`, { headers: auth });
      const failedId = earlier.headers.get('print-job')!.split('/').pop()!;
      await expect.poll(async () => ((await (await fetch(`${flaky.url}/v1/labelmaker/print-jobs/${failedId}`, { headers: auth })).json()) as { state: string }).state, { timeout: 15_000 }).toBe('failed');

      const tab = await openStudio(browser.context, `${flaky.url}/`, PHONE);
      const { page } = tab;
      await signIn(page, flaky.tokens.print);
      const row = page.locator(`#jobs-list li[data-job="${failedId}"]`);
      await row.and(page.locator('[data-state="failed"]')).waitFor();
      expect(await row.locator('.title').textContent()).toBe('asset label: 000-001');
      expect(await row.locator('.record').textContent()).toBe('asset 000-001');
      expect(await row.locator('.badge').textContent()).toBe('Failed');
      expect(await row.locator('.printer-error').textContent()).toMatch(/^The printer cannot be reached \(.*(ECONNREFUSED|refused)/i);
      expect(await row.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

      // Keyboard only: filter to failed jobs, then retry the one there once the printer is back.
      await page.getByLabel('Show', { exact: true }).focus();
      await page.getByLabel('Show', { exact: true }).selectOption('failed');
      await expect.poll(() => page.locator('#jobs-list li').count()).toBe(1);
      await page.locator('#jobs-list li[data-state="failed"]').first().waitFor();
      expect(await axeSerious(page), 'jobs screen, phone').toEqual([]);
      await page.locator('#jobs').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'phone-jobs-failed.png'), fullPage: true });
      await page.setViewportSize(DESK);
      await page.screenshot({ path: join(SHOTS, 'desktop-jobs-failed.png'), fullPage: true });

      sink = await startTcpSink('accept', port);
      const retry = page.getByRole('button', { name: 'Retry asset label: 000-001' });
      await retry.focus();
      await page.keyboard.press('Enter');
      // Back among all jobs, refreshing by itself until it is printed.
      await row.and(page.locator('[data-state="printed"]')).waitFor({ timeout: 20_000 });
      expect(await page.getByLabel('Show', { exact: true }).inputValue()).toBe('');
      expect((await sink.nextJob()).length).toBeGreaterThan(100);
      expect(await row.locator('.printer-error').count()).toBe(0);
      expect(await page.locator('#jobs-status').textContent()).toMatch(/^(asset label: 000-001: back in the queue\. )?1 job\.$/);
      expect(await axeSerious(page), 'jobs screen, desk').toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'desktop-jobs-printed.png'), fullPage: true });
      expect(foreignRequests(tab.requests, flaky.url)).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    } finally {
      await sink?.close();
      await flaky.stop();
    }
  }, 90_000);

  it('on a phone, the main actions stay in a bar at the bottom that covers nothing and the keyboard reaches', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    expect(await page.locator('#action-bar').isHidden()).toBe(true);
    await page.getByRole('button', { name: 'Browse locations' }).click();
    await page.getByRole('button', { name: 'Show what is inside Crate' }).click();
    await expect.poll(() => page.locator('#results .record .name').count()).toBe(20);
    await page.locator('#results .record', { hasText: 'Cable 01' }).click();
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    const bar = page.locator('#action-bar');
    expect(await bar.isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Print all' }).isHidden()).toBe(true);
    // Fixed to the bottom of the screen, wherever the page is scrolled.
    const box = (await bar.boundingBox())!;
    expect(box.y + box.height).toBeCloseTo(PHONE.height, 0);
    // The page keeps room for it: scrolled to the end, the last content ends above the bar.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const lastBottom = await page.evaluate(() => Math.max(...[...document.querySelectorAll('#studio .panel')].filter((p) => (p as HTMLElement).offsetParent).map((p) => p.getBoundingClientRect().bottom)));
    expect(lastBottom).toBeLessThanOrEqual((await bar.boundingBox())!.y);
    // Keyboard only: Tab reaches the bar's Print, Enter prints.
    await page.locator('#results .record', { hasText: 'Cable 01' }).focus();
    let reached = false;
    for (let i = 0; i < 120 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'bar-print');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#job .state[data-state="printed"]').waitFor({ timeout: 20_000 });
    // A selection adds its actions to the bar.
    await page.getByRole('checkbox', { name: 'Select Cable 02' }).check();
    await page.getByRole('checkbox', { name: 'Select Cable 03' }).check();
    expect(await page.getByRole('button', { name: 'Print all', exact: true }).isVisible()).toBe(true);
    await page.getByLabel('Sheet', { exact: true }).selectOption('label-per-page');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Sheet PDF', exact: true }).click()]);
    expect(pdfPageCount(readFileSync((await download.path())!))).toBe(2);
    await page.getByRole('button', { name: 'Print all', exact: true }).click();
    await page.locator('#batch-status .state[data-state="printed"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('#batch-status').textContent()).toContain('2 of 2 printed');
    expect(await axeSerious(page), 'phone with the action bar').toEqual([]);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, 'phone-action-bar.png') });
    // On a desk the panels stay in view: no bar.
    await page.setViewportSize(DESK);
    expect(await bar.isHidden()).toBe(true);
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 90_000);

  it('a token revoked mid-session returns to sign-in; a server gone away leaves no stale results', async () => {
    const live = await createToken(srv.store, 'soon-revoked', ['labels:read', 'labels:print']);
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, live.token);
    await searchFor(page, 'drill');
    await srv.store.tokens.revoke(live.info.id);
    // The service may trust a token it checked for TOKEN_CACHE_MS (1 s by default, src/config.ts).
    await new Promise((r) => setTimeout(r, 1_200));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#sign-in').waitFor();
    expect(await page.locator('#studio').isHidden()).toBe(true);
    expect(await page.locator('#sign-in-error').textContent()).toBe('Your session ended: the token was revoked or has expired. Sign in with a valid token.');
    expect(await page.evaluate(() => sessionStorage.getItem('labelmaker.token'))).toBeNull();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await page.screenshot({ path: join(SHOTS, 'phone-session-ended.png') });
    await tab.close();

    const gone = await startTestServer({});
    const tab2 = await openStudio(browser.context, `${gone.url}/`, PHONE);
    try {
      await signIn(tab2.page, gone.tokens.print);
      await searchFor(tab2.page, 'drill');
      await gone.stop();
      await tab2.page.getByRole('button', { name: 'Search' }).click();
      await tab2.page.locator('#service-gone').waitFor();
      expect(await tab2.page.locator('#results li').count()).toBe(0);
      expect(await saying(tab2.page, /cannot be reached/)).toEqual(['service-gone']);
    } finally {
      await tab2.close();
    }
  }, 60_000);

  it('the service going away is said once, at the top; panels keep nothing stale; when it is back the page picks up again', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, { width: 390, height: 844 });
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await searchFor(page, 'drill');
    await tap(page.locator('#results .record').first());
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    await tap(page.getByRole('button', { name: 'Print this label' }));
    await page.locator('#job .state[data-state="printed"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => page.locator('#jobs-list li').count()).toBeGreaterThan(0);
    // The service goes away (connections refused), for every panel at once.
    await page.route(`${srv.url}/v1/**`, (route) => route.abort('connectionrefused'));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#service-gone').waitFor();
    await tap(page.getByRole('button', { name: 'Refresh' }));
    await page.getByLabel('Which label').selectOption('asset');
    await tap(page.getByRole('button', { name: 'Print this label' }));
    await page.locator('#job', { hasText: /^Not printed\.$/ }).waitFor();
    // Said once, by the page; each panel says only what did not happen, and shows nothing from before.
    expect(await saying(page, /cannot be reached/)).toEqual(['service-gone']);
    expect(await page.locator('#results li').count()).toBe(0);
    expect(await page.locator('#results-status').textContent()).toBe('');
    expect(await page.locator('#jobs-list li').count()).toBe(0);
    expect(await page.locator('#jobs-status').textContent()).toBe('');
    expect(await page.locator('#label-frame').isHidden()).toBe(true);
    expect(await page.locator('#preview-error').isHidden()).toBe(true);
    // At the top of the screen wherever the page is scrolled.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const top = (await page.locator('#service-gone').boundingBox())!;
    expect(top.y).toBeGreaterThanOrEqual(0);
    expect(top.y).toBeLessThan(20);
    expect(await axeSerious(page), 'service gone, phone').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'phone-service-gone.png') });
    await page.setViewportSize(DESK);
    await page.screenshot({ path: join(SHOTS, 'desktop-service-gone.png') });
    // Back: "Try again" takes the message away and the job list reads the jobs again.
    await page.unroute(`${srv.url}/v1/**`);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#service-gone').waitFor({ state: 'hidden' });
    await expect.poll(() => page.locator('#jobs-list li').count()).toBeGreaterThan(0);
    await tab.close();
  }, 60_000);

  it("a search result's breadcrumb shows its whole path, and each location on it can be browsed", async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, { width: 390, height: 844 });
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await searchFor(page, 'bin 12');
    await tap(page.getByRole('button', { name: 'Show what is inside Bin 12' }));
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(['Cordless drill']);
    expect(await page.locator('#crumbs button').allTextContents()).toEqual(['Top', 'Garage', 'Shelf 3', 'Bin 12']);
    expect(await page.locator('#crumbs [aria-current="location"]').textContent()).toBe('Bin 12');
    await page.screenshot({ path: join(SHOTS, 'phone-search-breadcrumb.png') });
    // An ancestor the search never showed: browsed by its id.
    await tap(page.locator('#crumbs button', { hasText: 'Shelf 3' }));
    await expect.poll(() => page.locator('#results .record .name').allTextContents()).toEqual(expect.arrayContaining(['Bin 12', 'Рулетка 5 m']));
    expect(await page.locator('#results .record .name').allTextContents()).not.toContain('Cordless drill');
    expect(await page.locator('#crumbs button').allTextContents()).toEqual(['Top', 'Garage', 'Shelf 3']);
    expect(await axeSerious(page), 'breadcrumb from a search, phone').toEqual([]);
    await page.setViewportSize(DESK);
    await page.screenshot({ path: join(SHOTS, 'desktop-search-breadcrumb.png') });
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 60_000);

  it('on a phone, tapping a record brings its label into view; focus stays on "Print this label" while and after it prints', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, { width: 390, height: 844 });
    const { page } = tab;
    await signIn(page, srv.tokens.print);
    await page.getByRole('button', { name: 'Browse locations' }).click();
    await page.getByRole('button', { name: 'Show what is inside Crate' }).click();
    await expect.poll(() => page.locator('#results .record .name').count()).toBe(20);
    await tap(page.locator('#results .record', { hasText: 'Cable 12' }));
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    // The label picture is on screen, above the action bar.
    const bar = (await page.locator('#action-bar').boundingBox())!;
    await expect.poll(async () => {
      const img = (await page.locator('#label-img').boundingBox())!;
      return img.y >= 0 && img.y + img.height <= bar.y;
    }).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'phone-record-tapped.png') });
    await page.locator('#print').focus();
    await page.keyboard.press('Enter');
    await page.locator('#job .state[data-state="printed"]').waitFor({ timeout: 20_000 });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('print');
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 60_000);

  it('refuses a revoked token with a sentence, not a stack trace', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    await tab.page.getByLabel('API token').fill(srv.tokens.revoked);
    await tab.page.getByRole('button', { name: 'Sign in' }).click();
    await tab.page.locator('#sign-in-error').waitFor();
    expect(await tab.page.locator('#sign-in-error').textContent()).toBe('That token is not valid (or was revoked).');
    expect(await axeSerious(tab.page)).toEqual([]);
    await tab.page.screenshot({ path: join(SHOTS, 'phone-sign-in-error.png') });
    // The 401 is the one console error (Chromium logs failed fetches); nothing about CSP.
    expect(tab.consoleErrors.filter((e) => /Content Security Policy|Refused/i.test(e))).toEqual([]);
    await tab.close();
  });

  it('first load is under 150 KB compressed', () => {
    const dist = join(ROOT, 'studio/dist');
    const html = readFileSync(join(dist, 'index.html'));
    const assets = readdirSync(join(dist, 'studio')).map((name) => readFileSync(join(dist, 'studio', name)));
    const gz = [html, ...assets].reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
    console.log(`studio first load: ${[html, ...assets].reduce((s, b) => s + b.length, 0)} bytes, ${gz} bytes gzip`);
    expect(gz).toBeLessThan(150 * 1024);
    expect(gz).toBeGreaterThan(1000);
  });
});

describe('the label studio on the Prism mock', () => {
  it('signs in, searches, previews and prints with the spec examples', async () => {
    const tab = await openStudio(browser.context, `${mockUrl}/`);
    const { page } = tab;
    await signIn(page, 'any-token-will-do');
    // The spec's example session.
    expect(await page.locator('#scopes li').allTextContents()).toEqual(['labels:read', 'labels:print']);
    // Saved templates from listLabelTemplates's example are offered first.
    expect(await page.locator('#template optgroup[label="Saved templates"] option').allTextContents()).toEqual(['asset-tags']);
    await searchFor(page, 'drill');
    const names = await page.locator('#results .record .name').allTextContents();
    expect(names.length).toBeGreaterThan(0);
    await page.locator('#results .record').first().click();
    await page.locator('#label-size').filter({ hasText: 'dpi' }).waitFor();
    expect(await page.locator('#label-img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Print this label' }).click();
    await page.locator('#job .state').waitFor();
    expect(await page.locator('#job .state').textContent()).toBe('printed');
    // A sheet of the first result, from the spec's example PDF.
    await page.locator('#results .check').first().check();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sheet PDF' }).click()]);
    expect(readFileSync((await download.path())!).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    await page.getByRole('button', { name: 'Print all on the label printer' }).click();
    await page.locator('#batch-status .state').waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await page.setViewportSize(PHONE);
    // On a phone the bar at the bottom holds the label's and the selection's actions.
    expect(await page.locator('#action-bar button:visible').allTextContents()).toEqual(['Print label', 'Print all', 'Sheet PDF']);
    await page.locator('#job').evaluate((n) => n.replaceChildren());
    await page.getByRole('button', { name: 'Print label', exact: true }).click();
    await page.locator('#job .state').waitFor();
    expect(await page.locator('#job .state').textContent()).toBe('printed');
    await page.screenshot({ path: join(SHOTS, 'phone-mock-preview.png'), fullPage: true });
    expect(foreignRequests(tab.requests, mockUrl)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  });

  it("lists the spec's example jobs, the failed one with its printer's error and a Retry the mock accepts", async () => {
    const tab = await openStudio(browser.context, `${mockUrl}/`, PHONE);
    const { page } = tab;
    await signIn(page, 'any-token-will-do');
    const failed = page.locator('#jobs-list li[data-state="failed"]');
    await failed.waitFor();
    expect(await page.locator('#jobs-list li').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.state))).toEqual(['failed', 'printed']);
    expect(await failed.locator('.printer-error').textContent()).toBe('The printer cannot be reached (connect ECONNREFUSED 10.0.0.20:9100).');
    // The example's batch and stock as a person reads them: no UUID, the stock by its title.
    expect(await failed.locator('.meta').first().textContent()).toMatch(/^in a batch · on Zebra 2 × 1 in, 203 dpi · .* · gave up after \d+ attempts?$/);
    expect(await page.locator('#jobs-list li[data-state="printed"] button').count()).toBe(0);
    // The example page has a next one.
    expect(await page.getByRole('button', { name: 'More jobs' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Retry item label: Cordless drill' }).click();
    await page.locator('#jobs-status').filter({ hasText: 'back in the queue' }).waitFor();
    expect(await axeSerious(page), 'jobs on the mock').toEqual([]);
    expect(foreignRequests(tab.requests, mockUrl)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  });
});
