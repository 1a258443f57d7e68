/**
 * The rendered-label cache and its ETags, from the wire: the real server over a
 * real SQLite file. A repeat is served without drawing, a 304 never draws (the
 * ETag comes from the label's inputs), and any change to a record (or to a
 * location above it) through the store gives a different label at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Jimp } from 'jimp';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

const DRILL = FIXTURES.find((r) => r.id === '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f')!;
const ITEM_PATH = `/v1/labelmaker/item/${DRILL.id}`;

async function get(s: TestServer, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${s.tokens.read}`, ...headers }, cache: 'no-store' });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

/** Dark pixels of a 1-bit label: a cheap fingerprint of what is printed. */
async function ink(png: Buffer): Promise<number> {
  const { data, width, height } = (await Jimp.read(png)).bitmap;
  let dark = 0;
  for (let i = 0; i < width * height; i++) if (data[i * 4]! < 128) dark++;
  return dark;
}

describe('label cache', () => {
  it('draws a repeated label once (in a worker thread) and answers the repeat with the same bytes and ETag', async () => {
    srv = await startTestServer({ RENDER_THREADS: '2' });
    const a = await get(srv, ITEM_PATH);
    const b = await get(srv, ITEM_PATH);
    expect(a.res.status).toBe(200);
    expect(b.body.equals(a.body)).toBe(true);
    expect(b.res.headers.get('etag')).toBe(a.res.headers.get('etag'));
    expect(srv.labels.stats()).toMatchObject({ renders: 1, hits: 1, entries: 1 });
  });

  it('answers If-None-Match with a 304 without drawing, even with nothing cached', async () => {
    srv = await startTestServer({ LABEL_CACHE_MB: '0', RENDER_THREADS: '1' });
    const a = await get(srv, ITEM_PATH);
    expect(srv.labels.stats().renders).toBe(1);
    const etag = a.res.headers.get('etag')!;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const c = await get(srv, ITEM_PATH, { 'If-None-Match': inm });
      expect(c.res.status).toBe(304);
      expect(c.res.headers.get('etag')).toBe(etag);
    }
    expect(srv.labels.stats().renders).toBe(1);
    // A validator that does not match draws the label (no cache here: every 200 draws).
    const d = await get(srv, ITEM_PATH, { 'If-None-Match': '"something-else"' });
    expect(d.res.status).toBe(200);
    expect(d.body.equals(a.body)).toBe(true);
    expect(srv.labels.stats().renders).toBe(2);
  });

  it('draws a changed record afresh: new bytes, new ETag, and the old ETag no longer matches', async () => {
    srv = await startTestServer();
    const before = await get(srv, ITEM_PATH);
    const oldTag = before.res.headers.get('etag')!;
    await srv.store.records.upsertMany([{ ...DRILL, name: 'Cordless drill, 2 batteries and a charger' }]);
    const after = await get(srv, ITEM_PATH);
    expect(after.res.status).toBe(200);
    expect(after.body.equals(before.body)).toBe(false);
    expect(await ink(after.body)).not.toBe(await ink(before.body));
    expect(after.res.headers.get('etag')).not.toBe(oldTag);
    expect((await get(srv, ITEM_PATH, { 'If-None-Match': oldTag })).res.status).toBe(200);
  });

  it('draws afresh when a location above the record is renamed (its path is on the label)', async () => {
    srv = await startTestServer();
    const before = await get(srv, ITEM_PATH);
    const bin = FIXTURES.find((r) => r.id === 'bin-12')!;
    await srv.store.records.upsertMany([{ ...bin, name: 'Parts drawer 12' }]);
    const after = await get(srv, ITEM_PATH);
    expect(after.body.equals(before.body)).toBe(false);
    expect(after.res.headers.get('etag')).not.toBe(before.res.headers.get('etag'));
    expect(srv.labels.stats().renders).toBe(2);
  });

  it('keys on the template: another stock is another label and another ETag', async () => {
    srv = await startTestServer();
    const a = await get(srv, ITEM_PATH);
    const b = await get(srv, `${ITEM_PATH}?template=dymo-30252`);
    expect(b.res.status).toBe(200);
    expect(b.body.equals(a.body)).toBe(false);
    expect(b.res.headers.get('etag')).not.toBe(a.res.headers.get('etag'));
  });

  it('keeps its memory bound: LABEL_CACHE_MB caps the bytes held', async () => {
    srv = await startTestServer({ LABEL_CACHE_MB: '1' });
    for (const r of FIXTURES) await get(srv, `/v1/labelmaker/${r.kind}/${r.id}`);
    const { bytes, entries } = srv.labels.stats();
    expect(entries).toBe(FIXTURES.length);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(1024 * 1024);
  });
});
