/**
 * Reprinting stale labels (issue 32) from the client's side: a real server, a real SQLite
 * file and the folder printer. A batch of the stale selection that names no template prints
 * each record with its last printed label's template (so on its stock); one that names a
 * template prints every label with it; neverPrinted records get the default. A selection
 * with `limit` takes the first records and says whether there are `more`, and the same
 * request again takes the rest once the first batch has printed.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { resolve, schemaErrors } from '../helpers/spec.js';

let srv: TestServer;
let spool: string;
beforeAll(async () => {
  spool = mkdtempSync(join(tmpdir(), 'lm-stale-reprint-'));
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50' });
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  rmSync(spool, { recursive: true, force: true });
});

type Batch = { id: string; state: string; template: string; total: number; printed: number; pending: number; jobs: string[]; more?: boolean };
type Job = { id: string; template: string; record: { kind: string; id: string } };

const auth = () => ({ Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' });
const getJson = async <T>(path: string): Promise<T> => {
  const res = await fetch(`${srv.url}${path}`, { headers: auth() });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
};

/** Prints the request as a batch, waits until every job has printed, and gives its answer and jobs (record: stock). */
const printAll = async (request: unknown): Promise<{ batch: Batch; stocks: Record<string, string> }> => {
  const res = await fetch(`${srv.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify(request) });
  expect(res.status).toBe(201);
  const batch = (await res.json()) as Batch;
  expect(schemaErrors(resolve('#/components/schemas/PrintBatch'), batch)).toBeUndefined();
  const until = Date.now() + 60_000;
  for (;;) {
    const status = await getJson<Batch>(`/v1/labelmaker/print-jobs/batches/${batch.id}`);
    if (status.pending === 0) {
      expect(status.state).toBe('printed');
      break;
    }
    if (Date.now() > until) throw new Error(`batch still pending: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const stocks: Record<string, string> = {};
  for (const id of batch.jobs) {
    const job = await getJson<Job>(`/v1/labelmaker/print-jobs/${id}`);
    stocks[`${job.record.kind}/${job.record.id}`] = job.template;
  }
  return { batch, stocks };
};

/** The printed PNG's width x height (its IHDR), as the folder printer wrote it for the job. */
const pngSize = (jobId: string): string => {
  const file = readdirSync(spool).find((f) => f.includes(jobId) && f.endsWith('.png'))!;
  const png = readFileSync(join(spool, file));
  return `${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`;
};

const rename = (id: string, name: string) => srv.store.records.upsertMany([{ ...FIXTURES.find((r) => r.id === id)!, name }]);
const DRILL = '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

describe('reprinting stale labels', () => {
  it('each with its last template unless the request names one; neverPrinted with the default; limit and more', async () => {
    // Two records printed on Zebra 2 x 1 in, two on Brother 23 x 23 mm.
    const zebra = await printAll({ selection: { records: [{ kind: 'location', id: 'garage' }, { kind: 'location', id: 'shelf-3' }] }, template: 'zebra-2x1-203dpi' });
    const square = await printAll({ selection: { records: [{ kind: 'location', id: 'bin-12' }, { kind: 'item', id: DRILL }] }, template: 'brother-ql-23x23' });
    expect(Object.values(zebra.stocks)).toEqual(['zebra-2x1-203dpi', 'zebra-2x1-203dpi']);
    expect(Object.values(square.stocks)).toEqual(['brother-ql-23x23', 'brother-ql-23x23']);

    // The top location renamed: all four labels show another path.
    await rename('garage', 'Workshop');
    const reprint = await printAll({ selection: { labels: 'stale' } });
    expect(reprint.stocks).toEqual({
      'location/garage': 'zebra-2x1-203dpi',
      'location/shelf-3': 'zebra-2x1-203dpi',
      'location/bin-12': 'brother-ql-23x23',
      [`item/${DRILL}`]: 'brother-ql-23x23',
    });
    // The batch names its first job's stock (Bin 12 sorts first); no `more` without a limit.
    expect(reprint.batch.template).toBe('brother-ql-23x23');
    expect(reprint.batch.more).toBeUndefined();
    // Drawn for that stock: the same size as each record's first print.
    const sizeOf = (run: typeof zebra, key: string) => pngSize(run.batch.jobs[Object.keys(run.stocks).indexOf(key)]!);
    for (const [key, first] of [['location/garage', zebra], ['location/bin-12', square]] as const) expect(sizeOf(reprint, key)).toBe(sizeOf(first, key));
    expect(sizeOf(reprint, 'location/garage')).not.toBe(sizeOf(reprint, 'location/bin-12'));
    // Remembered as printed with that template: the next reprint takes the same.
    expect(await srv.store.printJobs.printedLabel('location', 'bin-12')).toMatchObject({ template: 'brother-ql-23x23' });

    // Stale again; a named template wins for every label, and `limit` takes the first ones.
    await rename('garage', 'Garage');
    const first = await printAll({ selection: { labels: 'stale', limit: 3 }, template: 'brother-ql-62x29' });
    expect(first.batch).toMatchObject({ total: 3, more: true, template: 'brother-ql-62x29' });
    expect(Object.keys(first.stocks)).toEqual(['location/bin-12', `item/${DRILL}`, 'location/garage']);
    expect(new Set(Object.values(first.stocks))).toEqual(new Set(['brother-ql-62x29']));
    const rest = await printAll({ selection: { labels: 'stale', limit: 3 }, template: 'brother-ql-62x29' });
    expect(rest.batch).toMatchObject({ total: 1, more: false });
    expect(rest.stocks).toEqual({ 'location/shelf-3': 'brother-ql-62x29' });
    const none = await fetch(`${srv.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ selection: { labels: 'stale', limit: 3 } }) });
    expect(none.status).toBe(400);

    // neverPrinted records have no last label: the default template (LABEL_TEMPLATE, brother-ql-62x29).
    const never = await printAll({ selection: { labels: 'neverPrinted' } });
    expect(never.stocks).toEqual({ 'item/tape-measure': 'brother-ql-62x29', 'item/loose-item': 'brother-ql-62x29' });
  }, 180_000);

  it('refuses a limit over 1000 labels with copies, and a limit out of range', async () => {
    const post = (body: unknown) => fetch(`${srv.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const over = await post({ selection: { labels: 'neverPrinted', limit: 600 }, copies: 2 });
    expect(over.status).toBe(400);
    expect(over.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await over.json()) as { detail: string }).detail).toMatch(/1200 labels/);
    expect((await post({ selection: { labels: 'stale', limit: 0 } })).status).toBe(400);
    expect((await post({ selection: { labels: 'stale', limit: 1001 } })).status).toBe(400);
  });
});
