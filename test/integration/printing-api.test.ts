/**
 * print=true end to end: the real server, a real SQLite file, and real printer
 * peers on loopback (a spool folder, a raw TCP printer that is down, then up).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { startTestServer, PUBLIC_BASE, type TestServer } from '../helpers/server.js';
import { documentedResponse, problemErrors, resolve, schemaErrors } from '../helpers/spec.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { QL_MEDIA } from '../../src/printing/drivers/brother-ql.js';
import { bitmapToPng, decodeZplGraphic, parseQlRaster, qlRowsToBitmap } from '../printing/decoders.js';

let srv: TestServer | undefined;
let sink: TcpSink | undefined;
let printer: IppEvePrinter | undefined;
afterEach(async () => {
  await srv?.stop();
  await sink?.close();
  await printer?.stop();
  srv = sink = printer = undefined;
});

const ITEM = '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

async function call(s: TestServer, path: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(s.url + path, { headers: { Authorization: `Bearer ${token}`, Accept: 'image/png, application/json, application/problem+json', ...headers } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** A GET with exactly these headers (node:http adds none of its own that change caching). */
function plainGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function jobOf(s: TestServer, res: Response) {
  const link = res.headers.get('print-job');
  expect(link).toMatch(/^\/v1\/labelmaker\/print-jobs\/[0-9a-f-]{36}$/);
  const { res: jobRes, body } = await call(s, link!, s.tokens.print);
  expect(jobRes.status).toBe(200);
  expect(jobRes.headers.get('content-type')).toMatch(/^application\/json/);
  expect(documentedResponse('getPrintJob', 200)).toBeDefined();
  const job = JSON.parse(body.toString());
  expect(schemaErrors(resolve('#/components/schemas/PrintJob'), job)).toBeUndefined();
  return job;
}

