/**
 * The printer fleet scenario (issue 31), from the client's side of the wire, run against any
 * setup: one in-process server over SQLite or PostgreSQL, or several server processes over one
 * PostgreSQL database (test/integration/printer-fleet*.test.ts). Real printers at once: two
 * ippeveprinters (one with the QL-820's media attributes, whose roll is changed through its
 * /media form; one plain), a ZPL peer, a folder (PRINTER_URI: the printer `default`), and a
 * dead printer (a socket that takes the connection and never reads). Requests go to the
 * setup's instances in turn, so with several instances a job is accepted by one, its status
 * read through another, its roll change noticed by a third. Status readings are taken through
 * refreshPrinterStatus (what the poller does: read, store, look at the holds again).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIppEvePrinter, type IppEvePrinter } from './ippeveprinter.js';
import { documentedResponse, problemErrors, schemaErrors } from './spec.js';
import { startTcpSink, refusedPort, type TcpSink } from './tcp-sink.js';
import { startZebraPeer, type ZebraPeer } from './zebra-peer.js';

const ATTRIBUTES = join(import.meta.dirname, '../fixtures/ippeve/ql-820nwb.conf');
const DK22205 = { size0: 'roll_dk22205-continuous_62x30480mm', type0: 'continuous', level0: '100' };
const DK11209 = { size0: 'om_dk11209_62x29mm', type0: 'labels', level0: '100' };
const DRILL = '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** A running setup: its instances' base URLs (one or more, sharing one store) and tokens. */
export interface Fleet {
  urls: string[];
  tokens: { print: string; printOnly: string; admin: string };
  /** One instance's Prometheus text (each instance reads the queue gauges from the shared store). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** Runs the scenario against the setup `start` makes, given the service's environment. */
export function fleetScenario(title: string, start: (env: Record<string, string>) => Promise<Fleet>): void {
  describe(title, () => {
    let fleet: Fleet;
    let bench: IppEvePrinter;
    let lab: IppEvePrinter;
    let zebra: ZebraPeer;
    let dead: TcpSink;
    let late: ZebraPeer | undefined;
    let latePort: number;
    let folder: string;
    let turn = 0;

    const api = async (path: string, opts: { method?: string; body?: unknown; token?: string } = {}) => {
      const base = fleet.urls[turn++ % fleet.urls.length]!;
      const res = await fetch(base + path, {
        method: opts.method ?? 'GET',
        headers: { Authorization: `Bearer ${opts.token ?? fleet.tokens.print}`, ...(opts.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const type = res.headers.get('content-type') ?? '';
      return { status: res.status, headers: res.headers, json: (type.includes('json') ? await res.json() : await res.arrayBuffer()) as Json };
    };
    const putPrinter = async (name: string, body: Record<string, unknown>) => {
      const res = await api(`/v1/labelmaker/printers/${name}`, { method: 'PUT', body, token: fleet.tokens.admin });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    };
    /** Prints a label (print=true) and answers its job. */
    const printLabel = async (path: string) => {
      const res = await api(`${path}${path.includes('?') ? '&' : '?'}print=true`);
      expect(res.status, path).toBe(200);
      const job = await api(res.headers.get('Print-Job')!);
      expect(res.headers.get('Print-Printer')).toBe(job.json.printer);
      return job.json;
    };
    const job = async (id: string) => (await api(`/v1/labelmaker/print-jobs/${id}`)).json;
    const until = async (id: string, state: string, ms = 20_000) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const j = await job(id);
        if (j.state === state) return j;
        if (Date.now() > deadline) throw new Error(`job ${id} is ${j.state} (${j.heldReason ?? j.lastError}), not ${state}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    /** What the poller does, asked for through the API: read the printer's status, store it, look at its holds again. */
    const poll = async (name: string) => {
      const res = await api(`/v1/labelmaker/printers/${name}/status`, { method: 'POST' });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json.status;
    };
    const folderFiles = () => readdirSync(folder).filter((f) => !f.startsWith('.'));

    beforeAll(async () => {
      [bench, lab, zebra, dead, latePort] = await Promise.all([
        startIppEvePrinter({ attributesFile: ATTRIBUTES, name: 'QL820' }),
        startIppEvePrinter({ name: 'Lab' }),
        startZebraPeer(),
        startTcpSink('hang'),
        refusedPort(),
      ]);
      folder = mkdtempSync(join(tmpdir(), 'lm-fleet-folder-'));
      fleet = await start({
        PRINTER_URI: pathToFileURL(folder).href,
        PRINT_TIMEOUT_MS: '6000',
        PRINT_RETRY_BASE_MS: '200',
        PRINT_RETRY_MAX_MS: '400',
        // Read only when asked: the scenario decides when a roll change or a return is noticed.
        PRINTER_STATUS_INTERVAL_S: '0',
      });
      await putPrinter('bench', { title: 'Bench QL-820', deviceUri: bench.uri, locationId: 'shelf-3' });
      await putPrinter('lab', { title: 'Lab printer', deviceUri: lab.uri, locationId: 'bin-12', stocks: ['brother-ql-62'] });
      await putPrinter('shipping', { title: 'Shipping Zebra', deviceUri: zebra.uri, stocks: ['zebra-4x6-203dpi'] });
      await putPrinter('dead', { title: 'Dead printer', deviceUri: `socket://127.0.0.1:${dead.port}?lang=zpl` });
      await putPrinter('late', { title: 'Late Zebra', deviceUri: `socket://127.0.0.1:${latePort}?lang=zpl` });
    }, 120_000);

    afterAll(async () => {
      await fleet?.stop();
      await Promise.all([bench?.stop(), lab?.stop(), zebra?.close(), dead?.close(), late?.close()]);
    });

    it('routes by the rule: the nearest printer with the stock, else the default; a named printer; an unknown name is a 422', async () => {
      // tape-measure stands on shelf-3: the bench printer stands there and takes any stock.
      const tape = await printLabel('/v1/labelmaker/item/tape-measure');
      expect(tape.printer).toBe('bench');
      expect(tape.heldReason).toBeNull();
      // The drill is in bin-12 (the lab printer, which has only 62 mm continuous), on shelf-3: bin-12's printer lacks the stock.
      expect((await printLabel(`/v1/labelmaker/item/${DRILL}`)).printer).toBe('bench');
      // bin-12's own label on the lab's stock: the lab printer.
      const binLabel = await printLabel('/v1/labelmaker/location/bin-12?template=brother-ql-62');
      expect(binLabel.printer).toBe('lab');
      // An unplaced item: the default printer (PRINTER_URI's folder).
      const loose = await printLabel('/v1/labelmaker/item/loose-item');
      expect(loose.printer).toBe('default');
      // A named printer wins over the rule.
      expect((await printLabel('/v1/labelmaker/item/tape-measure?printer=default')).printer).toBe('default');
      const unknown = await api('/v1/labelmaker/item/tape-measure?print=true&printer=nowhere');
      expect(unknown.status).toBe(422);
      expect(unknown.json.type).toBe('/problems/unknown-printer');
      // Each prints on its own printer.
      for (const j of [tape, binLabel, loose]) await until(j.id, 'printed');
      expect((await bench.documents()).length).toBeGreaterThanOrEqual(1);
      expect((await lab.documents()).length).toBe(1);
      expect(folderFiles().length).toBeGreaterThanOrEqual(1);
    }, 90_000);

    it('listPrinters with a label names the printer the rule chooses and, per printer, whether it can print it now in the words a held job carries', async () => {
      const advise = async (query: string) => {
        const res = await api(`/v1/labelmaker/printers?${query}`);
        const doc = documentedResponse('listPrinters', res.status);
        expect(doc, `${query}: ${res.status} ${JSON.stringify(res.json)}`).toBeDefined();
        if (res.status === 200) expect(schemaErrors(doc.content['application/json'].schema, res.json)).toBeUndefined();
        else expect(problemErrors(res.json)).toBeUndefined();
        return res;
      };
      const byName = (json: Json) => Object.fromEntries((json.printers as Json[]).map((p) => [p.name, p]));
      // The nearest printer with the stock: tape-measure stands on shelf-3, where the bench printer (any stock) is.
      const tape = await advise('kind=item&id=tape-measure');
      expect(tape.status).toBe(200);
      expect(tape.json).toMatchObject({ stock: 'brother-ql-62x29', suggested: 'bench' });
      // The drill is in bin-12, whose lab printer has only 62 mm continuous: it gets the reason, the bench above it the label.
      const drill = await advise(`kind=item&id=${DRILL}`);
      expect(drill.json.suggested).toBe('bench');
      const drillPrinters = byName(drill.json);
      expect(drillPrinters.lab).toMatchObject({ canPrint: false, holdReason: 'Lab printer has Brother QL 62 mm continuous (DK-22205) loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).' });
      expect(drillPrinters.default).toMatchObject({ canPrint: true, holdReason: null });
      // On the lab's stock, bin-12's own label goes to the lab printer; the Zebra cannot print it.
      const bin = await advise('kind=location&id=bin-12&template=brother-dk-22205');
      expect(bin.json).toMatchObject({ stock: 'brother-ql-62', suggested: 'lab' });
      expect(byName(bin.json).lab).toMatchObject({ canPrint: true, holdReason: null });
      // An asset by its asset id, and a label of no record (template alone): the default printer.
      expect((await advise('kind=asset&id=1')).json.stock).toBe('brother-ql-62x29');
      expect((await advise('template=zebra-4x6-203dpi')).json).toMatchObject({ stock: 'zebra-4x6-203dpi', suggested: 'default' });
      // The same words as the job held there: one rule, not a copy.
      const held = await printLabel('/v1/labelmaker/item/loose-item?printer=shipping');
      const loose = byName((await advise('kind=item&id=loose-item')).json);
      expect(held.heldReason).not.toBeNull();
      expect(loose.shipping).toMatchObject({ canPrint: false, holdReason: held.heldReason });
      await api(`/v1/labelmaker/print-jobs/${held.id}/cancel`, { method: 'POST' });
      // Without a label: no advice fields.
      const plain = await advise('');
      expect(plain.json.suggested).toBeUndefined();
      expect(plain.json.printers.every((p: Json) => !('canPrint' in p))).toBe(true);
      // Bad input: documented problems.
      const unknown = await advise('kind=item&id=nowhere-at-all');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toMatchObject({ type: '/problems/not-found', detail: 'No item has the id nowhere-at-all.' });
      const half = await advise('kind=item');
      expect(half.status).toBe(400);
      expect(half.json.type).toBe('/problems/invalid-request');
      expect((await advise('id=tape-measure')).status).toBe(400);
      const badTemplate = await advise('kind=item&id=tape-measure&template=a4-sheet');
      expect(badTemplate.status).toBe(400);
      expect(badTemplate.json.detail).toContain('template');
      expect((await advise('kind=shelf&id=x')).status).toBe(400);
    }, 60_000);

    it('holds a job on the wrong roll (an unnamed one goes to a printer that can print it), and prints it once the roll is changed', async () => {
      await bench.setMedia(DK22205);
      const status = await poll('bench');
      expect(status.media?.stocks).toContain('brother-ql-62');
      // Jobs accepted before the reading may still be on their way to the printer.
      const deadline = Date.now() + 10_000;
      let before = (await bench.documents()).length;
      for (;;) {
        await new Promise((r) => setTimeout(r, 300));
        const now = (await bench.documents()).length;
        if (now === before || Date.now() > deadline) break;
        before = now;
      }
      // Unnamed, the rule passes over the bench (it cannot print it now) for the default, which can.
      const rerouted = await printLabel('/v1/labelmaker/item/tape-measure');
      expect(rerouted).toMatchObject({ printer: 'default', heldReason: null });
      await until(rerouted.id, 'printed');
      // Named, it waits on the bench.
      const held = await printLabel('/v1/labelmaker/item/tape-measure?printer=bench');
      expect(held.printer).toBe('bench');
      expect(held.state).toBe('queued');
      expect(held.heldReason).toMatch(/^Bench QL-820 has .* loaded; this label needs Brother QL 62 × 29 mm die-cut \(DK-11209\)\.$/);
      await new Promise((r) => setTimeout(r, 800));
      expect((await job(held.id)).state).toBe('queued');
      expect((await bench.documents()).length).toBe(before);
      // The roll is changed: the next reading releases it.
      await bench.setMedia(DK11209);
      await poll('bench');
      const printed = await until(held.id, 'printed');
      expect(printed.heldReason).toBeNull();
      expect((await bench.documents()).length).toBe(before + 1);
    }, 60_000);

    it('a held job can be moved to a printer that can print it, or cancelled; a printed one is not movable', async () => {
      // Named onto the Zebra whose roll is 4x6: held there.
      const toMove = await printLabel('/v1/labelmaker/item/loose-item?printer=shipping');
      expect(toMove.heldReason).toMatch(/Shipping Zebra has Zebra 4 × 6 in, 203 dpi loaded; this label needs Brother QL 62 × 29 mm die-cut \(DK-11209\)/);
      const toCancel = await printLabel('/v1/labelmaker/item/loose-item?printer=shipping');
      const moved = await api(`/v1/labelmaker/print-jobs/${toMove.id}/move`, { method: 'POST', body: { printer: 'default' } });
      expect(moved.status).toBe(200);
      expect(moved.json).toMatchObject({ printer: 'default', heldReason: null });
      await until(toMove.id, 'printed');
      const cancelled = await api(`/v1/labelmaker/print-jobs/${toCancel.id}/cancel`, { method: 'POST' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.json.cancelledAt).not.toBeNull();
      const again = await api(`/v1/labelmaker/print-jobs/${toMove.id}/move`, { method: 'POST', body: { printer: 'bench' } });
      expect(again.status).toBe(409);
      expect(again.json.type).toBe('/problems/job-not-movable');
      const nowhere = await api(`/v1/labelmaker/print-jobs/${toMove.id}/move`, { method: 'POST', body: { printer: 'nowhere' } });
      expect(nowhere.status).toBe(422);
      // Another token's job does not exist for this one.
      const other = await printLabel('/v1/labelmaker/item/loose-item?printer=shipping');
      expect((await api(`/v1/labelmaker/print-jobs/${other.id}/move`, { method: 'POST', body: { printer: 'default' }, token: fleet.tokens.printOnly })).status).toBe(404);
      await api(`/v1/labelmaker/print-jobs/${other.id}/cancel`, { method: 'POST' });
    }, 60_000);

    it('holds jobs for a printer that is not answering, and prints them when it is back', async () => {
      expect((await poll('late')).state).toBe('offline');
      const held = await printLabel('/v1/labelmaker/item/loose-item?printer=late');
      expect(held.heldReason).toBe('Late Zebra is not answering.');
      await new Promise((r) => setTimeout(r, 500));
      expect((await job(held.id)).state).toBe('queued');
      // /metrics: the held job by printer and state, and its age.
      const metrics = await fleet.metrics();
      expect(metrics).toContain('labelmaker_printer_queue_jobs{printer="late",state="held"} 1');
      expect(Number(/labelmaker_printer_oldest_job_age_seconds\{printer="late"\} ([0-9.e+-]+)/.exec(metrics)?.[1])).toBeGreaterThan(0.4);
      late = await startZebraPeer({}, 'accept', latePort);
      expect((await poll('late')).state).toBe('ready');
      await until(held.id, 'printed');
      expect(late.sink.received().some((b) => b.includes('^XA'))).toBe(true);
    }, 60_000);

    it('a dead printer delays none of the others: their jobs print at their normal rate', async () => {
      const rate = async (n: number) => {
        const t0 = Date.now();
        const jobs = [];
        for (let i = 0; i < n; i++) jobs.push(await printLabel('/v1/labelmaker/item/loose-item'));
        for (const j of jobs) await until(j.id, 'printed');
        return Date.now() - t0;
      };
      const alone = await rate(8);
      // Three jobs for the printer that takes the connection and never answers: each attempt hangs until its time-out.
      const stuck = [];
      for (let i = 0; i < 3; i++) stuck.push(await printLabel('/v1/labelmaker/item/loose-item?printer=dead'));
      await until(stuck[0].id, 'printing');
      const beside = await rate(8);
      // Still hanging on the dead one while the folder's eight printed.
      expect((await job(stuck[0].id)).state).toBe('printing');
      expect(beside).toBeLessThan(alone * 2 + 1000);
      expect(beside).toBeLessThan(5000);
      for (const j of stuck) await api(`/v1/labelmaker/print-jobs/${j.id}/cancel`, { method: 'POST' });
    }, 60_000);
  });
}
