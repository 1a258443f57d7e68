/**
 * Logos are parsed and drawn in a child process (logo-child.ts) that is killed
 * when a drawing passes LOGO_CPU_LIMIT_MS; the caller then gets a LogoError
 * (a 422). Not the render threads: librsvg and libpng run in native code,
 * which Worker.terminate() cannot interrupt (V8 can only stop a thread when it
 * runs JavaScript). Tried with an SVG `<text>` run: terminate() had not
 * returned 100 s later and the thread kept its core busy, and a thread that
 * loaded canvas crashed the process when it exited. A process dies at SIGKILL
 * wherever it is.
 *
 * One process draws one logo at a time (logos are drawn when a template is
 * saved or previewed, not per label), at a lower CPU priority than the service,
 * so the service keeps its core while a logo is drawn. It starts at the first
 * logo (0.3-0.4 s from dist/, more from source through tsx) and exits after
 * IDLE_MS without work. Finished pictures are cached by content, so an editor
 * previewing the same logo again does not wait for it.
 */
import { ProblemError } from '../errors.js';
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Bitmap } from './design.js';
import { checkSize, LogoError } from './logo.js';

/**
 * Processor time a logo may take to parse and draw: 1/8-1/4 of it for the largest
 * logo accepted (an SVG of 10,000 paths, 280 KB: 0.25-0.45 s). Processor time, not
 * wall time, so a busy machine does not fail a good logo: with the CI machine's two
 * cores shared by many processes that logo took 1-2.5 s.
 */
export const LOGO_CPU_LIMIT_MS = 2_000;
/** And wall time, where the processor time cannot be read (no /proc) or the process gets none. */
const WALL_LIMIT_MS = 20_000;
const POLL_MS = 25;
/** Logos waiting for the process at once; more is a 503 (LogoBusyError). */
export const LOGO_QUEUE_MAX = 4;
/** Starting the process (Node, canvas) is not the logo's fault: it has its own, longer limit. */
const START_LIMIT_MS = 30_000;
const IDLE_MS = 60_000;
const CACHE_MAX = 32;
/** Nice value of the logo process (0 is the service's; 19 the lowest priority). */
const NICENESS = 10;

export interface LogoJob {
  id: number;
  data: Uint8Array;
  heightDots: number;
  maxWidthDots: number;
}

export type LogoReply = { ready: true } | { id: number; bitmap: Bitmap } | { id: number; error: string; logoError: boolean };

/** Too many logos are waiting to be drawn; retry shortly. */
export class LogoBusyError extends ProblemError {
  override name = 'LogoBusyError';
  constructor(message: string) {
    super('unavailable', message, { headers: { 'Retry-After': '5' } });
  }
}

interface Proc {
  child: ChildProcess;
  ready: Promise<void>;
}

let current: Proc | undefined;
let idleTimer: NodeJS.Timeout | undefined;
let nextId = 1;
let waiting = 0;
let tail: Promise<unknown> = Promise.resolve();
const cache = new Map<string, Bitmap>();

/**
 * The upload as a 1-bit picture `heightDots` tall, at most `maxWidthDots` wide
 * (drawLogo in logo.ts, run in the logo process). LogoError when it cannot be a
 * logo, took too long, or killed its process; LogoBusyError when too many wait.
 */
