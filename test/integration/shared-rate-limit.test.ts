/**
 * Rate limits hold across instances: two servers over one PostgreSQL database (the
 * real server on 127.0.0.1:5432) count one budget per client in the shared
 * `rate_limits` table, or in a real Redis when REDIS_URL is set, so a client gets
 * RATE_LIMIT_PER_MINUTE in total, not per instance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from '../records/pg-test-db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { createRateLimiter } from '../../src/api/rate-limit.js';

const unreachable = await postgresReachable();

if (unreachable === undefined) {
  describe('shared rate limits over one PostgreSQL database', () => {
    let schema: TestSchema;
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      schema = await createTestSchema();
      const env = { DATABASE_URL: schema.url, RATE_LIMIT_PER_MINUTE: '5' };
      [a, b] = [await startTestServer(env), await startTestServer(env)];
    });
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await schema?.drop();
    });

    it('two instances share one budget per token, with the remaining count carried across them', async () => {
      const get = (srv: TestServer, token: string) => fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${token}` } });
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await get(i % 2 === 0 ? a : b, a.tokens.read);
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('5');
        remaining.push(res.headers.get('ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['4', '3', '2', '1', '0']);
      for (const srv of [a, b]) {
        const res = await get(srv, a.tokens.read);
        expect(res.status).toBe(429);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        const body = (await res.json()) as { type: string; detail: string };
        expect(body.type).toBe('/problems/rate-limited');
        const retryAfter = Number(res.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
      }
      // Another token has its own budget, on either instance.
      expect((await get(b, a.tokens.print)).status).toBe(200);
      // The budgets are rows of the shared table.
      const rows = await schema.query(`SELECT key, points FROM rate_limits ORDER BY key`);
      expect(rows.map((r) => Number(r.points)).sort()).toEqual([1, 7]);
    });

    it("counts without waiting for the disk: the limiter's own connections run with synchronous_commit off", async () => {
      const limiter = await createRateLimiter(schema.url, 5);
      try {
        expect(limiter.kind).toBe('postgres');
        // rate-limiter-flexible keeps the pool it was given as `client`.
        const pool = (limiter.limiter as unknown as { client: { query(sql: string): Promise<{ rows: { synchronous_commit: string }[] }> } }).client;
        expect((await pool.query('SHOW synchronous_commit')).rows[0]!.synchronous_commit).toBe('off');
        await limiter.limiter.consume('sync-test');
        expect((await schema.query(`SELECT points FROM rate_limits WHERE key LIKE '%sync-test'`)).map((r) => Number(r.points))).toEqual([1]);
      } finally {
        await limiter.close();
      }
    });
  });

  describe('the print quota over one PostgreSQL database', () => {
    let schema: TestSchema;
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      schema = await createTestSchema();
      const env = { DATABASE_URL: schema.url, PRINT_QUOTA_PER_MINUTE: '2', PRINTER_URI: `file:///tmp/lm-quota-${process.pid}` };
      [a, b] = [await startTestServer(env), await startTestServer(env)];
    });
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await schema?.drop();
    });

    it('two instances share one print quota per token, apart from the request budget', async () => {
      const print = (srv: TestServer) => fetch(`${srv.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${a.tokens.print}` } });
      expect((await print(a)).status).toBe(200);
      expect((await print(b)).status).toBe(200);
      for (const srv of [a, b]) {
        const res = await print(srv);
        expect(res.status).toBe(429);
        expect(((await res.json()) as { detail: string }).detail).toMatch(/print quota of 2 labels per minute/i);
      }
      // The same token still reads labels: its request budget is another count.
      expect((await fetch(`${b.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${a.tokens.print}` } })).status).toBe(200);
    });
  });

  describe('shared rate limits through Redis (REDIS_URL)', () => {
    let schema: TestSchema;
    let redis: TestRedis;
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      [schema, redis] = await Promise.all([createTestSchema(), startRedis()]);
      const env = { DATABASE_URL: schema.url, RATE_LIMIT_PER_MINUTE: '4', REDIS_URL: redis.url };
      [a, b] = [await startTestServer(env), await startTestServer(env)];
    });
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await redis?.stop();
      await schema?.drop();
    });

    it('two instances share one budget in Redis, and keep serving (each counting alone) when Redis goes away', async () => {
      const get = (srv: TestServer) => fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${a.tokens.read}` } });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await get(i % 2 === 0 ? a : b)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      // Counted in Redis, not in the database.
      expect(await schema.query('SELECT key FROM rate_limits')).toEqual([]);

      await redis.stop();
      const res = await get(a);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-remaining')).toBe('3');
    });
  });
} else if (IN_CI) {
  describe('shared rate limits over one PostgreSQL database', () => {
    it('needs PostgreSQL in CI', () => {
      throw new Error(`PostgreSQL at ${PG_TEST_URL_SAFE} is unreachable (${unreachable}); CI must run these tests`);
    });
  });
} else {
  console.warn(`\n!!! SKIPPED: shared rate-limit tests need PostgreSQL at ${PG_TEST_URL_SAFE} (${unreachable}).\n`);
  describe.skip('shared rate limits over one PostgreSQL database (PostgreSQL unreachable)', () => {
    it('skipped', () => {});
  });
}
