/**
 * Threads as the operating system knows them (Linux): a render thread sets its own
 * priority by its id (render-worker.ts), and the font lock (font-lock.ts) tells a
 * holder that has exited from one still drawing. Elsewhere there is no id.
 */
import { existsSync, readlinkSync } from 'node:fs';

/** This thread's id in the kernel (its entry in /proc/self/task), or undefined outside Linux. */
export function osThreadId(): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a thread of this process with that id still runs (it is listed until it has exited). */
export function osThreadAlive(tid: number): boolean {
  return existsSync(`/proc/self/task/${tid}`);
}
