/**
 * The delivery loop against a real SQLite store, with a scripted driver standing
 * in for the printer (the drivers themselves are tested against real peers).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentPrintError, UncertainDeliveryError, type EarlierAttempt, type PrintDocument, type PrinterDriver } from '../../src/printing/drivers/types.js';
import { createPrintQueue } from '../../src/printing/queue.js';
import { startPrintDispatcher, type DispatcherOptions, type PrintDispatcher } from '../../src/printing/dispatcher.js';
import { retryDelayMs } from '../../src/printing/worker.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { Store } from '../../src/records/types.js';

let store: Store | undefined;
let worker: PrintDispatcher | undefined;
let dir: string | undefined;
afterEach(async () => {
  await worker?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = worker = dir = undefined;
});

type Scripted = PrinterDriver & { calls: PrintDocument[]; checks: PrintDocument[] };

/**
 * The fleet's dispatcher delivering to one scripted printer: no printer stored, so the
 * fallback (as PRINTER_URI's `default`) takes every job, through the scripted driver.
 */
function startScripted(opts: Omit<DispatcherOptions, 'printers' | 'drivers' | 'fallback'> & { driver: PrinterDriver }): PrintDispatcher {
  const { driver, ...rest } = opts;
  return startPrintDispatcher({ ...rest, printers: { list: async () => [] }, drivers: { driverFor: () => driver, keepOnly: () => {} }, fallback: { name: 'test printer', deviceUri: 'file:///dev/null' } });
}

/** `answers`: what checkEarlierAttempt says, in order; without it the driver cannot be asked (like raw TCP). */
function scriptedDriver(outcomes: (Error | 'ok' | 'hang')[], answers?: EarlierAttempt[]): Scripted {
  const calls: PrintDocument[] = [];
  const checks: PrintDocument[] = [];
  const driver: Scripted = {
    kind: 'directory',
    target: 'scripted',
    calls,
    checks,
    async print(doc, signal) {
      calls.push(doc);
      const outcome = outcomes.shift() ?? 'ok';
      if (outcome === 'hang') {
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      }
      if (outcome instanceof Error) throw outcome;
    },
  };
  if (answers) {
    driver.checkEarlierAttempt = async (doc) => {
      checks.push(doc);
      return answers.shift() ?? 'unknown';
    };
  }
  return driver;
}

function setup(driver: PrinterDriver, maxAttempts = 5, timeoutMs = 1000) {
  dir = mkdtempSync(join(tmpdir(), 'lm-worker-'));
  store = openSqliteStore(join(dir, 'db.sqlite'));
  worker = startScripted({ jobs: store.printJobs, driver, logger: pino({ level: 'silent' }), timeoutMs, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50 });
  const queue = createPrintQueue({ jobs: store.printJobs, printer: driver.target, maxAttempts, onSubmit: () => worker!.nudge() });
  return queue;
}

const request = { png: Buffer.from('png'), stockName: 'brother-ql-62x29' as const, title: 'item label: Drill', fields: { kind: 'item', id: 'drill' }, tokenId: 't1' };

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
    expect(driver.calls[0]).toMatchObject({ jobId: job.id, createdAt: job.createdAt, title: 'item label: Drill', stockName: 'brother-ql-62x29' });
    expect(await store!.printJobs.get(job.id)).toMatchObject({ possibleDuplicate: false, inDoubt: false });
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
    const jobs: typeof real = { ...real, markPrinted: async (id, owner, marks) => (failures-- > 0 ? Promise.reject(new Error('SQLITE_IOERR')) : real.markPrinted(id, owner, marks)) };
    const driver = scriptedDriver(['ok', 'ok']);
    worker = startScripted({ jobs, driver, logger: pino({ level: 'silent' }), timeoutMs: 1000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50 });
    const queue = createPrintQueue({ jobs, printer: driver.target, maxAttempts: 5, onSubmit: () => worker!.nudge() });
    const { job } = await queue.submit(request);
    expect(await settled(job.id)).toMatchObject({ state: 'printed', attempts: 1 });
    expect(driver.calls).toHaveLength(1);
  });

  /** The real store, its markPrinted slowed by `ms` (a store round trip under load) and logged. */
  function slowStore(ms: number, events: string[]) {
    dir = mkdtempSync(join(tmpdir(), 'lm-worker-'));
    store = openSqliteStore(join(dir, 'db.sqlite'));
    const real = store.printJobs;
    const jobs: typeof real = {
      ...real,
      markPrinted: async (id, owner, marks) => {
        events.push('record');
        await new Promise((r) => setTimeout(r, ms));
        const done = await real.markPrinted(id, owner, marks);
        events.push('recorded');
        return done;
      },
    };
    return jobs;
  }

  it('stop() returns only once the last outcome is recorded', async () => {
    const events: string[] = [];
    const jobs = slowStore(200, events);
    const driver = scriptedDriver([]);
    const queue = createPrintQueue({ jobs, printer: driver.target, maxAttempts: 5, onSubmit: () => {} });
    const { job } = await queue.submit(request);
    worker = startScripted({ jobs, driver, logger: pino({ level: 'silent' }), timeoutMs: 1000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 50 });
    for (let i = 0; i < 200 && !events.includes('record'); i++) await new Promise((r) => setTimeout(r, 5));
    expect(driver.calls).toHaveLength(1);
    await worker.stop();
    worker = undefined;
    expect(events).toContain('recorded');
    expect(await store!.printJobs.get(job.id)).toMatchObject({ state: 'printed' });
  });
});

