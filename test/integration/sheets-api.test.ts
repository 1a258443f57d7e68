/**
 * createSheet from the client's side of the wire: a real server on a real SQLite
 * file, PDFs rasterised by poppler and their codes decoded. Each kind of selection
 * labels exactly the records it names; missing records fail the whole request,
 * named; the bounds hold.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSheetProduct, sheetGeometry } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { cropRgba, pdfPageCount, rasterizePdf, type GrayPage } from '../helpers/pdf.js';
import { PUBLIC_BASE, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  // Assets 100..160 under one location, for ranges and location selections.
  await srv.store.records.upsertMany([
    { kind: 'location', id: 'crate', name: 'Crate', description: '', parentId: 'garage', assetId: null },
    ...Array.from({ length: 61 }, (_, i) => ({ kind: 'item' as const, id: `part-${i}`, name: `Part ${i}`, description: '', parentId: 'crate', assetId: 100 + i })),
  ]);
});
afterAll(async () => {
  await srv?.stop();
});

/**
 * One request on a connection of its own: decoding pages keeps this process busy for
 * seconds, past the server's keep-alive time-out, and a pooled connection the server
 * has closed meanwhile would fail the next request.
 */
async function post(body: unknown, token = srv.tokens.read): Promise<{ status: number; type: string | null; pdf: Buffer; json?: Record<string, unknown> }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(`${srv.url}/v1/labelmaker/sheets`, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': data.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        const type = res.headers['content-type'] ?? null;
        resolve({ status: res.statusCode!, type, pdf: buf, json: type?.includes('json') ? JSON.parse(buf.toString('utf8')) : undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Every code on every page, cell by cell (one entry per label: its 2D code's text). */
async function labelsOn(pdf: Buffer, sheet: string): Promise<string[]> {
  const geometry = sheetGeometry(findSheetProduct(sheet)!);
  const out: string[] = [];
  for (const page of rasterizePdf(pdf, 300)) {
    for (const cell of geometry.cells) {
      const codes = await codesIn(page, cell);
      const url = codes.find((c) => c.startsWith('http'));
      if (url) out.push(url);
    }
  }
  return out;
}

async function codesIn(page: GrayPage, cell: { x: number; y: number; width: number; height: number }): Promise<string[]> {
  const px = (mm: number) => Math.round((mm / 25.4) * page.dpi);
  return (await decodeBarcodes(cropRgba(page, px(cell.x) - 6, px(cell.y) - 6, px(cell.width) + 12, px(cell.height) + 12))).map((c) => c.text);
}

describe('createSheet', () => {
  it('a list of records, in order, with copies: each label decodes to its record', async () => {
    const res = await post({ sheet: 'avery-l7160', selection: { records: [{ kind: 'location', id: 'shelf-3' }, { kind: 'item', id: 'tape-measure' }, { kind: 'asset', id: '1' }] }, copies: 2 });
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/pdf');
    const urls = await labelsOn(res.pdf, 'avery-l7160');
    const [loc, item, asset] = [`${PUBLIC_BASE}/location/shelf-3`, `${PUBLIC_BASE}/item/tape-measure`, `${PUBLIC_BASE}/a/000-001`];
    expect(urls).toEqual([loc, loc, item, item, asset, asset]);
  }, 60_000);

  it('an asset-id range labels the assets in it, by asset id, over as many pages as needed', async () => {
    const res = await post({ sheet: 'avery-l7160', selection: { assetIdFrom: '000-105', assetIdTo: '000-134' }, startAt: 19 });
    expect(res.status).toBe(200);
    // 30 labels from position 19: 3 on the first page, 21 on the second, 6 on the third.
    expect(pdfPageCount(res.pdf)).toBe(3);
    const urls = await labelsOn(res.pdf, 'avery-l7160');
    expect(urls).toEqual(Array.from({ length: 30 }, (_, i) => `${PUBLIC_BASE}/a/000-${105 + i}`));
  }, 120_000);

  it('a location with descendants: the items anywhere below it, item labels by default', async () => {
    const direct = await post({ sheet: 'avery-l7651', selection: { location: 'shelf-3' } });
    expect(await labelsOn(direct.pdf, 'avery-l7651')).toEqual([`${PUBLIC_BASE}/item/tape-measure`]);
    const below = await post({ sheet: 'avery-l7651', selection: { location: 'shelf-3', descendants: true } });
    expect((await labelsOn(below.pdf, 'avery-l7651')).sort()).toEqual([`${PUBLIC_BASE}/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f`, `${PUBLIC_BASE}/item/tape-measure`].sort());
    const locations = await post({ sheet: 'avery-l7651', selection: { location: 'garage', descendants: true, kind: 'location' } });
    expect((await labelsOn(locations.pdf, 'avery-l7651')).sort()).toEqual(['bin-12', 'crate', 'shelf-3'].map((id) => `${PUBLIC_BASE}/location/${id}`));
  }, 120_000);

  it('records that do not exist fail the whole request, every one of them named', async () => {
    const res = await post({ sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }, { kind: 'item', id: 'ghost' }, { kind: 'asset', id: '000-999' }, { kind: 'location', id: 'attic' }] } });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ type: '/problems/records-not-found', status: 422 });
    expect(res.json!.missing).toEqual([{ kind: 'item', id: 'ghost' }, { kind: 'asset', id: '000-999' }, { kind: 'location', id: 'attic' }]);
    expect(res.json!.detail).toMatch(/3 records .*item ghost, asset 000-999, location attic/);
    const location = await post({ sheet: 'avery-l7160', selection: { location: 'attic' } });
    expect(location.status).toBe(422);
    expect(location.json!.missing).toEqual([{ kind: 'location', id: 'attic' }]);
  });

  it('at most 1000 labels: 1000 are drawn, 1001 are refused before any work', async () => {
    const ok = await post({ sheet: 'avery-l7656', selection: { records: [{ kind: 'location', id: 'garage' }] }, copies: 1000 });
    expect(ok.status).toBe(200);
    expect(pdfPageCount(ok.pdf)).toBe(Math.ceil(1000 / 84));
    const tooMany = await post({ sheet: 'avery-l7656', selection: { assetIdFrom: '100', assetIdTo: '160' }, copies: 17 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json!.detail).toMatch(/more than 1000 labels/);
    const empty = await post({ sheet: 'avery-l7656', selection: { assetIdFrom: '500', assetIdTo: '600' } });
    expect(empty.status).toBe(400);
    expect(empty.json!.detail).toMatch(/no records/);
  }, 120_000);

  it('template: label-per-page pages are the template stock, labels as the PNG would be', async () => {
    const res = await post({ sheet: 'label-per-page', template: 'brother-ql-62x29', selection: { records: [{ kind: 'item', id: 'tape-measure' }] } });
    const [page] = rasterizePdf(res.pdf, 300);
    // The page is the 62 x 29 mm label (732 x 343 px at 300 dpi) to the whole point, not its 696 x 271 printable dots.
    expect(Math.abs(page!.width - 732)).toBeLessThanOrEqual(4);
    expect(Math.abs(page!.height - 343)).toBeLessThanOrEqual(4);
    const png = Buffer.from(await (await fetch(`${srv.url}/v1/labelmaker/item/tape-measure?template=brother-ql-62x29`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Connection: 'close' } })).arrayBuffer());
    expect((await decodeBarcodes(cropRgba(page!, 0, 0, page!.width, page!.height))).map((c) => c.text)).toEqual((await decodeBarcodes(png)).map((c) => c.text));
  });

  it('needs labels:read', async () => {
    const res = await post({ sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }] } }, srv.tokens.printOnly);
    expect(res.status).toBe(403);
  });
});
