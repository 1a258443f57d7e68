/**
 * label.stale events (issue 32): announces, once per printed label, that it turned from
 * current to stale (sql/label-state.ts says when a label is stale), or that its record was
 * deleted (reason recordDeleted: printed_labels keeps the row of a deleted record). The outbox consumer
 * `label-staleness` (src/events/label-staleness.ts) calls announceStaleLabels for a batch of
 * events that may have made labels stale; in ONE transaction it checks its lease, reads at
 * most `limit` stale labels not yet announced, appends a label.stale event for each and marks
 * it announced (printed_labels.stale_job_id = job_id, migration 23: a reprint writes a new
 * job_id, so the label can go stale, and be announced, again). Only when fewer than `limit`
 * were left does the same transaction move the cursor past the batch: a location rename over
 * 100k labels is announced in pages of `limit`, each page committed with its marks, and a
 * crash between pages repeats none (the marks committed with their events).
 */
import type { ConsumerLease, NewEvent } from '../types.js';
import { advanceConsumer } from './consumers.js';
import type { SqlDialect } from './dialect.js';
import { appendEvents } from './events.js';
import { staleLabelsCte } from './label-state.js';
import type { Runner } from './printers.js';

/** Why a printed label is stale now (more than one may hold). */
export type StaleReason = 'recordChanged' | 'locationChanged' | 'templateChanged' | 'recordDeleted';

export const MAX_STALE_PAGE = 1000;

interface StaleRow {
  kind: string;
  record_id: string;
  job_id: string;
  template: string;
  template_version: string;
  stock: string;
  printer: string;
  revision: number | string;
  printed_at: string;
  /** null: the record was deleted (its printed label is kept, and announced once). */
  record_rev: number | string | null;
  path_rev: number | string | null;
  etag: string | null;
}

function unannouncedStaleSql(d: SqlDialect): string {
  // label_path_rev from staleLabelsCte (stale_labels, unreferenced, is not computed).
  return d.placeholders(`WITH RECURSIVE ${staleLabelsCte(d)}
    SELECT pl.kind, pl.record_id, pl.job_id, pl.template, pl.template_version, pl.stock, pl.printer, pl.revision, pl.printed_at,
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

function staleEvent(row: StaleRow): NewEvent {
  return {
    type: 'label.stale',
    subject: { kind: row.kind, id: row.record_id },
    data: {
      printed: { jobId: row.job_id, template: row.template, stock: row.stock, printer: row.printer, printedAt: row.printed_at },
      reasons: staleReasons(row),
    },
  };
}

/**
 * One transaction (see above). held: false when the lease was lost (nothing written);
 * done: the cursor moved to lease.to (call again with the same lease while it is false).
 */
export async function announceStaleLabels(q: Runner, lease: ConsumerLease, leaseMs: number, limit: number): Promise<{ held: boolean; done: boolean; announced: number }> {
  const n = Math.max(1, Math.min(MAX_STALE_PAGE, Math.trunc(limit)));
  // Checks (and renews) the lease without moving the cursor; on PostgreSQL it holds the consumer's row lock to commit.
  if (!(await advanceConsumer(q, { ...lease, to: lease.from }, leaseMs))) return { held: false, done: false, announced: 0 };
  const rows = await q.all<StaleRow>(unannouncedStaleSql(q.dialect), [n]);
  await appendEvents(q, rows.map(staleEvent));
  const mark = q.dialect.placeholders('UPDATE printed_labels SET stale_job_id = job_id WHERE kind = ? AND record_id = ? AND job_id = ?');
  for (const row of rows) await q.run(mark, [row.kind, row.record_id, row.job_id]);
  const done = rows.length < n;
  if (done && lease.to !== lease.from) await advanceConsumer(q, lease, leaseMs);
  return { held: true, done, announced: rows.length };
}
