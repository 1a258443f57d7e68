/**
 * listPrintJobs and retryPrintJob end to end: the real server over a real SQLite
 * file, a real Zebra printer peer on loopback that is down (connections refused)
 * until the jobs have failed, then up; every answer checked against the spec.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { startTestServer, PUBLIC_BASE, type TestServer } from '../helpers/server.js';
import { documentedResponse, problemErrors, schemaErrors } from '../helpers/spec.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { bitmapToPng, decodeZplGraphic } from '../printing/decoders.js';

let srv: TestServer | undefined;
let sink: TcpSink | undefined;
afterEach(async () => {
  await srv?.stop();
  await sink?.close();
  srv = sink = undefined;
});

const JOBS = '/v1/labelmaker/print-jobs';
type Job = { id: string; state: string; attempts: number; lastError: string | null; title: string; printedAt: string | null };

/** A call as a client makes it, its answer checked against what the spec documents for it. */
async function api(s: TestServer, operationId: string, path: string, token: string, method = 'GET') {
  const res = await fetch(s.url + path, { method, headers: { Authorization: `Bearer ${token}`, Accept: 'application/json, application/problem+json' } });
  const body = await res.json();
  const doc = documentedResponse(operationId, res.status);
  expect(doc, `${operationId} documents ${res.status}`).toBeDefined();
  const type = res.headers.get('content-type')!;
  expect(Object.keys(doc.content)).toContain(type);
  if (type === 'application/problem+json') expect(problemErrors(body)).toBeUndefined();
  else expect(schemaErrors(doc.content[type].schema, body), JSON.stringify(body)).toBeUndefined();
  return { status: res.status, body };
}

