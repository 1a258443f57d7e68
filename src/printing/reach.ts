/**
 * Which printers this instance can reach (issue 31). Instances at two sites may share one
 * database: each probes every printer cheaply (a TCP connect to a network printer, a
 * writable folder or device, a command that exists; bounded in time), remembers the answer for its
 * dispatcher (which claims only jobs of printers it reached) and stores it per instance
 * (PrinterStore.saveReach), where the hold rule sees a printer that no live instance
 * reaches. A delivery that could not connect says the same at once (lost).
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import type { PrinterStore } from '../records/types.js';
import { parsePrinterUri } from './schemes.js';

/** Long enough for a connect over a slow WAN link; short enough that a dead site is known within a round. */
export const REACH_TIMEOUT_MS = 2000;

/** Rows of an instance that missed this many intervals are aged out (it stopped, or lost the database). */
const STALE_INTERVALS = 3;

/** Connection errors that mean nothing reached the printer from here. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL', 'ECONNABORTED']);

/** Whether a failed delivery's error is a failure to connect (nothing was sent): its code, anywhere in its causes. */
export function notReached(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e.name === 'UncertainDeliveryError') return false;
    const code = (e as NodeJS.ErrnoException).code;
    if (code && UNREACHABLE_CODES.has(code)) return true;
  }
  return false;
}

function tcpReach(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (why?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no connection to ${host}:${port} within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done());
    socket.once('error', (e: NodeJS.ErrnoException) => done(`${host}:${port}: ${e.code ?? e.message}`));
  });
}

async function writableFolder(path: string): Promise<string | undefined> {
  // The folder driver makes a missing folder: then the nearest existing parent must be writable.
  for (let p = path; ; p = dirname(p)) {
    try {
      await access(p, constants.W_OK);
      return undefined;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(p) === p) return `${path} is not writable`;
    }
  }
}

