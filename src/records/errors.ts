/**
 * What a store failure means for the caller, for both store kinds:
 * - unavailable (isStoreUnavailable): a 503, retry later; never a 500;
 * - of those, a write fault (storeFaultOf): the database can still be read but
 *   refuses writes (read-only, disk full, I/O error, locked by another process,
 *   file deleted). The store reports it in its health, and clients are told that
 *   labels without print=true still work.
 * Every other failure is a bug or broken data: a 500.
 * The edge turns an unavailable store's error into its problem with storeUnavailable().
 */
import { ProblemError } from '../errors.js';

/** What is wrong with the store, as /healthz names it. */
export type StoreState = 'ok' | 'read-only' | 'locked' | 'missing' | 'unreachable';

export interface StoreFault {
  state: Exclude<StoreState, 'ok'>;
  /** Safe to show to any client: no paths, no SQL, no credentials. */
  detail: string;
}

/** Thrown by a store that refuses writes on its own (e.g. its file was deleted). */
export class StoreNotWritableError extends Error {
  readonly code = NOT_WRITABLE;
  constructor(
    readonly state: StoreFault['state'],
    message: string,
  ) {
    super(message);
    this.name = 'StoreNotWritableError';
  }
}
const NOT_WRITABLE = 'LABELMAKER_STORE_NOT_WRITABLE';
const UNREADABLE = 'LABELMAKER_STORE_UNREADABLE';

/**
 * A read that failed the way a write fault does (an I/O error, a revoked SELECT): the
 * store cannot be read, which is not "read-only", so it must not say labels still work.
 */
export function unreadable(err: unknown): Error {
  return Object.assign(new Error(`the store cannot be read: ${(err as Error)?.message ?? String(err)}`, { cause: err }), { code: UNREADABLE });
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE',
  '57P01', '57P02', '57P03', // PostgreSQL: admin shutdown, crash shutdown, cannot connect now
  '53300', // PostgreSQL: too many connections
  '08000', '08001', '08003', '08006', // PostgreSQL: connection exceptions
  '57014', // PostgreSQL: statement timeout (query_canceled)
  '3D000', // PostgreSQL: the database does not exist (dropped, or a wrong URL)
  '28000', '28P01', // PostgreSQL: the role may not log in (NOLOGIN, pg_hba) or bad password
]);

/** SQLite result codes (primary codes; better-sqlite3 reports extended ones such as SQLITE_IOERR_WRITE). */
const SQLITE_WRITE_FAULTS: Record<string, StoreFault['state']> = {
  SQLITE_READONLY: 'read-only', // read-only file or connection, database moved (READONLY_DBMOVED)
  SQLITE_IOERR: 'read-only', // the disk refused a write (EROFS, EPERM, EIO)
  SQLITE_FULL: 'read-only',
  SQLITE_CANTOPEN: 'read-only', // e.g. the -wal file cannot be created
  SQLITE_PERM: 'read-only',
  SQLITE_BUSY: 'locked', // another process (an import) holds the write lock
  SQLITE_LOCKED: 'locked',
};

/** PostgreSQL SQLSTATEs of a server that answers but refuses writes. */
const POSTGRES_WRITE_FAULTS: Record<string, StoreFault['state']> = {
  '25006': 'read-only', // read_only_sql_transaction: default_transaction_read_only, a hot standby
  '42501': 'read-only', // insufficient_privilege: a revoked INSERT/UPDATE
  '53100': 'read-only', // disk_full
  '55P03': 'locked', // lock_not_available
};

const DETAILS: Record<StoreFault['state'], string> = {
  'read-only': 'The database is not accepting writes right now (read-only, full or failing disk).',
  locked: 'The database is locked by another process (an import, for example).',
  missing: 'The database file was deleted or replaced while the service was running; writes are stopped until an operator restores it.',
  unreachable: 'The record store is unreachable.',
};

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The write fault this error shows, if it is one. */
export function storeFaultOf(err: unknown): StoreFault | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = codeOf(err);
  if (err instanceof StoreNotWritableError || code === NOT_WRITABLE) {
    const state = (err as Partial<StoreNotWritableError>).state ?? 'read-only';
    return { state, detail: DETAILS[state] };
  }
  if (code === undefined) return undefined;
  const state = code.startsWith('SQLITE_') ? SQLITE_WRITE_FAULTS[/^SQLITE_[A-Z]+/.exec(code)![0]] : POSTGRES_WRITE_FAULTS[code];
  return state ? { state, detail: DETAILS[state] } : undefined;
}

export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  if (code !== undefined && (CONNECTION_CODES.has(code) || code === UNREADABLE)) return true;
  if (storeFaultOf(err)) return true;
  // better-sqlite3 on a closed handle; pg on a closed pool or a dropped connection.
  return /database connection is not open|Cannot use a pool after calling end|Connection terminated|timeout exceeded when trying to connect|Query read timeout|store is closed/i.test(err.message);
}

/**
 * A connection that was cut or went silent (a restarted server, a terminated session, a
 * dead peer): a read that met one is worth one retry on a connection made since. Not a
 * statement time-out (the server is alive and the query slow: a retry doubles the wait),
 * nor a refusal to connect (too many connections, a missing database, a refused login,
 * the pool's connect time-out: a new connection meets the same).
 */
const CUT_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '08000', '08003', '08006']);
export function isConnectionCut(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = codeOf(err);
  if (code !== undefined && CUT_CODES.has(code)) return true;
  return /Connection terminated|Query read timeout/i.test(err.message);
}

/**
 * A prepared statement whose result columns changed type since this connection
 * prepared it (another instance migrated the schema): PostgreSQL refuses the old
 * plan on every connection that holds it. A read is worth repeating on a
 * connection made since, which prepares the statement afresh.
 */
export function isStalePlan(err: unknown): boolean {
  if (!(err instanceof Error) || codeOf(err) !== '0A000') return false; // feature_not_supported: also other refusals
  // The server's function that raises it names it in any language; the message only in English.
  return (err as { routine?: unknown }).routine === 'RevalidateCachedQuery' || /cached plan must not change result type/i.test(err.message);
}

/** The detail of the 503 problem for an unavailable store: what failed and what still works. */
export function unavailableDetail(err: unknown): string {
  const fault = storeFaultOf(err);
  if (!fault) return `${DETAILS.unreachable} Retry shortly.`;
  return `${fault.detail} Labels without print=true still work; retry later.`;
}

/** An unavailable store as a client is told (a 503 saying what still works) and the log shows (its cause, the driver's error). */
export class StoreUnavailableError extends ProblemError {
  override name = 'StoreUnavailableError';
  constructor(cause: unknown) {
    super('unavailable', `the store is unavailable: ${(cause as Error | undefined)?.message ?? String(cause)}`, {
      detail: unavailableDetail(cause),
      headers: { 'Retry-After': '5' },
      logAs: 'store unavailable',
      cause,
    });
  }
}

/**
 * The problem of a store's failure: a driver's error that shows the store
 * unavailable (isStoreUnavailable) as a StoreUnavailableError; undefined for any other
 * error (a constraint, a bug: a 500).
 */
export function storeUnavailable(err: unknown): StoreUnavailableError | undefined {
  if (err instanceof StoreUnavailableError) return err;
  return isStoreUnavailable(err) ? new StoreUnavailableError(err) : undefined;
}
