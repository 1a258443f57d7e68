/**
 * Every SQLite write goes through one writer that owns its own connection. In the
 * service the writer runs on a worker thread (writer-thread.ts): better-sqlite3
 * is synchronous, so a write on the main thread stalls every request for its disk sync
 * (synchronous=FULL), and for as long as another process (a CLI import) holds the
 * write lock. Reads stay on the main thread's connection: in WAL mode they never wait
 * for the writer.
 *
 * Writes that arrive together are committed together (group commit): one transaction,
 * one disk sync, each write in its own savepoint so a failing one (a constraint) takes
 * only itself back. A write is answered only after its transaction committed, so an
 * accepted print job is on disk before the client hears of it.
 */
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { StoreNotWritableError, storeFaultOf } from '../errors.js';
import { identityChange, missingFault, notWritable, rescueCopy, type FileIdentity } from './file.js';
import { sqliteWrites, type WriteArgs, type WriteMethod, type WriteResult, type WriteTarget, type Writes } from './writes.js';

export interface SqliteWriter {
  /** Runs one of the store's writes (Writes, writes.ts); resolves once its transaction committed. */
  call<T extends WriteTarget, M extends WriteMethod<T>>(target: T, method: M, ...args: WriteArgs<T, M>): Promise<WriteResult<T, M>>;
  /** Finishes the writes already queued, then closes the writer's connection. */
  close(): Promise<void>;
}

/** Something the writer wants logged (it has no logger of its own on its thread). */
export interface WriterEvent {
  level: 'info' | 'warn' | 'error';
  msg: string;
  fields?: Record<string, unknown>;
}

export interface WriterConfig {
  path: string;
  /** The file the store opened; a different (or no) file at the path stops writes. Absent in memory. */
  opened?: FileIdentity;
}

/** How long a write waits for another process's write lock (an import) before it fails as 'locked'. Off the main thread. */
export const WRITE_BUSY_TIMEOUT_MS = 2_000;
/** Most writes committed in one transaction. */
const MAX_BATCH = 256;
/** How often the writer checks that its file is still there when nothing is written. */
const WATCH_MS = 1_000;

/** A write as it travels to the writer (a message to its thread): checked against Writes where it is made (SqliteWriter.call) and where it runs (WriteSession.run). */
export interface WriteCall {
  target: WriteTarget;
  method: string;
  args: unknown[];
}
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The write a call names, if Writes has it (an own method: nothing inherited runs). */
function writeOf(writes: Writes, call: WriteCall): ((...args: unknown[]) => unknown) | undefined {
  const methods: Record<string, unknown> | undefined = Object.hasOwn(writes, call.target) ? writes[call.target] : undefined;
  const fn = methods && Object.hasOwn(methods, call.method) ? methods[call.method] : undefined;
  return typeof fn === 'function' ? (fn as (...args: unknown[]) => unknown) : undefined;
}

/** Where the write connection lives: runs batches, watches its file, saves a rescue copy. */
export class WriteSession {
  private readonly writes: Writes;
  private lost: 'deleted' | 'replaced' | undefined;
  private readonly watch: NodeJS.Timeout | undefined;

  constructor(
    readonly db: Database.Database,
    private readonly config: WriterConfig,
    private readonly emit: (event: WriterEvent) => void,
  ) {
    this.writes = sqliteWrites(db);
    if (config.opened) {
      // Between batches only: a rescue copy cannot be taken inside a transaction.
      this.watch = setInterval(() => {
        if (!db.inTransaction) this.checkFile();
      }, WATCH_MS);
      this.watch.unref();
    }
  }

