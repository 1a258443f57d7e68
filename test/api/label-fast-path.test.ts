/**
 * The label fast lane (src/api/label-fast-path.ts) must be invisible: the same
 * requests, sent to a server with it and to one without it (over the same SQLite
 * file), get the same status, headers, body bytes and access-log line. Requests it
 * cannot answer alone (errors, unusual headers, printing) must reach the app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/api/server.js';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import type { Store } from '../../src/records/types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { TEMPLATE_BODY } from '../contract/targets.js';

interface Lane {
  url: string;
  logs: Record<string, unknown>[];
  answered(): number;
}

interface Call {
  path: string;
  method?: string;
  headers?: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  log: Record<string, unknown> | undefined;
}

/** Headers that differ between two servers by nature: the date, a fresh request id (checked for shape), budgets (each server counts its own; compared in the budget test). */
const VARYING = new Set(['date', 'x-request-id', 'ratelimit-reset', 'ratelimit-remaining', 'keep-alive', 'connection']);

async function ask(lane: Lane, { path, method = 'GET', headers = {} }: Call): Promise<Answer> {
  const before = lane.logs.length;
  const res = await fetch(lane.url + path, { method, headers });
  const body = Buffer.from(await res.arrayBuffer());
  const all = Object.fromEntries(res.headers.entries());
  // The access line is written when the response finishes, which can be just after the client has it.
  for (let i = 0; i < 50 && !lane.logs.slice(before).some((l) => l.msg === 'request'); i++) await new Promise((r) => setTimeout(r, 5));
  const log = lane.logs.slice(before).find((l) => l.msg === 'request');
  return { status: res.status, headers: all, body, log };
}

function comparable(a: Answer) {
  const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !VARYING.has(k)));
  const log = a.log && Object.fromEntries(Object.entries(a.log).filter(([k]) => !['time', 'pid', 'hostname', 'ms', 'reqId'].includes(k)));
  // A problem body carries the request id, which is fresh per server unless the client sent one.
  let body: unknown = a.body.toString('base64');
  if (a.headers['content-type'] === 'application/problem+json' && a.body.length > 0) {
    const { requestId: _r, ...problem } = JSON.parse(a.body.toString()) as Record<string, unknown>;
    body = problem;
  }
  return { status: a.status, headers, body, log };
}

let fast: TestServer;
let appOnlyStore: Store;
let appOnly: RunningServer;
const lanes: { fast: Lane; app: Lane } = {} as never;
let integrationKey: string;

function capture(lines: Record<string, unknown>[]) {
  return pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
}

