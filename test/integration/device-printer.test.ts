/**
 * A USB label printer (usblp's /dev/usb/lp0) from the user's side: the real server over a
 * real SQLite file, PRINTER_URI `file:///…/lp0?lang=…` naming a FIFO whose reader is
 * another process standing in for the printer (test/helpers/fifo-printer.ts). What it
 * reads is decoded by the protocol decoders the network printers' tests use, and must be
 * the label the request returned, printed once. Nobody reading the device: each attempt
 * times out, the job is retried and fails with its error shown, and the queue goes on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeMonoPng } from '../../src/labels/index.js';
import { QL_MEDIA } from '../../src/printing/drivers/brother-ql.js';
import { startFifoPrinter, type FifoPrinter } from '../helpers/fifo-printer.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { documentedResponse, schemaErrors } from '../helpers/spec.js';
import { decodeZplGraphic, parseQlRaster, qlRowsToBitmap, sameBitmap } from '../printing/decoders.js';

let srv: TestServer | undefined;
let printer: FifoPrinter | undefined;
let dir: string | undefined;
afterEach(async () => {
  await srv?.stop();
  await printer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  srv = printer = dir = undefined;
});

type Job = { id: string; state: string; attempts: number; lastError: string | null; printer: string };

async function print(s: TestServer, path: string) {
  const res = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${s.tokens.print}`, Accept: 'image/png' } });
  expect(res.status).toBe(200);
  return { label: Buffer.from(await res.arrayBuffer()), link: res.headers.get('print-job')! };
}

async function jobAt(s: TestServer, link: string): Promise<Job> {
  const res = await fetch(`${s.url}${link}`, { headers: { Authorization: `Bearer ${s.tokens.print}` } });
  expect(res.status).toBe(200);
  expect(documentedResponse('getPrintJob', 200)).toBeDefined();
  const job = (await res.json()) as Job;
  expect(schemaErrors(documentedResponse('getPrintJob', 200).content['application/json'].schema, job)).toBeUndefined();
  return job;
}

async function until(s: TestServer, link: string, states: string[], timeoutMs = 30_000): Promise<Job> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = await jobAt(s, link);
    if (states.includes(job.state)) return job;
    if (Date.now() > end) throw new Error(`job still ${job.state} (${job.lastError ?? 'no error'})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The default printer's status as the API shows it. */
async function status(s: TestServer) {
  const res = await fetch(`${s.url}/v1/labelmaker/printers/default/status`, { method: 'POST', headers: { Authorization: `Bearer ${s.tokens.admin}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { status: { state: string; reasons: string[] } }).status;
}

const deviceDir = () => (dir = mkdtempSync(join(tmpdir(), 'labelmaker-usb-')));

describe('a label printer on a USB device (a FIFO read by a printer stand-in)', () => {
  it('Brother QL: print=true sends the label as QL raster, once; its status is unknown, never ready', async () => {
    printer = startFifoPrinter(deviceDir(), { lang: 'brother-ql' });
    srv = await startTestServer({ PRINTER_URI: `${pathToFileURL(printer.path).href}?lang=brother-ql&model=QL-820NWB` });
    const { label, link } = await print(srv, '/v1/labelmaker/assets/000-001?print=true&template=brother-ql-62x29');
    const job = await until(srv, link, ['printed', 'failed']);
    expect(job).toMatchObject({ state: 'printed', attempts: 1, lastError: null });

    const raster = parseQlRaster(await printer.nextJob());
    expect(raster).toMatchObject({ widthMm: 62, lengthMm: 29, lines: 271, compressed: true });
    const media = QL_MEDIA['brother-ql-62x29']!;
    expect(sameBitmap(qlRowsToBitmap(raster.rows, media.printableWidth, media.offsetRight), decodeMonoPng(label))).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(printer.received()).toHaveLength(1);
    expect(printer.bytes().length).toBe(printer.received()[0]!.length);

    expect(await status(srv)).toMatchObject({ state: 'unknown' });
  });

  it('Zebra: print=true sends the label as ZPL, once', async () => {
    printer = startFifoPrinter(deviceDir(), { name: 'lp1', lang: 'zpl' });
    srv = await startTestServer({ PRINTER_URI: `${pathToFileURL(printer.path).href}?lang=zpl` });
    const { label, link } = await print(srv, '/v1/labelmaker/item/tape-measure?print=true');
    expect(await until(srv, link, ['printed', 'failed'])).toMatchObject({ state: 'printed', attempts: 1 });
    const zpl = (await printer.nextJob()).toString('latin1');
    expect(zpl).toContain(`^FXlabelmaker job ${link.split('/').pop()}`);
    expect(sameBitmap(decodeZplGraphic(zpl).bitmap, decodeMonoPng(label))).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(printer.received()).toHaveLength(1);
    expect(printer.bytes().length).toBe(printer.received()[0]!.length);
  });

  it('nobody reads the device: every attempt times out, the job fails with its error, and the queue goes on', async () => {
    printer = startFifoPrinter(deviceDir(), { lang: 'zpl', reader: false });
    srv = await startTestServer({
      PRINTER_URI: `${pathToFileURL(printer.path).href}?lang=zpl`,
      PRINT_TIMEOUT_MS: '1000',
      PRINT_MAX_ATTEMPTS: '2',
      PRINT_RETRY_BASE_MS: '200',
      PRINT_RETRY_MAX_MS: '200',
    });
    const started = Date.now();
    const stuck = await print(srv, '/v1/labelmaker/assets/000-001?print=true');
    const failed = await until(srv, stuck.link, ['failed', 'printed'], 15_000);
    expect(failed).toMatchObject({ state: 'failed', attempts: 2 });
    expect(failed.lastError).toBe('ZPL printer: still waiting for the device to open: timed out after 1000 ms');
    expect(Date.now() - started).toBeLessThan(10_000);

    // The printer comes on: the next job prints, once.
    printer.startReader();
    const next = await print(srv, '/v1/labelmaker/item/tape-measure?print=true');
    expect(await until(srv, next.link, ['printed', 'failed'])).toMatchObject({ state: 'printed', attempts: 1 });
    expect(decodeZplGraphic((await printer.nextJob()).toString('latin1')).bitmap.width).toBeGreaterThan(0);
    expect(printer.received()).toHaveLength(1);
  });

  it('a device that is not there: the job fails naming its path', async () => {
    const missing = join(deviceDir(), 'usb', 'lp0');
    srv = await startTestServer({ PRINTER_URI: `${pathToFileURL(missing).href}?lang=brother-ql`, PRINT_MAX_ATTEMPTS: '1', PRINTER_STATUS_INTERVAL_S: '0' });
    const { link } = await print(srv, '/v1/labelmaker/assets/000-001?print=true&template=brother-ql-62x29');
    const job = await until(srv, link, ['failed', 'printed']);
    expect(job.state).toBe('failed');
    expect(job.lastError).toContain(`${missing} does not exist (ENOENT)`);
  });
});
