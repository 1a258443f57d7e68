/**
 * label.stale events (issue 32): announces, once per printed label, that it turned from
 * current to stale, or that its record was deleted (reason recordDeleted: printed_labels
 * keeps the row of a deleted record). The outbox consumer `label-staleness`
 * (src/events/label-staleness.ts) works in pages:
 *
 *   1. unannouncedStaleLabels reads at most `limit` printed labels stale BY REVISION
 *      (sql/label-state.ts: a cheap superset) and not announced yet;
 *   2. the consumer asks, for each, whether the record's label would look different now
 *      (its content fingerprint, outside any transaction);
 *   3. settleStaleLabels, in ONE transaction, checks its lease, advances each label that
 *      would look the same to the revision (and template version) it was compared at, so it
 *      leaves the stale set, appends a label.stale event for each that would look different
 *      and marks it announced (printed_labels.stale_job_id = job_id, migration 23: a reprint
 *      writes a new job_id, so the label can go stale, and be announced, again), and, with the
 *      last page, moves the cursor past the batch.
 *
 * Each page commits its marks with its events, so a crash between pages repeats none. Both
 * writes are conditional on the same job (a reprint in between makes it another label), and
 * the advance never lowers a revision: a change after the compared revision keeps the label
 * stale, and its own event brings it back to step 1.
 */
import type { ConsumerLease, NewEvent, StaleLabel, StaleReason, StaleVerdicts } from '../types.js';
import { advanceConsumer } from './consumers.js';
import type { SqlDialect } from './dialect.js';
import { appendEvents } from './events.js';
import { staleLabelsCte } from './label-state.js';
import type { Runner } from './printers.js';
import { toPrintedLabel, type PrintedLabelRow } from './print-jobs.js';

export const MAX_STALE_PAGE = 1000;

interface StaleRow extends PrintedLabelRow {
  /** null: the record was deleted (its printed label is kept, and announced once). */
  record_rev: number | string | null;
  path_rev: number | string | null;
  etag: string | null;
}

function unannouncedStaleSql(d: SqlDialect): string {
  // label_path_rev from staleLabelsCte (stale_labels, unreferenced, is not computed).
  return d.placeholders(`WITH RECURSIVE ${staleLabelsCte(d)}
    SELECT pl.kind, pl.record_id, pl.job_id, pl.fingerprint, pl.template, pl.template_version, pl.stock, pl.printer, pl.revision, pl.printed_at,
           s.content_rev AS record_rev, a.rev AS path_rev, t.etag AS etag
      FROM printed_labels pl
      LEFT JOIN records s ON s.kind = pl.kind AND s.id = pl.record_id
      LEFT JOIN label_path_rev a ON a.id = CASE WHEN s.kind = 'location' THEN s.id ELSE s.parent_id END
      LEFT JOIN label_templates t ON t.name = pl.template
     WHERE (s.id IS NULL OR s.content_rev > pl.revision OR a.rev > pl.revision OR COALESCE(t.etag, '') <> pl.template_version)
       AND (pl.stale_job_id IS NULL OR pl.stale_job_id <> pl.job_id)
     ORDER BY pl.kind, pl.record_id
     LIMIT ?`);
}

/**
 * The reasons a stale row is stale: its record's own change, a location above it, its template;
 * or its record was deleted (recordDeleted alone: the label on the shelf names a thing that is
 * gone, to be taken off rather than reprinted).
 */
export function staleReasons(row: Pick<StaleRow, 'kind' | 'revision' | 'record_rev' | 'path_rev' | 'template_version' | 'etag'>): StaleReason[] {
  if (row.record_rev === null) return ['recordDeleted'];
  const printed = Number(row.revision);
  const own = Number(row.record_rev);
  const path = row.path_rev === null ? 0 : Number(row.path_rev);
  const reasons: StaleReason[] = [];
  if (own > printed) reasons.push('recordChanged');
  // For a location the path revision includes its own: a location above changed when the path is newer than both.
  if (path > printed && (row.kind === 'item' || path > own)) reasons.push('locationChanged');
  if ((row.etag ?? '') !== row.template_version) reasons.push('templateChanged');
  return reasons;
}

/** Step 1: at most `limit` printed labels stale by revision and not announced yet, in key order. A read. */
export async function unannouncedStaleLabels(q: Runner, limit: number): Promise<StaleLabel[]> {
  const n = Math.max(1, Math.min(MAX_STALE_PAGE, Math.trunc(limit)));
  const rows = await q.all<StaleRow>(unannouncedStaleSql(q.dialect), [n]);
  return rows.map((row) => ({ ...toPrintedLabel(row), reasons: staleReasons(row) }));
}

function staleEvent(label: StaleLabel): NewEvent {
  return {
    type: 'label.stale',
    subject: { kind: label.kind, id: label.id },
    data: {
      printed: { jobId: label.jobId, template: label.template, stock: label.stock, printer: label.printer, printedAt: label.printedAt },
      reasons: label.reasons,
    },
  };
}

/**
 * Step 3, one transaction (see above). held: false when the lease was lost (nothing written);
 * `done`: this was the last page, so the cursor moves to lease.to with it. announced: the
 * events appended (a label reprinted or announced meanwhile is skipped).
 */
export async function settleStaleLabels(q: Runner, lease: ConsumerLease, leaseMs: number, verdicts: StaleVerdicts, done: boolean): Promise<{ held: boolean; announced: number }> {
  // Checks (and renews) the lease without moving the cursor; on PostgreSQL it holds the consumer's row lock to commit.
  if (!(await advanceConsumer(q, { ...lease, to: lease.from }, leaseMs))) return { held: false, announced: 0 };
  // revision <= (not <): a label stale by its template alone keeps its revision and takes the version.
  // A record change after `revision`, or a template change after `templateVersion`, keeps it stale.
  const advance = q.dialect.placeholders('UPDATE printed_labels SET revision = ?, template_version = ? WHERE kind = ? AND record_id = ? AND job_id = ? AND revision <= ?');
  for (const c of verdicts.current) await q.run(advance, [c.revision, c.templateVersion, c.kind, c.id, c.jobId, c.revision]);
  const mark = q.dialect.placeholders('UPDATE printed_labels SET stale_job_id = job_id WHERE kind = ? AND record_id = ? AND job_id = ? AND (stale_job_id IS NULL OR stale_job_id <> job_id)');
  const announced: StaleLabel[] = [];
  for (const label of verdicts.stale) if ((await q.run(mark, [label.kind, label.id, label.jobId])) > 0) announced.push(label);
  await appendEvents(q, announced.map(staleEvent));
  if (done && lease.to !== lease.from) await advanceConsumer(q, lease, leaseMs);
  return { held: true, announced: announced.length };
}
