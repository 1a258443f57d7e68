/**
 * Every print path may name a printer (issue 31): a label with print=true, a batch
 * (createPrintBatch), an image (printImage), Homebox (printHomeboxLabel) and Grocy
 * (printGrocyLabel). Named, the job goes to that printer; not named, the documented rule
 * picks one (the printer placed nearest the record with the label's stock, else the default);
 * either way the chosen printer is in the answer (the job's or batch's printer in a JSON answer;
 * the Print-Printer header beside a label's PNG) and the label lands on that printer. An unknown name is a 422 and prints nothing.
 * One in-process server over a real SQLite file, two folder printers.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;
let png: Buffer;
const dirs: string[] = [];
/** The printer `default` (PRINTER_URI) and `shelf`, placed on shelf-3. */
let defaultFolder: string;
let shelfFolder: string;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const GROCY_BODY = { product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' };

/** The job ids whose labels reached a folder. */
const printedIn = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.png')).map((f) => f.match(UUID)!.at(-1)!);

/** Waits until each job id has a label in the folder (and none is in the other one). */
async function landed(ids: string[], folder: string, other: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!ids.every((id) => printedIn(folder).includes(id))) {
    if (Date.now() > deadline) throw new Error(`jobs ${ids.filter((id) => !printedIn(folder).includes(id)).join(', ')} never reached ${folder}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(printedIn(other).filter((id) => ids.includes(id))).toEqual([]);
}

const send = (path: string, init: { method?: string; token?: string | null; body?: Buffer | object; query?: string } = {}) => {
  const isPng = Buffer.isBuffer(init.body);
  return fetch(`${srv.url}${path}${init.query ?? ''}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token === null ? {} : { Authorization: `Bearer ${init.token ?? srv.tokens.print}` }),
      ...(init.body === undefined ? {} : { 'Content-Type': isPng ? 'image/png' : 'application/json' }),
      Connection: 'close',
    },
    body: init.body === undefined ? undefined : isPng ? new Uint8Array(init.body as Buffer) : JSON.stringify(init.body),
  });
};

/** One print of each path, with `?printer=` (or the batch body's printer) when named; answers the job ids, the chosen printer and the header. */
const PATHS: Record<string, (printer?: string) => Promise<{ status: number; ids: string[]; printer?: string; header: string | null; body: unknown }>> = {
  'label print=true': async (printer) => {
    const res = await send('/v1/labelmaker/item/tape-measure', { query: `?print=true${printer ? `&printer=${printer}` : ''}` });
    const job = res.headers.get('print-job');
    const body = res.headers.get('content-type')?.includes('json') ? await res.json() : await res.arrayBuffer();
    const read = job ? ((await (await send(job)).json()) as { id: string; printer: string }) : undefined;
    return { status: res.status, ids: read ? [read.id] : [], printer: read?.printer, header: res.headers.get('print-printer'), body };
  },
  'batch (createPrintBatch)': async (printer) => {
    const res = await send('/v1/labelmaker/print-jobs', { method: 'POST', body: { selection: { records: [{ kind: 'item', id: 'tape-measure' }, { kind: 'location', id: 'shelf-3' }] }, ...(printer ? { printer } : {}) } });
    const body = (await res.json()) as { jobs?: string[]; printer?: string };
    return { status: res.status, ids: body.jobs ?? [], printer: body.printer, header: res.headers.get('print-printer'), body };
  },
  'image (printImage)': async (printer) => {
    const res = await send('/v1/labelmaker/print-jobs/images', { method: 'POST', body: png, query: `?template=brother-ql-62x29${printer ? `&printer=${printer}` : ''}` });
    const body = (await res.json()) as { id?: string; printer?: string };
    return { status: res.status, ids: body.id ? [body.id] : [], printer: body.printer, header: res.headers.get('print-printer'), body };
  },
  'Homebox (printHomeboxLabel)': async (printer) => {
    const res = await send(`/v1/integrations/homebox/${key}/print-jobs/brother-ql-62x29`, { method: 'POST', token: null, body: png, query: printer ? `?printer=${printer}` : '' });
    const body = (await res.json()) as { id?: string; printer?: string };
    return { status: res.status, ids: body.id ? [body.id] : [], printer: body.printer, header: res.headers.get('print-printer'), body };
  },
  'Grocy (printGrocyLabel)': async (printer) => {
    const res = await send(`/v1/integrations/grocy/${key}/brother-ql-62x29`, { method: 'POST', token: null, body: GROCY_BODY, query: printer ? `?printer=${printer}` : '' });
    const body = (await res.json()) as { id?: string; printer?: string };
    return { status: res.status, ids: body.id ? [body.id] : [], printer: body.printer, header: res.headers.get('print-printer'), body };
  },
};

