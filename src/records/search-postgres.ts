/** Record search on the PostgreSQL store (the SQL is in search-sql.ts). */
import type pg from 'pg';
import { POSTGRES_SEARCH, pathsSql, searchSql, type SearchRow } from './search-sql.js';
import { toFoundPage, type PathRow } from './search-rows.js';
import type { RecordSearch } from './types.js';

export function postgresRecordSearch(pool: pg.Pool): RecordSearch {
  const paths = pathsSql(POSTGRES_SEARCH);
  return {
    find: async (query) => {
      const { sql, params } = searchSql(query, POSTGRES_SEARCH);
      const { rows } = await pool.query<SearchRow>(sql, params);
      return toFoundPage(query, rows, async (ids) => (await pool.query<PathRow>(paths, [POSTGRES_SEARCH.listValue(ids)])).rows);
    },
  };
}
