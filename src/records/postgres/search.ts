/** Record search on the PostgreSQL store (the SQL is in ../sql/search.ts). */
import type pg from 'pg';
import { POSTGRES } from '../sql/dialect.js';
import { pathsSql, searchSql, toFoundPage, type PathRow, type SearchRow } from '../sql/search.js';
import type { RecordSearch } from '../types.js';

export function postgresRecordSearch(pool: pg.Pool): RecordSearch {
  const paths = pathsSql(POSTGRES);
  return {
    find: async (query) => {
      const { sql, params } = searchSql(query, POSTGRES);
      const { rows } = await pool.query<SearchRow>(sql, params);
      return toFoundPage(query, rows, async (ids) => (await pool.query<PathRow>(paths, [POSTGRES.listValue(ids)])).rows);
    },
  };
}
