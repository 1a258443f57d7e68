/**
 * Records through the API (putRecord, getRecord, deleteRecord, upsertRecords), from the
 * client's side: a real server over HTTP, on a real SQLite file and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { PROBE_DEADLINE_MS } from '../../src/records/health.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const dialects = [
  ['SQLite file', async () => ({ env: {}, drop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const schema: TestSchema = await createTestSchema();
      return { env: { DATABASE_URL: schema.url }, drop: () => schema.drop() };
    },
  ],
] as const;

/** `n` records as JSON lines, made as they are sent: a location `<prefix>-box` and items in it with asset ids from 100000. */
function bulkBody(n: number, prefix: string): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === 0) controller.enqueue(enc.encode(`{"kind":"location","id":"${prefix}-box","name":"Big box"}\n`));
      let chunk = '';
      for (const end = Math.min(n - 1, i + 1000); i < end; i++) chunk += `{"kind":"item","id":"${prefix}-${i}","name":"Big thing ${i}","parentId":"${prefix}-box","assetId":${100_000 + i}}\n`;
      if (chunk) controller.enqueue(enc.encode(chunk));
      if (i >= n - 1) controller.close();
    },
  });
}

describe.each(dialects)('records through the API (%s)', (_name, database) => {
  let server: TestServer;
  let drop: () => Promise<void>;
  let writer: string;
  let base: string;
  const call = (method: string, path: string, opts: { token?: string; headers?: Record<string, string>; body?: unknown; raw?: string; type?: string } = {}) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${opts.token ?? writer}`,
        ...(opts.body !== undefined || opts.raw !== undefined ? { 'Content-Type': opts.type ?? 'application/json' } : {}),
        ...opts.headers,
      },
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    });

  beforeAll(async () => {
    const db = await database();
    drop = db.drop;
    server = await startTestServer(db.env);
    base = server.url;
    writer = (await createToken(server.store, 'sync', ['labels:read', 'records:write'])).token;
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it('creates with If-None-Match: *, reads with an ETag, replaces with If-Match, deletes; each write an event', async () => {
    const cursor = await server.store.events.latest();
    const created = await call('PUT', '/v1/labelmaker/records/items/hammer', { headers: { 'If-None-Match': '*' }, body: { name: 'Hammer', parentId: 'shelf-3', assetId: '000-077' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/labelmaker/records/items/hammer');
    const etag = created.headers.get('etag')!;
    expect(await created.json()).toMatchObject({ kind: 'item', id: 'hammer', name: 'Hammer', parentId: 'shelf-3', assetId: '000-077', description: '' });

    const got = await call('GET', '/v1/labelmaker/records/items/hammer', { token: server.tokens.read });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(etag);

    // The label follows at once.
    const label = await fetch(`${base}/v1/labelmaker/assets/000-077`, { headers: { Authorization: `Bearer ${server.tokens.read}` } });
    expect(label.status).toBe(200);

    const same = await call('PUT', '/v1/labelmaker/records/items/hammer', { headers: { 'If-Match': etag }, body: { name: 'Hammer', parentId: 'shelf-3', assetId: '000-077' } });
    expect(same.status).toBe(200);
    expect(same.headers.get('etag')).toBe(etag); // nothing changed: same ETag, no event

    const replaced = await call('PUT', '/v1/labelmaker/records/items/hammer', { headers: { 'If-Match': etag }, body: { name: 'Claw hammer', parentId: 'bin-12', assetId: '77' } });
    expect(replaced.status).toBe(200);
    const etag2 = replaced.headers.get('etag')!;
    expect(etag2).not.toBe(etag);

    const stale = await call('DELETE', '/v1/labelmaker/records/items/hammer', { headers: { 'If-Match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toBe('application/problem+json');

    const deleted = await call('DELETE', '/v1/labelmaker/records/items/hammer', { headers: { 'If-Match': etag2 } });
    expect(deleted.status).toBe(204);
    expect((await call('GET', '/v1/labelmaker/records/items/hammer')).status).toBe(404);

    const events = await server.store.events.after(cursor, 100);
    expect(events.map((e) => [e.type, e.subject.id])).toEqual([
      ['record.created', 'hammer'],
      ['record.changed', 'hammer'],
      ['record.deleted', 'hammer'],
    ]);
    expect(events[1]!.data).toMatchObject({ record: { name: 'Claw hammer', parentId: 'bin-12' }, previous: { name: 'Hammer', parentId: 'shelf-3' } });
  });

  it('answers 428 without a precondition, 412 on create over an existing record, 422 by the import rules, 409 for a location that holds records, 403 without the scope', async () => {
    const none = await call('PUT', '/v1/labelmaker/records/locations/attic', { body: { name: 'Attic' } });
    expect(none.status).toBe(428);
    expect((await none.json()).type).toBe('/problems/precondition-required');
    expect((await call('DELETE', '/v1/labelmaker/records/locations/garage')).status).toBe(428);

    const exists = await call('PUT', '/v1/labelmaker/records/locations/garage', { headers: { 'If-None-Match': '*' }, body: { name: 'Garage' } });
    expect(exists.status).toBe(412);

    const invalid = await call('PUT', '/v1/labelmaker/records/items/x1', { headers: { 'If-None-Match': '*' }, body: { name: 'X', parentId: 'nowhere', assetId: '000-042' } });
    expect(invalid.status).toBe(422);
    const problem = await invalid.json();
    expect(problem).toMatchObject({ type: '/problems/invalid-records', problemCount: 2 });
    expect(problem.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^row 1: parent_id 'nowhere' is not a location/), expect.stringMatching(/^row 1: asset_id 000-042 already belongs to item 'tape-measure'/)]));

    const dirty = await call('PUT', '/v1/labelmaker/records/items/x2', { headers: { 'If-None-Match': '*' }, body: { name: 'bad\u001b[31m' } });
    expect(dirty.status).toBe(422);

    // A cycle through the database: garage under bin-12, which is under garage.
    const garage = await call('GET', '/v1/labelmaker/records/locations/garage');
    const cycle = await call('PUT', '/v1/labelmaker/records/locations/garage', { headers: { 'If-Match': garage.headers.get('etag')! }, body: { name: 'Garage', parentId: 'bin-12' } });
    expect(cycle.status).toBe(422);
    expect((await cycle.json()).errors[0]).toMatch(/cycle/);

    const notEmpty = await call('DELETE', '/v1/labelmaker/records/locations/garage', { headers: { 'If-Match': '*' } });
    expect(notEmpty.status).toBe(409);
    expect((await notEmpty.json()).type).toBe('/problems/location-not-empty');

    expect((await call('PUT', '/v1/labelmaker/records/locations/attic', { token: server.tokens.read, headers: { 'If-None-Match': '*' }, body: { name: 'Attic' } })).status).toBe(403);
  });

  it('two writers with the same ETag: one wins, the other gets 412', async () => {
    const got = await call('GET', '/v1/labelmaker/records/items/loose-item');
    const etag = got.headers.get('etag')!;
    const answers = await Promise.all(
      ['First', 'Second', 'Third'].map((name) => call('PUT', '/v1/labelmaker/records/items/loose-item', { headers: { 'If-Match': etag }, body: { name } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412]);
  });

  it('bulk: JSON lines and arrays, all or nothing, per-row problems, idempotent under a key', async () => {
    const lines = (n: number, prefix: string) =>
      [`{"kind":"location","id":"${prefix}-box","name":"Box ${prefix}"}`, ...Array.from({ length: n }, (_, i) => JSON.stringify({ kind: 'item', id: `${prefix}-${i}`, name: `Thing ${i}`, parentId: `${prefix}-box` }))].join('\n') + '\n';
    const ok = await call('POST', '/v1/labelmaker/records/bulk', { raw: lines(10, 'nd'), type: 'application/x-ndjson', headers: { 'Idempotency-Key': 'sync-1' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ records: 11, written: 11, unchanged: 0 });
    const cursor = await server.store.events.latest();

    const again = await call('POST', '/v1/labelmaker/records/bulk', { raw: lines(10, 'nd'), type: 'application/x-ndjson', headers: { 'Idempotency-Key': 'sync-1' } });
    expect(await again.json()).toEqual({ records: 11, written: 11, unchanged: 0 }); // the same answer
    expect(await server.store.events.latest()).toBe(cursor); // nothing written again

    const reused = await call('POST', '/v1/labelmaker/records/bulk', { raw: lines(3, 'nd'), type: 'application/x-ndjson', headers: { 'Idempotency-Key': 'sync-1' } });
    expect(reused.status).toBe(422);
    expect((await reused.json()).type).toBe('/problems/idempotency-key-reused');

    const array = await call('POST', '/v1/labelmaker/records/bulk', { body: [{ kind: 'item', id: 'nd-0', name: 'Thing 0 renamed', parentId: 'nd-box' }, { kind: 'item', id: 'nd-1', name: 'Thing 1', parentId: 'nd-box' }] });
    expect(await array.json()).toEqual({ records: 2, written: 1, unchanged: 1 });

    const bad = await call('POST', '/v1/labelmaker/records/bulk', {
      raw: ['{"kind":"item","id":"b-1","name":"B","parentId":"missing"}', '', 'not json', '{"kind":"item","id":"b-2","name":"B2","assetId":"000-001"}'].join('\n'),
      type: 'application/x-ndjson',
    });
    expect(bad.status).toBe(422);
    const problem = await bad.json();
    expect(problem.problemCount).toBe(3);
    expect(problem.errors).toEqual([expect.stringMatching(/^row 1: parent_id 'missing'/), expect.stringMatching(/^row 3: invalid JSON/), expect.stringMatching(/^row 4: asset_id 000-001 already belongs/)]);
    expect(await server.store.records.getItem('b-1')).toBeUndefined();
  });

  it('bulk: a replayed key answers what it answered, even where its records would now be refused', async () => {
    const first = '{"kind":"item","id":"rp-1","name":"Replayed","assetId":"000-777"}\n';
    const ok = await call('POST', '/v1/labelmaker/records/bulk', { raw: first, type: 'application/x-ndjson', headers: { 'Idempotency-Key': 'replay-1' } });
    expect(await ok.json()).toEqual({ records: 1, written: 1, unchanged: 0 });
    // Since then the asset id moved to another item: the same body without the key is refused now.
    const moved = await call('POST', '/v1/labelmaker/records/bulk', { raw: '{"kind":"item","id":"rp-1","name":"Replayed"}\n{"kind":"item","id":"rp-2","name":"Taker","assetId":"000-777"}\n', type: 'application/x-ndjson' });
    expect(moved.status).toBe(200);
    const now = await call('POST', '/v1/labelmaker/records/bulk', { raw: first, type: 'application/x-ndjson' });
    expect(now.status).toBe(422);
    expect((await now.json()).errors).toEqual([expect.stringMatching(/^row 1: asset_id 000-777 already belongs/)]);
    const cursor = await server.store.events.latest();

    const again = await call('POST', '/v1/labelmaker/records/bulk', { raw: first, type: 'application/x-ndjson', headers: { 'Idempotency-Key': 'replay-1' } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ records: 1, written: 1, unchanged: 0 });
    expect(await server.store.events.latest()).toBe(cursor); // nothing written
    expect((await server.store.records.getItemByAssetId(777))?.id).toBe('rp-2');
  });

  it('bulk: 100,000 records in one call', async () => {
    const n = 100_000;
    const res = await fetch(`${base}/v1/labelmaker/records/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${writer}`, 'Content-Type': 'application/x-ndjson' }, body: bulkBody(n, 'big'), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ records: n, written: n, unchanged: 0 });
    expect((await server.store.records.getItemByAssetId(100_000 + n - 2))?.id).toBe(`big-${n - 2}`);
  }, 300_000);
});

describe('a large bulk sync on a SQLite file', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // A functional bound, not a speed target: reading, checking and writing run on the store's
  // import thread, so the thread that answers requests is never held for long. /livez asks
  // nothing of the store; /healthz also waits for its probe write, which queues behind the
  // sync's write lock for at most PROBE_DEADLINE_MS (src/records/health.ts).
  it('leaves /livez answering within 1 s, /healthz within 1 s more than its probe deadline, while 200,000 records are checked and written', async () => {
    const { token } = await createToken(server.store, 'sync', ['records:write']);
    const n = 200_000;
    let done = false;
    const sync = fetch(`${server.url}/v1/labelmaker/records/bulk`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/x-ndjson' }, body: bulkBody(n, 'hz'), duplex: 'half' } as RequestInit).finally(() => (done = true));
    const latencies = { '/livez': [] as number[], '/healthz': [] as number[] };
    while (!done) {
      for (const path of ['/livez', '/healthz'] as const) {
        const started = performance.now();
        const res = await fetch(`${server.url}${path}`);
        await res.arrayBuffer();
        latencies[path].push(performance.now() - started);
        expect(res.status).toBe(200);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const res = await sync;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ records: n, written: n, unchanged: 0 });
    expect(latencies['/livez'].length).toBeGreaterThan(10); // they were asked all along
    expect(Math.max(...latencies['/livez'])).toBeLessThan(1000);
    expect(Math.max(...latencies['/healthz'])).toBeLessThan(PROBE_DEADLINE_MS + 1000);
  }, 300_000);
});
