/** Record search on the SQLite store (the SQL is in search-sql.ts). */
import type Database from 'better-sqlite3';
import { SQLITE_SEARCH, pathsSql, searchSql, type SearchRow } from './search-sql.js';
import { toFoundPage, type PathRow } from './search-rows.js';
import type { RecordSearch } from './types.js';

export function sqliteRecordSearch(db: Database.Database): RecordSearch {
  // SQLite's lower() folds ASCII only; names are in every script (see SearchDialect.fold).
  db.function('labelmaker_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  const paths = db.prepare(pathsSql(SQLITE_SEARCH));
  return {
    find: async (query) => {
      const { sql, params } = searchSql(query, SQLITE_SEARCH);
      // Not cached: the statement text depends on which filters are present (a handful of shapes).
      const rows = db.prepare(sql).all(...params) as SearchRow[];
      return toFoundPage(query, rows, async (ids) => paths.all(SQLITE_SEARCH.listValue(ids)) as PathRow[]);
    },
  };
}