const list = async (s: TestServer, query = '', token = s.tokens.print) => (await api(s, 'listPrintJobs', `${JOBS}${query}`, token)).body as { jobs: Job[]; nextCursor: string | null };
const retry = (s: TestServer, id: string, token = s.tokens.print) => api(s, 'retryPrintJob', `${JOBS}/${id}/retry`, token, 'POST');

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a failed print job, retried once the printer is fixed', () => {
  it('is listed with its error, goes back to the queue, answers a repeated retry as it is, and prints', async () => {
    const port = await refusedPort();
    srv = await startTestServer({
      PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`,
      // Unpolled: a polled printer that no instance reaches holds its jobs (printer-fleet.test.ts); here they fail and are retried.
      PRINTER_STATUS_INTERVAL_S: '0',
      // Two attempts 1.5 s apart: a job is failed after about 1.5 s, and a retried one stays pending that long.
      PRINT_MAX_ATTEMPTS: '2',
      PRINT_RETRY_BASE_MS: '1500',
      PRINT_RETRY_MAX_MS: '1500',
      PRINT_TIMEOUT_MS: '2000',
    });
    const s = srv;
    const printed = await fetch(`${s.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${s.tokens.print}` } });
    const id = printed.headers.get('print-job')!.split('/').pop()!;

    // Down: the job fails, and the list of failed jobs shows it with the printer's error.
    const failed = await until('the job to fail', async () => (await list(s, '?state=failed')).jobs.find((j) => j.id === id));
    expect(failed).toMatchObject({ state: 'failed', attempts: 2, title: 'asset label: 000-001', printedAt: null });
    expect(failed.lastError).toMatch(/ECONNREFUSED|refused/i);
    expect((await list(s, '?state=printed')).jobs).toEqual([]);

    // Another token neither sees it nor may retry it.
    expect((await list(s, '', s.tokens.printOnly)).jobs).toEqual([]);
    expect(await retry(s, id, s.tokens.printOnly)).toMatchObject({ status: 404, body: { type: '/problems/not-found' } });

    // Retried while still down: back in the queue (202), and a repeated retry changes nothing (200).
    const requeued = await retry(s, id);
    expect(requeued).toMatchObject({ status: 202, body: { id, state: 'queued', attempts: 0, printedAt: null } });
    expect(requeued.body.lastError).toBe(failed.lastError);
    const again = await retry(s, id);
    expect(again.status).toBe(200);
    expect(['queued', 'printing']).toContain(again.body.state);
    // It fails again: the printer is still down.
    const refailed = await until('the job to fail again', async () => (await list(s, '?state=failed')).jobs.find((j) => j.id === id && j.attempts === 2));
    expect(refailed.lastError).toMatch(/ECONNREFUSED|refused/i);

    // Fixed: the retry prints the same label, whose codes scan.
    sink = await startTcpSink('accept', port);
    expect((await retry(s, id)).status).toBe(202);
    const zpl = (await sink.nextJob()).toString('latin1');
    const done = await until('the job to print', async () => (await list(s, '?state=printed')).jobs.find((j) => j.id === id));
    expect(done).toMatchObject({ state: 'printed', attempts: 1 });
    expect(done.printedAt).not.toBeNull();
    const codes = await decodeBarcodes(bitmapToPng(decodeZplGraphic(zpl).bitmap));
    // The default stock (62 x 29 mm) is too short for a sturdy Code 128: the QR code carries the asset.
    expect(codes.map((c) => c.text)).toEqual([`${PUBLIC_BASE}/a/000-001`]);

    // Printed: nothing to retry, and nothing printed twice.
    const refused = await retry(s, id);
    expect(refused).toMatchObject({ status: 409, body: { type: '/problems/job-not-failed' } });
    expect(refused.body.detail).toMatch(/printed/);
    expect((await list(s, '?state=failed')).jobs).toEqual([]);
  });
});

describe('listing print jobs', () => {
  it('pages newest first with the same filters, by batch, and refuses a cursor made for other filters', async () => {
    sink = await startTcpSink('accept');
    srv = await startTestServer({ PRINTER_URI: `socket://127.0.0.1:${sink.port}?lang=zpl` });
    const s = srv;
    const made: string[] = [];
    for (const path of ['/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage']) {
      const res = await fetch(`${s.url}${path}?print=true`, { headers: { Authorization: `Bearer ${s.tokens.print}` } });
      made.push(res.headers.get('print-job')!.split('/').pop()!);
    }
    const batch = await fetch(`${s.url}${JOBS}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.tokens.print}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ selection: { records: [{ kind: 'location', id: 'shelf-3' }, { kind: 'location', id: 'bin-12' }] } }),
    });
    const { id: batchId, jobs: batchJobs } = (await batch.json()) as { id: string; jobs: string[] };

    const seen: string[] = [];
    let page = await list(s, '?limit=2');
    for (;;) {
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...page.jobs.map((j) => j.id));
      if (!page.nextCursor) break;
      page = await list(s, `?limit=2&cursor=${page.nextCursor}`);
    }
    expect(seen).toEqual([...batchJobs].reverse().concat([...made].reverse()));
    expect((await list(s, `?batch=${batchId}`)).jobs.map((j) => j.id)).toEqual([...batchJobs].reverse());

    const first = await list(s, '?limit=1');
    const other = await api(s, 'listPrintJobs', `${JOBS}?limit=1&state=failed&cursor=${first.nextCursor}`, s.tokens.print);
    expect(other).toMatchObject({ status: 400, body: { type: '/problems/invalid-request' } });
    expect(other.body.detail).toMatch(/cursor/);
    // A record page's cursor is no print-job cursor.
    const records = (await (await fetch(`${s.url}/v1/labelmaker/records?limit=1`, { headers: { Authorization: `Bearer ${s.tokens.print}` } })).json()) as { nextCursor: string };
    expect((await api(s, 'listPrintJobs', `${JOBS}?cursor=${records.nextCursor}`, s.tokens.print)).status).toBe(400);
    // A token without labels:print may not list.
    expect((await api(s, 'listPrintJobs', JOBS, s.tokens.read)).status).toBe(403);
  });
});

describe('a failed job retried while its printer cannot print it', () => {
  it('goes back held, with the reason, spending no attempt; it prints once the reason clears', async () => {
    const port = await refusedPort();
    srv = await startTestServer({ PRINTER_STATUS_INTERVAL_S: '0', PRINT_MAX_ATTEMPTS: '1', PRINT_TIMEOUT_MS: '2000' });
    const s = srv;
    const put = async (stocks: string[]) => {
      const res = await fetch(`${s.url}/v1/labelmaker/printers/zebra`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${s.tokens.admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Shipping Zebra', deviceUri: `socket://127.0.0.1:${port}?lang=zpl`, stocks }),
      });
      expect([200, 201]).toContain(res.status);
    };
    await put([]);
    const printed = await fetch(`${s.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${s.tokens.print}` } });
    const id = printed.headers.get('print-job')!.split('/').pop()!;
    await until('the job to fail', async () => (await list(s, '?state=failed')).jobs.find((j) => j.id === id));

    // Meanwhile the Zebra was given a 4x6 roll: the retried 62x29 label is held there, not tried and failed again.
    await put(['zebra-4x6-203dpi']);
    const requeued = await retry(s, id);
    expect(requeued).toMatchObject({ status: 202, body: { id, state: 'queued', attempts: 0, heldReason: 'Shipping Zebra has Zebra 4 × 6 in, 203 dpi loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).' } });
    sink = await startTcpSink('accept', port);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api(s, 'getPrintJob', `${JOBS}/${id}`, s.tokens.print)).body).toMatchObject({ state: 'queued', attempts: 0 });
    expect(sink.received()).toHaveLength(0);

    // The roll is back: released, and printed.
    await put(['brother-ql-62x29']);
    await sink.nextJob();
    const done = await until('the job to print', async () => (await list(s, '?state=printed')).jobs.find((j) => j.id === id));
    expect(done).toMatchObject({ state: 'printed', attempts: 1 });
  });
});
