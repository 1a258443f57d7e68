/**
 * Rendering off the event loop: a pool of worker threads (piscina), each with
 * its own copy of the engine, so one process draws on every core while the
 * main thread keeps answering requests, accepting connections and printing.
 * threads = 0 renders on the calling thread (the engine is synchronous).
 *
 * A render that throws gives its error to the caller (LabelFitError as
 * itself); a worker that dies mid-render (killed, out of memory) is replaced
 * by the pool and the render is tried once more on a fresh worker. Workers that
 * die while they load are handled here, not by piscina (see startPool).
 */
import { ProblemError } from '../errors.js';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { fitImageToStock, ImageError, type FittedImage } from './fit-image.js';
import { fontLockBuffer } from './font-lock.js';
import type { LabelRecord, Template } from './design.js';
import { fontIsolation, type FontWorkerData } from './fonts.js';
import { LabelFitError } from './layout.js';
import { renderLabel } from './render.js';
import type { FitImageReply, FitImageTask, RenderReply, RenderTask, ScanReply, ScanTask, SheetReply, SheetTask } from './render-worker.js';
import { scanCodes, type ScannedCode } from './scan-check.js';
import { renderCalibrationPdf, renderSheetPdf, SheetTimeoutError, type SheetOptions, type SheetPdf } from './sheet-pdf.js';
import type { Stock } from './stock.js';

/** What a rendered label is to the service: its bytes and what the reader should know. */
export interface RenderedBytes {
  png: Buffer;
  warnings: string[];
  missingGlyphs: number[];
}

export interface Renderer {
  render(record: LabelRecord, template: Template, opts?: { footer?: string }): Promise<RenderedBytes>;
  /** An uploaded PNG checked, decoded and fitted to the stock (fit-image.ts); ImageError when it cannot be printed. */
  fitImage(png: Buffer, stock: Stock): Promise<FittedImage>;
  /** A sheet PDF (sheet-pdf.ts), drawn whole on one render thread. */
  sheet(records: { record: LabelRecord; copies: number }[], opts: Omit<SheetOptions, 'yieldEvery'>): Promise<SheetPdf>;
  /** A sheet product's calibration page (sheet-pdf.ts renderCalibrationPdf), on a render thread too. */
  calibration(opts: Pick<SheetOptions, 'product' | 'template' | 'offsetMm' | 'offsetFrom'>): Promise<SheetPdf>;
  /** A design's scan check (scan-check.ts): its codes on sample labels, damaged and read, on a render thread. */
  scan(template: Template, records: LabelRecord[], codeElements: number[] | null): Promise<ScannedCode[]>;
  /** Worker threads (0: renders on the calling thread). */
  readonly threads: number;
  /** The worker threads now running (none in-thread): for tests and metrics. */
  workers(): readonly Worker[];
  /** For readiness: not ok while the engine pauses between restarts (RenderUnavailableError meanwhile). */
  health(): { ok: boolean; detail?: string };
  close(): Promise<void>;
}

export function inThreadRenderer(): Renderer {
  return {
    threads: 0,
    render: async (record, template, opts = {}) => {
      const { png, warnings, missingGlyphs } = renderLabel(record, template, opts);
      return { png, warnings, missingGlyphs };
    },
    fitImage: (png, stock) => fitImageToStock(png, stock),
    sheet: (records, opts) => renderSheetPdf(records, opts),
    calibration: async (opts) => renderCalibrationPdf(opts),
    scan: (template, records, codeElements) => scanCodes(template, records, codeElements),
    workers: () => [],
    health: () => ({ ok: true }),
    close: async () => {},
  };
}

/**
 * The worker's module: compiled JavaScript in dist/, TypeScript (through tsx) when run
 * from src/. Workers get an execArgv of their own, not the process's (V8 flags such as
 * --max-semi-space-size are refused there), plus its CPU-profiling flags, so a profiled
 * service (bench:http --cpu-prof) profiles its render threads too.
 */
