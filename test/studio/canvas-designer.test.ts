/**
 * The element designer (studio/src/canvas-designer.ts) as people use it, in real Chromium
 * against the real server: add elements, drag one with the pointer (it snaps to the
 * printable area's edge) and move it with the keyboard (the live region says where),
 * undo and redo, type and see the service's preview change, save (with the service's scan
 * check), export to a file and import it back, at desk and phone widths, with axe-core.
 * Screenshots go to out/studio/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from 'canvas';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const PREVIEW_PATH = '/v1/labelmaker/template-previews';
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };
const PX_PER_MM = 96 / 25.4;

let srv: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
});

/** The box of the element named `name` on the canvas. */
const boxNamed = (page: Page, name: string) => page.locator('#cd-stage .cd-box').filter({ has: page.locator('.cd-tag', { hasText: new RegExp(`^${name}$`) }) });

/** The element's place in mm, as the designer holds it (the form's fields). */
async function placeOf(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  const n = async (id: string) => Number(await page.locator(`#${id}`).inputValue());
  return { x: await n('cd-x'), y: await n('cd-y'), width: await n('cd-width'), height: await n('cd-height') };
}

/** The next preview the page asks for, and its PNG. */
function nextPreview(page: Page) {
  return page.waitForResponse((r) => r.url().endsWith(PREVIEW_PATH) && r.request().method() === 'POST' && r.status() === 200, { timeout: 15_000 });
}

async function openDesigner(page: Page): Promise<void> {
  await searchFor(page, 'drill');
  await page.locator('#results .record').first().click();
  await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
  await page.getByText('Design a label: place elements').click();
}

