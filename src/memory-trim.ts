/**
 * Giving memory back: V8's heap on demand (collectGarbage), and the memory malloc holds
 * free, every few seconds (startMallocTrim).
 *
 * glibc returns memory to the system only from the top of an arena. The render
 * threads' native allocations (Cairo surfaces, Pango layouts, zlib state) come and go
 * label by label and leave free chunks inside the arenas, which stay resident.
 * malloc_trim(0) walks every arena and releases the whole free pages inside them;
 * MALLOC_TRIM_THRESHOLD_ only ever trims the top. With distinct labels drawn for 40 s,
 * 232-234 MB of RSS against 251-258 MB without, at the same speed (docs/performance.md, Memory).
 *
 * Called through koffi, a maintained FFI library with prebuilt binaries: Node has no
 * binding for malloc_trim, and an addon of our own would need a compiler at install.
 * The call runs on a libuv thread (koffi's async), so the event loop never waits on
 * the arena locks. Where there is no glibc (musl, macOS) this does nothing.
 */
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full, synchronous collection of this thread's V8 heap. `gc` is not exposed to
 * other code: it is taken from a throw-away context while the flag is briefly on.
 * `givePagesBack`: V8's 'last-resort' collection, which also returns the freed pages
 * (a plain full collection keeps them committed).
 */
export function collectGarbage({ givePagesBack = false } = {}): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  v8.setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', ...(givePagesBack ? { flavor: 'last-resort' } : {}) });
}

export interface MallocTrimmer {
  /** Whether malloc_trim was found (Linux with glibc). */
  readonly available: boolean;
  /** Trims now, off the event loop; resolves to how long it took (ms), or undefined where unavailable. */
  trim(): Promise<number | undefined>;
  /** Ends the periodic trimming. */
  stop(): void;
}

type AsyncTrim = { async(pad: number, done: (err: unknown, result: number) => void): void };

/** malloc_trim from glibc, or undefined where there is none. */
function loadMallocTrim(): AsyncTrim | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const koffi = createRequire(import.meta.url)('koffi') as typeof import('koffi');
    return koffi.load('libc.so.6').func('int malloc_trim(size_t pad)') as unknown as AsyncTrim;
  } catch {
    return undefined; // musl (no libc.so.6, or no malloc_trim in it), or no koffi build for this machine
  }
}

/** Trims every `intervalMs` (0: only when trim() is called). The timer never keeps the process alive. */
export function startMallocTrim(intervalMs: number): MallocTrimmer {
  const mallocTrim = loadMallocTrim();
  let running: Promise<number | undefined> | undefined;
  const trim = () =>
    (running ??= new Promise<number | undefined>((resolve) => {
      if (!mallocTrim) return resolve(undefined);
      const start = process.hrtime.bigint();
      mallocTrim.async(0, () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
    }).finally(() => (running = undefined)));
  const timer = mallocTrim && intervalMs > 0 ? setInterval(() => void trim(), intervalMs).unref() : undefined;
  return { available: mallocTrim !== undefined, trim, stop: () => clearInterval(timer) };
}
