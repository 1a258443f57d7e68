/**
 * Request ids: an incoming X-Request-Id that is safe is kept, anything else is
 * replaced; the id comes back in the header, in problem bodies and on every log
 * line of the request, on the server, and in the header and problems of the mock.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { requestIdFrom } from '../../src/api/request-id.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFrom', () => {
  it('keeps safe ids and replaces everything else with a UUID', () => {
    for (const id of ['abc', 'f0e1d2c3-b4a5-4000-8000-000000000000', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'a.b_c:d+e=f@g/h', 'x'.repeat(128)]) {
      expect(requestIdFrom(id)).toBe(id);
    }
    for (const bad of ['', ' ', 'x'.repeat(129), 'a b', 'a\tb', 'id"}', '<script>', 'ä', undefined, ['a', 'b']]) {
      expect(requestIdFrom(bad)).toMatch(UUID);
    }
  });
});

describe('on the server', () => {
  let srv: TestServer;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    srv = await startTestServer({ ACCESS_LOG: 'all' }, pino({ level: 'info' }, sink));
  });
  afterAll(() => srv?.stop());

  it('echoes a safe incoming id in the header and the problem body', async () => {
    const res = await fetch(`${srv.url}/v1/labelmaker/item/no-such-item`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, 'X-Request-Id': 'support-ticket-4711' } });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('support-ticket-4711');
    expect((await res.json()).requestId).toBe('support-ticket-4711');
  });

  it('replaces an unsafe or over-long id with a fresh one, different per request', async () => {
    const ids = [];
    for (const sent of ['x'.repeat(200), 'a b', 'id"} {"admin":true']) {
      const res = await fetch(`${srv.url}/v1/labelmaker/item/tape-measure`, { headers: { 'X-Request-Id': sent } });
      expect(res.status).toBe(401);
      const id = res.headers.get('x-request-id')!;
      expect(id).toMatch(UUID);
      expect((await res.json()).requestId).toBe(id);
      ids.push(id);
    }
    expect(new Set(ids).size).toBe(3);
  });

  it('puts a new id on successful answers too, and on /healthz', async () => {
    const label = await fetch(`${srv.url}/v1/labelmaker/item/tape-measure`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
    expect(label.status).toBe(200);
    expect(label.headers.get('x-request-id')).toMatch(UUID);
    const health = await fetch(`${srv.url}/healthz`);
    expect(health.headers.get('x-request-id')).toMatch(UUID);
  });

  it('writes the id on every log line of the request', async () => {
    const id = `log-${Date.now()}`;
    await fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, 'X-Request-Id': id } });
    const mine = lines.filter((l) => l.reqId === id);
    expect(mine.map((l) => l.msg)).toContain('request');
    const access = mine.find((l) => l.msg === 'request')!;
    expect(access.status).toBe(200);
    expect(access.url).toBe('/v1/labelmaker/assets/000-001');
  });

  it('gives a request the HTTP parser rejects (headers over 16 KiB) an id in the header and the problem', async () => {
    const head = [`GET /healthz HTTP/1.1`, `Host: x`, 'Connection: close', `X-Padding: ${'x'.repeat(17 * 1024)}`].join('\r\n');
    const res = await rawRequest(srv.url, head);
    expect(res.status).toBe(431);
    const body = JSON.parse(res.body.toString('utf8')) as { requestId: string };
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(body.requestId).toBe(res.headers['x-request-id']);
  });
});

describe('on the mock', () => {
  let mock: RunningMock;
  beforeAll(async () => {
    mock = await startMock();
  });
  afterAll(() => mock?.close());

  it('echoes the id in the header and in problems from its own checks and from the examples', async () => {
    const invalid = await fetch(`${mock.url}/v1/labelmaker/assets/12a`, { headers: { Authorization: 'Bearer x', 'X-Request-Id': 'mock-1' } });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-request-id')).toBe('mock-1');
    expect((await invalid.json()).requestId).toBe('mock-1');
    const example = await fetch(`${mock.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: 'Bearer x', Prefer: 'code=404' } });
    expect(example.status).toBe(404);
    const id = example.headers.get('x-request-id');
    expect(id).toMatch(UUID);
    expect((await example.json()).requestId).toBe(id);
  });
});
