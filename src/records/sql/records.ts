/**
 * Records and API tokens as SQL, for both stores: their columns (in the order the
 * row mappers in rows.ts and recordValues expect), what an upsert changes, and the
 * walk up the location tree that every location path comes from.
 */
import { MAX_LOCATION_DEPTH } from '../rows.js';
import type { SqlDialect } from './dialect.js';

export const RECORD_COLUMNS = 'kind, id, name, description, parent_id, asset_id, updated_at, fields';
export const TOKEN_COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';

/** An upsert's conflict clause: a record already stored under (kind, id) takes the new values. */
export const RECORD_UPSERT_CONFLICT = `ON CONFLICT (kind, id) DO UPDATE SET name = excluded.name, description = excluded.description,
        parent_id = excluded.parent_id, asset_id = excluded.asset_id, updated_at = excluded.updated_at, fields = excluded.fields`;

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
