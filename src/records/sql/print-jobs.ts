/**
 * The print queue as SQL, shared by both stores: its columns, the values that go
 * into them, the statements that are the same text on both (but for placeholders),
 * and the row mapping, so both stores return byte-identical jobs and batches. What
 * only one store does (the claim, the batch insert) is in its own print-jobs.ts.
 */
import type { NewEvent, PrintJobEventType, ClaimedPrintJob, NewPrintBatch, NewPrintJob, PrintedLabel, PrintBatch, PrintJob, PrintJobPage, PrintJobQuery, PrintJobState, PrinterQueueCount } from '../types.js';
import type { SqlDialect } from './dialect.js';

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
  held_reason: string | null;
  png?: Buffer;
}

/** Columns of a job without its document (listing and status reads skip the PNG). */
export const PRINT_JOB_COLUMNS =
  'id, state, printer, template, title, fields, token_id, idempotency_key, attempts, max_attempts, last_error, created_at, updated_at, next_attempt_at, printed_at, in_doubt, possible_duplicate, retried_at, batch_id, cancelled_at, held_reason';

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
    heldReason: row.held_reason,
  };
}

/**
 * A print job event (print_job.printed, print_job.failed, print_job.held): appended in the
 * transaction that changed the job's state, so the outbox has it exactly when the change
 * committed. Its data is the job as listPrintJobs shows it, without its fields and token.
 * A cancelled job (cancelPrintJob) is not a failure: no event.
 */
export function printJobEvent(type: PrintJobEventType, row: PrintJobRow): NewEvent {
  const j = toPrintJob(row);
  return {
    type,
    subject: { kind: 'print_job', id: j.id },
    data: {
      job: {
        id: j.id, state: j.state, printer: j.printer, template: j.template, title: j.title, attempts: j.attempts, maxAttempts: j.maxAttempts,
        lastError: j.lastError, heldReason: j.heldReason, batchId: j.batchId, inDoubt: j.inDoubt, possibleDuplicate: j.possibleDuplicate,
        createdAt: j.createdAt, updatedAt: j.updatedAt, printedAt: j.printedAt,
      },
    },
  };
}

/** held events for the rows a write left held (a reason set). */
export function heldEvents(rows: readonly PrintJobRow[]): NewEvent[] {
  return rows.filter((r) => r.state === 'queued' && r.held_reason !== null).map((r) => printJobEvent('print_job.held', r));
}

/** A printed job keeps its record, not its document (a failed one keeps both, to be retried). */
export const NO_DOCUMENT = Buffer.alloc(0);

/** SQL parameter values for AttemptMarks: in_doubt (null: unchanged) and possible_duplicate (0/1, OR-ed in). */
export function markValues(marks: { inDoubt?: boolean; possibleDuplicate?: boolean } = {}): [inDoubt: number | null, possibleDuplicate: number] {
  return [marks.inDoubt === undefined ? null : marks.inDoubt ? 1 : 0, marks.possibleDuplicate ? 1 : 0];
}

/** A row a claim returns (CLAIM_RETURNING). */
export type ClaimRow = PrintJobRow & { printer_uri: string | null };

export function toClaimedPrintJob(row: ClaimRow): ClaimedPrintJob {
  if (!row.png) throw new Error('claimed job row has no png');
  return { ...toPrintJob(row), png: Buffer.from(row.png), printerUri: row.printer_uri };
}

/**
 * What a claim returns besides the job's columns: the document, and its printer's device URI
 * read in the claim's own statement (the default's for a job naming no stored printer), so
 * the worker can tell that a printer moved after it last read the fleet.
 */
export const CLAIM_RETURNING = `${PRINT_JOB_COLUMNS}, png,
  COALESCE((SELECT device_uri FROM printers WHERE name = print_jobs.printer), (SELECT device_uri FROM printers WHERE is_default = 1)) AS printer_uri`;

