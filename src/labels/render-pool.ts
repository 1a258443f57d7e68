/**
 * Rendering off the event loop: a pool of worker threads (piscina), each with
 * its own copy of the engine, so one process draws on every core while the
 * main thread keeps answering requests, accepting connections and printing.
 * threads = 0 renders on the calling thread (the engine is synchronous).
 *
 * A render that throws gives its error to the caller (LabelFitError as
 * itself); a worker that dies mid-render (killed, out of memory) is replaced
 * by the pool and the render is tried once more on a fresh worker.
 */
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { LabelRecord, Template } from './design.js';
import { fontIsolation, type FontWorkerData } from './fonts.js';
import { LabelFitError } from './layout.js';
import { renderLabel } from './render.js';
import type { RenderReply, RenderTask } from './render-worker.js';

/** What a rendered label is to the service: its bytes and what the reader should know. */
export interface RenderedBytes {
  png: Buffer;
  warnings: string[];
  missingGlyphs: number[];
}

export interface Renderer {
  render(record: LabelRecord, template: Template, opts?: { footer?: string }): Promise<RenderedBytes>;
  /** Worker threads (0: renders on the calling thread). */
  readonly threads: number;
  /** The worker threads now running (none in-thread): for tests and metrics. */
  workers(): readonly Worker[];
  close(): Promise<void>;
}

export function inThreadRenderer(): Renderer {
  return {
    threads: 0,
    render: async (record, template, opts = {}) => {
      const { png, warnings, missingGlyphs } = renderLabel(record, template, opts);
      return { png, warnings, missingGlyphs };
    },
    workers: () => [],
    close: async () => {},
  };
}

/** The worker's module: compiled JavaScript in dist/, TypeScript (through tsx) when run from src/. */
function workerModule(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(fromSource ? './render-worker.ts' : './render-worker.js', import.meta.url);
  return { filename: fileURLToPath(url), execArgv: fromSource ? ['--import', 'tsx'] : [] };
}

/** Young generation of a render thread, MB (measured with bench:http: no slower than the default, far less RSS). */
const YOUNG_GENERATION_MB = 12;

export function poolRenderer(threads: number): Renderer {
  if (threads < 1) return inThreadRenderer();
  const pool = new Piscina<RenderTask, RenderReply>({
    ...workerModule(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Infinity, // workers load fonts once; keep them
    // A render's garbage is small and short-lived: V8's default young generation
    // (tens of MB per thread on a large machine) costs RSS and buys no speed here.
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    workerData: { fontIsolation } satisfies FontWorkerData, // see fonts.ts
  });
  const run = async (task: RenderTask, retried = false): Promise<RenderReply> => {
    try {
      return await pool.run(task);
    } catch (err) {
      // A worker that exited (not an error the render threw) gets one retry on its replacement.
      if (!retried && isWorkerExit(err)) return run(task, true);
      throw err;
    }
  };
  return {
    threads,
    render: async (record, template, opts = {}) => {
      const reply = await run({ record, template, footer: opts.footer });
      if ('fitError' in reply) throw new LabelFitError(reply.fitError);
      return { png: Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength), warnings: reply.warnings, missingGlyphs: reply.missingGlyphs };
    },
    workers: () => pool.threads,
    close: () => pool.close({ force: true }),
  };
}

function isWorkerExit(err: unknown): boolean {
  return err instanceof Error && /^worker exited with code/.test(err.message);
}
