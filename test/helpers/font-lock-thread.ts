/**
 * A worker thread for font-lock.test.ts, doing what workerData.role says with the font lock:
 * 'bump' a shared counter non-atomically inside it `rounds` times once the test says
 * go, 'hold' it forever,
 * 'draw' once, or 'load' the module (which refuses without the lock). Posts 'ready' and
 * 'done', 'holding', 'drawn' or 'loaded', or { error } if loading failed.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';

// Imported on the main thread by the test for bump() alone.
if (!isMainThread) await run(workerData as { role: 'bump' | 'hold' | 'draw' | 'load'; shared?: SharedArrayBuffer; rounds?: number });

async function run({ role, shared, rounds }: { role: 'bump' | 'hold' | 'draw' | 'load'; shared?: SharedArrayBuffer; rounds?: number }): Promise<void> {
  try {
    const { withFontLock } = await import('../../src/labels/font-lock.js');
    if (role === 'bump') {
      const counter = new Int32Array(shared!);
      // Ready, then all at once: counter[2] is the start signal.
      parentPort!.postMessage('ready');
      Atomics.wait(counter, 2, 0);
      for (let i = 0; i < rounds!; i++) withFontLock(() => bump(counter));
      parentPort!.postMessage('done');
    } else if (role === 'hold') {
      withFontLock(() => {
        parentPort!.postMessage('holding');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
      });
    } else if (role === 'draw') parentPort!.postMessage(withFontLock(() => 'drawn'));
    else parentPort!.postMessage('loaded');
  } catch (err) {
    parentPort!.postMessage({ error: String(err) });
  }
}

/** counter[0] read, 1 ms, written back: two threads doing this at once lose an update. */
export function bump(counter: Int32Array): void {
  const v = counter[0]!;
  Atomics.wait(counter, 1, 0, 1);
  counter[0] = v + 1;
}
