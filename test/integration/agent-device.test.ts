/**
 * The point of a USB printer address (issue 31): a label printer on the USB port of a
 * small machine, driven by `labelmaker agent` beside it. The service (its own process,
 * a real SQLite file) binds a ZPL printer on a device (a FIFO read by a printer stand-in,
 * test/helpers/fifo-printer.ts) to the agent `shed`; the agent, a child process as users
 * run it, claims the job over HTTP, writes it to the device, and reports it printed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { decodeMonoPng } from '../../src/labels/index.js';
import { openStore } from '../../src/records/index.js';
import { startFifoPrinter, type FifoPrinter } from '../helpers/fifo-printer.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, killHard, startService } from '../helpers/service.js';
import { decodeZplGraphic, sameBitmap } from '../printing/decoders.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_MS = 120_000;
const dir = mkdtempSync(join(tmpdir(), 'lm-agent-usb-'));
let printer: FifoPrinter | undefined;
let agent: ChildProcess | undefined;

afterAll(async () => {
  if (agent) await killHard(agent);
  killAllServices();
  await printer?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

it('the agent prints a job of its USB printer to the device, once, in ZPL, and reports it printed', async () => {
  const serviceSpool = join(dir, 'service-spool');
  mkdirSync(serviceSpool);
  printer = startFifoPrinter(dir, { lang: 'zpl' });
  const db = join(dir, 'labelmaker.db');
  const store = await openStore(`sqlite:${db}`);
  await store.records.upsertMany(FIXTURES);
  const print = (await createToken(store, 'printer', ['labels:read', 'labels:print'])).token;
  const admin = (await createToken(store, 'admin', ['labels:read', 'labels:print', 'printers:admin'])).token;
  const shed = (await createToken(store, 'shed', ['printers:agent'])).token;
  await store.close();
  const svc = await startService(
    { DATABASE_URL: `sqlite:${db}`, PORT: String(await freePort()), PRINTER_URI: pathToFileURL(serviceSpool).href, PRINTER_STATUS_INTERVAL_S: '1' },
    { startMs: START_MS },
  );
  const call = (token: string, path: string, init: RequestInit = {}) =>
    fetch(svc.url + path, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}) } });

  const deviceUri = `${pathToFileURL(printer.path).href}?lang=zpl`;
  const put = await call(admin, '/v1/labelmaker/printers/shed-usb', { method: 'PUT', body: JSON.stringify({ title: 'Shed Zebra', deviceUri, agent: 'shed' }) });
  expect(put.status, await put.text()).toBe(201);

  const res = await call(print, '/v1/labelmaker/assets/000-001?print=true&printer=shed-usb');
  expect(res.status).toBe(200);
  const label = Buffer.from(await res.arrayBuffer());
  const link = res.headers.get('print-job')!;

  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'agent', '--service', svc.url, '--name', 'shed', '--print-timeout-ms', '5000', '--status-interval-s', '1'], {
    cwd: ROOT,
    env: { ...process.env, LABELMAKER_AGENT_TOKEN: shed, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agent = child;
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));

  const zpl = (await printer.nextJob(START_MS)).toString('latin1');
  expect(zpl).toContain(`^FXlabelmaker job ${link.split('/').pop()}`);
  expect(sameBitmap(decodeZplGraphic(zpl).bitmap, decodeMonoPng(label))).toBe(true);

  const until = Date.now() + 30_000;
  let job: { state: string; attempts: number; printer: string } | undefined;
  while (Date.now() < until) {
    job = (await (await call(print, link)).json()) as typeof job;
    if (job!.state === 'printed') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(job, out).toMatchObject({ state: 'printed', attempts: 1, printer: 'shed-usb' });
  // The agent read its status: a printer on a device cannot tell, so unknown (never "ready").
  const status = await (async () => {
    for (const end = Date.now() + 15_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      const s = ((await (await call(print, '/v1/labelmaker/printers/shed-usb')).json()) as { status: { state: string; message: string } | null }).status;
      if (s) return s;
    }
    return undefined;
  })();
  expect(status).toMatchObject({ state: 'unknown', message: expect.stringMatching(/local device/) });
  expect(printer.received()).toHaveLength(1);
  expect(readdirSync(serviceSpool)).toEqual([]);
}, 300_000);
