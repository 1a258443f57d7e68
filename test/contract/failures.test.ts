/**
 * The documented errors that need a server in a particular state: rate limits,
 * a broken database (500), an unreachable store (503), CORS for allowed origins.
 * Each uses its own real server and real SQLite file.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { documentedResponse, problemErrors } from '../helpers/spec.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

const PATH = '/v1/labelmaker/location/garage';

async function get(s: TestServer, headers: Record<string, string> = {}) {
  const res = await fetch(s.url + PATH, {
    headers: { Accept: 'image/png, application/problem+json', Authorization: `Bearer ${s.tokens.read}`, ...headers },
  });
  return { res, text: await res.text() };
}

function expectProblem(res: Response, text: string, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text);
  expect(problemErrors(body)).toBeUndefined();
  expect(body.type).toBe(`/problems/${type}`);
  expect(documentedResponse('getLocationLabel', status)).toBeDefined();
  return body;
}

describe('documented failure modes', () => {
  it('429 with Retry-After once the per-token budget is spent; other tokens are unaffected', async () => {
    srv = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i++) {
      const { res } = await get(srv);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('3');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(2 - i));
    }
    const { res, text } = await get(srv);
    expectProblem(res, text, 429, 'rate-limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const other = await get(srv, { Authorization: `Bearer ${srv.tokens.print}` });
    expect(other.res.status).toBe(200);
  });

  it('made-up tokens do not buy fresh budgets: without a valid token the address is the client', async () => {
    srv = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
    const fake = () => `Bearer lm_${Math.random().toString(36).slice(2, 10).replace(/[^a-z2-7]/g, 'a').padEnd(8, 'a')}_${'A'.repeat(43)}`;
    for (let i = 0; i < 3; i++) {
      const { res } = await get(srv, { Authorization: fake() });
      expect(res.status).toBe(401);
    }
    const { res, text } = await get(srv, { Authorization: fake() });
    expectProblem(res, text, 429, 'rate-limited');
    // A real token has its own budget.
    expect((await get(srv)).res.status).toBe(200);
  });

  it('500 without internals when the database is broken', async () => {
    srv = await startTestServer();
    const db = new Database(join(srv.dir, 'labelmaker.db'));
    db.exec('DROP TABLE records');
    db.close();
    const { res, text } = await get(srv);
    const body = expectProblem(res, text, 500, 'internal-error');
    expect(body.detail).not.toMatch(/records|sqlite|table/i);
    // The request id finds the error in the log: it is in the body and the header.
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
    expect(body.detail).toMatch(/requestId/);
  });

  it('503 with Retry-After when the store is unreachable', async () => {
    srv = await startTestServer();
    await srv.store.close();
    const { res, text } = await get(srv);
    expectProblem(res, text, 503, 'unavailable');
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const health = await fetch(`${srv.url}/healthz`);
    expect(health.status).toBe(503);
  });

  it('CORS headers for allowed origins only, and preflight for the Authorization header', async () => {
    srv = await startTestServer({ CORS_ALLOW_ORIGINS: 'https://app.example.test' });
    const allowed = await get(srv, { Origin: 'https://app.example.test' });
    expect(allowed.res.headers.get('access-control-allow-origin')).toBe('https://app.example.test');
    expect(allowed.res.headers.get('access-control-expose-headers')).toContain('ETag');
    const other = await get(srv, { Origin: 'https://evil.example.test' });
    expect(other.res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(srv.url + PATH, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/i);
  });

  it('graceful shutdown: in-flight requests complete, then the port closes', async () => {
    srv = await startTestServer();
    const arrived = new Promise((resolve) => srv!.server.once('request', resolve));
    const inflight = get(srv);
    await arrived; // the request is being handled when shutdown begins
    const closing = srv.close(2000);
    const { res } = await inflight;
    expect(res.status).toBe(200);
    await closing;
    await expect(fetch(srv.url + PATH)).rejects.toThrow();
  });
});
