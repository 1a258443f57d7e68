/**
 * The print queue on SQLite. One process writes at a time (SQLite's lock), so a
 * claim is a single UPDATE ... RETURNING over the oldest due job. The claim's
 * `state IN ('queued', 'printing')` term is what lets SQLite use the partial index
 * over pending jobs (it must appear in the query as written in the index).
 */
import type Database from 'better-sqlite3';
import { isoTimestamp } from '../rows.js';
import { SQLITE } from '../sql/dialect.js';
import {
  BATCH_JOB_INSERT_COLUMNS,
  NO_DOCUMENT,
  PRINT_BATCH_COLUMNS,
  PRINT_BATCH_INSERT_COLUMNS,
  PRINT_JOB_COLUMNS,
  PRINT_JOB_INSERT_COLUMNS,
  batchJobValues,
  batchJobsSql,
  boundedError,
  cancelQueuedSql,
  claimableSql,
  CLAIM_RETURNING,
  moveQueuedSql,
  PENDING_BY_PRINTER_SQL,
  queuedStocksSql,
  setHeldSql,
  toPrinterQueueCounts,
  markValues,
  pendingCounts,
  printBatchValues,
  printJobListSql,
  printJobValues,
  printedLabelSql,
  rememberPrintedSql,
  toPrintedLabel,
  type PrintedLabelRow,
  requeueFailedSql,
  toClaimedPrintJob,
  toPrintBatch,
  toPrintJob,
  toPrintJobPage,
  type BatchJobRow,
  type PrintBatchRow,
  type ClaimRow,
  type PrintJobRow,
  heldEvents,
  printJobEvent,
} from '../sql/print-jobs.js';
import { EVENT_INSERT_SQL, eventValues } from '../sql/events.js';
import type { NewEvent } from '../types.js';
import type { PrintJobStore } from '../types.js';

