/**
 * The status poller (issue 31) with real parts: a real SQLite file and a real PostgreSQL
 * schema as the store, CUPS's ippeveprinter with real label media (its /media form), the
 * Brother QL SNMP peer, the Zebra peer, a folder printer (cannot tell: unknown) and a port
 * that never answers. What is held: a change at the printer is in the store within one
 * interval, onStatusChange fires once per change (not per round), a hung printer does not
 * delay the others' readings, and two pollers on one PostgreSQL database (two instances)
 * do not both read the same printer in one interval.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { printerDrivers } from '../../src/printing/printer-drivers.js';
import { readConcurrency, startStatusPoller, statusChanged, type StatusPoller } from '../../src/printing/poller.js';
import type { PrinterStatus } from '../../src/printing/status/types.js';
import { openStore, type PrinterSettings, type Store } from '../../src/records/index.js';
import { QL_ERROR_1, startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { startZebraPeer, type ZebraPeer } from '../helpers/zebra-peer.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';

const silent = { debug() {}, warn() {}, error() {} };
const printer = (name: string, deviceUri: string): PrinterSettings => ({ name, title: name, deviceUri, model: null, locationId: null, stocks: [], red: false, isDefault: false, source: 'api' });
const stateOf = async (store: Store, name: string) => (await store.printers.get(name))?.status as PrinterStatus | null | undefined;

describe('statusChanged and readConcurrency', () => {
  const base: PrinterStatus = { state: 'ready', reasons: [], message: 'Ready.', media: null, checkedAt: '2026-11-28T10:00:00.000Z' };
  it('a change is the state, the reasons or the media; not the words or the time', () => {
    expect(statusChanged(null, base)).toBe(true);
    expect(statusChanged(base, { ...base, message: 'Ready!', checkedAt: '2026-11-28T10:00:30.000Z' })).toBe(false);
    expect(statusChanged(base, { ...base, state: 'attention', reasons: ['media-empty'] })).toBe(true);
    expect(statusChanged(base, { ...base, media: { description: '62 mm', widthMm: 62, lengthMm: 0, red: false, stocks: ['brother-ql-62'] } })).toBe(true);
  });
  it('reads enough printers at once that 100 hung ones still fit in a 30 s round', () => {
    const n = readConcurrency(100, 5000, 30_000);
    expect(Math.ceil(100 / n) * 5000).toBeLessThanOrEqual(30_000);
    expect(readConcurrency(3, 5000, 30_000)).toBe(4);
  });
});

describe('poller on SQLite with four printers of different kinds', () => {
  const INTERVAL = 2500;
  const ATTRIBUTES = fileURLToPath(new URL('../fixtures/ippeve/ql-820nwb.conf', import.meta.url));
  const DK22205 = { size0: 'roll_dk22205-continuous_62x30480mm', type0: 'continuous', level0: '100' };
  let dir: string;
  let store: Store;
  let ipp: IppEvePrinter;
  let ql: QlPeer;
  let zebra: ZebraPeer;
  let poller: StatusPoller | undefined;
  const changes: { name: string; state: string; reasons: string[] }[] = [];
  const changesOf = (name: string) => changes.filter((c) => c.name === name).map((c) => `${c.state}:${c.reasons.join(',')}`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lm-poller-'));
    store = await openStore(`sqlite:${join(dir, 'lm.db')}`);
    [ipp, ql, zebra] = await Promise.all([startIppEvePrinter({ attributesFile: ATTRIBUTES, name: 'QL820' }), startQlPeer(), startZebraPeer()]);
    for (const p of [printer('ipp', ipp.uri), printer('ql', ql.uri), printer('zebra', zebra.uri), printer('folder', pathToFileURL(join(dir, 'spool')).href)]) await store.printers.put(p);
  }, 60_000);
  afterAll(async () => {
    await poller?.stop();
    await Promise.all([ipp?.stop(), ql?.close(), zebra?.close()]);
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads every printer, then shows each change within one interval, onStatusChange once per change', async () => {
    poller = startStatusPoller({
      printers: store.printers,
      drivers: printerDrivers(),
      intervalMs: INTERVAL,
      logger: silent,
      onStatusChange: (name, s) => void changes.push({ name, state: s.state, reasons: s.reasons }),
    });
    await expect.poll(async () => (await store.printers.list()).map((p) => [p.name, (p.status as PrinterStatus | null)?.state]), { timeout: INTERVAL * 2 }).toEqual([
      ['folder', 'unknown'],
      ['ipp', 'ready'],
      ['ql', 'ready'],
      ['zebra', 'ready'],
    ]);
    expect((await stateOf(store, 'ql'))?.media?.stocks).toEqual(['brother-ql-62']);
    expect((await stateOf(store, 'ipp'))?.media?.stocks).toEqual(['brother-ql-62', 'brother-ql-62-red']) // IPP does not say whether the 62 mm roll is the red/black one;

    // The three printers change at once: out of labels everywhere.
    const changedAt = Date.now();
    await ipp.setMedia({ ...DK22205, level0: '0' });
    ql.set({ errors1: QL_ERROR_1.noMedia, media: 'none' });
    zebra.set({ paperOut: true });
    for (const name of ['ipp', 'ql', 'zebra']) {
      await expect.poll(async () => (await stateOf(store, name))?.reasons, { timeout: INTERVAL + 1500, interval: 100 }).toContain('media-empty');
    }
    expect(Date.now() - changedAt).toBeLessThan(INTERVAL + 1500);

    // Roll change at the IPP printer: a die-cut 62x29 roll.
    await ipp.setMedia({ size0: 'om_dk11209_62x29mm', type0: 'labels', level0: '100' });
    await expect.poll(async () => (await stateOf(store, 'ipp'))?.state, { timeout: INTERVAL + 1500, interval: 100 }).toBe('ready');
    expect((await stateOf(store, 'ipp'))?.media?.stocks).toContain('brother-ql-62x29');

    // Two more rounds with nothing changed: no more calls.
    await new Promise((r) => setTimeout(r, INTERVAL * 2));
    expect(changesOf('folder')).toEqual(['unknown:']);
    expect(changesOf('ql')).toEqual(['ready:', 'attention:media-empty']);
    expect(changesOf('zebra')).toEqual(['ready:', 'attention:media-empty']);
    expect(changesOf('ipp')).toEqual(['ready:', 'attention:media-empty', 'ready:']);
  }, 60_000);
});

describe('a hung printer beside working ones', () => {
  let dir: string;
  let store: Store;
  let hung: TcpSink;
  let peers: QlPeer[];
  afterEach(async () => {
    await Promise.all([hung?.close(), ...(peers ?? []).map((p) => p.close())]);
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the others' readings are stored at once, not after the hung one's time-out", async () => {
    dir = mkdtempSync(join(tmpdir(), 'lm-poller-hung-'));
    store = await openStore(`sqlite:${join(dir, 'lm.db')}`);
    hung = await startTcpSink('hang');
    peers = await Promise.all(Array.from({ length: 6 }, () => startQlPeer()));
    // First by name: a lane that is stuck on it must not hold the rest.
    await store.printers.put(printer('a-hung', `ipp://127.0.0.1:${hung.port}/ipp/print`));
    for (const [i, p] of peers.entries()) await store.printers.put(printer(`ql-${i}`, p.uri));
    const started = Date.now();
    const poller = startStatusPoller({ printers: store.printers, drivers: printerDrivers(), intervalMs: 60_000, timeoutMs: 3000, logger: silent });
    await expect.poll(async () => (await store.printers.list()).filter((p) => (p.status as PrinterStatus | null)?.state === 'ready').length, { timeout: 2000, interval: 50 }).toBe(6);
    const others = Date.now() - started;
    await poller.pollNow(); // the first round ends when the hung one gives up
    const round = Date.now() - started;
    await poller.stop();
    expect(others).toBeLessThan(1500);
    expect(round).toBeGreaterThanOrEqual(3000);
    expect((await stateOf(store, 'a-hung'))?.state).toMatch(/^(offline|unknown)$/);
  }, 30_000);
});

describe('two pollers on one PostgreSQL database (two instances)', () => {
  const INTERVAL = 3000;
  let schema: TestSchema;
  let stores: Store[];
  let peers: QlPeer[];
  let pollers: StatusPoller[] = [];
  beforeAll(async () => {
    schema = await createTestSchema();
    stores = [await openStore(schema.url), await openStore(schema.url)];
    peers = await Promise.all(Array.from({ length: 8 }, () => startQlPeer()));
    for (const [i, p] of peers.entries()) await stores[0]!.printers.put(printer(`ql-${i}`, p.uri));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
    await Promise.all((peers ?? []).map((p) => p.close()));
    for (const s of stores ?? []) await s.close();
    await schema?.drop();
  });

  it('each printer is read once per interval, by one of them', async () => {
    const started = Date.now();
    pollers = stores.map((store) => startStatusPoller({ printers: store.printers, drivers: printerDrivers(), intervalMs: INTERVAL, logger: silent }));
    // Both first rounds run at the same moment.
    await expect.poll(async () => (await stores[1]!.printers.list()).filter((p) => p.status).length, { timeout: 2000, interval: 50 }).toBe(8);
    await new Promise((r) => setTimeout(r, Math.max(0, INTERVAL / 2 - (Date.now() - started))));
    expect(peers.map((p) => p.snmpRequests)).toEqual(Array(8).fill(1));
    // Second rounds, again at about the same moment.
    await new Promise((r) => setTimeout(r, INTERVAL));
    expect(peers.map((p) => p.snmpRequests)).toEqual(Array(8).fill(2));
  }, 30_000);
});