/** A device is there and ours to write (checked without opening it: an open may wait, or take the printer from its user). */
async function writableDevice(path: string): Promise<string | undefined> {
  try {
    const kind = await stat(path);
    if (!kind.isCharacterDevice() && !kind.isFIFO()) return `${path} is not a device`;
    await access(path, constants.W_OK);
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${path} does not exist` : `${path} is not writable (${code ?? (e as Error).message})`;
  }
}

async function commandPresent(argv: readonly string[] | undefined): Promise<string | undefined> {
  const program = argv?.[0];
  if (!program) return 'no print command is configured';
  const candidates = program.includes('/') ? [program] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, program));
  for (const c of candidates) {
    try {
      await access(c, constants.X_OK);
      return undefined;
    } catch {
      // the next directory of PATH
    }
  }
  return `${program} was not found`;
}

/** Whether this instance can reach the printer at `uri`: undefined when it can, else why not. Never rejects. */
export async function probeReach(uri: string, opts: { commandArgv?: readonly string[]; timeoutMs?: number } = {}): Promise<string | undefined> {
  const timeoutMs = opts.timeoutMs ?? REACH_TIMEOUT_MS;
  try {
    const a = parsePrinterUri(uri);
    switch (a.driver) {
      case 'zpl':
      case 'brother-ql':
        return await tcpReach(a.host, a.port, timeoutMs);
      case 'ipp': {
        const u = new URL(a.url);
        return await tcpReach(u.hostname.replace(/^\[(.*)\]$/, '$1'), u.port ? Number(u.port) : 631, timeoutMs);
      }
      case 'directory':
        return await writableFolder(a.path);
      case 'device':
        return await writableDevice(a.path);
      case 'command':
        return await commandPresent(opts.commandArgv);
    }
  } catch (err) {
    return (err as Error).message;
  }
}

export interface ReachLogger {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
}

export interface ReachOptions {
  printers: Pick<PrinterStore, 'saveReach'>;
  /** This process's id in printer_reach. */
  instance: string;
  /** How long a probe's answer stands (the status interval); older ones are probed again before a claim. */
  maxAgeMs: number;
  commandArgv?: readonly string[];
  timeoutMs?: number;
  /** Whether any live instance reaches the printer changed (or was first learnt): its holds are looked at again. */
  onChange?(name: string): void | Promise<void>;
  logger: ReachLogger;
}

interface Known {
  uri: string;
  ok: boolean;
  at: number;
}

export interface Reach {
  readonly instance: string;
  /** This instance's last answer for the printer at its current URI, if younger than maxAgeMs; undefined when not known. */
  reaches(p: { name: string; deviceUri: string }): boolean | undefined;
  /** Probes the printer now (one probe per printer at a time), remembers and stores the answer. Never rejects. */
  probe(p: { name: string; deviceUri: string }): Promise<boolean>;
  /** Whether any live instance reached the printer, as the store answered this instance's last probe (undefined: not known). */
  anyoneReaches(name: string): boolean | undefined;
  /**
   * A delivery could not connect: this instance does not reach the printer (until its next
   * probe). Returns how many live instances reach it (0 when unknown). Holds are left to the
   * probes: a delivery's failure alone does not hold jobs.
   */
  lost(p: { name: string; deviceUri: string }, why: string): Promise<number>;
  /** Forgets printers that no longer exist. */
  keepOnly(names: ReadonlySet<string>): void;
}

export function printerReach(opts: ReachOptions): Reach {
  const { printers, instance, maxAgeMs, logger } = opts;
  const known = new Map<string, Known>();
  /** Whether a live instance reached each printer, as last seen here (undefined: not seen yet). */
  const anyone = new Map<string, boolean>();
  const probing = new Map<string, Promise<boolean>>();

  /** Remembers and stores an answer; returns how many live instances reach the printer (undefined: not stored). */
  async function record(p: { name: string; deviceUri: string }, ok: boolean, why: string | undefined, react = true): Promise<number | undefined> {
    const before = known.get(p.name);
    known.set(p.name, { uri: p.deviceUri, ok, at: Date.now() });
    if (before?.uri === p.deviceUri && before.ok !== ok) {
      if (ok) logger.info({ printer: p.name, instance }, `printer ${p.name}: reachable from this instance again`);
      else logger.warn({ printer: p.name, instance, why }, `printer ${p.name}: not reachable from this instance`);
    }
    const now = new Date();
    let reaching: number | undefined;
    try {
      reaching = await printers.saveReach(p.name, p.deviceUri, instance, ok, now.toISOString(), new Date(now.getTime() - STALE_INTERVALS * maxAgeMs).toISOString());
    } catch (err) {
      // The store refused: this instance still knows for its own claims; the next probe stores it.
      logger.warn({ err, printer: p.name }, 'printer reach could not be stored; the next probe tries again');
      return undefined;
    }
    if (reaching === undefined) return undefined; // deleted, or its URI changed meanwhile
    if (react && anyone.get(p.name) !== reaching > 0) {
      anyone.set(p.name, reaching > 0);
      try {
        await opts.onChange?.(p.name);
      } catch (err) {
        logger.warn({ err, printer: p.name }, 'reacting to a change of who reaches a printer failed');
        anyone.delete(p.name); // looked at again after the next probe
      }
    }
    return reaching;
  }

  return {
    instance,
    anyoneReaches: (name) => anyone.get(name),
    reaches(p) {
      const k = known.get(p.name);
      if (!k || k.uri !== p.deviceUri || Date.now() - k.at > maxAgeMs) return undefined;
      return k.ok;
    },
    probe(p) {
      const key = `${p.name}\n${p.deviceUri}`;
      let running = probing.get(key);
      if (!running) {
        running = (async () => {
          const why = await probeReach(p.deviceUri, { commandArgv: opts.commandArgv, timeoutMs: opts.timeoutMs });
          await record(p, why === undefined, why);
          return why === undefined;
        })().finally(() => probing.delete(key));
        probing.set(key, running);
      }
      return running;
    },
    lost: async (p, why) => (await record(p, false, why, false)) ?? 0,
    keepOnly(names) {
      for (const name of known.keys()) if (!names.has(name)) known.delete(name);
      for (const name of anyone.keys()) if (!names.has(name)) anyone.delete(name);
    },
  };
}