beforeAll(async () => {
  defaultFolder = mkdtempSync(join(tmpdir(), 'lm-paths-default-'));
  shelfFolder = mkdtempSync(join(tmpdir(), 'lm-paths-shelf-'));
  dirs.push(defaultFolder, shelfFolder);
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(defaultFolder).href, PRINT_RETRY_BASE_MS: '50', PRINTER_STATUS_INTERVAL_S: '0' });
  const put = await send('/v1/labelmaker/printers/shelf', { method: 'PUT', token: srv.tokens.admin, body: { title: 'Shelf printer', deviceUri: pathToFileURL(shelfFolder).href, locationId: 'shelf-3' } });
  expect(put.status, await put.text()).toBe(201);
  key = (await createToken(srv.store, 'homebox-grocy', ['integrations:render', 'integrations:print'])).token;
  png = Buffer.from(await (await send(`/v1/integrations/homebox/${key}/labels/brother-ql-62x29?TitleText=Drill&URL=/item/x`, { token: null })).arrayBuffer());
}, 120_000);

afterAll(async () => {
  await srv?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('every print path may name a printer, and answers the printer chosen', () => {
  for (const [path, print] of Object.entries(PATHS)) {
    it(`${path}: named, it prints there and says so; an unknown name is a 422 that prints nothing`, async () => {
      // Named: the default printer, although the rule would choose the shelf printer for tape-measure.
      const toDefault = await print('default');
      expect(toDefault.status, JSON.stringify(toDefault.body)).toBeLessThan(300);
      expect(toDefault.printer).toBe('default');
      expect(toDefault.header).toBe(path === 'label print=true' ? 'default' : null);
      await landed(toDefault.ids, defaultFolder, shelfFolder);
      const toShelf = await print('shelf');
      expect(toShelf.status, JSON.stringify(toShelf.body)).toBeLessThan(300);
      expect(toShelf.printer).toBe('shelf');
      expect(toShelf.header).toBe(path === 'label print=true' ? 'shelf' : null);
      expect(toShelf.ids.length).toBeGreaterThan(0);
      await landed(toShelf.ids, shelfFolder, defaultFolder);

      const before = printedIn(defaultFolder).length + printedIn(shelfFolder).length;
      const unknown = await print('no-such-printer');
      expect(unknown.status).toBe(422);
      expect(JSON.stringify(unknown.body)).toContain('no-such-printer');
      expect(unknown.ids).toEqual([]);
      await new Promise((r) => setTimeout(r, 300));
      expect(printedIn(defaultFolder).length + printedIn(shelfFolder).length).toBe(before);
    }, 60_000);
  }

  it('not named: the rule picks (the shelf printer for a record on shelf-3; the default for an image, Homebox or Grocy, which name no record), and the answer names it', async () => {
    const expected: Record<string, string> = {
      'label print=true': 'shelf',
      'batch (createPrintBatch)': 'shelf',
      'image (printImage)': 'default',
      'Homebox (printHomeboxLabel)': 'default',
      'Grocy (printGrocyLabel)': 'default',
    };
    for (const [path, print] of Object.entries(PATHS)) {
      const res = await print();
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      expect(res.printer, path).toBe(expected[path]);
      expect(res.header, path).toBe(path === 'label print=true' ? expected[path] : null);
      await landed(res.ids, expected[path] === 'shelf' ? shelfFolder : defaultFolder, expected[path] === 'shelf' ? defaultFolder : shelfFolder);
    }
  }, 120_000);
});
