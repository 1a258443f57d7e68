/**
 * Which records' labels are out of date (issue 32), as SQL for both stores: by REVISION, a
 * cheap superset of the labels that would look different. The label-staleness consumer
 * (sql/label-stale.ts) compares each label in it with the one its record would get now and
 * advances the revision of those that would look the same, so the set settles to "would look
 * different" (a custom field or description its design never names changes nothing).
 *
 * A printed label carries the records revision read before its record was (printed_labels,
 * migration 20). Every write that changes what a record's label shows stamps the record with
 * the revision of that write (content_rev; sql/records.ts, import/checks.ts). So a label is
 * stale when its record's content_rev, or that of any location above it, is newer than the
 * label's revision: a location's rename or move changes the path on every label below it,
 * and is found here without rewriting a row below it. The walk down the location tree
 * (`label_path_rev`) carries the newest content_rev along each path; it visits locations only
 * (their partial index), never items, so it costs the location count, not the record count.
 * A label is stale too when its saved template's version (ETag) is no longer the printed one,
 * or its template is gone. The stale set is MATERIALIZED: computed whole (hash joins), then
 * joined to its records; left to the planner, PostgreSQL ran it as a nested loop over the
 * location walk under the page's LIMIT (5.7 s on 100k records, against 0.1 s).
 */
import { MAX_LOCATION_DEPTH } from '../rows.js';
import type { SqlDialect } from './dialect.js';

export type LabelState = 'stale' | 'neverPrinted';

/** The CTEs `label_path_rev (id, rev, depth)` and `stale_labels (kind, id)` (to follow WITH RECURSIVE). */
export function staleLabelsCte(d: SqlDialect): string {
  const greatest = d.name === 'sqlite' ? 'max' : 'GREATEST';
  return `label_path_rev (id, rev, depth) AS (
      SELECT l.id, l.content_rev, 0 FROM records l
       WHERE l.kind = 'location'
         AND (l.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM records p WHERE p.kind = 'location' AND p.id = l.parent_id))
      UNION ALL
      SELECT c.id, ${greatest}(c.content_rev, a.rev), a.depth + 1
        FROM label_path_rev a JOIN records c ON c.kind = 'location' AND c.parent_id = a.id
       WHERE a.depth < ${MAX_LOCATION_DEPTH}
    ),
    stale_labels (kind, id) AS MATERIALIZED (
      SELECT pl.kind, pl.record_id FROM printed_labels pl
        JOIN records s ON s.kind = pl.kind AND s.id = pl.record_id
        LEFT JOIN label_path_rev a ON a.id = CASE WHEN s.kind = 'location' THEN s.id ELSE s.parent_id END
        LEFT JOIN label_templates t ON t.name = pl.template
       WHERE s.content_rev > pl.revision OR a.rev > pl.revision OR COALESCE(t.etag, '') <> pl.template_version
    )`;
}

/**
 * The FROM of a search for records `r` in a label state. Stale records are read from the
 * stale set (staleLabelsCte, computed once: at most one row per printed label), joined to
 * their records by key: a condition tested on every record instead made the database walk
 * the set (or recompute it) per record, seconds on 100k records (bench:stale).
 */
export function labelStateFrom(state: LabelState | undefined, d: Pick<SqlDialect, 'name'>): string {
  if (state !== 'stale') return 'records r';
  // The stale set is the outer loop and each of its records is found by key. SQLite: CROSS JOIN
  // keeps that order; with records_name_idx (migration 24) it would otherwise walk every record in
  // name order and probe the set (3x slower, bench:stale). PostgreSQL guesses the set's size from
  // the location walk (hundreds of millions of rows for a few thousand) and hashed every record
  // (2.2 s of 3.7 s on 1M records); the LATERAL lookup (OFFSET 0 keeps the planner from turning
  // it back into that join) probes the primary key once per stale label.
  return d.name === 'sqlite'
    ? 'stale_labels x CROSS JOIN records r ON r.kind = x.kind AND r.id = x.id'
    : 'stale_labels x CROSS JOIN LATERAL (SELECT * FROM records WHERE kind = x.kind AND id = x.id OFFSET 0) r';
}

/** The WHERE condition on records `r` for a label state, if any (neverPrinted: no printed label). */
export function labelStateCondition(state: LabelState | undefined): string | undefined {
  return state === 'neverPrinted' ? 'NOT EXISTS (SELECT 1 FROM printed_labels x WHERE x.kind = r.kind AND x.record_id = r.id)' : undefined;
}