beforeAll(async () => {
  const fastLogs: Record<string, unknown>[] = [];
  const appLogs: Record<string, unknown>[] = [];
  // Every answer's access line, so the two lanes' lines are compared too.
  fast = await startTestServer({ RATE_LIMIT_PER_MINUTE: '100000', CORS_ALLOW_ORIGINS: 'http://localhost:5173', ACCESS_LOG: 'all' }, capture(fastLogs));
  integrationKey = (await createToken(fast.store, 'homebox', ['integrations:render'])).token;
  // A second server over the same database file, every request through the app.
  appOnlyStore = await openStore(fast.config.databaseUrl);
  appOnly = await startServer({ config: fast.config, store: appOnlyStore, logger: capture(appLogs), labelFastPath: false });
  lanes.fast = { url: fast.url, logs: fastLogs, answered: fast.fastLaneAnswered };
  lanes.app = { url: appOnly.url, logs: appLogs, answered: appOnly.fastLaneAnswered };
  const put = await fetch(`${fast.url}/v1/labelmaker/templates/asset-tags`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${fast.tokens.editor}`, 'Content-Type': 'application/json', 'If-None-Match': '*' },
    body: TEMPLATE_BODY,
  });
  expect(put.status).toBe(201);
});

afterAll(async () => {
  await appOnly?.close(1000);
  await fast?.stop();
});

describe('label fast lane', () => {
  const read = () => ({ Authorization: `Bearer ${fast.tokens.read}` });
  const ITEM = '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

  /** Plain label requests: the lane answers these itself. */
  const plain = (): [string, Call][] => [
    ['a location', { path: '/v1/labelmaker/location/bin-12', headers: read() }],
    ['an item', { path: ITEM, headers: read() }],
    ['an asset', { path: '/v1/labelmaker/assets/000-001', headers: read() }],
    ['an asset id without dashes', { path: '/v1/labelmaker/assets/42', headers: read() }],
    ['HEAD', { path: ITEM, method: 'HEAD', headers: read() }],
    ['a built-in template', { path: `${ITEM}?template=dymo-30252`, headers: read() }],
    ['a saved template', { path: `${ITEM}?template=asset-tags`, headers: read() }],
    ['Accept: image/png', { path: ITEM, headers: { ...read(), Accept: 'image/png' } }],
    ['a browser image Accept', { path: ITEM, headers: { ...read(), Accept: 'image/avif,image/webp,image/*,*/*' } }],
    ['an allowed Origin', { path: ITEM, headers: { ...read(), Origin: 'http://localhost:5173' } }],
    ['another Origin', { path: ITEM, headers: { ...read(), Origin: 'https://evil.example' } }],
    ['an incoming X-Request-Id', { path: ITEM, headers: { ...read(), 'X-Request-Id': 'trace-1234.abc' } }],
    ['a token with more scopes', { path: ITEM, headers: { Authorization: `Bearer ${fast.tokens.editor}` } }],
    ['a non-matching If-None-Match', { path: ITEM, headers: { ...read(), 'If-None-Match': '"nope"' } }],
  ];

  /** Everything else: the app answers (errors, negotiation, printing, odd URLs). */
  const others = (): [string, Call][] => [
    ['no credentials', { path: ITEM }],
    ['an unknown token', { path: ITEM, headers: { Authorization: 'Bearer lm_aaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' } }],
    ['a malformed Authorization', { path: ITEM, headers: { Authorization: 'Basic Zm9vOmJhcg==' } }],
    ['a revoked token', { path: ITEM, headers: { Authorization: `Bearer ${fast.tokens.revoked}` } }],
    ['a token without labels:read', { path: ITEM, headers: { Authorization: `Bearer ${fast.tokens.printOnly}` } }],
    ['an integration key', { path: ITEM, headers: { Authorization: `Bearer ${integrationKey}` } }],
    ['an unknown item', { path: '/v1/labelmaker/item/no-such-item', headers: read() }],
    ['an unknown asset', { path: '/v1/labelmaker/assets/999-999', headers: read() }],
    ['asset 0', { path: '/v1/labelmaker/assets/000-000', headers: read() }],
    ['an asset id with 13 digits', { path: '/v1/labelmaker/assets/1234567890123', headers: read() }],
    ['an asset id with letters', { path: '/v1/labelmaker/assets/12a', headers: read() }],
    ['an unknown template', { path: `${ITEM}?template=no-such-stock`, headers: read() }],
    ['an empty template', { path: `${ITEM}?template=`, headers: read() }],
    ['an unknown query parameter', { path: `${ITEM}?cachebust=1`, headers: read() }],
    ['print=false', { path: `${ITEM}?print=false`, headers: read() }],
    ['print=true without a printer', { path: `${ITEM}?print=true`, headers: read() }],
    ['HEAD with print=true', { path: `${ITEM}?print=true`, method: 'HEAD', headers: read() }],
    ['Accept: application/json', { path: ITEM, headers: { ...read(), Accept: 'application/json' } }],
    ['Accept: image/png;q=0', { path: ITEM, headers: { ...read(), Accept: 'image/png;q=0' } }],
    ['Accept with q-values', { path: ITEM, headers: { ...read(), Accept: 'text/html;q=0.9, image/png;q=0.8' } }],
    ['a trailing slash', { path: `${ITEM}/`, headers: read() }],
    ['a percent-escape in the id', { path: '/v1/labelmaker/location/bin%2D12', headers: read() }],
    ['a malformed percent-escape', { path: '/v1/labelmaker/location/bin%zz', headers: read() }],
    ['POST', { path: ITEM, method: 'POST', headers: read() }],
    ['an unsafe X-Request-Id', { path: '/v1/labelmaker/item/no-such-item', headers: { ...read(), 'X-Request-Id': 'a b' } }],
  ];

  it('answers plain label requests itself, exactly as the app does', async () => {
    const before = lanes.fast.answered();
    for (const [what, call] of plain()) {
      const viaLane = await ask(lanes.fast, call);
      const viaApp = await ask(lanes.app, call);
      expect(comparable(viaLane), what).toEqual(comparable(viaApp));
      expect(viaLane.status, what).toBe(200);
      expect(viaLane.log, what).toBeDefined();
      expect(viaLane.headers['x-request-id'], what).toMatch(call.headers?.['X-Request-Id'] ?? /^[0-9a-f-]{36}$/);
      if (call.method !== 'HEAD') expect(viaLane.body.subarray(1, 4).toString(), what).toBe('PNG');
    }
    expect(lanes.fast.answered() - before).toBe(plain().length);
    expect(lanes.app.answered()).toBe(0);
  });

  it('answers revalidations with a 304 as the app does', async () => {
    const first = await ask(lanes.fast, { path: ITEM, headers: read() });
    const etag = first.headers.etag!;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const call = { path: ITEM, headers: { ...read(), 'If-None-Match': inm } };
      const viaLane = await ask(lanes.fast, call);
      expect(comparable(viaLane), inm).toEqual(comparable(await ask(lanes.app, call)));
      expect(viaLane.status, inm).toBe(304);
    }
  });

  it('leaves every other request to the app, which answers it as always', async () => {
    const before = lanes.fast.answered();
    for (const [what, call] of others()) {
      const viaLane = await ask(lanes.fast, call);
      const viaApp = await ask(lanes.app, call);
      expect(comparable(viaLane), what).toEqual(comparable(viaApp));
    }
    // Each of them went to the app (the unknown query parameter and print=false are 200s of the app).
    expect(lanes.fast.answered() - before).toBe(0);
  });

  it('shows a record change on the next request (another connection wrote it)', async () => {
    const path = '/v1/labelmaker/location/bin-12';
    const item = await ask(lanes.fast, { path: ITEM, headers: read() });
    const before = await ask(lanes.fast, { path, headers: read() });
    // Through the other server's store: another SQLite connection, as an import from the CLI would be.
    await appOnlyStore.records.upsertMany([{ kind: 'location', id: 'bin-12', name: 'Bin 12 (screws)', description: 'Small parts', parentId: 'shelf-3', assetId: null }]);
    const after = await ask(lanes.fast, { path, headers: read() });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.body.equals(before.body)).toBe(false);
    expect(comparable(after)).toEqual(comparable(await ask(lanes.app, { path, headers: read() })));
    // The item in that bin shows the new path too.
    const itemAfter = await ask(lanes.fast, { path: ITEM, headers: read() });
    expect(itemAfter.headers.etag).not.toBe(item.headers.etag);
    await appOnlyStore.records.upsertMany([{ kind: 'location', id: 'bin-12', name: 'Bin 12', description: 'Small parts', parentId: 'shelf-3', assetId: null }]);
    expect((await ask(lanes.fast, { path, headers: read() })).headers.etag).toBe(before.headers.etag);
  });
});

describe('label fast lane: budgets and time-outs', () => {
  it('counts each request once and answers a spent budget as the app does', async () => {
    const small = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
    const store = await openStore(small.config.databaseUrl);
    const app = await startServer({ config: small.config, store, logger: pino({ level: 'silent' }), labelFastPath: false });
    try {
      const call = (url: string) => fetch(`${url}/v1/labelmaker/location/garage`, { headers: { Authorization: `Bearer ${small.tokens.read}` } });
      for (let i = 0; i < 5; i++) {
        const [a, b] = [await call(small.url), await call(app.url)];
        expect([a.status, a.headers.get('ratelimit-remaining')], `request ${i + 1}`).toEqual([b.status, b.headers.get('ratelimit-remaining')]);
        expect(a.status).toBe(i < 3 ? 200 : 429);
        if (a.status === 429) expect(await a.json()).toMatchObject({ type: '/problems/rate-limited' });
      }
    } finally {
      await app.close(1000);
      await small.stop();
    }
  });

  it('hands a request whose lookup hangs to the app, which answers 503 at the time-out', async () => {
    const srv = await startTestServer({ REQUEST_TIMEOUT_MS: '1000' });
    const hang = srv.store.records.getWithPath;
    srv.store.records.getWithPath = (key) => ('id' in key && key.id === 'garage' ? new Promise(() => {}) : hang(key)); // a store that never answers
    try {
      const started = Date.now();
      const res = await fetch(`${srv.url}/v1/labelmaker/location/garage`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ type: '/problems/unavailable', detail: 'The request timed out; retry shortly.' });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      srv.store.records.getWithPath = hang;
      await srv.stop();
    }
  });
});
