/** Record search on the SQLite store (the SQL is in ../sql/search.ts). */
import type Database from 'better-sqlite3';
import { SQLITE } from '../sql/dialect.js';
import { pathsSql, searchSql, toFoundPage, type PathRow, type SearchRow } from '../sql/search.js';
import type { RecordSearch } from '../types.js';

export function sqliteRecordSearch(db: Database.Database): RecordSearch {
  // SQLite's lower() folds ASCII only; names are in every script (see SqlDialect.fold).
  db.function('labelmaker_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  const paths = db.prepare(pathsSql(SQLITE));
  return {
    find: async (query) => {
      const { sql, params } = searchSql(query, SQLITE);
      // Not cached: the statement text depends on which filters are present (a handful of shapes).
      const rows = db.prepare(sql).all(...params) as SearchRow[];
      return toFoundPage(query, rows, async (ids) => paths.all(SQLITE.listValue(ids)) as PathRow[]);
    },
  };
}
