/**
 * A stand-in for a USB label printer on Linux's usblp driver (/dev/usb/lp0): a FIFO
 * (mkfifo) whose reading end is a separate process (fifo-reader.mjs), as the printer is
 * another party to the device. Like a printer it reads one stream and tells jobs apart by
 * their language (`lang`): ZPL ends each at ^XZ, Brother QL raster at its print command
 * (test/printing/decoders.ts readQlRaster). No reader (`reader: false`) is a printer that
 * never takes the device: a writer's open finds nobody (ENXIO), where a blocking open
 * would wait for ever; `stall` holds it open and reads nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readQlRaster } from '../printing/decoders.js';

const READER = fileURLToPath(new URL('./fifo-reader.mjs', import.meta.url));

export interface FifoPrinter {
  /** The FIFO's path: the "device". */
  path: string;
  /** Every byte read so far. */
  bytes(): Buffer;
  /** Resolves once `n` bytes have been read. */
  untilBytes(n: number, timeoutMs?: number): Promise<Buffer>;
  /** Resolves with the next whole job in the printer's language (in order). */
  nextJob(timeoutMs?: number): Promise<Buffer>;
  /** Every whole job read so far. */
  received(): Buffer[];
  /** Starts the reading process (if not running): the printer turned on. */
  startReader(mode?: 'read' | 'stall'): void;
  close(): Promise<void>;
}

/** The length of the first whole job in `data`, or undefined while it is incomplete. */
function jobLength(lang: 'zpl' | 'brother-ql' | undefined, data: Buffer): number | undefined {
  if (lang === 'zpl') {
    const end = data.indexOf('^XZ', 0, 'latin1');
    return end < 0 ? undefined : end + 3;
  }
  if (lang === 'brother-ql') {
    try {
      return readQlRaster(data).end;
    } catch {
      return undefined; // not all there yet
    }
  }
  return undefined;
}

export function startFifoPrinter(dir: string, opts: { name?: string; lang?: 'zpl' | 'brother-ql'; reader?: 'read' | 'stall' | false } = {}): FifoPrinter {
  const path = join(dir, opts.name ?? 'lp0');
  execFileSync('mkfifo', ['-m', '600', path]);
  let stream = Buffer.alloc(0);
  let pending = Buffer.alloc(0);
  const jobs: Buffer[] = [];
  let child: ChildProcess | undefined;

  const until = async <T>(what: string, ready: () => T | undefined, timeoutMs: number): Promise<T> => {
    for (const end = Date.now() + timeoutMs; ; await new Promise((r) => setTimeout(r, 20))) {
      const value = ready();
      if (value !== undefined) return value;
      if (Date.now() > end) throw new Error(`no ${what} on ${path} within ${timeoutMs} ms (${stream.length} bytes read)`);
    }
  };

  const startReader = (mode: 'read' | 'stall' = 'read'): void => {
    if (child) return;
    const c = spawn(process.execPath, [READER, path, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = c;
    let rest = '';
    c.stdout!.setEncoding('utf8').on('data', (text: string) => {
      rest += text;
      for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
        const chunk = Buffer.from(rest.slice(0, nl), 'base64');
        rest = rest.slice(nl + 1);
        stream = Buffer.concat([stream, chunk]);
        pending = Buffer.concat([pending, chunk]);
        for (let n = jobLength(opts.lang, pending); n !== undefined; n = jobLength(opts.lang, pending)) {
          jobs.push(pending.subarray(0, n));
          pending = pending.subarray(n);
        }
      }
    });
  };
  if (opts.reader !== false) startReader(opts.reader || 'read');

  let taken = 0;
  return {
    path,
    bytes: () => stream,
    untilBytes: (n, timeoutMs = 20_000) => until(`${n} bytes`, () => (stream.length >= n ? stream : undefined), timeoutMs),
    received: () => [...jobs],
    nextJob(timeoutMs = 20_000) {
      const i = taken++;
      return until(`job ${i + 1}`, () => jobs[i], timeoutMs);
    },
    startReader,
    async close() {
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
