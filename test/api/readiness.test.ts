/**
 * Liveness and readiness are distinct: /readyz asks the store now (with a time-out)
 * and, with printing configured, this instance's print worker; /healthz answers from
 * what the store last saw; /livez only that the process serves. Real server, real SQLite file.
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startPrintDispatcher } from '../../src/printing/dispatcher.js';
import type { PrintJobStore } from '../../src/records/types.js';
import { documentedResponse, schemaErrors } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

async function readyz(s: TestServer) {
  const res = await fetch(`${s.url}/readyz`);
  const body = (await res.json()) as { status?: string; type?: string; detail?: string; checks: Record<string, { ok: boolean; detail?: string }> };
  const doc = documentedResponse('getReadiness', res.status);
  expect(doc, `status ${res.status} is documented`).toBeDefined();
  const type = res.headers.get('content-type')!;
  expect(schemaErrors(doc.content[type].schema, body), JSON.stringify(body)).toBeUndefined();
  expect(res.headers.get('cache-control')).toBe('no-store');
  return { res, body };
}

describe('GET /livez', () => {
  it('answers 200 while the store cannot be read, when /healthz and /readyz answer 503: an outage restarts nothing', async () => {
    srv = await startTestServer();
    await srv.store.close();
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(503);
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(503);
    const res = await fetch(`${srv.url}/livez`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(schemaErrors(documentedResponse('getLiveness', 200).content['application/json'].schema, body)).toBeUndefined();
    expect(body).toEqual({ status: 'alive' });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /readyz', () => {
  it('is ready with the store and the print worker checked when printing is configured', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-ready-${process.pid}`)).href });
    const { res, body } = await readyz(srv);
    expect(res.status).toBe(200);
    expect(body).toEqual({ status: 'ready', checks: { store: { ok: true }, printWorker: { ok: true } } });
  });

  it('is ready with no printer at all, the print worker checked (a printer may be added at run time)', async () => {
    srv = await startTestServer();
    const { res, body } = await readyz(srv);
    expect(res.status).toBe(200);
    expect(body.checks).toEqual({ store: { ok: true }, printWorker: { ok: true } });
  });

  it('is not ready (503) when the store cannot be read', async () => {
    srv = await startTestServer();
    await srv.store.close();
    const { res, body } = await readyz(srv);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(body.type).toBe('/problems/unavailable');
    expect(body.checks.store).toEqual({ ok: false, detail: 'The database cannot be read.' });
  });

  it('is not ready when the print worker cannot reach its queue, while liveness (/healthz) still passes', async () => {
    srv = await startTestServer({ PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-ready-${process.pid}`)).href });
    const db = new Database(join(srv.dir, 'labelmaker.db'));
    db.exec('DROP TABLE print_jobs');
    db.close();
    // The worker finds out on its next look at the queue (it polls every 5 s).
    let last: Awaited<ReturnType<typeof readyz>> | undefined;
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      last = await readyz(srv);
      if (last.res.status === 503) break;
    }
    expect(last!.res.status).toBe(503);
    expect(last!.body.checks).toEqual({ store: { ok: true }, printWorker: { ok: false, detail: 'The print worker cannot reach the print queue in the database.' } });
    expect(last!.body.detail).toMatch(/^Not ready: printWorker: /);
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
  });
});

describe('print worker health', () => {
  afterEach(() => vi.useRealTimers());

  it('reports a dispatcher whose loop has not come round for longer than its poll interval and ten seconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // A queue whose store call never answers (a hung connection).
    const hung: Pick<PrintJobStore, 'claim'> = { claim: () => new Promise(() => {}) };
    const worker = startPrintDispatcher({
      jobs: hung as PrintJobStore,
      printers: { list: async () => [] },
      drivers: { driverFor: () => ({ kind: 'directory', target: 'x', print: async () => {} }), keepOnly: () => {} },
      fallback: { name: 'folder', deviceUri: 'file:///dev/null' },
      logger: pino({ level: 'silent' }),
      timeoutMs: 1_000,
      retryBaseMs: 10,
      retryMaxMs: 10,
      pollMs: 1_000,
    });
    expect(worker.health()).toEqual({ ok: true });
    vi.setSystemTime(Date.now() + 10_000);
    expect(worker.health()).toEqual({ ok: true });
    vi.setSystemTime(Date.now() + 2_000);
    expect(worker.health()).toEqual({ ok: false, detail: 'The print worker has made no progress for over 11 seconds.' });
    void worker.stop(0); // its loop waits on the hung call for ever; nothing else to release
    expect(worker.health().ok).toBe(false);
  });
});
