/**
 * Records and API tokens as SQL, for both stores: their columns (in the order the
 * row mappers in rows.ts and recordValues expect), what an upsert changes, and the
 * walk up the location tree that every location path comes from.
 */
import { MAX_LOCATION_DEPTH } from '../rows.js';
import type { SqlDialect } from './dialect.js';

export const RECORD_COLUMNS = 'kind, id, name, description, parent_id, asset_id, updated_at, fields';
export const TOKEN_COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';

/** Whether an upsert changes what the record's label shows (sql/label-state.ts). */
const SHOWN_CHANGED = `records.name IS DISTINCT FROM excluded.name OR records.description IS DISTINCT FROM excluded.description
        OR records.parent_id IS DISTINCT FROM excluded.parent_id OR records.asset_id IS DISTINCT FROM excluded.asset_id
        OR records.fields IS DISTINCT FROM excluded.fields`;

/** An upsert's conflict clause: a record already stored under (kind, id) takes the new values. */
export const RECORD_UPSERT_CONFLICT = `ON CONFLICT (kind, id) DO UPDATE SET name = excluded.name, description = excluded.description,
        parent_id = excluded.parent_id, asset_id = excluded.asset_id, updated_at = excluded.updated_at, fields = excluded.fields,
        content_rev = CASE WHEN ${SHOWN_CHANGED} THEN excluded.content_rev ELSE records.content_rev END`;

/** Bumps the records revision; an upsert's records then carry it as their content_rev (CONTENT_REV). */
export const BUMP_REVISION = 'UPDATE records_revision SET revision = revision + 1';
/** The current records revision, as a value in an INSERT: what a write that changes a label stamps on it. */
export const CONTENT_REV = '(SELECT revision FROM records_revision)';

/**
 * The walk up the location tree from `anchor` (a SELECT of one location's id, name,
 * parent_id, 1 and its seen-list `'/' || id || '/'`), as the `chain` CTE. `seen`
 * holds the visited ids ('/' can't occur in an id), so a parent cycle ends the walk,
 * and depth caps absurdly deep chains.
 */
export function locationChainSql(d: SqlDialect, anchor: string): string {
  return `chain (id, name, parent_id, depth, seen) AS (
    ${anchor}
    UNION ALL
    SELECT r.id, r.name, r.parent_id, c.depth + 1, c.seen || r.id || '/'
      FROM chain c JOIN records r ON r.kind = 'location' AND r.id = c.parent_id
     WHERE c.depth < ${MAX_LOCATION_DEPTH} AND ${d.position('c.seen', `'/' || r.id || '/'`)} = 0
  )`;
}

/** locationPath: the names from the top-level location down to the one given (the first parameter), inclusive. */
export function locationPathSql(d: SqlDialect): string {
  return `WITH RECURSIVE ${locationChainSql(d, `SELECT id, name, parent_id, 1, '/' || id || '/' FROM records WHERE kind = 'location' AND id = ${d.param(1)}`)}
    SELECT name FROM chain ORDER BY depth DESC`;
}
