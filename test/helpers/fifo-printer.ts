/**
 * A stand-in for a USB label printer on Linux's usblp driver (/dev/usb/lp0): a FIFO
 * (mkfifo) whose reading end is a separate process (fifo-reader.mjs), as the printer is
 * another party to the device. Its jobs come back as the bytes it read, one per open and
 * close of the writer, for the protocol decoders (test/printing/decoders.ts). No reader
 * (`startFifoPrinter(dir, { reader: false })`) is a printer that never takes the device:
 * a writer's open finds nobody (ENXIO), as a blocking open would wait for ever.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const READER = fileURLToPath(new URL('./fifo-reader.mjs', import.meta.url));

export interface FifoPrinter {
  /** The FIFO's path: the "device". */
  path: string;
  /** Resolves with the bytes of the next job read (in order). */
  nextJob(timeoutMs?: number): Promise<Buffer>;
  /** Every job read so far. */
  received(): Buffer[];
  /** Starts the reading process (if not running): the printer turned on. */
  startReader(mode?: 'read' | 'stall'): void;
  close(): Promise<void>;
}

export function startFifoPrinter(dir: string, opts: { name?: string; reader?: 'read' | 'stall' | false } = {}): FifoPrinter {
  const path = join(dir, opts.name ?? 'lp0');
  execFileSync('mkfifo', ['-m', '600', path]);
  const jobs: Buffer[] = [];
  const waiting: Array<(b: Buffer) => void> = [];
  let taken = 0;
  let child: ChildProcess | undefined;

  const startReader = (mode: 'read' | 'stall' = 'read'): void => {
    if (child) return;
    const c = spawn(process.execPath, [READER, path, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = c;
    let rest = '';
    c.stdout!.setEncoding('utf8').on('data', (text: string) => {
      rest += text;
      for (let nl = rest.indexOf('\n'); nl >= 0; nl = rest.indexOf('\n')) {
        const job = Buffer.from(rest.slice(0, nl), 'base64');
        rest = rest.slice(nl + 1);
        jobs.push(job);
        waiting.shift()?.(job);
      }
    });
  };
  if (opts.reader !== false) startReader(opts.reader || 'read');

  return {
    path,
    received: () => [...jobs],
    startReader,
    nextJob(timeoutMs = 20_000) {
      const i = taken++;
      if (i < jobs.length) return Promise.resolve(jobs[i]!);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no job ${i + 1} on ${path} within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((b) => {
          clearTimeout(timer);
          resolve(b);
        });
      });
    },
    async close() {
      if (child && child.exitCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
