/** listRecords through HTTP and the typed client, on the real server over a real SQLite file. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabelmakerClient, LabelmakerError, type InventoryRecord } from '../../src/client.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { FIXTURES, PUBLIC_BASE, type TestServer } from '../helpers/server.js';
import { schemaErrors, spec } from '../helpers/spec.js';
import { startContractServer } from './targets.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startContractServer();
});
afterAll(async () => {
  await srv?.stop();
});

const client = () => createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read });
const pageSchema = spec.components.schemas.RecordPage;

describe('listRecords', () => {
  it('pages through every record with nextCursor, each page valid against the spec', async () => {
    const seen: InventoryRecord[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await fetch(`${srv.url}/v1/labelmaker/records?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      const page = await res.json();
      expect(schemaErrors(pageSchema, page)).toBeUndefined();
      expect(page.records.length).toBeLessThanOrEqual(2);
      seen.push(...page.records);
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(FIXTURES.length / 2));
    expect(seen.map((r) => r.id).sort()).toEqual(FIXTURES.map((r) => r.id).sort());
  });

  it('the typed client follows the cursors and fetches each record label from its URL', async () => {
    const all: InventoryRecord[] = [];
    for await (const r of client().allRecords({ limit: 1 })) all.push(r);
    expect(all.length).toBe(FIXTURES.length);
    const drill = all.find((r) => r.assetId === '000-001')!;
    expect(drill.labels).toEqual({ item: `/v1/labelmaker/item/${drill.id}`, asset: '/v1/labelmaker/assets/000-001' });
    expect(drill.path).toEqual(['Garage', 'Shelf 3', 'Bin 12']);
    for (const url of Object.values(drill.labels)) {
      const label = await client().labelAt(url!);
      const codes = await decodeBarcodes(Buffer.from(label.png));
      expect(codes.some((c) => c.text.startsWith(PUBLIC_BASE))).toBe(true);
    }
    const garage = all.find((r) => r.id === 'garage')!;
    expect(garage).toMatchObject({ kind: 'location', childCount: 1, assetId: null, labels: { location: '/v1/labelmaker/location/garage' } });
  });

  it('browses the location tree: top level, children, everything below', async () => {
    const c = client();
    expect((await c.records({ topLevel: true })).records.map((r) => r.id).sort()).toEqual(['garage', 'loose-item']);
    expect((await c.records({ parent: 'shelf-3' })).records.map((r) => r.id).sort()).toEqual(['bin-12', 'tape-measure']);
    expect((await c.records({ parent: 'garage', descendants: true, kind: 'item' })).records.map((r) => r.name).sort()).toEqual(['Cordless drill', 'Рулетка 5 m']);
    expect((await c.records({ q: 'РУЛЕТКА' })).records.map((r) => r.id)).toEqual(['tape-measure']);
    expect((await c.records({ assetIdFrom: '000-002', assetIdTo: '100' })).records.map((r) => r.assetId)).toEqual(['000-042']);
    expect((await c.records({ assetId: '1' })).records.map((r) => r.assetId)).toEqual(['000-001']);
  });

  it.each([
    ['topLevel=true&parent=garage', /exclude each other/],
    ['descendants=true', /descendants needs parent/],
    ['assetId=1&assetIdFrom=2', /assetId names one asset/],
    ['assetIdFrom=5&assetIdTo=2', /after assetIdTo/],
    ['kind=location&assetIdFrom=1', /locations have no asset ids/],
    ['assetId=0', /not an asset id/],
    ['limit=201', /query parameter limit/],
    ['cursor=bm90IGEgY3Vyc29y', /not a cursor this service issued/],
  ])('400 with a clear problem: %s', async (query, detail) => {
    const err = await fetch(`${srv.url}/v1/labelmaker/records?${query}`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
    expect(err.status).toBe(400);
    expect((await err.json()).detail).toMatch(detail);
  });

  it('a cursor only continues the query it came from', async () => {
    const first = await client().records({ limit: 1 });
    expect(first.nextCursor).toBeTruthy();
    const err = await client().records({ limit: 1, q: 'a', cursor: first.nextCursor! }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabelmakerError);
    expect((err as LabelmakerError).problem.detail).toMatch(/other filters/);
    // limit is not a filter: a cursor may continue with another page size.
    expect((await client().records({ limit: 3, cursor: first.nextCursor! })).records.length).toBe(3);
  });

  it('needs labels:read', async () => {
    const res = await fetch(`${srv.url}/v1/labelmaker/records`, { headers: { Authorization: `Bearer ${srv.tokens.printOnly}` } });
    expect(res.status).toBe(403);
  });
});

describe('listRecords and descriptions stored before 1.1', () => {
  it('a description longer than the import limit (stored by 1.0) comes back shortened to the spec maximum', async () => {
    const long = `${'Долгое описание '.repeat(400)}end`;
    await srv.store.records.upsertMany([{ kind: 'item', id: 'legacy-long-description', name: 'Legacy item', description: long, parentId: null, assetId: null }]);
    const res = await fetch(`${srv.url}/v1/labelmaker/records?q=Legacy`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
    expect(res.status).toBe(200);
    const page = await res.json();
    expect(schemaErrors(pageSchema, page)).toBeUndefined();
    const found = page.records.find((r: InventoryRecord) => r.id === 'legacy-long-description');
    expect(Array.from(found.description as string)).toHaveLength(1000);
    expect(found.description.endsWith('…')).toBe(true);
    expect(long.startsWith(found.description.slice(0, -1))).toBe(true);
  });
});
