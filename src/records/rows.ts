/**
 * Row <-> contract mapping shared by the SQLite and PostgreSQL stores, so both
 * return byte-identical objects for the same data.
 */
import { isScope } from './tokens.js';
import { ALL_SCOPES, type ClaimedPrintJob, type InventoryRecord, type NewPrintBatch, type NewPrintJob, type PrintBatch, type PrintJob, type PrintJobPage, type PrintJobQuery, type PrintJobState, type RecordInput, type TokenInfo } from './types.js';

export interface RecordRow {
  kind: string;
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  /** pg returns BIGINT as a string (it may exceed 2^53); asset ids never do. */
  asset_id: number | string | null;
  updated_at: string;
}

export interface TokenRow {
  id: string;
  name: string;
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Column values for one upsert, in the stores' column order. */
export type RecordValues = [kind: string, id: string, name: string, description: string, parentId: string | null, assetId: number | null, updatedAt: string];

/** Deepest location chain locationPath follows; also what stops a walk around a parent cycle. */
export const MAX_LOCATION_DEPTH = 32;

/** Token uses are recorded at most this often; see lastUseToRecord. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Whether findActiveByHash should write last_used_at, and with which values.
 * Writing on every request would turn each authenticated read into a write (SQLite:
 * the single writer lock and WAL growth; PostgreSQL: a dead tuple and WAL record per
 * request), while "last used" only needs minute precision to spot stale tokens.
 * The stores' UPDATE repeats `last_used_at < cutoff` in its WHERE clause, so
 * concurrent requests still write at most once per interval.
 */
export function lastUseToRecord(lastUsedAt: string | null, nowMs = Date.now()): { now: string; cutoff: string } | undefined {
  const cutoff = new Date(nowMs - LAST_USED_RESOLUTION_MS).toISOString();
  if (lastUsedAt !== null && lastUsedAt >= cutoff) return undefined;
  return { now: new Date(nowMs).toISOString(), cutoff };
}

export function toRecord(row: RecordRow): InventoryRecord {
  return {
    kind: row.kind as InventoryRecord['kind'],
    id: row.id,
    name: row.name,
    description: row.description,
    parentId: row.parent_id,
    assetId: row.asset_id === null ? null : Number(row.asset_id),
    updatedAt: row.updated_at,
  };
}

export function toTokenInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    // Unknown stored scopes (say, written by a newer release) grant nothing rather than break auth.
    scopes: ALL_SCOPES.filter((s) => row.scopes.split(' ').filter(isScope).includes(s)),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Any parseable timestamp → canonical `toISOString()` form (what text ordering relies on). */
export function isoTimestamp(value: string | Date): string {
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`invalid timestamp: ${String(value)}`);
  return d.toISOString();
}

/**
 * Upsert values for a batch. Later duplicates of the same (kind, id) win, as they
 * would with row-by-row upserts; PostgreSQL's single-statement upsert needs them
 * removed up front.
 */
export function recordValues(records: readonly RecordInput[], now: string): RecordValues[] {
  const byKey = new Map<string, RecordValues>();
  for (const r of records) {
    const key = `${r.kind}\u0000${r.id}`;
    byKey.delete(key); // keep the last occurrence's position too
    byKey.set(key, [r.kind, r.id, r.name, r.description ?? '', r.parentId ?? null, r.assetId ?? null, r.updatedAt ? isoTimestamp(r.updatedAt) : now]);
  }
  return [...byKey.values()];
}

export interface PrintJobRow {
  id: string;
  state: string;
  printer: string;
  template: string;
  title: string;
  fields: string;
  token_id: string;
  idempotency_key: string | null;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  next_attempt_at: string;
  printed_at: string | null;
  /** 0/1 (INTEGER in both stores). */
  in_doubt: number;
  possible_duplicate: number;
  retried_at: string | null;
  batch_id: string | null;
  cancelled_at: string | null;
  png?: Buffer;
}