  static open(config: WriterConfig, emit: (event: WriterEvent) => void): WriteSession {
    const db = new Database(config.path);
    try {
      db.pragma(`busy_timeout = ${WRITE_BUSY_TIMEOUT_MS}`);
      db.pragma('synchronous = FULL'); // an accepted print job survives power loss
      db.pragma('foreign_keys = ON');
      return new WriteSession(db, config, emit);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Runs the calls in one transaction; one outcome per call. `lockDeadline`: until when
   * the oldest call may wait for another process's write lock (each call waits at most
   * WRITE_BUSY_TIMEOUT_MS in all, however many batches were before it).
   */
  async run(calls: readonly WriteCall[], lockDeadline = Date.now() + WRITE_BUSY_TIMEOUT_MS): Promise<Outcome[]> {
    const change = this.checkFile();
    if (change) return calls.map(() => ({ ok: false, error: notWritable(missingFault(change)) }));
    const results: Outcome[] = [];
    let abort: unknown;
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.round(lockDeadline - Date.now()))}`);
      this.db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      return calls.map(() => ({ ok: false, error: err }));
    }
    for (const call of calls) {
      const fn = writeOf(this.writes, call);
      if (!fn) {
        results.push({ ok: false, error: new Error(`no store write ${call.target}.${call.method}`) });
        continue;
      }
      try {
        this.db.exec('SAVEPOINT lm_write');
        const value = await fn(...call.args);
        this.db.exec('RELEASE lm_write');
        results.push({ ok: true, value });
      } catch (err) {
        // A fault of the database (not of this write) ends the whole batch.
        if (storeFaultOf(err) || !this.db.inTransaction) {
          abort = err;
          break;
        }
        try {
          this.db.exec('ROLLBACK TO lm_write');
          this.db.exec('RELEASE lm_write');
        } catch (rollbackErr) {
          abort = rollbackErr;
          break;
        }
        results.push({ ok: false, error: err });
      }
    }
    if (abort === undefined) {
      try {
        this.db.exec('COMMIT');
      } catch (err) {
        abort = err;
      }
    }
    if (abort !== undefined) {
      if (this.db.inTransaction) {
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // the connection already dropped the transaction
        }
      }
      return calls.map(() => ({ ok: false, error: abort }));
    }
    return results;
  }

  /** Whether the path still holds the file we opened; the first time it does not, saves a rescue copy. */
  checkFile(): 'deleted' | 'replaced' | undefined {
    if (!this.config.opened) return undefined;
    const change = identityChange(this.config.path, this.config.opened);
    if (change && !this.lost) {
      this.lost = change;
      this.emit({ level: 'error', msg: `the database file was ${change} while in use: writes are stopped`, fields: { path: this.config.path } });
      try {
        const copy = rescueCopy(this.db, this.config.path);
        this.emit({
          level: 'error',
          msg: `saved the database's last state to ${copy}. To restore it: stop Labelmaker, run \`labelmaker restore ${copy}\`, and start again`,
          fields: { path: this.config.path, rescue: copy },
        });
      } catch (err) {
        this.emit({
          level: 'error',
          msg: `could not save a rescue copy of the lost database (${(err as Error).message}); until this process stops, its data can still be copied from /proc/${process.pid}/fd`,
          fields: { path: this.config.path },
        });
      }
    } else if (!change && this.lost) {
      this.lost = undefined;
      this.emit({ level: 'info', msg: 'the database file is back where it was: writes resume', fields: { path: this.config.path } });
    }
    return change;
  }

  close(): void {
    if (this.watch) clearInterval(this.watch);
    if (this.db.open) this.db.close();
  }
}

/**
 * Feeds calls to a session in batches: calls that arrive while a batch runs (or in
 * the same tick) form the next one.
 */
export class WriteQueue {
  private queue: { call: WriteCall; queuedAt: number; done: (outcome: Outcome) => void }[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly session: WriteSession) {}

  submit(call: WriteCall): Promise<Outcome> {
    return new Promise((done) => {
      this.queue.push({ call, queuedAt: Date.now(), done });
      this.running ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.drain());
    });
  }

  /** Resolves once everything queued so far has been written. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, MAX_BATCH);
        const outcomes = await this.session
          .run(
            batch.map((b) => b.call),
            batch[0]!.queuedAt + WRITE_BUSY_TIMEOUT_MS,
          )
          .catch((error: unknown) => batch.map(() => ({ ok: false as const, error })));
        batch.forEach((b, i) => b.done(outcomes[i]!));
      }
    } finally {
      this.running = undefined;
    }
  }
}

/**
 * A writer's typed door over its untyped transport (a queue, or messages to its
 * thread). The one place where a write's outcome is taken to be of the type Writes
 * declares: the writer ran exactly the method named, with these arguments.
 */
function typedCall(send: (call: WriteCall) => Promise<unknown>): SqliteWriter['call'] {
  // async: a write that fails at once (say, its thread cannot start) rejects like any other.
  return async <T extends WriteTarget, M extends WriteMethod<T>>(target: T, method: M, ...args: WriteArgs<T, M>) =>
    (await send({ target, method, args })) as WriteResult<T, M>;
}

/** The writer on the calling thread: for the CLI (no event loop to protect) and in-memory databases (one connection). */
export function inlineWriter(session: WriteSession): SqliteWriter {
  const queue = new WriteQueue(session);
  let closed = false;
  return {
    call: typedCall(async (call) => {
      if (closed) throw new Error('the store is closed');
      const outcome = await queue.submit(call);
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    }),
    async close() {
      closed = true;
      await queue.idle();
      session.close();
    },
  };
}

// ---- the worker thread, seen from the main thread ----

