/**
 * The record search, written once for both stores: its SQL (what differs between
 * SQLite and PostgreSQL is asked of the SqlDialect, dialect.ts) and the page both
 * stores return from its rows, identical for the same data.
 */
import { MAX_LOCATION_DEPTH, toRecord, type RecordRow } from '../rows.js';
import type { FoundRecord, RecordKind, RecordPage, RecordQuery, RecordSortKey } from '../types.js';
import type { SqlDialect } from './dialect.js';
import { labelStateCondition, labelStateFrom, staleLabelsCte } from './label-state.js';

export interface SearchRow extends RecordRow {
  child_count: number | string;
}

/** The page query: one row more than `limit`, so the caller knows whether another page follows. */
export function searchSql(q: RecordQuery, d: SqlDialect): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return d.param(params.length);
  };
  const byAsset = sortsByAsset(q);
  const where: string[] = [];
  const ctes: string[] = [];
  if (q.labels === 'stale') ctes.push(staleLabelsCte(d));
  if (q.parentId !== undefined && q.descendants) {
    // Every location below the parent; depth bounds the walk, so a parent cycle ends it.
    // SQLite's `?` are positional: values are pushed in the order their placeholders
    // appear in the text (this CTE first), and a repeated value gets its own placeholder.
    ctes.push(`below (id, depth) AS (
        SELECT id, 0 FROM records WHERE kind = 'location' AND id = ${p(q.parentId)}
        UNION
        SELECT c.id, b.depth + 1 FROM records c JOIN below b ON c.kind = 'location' AND c.parent_id = b.id
         WHERE b.depth < ${MAX_LOCATION_DEPTH}
      )`);
    where.push(`r.parent_id IN (SELECT id FROM below) AND NOT (r.kind = 'location' AND r.id = ${p(q.parentId)})`);
  } else if (q.parentId !== undefined) {
    where.push(`r.parent_id = ${p(q.parentId)}`);
  }
  if (q.kind === 'asset' || byAsset) where.push(`r.kind = 'item' AND r.asset_id IS NOT NULL`);
  else if (q.kind) where.push(`r.kind = ${p(q.kind)}`);
  if (q.topLevel) where.push('r.parent_id IS NULL');
  if (q.text !== undefined) where.push(`${d.position(d.fold('r.name'), p(q.text.toLowerCase()))} > 0`);
  if (q.assetIdFrom !== undefined) where.push(`r.asset_id >= ${p(q.assetIdFrom)}`);
  if (q.assetIdTo !== undefined) where.push(`r.asset_id <= ${p(q.assetIdTo)}`);
  if (q.field) {
    // SQLite's `?` are positional: fieldValue asks for the path once per place it names it.
    const f = q.field;
    const value = () => d.fieldValue('r.fields', () => p(d.jsonPath(f.name)), f.numeric);
    const typed = (v: string | number) => (f.numeric ? p(Number(v)) : p(String(v)));
    where.push('r.fields IS NOT NULL');
    if (f.value !== undefined) where.push(`${value()} = ${typed(f.value)}`);
    if (f.from !== undefined) where.push(`${value()} >= ${typed(f.from)}`);
    if (f.to !== undefined) where.push(`${value()} <= ${typed(f.to)}`);
  }
  const state = labelStateCondition(q.labels);
  if (state) where.push(state);
  const below = ctes.length > 0 ? `WITH RECURSIVE ${ctes.join(',\n    ')} ` : '';

  const after = q.after;
  let order: string;
  if (byAsset) {
    if (after?.by === 'asset') where.push(`r.asset_id > ${p(after.assetId)}`);
    order = 'r.asset_id';
  } else {
    if (after?.by === 'name') {
      const { name, kind, id } = after;
      where.push(
        `(${d.binary('r.name')} > ${p(name)} OR (r.name = ${p(name)} AND (${d.binary('r.kind')} > ${p(kind)} OR (r.kind = ${p(kind)} AND ${d.binary('r.id')} > ${p(id)}))))`,
      );
    }
    order = `${d.binary('r.name')}, ${d.binary('r.kind')}, ${d.binary('r.id')}`;
  }
  const limit = p(q.limit + 1);
  const sql = `${below}SELECT r.kind, r.id, r.name, substr(r.description, 1, 1001) AS description, r.parent_id, r.asset_id, r.updated_at, r.fields,
      CASE WHEN r.kind = 'location' THEN (SELECT COUNT(*) FROM records c WHERE c.parent_id = r.id) ELSE 0 END AS child_count
    FROM ${labelStateFrom(q.labels, d)}
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${order}
    LIMIT ${limit}`;
  return { sql, params };
}

/** Records about assets (kind `asset` or an asset-id bound) sort by asset id, the rest by name. */
export function sortsByAsset(q: RecordQuery): boolean {
  return q.kind === 'asset' || q.assetIdFrom !== undefined || q.assetIdTo !== undefined;
}

/** The sort key of a row, for the next page's `after`. */
export function sortKeyOf(q: RecordQuery, row: { kind: string; id: string; name: string; asset_id: number | string | null }): RecordSortKey {
  return sortsByAsset(q) ? { by: 'asset', assetId: Number(row.asset_id) } : { by: 'name', name: row.name, kind: row.kind as RecordKind, id: row.id };
}

/**
 * Location paths of several locations in one query: (start, id, name) rows, top first
 * per start. The same walk as the stores' locationPath: `seen` stops parent cycles.
 */
export function pathsSql(d: SqlDialect): string {
  return `WITH RECURSIVE chain (start, id, name, parent_id, depth, seen) AS (
      SELECT id, id, name, parent_id, 1, '/' || id || '/' FROM records WHERE kind = 'location' AND id IN ${d.inList(1)}
      UNION ALL
      SELECT c.start, r.id, r.name, r.parent_id, c.depth + 1, c.seen || r.id || '/'
        FROM chain c JOIN records r ON r.kind = 'location' AND r.id = c.parent_id
       WHERE c.depth < ${MAX_LOCATION_DEPTH} AND ${d.position('c.seen', `'/' || r.id || '/'`)} = 0
    )
    SELECT start, id, name FROM chain ORDER BY start, depth DESC`;
}

/** A location's path rows (pathsSql): the location the walk started from, and one location on its path. */
export interface PathRow {
  start: string;
  id: string;
  name: string;
}

/** `pathsOf(ids)` returns PathRows, top first per start (pathsSql). */
export async function toFoundPage(query: RecordQuery, rows: SearchRow[], pathsOf: (locationIds: string[]) => Promise<PathRow[]>): Promise<RecordPage> {
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const parents = [...new Set(page.map((r) => r.parent_id).filter((id): id is string => id !== null))];
  const paths = new Map<string, { names: string[]; ids: string[] }>();
  if (parents.length > 0) {
    for (const { start, id, name } of await pathsOf(parents)) {
      const path = paths.get(start) ?? { names: [], ids: [] };
      path.names.push(name);
      path.ids.push(id);
      paths.set(start, path);
    }
  }
  const records: FoundRecord[] = page.map((row) => {
    const path = row.parent_id === null ? undefined : paths.get(row.parent_id);
    return { ...toRecord(row), path: path?.names ?? [], pathIds: path?.ids ?? [], childCount: Number(row.child_count) };
  });
  const last = page.at(-1);
  return more && last ? { records, next: sortKeyOf(query, last) } : { records };
}