export function sqlitePrintJobs(db: Database.Database): PrintJobStore {
  const q = {
    insert: db.prepare(`INSERT INTO print_jobs (${PRINT_JOB_INSERT_COLUMNS}) VALUES (${PRINT_JOB_INSERT_COLUMNS.split(',').map(() => '?').join(', ')})`),
    byKey: db.prepare(`SELECT ${PRINT_JOB_COLUMNS} FROM print_jobs WHERE token_id = ? AND idempotency_key = ?`),
    releaseKey: db.prepare('UPDATE print_jobs SET idempotency_key = NULL WHERE token_id = ? AND idempotency_key = ?'),
    get: db.prepare(`SELECT ${PRINT_JOB_COLUMNS} FROM print_jobs WHERE id = ?`),
    printed: db.prepare(`
      UPDATE print_jobs SET state = 'printed', printed_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL,
             png = ?, in_doubt = 0, possible_duplicate = CASE WHEN ? = 1 THEN 1 ELSE possible_duplicate END
       WHERE id = ? AND lease_owner = ? AND state = 'printing'
      RETURNING ${PRINT_JOB_COLUMNS}`),
    remember: db.prepare(rememberPrintedSql('?')),
    printedLabel: db.prepare(printedLabelSql('?', '?')),
    retry: db.prepare(`
      UPDATE print_jobs SET state = 'queued', last_error = COALESCE(?, last_error), next_attempt_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL,
             in_doubt = COALESCE(?, in_doubt), possible_duplicate = CASE WHEN ? = 1 THEN 1 ELSE possible_duplicate END,
             attempts = attempts - ?
       WHERE id = ? AND lease_owner = ? AND state = 'printing'`),
    // A failed job keeps its document: a person may put it back in the queue (requeueFailed).
    failed: db.prepare(`
      UPDATE print_jobs SET state = 'failed', last_error = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL,
             in_doubt = COALESCE(?, in_doubt), possible_duplicate = CASE WHEN ? = 1 THEN 1 ELSE possible_duplicate END
       WHERE id = ? AND lease_owner = ? AND state = 'printing'
      RETURNING ${PRINT_JOB_COLUMNS}`),
    pending: db.prepare(`SELECT state, COUNT(*) AS n FROM print_jobs WHERE state IN ('queued', 'printing') GROUP BY state`),
    nextWake: db.prepare(`
      SELECT MIN(CASE WHEN state = 'queued' THEN next_attempt_at ELSE lease_expires_at END) AS at
        FROM print_jobs WHERE state IN ('queued', 'printing')`),
    insertBatch: db.prepare(`INSERT INTO print_batches (${PRINT_BATCH_INSERT_COLUMNS}) VALUES (${PRINT_BATCH_INSERT_COLUMNS.split(',').map(() => '?').join(', ')})`),
    insertBatchJob: db.prepare(`INSERT INTO print_jobs (${BATCH_JOB_INSERT_COLUMNS}) VALUES (${BATCH_JOB_INSERT_COLUMNS.split(',').map(() => '?').join(', ')})`),
    batchByKey: db.prepare(`SELECT ${PRINT_BATCH_COLUMNS} FROM print_batches WHERE token_id = ? AND idempotency_key = ?`),
    releaseBatchKey: db.prepare('UPDATE print_batches SET idempotency_key = NULL WHERE token_id = ? AND idempotency_key = ?'),
    getBatch: db.prepare(`SELECT ${PRINT_BATCH_COLUMNS} FROM print_batches WHERE id = ?`),
    batchJobs: db.prepare(batchJobsSql('?')),
    // Named parameters: the time appears three times in the statement.
    requeue: db.prepare(requeueFailedSql('@id', '@now', '@reason')),
    cancel: db.prepare(cancelQueuedSql('@id', '@token', '@empty', '@now')),
    queuedStocks: db.prepare(queuedStocksSql('?')),
    setHeld: db.prepare(setHeldSql('@reason', '@printer', '@template')),
    move: db.prepare(moveQueuedSql('@printer', '@reason', '@id', '@token', '@now')),
    byPrinter: db.prepare(PENDING_BY_PRINTER_SQL),
    purge: db.prepare(`
      DELETE FROM print_jobs WHERE id IN (
        SELECT id FROM print_jobs WHERE state IN ('printed', 'failed') AND updated_at < ? LIMIT ?)`),
  };

  // Print job events go in the outbox in the write's own transaction (the writer's; SQLite has one writer, so ids follow commits).
  const insertEvent = db.prepare(EVENT_INSERT_SQL);
  const append = (events: readonly NewEvent[]) => {
    const at = isoTimestamp(new Date());
    for (const e of events) insertEvent.run(...eventValues(e, at));
  };

  // A job claimed while 'printing' was abandoned mid-delivery (its lease ran out): in doubt.
  const claimSql = (choice: string) => `
      UPDATE print_jobs
         SET state = 'printing', lease_owner = @owner, lease_expires_at = @lease, attempts = attempts + 1, updated_at = @now,
             in_doubt = CASE WHEN state = 'printing' THEN 1 ELSE in_doubt END
       WHERE id = (${choice})
      RETURNING ${CLAIM_RETURNING}`;
  // Prepared once per number of printers named (a fleet has a handful of sizes).
  const claims = new Map<string, Database.Statement>();
  const claimStatement = (printers: readonly string[] | undefined, orphans: boolean) => {
    const key = orphans ? 'orphans' : printers ? String(printers.length) : 'any';
    let statement = claims.get(key);
    if (!statement) {
      statement = db.prepare(claimSql(claimableSql(printers ? `IN (${printers.map((_, i) => `@p${i}`).join(', ')})` : null, orphans, '@now')));
      claims.set(key, statement);
    }
    return statement;
  };
  const submit = db.transaction((job: Parameters<PrintJobStore['submit']>[0], keySince: string) => {
    if (job.idempotencyKey !== null) {
      const existing = q.byKey.get(job.tokenId, job.idempotencyKey) as PrintJobRow | undefined;
      if (existing && existing.created_at >= keySince) return { job: toPrintJob(existing), created: false };
      if (existing) q.releaseKey.run(job.tokenId, job.idempotencyKey); // expired: the key may be reused
    }
    const now = isoTimestamp(new Date());
    q.insert.run(...printJobValues(job, now));
    const row = q.get.get(job.id) as PrintJobRow;
    append(heldEvents([row]));
    return { job: toPrintJob(row), created: true };
  });

  /** A write that may leave jobs held, and their held events, in one transaction. */
  const held = db.transaction((write: () => PrintJobRow[]) => {
    const rows = write();
    append(heldEvents(rows));
    return rows;
  });
  /** A job's change to printed or failed and its event, in one transaction; whether it changed. */
  const stateChange = db.transaction((type: 'print_job.printed' | 'print_job.failed', write: () => PrintJobRow | undefined) => {
    const row = write();
    if (row) append([printJobEvent(type, row)]);
    return row !== undefined;
  });

  const batchOf = (row: PrintBatchRow) => toPrintBatch(row, q.batchJobs.all(row.id) as BatchJobRow[]);

  const submitBatch = db.transaction((batch: Parameters<PrintJobStore['submitBatch']>[0], jobs: Parameters<PrintJobStore['submitBatch']>[1], keySince: string) => {
    if (batch.idempotencyKey !== null) {
      const existing = q.batchByKey.get(batch.tokenId, batch.idempotencyKey) as PrintBatchRow | undefined;
      if (existing && existing.created_at >= keySince) return { batch: batchOf(existing), created: false };
      if (existing) q.releaseBatchKey.run(batch.tokenId, batch.idempotencyKey);
    }
    const nowMs = Date.now();
    q.insertBatch.run(...printBatchValues(batch, jobs.length, new Date(nowMs).toISOString()));
    for (const values of batchJobValues(jobs, batch.id, nowMs)) q.insertBatchJob.run(...values);
    if (jobs.some((j) => j.heldReason)) append(heldEvents(jobs.filter((j) => j.heldReason).map((j) => q.get.get(j.id) as PrintJobRow)));
    return { batch: batchOf(q.getBatch.get(batch.id) as PrintBatchRow), created: true };
  });

  return {
    submit: async (job, keySince) => submit.immediate(job, keySince),
    submitBatch: async (batch, jobs, keySince) => submitBatch.immediate(batch, jobs, keySince),
    getBatch: async (id) => {
      const row = q.getBatch.get(id) as PrintBatchRow | undefined;
      return row && batchOf(row);
    },
    get: async (id) => {
      const row = q.get.get(id) as PrintJobRow | undefined;
      return row && toPrintJob(row);
    },
    claim: async (owner, leaseMs, printers, orphans = false) => {
      if (printers?.length === 0 && !orphans) return undefined;
      const now = new Date();
      const params: Record<string, string> = { owner, lease: new Date(now.getTime() + leaseMs).toISOString(), now: now.toISOString() };
      if (!orphans) printers?.forEach((name, i) => (params[`p${i}`] = name));
      const row = claimStatement(orphans ? undefined : printers, orphans).get(params) as ClaimRow | undefined;
      return row && toClaimedPrintJob(row);
    },
    queuedStocks: async (printer) => (q.queuedStocks.all(printer) as { template: string; n: number }[]).map((r) => ({ template: r.template, jobs: Number(r.n) })),
    setHeld: async (printer, template, reason) =>
      held.immediate(() => q.setHeld.all({ reason, printer, template }) as PrintJobRow[]).length,
    moveQueued: async (id, tokenId, printer, heldReason) => {
      const [row] = held.immediate(() => [q.move.get({ printer, reason: heldReason, id, token: tokenId, now: isoTimestamp(new Date()) }) as PrintJobRow | undefined].filter((r) => r !== undefined));
      return row && toPrintJob(row);
    },
    pendingByPrinter: async () => toPrinterQueueCounts(q.byPrinter.all() as Parameters<typeof toPrinterQueueCounts>[0]),
    markPrinted: async (id, owner, marks) => {
      const now = isoTimestamp(new Date());
      // One transaction: a job marked printed is always its record's last printed label, and its event is in the outbox.
      return stateChange('print_job.printed', () => {
        const row = q.printed.get(now, now, NO_DOCUMENT, markValues(marks)[1], id, owner) as PrintJobRow | undefined;
        if (row) q.remember.run(id);
        return row;
      });
    },
    markRetry: async (id, owner, error, nextAttemptAt, marks) =>
      q.retry.run(error === null ? null : boundedError(error), nextAttemptAt, isoTimestamp(new Date()), ...markValues(marks), marks?.notSent ? 1 : 0, id, owner).changes > 0,
    markFailed: async (id, owner, error, marks) =>
      stateChange('print_job.failed', () => q.failed.get(boundedError(error), isoTimestamp(new Date()), ...markValues(marks), id, owner) as PrintJobRow | undefined),
    list: async (query) => {
      const { sql, params } = printJobListSql(query, SQLITE);
      return toPrintJobPage(db.prepare(sql).all(...params) as PrintJobRow[], query.limit);
    },
    requeueFailed: async (id, heldReason) => {
      const [row] = held.immediate(() => [q.requeue.get({ id, now: isoTimestamp(new Date()), reason: heldReason }) as PrintJobRow | undefined].filter((r) => r !== undefined));
      return row && toPrintJob(row);
    },
    cancelQueued: async (id, tokenId) => {
      const row = q.cancel.get({ id, token: tokenId, empty: NO_DOCUMENT, now: isoTimestamp(new Date()) }) as PrintJobRow | undefined;
      return row && toPrintJob(row);
    },
    printedLabel: async (kind, id) => {
      const row = q.printedLabel.get(kind, id) as PrintedLabelRow | undefined;
      return row && toPrintedLabel(row);
    },
    nextWakeAt: async () => (q.nextWake.get() as { at: string | null }).at ?? undefined,
    pendingCounts: async () => pendingCounts(q.pending.all() as { state: string; n: number }[]),
    purgeFinished: async (before, limit) => q.purge.run(before, limit).changes,
    // Rows are updated in place and deleted rows' pages reused: no dead versions to reclaim.
    tidy: async () => {},
  };
}

