/**
 * Scale-out: two stateless instances over one PostgreSQL database (the real
 * server on 127.0.0.1:5432). Tokens, records and the print queue are shared;
 * every print job comes out exactly once, whichever instance accepted it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from '../records/pg-test-db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';

const unreachable = await postgresReachable();

if (unreachable === undefined) {
  describe('two instances over one PostgreSQL database', () => {
    let schema: TestSchema;
    let sink: TcpSink;
    let a: TestServer;
    let b: TestServer;
    beforeAll(async () => {
      schema = await createTestSchema();
      sink = await startTcpSink('accept');
      const env = { DATABASE_URL: schema.url, PRINTER_URI: `socket://127.0.0.1:${sink.port}?lang=zpl`, PRINT_RETRY_BASE_MS: '50' };
      [a, b] = [await startTestServer(env), await startTestServer(env)];
    });
    afterAll(async () => {
      await a?.stop();
      await b?.stop();
      await sink?.close();
      await schema?.drop();
    });

    it('a token created through one instance works on the other', async () => {
      for (const url of [a.url, b.url]) {
        const res = await fetch(`${url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${a.tokens.read}` } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('image/png');
      }
    });

    it('print jobs accepted by both instances are each printed exactly once', async () => {
      const paths = ['/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage'];
      const jobs: string[] = [];
      for (let i = 0; i < 12; i++) {
        const srv = i % 2 === 0 ? a : b;
        const res = await fetch(`${srv.url}${paths[i % 3]}?print=true`, { headers: { Authorization: `Bearer ${a.tokens.print}` } });
        expect(res.status).toBe(200);
        jobs.push(res.headers.get('print-job')!);
      }
      for (let i = 0; i < 12; i++) await sink.nextJob();
      // Each job is printed, seen the same from either instance.
      for (const job of jobs) {
        const until = Date.now() + 10_000;
        let state = '';
        while (state !== 'printed' && Date.now() < until) {
          const res = await fetch(b.url + job, { headers: { Authorization: `Bearer ${a.tokens.print}` } });
          state = ((await res.json()) as { state: string }).state;
          if (state !== 'printed') await new Promise((r) => setTimeout(r, 50));
        }
        expect(state).toBe('printed');
      }
      await new Promise((r) => setTimeout(r, 500));
      expect(sink.connections).toBe(12);
    });

    it('an idempotency key is shared across instances', async () => {
      const headers = { Authorization: `Bearer ${a.tokens.print}`, 'Idempotency-Key': 'scale-out-key' };
      const first = await fetch(`${a.url}/v1/labelmaker/location/garage?print=true`, { headers });
      const second = await fetch(`${b.url}/v1/labelmaker/location/garage?print=true`, { headers });
      expect(second.headers.get('print-job')).toBe(first.headers.get('print-job'));
    });
  });
} else if (IN_CI) {
  describe('two instances over one PostgreSQL database', () => {
    it('needs PostgreSQL in CI', () => {
      throw new Error(`PostgreSQL at ${PG_TEST_URL_SAFE} is unreachable (${unreachable}); CI must run these tests`);
    });
  });
} else {
  console.warn(`\n!!! SKIPPED: scale-out tests need PostgreSQL at ${PG_TEST_URL_SAFE} (${unreachable}).\n`);
  describe.skip('two instances over one PostgreSQL database (PostgreSQL unreachable)', () => {
    it('skipped', () => {});
  });
}
