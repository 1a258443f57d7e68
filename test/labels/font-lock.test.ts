/**
 * The font lock (src/labels/font-lock.ts): one thread of the process at a time in
 * cairo's font code, the main thread and render threads alike; a holder that exits
 * without giving it back does not keep it; a thread without it cannot load the engine.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { fontLockBuffer, withFontLock } from '../../src/labels/font-lock.js';
import { bump } from '../helpers/font-lock-thread.js';

const started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((w) => w.terminate()));
});

/** A thread of test/helpers/font-lock-thread.ts, given the process's lock unless `lock` is false. */
function thread(role: 'bump' | 'hold' | 'draw' | 'load', opts: { lock?: boolean; shared?: SharedArrayBuffer; rounds?: number } = {}): Worker {
  const w = new Worker(new URL('../helpers/font-lock-thread.ts', import.meta.url), {
    execArgv: ['--import', 'tsx'],
    workerData: { role, shared: opts.shared, rounds: opts.rounds, ...(opts.lock === false ? {} : { fontLock: fontLockBuffer }) },
  });
  started.push(w);
  return w;
}

const message = (w: Worker) =>
  new Promise<unknown>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });

describe('withFontLock', () => {
  it('lets one thread in at a time: a counter bumped non-atomically inside it loses no update among 3 threads', async () => {
    // [0] the counter, [1] a word to sleep on, [2] the start signal.
    const counter = new Int32Array(new SharedArrayBuffer(12));
    const ROUNDS = 50;
    const workers = [0, 1].map(() => thread('bump', { shared: counter.buffer as SharedArrayBuffer, rounds: ROUNDS }));
    expect(await Promise.all(workers.map(message))).toEqual(['ready', 'ready']);
    const done = Promise.all(workers.map(message));
    Atomics.store(counter, 2, 1);
    Atomics.notify(counter, 2);
    for (let i = 0; i < ROUNDS; i++) withFontLock(() => bump(counter));
    expect(await done).toEqual(['done', 'done']);
    expect(counter[0]).toBe(3 * ROUNDS);
  }, 60_000);

  // A render thread stopped (terminate(), out of memory) between taking the lock and giving it back.
  it.runIf(process.platform === 'linux')('is not kept by a thread that exits holding it', async () => {
    const holder = thread('hold');
    expect(await message(holder)).toBe('holding');
    const word = new Int32Array(fontLockBuffer);
    expect(Atomics.load(word, 0)).not.toBe(0);
    await holder.terminate();
    // Taken on another thread, so that a lock kept for good fails this test instead of blocking its process.
    expect(await message(thread('draw'))).toBe('drawn');
    expect(Atomics.load(word, 0)).toBe(0);
  }, 60_000);

  it("refuses to load in a thread started without the process's lock (its own would not keep it out of the others' way)", async () => {
    expect(await message(thread('load', { lock: false }))).toEqual({ error: expect.stringMatching(/font lock in workerData/) });
  }, 60_000);
});
