/** Record search on the PostgreSQL store (the SQL is in ../sql/search.ts). */
import type pg from 'pg';
import { POSTGRES } from '../sql/dialect.js';
import { pathsSql, searchSql, toFoundPage, type PathRow, type SearchRow } from '../sql/search.js';
import type { RecordSearch } from '../types.js';
import { inTransaction } from './transaction.js';

export function postgresRecordSearch(pool: pg.Pool): RecordSearch {
  const paths = pathsSql(POSTGRES);
  return {
    find: async (query) => {
      const { sql, params } = searchSql(query, POSTGRES);
      const rows = query.labels === 'stale' ? await withoutJit(pool, sql, params) : (await pool.query<SearchRow>(sql, params)).rows;
      return toFoundPage(query, rows, async (ids) => (await pool.query<PathRow>(paths, [POSTGRES.listValue(ids)])).rows);
    },
  };
}

/**
 * The stale search without JIT compilation: the planner cannot know how many rows the walk
 * down the location tree gives and guesses high, which turns JIT on; compiling the plan then
 * cost more than running it (70 of 160 ms on 100k records, EXPLAIN ANALYZE). SET LOCAL ends with its transaction.
 */
function withoutJit(pool: pg.Pool, sql: string, params: unknown[]): Promise<SearchRow[]> {
  return inTransaction(
    pool,
    async (client) => {
      await client.query('SET LOCAL jit = off');
      return (await client.query<SearchRow>(sql, params)).rows;
    },
    'BEGIN READ ONLY',
  );
}