function workerModule(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './render-worker.ts' : './render-worker.js', import.meta.url);
  return { filename: fileURLToPath(url), execArgv: [...(fromSource ? ['--import', 'tsx'] : []), ...profilingArgs(process.execArgv)] };
}

/** --cpu-prof and the options that go with it (with their values), from a process's execArgv. */
export function profilingArgs(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (!arg.startsWith('--cpu-prof')) continue;
    out.push(arg);
    // --cpu-prof-dir DIR (not --cpu-prof-dir=DIR) takes the next argument as its value.
    if (arg !== '--cpu-prof' && !arg.includes('=') && i + 1 < execArgv.length) out.push(execArgv[++i]!);
  }
  return out;
}

/**
 * Young generation of a render thread, MB (1 MB semi-spaces; Worker resourceLimits). A
 * render's garbage is short-lived and small: against 8 MB of new space, `npm run
 * bench:http -- --only distinct,soak` on 27 November measured about 20 MB less RSS for
 * 2-5% fewer distinct labels a second (the pool alone 2,042-2,046 against 2,098-2,130).
 */
const YOUNG_GENERATION_MB = 3;

/**
 * Renders handed to a thread before it finishes the one it draws. Renders are
 * synchronous, so they do not run at once: they wait in the thread's own message
 * queue, and a thread that finishes one starts the next at once. With one at a time
 * (piscina's default) a thread waited for the main thread, busy reading requests and
 * writing responses, to hand it the next render: under HTTP load each render thread
 * was idle about half the time. Distinct labels, `npm run bench:http -- --only
 * distinct` on 27 November: 903-942 req/s with 1, 1,034 with 2, 1,166 with 4,
 * 1,232-1,252 with 8 (the pool alone: 1,430). Bounded so that a slow render delays
 * few others on its thread.
 */
const RENDERS_QUEUED_PER_THREAD = 8;

/** Pools in a row whose workers died before any render completed; after that many, starts are spaced out and renders fail fast in between. */
const FAILED_STARTS_BEFORE_PAUSE = 3;
const PAUSE_MS = { first: 1_000, max: 30_000 };

/** No render thread is running: they keep dying while they start. The service answers 503. */
export class RenderUnavailableError extends ProblemError {
  override name = 'RenderUnavailableError';
  constructor(readonly retryAfterSeconds: number) {
    const message = 'The label engine is restarting (its render threads died while starting).';
    super('unavailable', message, {
      detail: `${message} Try again shortly.`,
      headers: { 'Retry-After': String(retryAfterSeconds) },
      logAs: 'render threads unavailable',
    });
  }
}

