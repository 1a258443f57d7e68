/**
 * One thread at a time in the font engine. Cairo 1.16 (Debian 12's libcairo2) shares
 * FreeType faces between all threads of a process and keeps at most 10 of them open:
 * to open another it closes one it takes for unused, judging by the face's lock count
 * without taking the face's lock (cairo-ft-font.c, _cairo_ft_unscaled_font_lock_face),
 * and it opens faces (FT_New_Face) outside its own lock. The bundled fonts are 30 files
 * (fonts.ts), so labels in several scripts open and close faces all the time, and a
 * thread drawing text can have its face closed under it: the whole process dies
 * (SIGSEGV in cairo_scaled_font_glyph_extents on a closed face while the main thread
 * was in FT_New_Face: a vitest fork running render-pool.test.ts, whose main thread
 * draws the hostile samples beside two render threads).
 *
 * So every canvas call that reaches fonts runs inside withFontLock: measuring and
 * drawing text, and a PDF's toBuffer (it embeds the fonts' subsets). Fitting, codes,
 * rectangles and PNG encoding still run on every thread at once; the locked calls (Pango
 * shapes text inside them) are a quarter to a third of a label's time. The lock is a word
 * in a SharedArrayBuffer that the main thread creates and render threads inherit
 * (render-pool.ts, workerData).
 */
import { isMainThread, threadId, workerData } from 'node:worker_threads';
import { osThreadAlive, osThreadId } from './os-thread.js';

/** What a render thread inherits from the thread that started it: the process's one lock. */
export interface FontLockWorkerData {
  fontLock?: SharedArrayBuffer;
}

const inherited = isMainThread ? undefined : (workerData as FontLockWorkerData | undefined)?.fontLock;
if (!isMainThread && !inherited) {
  // A lock of its own would not keep this thread out of the others' way.
  throw new Error('the label engine runs on the main thread or on threads given its font lock in workerData (fontLock: fontLockBuffer, as render-pool.ts does)');
}

/** The lock word, shared by every thread of the process: 0 when free, else its holder's id. */
export const fontLockBuffer: SharedArrayBuffer = inherited ?? new SharedArrayBuffer(4);
const word = new Int32Array(fontLockBuffer);

/**
 * This thread's id in the word: the kernel's where there is one, so that a waiter can
 * tell a holder that has exited (a render thread stopped by terminate() or out of memory
 * between taking the lock and giving it back never gives it back), else Node's (+1: the
 * main thread's is 0; a holder that exits then keeps the lock).
 */
const tid = osThreadId();
const me = tid ?? threadId + 1;

/** A waiter looks whether the holder still runs this often, and says so once after WARN_AFTER_MS. */
const CHECK_MS = 100;
const WARN_AFTER_MS = 10_000;

let depth = 0;

/** Runs `draw` (canvas calls that measure or draw text, or finish a PDF) while no other thread does. */
export function withFontLock<T>(draw: () => T): T {
  if (depth === 0) acquire();
  depth++;
  try {
    return draw();
  } finally {
    if (--depth === 0) release();
  }
}

function acquire(): void {
  for (let waited = 0; ; ) {
    const holder = Atomics.compareExchange(word, 0, 0, me);
    if (holder === 0) return;
    if (Atomics.wait(word, 0, holder, CHECK_MS) !== 'timed-out') continue;
    waited += CHECK_MS;
    // Listed in /proc until it has exited: a thread stopped in the middle of a canvas call finishes the call first.
    if (tid !== undefined && !osThreadAlive(holder)) {
      Atomics.compareExchange(word, 0, holder, 0);
      continue;
    }
    if (waited === WARN_AFTER_MS) process.emitWarning(`waited ${WARN_AFTER_MS / 1000} s for the font lock, held by thread ${holder}`);
  }
}

function release(): void {
  if (Atomics.compareExchange(word, 0, me, 0) !== me) throw new Error('the font lock was released by another thread while this one held it');
  Atomics.notify(word, 0, 1);
}
