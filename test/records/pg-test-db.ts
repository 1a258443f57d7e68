/**
 * Test-only access to the local PostgreSQL: each harness gets its own throwaway
 * schema (lm_test_<random>), selected through search_path in the connection URL.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_TEST_URL = process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** PG_TEST_URL for messages: a password in it is not printed. */
export const PG_TEST_URL_SAFE = (() => {
  const url = new URL(PG_TEST_URL);
  if (url.password) url.password = '***';
  return url.toString();
})();

/** CI must never pass with the PostgreSQL suite skipped. CI=false / CI=0 count as unset. */
export const IN_CI = !!process.env.CI && !['false', '0'].includes(process.env.CI.toLowerCase());

export async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

export interface TestSchema {
  name: string;
  /** PG_TEST_URL with search_path set to this schema. */
  url: string;
  query(sql: string): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

export async function createTestSchema(): Promise<TestSchema> {
  const name = `lm_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_TEST_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${name}`);
  await admin.query(`SET search_path TO ${name}`);
  const url = new URL(PG_TEST_URL);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    query: async (sql) => (await admin.query(sql)).rows,
    drop: async () => {
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}