/** Values for inserting a new job, in PRINT_JOB_INSERT_COLUMNS order. */
export const PRINT_JOB_INSERT_COLUMNS =
  'id, state, printer, template, title, fields, png, token_id, idempotency_key, attempts, max_attempts, created_at, updated_at, next_attempt_at, held_reason, ' +
  'label_kind, label_id, label_fingerprint, label_template, label_template_version, label_revision';

export function printJobValues(job: NewPrintJob, now: string): unknown[] {
  const l = job.label;
  return [
    job.id, 'queued', job.printer, job.template, job.title, JSON.stringify(job.fields), job.png, job.tokenId, job.idempotencyKey, 0, job.maxAttempts, now, now, now, job.heldReason ?? null,
    l?.kind ?? null, l?.id ?? null, l?.fingerprint ?? null, l?.template ?? null, l?.templateVersion ?? null, l?.revision ?? null,
  ];
}

/**
 * After a job is marked printed (its id the placeholder): its label becomes its record's last
 * printed one, unless a label of the record printed later is already there (two printers at once).
 */
export const rememberPrintedSql = (jobId: string) => `INSERT INTO printed_labels (kind, record_id, job_id, fingerprint, template, template_version, stock, printer, revision, printed_at)
  SELECT label_kind, label_id, id, label_fingerprint, label_template, label_template_version, template, printer, label_revision, printed_at
    FROM print_jobs WHERE id = ${jobId} AND state = 'printed' AND label_kind IS NOT NULL
  ON CONFLICT (kind, record_id) DO UPDATE SET job_id = excluded.job_id, fingerprint = excluded.fingerprint, template = excluded.template,
    template_version = excluded.template_version, stock = excluded.stock, printer = excluded.printer, revision = excluded.revision, printed_at = excluded.printed_at
  WHERE printed_labels.printed_at <= excluded.printed_at`;

export interface PrintedLabelRow {
  kind: string;
  record_id: string;
  job_id: string;
  fingerprint: string;
  template: string;
  template_version: string;
  stock: string;
  printer: string;
  revision: number | string;
  printed_at: string;
}

export const printedLabelSql = (kind: string, id: string) => `SELECT kind, record_id, job_id, fingerprint, template, template_version, stock, printer, revision, printed_at
  FROM printed_labels WHERE kind = ${kind} AND record_id = ${id}`;

