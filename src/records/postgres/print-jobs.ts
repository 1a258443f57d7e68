/**
 * The print queue on PostgreSQL, shared by several instances: a claim locks the
 * oldest due row with FOR UPDATE SKIP LOCKED, so concurrent workers each take a
 * different job and never wait on one another. It walks the partial index over
 * pending jobs, so finished jobs (kept for the retention period) cost it nothing.
 */
import type pg from 'pg';
import { isoTimestamp } from '../rows.js';
import { POSTGRES } from '../sql/dialect.js';
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
import { appendEvents } from '../sql/events.js';
import { inTransaction } from './transaction.js';
import type { NewEvent, PrintJobStore } from '../types.js';
import type { Runner } from '../sql/printers.js';

/** Statements on one transaction's connection. */
const runnerOf = (client: pg.PoolClient): Runner => ({
  dialect: POSTGRES,
  all: async <R>(text: string, values: readonly unknown[] = []) => (await client.query(text, [...values])).rows as R[],
  run: async (text, values = []) => (await client.query(text, [...values])).rowCount ?? 0,
});

const UNIQUE_VIOLATION = '23505';

/**
 * The database's clock as our ISO text timestamps. Leases are taken and compared on
 * one clock, so an instance whose clock runs ahead cannot steal a job still printing.
 * statement_timestamp() is one value per statement (stable, unlike clock_timestamp()),
 * so the planner can compare it with indexed columns.
 */
