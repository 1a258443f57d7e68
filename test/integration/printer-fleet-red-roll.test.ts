/**
 * The red/black roll (DK-22251) across a fleet, end to end (issue 31): a real server over a
 * real SQLite file and HTTP, with two printers that read their status over their own
 * protocols. "workbench" is a Brother QL peer (SNMP status, raw raster port) reporting the
 * red/black roll, configured `red: true`, in the garage; "office" is an ippeveprinter with
 * a QL-820's media attributes and the black 62 mm roll (DK-22205), not configured for red,
 * on shelf 3, where the tape measure lies. A label on the red/black stock goes, unnamed, past
 * the office printer (nearer, but it cannot print red) to the workbench, as a two-colour
 * raster; named onto the office printer it is held with the reason and never sent; a
 * black-only label named onto the workbench is held too (its roll is the red/black one,
 * which refuses black-only jobs: docs/printing.md, "Held jobs" and "Two colours").
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQlPeer, type QlPeer } from '../helpers/brother-ql-peer.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { problemErrors, schemaErrors, documentedResponse } from '../helpers/spec.js';

const ATTRIBUTES = join(import.meta.dirname, '../fixtures/ippeve/ql-820nwb.conf');
// A red frame and the name in black: a label with ink in both planes.
const RED_DESIGN = {
  stock: 'brother-ql-62-red',
  footer: '',
  elements: [
    { type: 'frame', box: { x: 1, y: 1, width: 40, height: 20 }, colour: 'red', thicknessMm: 1 },
    { type: 'text', box: { x: 4, y: 5, width: 34, height: 8 }, text: '{name}' },
  ],
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('the red/black roll in a fleet of a Brother QL and an IPP printer without red, over HTTP', () => {
  let srv: TestServer;
  let ql: QlPeer;
  let office: IppEvePrinter;

  const api = async (path: string, opts: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {}) => {
    const res = await fetch(srv.url + path, {
      method: opts.method ?? 'GET',
      headers: { Authorization: `Bearer ${opts.token ?? srv.tokens.print}`, ...(opts.body === undefined ? {} : { 'Content-Type': 'application/json' }), ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const type = res.headers.get('content-type') ?? '';
    const json = (type.includes('json') ? await res.json() : undefined) as Json;
    if (type.includes('problem+json')) expect(problemErrors(json)).toBeUndefined();
    return { status: res.status, headers: res.headers, json };
  };
  /** A label printed (print=true): the answer's printer and its job as the jobs API shows it. */
  const printLabel = async (path: string) => {
    const res = await api(`${path}${path.includes('?') ? '&' : '?'}print=true`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const job = await api(res.headers.get('Print-Job')!);
    expect(schemaErrors(documentedResponse('getPrintJob', 200).content['application/json'].schema, job.json)).toBeUndefined();
    return { printer: res.headers.get('Print-Printer'), job: job.json };
  };
  const job = async (id: string) => (await api(`/v1/labelmaker/print-jobs/${id}`)).json;
  const refresh = async (name: string) => {
    const res = await api(`/v1/labelmaker/printers/${name}/status`, { method: 'POST' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json.status;
  };

  beforeAll(async () => {
    [ql, office] = await Promise.all([startQlPeer({ twoColour: true }), startIppEvePrinter({ attributesFile: ATTRIBUTES, name: 'Office' })]);
    // Read only when asked: each test reads the printers before it prints.
    srv = await startTestServer({ PRINT_TIMEOUT_MS: '6000', PRINT_RETRY_BASE_MS: '200', PRINT_RETRY_MAX_MS: '400', PRINTER_STATUS_INTERVAL_S: '0' });
    const put = async (name: string, body: Record<string, unknown>) => {
      const res = await api(`/v1/labelmaker/printers/${name}`, { method: 'PUT', body, token: srv.tokens.admin });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    };
    await put('office', { title: 'Office QL-820', deviceUri: office.uri, model: 'QL-820NWB', locationId: 'shelf-3', default: true });
    await put('workbench', { title: 'Workbench QL-820', deviceUri: ql.uri, model: 'QL-820NWB', locationId: 'garage', red: true });
    const saved = await api('/v1/labelmaker/templates/red-frame', { method: 'PUT', body: RED_DESIGN, token: srv.tokens.editor, headers: { 'If-None-Match': '*' } });
    expect(saved.status, JSON.stringify(saved.json)).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await srv?.stop();
    await Promise.all([ql?.close(), office?.stop()]);
  });

  it('both printers read: the QL has the red/black roll, the office printer a 62 mm roll and no red', async () => {
    const workbench = await refresh('workbench');
    expect(workbench).toMatchObject({ state: 'ready', media: { widthMm: 62, lengthMm: 0, red: true, stocks: ['brother-ql-62-red'] } });
    const officeStatus = await refresh('office');
    expect(officeStatus.state).toBe('ready');
    expect(officeStatus.media.stocks).toContain('brother-ql-62');
  });

  it('a label on the red/black stock, no printer named, goes to the QL with the red roll as a two-colour raster', async () => {
    const { printer, job: queued } = await printLabel('/v1/labelmaker/item/tape-measure?template=red-frame');
    // The tape measure lies on shelf 3, where the office printer stands; it cannot print red, so the garage's QL takes it.
    expect(printer).toBe('workbench');
    expect(queued).toMatchObject({ printer: 'workbench', heldReason: null });
    const { job: raster, refused } = await ql.nextPrint();
    expect(refused).toBe(false);
    // ESC i K bit 0: two-colour mode; every head line as a black (w 01) then a red (w 02) line.
    expect(raster.twoColour).toBe(true);
    expect(raster.commands.some((c) => /^ESC i K (0[1-9a-f])$/.test(c) && (parseInt(c.slice(-2), 16) & 1) === 1)).toBe(true);
    expect(raster.rows.length).toBeGreaterThan(100);
    expect(raster.redRows.length).toBe(raster.rows.length);
    // Ink in both planes (the red frame, the black name), and no dot in both.
    const inked = (rows: Buffer[]) => rows.filter((r) => r.some((b) => b !== 0)).length;
    expect(inked(raster.redRows)).toBeGreaterThan(20);
    expect(inked(raster.rows)).toBeGreaterThan(20);
    for (let i = 0; i < raster.rows.length; i++) for (let b = 0; b < 90; b++) expect(raster.rows[i]![b]! & raster.redRows[i]![b]!).toBe(0);
    // The red/black roll's media code in ESC i z: 62 mm continuous.
    expect(raster).toMatchObject({ widthMm: 62, mediaType: 0x0a });
    expect((await waitFor(queued.id, 'printed')).printer).toBe('workbench');
  }, 60_000);

  it('the same label named onto the printer without red is held with the reason, not failed, and never sent', async () => {
    const before = (await office.documents()).length;
    const { printer, job: held } = await printLabel('/v1/labelmaker/item/tape-measure?template=red-frame&printer=office');
    expect(printer).toBe('office');
    expect(held).toMatchObject({ state: 'queued', heldReason: 'Office QL-820 cannot print red; this label needs the red/black roll (DK-22251).', attempts: 0, lastError: null });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await job(held.id)).toMatchObject({ state: 'queued', attempts: 0, heldReason: held.heldReason });
    expect((await office.documents()).length).toBe(before);
    // A reading of the printer changes nothing: it still has no red.
    await refresh('office');
    expect((await job(held.id)).heldReason).toBe(held.heldReason);
    expect((await api(`/v1/labelmaker/print-jobs/${held.id}/cancel`, { method: 'POST' })).status).toBe(200);
  }, 60_000);

  it('a black-only label named onto the QL with the red roll loaded is held: that roll refuses black-only jobs', async () => {
    const sent = ql.sink.received().length;
    const { printer, job: held } = await printLabel('/v1/labelmaker/item/tape-measure?template=brother-ql-62&printer=workbench');
    expect(printer).toBe('workbench');
    expect(held).toMatchObject({ state: 'queued', attempts: 0 });
    expect(held.heldReason).toBe('Workbench QL-820 has 62 mm continuous red/black roll (DK-22251) loaded; this label needs Brother QL 62 mm continuous (DK-22205).');
    await new Promise((r) => setTimeout(r, 1500));
    expect((await job(held.id)).state).toBe('queued');
    expect(ql.sink.received().length).toBe(sent);
    // Unnamed, it goes to the office printer, which has the black roll.
    const { printer: unnamed, job: black } = await printLabel('/v1/labelmaker/item/tape-measure?template=brother-ql-62');
    expect(unnamed).toBe('office');
    await waitFor(black.id, 'printed');
    expect((await api(`/v1/labelmaker/print-jobs/${held.id}/cancel`, { method: 'POST' })).status).toBe(200);
  }, 60_000);

  async function waitFor(id: string, state: string, ms = 20_000): Promise<Json> {
    const deadline = Date.now() + ms;
    for (;;) {
      const j = await job(id);
      if (j.state === state) return j;
      if (Date.now() > deadline) throw new Error(`job ${id} is ${j.state} (${j.heldReason ?? j.lastError}), not ${state}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
});
