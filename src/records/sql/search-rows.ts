/** Search rows -> the page both stores return, identical for the same data. */
import { toRecord } from '../rows.js';
import { sortKeyOf, type SearchRow } from './search.js';
import type { FoundRecord, RecordPage, RecordQuery } from '../types.js';

/** `pathsOf(ids)` returns (start, name) rows, top first per start (pathsSql). */
export async function toFoundPage(
  query: RecordQuery,
  rows: SearchRow[],
  pathsOf: (locationIds: string[]) => Promise<{ start: string; name: string }[]>,
): Promise<RecordPage> {
  const more = rows.length > query.limit;
  const page = more ? rows.slice(0, query.limit) : rows;
  const parents = [...new Set(page.map((r) => r.parent_id).filter((id): id is string => id !== null))];
  const names = new Map<string, string[]>();
  if (parents.length > 0) {
    for (const { start, name } of await pathsOf(parents)) {
      const path = names.get(start) ?? [];
      path.push(name);
      names.set(start, path);
    }
  }
  const records: FoundRecord[] = page.map((row) => ({
    ...toRecord(row),
    path: row.parent_id === null ? [] : (names.get(row.parent_id) ?? []),
    childCount: Number(row.child_count),
  }));
  const last = page.at(-1);
  return more && last ? { records, next: sortKeyOf(query, last) } : { records };
}
