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
import { cropRgba, pageInkBox, pdfPageCount, pdfText, rasterizePdf, type GrayPage } from '../helpers/pdf.js';
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

/** Each response's headers, by the object post() resolved with. */
const headers = new WeakMap<object, Record<string, string>>();

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
        const out = { status: res.statusCode!, type, pdf: buf, json: type?.includes('json') ? JSON.parse(buf.toString('utf8')) : undefined };
        headers.set(out, res.headers as Record<string, string>);
        resolve(out);
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
    // The location and every location inside it: its own label first.
    const tree = await post({ sheet: 'avery-l7651', selection: { location: 'garage', descendants: true, kind: 'location', includeSelf: true } });
    const treeLabels = await labelsOn(tree.pdf, 'avery-l7651');
    expect(treeLabels[0]).toBe(`${PUBLIC_BASE}/location/garage`);
    expect(treeLabels.slice(1).sort()).toEqual(['bin-12', 'crate', 'shelf-3'].map((id) => `${PUBLIC_BASE}/location/${id}`));
    // A location with nothing inside it is still one label with includeSelf.
    expect(await labelsOn((await post({ sheet: 'avery-l7651', selection: { location: 'bin-12', kind: 'location', includeSelf: true } })).pdf, 'avery-l7651')).toEqual([`${PUBLIC_BASE}/location/bin-12`]);
    // Its own label counts toward the bound; includeSelf is for location labels only.
    const over = await post({ sheet: 'avery-l7651', selection: { location: 'garage', descendants: true, kind: 'location', includeSelf: true }, copies: 251 });
    expect(over).toMatchObject({ status: 400, json: { detail: expect.stringMatching(/at least 4 records \(x 251 copies\)/) } });
    const items = await post({ sheet: 'avery-l7651', selection: { location: 'garage', kind: 'item', includeSelf: true } });
    expect(items).toMatchObject({ status: 400, json: { detail: expect.stringMatching(/includeSelf .* takes kind location, not item/) } });
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

  it('offsetXMm and offsetYMm move every label by that much; a field out of range or unknown is a 400 that names it', async () => {
    const body = { sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }] }, copies: 2 };
    const [plain, moved] = [await post(body), await post({ ...body, offsetXMm: 2, offsetYMm: -1.5 })];
    expect(moved.status).toBe(200);
    const [a, b] = [rasterizePdf(plain.pdf, 300)[0]!, rasterizePdf(moved.pdf, 300)[0]!];
    const mm = (px: number) => (px / 300) * 25.4;
    const [ia, ib] = [pageInkBox(a), pageInkBox(b)];
    // The ink of both labels as a whole: 2 mm right and 1.5 mm up, to the pixel (0.085 mm) and a half.
    for (const [edge, want] of [['x0', 2], ['x1', 2], ['y0', -1.5], ['y1', -1.5]] as const) expect(Math.abs(mm(ib[edge] - ia[edge]) - want), edge).toBeLessThan(0.13);
    for (const [field, value, detail] of [['offsetXMm', 5.5, /offsetXMm: must be <= 5/], ['offsetYMm', -6, /offsetYMm: must be >= -5/], ['offsetXmm', 1, /additional properties \(offsetXmm\)/]] as const) {
      const res = await post({ ...body, [field]: value });
      expect(res.status, field).toBe(400);
      expect(res.type).toMatch(/application\/problem\+json/);
      expect(res.json!.detail).toMatch(detail);
    }
  }, 60_000);

  it('calibration: one page of scales across every label’s top and left edges, moved by the offsets it states', async () => {
    const product = findSheetProduct('avery-l7160')!;
    const cells = sheetGeometry(product).cells;
    for (const [dx, dy] of [[0, 0], [1, -1.5]] as const) {
      const res = await post({ sheet: 'avery-l7160', calibration: true, offsetXMm: dx, offsetYMm: dy });
      expect(res.status).toBe(200);
      expect(res.type).toBe('application/pdf');
      expect(pdfPageCount(res.pdf)).toBe(1);
      expect(pdfText(res.pdf)).toContain(`offsetXMm ${dx > 0 ? '+' : ''}${dx.toFixed(1)}, offsetYMm ${dy > 0 ? '+' : ''}${dy.toFixed(1)}`);
      const page = rasterizePdf(res.pdf, 300)[0]!;
      const px = (mm: number) => Math.round((mm / 25.4) * 300);
      const dark = (xMm: number, yMm: number) => page.data[px(yMm) * page.width + px(xMm)]! < 128;
      for (const cell of cells) {
        // The top scale's spine runs from 5 mm above the (moved) top edge to 5 mm below it, at the label's middle;
        // its zero tick reaches 1.4 mm either side. The left scale likewise across the left edge.
        const [cx, top, left, cy] = [cell.x + cell.width / 2 + dx, cell.y + dy, cell.x + dx, cell.y + cell.height / 2 + dy];
        for (const t of [-4.5, -2.25, 0, 2.25, 4.5]) {
          expect(dark(cx, top + t), `top scale at ${t} mm`).toBe(true);
          expect(dark(left + t, cy), `left scale at ${t} mm`).toBe(true);
        }
        expect(dark(cx + 1.2, top)).toBe(true);
        expect(dark(left, cy + 1.2)).toBe(true);
        // Nothing where the scale would be without the offset (when there is one).
        if (dx !== 0) expect(dark(cx - dx, top + 3.25)).toBe(false);
      }
      expect(await labelsOn(res.pdf, 'avery-l7160')).toEqual([]);
    }
    const withSelection = await post({ sheet: 'avery-l7160', calibration: true, selection: { records: [{ kind: 'item', id: 'tape-measure' }] } });
    expect(withSelection.status).toBe(400);
    expect(withSelection.json!.detail).toMatch(/selection/);
    const noSelection = await post({ sheet: 'avery-l7160' });
    expect(noSelection.status).toBe(400);
    expect(noSelection.json!.detail).toMatch(/selection: required/);
  }, 60_000);

  it('which labels carry warnings: Sheet-Label-Warnings names page and position, Label-Warnings the glyphs', async () => {
    // Deseret (U+10437) is in no bundled font: that record's labels print boxes.
    await srv.store.records.upsertMany([{ kind: 'item', id: 'deseret', name: 'Drill \u{10437}', description: '', parentId: 'crate', assetId: null }]);
    const res = await post({ sheet: 'avery-l7160', startAt: 20, copies: 2, selection: { records: [{ kind: 'item', id: 'tape-measure' }, { kind: 'item', id: 'deseret' }] } });
    expect(res.status).toBe(200);
    expect(headers.get(res)?.['label-warnings']).toBe('missing-glyphs=U+10437');
    // Positions 20 and 21 of page 1 hold tape-measure; page 2 positions 1 and 2 the Deseret name.
    expect(headers.get(res)?.['sheet-label-warnings']).toBe('2.1 missing-glyphs; 2.2 missing-glyphs');
    const clean = await post({ sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }] } });
    expect(headers.get(clean)?.['sheet-label-warnings']).toBeUndefined();
    expect(headers.get(clean)?.['label-warnings']).toBeUndefined();
  }, 60_000);

  it('a name shortened to fit a sheet cell is named per label (text-shortened), as on the PNG label', async () => {
    await srv.store.records.upsertMany([{ kind: 'item', id: 'long-name', name: 'Heavy-duty cordless hammer drill with two batteries, charger and case', description: '', parentId: 'crate', assetId: null }]);
    const res = await post({ sheet: 'avery-l7656', startAt: 3, selection: { records: [{ kind: 'item', id: 'tape-measure' }, { kind: 'item', id: 'long-name' }] } });
    expect(res.status).toBe(200);
    // Position 3 holds tape-measure (whole), position 4 the long name, shortened on a 46 x 11 mm cell.
    expect(headers.get(res)?.['sheet-label-warnings']).toBe('1.4 text-shortened');
    expect(headers.get(res)?.['label-warnings']).toBe('text-shortened');
    expect(pdfText(res.pdf)).toContain('…');
  }, 60_000);

  it('needs labels:read', async () => {
    const res = await post({ sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }] } }, srv.tokens.printOnly);
    expect(res.status).toBe(403);
  });
});
