/**
 * The studio's template designer offers the deployment's custom fields (listFields) in real
 * Chromium: the Field list shows the declared fields, Insert field puts one's placeholder into a
 * custom line, the live preview draws the record's value, and the template saves with it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const PREVIEW_PATH = '/v1/labelmaker/template-previews';
let dir: string;
let srv: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;

beforeAll(async () => {
  buildStudio();
  dir = mkdtempSync(join(tmpdir(), 'lm-studio-fields-'));
  const file = join(dir, 'fields.json');
  writeFileSync(file, JSON.stringify({ fields: [{ name: 'best_before', title: 'Best before', type: 'date' }, { name: 'quantity', title: 'Quantity', type: 'number' }] }));
  [srv, browser] = await Promise.all([startTestServer({ FIELDS_FILE: file }), launchBrowser()]);
  await srv.store.records.upsertMany([{ kind: 'item', id: 'yoghurt', name: 'Yoghurt', description: '', parentId: 'shelf-3', assetId: null, fields: { best_before: '2026-12-01', quantity: 4 } }]);
}, 120_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('studio: the designer offers the declared fields', () => {
  it('lists them, inserts a date field with its format into a text element, previews the value and saves the design', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`);
    const { page } = tab;
    await signIn(page, srv.tokens.editor);
    await searchFor(page, 'yoghurt');
    await page.locator('#results .record').first().click();
    await page.locator('#label-size').filter({ hasText: 'mm' }).waitFor();
    await page.getByText('Design a label: place elements').click();
    await page.getByRole('button', { name: 'Add text' }).click();
    const text = page.getByLabel('Text', { exact: true });
    await text.fill('Best before: ');
    const field = page.getByLabel('Custom field', { exact: true });
    expect(await field.locator('option').allTextContents()).toEqual(['Best before ({best_before|date:medium})', 'Quantity ({quantity|number})']);
    await field.selectOption('best_before');
    await text.evaluate((e: HTMLInputElement) => e.setSelectionRange(e.value.length, e.value.length));
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(PREVIEW_PATH) && r.request().method() === 'POST' && JSON.stringify(r.request().postDataJSON()).includes('{best_before|date:medium}'), { timeout: 10_000 }),
      page.getByRole('button', { name: 'Insert the field' }).click(),
    ]);
    // The preview of the design with the field: drawn (no 422).
    expect(res.status()).toBe(200);
    const design = (res.request().postDataJSON() as { design: { elements: { type: string; text?: string }[] } }).design;
    expect(design.elements.at(-1)).toMatchObject({ type: 'text', text: 'Best before: {best_before|date:medium}' });
    expect(await axeSerious(page), 'designer with the field list').toEqual([]);
    await page.getByLabel('Design name').fill('pantry');
    await page.getByRole('button', { name: 'Save design' }).click();
    await page.locator('#cd-saved', { hasText: 'Saved pantry.' }).waitFor();
    const saved = await (await fetch(`${srv.url}/v1/labelmaker/templates/pantry`, { headers: { Authorization: `Bearer ${srv.tokens.editor}` } })).json();
    expect(saved.elements.at(-1)).toMatchObject({ type: 'text', text: 'Best before: {best_before|date:medium}' });
    expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 90_000);

  it('without declared fields the Field list is not shown', async () => {
    const plain = await startTestServer();
    try {
      const tab = await openStudio(browser.context, `${plain.url}/`);
      await signIn(tab.page, plain.tokens.editor);
      await searchFor(tab.page, 'drill');
      await tab.page.locator('#results .record').first().click();
      await tab.page.getByText('Design a label: place elements').click();
      await tab.page.getByRole('button', { name: 'Add text' }).click();
      expect(await tab.page.locator('#cd-fields').isHidden()).toBe(true);
      await tab.close();
    } finally {
      await plain.stop();
    }
  }, 90_000);
});