export async function logoBitmap(data: Buffer, heightDots: number, maxWidthDots: number, opts: { cpuLimitMs?: number } = {}): Promise<Bitmap> {
  checkSize(data);
  const key = `${createHash('sha256').update(data).digest('base64url')}:${heightDots}:${maxWidthDots}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  if (waiting >= LOGO_QUEUE_MAX) throw new LogoBusyError('Too many logos are being drawn at once; retry shortly.');
  waiting++;
  const job: LogoJob = { id: nextId++, data, heightDots, maxWidthDots };
  const result = tail.then(() => drawIn(job, opts.cpuLimitMs ?? LOGO_CPU_LIMIT_MS));
  tail = result.catch(() => {});
  let bitmap: Bitmap;
  try {
    bitmap = await result;
  } finally {
    waiting--;
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, bitmap);
  return bitmap;
}

/**
 * Starts the logo process in the background if it is not running (a template is being
 * edited: a logo may follow), so the logo does not wait for it to start: 0.3-0.4 s from
 * dist/, 1-3 s from source through tsx on the busy 2-core machine, most of a short
 * request time-out. It exits again after IDLE_MS without work.
 */
export function warmLogoProcess(): void {
  if (current) return;
  const proc = (current = start());
  hold(proc, false);
  proc.ready.then(
    () => {
      if (current === proc && waiting === 0) idle(proc);
    },
    () => kill(proc),
  );
}

function idle(proc: Proc): void {
  hold(proc, false);
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => current === proc && kill(proc), IDLE_MS).unref();
}

/** Stops the logo process now (tests; the service needs not: the process exits with it). */
export function stopLogoProcess(): void {
  if (current) kill(current);
  clearTimeout(idleTimer);
}

/** The logo process's pid while it runs (tests). */
export function logoProcessPid(): number | undefined {
  return current?.child.pid;
}

function kill(proc: Proc): void {
  if (current === proc) current = undefined;
  proc.child.kill('SIGKILL');
}

/** A process waiting for work must not keep the service (or a script) from exiting; one at work must. */
function hold(proc: Proc, on: boolean): void {
  const channel = proc.child.channel as { ref(): void; unref(): void } | undefined;
  if (on) {
    proc.child.ref();
    channel?.ref();
  } else {
    proc.child.unref();
    channel?.unref();
  }
}

function childModule(): { file: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = fileURLToPath(new URL(fromSource ? './logo-child.ts' : './logo-child.js', import.meta.url));
  return { file, execArgv: [...(fromSource ? ['--import', 'tsx'] : []), '--max-old-space-size=128'] };
}

function start(): Proc {
  const { file, execArgv } = childModule();
  // No environment: the process that parses uploads needs none of the service's settings or secrets.
  const child = fork(file, [], { execArgv, env: {}, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    if (child.pid !== undefined) setPriority(child.pid, NICENESS);
  } catch {
    /* not permitted here: it runs at the service's priority */
  }
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the logo process did not start within ${START_LIMIT_MS / 1000} s`));
    }, START_LIMIT_MS);
    const settle = (err?: Error) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      if (err) reject(err);
      else resolve();
    };
    const onMessage = (m: LogoReply) => {
      if ('ready' in m) settle();
    };
    child.on('message', onMessage);
    child.once('error', (err) => settle(new Error(`the logo process could not start: ${err.message}`)));
    child.once('exit', (code, signal) => settle(new Error(`the logo process exited while starting (${signal ?? code})`)));
  });
  const proc: Proc = { child, ready };
  child.on('error', () => {}); // reported through `ready` or the job's exit
  child.once('exit', () => {
    if (current === proc) current = undefined;
  });
  return proc;
}

async function drawIn(job: LogoJob, limitMs: number): Promise<Bitmap> {
  clearTimeout(idleTimer);
  const proc = (current ??= start());
  hold(proc, true);
  try {
    await proc.ready;
  } catch (err) {
    kill(proc);
    throw err;
  }
  try {
    return await new Promise<Bitmap>((resolve, reject) => {
      const { child } = proc;
      const finish = (settle: () => void) => {
        clearInterval(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        settle();
      };
      const cpu0 = cpuMs(child.pid);
      const t0 = performance.now();
      const timer = setInterval(() => {
        const wall = performance.now() - t0;
        const cpu = cpu0 === undefined ? wall : (cpuMs(child.pid) ?? cpu0) - cpu0;
        if (cpu <= limitMs && wall <= WALL_LIMIT_MS) return;
        kill(proc);
        finish(() => reject(new LogoError(`drawing the logo took more than ${limitMs / 1000} s; simplify it (fewer elements or path points, no fine dash patterns)`)));
      }, POLL_MS);
      const onMessage = (m: LogoReply) => {
        if (!('id' in m) || m.id !== job.id) return;
        finish(() => ('bitmap' in m ? resolve(m.bitmap) : reject(m.logoError ? new LogoError(m.error) : new Error(m.error))));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        finish(() => reject(new LogoError(`the logo could not be drawn (its drawing process ended: ${signal ?? `exit code ${code}`})`)));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(job, (err) => {
        if (err) finish(() => reject(new Error(`the logo process did not take the logo: ${err.message}`)));
      });
    });
  } finally {
    if (current === proc && waiting <= 1) idle(proc);
  }
}

/** Processor time (user and system) a process has used, ms; undefined where /proc cannot tell (not Linux, or it is gone). */
function cpuMs(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (in parentheses, which may hold spaces): state is first, utime 12th, stime 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // In USER_HZ (100 a second on Linux, whatever the kernel's own tick).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}
