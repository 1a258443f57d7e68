/**
 * ACCESS_LOG: `errors` (the default) writes a line only for answers of 400 and up;
 * `all` for every answered request, so a user's error report can still be found by its request id.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Line = Record<string, unknown>;

function capture(lines: Line[]) {
  return pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
}

const ITEM = '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

/** Each request with its own X-Request-Id; the access lines found for each after the answers finished. */
async function accessLines(srv: TestServer, lines: Line[], calls: { path: string; headers?: Record<string, string>; method?: string }[]) {
  const sent: { id: string; status: number }[] = [];
  for (const [i, call] of calls.entries()) {
    const id = `access-${Date.now()}-${i}`;
    const res = await fetch(srv.url + call.path, { method: call.method, headers: { ...call.headers, 'X-Request-Id': id } });
    await res.arrayBuffer();
    sent.push({ id, status: res.status });
  }
  // The line is written when the response finishes, which can be just after the client has it.
  await new Promise((r) => setTimeout(r, 100));
  return sent.map(({ id, status }) => ({ status, logged: lines.filter((l) => l.reqId === id && l.msg === 'request').map((l) => l.status) }));
}

describe('ACCESS_LOG', () => {
  it('is errors by default, takes all, and refuses anything else at start-up', () => {
    expect(loadConfig({}).accessLog).toBe('errors');
    expect(loadConfig({ ACCESS_LOG: ' All ' }).accessLog).toBe('all');
    for (const bad of ['none', 'off', 'error', 'warn']) expect(() => loadConfig({ ACCESS_LOG: bad })).toThrow(ConfigError);
  });

  for (const mode of ['all', 'errors'] as const) {
    describe(mode, () => {
      let srv: TestServer;
      const lines: Line[] = [];
      beforeAll(async () => {
        srv = await startTestServer({ ACCESS_LOG: mode }, capture(lines));
      });
      afterAll(() => srv?.stop());

      it(`logs ${mode === 'all' ? 'every answer' : 'only answers of 400 and up'}, whatever the request`, async () => {
        const read = { Authorization: `Bearer ${srv.tokens.read}` };
        const label = await fetch(srv.url + ITEM, { headers: read });
        const etag = label.headers.get('etag')!;
        await label.arrayBuffer();
        const found = await accessLines(srv, lines, [
          { path: ITEM, headers: read }, // 200
          { path: ITEM, headers: { ...read, 'If-None-Match': etag } }, // 304
          { path: `${ITEM}?print=false`, headers: read }, // 200
          { path: '/healthz' }, // 200
          { path: '/v1/labelmaker/item/no-such-item', headers: read }, // 404
          { path: ITEM }, // 401
          { path: '/v1/labelmaker/assets/12a', headers: read }, // 400
        ]);
        expect(found.map((f) => f.status)).toEqual([200, 304, 200, 200, 404, 401, 400]);
        for (const f of found) expect(f.logged).toEqual(mode === 'all' || f.status >= 400 ? [f.status] : []);
      });
    });
  }
});
