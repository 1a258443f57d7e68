/**
 * The dispatcher with reach (printing/reach.ts), over a real SQLite store and a real ZPL
 * driver: a printer this instance reached at its probe goes away (its port now refuses);
 * another instance still reaches it. The delivery that could not connect gives its attempt
 * back, this instance's reach turns false at once (stored too), and it claims the job no
 * more: it is left, due, for the instance that reaches the printer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { startPrintDispatcher, type PrintDispatcher } from '../../src/printing/dispatcher.js';
import { printerDrivers } from '../../src/printing/printer-drivers.js';
import { createPrintQueue } from '../../src/printing/queue.js';
import { printerReach } from '../../src/printing/reach.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { PrinterSettings, Store } from '../../src/records/types.js';
import { startTcpSink } from '../helpers/tcp-sink.js';
import { assetDoc } from './fixtures.js';

let store: Store | undefined;
let dispatcher: PrintDispatcher | undefined;
let dir: string | undefined;
afterEach(async () => {
  await dispatcher?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a delivery that cannot connect, where another instance reaches the printer, costs no attempt and is left to that instance', async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-dispatch-reach-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  const sink = await startTcpSink('accept');
  const uri = `socket://127.0.0.1:${sink.port}?lang=zpl`;
  const zebra = (await store.printers.put({ name: 'zebra', title: 'Zebra', deviceUri: uri, model: null, locationId: null, stocks: [], red: false, isDefault: true, source: 'api' }))!;
  const logger = pino({ level: 'silent' });
  const reach = printerReach({ printers: store.printers, instance: 'site-a', maxAgeMs: 60_000, logger });
  expect(await reach.probe(zebra)).toBe(true);
  const now = new Date().toISOString();
  expect(await store.printers.saveReach('zebra', uri, 'site-b', true, now, '2000-01-01T00:00:00.000Z')).toBe(2);
  await sink.close(); // gone from here: connections refused

  dispatcher = startPrintDispatcher({ jobs: store.printJobs, printers: store.printers, drivers: printerDrivers(), logger, timeoutMs: 2000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50, reach });
  const queue = createPrintQueue({ jobs: store.printJobs, printers: store.printers, printer: 'zebra', maxAttempts: 3, onSubmit: () => dispatcher!.nudge() });
  const doc = assetDoc('zebra-2x1-203dpi');
  const { job } = await queue.submit({ png: doc.png, stockName: doc.stockName, title: doc.title, fields: doc.fields, tokenId: 't1', printer: 'zebra' });

  let after = await store.printJobs.get(job.id);
  for (let i = 0; i < 100 && !after?.lastError; i++) {
    await sleep(20);
    after = await store.printJobs.get(job.id);
  }
  expect(after).toMatchObject({ state: 'queued', attempts: 0, heldReason: null });
  expect(after!.lastError).toMatch(/ECONNREFUSED/);
  expect(reach.reaches(zebra)).toBe(false);
  expect((await store.printers.get('zebra'))!.reach).toEqual({ probed: 2, reaching: 1 });
  // Due now, yet not claimed again here: this instance no longer reaches the printer.
  await sleep(500);
  expect(await store.printJobs.get(job.id)).toMatchObject({ state: 'queued', attempts: 0 });
});

it('a printer moved by another instance just after this one read the fleet: its job prints at the new address, never the old', async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-dispatch-moved-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  const [oldSink, newSink] = [await startTcpSink('accept'), await startTcpSink('accept')];
  const settings: Omit<PrinterSettings, 'deviceUri'> = { name: 'zebra', title: 'Zebra', model: null, locationId: null, stocks: [], red: false, isDefault: true, source: 'api' };
  await store.printers.put({ ...settings, deviceUri: `socket://127.0.0.1:${oldSink.port}?lang=zpl` });
  const queue = createPrintQueue({ jobs: store.printJobs, printers: store.printers, printer: 'zebra', maxAttempts: 3 });
  const doc = assetDoc('zebra-2x1-203dpi');
  const { job } = await queue.submit({ png: doc.png, stockName: doc.stockName, title: doc.title, fields: doc.fields, tokenId: 't1', printer: 'zebra' });
  // The other instance's move lands between this one's read of the fleet and its claim.
  const real = store.printers;
  let moved = false;
  const printers = {
    list: async () => {
      const fleet = await real.list();
      if (!moved) {
        moved = true;
        await real.put({ ...settings, deviceUri: `socket://127.0.0.1:${newSink.port}?lang=zpl` });
      }
      return fleet;
    },
  };
  const logger = pino({ level: 'silent' });
  dispatcher = startPrintDispatcher({ jobs: store.printJobs, printers, drivers: printerDrivers(), logger, timeoutMs: 2000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 60_000 });
  let after = await store.printJobs.get(job.id);
  for (let i = 0; i < 200 && after?.state !== 'printed'; i++) {
    await sleep(20);
    after = await store.printJobs.get(job.id);
  }
  expect(moved).toBe(true);
  expect(after).toMatchObject({ state: 'printed', attempts: 1, lastError: null, possibleDuplicate: false });
  for (let i = 0; i < 100 && newSink.received().length === 0; i++) await sleep(20);
  expect({ old: oldSink.received().length, new: newSink.received().length }).toEqual({ old: 0, new: 1 });
  await Promise.all([oldSink.close(), newSink.close()]);
});