const dbTime = (plusMs = '0') =>
  `to_char((statement_timestamp() + (${plusMs}) * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The claim's statements, named: each connection prepares them once and PostgreSQL then
 * reuses their plan (a generic one after its first five runs). Planning the claim cost more
 * than running it (more so with a long list of printers), and the printers named are one
 * array, so one statement serves any number of them. Their result columns are named
 * (CLAIM_RETURNING), so a column added to print_jobs leaves the plans valid.
 */
const claimStatement = (name: string, printerIn: string | null, orphans: boolean) => ({
  name: `labelmaker_claim_${name}`,
  text: `UPDATE print_jobs
            SET state = 'printing', lease_owner = $1, lease_expires_at = ${dbTime('$2::int')}, attempts = attempts + 1, updated_at = ${dbTime()},
                in_doubt = CASE WHEN state = 'printing' THEN 1 ELSE in_doubt END
          WHERE id = (${claimableSql(printerIn, orphans, dbTime())} FOR UPDATE SKIP LOCKED)
          RETURNING ${CLAIM_RETURNING}`,
});
const CLAIM = {
  named: claimStatement('named', '= ANY($3::text[])', false),
  any: claimStatement('any', null, false),
  orphans: claimStatement('orphans', null, true),
};

export function postgresPrintJobs(pool: pg.Pool): PrintJobStore {
  const one = async (sql: string, params: unknown[]) => (await pool.query<PrintJobRow>(sql, params)).rows[0];
  /**
   * A state change and its print job events (sql/print-jobs.ts printJobEvent) in one
   * transaction: `sql` answers the changed rows, `events` makes their events.
   */
  const withEvents = (sql: string, params: unknown[], events: (rows: PrintJobRow[]) => NewEvent[]): Promise<PrintJobRow[]> =>
    inTransaction(pool, async (client) => {
      const { rows } = await client.query<PrintJobRow>(sql, params);
      const list = events(rows);
      if (list.length > 0) await appendEvents(runnerOf(client), list);
      return rows;
    });
  const placeholders = PRINT_JOB_INSERT_COLUMNS.split(',').map((_, i) => `$${i + 1}`).join(', ');
  const byKey = (tokenId: string, key: string) =>
    one(`SELECT ${PRINT_JOB_COLUMNS} FROM print_jobs WHERE token_id = $1 AND idempotency_key = $2`, [tokenId, key]);

  const batchOf = async (q: pg.Pool | pg.PoolClient, row: PrintBatchRow) =>
    toPrintBatch(row, (await q.query<BatchJobRow>(batchJobsSql('$1'), [row.id])).rows);
  const batchByKey = async (q: pg.Pool | pg.PoolClient, tokenId: string, key: string) =>
    (await q.query<PrintBatchRow>(`SELECT ${PRINT_BATCH_COLUMNS} FROM print_batches WHERE token_id = $1 AND idempotency_key = $2`, [tokenId, key])).rows[0];
  /** Rows per INSERT of a batch's jobs: 22 parameters each, well under PostgreSQL's 65535. */
  const JOBS_PER_INSERT = 200;

  const store: PrintJobStore = {
    submitBatch: async (batch, jobs, keySince) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        if (batch.idempotencyKey !== null) {
          const existing = await batchByKey(client, batch.tokenId, batch.idempotencyKey);
          if (existing && existing.created_at >= keySince) {
            await client.query('COMMIT');
            return { batch: await batchOf(pool, existing), created: false };
          }
          if (existing) await client.query('UPDATE print_batches SET idempotency_key = NULL WHERE id = $1', [existing.id]);
        }
        const nowMs = Date.now();
        const values = printBatchValues(batch, jobs.length, new Date(nowMs).toISOString());
        await client.query(`INSERT INTO print_batches (${PRINT_BATCH_INSERT_COLUMNS}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`, values);
        const rows = batchJobValues(jobs, batch.id, nowMs);
        for (let i = 0; i < rows.length; i += JOBS_PER_INSERT) {
          const chunk = rows.slice(i, i + JOBS_PER_INSERT);
          const width = chunk[0]!.length;
          const tuples = chunk.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
          const inserted = await client.query<PrintJobRow>(`INSERT INTO print_jobs (${BATCH_JOB_INSERT_COLUMNS}) VALUES ${tuples} RETURNING ${PRINT_JOB_COLUMNS}`, chunk.flat());
          const held = heldEvents(inserted.rows);
          if (held.length > 0) {
            await appendEvents(runnerOf(client), held);
          }
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        // Another instance stored the same key between our read and insert: theirs wins.
        if ((err as { code?: string }).code === UNIQUE_VIOLATION && batch.idempotencyKey !== null) {
          const winner = await batchByKey(pool, batch.tokenId, batch.idempotencyKey);
          if (winner) return { batch: await batchOf(pool, winner), created: false };
        }
        throw err;
      } finally {
        client.release();
      }
      return { batch: (await store.getBatch(batch.id))!, created: true };
    },
    getBatch: async (id) => {
      const row = (await pool.query<PrintBatchRow>(`SELECT ${PRINT_BATCH_COLUMNS} FROM print_batches WHERE id = $1`, [id])).rows[0];
      return row && batchOf(pool, row);
    },
    submit: async (job, keySince) => {
      if (job.idempotencyKey !== null) {
        const existing = await byKey(job.tokenId, job.idempotencyKey);
        if (existing && existing.created_at >= keySince) return { job: toPrintJob(existing), created: false };
        if (existing) {
          await pool.query('UPDATE print_jobs SET idempotency_key = NULL WHERE id = $1 AND created_at < $2', [existing.id, keySince]);
        }
      }
      const now = isoTimestamp(new Date());
      try {
        const insert = `INSERT INTO print_jobs (${PRINT_JOB_INSERT_COLUMNS}) VALUES (${placeholders}) RETURNING ${PRINT_JOB_COLUMNS}`;
        // A job stored held has its event in the same transaction; the common case is one statement.
        const row = job.heldReason ? (await withEvents(insert, printJobValues(job, now), heldEvents))[0] : await one(insert, printJobValues(job, now));
        return { job: toPrintJob(row!), created: true };
      } catch (err) {
        // Another instance stored the same key between our read and insert: theirs wins.
        if ((err as { code?: string }).code === UNIQUE_VIOLATION && job.idempotencyKey !== null) {
          const winner = await byKey(job.tokenId, job.idempotencyKey);
          if (winner) return { job: toPrintJob(winner), created: false };
        }
        throw err;
      }
    },
    get: async (id) => {
      const row = await one(`SELECT ${PRINT_JOB_COLUMNS} FROM print_jobs WHERE id = $1`, [id]);
      return row && toPrintJob(row);
    },
    claim: async (owner, leaseMs, printers, orphans = false) => {
      if (printers?.length === 0 && !orphans) return undefined;
      const [query, names] = orphans ? [CLAIM.orphans, []] : printers ? [CLAIM.named, [printers]] : [CLAIM.any, []];
      const [row] = (await pool.query<ClaimRow>({ ...query, values: [owner, Math.round(leaseMs), ...names] })).rows;
      return row && toClaimedPrintJob(row);
    },
    queuedStocks: async (printer) =>
      (await pool.query<{ template: string; n: string }>(queuedStocksSql('$1'), [printer])).rows.map((r) => ({ template: r.template, jobs: Number(r.n) })),
    setHeld: async (printer, template, reason) => (await withEvents(setHeldSql('$1::text', '$2', '$3'), [reason, printer, template], heldEvents)).length,
    moveQueued: async (id, tokenId, printer, heldReason) => {
      const [row] = await withEvents(moveQueuedSql('$1', '$2::text', '$3', '$4', dbTime()), [printer, heldReason, id, tokenId], heldEvents);
      return row && toPrintJob(row);
    },
    pendingByPrinter: async () => toPrinterQueueCounts((await pool.query<Parameters<typeof toPrinterQueueCounts>[0][number]>(PENDING_BY_PRINTER_SQL)).rows),
    markPrinted: async (id, owner, marks) => {
      const now = isoTimestamp(new Date());
      // One transaction: a job marked printed is always its record's last printed label, and its event is in the outbox.
      return inTransaction(pool, async (client) => {
        const { rows } = await client.query<PrintJobRow>(
          `UPDATE print_jobs SET state = 'printed', printed_at = $1, updated_at = $1, lease_owner = NULL, lease_expires_at = NULL,
                  png = $2, in_doubt = 0, possible_duplicate = CASE WHEN $3::int = 1 THEN 1 ELSE possible_duplicate END
            WHERE id = $4 AND lease_owner = $5 AND state = 'printing'
            RETURNING ${PRINT_JOB_COLUMNS}`,
          [now, NO_DOCUMENT, markValues(marks)[1], id, owner],
        );
        if (rows.length > 0) {
          await client.query(rememberPrintedSql('$1'), [id]);
          await appendEvents(runnerOf(client), rows.map((r) => printJobEvent('print_job.printed', r)));
        }
        return rows.length > 0;
      });
    },
    markRetry: async (id, owner, error, nextAttemptAt, marks) => {
      const { rowCount } = await pool.query(
        `UPDATE print_jobs SET state = 'queued', last_error = COALESCE($1, last_error), next_attempt_at = $2, updated_at = $3, lease_owner = NULL, lease_expires_at = NULL,
                in_doubt = COALESCE($4::int, in_doubt), possible_duplicate = CASE WHEN $5::int = 1 THEN 1 ELSE possible_duplicate END,
                attempts = attempts - $8::int
          WHERE id = $6 AND lease_owner = $7 AND state = 'printing'`,
        [error === null ? null : boundedError(error), nextAttemptAt, isoTimestamp(new Date()), ...markValues(marks), id, owner, marks?.notSent ? 1 : 0],
      );
      return (rowCount ?? 0) > 0;
    },
    markFailed: async (id, owner, error, marks) => {
      const rows = await withEvents(
        // A failed job keeps its document: a person may put it back in the queue (requeueFailed).
        `UPDATE print_jobs SET state = 'failed', last_error = $1, updated_at = $2, lease_owner = NULL, lease_expires_at = NULL,
                in_doubt = COALESCE($3::int, in_doubt), possible_duplicate = CASE WHEN $4::int = 1 THEN 1 ELSE possible_duplicate END
          WHERE id = $5 AND lease_owner = $6 AND state = 'printing'
          RETURNING ${PRINT_JOB_COLUMNS}`,
        [boundedError(error), isoTimestamp(new Date()), ...markValues(marks), id, owner],
        (changed) => changed.map((r) => printJobEvent('print_job.failed', r)),
      );
      return rows.length > 0;
    },
    list: async (query) => {
      const { sql, params } = printJobListSql(query, POSTGRES);
      return toPrintJobPage((await pool.query<PrintJobRow>(sql, params)).rows, query.limit);
    },
    requeueFailed: async (id, heldReason) => {
      // Due on the database's clock, the one claims compare with.
      const [row] = await withEvents(requeueFailedSql(POSTGRES.param(1), dbTime(), POSTGRES.param(2)), [id, heldReason], heldEvents);
      return row && toPrintJob(row);
    },
    cancelQueued: async (id, tokenId) => {
      // On the database's clock, as every other time a claim compares.
      const row = await one(cancelQueuedSql(POSTGRES.param(1), POSTGRES.param(2), POSTGRES.param(3), dbTime()), [id, tokenId, NO_DOCUMENT]);
      return row && toPrintJob(row);
    },
    printedLabel: async (kind, id) => {
      const row = (await pool.query<PrintedLabelRow>(printedLabelSql('$1', '$2'), [kind, id])).rows[0];
      return row && toPrintedLabel(row);
    },
    nextWakeAt: async () => {
      const row = await pool.query<{ at: string | null }>(
        `SELECT MIN(CASE WHEN state = 'queued' THEN next_attempt_at ELSE lease_expires_at END) AS at FROM print_jobs WHERE state IN ('queued', 'printing')`,
      );
      return row.rows[0]?.at ?? undefined;
    },
    pendingCounts: async () => {
      const { rows } = await pool.query<{ state: string; n: string }>(`SELECT state, COUNT(*) AS n FROM print_jobs WHERE state IN ('queued', 'printing') GROUP BY state`);
      return pendingCounts(rows);
    },
    purgeFinished: async (before, limit) => {
      const { rowCount } = await pool.query(
        `DELETE FROM print_jobs WHERE id IN (
           SELECT id FROM print_jobs WHERE state IN ('printed', 'failed') AND updated_at < $1 LIMIT $2)`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
    tidy: async ({ analyze }) => {
      // SKIP_LOCKED: another instance's VACUUM of the table is enough. Its own time-out, longer
      // than the pool's: kept small by the retention, the table takes milliseconds, and one
      // that takes over a minute is left to autovacuum (a shutdown waits for it, so not longer).
      const client = await pool.connect();
      try {
        await client.query("SET statement_timeout = '60s'");
        // query_timeout per query is honoured by pg's client but missing from its QueryConfig type.
        await client.query({ text: `VACUUM (SKIP_LOCKED${analyze ? ', ANALYZE' : ''}) print_jobs`, query_timeout: 65_000 } as pg.QueryConfig);
      } finally {
        await client.query('RESET statement_timeout').catch(() => {});
        client.release();
      }
    },
  };
  return store;
}