/** Columns of a job without its document (listing and status reads skip the PNG). */
export const PRINT_JOB_COLUMNS =
  'id, state, printer, template, title, fields, token_id, idempotency_key, attempts, max_attempts, last_error, created_at, updated_at, next_attempt_at, printed_at, in_doubt, possible_duplicate, retried_at, batch_id, cancelled_at';

export function toPrintJob(row: PrintJobRow): PrintJob {
  return {
    id: row.id,
    state: row.state as PrintJobState,
    printer: row.printer,
    template: row.template,
    title: row.title,
    fields: JSON.parse(row.fields) as Record<string, string>,
    tokenId: row.token_id,
    idempotencyKey: row.idempotency_key,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at,
    printedAt: row.printed_at,
    inDoubt: Number(row.in_doubt) === 1,
    possibleDuplicate: Number(row.possible_duplicate) === 1,
    retriedAt: row.retried_at,
    batchId: row.batch_id,
    cancelledAt: row.cancelled_at,
  };
}

/** A printed job keeps its record, not its document (a failed one keeps both, to be retried). */
export const NO_DOCUMENT = Buffer.alloc(0);

/** SQL parameter values for AttemptMarks: in_doubt (null: unchanged) and possible_duplicate (0/1, OR-ed in). */
export function markValues(marks: { inDoubt?: boolean; possibleDuplicate?: boolean } = {}): [inDoubt: number | null, possibleDuplicate: number] {
  return [marks.inDoubt === undefined ? null : marks.inDoubt ? 1 : 0, marks.possibleDuplicate ? 1 : 0];
}

export function toClaimedPrintJob(row: PrintJobRow): ClaimedPrintJob {
  if (!row.png) throw new Error('claimed job row has no png');
  return { ...toPrintJob(row), png: Buffer.from(row.png) };
}

/** Values for inserting a new job, in PRINT_JOB_INSERT_COLUMNS order. */
export const PRINT_JOB_INSERT_COLUMNS =
  'id, state, printer, template, title, fields, png, token_id, idempotency_key, attempts, max_attempts, created_at, updated_at, next_attempt_at';

export function printJobValues(job: NewPrintJob, now: string): unknown[] {
  return [job.id, 'queued', job.printer, job.template, job.title, JSON.stringify(job.fields), job.png, job.tokenId, job.idempotencyKey, 0, job.maxAttempts, now, now, now];
}

/** Errors are stored for people to read; keep them bounded. */
export function boundedError(message: string): string {
  return message.length > 1000 ? `${message.slice(0, 997)}...` : message;
}

/** Rows of (state, count) as the queue's depth; a state with no row has none. */
export function pendingCounts(rows: { state: string; n: number | string }[]): { queued: number; printing: number } {
  const counts = { queued: 0, printing: 0 };
  for (const { state, n } of rows) if (state === 'queued' || state === 'printing') counts[state] = Number(n);
  return counts;
}

export interface PrintBatchRow {
  id: string;
  token_id: string;
  idempotency_key: string | null;
  request_hash: string;
  printer: string;
  template: string;
  created_at: string;
}

export const PRINT_BATCH_COLUMNS = 'id, token_id, idempotency_key, request_hash, printer, template, created_at';
export const PRINT_BATCH_INSERT_COLUMNS = 'id, token_id, idempotency_key, request_hash, printer, template, job_count, created_at';
/** A batch's jobs: the single job's columns plus the batch. */
export const BATCH_JOB_INSERT_COLUMNS = `${PRINT_JOB_INSERT_COLUMNS}, batch_id`;

export function printBatchValues(batch: NewPrintBatch, jobCount: number, now: string): unknown[] {
  return [batch.id, batch.tokenId, batch.idempotencyKey, batch.requestHash, batch.printer, batch.template, jobCount, now];
}

/**
 * Values for a batch's jobs: each job's created_at and next_attempt_at a millisecond
 * apart, ending now, so they are claimed (and listed) in the order given.
 */
export function batchJobValues(jobs: readonly NewPrintJob[], batchId: string, nowMs: number): unknown[][] {
  return jobs.map((job, i) => {
    const at = new Date(nowMs - (jobs.length - 1 - i)).toISOString();
    const v = printJobValues(job, at);
    v[12] = new Date(nowMs).toISOString(); // updated_at
    return [...v, batchId];
  });
}

