/**
 * The delivery loop against a real SQLite store, with a scripted driver standing
 * in for the printer (the drivers themselves are tested against real peers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentPrintError, type PrintDocument, type PrinterDriver } from '../../src/printing/drivers/types.js';
import { createPrintQueue } from '../../src/printing/queue.js';
import { retryDelayMs, startPrintWorker, type PrintWorker } from '../../src/printing/worker.js';
import { openSqliteStore } from '../../src/records/sqlite-store.js';
import type { Store } from '../../src/records/types.js';

let store: Store | undefined;
let worker: PrintWorker | undefined;
let dir: string | undefined;
afterEach(async () => {
  await worker?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = worker = dir = undefined;
});

function scriptedDriver(outcomes: (Error | 'ok' | 'hang')[]): PrinterDriver & { calls: PrintDocument[] } {
  const calls: PrintDocument[] = [];
  return {
    kind: 'directory',
    target: 'scripted',
    calls,
    async print(doc, signal) {
      calls.push(doc);
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'hang') {
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      if (outcome instanceof Error) throw outcome;
    },
  };
}

function setup(driver: PrinterDriver, maxAttempts = 5, timeoutMs = 1000) {
  dir = mkdtempSync(join(tmpdir(), 'lm-worker-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  worker = startPrintWorker({ jobs: store.printJobs, driver, logger: pino({ level: 'silent' }), timeoutMs, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50 });
  const queue = createPrintQueue({ jobs: store.printJobs, printer: driver.target, maxAttempts, onSubmit: () => worker!.nudge() });
  return queue;
}

const request = { png: Buffer.from('png'), template: 'brother-ql-62x29' as const, title: 'item label: Drill', fields: { kind: 'item', id: 'drill' }, tokenId: 't1' };

async function settled(id: string) {
  for (let i = 0; i < 200; i++) {
    const job = await store!.printJobs.get(id);
    if (job && (job.state === 'printed' || job.state === 'failed')) return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('job did not settle');
}

describe('retryDelayMs', () => {
  it('grows exponentially, is capped, and is jittered around the step', () => {
    expect(retryDelayMs(1, 1000, 60_000, () => 0.5)).toBe(1000);
    expect(retryDelayMs(3, 1000, 60_000, () => 0.5)).toBe(4000);
    expect(retryDelayMs(20, 1000, 60_000, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(2, 1000, 60_000, () => 0)).toBe(1000);
    expect(retryDelayMs(2, 1000, 60_000, () => 0.999)).toBe(2998);
  });
});

describe('print worker', () => {
  it('delivers a submitted job at once', async () => {
    const driver = scriptedDriver(['ok']);
    const queue = setup(driver);
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'printed', attempts: 1 });
    expect(driver.calls).toHaveLength(1);
    expect(driver.calls[0]).toMatchObject({ title: 'item label: Drill', template: 'brother-ql-62x29' });
  });

  it('retries failed attempts and keeps the last error until it prints', async () => {
    const driver = scriptedDriver([new Error('paper out'), new Error('cover open'), 'ok']);
    const queue = setup(driver);
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'printed', attempts: 3, lastError: 'cover open' });
  });

  it('fails the job after maxAttempts, with the error visible', async () => {
    const queue = setup(scriptedDriver([new Error('offline'), new Error('offline'), new Error('still offline')]), 3);
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'failed', attempts: 3, lastError: 'still offline' });
  });

  it('fails at once on a permanent error', async () => {
    const driver = scriptedDriver([new PermanentPrintError('printer does not take image/png')]);
    const queue = setup(driver);
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'failed', attempts: 1, lastError: 'printer does not take image/png' });
    expect(driver.calls).toHaveLength(1);
  });

  it('a hung printer is cut off by the time-out and retried', async () => {
    const queue = setup(scriptedDriver(['hang', 'ok']), 5, 200);
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'printed', attempts: 2, lastError: 'timed out after 200 ms' });
  });

  it('the same idempotency key returns the same job and prints once', async () => {
    const driver = scriptedDriver(['ok', 'ok']);
    const queue = setup(driver);
    const a = await queue.submit({ ...request, idempotencyKey: 'k1' });
    const b = await queue.submit({ ...request, idempotencyKey: 'k1' });
    expect(b.created).toBe(false);
    expect(b.job.id).toBe(a.job.id);
    await settled(a.job.id);
    await new Promise((r) => setTimeout(r, 100));
    expect(driver.calls).toHaveLength(1);
    await expect(queue.submit({ ...request, fields: { kind: 'item', id: 'other' }, idempotencyKey: 'k1' })).rejects.toThrow(/already used/);
  });

  it('stop() cancels a delivery that outlasts the grace period and requeues the job', async () => {
    const queue = setup(scriptedDriver(['hang']), 5, 60_000);
    const { job } = await queue.submit(request);
    for (let i = 0; i < 100 && (await store!.printJobs.get(job.id))?.state !== 'printing'; i++) await new Promise((r) => setTimeout(r, 10));
    const started = Date.now();
    await worker!.stop(100);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await store!.printJobs.get(job.id)).toMatchObject({ state: 'queued', lastError: 'the service is shutting down' });
    worker = undefined;
  });

  it('a store hiccup while recording a print does not print it again', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lm-worker-'));
    store = openSqliteStore(join(dir, 'db.sqlite'));
    const real = store.printJobs;
    let failures = 1;
    // Fault injection: the first markPrinted fails as if the database blinked.
    const jobs = { ...real, markPrinted: async (id: string, owner: string) => (failures-- > 0 ? Promise.reject(new Error('SQLITE_IOERR')) : real.markPrinted(id, owner)) };
    const driver = scriptedDriver(['ok', 'ok']);
    worker = startPrintWorker({ jobs, driver, logger: pino({ level: 'silent' }), timeoutMs: 1000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50 });
    const queue = createPrintQueue({ jobs, printer: driver.target, maxAttempts: 5, onSubmit: () => worker!.nudge() });
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'printed', attempts: 1 });
    expect(driver.calls).toHaveLength(1);
  });
});