async function waitForState(s: TestServer, res: Response, states: string[], timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobOf(s, res);
    if (states.includes(job.state)) return job;
    if (Date.now() > until) throw new Error(`job still ${job.state} (${job.lastError ?? 'no error'})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('print=true with a spool-folder printer', () => {
  it('returns the PNG, stores a job, and delivers the same bytes', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join(process.env.TMPDIR ?? '/tmp', `lm-spool-${process.pid}-${Date.now()}`)).href });
    const spool = new URL(srv.config.printing.printerUri!).pathname;
    const { res, body } = await call(srv, `${ITEM}?print=true`, srv.tokens.print);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const job = await waitForState(srv, res, ['printed']);
    expect(job).toMatchObject({ state: 'printed', attempts: 1, lastError: null, template: srv.config.defaultTemplateName });
    const files = readdirSync(spool);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(spool, files[0]!)).equals(body)).toBe(true);
  });

  it('the same Idempotency-Key twice: one job, one print; another label with that key: 422', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join('/tmp', `lm-spool-${process.pid}-${Date.now()}-k`)).href });
    const spool = new URL(srv.config.printing.printerUri!).pathname;
    const first = await call(srv, `${ITEM}?print=true`, srv.tokens.print, { 'Idempotency-Key': 'shelf-run-1' });
    const second = await call(srv, `${ITEM}?print=true`, srv.tokens.print, { 'Idempotency-Key': 'shelf-run-1' });
    expect(second.res.status).toBe(200);
    expect(second.res.headers.get('print-job')).toBe(first.res.headers.get('print-job'));
    await waitForState(srv, first.res, ['printed']);
    await new Promise((r) => setTimeout(r, 200));
    expect(readdirSync(spool)).toHaveLength(1);

    const other = await call(srv, '/v1/labelmaker/location/garage?print=true', srv.tokens.print, { 'Idempotency-Key': 'shelf-run-1' });
    expect(other.res.status).toBe(422);
    const problem = JSON.parse(other.body.toString());
    expect(problemErrors(problem)).toBeUndefined();
    expect(problem.type).toBe('/problems/idempotency-key-reused');
    expect(readdirSync(spool)).toHaveLength(1);
  });

  it('a job names the record it prints (an asset by its asset id, not its item) and no batch', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join('/tmp', `lm-spool-${process.pid}-${Date.now()}-r`)).href });
    const cases = [
      { path: '/v1/labelmaker/location/garage', record: { kind: 'location', id: 'garage' } },
      { path: ITEM, record: { kind: 'item', id: '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f' } },
      // Asset 42 is the item tape-measure's; asked for as `42`, named in its canonical form.
      { path: '/v1/labelmaker/assets/42', record: { kind: 'asset', id: '000-042' } },
    ];
    for (const { path, record } of cases) {
      const { res } = await call(srv, `${path}?print=true`, srv.tokens.print);
      expect(res.status).toBe(200);
      expect(await jobOf(srv, res)).toMatchObject({ record, batchId: null });
    }
    // The list shows the same, newest first.
    const list = await call(srv, '/v1/labelmaker/print-jobs', srv.tokens.print);
    const { jobs } = JSON.parse(list.body.toString());
    expect(jobs.map((j: { record: unknown; batchId: unknown }) => [j.record, j.batchId])).toEqual(cases.reverse().map((c) => [c.record, null]));
  });

  it('print jobs need labels:print; unknown jobs are 404, malformed ids 400', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join('/tmp', `lm-spool-${process.pid}-${Date.now()}-s`)).href });
    const { res } = await call(srv, `${ITEM}?print=true`, srv.tokens.print);
    const link = res.headers.get('print-job')!;
    const forbidden = await call(srv, link, srv.tokens.read);
    expect(forbidden.res.status).toBe(403);
    // Another token with labels:print does not see this token's job.
    const othersJob = await call(srv, link, srv.tokens.printOnly);
    expect(othersJob.res.status).toBe(404);
    const unknown = await call(srv, '/v1/labelmaker/print-jobs/00000000-0000-4000-8000-000000000000', srv.tokens.print);
    expect(unknown.res.status).toBe(404);
    expect(problemErrors(JSON.parse(unknown.body.toString()))).toBeUndefined();
    const malformed = await call(srv, '/v1/labelmaker/print-jobs/not-a-uuid', srv.tokens.print);
    expect(malformed.res.status).toBe(400);
  });
});

describe('print=true with If-None-Match', () => {
  it('still prints and answers 200 with the PNG and Print-Job, never 304, for a matching ETag or *', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join('/tmp', `lm-spool-${process.pid}-${Date.now()}-inm`)).href });
    const spool = new URL(srv.config.printing.printerUri!).pathname;
    const plain = await call(srv, ITEM, srv.tokens.read);
    const etag = plain.res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    // Without print=true, the same validator is a 304 (the cache is fresh).
    expect((await call(srv, ITEM, srv.tokens.read, { 'If-None-Match': etag })).res.status).toBe(304);

    // fetch() adds Cache-Control: no-cache to conditional requests, which hides a 304: use node:http, as curl would.
    const jobs: string[] = [];
    for (const inm of [etag, '*', `"other", ${etag}`]) {
      const res = await plainGet(`${srv.url}${ITEM}?print=true`, { Authorization: `Bearer ${srv.tokens.print}`, 'If-None-Match': inm });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.body.equals(plain.body)).toBe(true);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['print-job']).toMatch(/^\/v1\/labelmaker\/print-jobs\/[0-9a-f-]{36}$/);
      jobs.push(String(res.headers['print-job']));
    }
    expect(new Set(jobs).size).toBe(3);
    for (const link of jobs) {
      const until = Date.now() + 10_000;
      let job = JSON.parse((await call(srv, link, srv.tokens.print)).body.toString());
      while (job.state !== 'printed' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 50));
        job = JSON.parse((await call(srv, link, srv.tokens.print)).body.toString());
      }
      expect(job).toMatchObject({ state: 'printed', possibleDuplicate: false });
    }
    expect(readdirSync(spool).filter((n) => n.endsWith('.png'))).toHaveLength(3);
    // And without print=true the same request is still a 304 over plain HTTP.
    const cached = await plainGet(`${srv.url}${ITEM}`, { Authorization: `Bearer ${srv.tokens.read}`, 'If-None-Match': etag });
    expect(cached.status).toBe(304);
    expect(cached.body).toHaveLength(0);
  });
});

describe('print job titles', () => {
  it('are one line of at most 200 characters, whatever the record name holds', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join('/tmp', `lm-spool-${process.pid}-${Date.now()}-t`)).href });
    await srv.store.records.upsertMany([{ kind: 'item', id: 'odd', name: `Two\nlines\tand ${'🦀'.repeat(300)}`, description: '', parentId: null, assetId: null }]);
    const { res } = await call(srv, '/v1/labelmaker/item/odd?print=true', srv.tokens.print);
    expect(res.status).toBe(200);
    const job = await jobOf(srv, res);
    expect(job.title).toMatch(/^item label: Two lines and 🦀+…$/u);
    expect(Array.from(job.title as string)).toHaveLength(200);
  });
});

describe('print=true with a Zebra printer that is down, then up', () => {
  it('retries with back-off, then delivers ZPL whose codes still scan', async () => {
    const port = await refusedPort();
    srv = await startTestServer({
      PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`,
      // Unpolled: a polled printer that no instance reaches holds its jobs (printer-fleet.test.ts); here its attempts are the subject.
      PRINTER_STATUS_INTERVAL_S: '0',
      PRINT_RETRY_BASE_MS: '100',
      PRINT_RETRY_MAX_MS: '400',
      PRINT_MAX_ATTEMPTS: '50',
      PRINT_TIMEOUT_MS: '2000',
    });
    const { res } = await call(srv, '/v1/labelmaker/assets/000-001?print=true', srv.tokens.print);
    expect(res.status).toBe(200);
    // Down: attempts fail and the error is visible.
    const until = Date.now() + 10_000;
    let job = await jobOf(srv, res);
    while (job.attempts < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      job = await jobOf(srv, res);
    }
    expect(job.attempts).toBeGreaterThanOrEqual(2);
    expect(job.state).not.toBe('printed');
    expect(job.lastError).toMatch(/ECONNREFUSED|refused/i);
    // Up: the next retry delivers.
    sink = await startTcpSink('accept', port);
    const zpl = (await sink.nextJob()).toString('latin1');
    const printed = await waitForState(srv, res, ['printed']);
    expect(printed.attempts).toBeGreaterThanOrEqual(3);
    const codes = await decodeBarcodes(bitmapToPng(decodeZplGraphic(zpl).bitmap));
    // 62 x 29 mm is too short for a sturdy standard Code 128 (4-dot bars across the head): the QR code carries the asset.
    expect(codes.map((c) => c.text)).toEqual([`${PUBLIC_BASE}/a/000-001`]);
  });

  it('fails the job visibly once its attempts are used up', async () => {
    const port = await refusedPort();
    // Unpolled: a polled printer that no instance reaches holds its jobs instead (printer-fleet.test.ts).
    srv = await startTestServer({ PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`, PRINTER_STATUS_INTERVAL_S: '0', PRINT_RETRY_BASE_MS: '20', PRINT_RETRY_MAX_MS: '50', PRINT_MAX_ATTEMPTS: '3' });
    const { res } = await call(srv, `${ITEM}?print=true`, srv.tokens.print);
    const job = await waitForState(srv, res, ['failed']);
    expect(job).toMatchObject({ state: 'failed', attempts: 3, printedAt: null });
    expect(job.lastError).toMatch(/ECONNREFUSED|refused/i);
    // A print token learns nothing of where the printer is, from its errors either (the log keeps the address).
    expect(job.lastError).not.toContain('127.0.0.1');
    expect(job.lastError).not.toContain(String(port));
    expect(job.lastError).toContain('ZPL printer');
  });
});

describe('print=true with a Brother QL network printer', () => {
  it('sends QL raster for the requested stock whose codes still scan', async () => {
    sink = await startTcpSink('accept');
    srv = await startTestServer({ PRINTER_URI: `socket://127.0.0.1:${sink.port}?lang=brother-ql` });
    const { res } = await call(srv, '/v1/labelmaker/assets/000-001?print=true&template=brother-ql-62x29', srv.tokens.print);
    expect(res.status).toBe(200);
    const job = parseQlRaster(await sink.nextJob());
    expect(job).toMatchObject({ widthMm: 62, lengthMm: 29, lines: 271 });
    const media = QL_MEDIA['brother-ql-62x29']!;
    const codes = await decodeBarcodes(bitmapToPng(qlRowsToBitmap(job.rows, 696, media.offsetRight)));
    // 62 x 29 mm is too short for a sturdy standard Code 128 (4-dot bars across the head): the QR code carries the asset.
    expect(codes.map((c) => c.text)).toEqual([`${PUBLIC_BASE}/a/000-001`]);
    expect((await waitForState(srv, res, ['printed'])).template).toBe('brother-ql-62x29');
  });
});

