/**
 * The PostgreSQL the benchmarks use, and a throwaway schema in it per run, so a
 * benchmark never touches tables it did not make: LABELMAKER_BENCH_PG_URL, else
 * LABELMAKER_TEST_PG_URL (the tests' database), else the local test database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const BENCH_PG_URL =
  process.env.LABELMAKER_BENCH_PG_URL ?? process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchSchema {
  /** BENCH_PG_URL with search_path set to the schema (and any extra session options). */
  url: string;
  drop(): Promise<void>;
}

/** Creates lm_bench_<random>; `options` adds session settings (e.g. `-c synchronous_commit=off`). */
export async function benchSchema(options = ''): Promise<BenchSchema> {
  const schema = `lm_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(BENCH_PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}${options ? ` ${options}` : ''}`);
  return {
    url: url.toString(),
    drop: async () => {
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}