export function poolRenderer(threads: number): Renderer {
  if (threads < 1) return inThreadRenderer();
  let closed = false;
  let failedStarts = 0;
  let rendered = false; // on the current pool
  let pausedUntil = 0;
  let current: Pool | undefined = startPool();

  function startPool(): Pool {
    const pool: Pool = new Piscina({
      ...workerModule(),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity, // workers load fonts once; keep them
      concurrentTasksPerWorker: RENDERS_QUEUED_PER_THREAD,
      // V8's default young generation (tens of MB per thread on a large machine) costs RSS.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
      workerData: { fontIsolation, fontLock: fontLockBuffer } satisfies FontWorkerData, // see fonts.ts and font-lock.ts
    });
    // Piscina replaces a worker that dies once it is ready, but one that dies while
    // it loads the engine makes it stop starting workers for good (it takes the
    // module for broken), and the queued renders then wait forever. Found by
    // killing workers at random moments (test/helpers/pool-kill.ts). Checked after
    // Piscina has had its chance to start a replacement.
    pool.on('workerDestroy', () => setImmediate(() => {
      if (pool === current && !closed && pool.threads.length < threads) retire(pool);
    }));
    return pool;
  }

  /** Closes a pool that lost workers for good; the next render starts another (at once, or after a pause). */
  function retire(pool: Pool): void {
    failedStarts = rendered ? 0 : failedStarts + 1;
    rendered = false;
    current = undefined;
    if (failedStarts >= FAILED_STARTS_BEFORE_PAUSE) {
      // Workers that keep dying while they load would otherwise be restarted in a busy loop.
      pausedUntil = Date.now() + Math.min(PAUSE_MS.max, PAUSE_MS.first * 2 ** (failedStarts - FAILED_STARTS_BEFORE_PAUSE));
    }
    // Queued renders reject ('pool is closed') and run again on the next pool; renders
    // already running on the old pool's live workers finish there.
    pool.close({ force: true }).catch(() => {});
  }

  function pool(): Pool {
    if (current) return current;
    const wait = pausedUntil - Date.now();
    if (wait > 0) throw new RenderUnavailableError(Math.ceil(wait / 1000));
    return (current = startPool());
  }

  /** `name`: the worker module's export that does the task (render-worker.ts). */
  const run = async <R>(task: Task, name: 'default' | 'sheet' | 'fitImage' | 'scan', retried = false): Promise<R> => {
    if (closed) throw new Error('the renderer is closed');
    const on = pool();
    try {
      const reply = (await on.run(task, { name })) as R;
      if (on === current) rendered = true;
      return reply;
    } catch (err) {
      // Moved off a retired pool: not a failure of this render.
      if (on !== current && !closed && isPoolClosed(err)) return run(task, name, retried);
      // A worker that exited (not an error the render threw) gets one retry on its replacement.
      if (!retried && isWorkerExit(err)) return run(task, name, true);
      throw err;
    }
  };
  const sheetOn = async (records: SheetTask['records'], opts: SheetTask['opts'], calibration: boolean): Promise<SheetPdf> => {
    const reply = await run<SheetReply>({ records, opts, calibration }, 'sheet');
    if ('fitError' in reply) throw new LabelFitError(reply.fitError);
    if ('timeout' in reply) throw new SheetTimeoutError(reply.timeout);
    return { ...reply, pdf: Buffer.from(reply.pdf.buffer, reply.pdf.byteOffset, reply.pdf.byteLength) };
  };

  return {
    threads,
    render: async (record, template, opts = {}) => {
      const reply = await run<RenderReply>({ record, template, footer: opts.footer }, 'default');
      if ('fitError' in reply) throw new LabelFitError(reply.fitError);
      return { png: Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength), warnings: reply.warnings, missingGlyphs: reply.missingGlyphs };
    },
    fitImage: async (png, stock) => {
      const reply = await run<FitImageReply>({ png, stock }, 'fitImage');
      if ('imageError' in reply) throw new ImageError(reply.fault, reply.imageError);
      return { ...reply, png: Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength) };
    },
    sheet: (records, opts) => sheetOn(records, opts, false),
    calibration: (opts) => sheetOn([], opts, true),
    scan: async (template, records, codeElements) => {
      const reply = await run<ScanReply>({ template, records, codeElements }, 'scan');
      if ('fitError' in reply) throw new LabelFitError(reply.fitError);
      return reply.codes;
    },
    workers: () => current?.threads ?? [],
    health: () => {
      const wait = pausedUntil - Date.now();
      if (current || wait <= 0) return { ok: true };
      return { ok: false, detail: `The render threads died while starting; the label engine starts again in ${Math.ceil(wait / 1000)} s.` };
    },
    close: async () => {
      closed = true;
      await current?.close({ force: true });
    },
  };
}

type Task = RenderTask | FitImageTask | SheetTask | ScanTask;
type Pool = Piscina<Task, RenderReply | FitImageReply | SheetReply>;

function isWorkerExit(err: unknown): boolean {
  return err instanceof Error && /^worker exited with code/.test(err.message);
}

function isPoolClosed(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}