describe('print=true with a real IPP printer (ippeveprinter)', () => {
  it('the printer receives the PNG byte-identical', async () => {
    printer = await startIppEvePrinter();
    srv = await startTestServer({ PRINTER_URI: printer.uri });
    const { res, body } = await call(srv, `${ITEM}?print=true`, srv.tokens.print);
    expect(res.status).toBe(200);
    const job = await waitForState(srv, res, ['printed']);
    expect(job.printer).toBe('default'); // PRINTER_URI's printer by its name, never its address
    const until = Date.now() + 10_000;
    let files: string[] = [];
    while (files.length === 0 && Date.now() < until) {
      files = readdirSync(printer.spoolDir).filter((f) => f.endsWith('.png'));
      if (files.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(files).toHaveLength(1);
    expect(readFileSync(join(printer.spoolDir, files[0]!)).equals(body)).toBe(true);
  });

  it('a printer that takes neither PNG nor PWG raster fails the job with a clear error', async () => {
    printer = await startIppEvePrinter({ formats: ['image/jpeg'] });
    srv = await startTestServer({ PRINTER_URI: printer.uri });
    const { res } = await call(srv, `${ITEM}?print=true`, srv.tokens.print);
    const job = await waitForState(srv, res, ['failed']);
    expect(job.attempts).toBe(1);
    expect(job.lastError).toMatch(/image\/jpeg/);
    expect(job.lastError).toMatch(/image\/png/);
  });
});