/** A batch's jobs, in print order: what its counts need (BATCH_JOBS_SQL). */
export interface BatchJobRow {
  id: string;
  state: string;
  cancelled_at: string | null;
}

/** A batch's jobs in print order (`param` is the batch id's placeholder). */
export const batchJobsSql = (param: string) => `SELECT id, state, cancelled_at FROM print_jobs WHERE batch_id = ${param} ORDER BY created_at, id`;

/** A batch from its row and its jobs' rows, in print order. */
export function toPrintBatch(row: PrintBatchRow, jobs: readonly BatchJobRow[]): PrintBatch {
  const counts: PrintBatch['counts'] = { queued: 0, printing: 0, printed: 0, failed: 0, cancelled: 0 };
  for (const j of jobs) {
    counts[j.state as PrintJobState]++;
    if (j.cancelled_at !== null) counts.cancelled++;
  }
  return {
    id: row.id,
    tokenId: row.token_id,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    printer: row.printer,
    template: row.template,
    createdAt: row.created_at,
    jobIds: jobs.map((j) => j.id),
    counts,
  };
}

/**
 * listPrintJobs as SQL, the same text for both stores but for the placeholders
 * (`param(n)` gives the n-th, from 1). Newest first, walking print_jobs_token_idx backwards.
 */
export function printJobListSql(query: PrintJobQuery, param: (n: number) => string): { sql: string; params: unknown[] } {
  const params: unknown[] = [query.tokenId];
  const where = [`token_id = ${param(1)}`];
  const add = (value: unknown) => param(params.push(value));
  if (query.state) where.push(`state = ${add(query.state)}`);
  if (query.batchId) where.push(`batch_id = ${add(query.batchId)}`);
  if (query.after) {
    // A row-value comparison: both databases seek the index to it instead of scanning up to it.
    where.push(`(created_at, id) < (${add(query.after.createdAt)}, ${add(query.after.id)})`);
  }
  // One row more than the page: whether it exists says whether there is a next page.
  const sql = `SELECT ${PRINT_JOB_COLUMNS} FROM print_jobs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${add(query.limit + 1)}`;
  return { sql, params };
}

/** A page from the rows of printJobListSql (one more than the page when there is a next). */
export function toPrintJobPage(rows: PrintJobRow[], limit: number): PrintJobPage {
  const jobs = rows.slice(0, limit).map(toPrintJob);
  const last = jobs.at(-1);
  return rows.length > limit && last ? { jobs, next: { createdAt: last.createdAt, id: last.id } } : { jobs };
}

/**
 * retryPrintJob's write: a failed job that still has its document goes back to the
 * queue (attempts from 0, due at `now`); its last error and marks stay.
 */
export function requeueFailedSql(param: (n: number) => string, now: string): string {
  return `UPDATE print_jobs SET state = 'queued', attempts = 0, next_attempt_at = ${now}, updated_at = ${now}, retried_at = ${now},
                 lease_owner = NULL, lease_expires_at = NULL
           WHERE id = ${param(1)} AND state = 'failed' AND cancelled_at IS NULL AND length(png) > 0
       RETURNING ${PRINT_JOB_COLUMNS}`;
}

/**
 * cancelPrintJob's write: the token's queued job (never one a worker holds) becomes a
 * finished, cancelled job without its document. One statement: a claim either took the
 * job before it (state 'printing': nothing changes here) or finds it finished after it.
 * Parameters: the job id, the token id, the empty document.
 */
export function cancelQueuedSql(param: (n: number) => string, now: string): string {
  return `UPDATE print_jobs SET state = 'failed', cancelled_at = ${now}, updated_at = ${now}, png = ${param(3)},
                 lease_owner = NULL, lease_expires_at = NULL
           WHERE id = ${param(1)} AND token_id = ${param(2)} AND state = 'queued'
       RETURNING ${PRINT_JOB_COLUMNS}`;
}
