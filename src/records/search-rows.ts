/** Search rows -> the page both stores return, identical for the same data. */
import { toRecord } from './rows.js';
import { sortKeyOf, type SearchRow } from './search-sql.js';
import type { FoundRecord, RecordPage, RecordQuery } from './types.js';

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
