/**
 * One transaction on a client of the pool: BEGIN (or `begin`, e.g. 'BEGIN READ ONLY'), the
 * caller's queries, COMMIT; ROLLBACK on any error, and the client back to the pool.
 */
import type pg from 'pg';

export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {}); // the original error matters more
    throw err;
  } finally {
    client.release();
  }
}