/**
 * Messages between the store and its writer thread. Calls made in one turn of the
 * event loop travel as one message, and the replies of one batch come back as one:
 * each message costs the receiving thread a wake-up.
 */
export type ToWriter = { calls: { id: number; call: WriteCall }[] } | { close: true };
export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerializedError };
export type FromWriter = { replies: Reply[] } | { event: WriterEvent } | { ready: true } | { failed: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  state?: string;
}

export function serializeError(err: unknown): SerializedError {
  const e = err instanceof Error ? err : new Error(String(err));
  const { code, state } = e as { code?: unknown; state?: unknown };
  return { name: e.name, message: e.message, code: typeof code === 'string' ? code : undefined, state: typeof state === 'string' ? state : undefined };
}

export function deserializeError(s: SerializedError): Error {
  if (s.state && s.code === new StoreNotWritableError('read-only', '').code) return new StoreNotWritableError(s.state as never, s.message);
  const err = new Error(s.message) as Error & { code?: string };
  err.name = s.name;
  if (s.code) err.code = s.code;
  return err;
}

/** Structured clone turns Buffers into plain Uint8Arrays; SQLite blobs and callers want Buffers. */
export function reviveBuffers<T>(value: T): T {
  if (value instanceof Uint8Array) return (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)) as T;
  if (Array.isArray(value)) return value.map(reviveBuffers) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) obj[key] = reviveBuffers(obj[key]);
  }
  return value;
}

/** A thread's module in this folder (`name` without extension): .ts when running from source (tsx, vitest), .js when built. */
export function threadEntry(name: 'writer-thread' | 'import-thread'): { url: URL; execArgv: string[] | undefined } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, import.meta.url);
  const hasTsx = process.execArgv.some((a) => /tsx/.test(a));
  return { url, execArgv: fromSource && !hasTsx ? [...process.execArgv, '--import', 'tsx'] : undefined };
}

/** The writer's young generation, MB: its garbage is a batch's rows and replies (V8's default is tens of MB a thread). */
const WRITER_YOUNG_GENERATION_MB = 3;

/**
 * Starts the writer thread. Calls made before it is ready wait in its message
 * queue. It keeps the process alive only while calls are pending; if it dies, the
 * pending calls fail as unavailable and the next call starts a new one.
 */
export function threadWriter(config: WriterConfig, onEvent: (event: WriterEvent) => void): SqliteWriter {
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  let outbox: { id: number; call: WriteCall }[] = [];

  // The thread keeps the process alive only while calls wait on it.
  let referenced = true;
  const settle = () => {
    const want = pending.size > 0;
    if (want === referenced || !worker) return;
    referenced = want;
    if (want) worker.ref();
    else worker.unref();
  };
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    settle();
  };
  const flush = () => {
    const calls = outbox;
    outbox = [];
    worker ??= start();
    worker.postMessage({ calls } satisfies ToWriter);
  };

  const start = () => {
    const { url, execArgv } = threadEntry('writer-thread');
    const w = new Worker(url, { workerData: config, execArgv, resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB } });
    w.on('message', (m: FromWriter) => {
      if ('event' in m) return onEvent(m.event);
      if ('ready' in m) return;
      if ('failed' in m) {
        onEvent({ level: 'error', msg: `the database writer could not open the database: ${m.failed.message}` });
        return failAll(Object.assign(deserializeError(m.failed), { code: m.failed.code ?? 'SQLITE_CANTOPEN' }));
      }
      for (const r of m.replies) {
        const p = pending.get(r.id);
        if (!p) continue;
        pending.delete(r.id);
        if (r.ok) p.resolve(reviveBuffers(r.value));
        else p.reject(deserializeError(r.error));
      }
      settle();
    });
    w.on('error', (err) => onEvent({ level: 'error', msg: `the database writer failed: ${err.message}` }));
    w.on('exit', () => {
      if (worker === w) {
        worker = undefined;
        referenced = true; // a new thread starts referenced
      }
      const err = new Error('the database writer stopped; the store is closed for writes') as Error & { code?: string };
      err.code = 'SQLITE_CANTOPEN';
      failAll(err);
    });
    return w;
  };

  worker = start(); // now, so the thread is ready by the first write
  settle();
  return {
    call: typedCall((call) => {
      if (closed) return Promise.reject(new Error('the store is closed'));
      worker ??= start();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        settle();
        // Sent once this turn of the event loop is over: the writes of every request handled
        // in it travel together and commit together (as they would on this thread).
        if (outbox.push({ id, call }) === 1) setImmediate(flush);
      });
    }),
    async close() {
      closed = true;
      const w = worker;
      if (!w) return;
      w.ref();
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ close: true } satisfies ToWriter);
      await exited;
    },
  };
}
