/**
 * The printer picker with printers whose status comes from their own protocols (issue 31),
 * in real Chromium against a real server over a real SQLite file, its poller reading every
 * second: "workbench", a Brother QL peer on Shelf 3 (SNMP) with 62 × 29 mm labels (DK-11209);
 * "office", an ippeveprinter with a QL-820's media attributes and the 62 mm continuous roll
 * (DK-22205), the default; "shipping", a Zebra at a port where nothing listens. The studio
 * shows each one's state and loaded roll in words, preselects the QL for the drill's 62 × 29 mm
 * label, warns before printing on the office printer (wrong roll) or the Zebra (not
 * answering), and a job printed on the office printer anyway is held with its reason, in the
 * job box and the job list, and never sent. At phone and desk widths, with axe; screenshots
 * go to out/studio/.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { launchBrowser } from '../helpers/browser.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { refusedPort } from '../helpers/tcp-sink.js';
import { axeSerious, buildStudio, foreignRequests, openStudio, searchFor, signIn } from './page.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SHOTS = join(ROOT, 'out', 'studio');
const ATTRIBUTES = join(ROOT, 'test/fixtures/ippeve/ql-820nwb.conf');
const PHONE = { width: 375, height: 812 };
const DESK = { width: 1280, height: 900 };
const WRONG_ROLL = 'Office QL-820 has 62 mm continuous roll (DK-22205) loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).';

let srv: TestServer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let ql: QlPeer;
let office: IppEvePrinter;

const readPrinter = async (name: string) =>
  (await (await fetch(`${srv.url}/v1/labelmaker/printers/${name}`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } })).json()) as { status: { state: string; media: { description: string } | null } | null };

beforeAll(async () => {
  buildStudio();
  mkdirSync(SHOTS, { recursive: true });
  let closed: number;
  [ql, office, closed, browser] = await Promise.all([
    startQlPeer({ media: 'die-cut', widthMm: 62, lengthMm: 29 }),
    startIppEvePrinter({ attributesFile: ATTRIBUTES, name: 'Office' }),
    refusedPort(),
    launchBrowser(),
  ]);
  srv = await startTestServer({ PRINTER_STATUS_INTERVAL_S: '1' });
  const put = async (name: string, body: Record<string, unknown>) => {
    const res = await fetch(`${srv.url}/v1/labelmaker/printers/${name}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${srv.tokens.admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.text()).toBe(201);
  };
  await put('office', { title: 'Office QL-820', deviceUri: office.uri, model: 'QL-820NWB', default: true });
  await put('workbench', { title: 'Workbench QL-820', deviceUri: ql.uri, model: 'QL-820NWB', locationId: 'shelf-3' });
  await put('shipping', { title: 'Shipping Zebra', deviceUri: `socket://127.0.0.1:${closed}?lang=zpl`, stocks: ['zebra-4x6-203dpi'] });
  // The poller has read all three before the studio is opened.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [o, w, s] = await Promise.all(['office', 'workbench', 'shipping'].map(readPrinter));
    if (o!.status?.state === 'ready' && w!.status?.media && s!.status?.state === 'offline') break;
    if (Date.now() > deadline) throw new Error(`printers not read: ${JSON.stringify([o, w, s])}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(async () => {
  await Promise.all([browser?.close(), srv?.stop()]);
  await Promise.all([ql?.close(), office?.stop()]);
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

describe('the printer picker with printers read over IPP, SNMP and a dead socket', () => {
  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESK]] as const) {
    it(`says each printer's state and roll, preselects the QL with the labels, and warns before a print the chosen one cannot do (${name})`, async () => {
      const tab = await openStudio(browser.context, `${srv.url}/`, viewport);
      const { page } = tab;
      await openDrill(page);
      // The drill's 62 × 29 mm label: the QL on Shelf 3 has those labels loaded.
      await expect.poll(() => chosen(page)).toBe('workbench');
      expect(await page.locator('#printer-warning').isHidden()).toBe(true);
      expect(await page.locator('#printer-status').textContent()).toBe('Workbench QL-820: ready · 62 × 29 mm labels (DK-11209) loaded.');
      const options = await page.locator('#printer option').allTextContents();
      expect(options).toEqual(['Office QL-820 (cannot print this now)', 'Shipping Zebra (cannot print this now)', 'Workbench QL-820 (suggested)']);

      await page.getByText('All printers (3)').click();
      const row = (title: string) => page.locator('#printers-list li', { hasText: title });
      await expect.poll(() => page.locator('#printers-list li').count()).toBe(3);
      expect(await row('Workbench QL-820').locator('.badge').textContent()).toBe('ready');
      expect(await row('Workbench QL-820').textContent()).toContain('62 × 29 mm labels (DK-11209) loaded · suggested for this label');
      expect(await row('Office QL-820').locator('.badge').textContent()).toBe('ready');
      expect(await row('Office QL-820').textContent()).toContain(`62 mm continuous roll (DK-22205) loaded`);
      expect(await row('Office QL-820').textContent()).toContain(`Cannot print this label now: ${WRONG_ROLL}`);
      expect(await row('Shipping Zebra').locator('.badge').textContent()).toBe('not answering');
      expect(await row('Shipping Zebra').textContent()).toMatch(/Cannot print this label now: (Shipping Zebra is not answering\.|No Labelmaker instance can reach Shipping Zebra\.)/);

      // The office printer for these labels: warned, in the service's words.
      await page.getByLabel('Printer', { exact: true }).selectOption('office');
      const warning = page.locator('#printer-warning');
      await warning.waitFor();
      expect(await warning.textContent()).toBe(`Office QL-820 cannot print this label now: ${WRONG_ROLL} Printed there, the job waits until that changes. Choose a printer that can print it, or fix this one first.`);
      expect(await page.locator('#printer-status').textContent()).toBe('Office QL-820: ready · 62 mm continuous roll (DK-22205) loaded.');
      // The Zebra: not answering.
      await page.getByLabel('Printer', { exact: true }).selectOption('shipping');
      await expect.poll(() => warning.textContent()).toMatch(/^Shipping Zebra cannot print this label now: .*(not answering|can reach Shipping Zebra)\./);
      expect(await page.locator('#printer-status').textContent()).toMatch(/^Shipping Zebra: not answering/);
      await warning.scrollIntoViewIfNeeded();
      expect(await axeSerious(page), `picker, ${name}`).toEqual([]);
      await page.screenshot({ path: join(SHOTS, `${name}-live-printers.png`), fullPage: true });
      expect(foreignRequests(tab.requests, srv.url)).toEqual([]);
      expect(tab.consoleErrors).toEqual([]);
      await tab.close();
    }, 90_000);
  }

  it('a job printed on the office printer anyway is held with its reason in the job box and the job list, and is not sent', async () => {
    const tab = await openStudio(browser.context, `${srv.url}/`, DESK);
    const { page } = tab;
    await openDrill(page);
    await expect.poll(() => chosen(page)).toBe('workbench');
    await page.getByLabel('Printer', { exact: true }).selectOption('office');
    const before = (await office.documents()).length;
    await page.locator('#print').click();
    await expect.poll(() => page.locator('#job strong.state').getAttribute('data-state')).toBe('held');
    expect(await page.locator('#job .held-reason').textContent()).toBe(`Held, not printing: ${WRONG_ROLL}`);
    expect(await page.locator('#job').textContent()).toContain('on Office QL-820');
    const heldRow = page.locator('#jobs-list li[data-state="held"]').first();
    await heldRow.waitFor();
    expect(await heldRow.locator('.held-reason').textContent()).toBe(`Held, not printing: ${WRONG_ROLL}`);
    await page.locator('#job').scrollIntoViewIfNeeded();
    expect(await axeSerious(page), 'held job').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'desktop-live-held-job.png'), fullPage: true });
    // Several poller readings later: still held, nothing sent.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await office.documents()).length).toBe(before);
    expect(await page.locator('#job strong.state').getAttribute('data-state')).toBe('held');
    await page.locator('#job').getByRole('button', { name: /^Cancel printing/ }).click();
    await expect.poll(() => page.locator('#job strong.state').getAttribute('data-state')).toBe('cancelled');
    expect(tab.consoleErrors).toEqual([]);
    await tab.close();
  }, 90_000);
});