describe('redelivery after an attempt that may have reached the printer', () => {
  async function teardown(): Promise<void> {
    await worker?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    store = worker = dir = undefined;
  }
  /** A job whose worker died mid-delivery: claimed under a lease that has run out, outcome never recorded. */
  async function abandonedJob(): Promise<string> {
    dir = mkdtempSync(join(tmpdir(), 'lm-worker-'));
    store = openSqliteStore(join(dir, 'db.sqlite'));
    const queue = createPrintQueue({ jobs: store.printJobs, printer: 'scripted', maxAttempts: 5 });
    const { job } = await queue.submit(request);
    expect((await store.printJobs.claim('worker-that-dies', 1))?.id).toBe(job.id);
    await new Promise((r) => setTimeout(r, 5));
    return job.id;
  }
  const start = (driver: PrinterDriver) => {
    worker = startScripted({ jobs: store!.printJobs, driver, logger: pino({ level: 'silent' }), timeoutMs: 1000, retryBaseMs: 10, retryMaxMs: 40, pollMs: 20 });
  };

  it('the printer already has it: recorded as printed, nothing sent again', async () => {
    const id = await abandonedJob();
    const driver = scriptedDriver([], ['delivered']);
    start(driver);
    expect(await settled(id)).toMatchObject({ state: 'printed', attempts: 2, possibleDuplicate: false, inDoubt: false });
    expect(driver.checks.map((d) => d.jobId)).toEqual([id]);
    expect(driver.calls).toHaveLength(0);
  });

  it('the printer has no trace of it: sent once more, not a duplicate', async () => {
    const id = await abandonedJob();
    const driver = scriptedDriver(['ok'], ['not-delivered']);
    start(driver);
    expect(await settled(id)).toMatchObject({ state: 'printed', possibleDuplicate: false });
    expect([driver.checks.length, driver.calls.length]).toEqual([1, 1]);
  });

  it('a printer that cannot be asked gets it again, and the job says it may have printed twice', async () => {
    const id = await abandonedJob();
    const driver = scriptedDriver(['ok']); // raw TCP: no checkEarlierAttempt
    start(driver);
    expect(await settled(id)).toMatchObject({ state: 'printed', attempts: 2, possibleDuplicate: true, inDoubt: false });
    expect(driver.calls).toHaveLength(1);
  });

  it("'unknown' from the printer is the same as not being able to ask", async () => {
    const id = await abandonedJob();
    start(scriptedDriver(['ok'], ['unknown']));
    expect(await settled(id)).toMatchObject({ state: 'printed', possibleDuplicate: true });
  });

  it('an uncertain failure makes the next attempt a redelivery; a certain one does not', async () => {
    const blind = scriptedDriver([new UncertainDeliveryError('printer 10.0.0.20:9100: timed out'), 'ok']);
    const queue = setup(blind);
    const { job } = await queue.submit(request);
    const done = await settled(job.id);
    expect(done).toMatchObject({ state: 'printed', attempts: 2, possibleDuplicate: true });
    expect(done.lastError).toMatch(/timed out \(after the label was sent: the printer may have printed it\)/);
    await teardown();

    const asks = scriptedDriver([new UncertainDeliveryError('timed out'), 'ok'], ['not-delivered']);
    const q2 = setup(asks);
    const second = (await q2.submit(request)).job;
    expect(await settled(second.id)).toMatchObject({ state: 'printed', attempts: 2, possibleDuplicate: false });
    expect(asks.checks).toHaveLength(1); // asked before the second attempt only
    await teardown();

    const certain = scriptedDriver([new Error('connect ECONNREFUSED'), 'ok'], []);
    const q3 = setup(certain);
    const third = (await q3.submit(request)).job;
    expect(await settled(third.id)).toMatchObject({ state: 'printed', attempts: 2, possibleDuplicate: false });
    expect(certain.checks).toHaveLength(0); // nothing reached the printer: nothing to ask
  });

  it('a redelivery that fails again uncertainly is flagged even though the job ends failed', async () => {
    const queue = setup(scriptedDriver([new UncertainDeliveryError('timed out'), new UncertainDeliveryError('timed out')]), 2);
    const { job } = await queue.submit(request);
    const done = await settled(job.id);
    expect(done).toMatchObject({ state: 'failed', attempts: 2, possibleDuplicate: true });
    expect(done.lastError).toMatch(/may have printed it/);
  });

  it('a printer whose check fails keeps the job in doubt until it can be asked', async () => {
    const id = await abandonedJob();
    const driver: Scripted = scriptedDriver(['ok'], ['delivered']);
    const check = driver.checkEarlierAttempt!;
    let refusals = 2;
    driver.checkEarlierAttempt = async (doc, signal) => (refusals-- > 0 ? Promise.reject(new Error('connect ECONNREFUSED')) : check(doc, signal));
    start(driver);
    expect(await settled(id)).toMatchObject({ state: 'printed', attempts: 4, possibleDuplicate: false, lastError: 'connect ECONNREFUSED' });
    expect(driver.calls).toHaveLength(0);
  });
});