export function toPrintedLabel(row: PrintedLabelRow): PrintedLabel {
  return {
    kind: row.kind as PrintedLabel['kind'],
    id: row.record_id,
    jobId: row.job_id,
    fingerprint: row.fingerprint,
    template: row.template,
    templateVersion: row.template_version,
    stock: row.stock,
    printer: row.printer,
    revision: Number(row.revision),
    printedAt: row.printed_at,
  };
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

/** A batch's jobs, in print order: what its counts need (batchJobsSql). */
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
 * listPrintJobs as SQL, the same text for both stores but for the placeholders. Newest first, walking print_jobs_token_idx backwards.
 */
export function printJobListSql(query: PrintJobQuery, d: SqlDialect): { sql: string; params: unknown[] } {
  const params: unknown[] = [query.tokenId];
  const where = [`token_id = ${d.param(1)}`];
  const add = (value: unknown) => d.param(params.push(value));
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
 * queue (attempts from 0, due at `now`); its last error and marks stay. `id` and
 * `now` are SQL: the job id's placeholder, and the time (a placeholder or an expression).
 */
export function requeueFailedSql(id: string, now: string, heldReason: string): string {
  return `UPDATE print_jobs SET state = 'queued', attempts = 0, next_attempt_at = ${now}, updated_at = ${now}, retried_at = ${now}, held_reason = ${heldReason},
                 lease_owner = NULL, lease_expires_at = NULL
           WHERE id = ${id} AND state = 'failed' AND cancelled_at IS NULL AND length(png) > 0
       RETURNING ${PRINT_JOB_COLUMNS}`;
}

/**
 * cancelPrintJob's write: the token's queued job (never one a worker holds) becomes a
 * finished, cancelled job without its document. One statement: a claim either took the
 * job before it (state 'printing': nothing changes here) or finds it finished after it.
 * `id`, `token`, `empty` (the empty document) and `now` are SQL, as in requeueFailedSql.
 */
export function cancelQueuedSql(id: string, token: string, empty: string, now: string): string {
  return `UPDATE print_jobs SET state = 'failed', cancelled_at = ${now}, updated_at = ${now}, png = ${empty}, held_reason = NULL,
                 lease_owner = NULL, lease_expires_at = NULL
           WHERE id = ${id} AND token_id = ${token} AND state = 'queued'
       RETURNING ${PRINT_JOB_COLUMNS}`;
}

/**
 * The claim's choice of job, the same text for both stores but for placeholders: the oldest
 * due job of the printers named (`printerIn`: SQL that follows `printer`, `IN (@p0, @p1)` on
 * SQLite or `= ANY($3::text[])` on PostgreSQL, or null for any printer), never a held one;
 * `orphans` takes instead the jobs naming no known printer (the default's). `now` is SQL (a
 * placeholder or an expression). The choice walks print_jobs_pending_idx, which holds only
 * queued and printing jobs, oldest first: finished jobs cost it nothing.
 */
export function claimableSql(printerIn: string | null, orphans: boolean, now: string): string {
  const which = orphans ? 'printer NOT IN (SELECT name FROM printers)' : printerIn ? `printer ${printerIn}` : '1 = 1';
  return `SELECT id FROM print_jobs
           WHERE state IN ('queued', 'printing') AND ${which}
             AND ((state = 'queued' AND held_reason IS NULL AND next_attempt_at <= ${now}) OR (state = 'printing' AND lease_expires_at <= ${now}))
           ORDER BY next_attempt_at, created_at LIMIT 1`;
}

/** queuedStocks: a printer's queued jobs by stock (`printer` is its placeholder). */
export const queuedStocksSql = (printer: string) =>
  `SELECT template, COUNT(*) AS n FROM print_jobs WHERE state IN ('queued', 'printing') AND printer = ${printer} AND state = 'queued' GROUP BY template`;

/** setHeld: placeholders for the reason, the printer and the stock. */
export const setHeldSql = (reason: string, printer: string, template: string) =>
  `UPDATE print_jobs SET held_reason = ${reason}
    WHERE state IN ('queued', 'printing') AND printer = ${printer} AND template = ${template} AND state = 'queued'
      AND held_reason IS DISTINCT FROM ${reason}
RETURNING ${PRINT_JOB_COLUMNS}`;

/** moveQueued: placeholders (or SQL) for the printer, the reason, the id, the token and the time. */
export const moveQueuedSql = (printer: string, reason: string, id: string, token: string, now: string) =>
  `UPDATE print_jobs SET printer = ${printer}, held_reason = ${reason}, updated_at = ${now}
    WHERE id = ${id} AND token_id = ${token} AND state = 'queued'
RETURNING ${PRINT_JOB_COLUMNS}`;

/** pendingByPrinter: pending jobs by printer and state. */
export const PENDING_BY_PRINTER_SQL = `SELECT printer, state, COUNT(*) AS n, SUM(CASE WHEN held_reason IS NULL THEN 0 ELSE 1 END) AS held, MIN(created_at) AS oldest
  FROM print_jobs WHERE state IN ('queued', 'printing') GROUP BY printer, state`;

export function toPrinterQueueCounts(rows: { printer: string; state: string; n: number | string; held: number | string | null; oldest: string }[]): PrinterQueueCount[] {
  return rows.map((r) => ({ printer: r.printer, state: r.state === 'printing' ? 'printing' : 'queued', jobs: Number(r.n), held: Number(r.held ?? 0), oldestCreatedAt: r.oldest }));
}