describe('studio: the element designer', () => {
  it('adds, drags (snapping), moves by keyboard, undoes, previews as you type, saves, exports and imports, at desk width', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await page.getByLabel('Printed on').selectOption('brother-ql-62x29');
    // True size at desk width: the stage is the printable area's width in CSS px.
    expect(await page.locator('#cd-scale').textContent()).toContain('true size');
    const stageWidth = (await page.locator('#cd-stage').boundingBox())!.width;
    expect(stageWidth).toBeCloseTo(58.9 * PX_PER_MM, 0);

    // Add a text element: it is the Title, selected, and drawn by the service.
    const first = nextPreview(page);
    await page.getByRole('button', { name: 'Add text' }).click();
    const firstPng = await (await first).body();
    await expect.poll(() => page.locator('#cd-live').textContent()).toContain('Title added');
    const title = boxNamed(page, 'Title');
    expect(await title.getAttribute('aria-pressed')).toBe('true');

    // Keyboard: Right twice and Shift+Down once move 1 mm right and 5 mm down, and the live region says so.
    const before = await placeOf(page);
    await title.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const moved = { ...before, x: before.x + 1, y: before.y + 5 };
    expect(await placeOf(page)).toEqual(moved);
    expect(await page.locator('#cd-live').textContent()).toBe(`Title moved to ${moved.x} mm, ${moved.y} mm`);
    // Alt+Right resizes by 0.5 mm.
    await page.keyboard.press('Alt+ArrowRight');
    expect((await placeOf(page)).width).toBe(before.width + 0.5);

    // Pointer: dragged to 0.6 mm from the left edge, it snaps onto the edge (x = 0).
    await page.locator('#cd-canvas').scrollIntoViewIfNeeded();
    const tb = (await title.boundingBox())!;
    const targetDx = (0.6 - moved.x) * PX_PER_MM;
    await page.mouse.move(tb.x + tb.width / 2, tb.y + tb.height / 2);
    await page.mouse.down();
    await page.mouse.move(tb.x + tb.width / 2 + targetDx / 2, tb.y + tb.height / 2, { steps: 3 });
    await page.mouse.move(tb.x + tb.width / 2 + targetDx, tb.y + tb.height / 2, { steps: 3 });
    expect(await page.locator('#cd-stage .cd-guide-x').count()).toBe(1);
    await page.mouse.up();
    expect((await placeOf(page)).x).toBe(0);
    expect(await page.locator('#cd-live').textContent()).toBe(`Title moved to 0 mm, ${moved.y} mm`);

    // Undo puts it back where the keyboard left it; redo brings the drag back; Ctrl+Z does what Undo does.
    await page.getByRole('button', { name: 'Undo' }).click();
    expect((await placeOf(page)).x).toBe(moved.x);
    await page.getByRole('button', { name: 'Redo' }).click();
    expect((await placeOf(page)).x).toBe(0);
    await title.focus();
    await page.keyboard.press('Control+z');
    expect((await placeOf(page)).x).toBe(moved.x);
    await page.keyboard.press('Control+Shift+z');
    expect((await placeOf(page)).x).toBe(0);

    // Typing: one preview for the word (debounced), its PNG differs from the first.
    const typed = nextPreview(page);
    await page.getByLabel('Text', { exact: true }).fill('');
    await page.getByLabel('Text', { exact: true }).pressSequentially('Bin 42', { delay: 20 });
    const typedRes = await typed;
    const typedPng = await typedRes.body();
    expect(Buffer.compare(firstPng, typedPng)).not.toBe(0);
    await expect.poll(() => page.locator('#cd-preview-status').textContent()).toContain('not saved yet');

    // On a slow line (each preview held 400 ms), edits 250 ms apart abort the preview in flight: the latest edit is drawn.
    await page.route(`**${PREVIEW_PATH}`, async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue().catch(() => {}); // aborted by the page meanwhile
    });
    const aborted: string[] = [];
    page.on('requestfailed', (r) => {
      if (r.url().endsWith(PREVIEW_PATH)) aborted.push(r.failure()?.errorText ?? '');
    });
    const drawnTexts: string[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith(PREVIEW_PATH) && r.status() === 200) drawnTexts.push((r.request().postDataJSON() as { design: { elements: { text?: string }[] } }).design.elements[0]!.text ?? '');
    });
    for (const t of ['Bin 4', 'Bin 43', 'Bin 42']) {
      await page.getByLabel('Text', { exact: true }).fill(t);
      await page.waitForTimeout(250);
    }
    await expect.poll(() => drawnTexts.at(-1), { timeout: 10_000 }).toBe('Bin 42');
    expect(aborted.length).toBeGreaterThanOrEqual(1);
    expect(drawnTexts).not.toContain('Bin 43');
    await page.unroute(`**${PREVIEW_PATH}`);

    // A code element on the right.
    await page.getByRole('button', { name: 'Add a code' }).click();
    await boxNamed(page, 'Code').waitFor();
    expect(await axeSerious(page), 'element designer, desk').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-element-designer.png'), fullPage: true });

    // Save: the service's answer is shown, with its scan check.
    await page.getByLabel('Design name').fill('bin-42');
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-saved:has-text("Saved bin-42."), #cd-error:not([hidden])').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('#cd-error').isHidden(), await page.locator('#cd-error').textContent() ?? '').toBe(true);
    expect(await page.locator('#cd-saved').textContent()).toMatch(/^Saved bin-42\. Scan check (passed|failed)/);

    // Export to a file, then import it into a new design: the same elements come back.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export to a file' }).click()]);
    expect(download.suggestedFilename()).toBe('bin-42.labelmaker.json');
    const file = join(SHOTS, 'bin-42.labelmaker.json');
    await download.saveAs(file);
    const exported = JSON.parse(readFileSync(file, 'utf8')) as { stock: string; elements: { type: string; text?: string }[] };
    expect(exported.stock).toBe('brother-ql-62x29');
    expect(exported.elements.map((e) => e.type)).toEqual(['text', 'code']);
    await page.getByLabel('Open a saved design').selectOption('');
    await expect.poll(() => page.locator('#cd-stage .cd-box').count()).toBe(0);
    await page.locator('#cd-import').setInputFiles(file);
    await expect.poll(() => page.locator('#cd-stage .cd-box').count()).toBe(2);
    expect(await page.locator('#cd-live').textContent()).toContain('Imported bin-42.labelmaker.json: 2 elements');
    expect(await page.getByLabel('Design name').inputValue()).toBe('bin-42');
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('Bin 42');

    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 120_000);

  it('opens a design saved in rows and columns where its grid put each element, and saves it again', async () => {
    // Saved through the API as an integrator would: a 2 x 2 grid on 62x29, the code spanning the right column.
    const grid = { rows: ['1fr', '1fr'], columns: ['1fr', '24mm'], rowGapMm: 1, columnGapMm: 1 };
    const elements = [
      { type: 'text', cell: { row: 1, column: 1 }, text: '{name}', weight: 'bold' },
      { type: 'text', cell: { row: 2, column: 1 }, text: 'Shelf: {path}' },
      { type: 'code', cell: { row: 1, column: 2, rowSpan: 2 }, symbology: 'qr', data: '{url}' },
    ];
    const put = await fetch(`${srv.url}/v1/labelmaker/templates/grid-bin`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.editor}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ stock: 'brother-ql-62x29', grid, elements }),
    });
    expect(put.status, await put.clone().text()).toBe(201);
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await expect.poll(() => page.getByLabel('Open a saved design').locator('option').allTextContents()).toContain('grid-bin');
    await page.getByLabel('Open a saved design').selectOption('grid-bin');
    await expect.poll(() => page.locator('#cd-stage .cd-box').count()).toBe(3);
    expect(await page.locator('#cd-live').textContent()).toContain('laid out in rows and columns');
    // Each element where the grid put it on 58.9 x 22.9 mm: columns 33.9 and 24 mm with a 1 mm gap, rows 10.95 mm.
    await boxNamed(page, 'Title').click();
    expect(await placeOf(page)).toEqual({ x: 0, y: 0, width: 33.9, height: 10.95 });
    await boxNamed(page, 'Code').click();
    expect(await placeOf(page)).toEqual({ x: 34.9, y: 0, width: 24, height: 22.9 });
    // Changed and saved: the service takes it (boxes only, no cell beside a box).
    await boxNamed(page, 'Title').click();
    await page.getByLabel('Text', { exact: true }).fill('Bin {name}');
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-saved:has-text("Saved grid-bin."), #cd-error:not([hidden])').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('#cd-error').isHidden(), (await page.locator('#cd-error').textContent()) ?? '').toBe(true);
    const saved = (await (await fetch(`${srv.url}/v1/labelmaker/templates/grid-bin`, { headers: { Authorization: `Bearer ${srv.tokens.editor}` } })).json()) as { elements: { box?: unknown; cell?: unknown; text?: string }[] };
    expect(saved.elements.map((e) => [Boolean(e.box), Boolean(e.cell)])).toEqual([[true, false], [true, false], [true, false]]);
    expect(saved.elements[0]!.text).toBe('Bin {name}');
    await page.screenshot({ path: join(SHOTS, 'desktop-element-designer-grid.png'), fullPage: true });
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 120_000);

  it('opens a design of text lines as elements, on a label designed turned: the preview turned back under its boxes; saved, it is elements', async () => {
    // A line design saved through the API on 38 x 90 mm, a stock designed along its length (designTurned).
    const put = await fetch(`${srv.url}/v1/labelmaker/templates/lines-38x90`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.editor}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: JSON.stringify({ stock: 'brother-ql-38x90', lines: [{ field: 'name' }, { field: 'path' }], codes: ['qr'], codePosition: 'left', footer: '' }),
    });
    expect(put.status, await put.clone().text()).toBe(201);
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await expect.poll(() => page.getByLabel('Open a saved design').locator('option').allTextContents()).toContain('lines-38x90');
    await page.getByLabel('Open a saved design').selectOption('lines-38x90');
    await expect.poll(() => page.locator('#cd-stage .cd-box').count()).toBe(3);
    expect(await page.locator('#cd-live').textContent()).toContain('It was a design of text lines');
    await expect.poll(async () => `${await page.locator('#cd-preview-status').textContent()} ${await page.locator('#cd-problem').textContent()}`, { timeout: 15_000 }).toMatch(/^The label as the service draws it/);
    await expect.poll(() => page.locator('#cd-img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    // Landscape, as the service measures boxes on this stock: 83.9 mm along, 34.9 mm across (413 dots, down to 0.1 mm).
    expect(await page.locator('#cd-scale').textContent()).toContain('printable area 83.9 × 34.9 mm');
    await boxNamed(page, 'Code').click();
    expect(await placeOf(page)).toEqual({ x: 0, y: 0, width: 34.9, height: 34.9 });
    // The preview (a portrait PNG) is turned back: the code's ink is under the Code box, the title's under the Title box.
    await boxNamed(page, 'Title').click(); // the selection's outline off the code
    const darkIn = async (name: string) => {
      const box = (await boxNamed(page, name).boundingBox())!;
      const shot = await page.screenshot({ clip: { x: box.x + 3, y: box.y + 3, width: box.width - 6, height: box.height - 6 } });
      const img = await loadImage(shot);
      const g = createCanvas(img.width, img.height).getContext('2d');
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, img.width, img.height).data;
      let dark = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i]! + data[i + 1]! + data[i + 2]! < 200) dark++;
      return dark / (data.length / 4);
    };
    expect(await darkIn('Code')).toBeGreaterThan(0.3);
    expect(await darkIn('Title')).toBeGreaterThan(0.03);
    await page.screenshot({ path: join(SHOTS, 'desktop-element-designer-lines-turned.png'), fullPage: true });
    // Saved: a design of elements now, in boxes.
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-saved:has-text("Saved lines-38x90."), #cd-error:not([hidden])').first().waitFor({ timeout: 60_000 });
    expect(await page.locator('#cd-error').isHidden(), (await page.locator('#cd-error').textContent()) ?? '').toBe(true);
    const saved = (await (await fetch(`${srv.url}/v1/labelmaker/templates/lines-38x90`, { headers: { Authorization: `Bearer ${srv.tokens.editor}` } })).json()) as { elements?: { type: string; box?: unknown }[] };
    expect(saved.elements?.map((e) => [e.type, Boolean(e.box)])).toEqual([['text', true], ['text', true], ['code', true]]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 120_000);

  it('saves over the version opened, says readably when someone else changed it (412), opens theirs, and deletes it', async () => {
    const url = `${srv.url}/v1/labelmaker/templates/shelf-edit`;
    const auth = { Authorization: `Bearer ${srv.tokens.editor}` };
    const put = (elements: object[], precondition: Record<string, string>) =>
      fetch(url, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json', ...precondition }, body: JSON.stringify({ stock: 'brother-ql-62x29', elements }) });
    const text = (t: string) => ({ type: 'text', box: { x: 1, y: 1, width: 40, height: 10 }, text: t });
    expect((await put([text('Shelf {path}')], { 'If-None-Match': '*' })).status).toBe(201);
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await expect.poll(() => page.getByLabel('Open a saved design').locator('option').allTextContents()).toContain('shelf-edit');
    await page.getByLabel('Open a saved design').selectOption('shelf-edit');
    await boxNamed(page, 'Title').click();
    const field = page.getByLabel('Text', { exact: true });
    expect(await field.inputValue()).toBe('Shelf {path}');
    // Saved without a size range: the form shows the service's default (7 to 36 pt), and an edit keeps it.
    expect([await page.getByLabel('Smallest size (pt)').inputValue(), await page.getByLabel('Largest size (pt)').inputValue()]).toEqual(['7', '36']);
    // Changed and saved: replaced at the version opened; the Template list offers it.
    const before = (await fetch(url, { headers: auth })).headers.get('etag');
    await field.fill('Shelf: {path}');
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-saved', { hasText: 'Saved shelf-edit.' }).waitFor();
    const saved = await fetch(url, { headers: auth });
    expect(saved.headers.get('etag')).not.toBe(before);
    expect(((await saved.json()) as { elements: { text: string; pt?: object }[] }).elements[0]).toMatchObject({ text: 'Shelf: {path}', pt: { min: 7, max: 36 } });
    await expect.poll(() => page.locator('#template option').allTextContents()).toContain('shelf-edit');
    // Someone else saves meanwhile: this save is a 412, said as a sentence, and theirs is kept.
    expect((await put([text('Their shelf {path}')], { 'If-Match': saved.headers.get('etag')! })).status).toBe(200);
    await field.fill('Mine {path}');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url() === url && r.request().method() === 'PUT'), page.getByRole('button', { name: 'Save design' }).click()]);
    expect(refused.status()).toBe(412);
    await page.locator('#cd-error', { hasText: 'Someone else changed shelf-edit since you opened it, so it was not saved.' }).waitFor();
    expect(((await (await fetch(url, { headers: auth })).json()) as { elements: { text: string }[] }).elements[0]!.text).toBe('Their shelf {path}');
    expect(await axeSerious(page), 'designer after a 412').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-element-designer-412.png'), fullPage: true });
    await page.getByRole('button', { name: 'Open their version' }).click();
    await boxNamed(page, 'Title').click();
    await expect.poll(() => field.inputValue()).toBe('Their shelf {path}');
    expect(await page.locator('#cd-error').isHidden()).toBe(true);
    // A stock's name is not a design's: the service's reason, in words.
    await page.getByLabel('Design name').fill('brother-ql-62x29');
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-error:not([hidden])').waitFor();
    expect(await page.locator('#cd-error').textContent()).toMatch(/brother-ql-62x29/);
    // Delete it (once the person confirms): gone from the service, the lists and the canvas.
    await page.getByLabel('Open a saved design').selectOption('shelf-edit');
    await expect.poll(() => page.getByLabel('Design name').inputValue()).toBe('shelf-edit');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete this design' }).click();
    await page.locator('#cd-saved', { hasText: 'Deleted shelf-edit.' }).waitFor();
    expect((await fetch(url, { headers: auth })).status).toBe(404);
    await expect.poll(() => page.getByLabel('Open a saved design').locator('option').allTextContents()).not.toContain('shelf-edit');
    await expect.poll(() => page.locator('#template option').allTextContents()).not.toContain('shelf-edit');
    expect(await page.locator('#cd-stage .cd-box').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete this design' }).isHidden()).toBe(true);
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    // Chromium logs the refused saves itself (the 412 and the stock name's refusal); nothing else.
    expect(tab.consoleErrors.filter((e) => !/status of (412|4\d\d)/.test(e))).toEqual([]);
    await tab.close();
  }, 120_000);

  it('an image the service refuses is said in words, naming the image, and the label comes back without it', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await page.getByRole('button', { name: 'Add text' }).click();
    await page.locator('#cd-preview-status', { hasText: 'The label as the service draws it' }).waitFor();
    // Neither PNG nor SVG: the service's 422, said as the image, not as a JSON pointer.
    await page.locator('#cd-add-image').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('GIF89a this is not a PNG') });
    await page.locator('#cd-problem:not([hidden])').waitFor();
    expect(await page.locator('#cd-problem').textContent()).toMatch(/^The image: /);
    expect(await page.locator('#cd-problem').textContent()).not.toContain('/design');
    expect(await axeSerious(page), 'designer with a refused image, phone').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'phone-element-designer-image-refused.png'), fullPage: true });
    // Undone: drawn again.
    await page.getByRole('button', { name: 'Undo' }).click();
    await page.locator('#cd-preview-status', { hasText: 'The label as the service draws it' }).waitFor();
    expect(await page.locator('#cd-problem').isHidden()).toBe(true);
    expect(tab.consoleErrors.filter((e) => !/status of 422/.test(e))).toEqual([]);
    await tab.close();
  }, 120_000);

  it('previews with samples that are not stored: the longest name (shortened, said in words), a Hebrew name, a 12-digit asset id', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await page.getByRole('button', { name: 'Add text' }).click();
    await boxNamed(page, 'Title').waitFor();
    const drawn: { sample?: { kind: string; name: string; assetId?: string }; record?: unknown }[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith(PREVIEW_PATH) && r.method() === 'POST') drawn.push(JSON.parse(r.postData() ?? '{}'));
    });
    for (const [choice, kind, said] of [
      ['A sample with the longest name (200 characters)', 'item', /^The label is drawn for a sample that is not stored: Heavy-duty cordless/],
      ['A sample with a Hebrew name', 'location', /^The label is drawn for a sample that is not stored: מדף עליון 3\.$/],
      ['A sample asset with a 12-digit asset id', 'asset', /\(asset 999-999-999-999\)\.$/],
    ] as const) {
      const answered = nextPreview(page);
      await page.getByLabel('Preview with').selectOption({ label: choice });
      const res = await answered;
      expect(res.headers()['content-type']).toBe('image/png');
      expect(drawn.at(-1)!.sample!.kind).toBe(kind);
      expect(drawn.at(-1)!.record).toBeUndefined();
      expect(await page.locator('#cd-sample').textContent()).toMatch(said);
      if (kind === 'item') {
        expect(drawn.at(-1)!.sample!.name).toHaveLength(200);
        await expect.poll(() => page.locator('#cd-preview-status').textContent()).toMatch(/^Drawn, not quite as asked: Some text did not fit/);
      }
    }
    // Back to the record shown: the preview asks for it by reference again.
    const back = nextPreview(page);
    await page.getByLabel('Preview with').selectOption({ label: 'The record shown' });
    await back;
    expect(drawn.at(-1)!.record).toBeDefined();
    expect(drawn.at(-1)!.sample).toBeUndefined();
    expect(await axeSerious(page), 'element designer with a sample, phone').toEqual([]);
    await page.locator('#canvas-designer').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'phone-element-designer-sample.png'), fullPage: true });
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 120_000);

  it('fits a 102 mm label on a phone with its scale said, and moves an element by keyboard there', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, PHONE);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await openDesigner(page);
    await page.getByLabel('Printed on').selectOption('brother-ql-102x51');
    await page.getByRole('button', { name: 'Add text' }).click();
    await expect.poll(() => page.locator('#cd-scale').textContent()).toMatch(/shown at \d+ % of true size/);
    const stage = (await page.locator('#cd-stage').boundingBox())!;
    expect(stage.width).toBeLessThanOrEqual(PHONE.width);
    await boxNamed(page, 'Title').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('#cd-live').textContent()).toMatch(/^Title moved to 2 mm, 2\.5 mm$/);
    expect(await axeSerious(page), 'element designer, phone').toEqual([]);
    await page.locator('#canvas-designer').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'phone-element-designer.png'), fullPage: true });
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 120_000);
});
