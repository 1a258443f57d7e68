/**
 * previewLabelTemplate with a sample record (not stored), over HTTP to the real server: the
 * label shows the sample (its text inked where the design puts it, its code carrying its URL),
 * the longest name the rules allow is shortened with a warning, a right-to-left name is drawn,
 * a sample that breaks the records' rules is a 422 naming them under /sample, and a body with
 * both or neither of `record` and `sample` is a 400. Nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMonoPng, getDot, type MonoBitmap } from '../../src/labels/mono-png.js';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { problemErrors } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const PREVIEWS = '/v1/labelmaker/template-previews';
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
}, 240_000);
afterAll(() => srv?.close());

async function preview(body: unknown) {
  const res = await fetch(srv.url + PREVIEWS, {
    method: 'POST',
    headers: { Accept: 'image/png, application/problem+json', Authorization: `Bearer ${srv.tokens.editor}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const json = /json/.test(type) ? (JSON.parse(bytes.toString('utf8')) as { type: string; detail: string }) : undefined;
  if (/problem\+json/.test(type)) expect(problemErrors(json), bytes.toString()).toBeUndefined();
  return { status: res.status, type, headers: res.headers, json, bytes };
}

const stock = getStock('brother-ql-62x29');
const dots = (mm: number) => Math.round((mm / 25.4) * stock.dpi);
type MmBox = { x: number; y: number; width: number; height: number };
function inkIn(bm: MonoBitmap, box: MmBox): number {
  let n = 0;
  for (let y = dots(box.y); y < dots(box.y) + dots(box.height); y++) for (let x = dots(box.x); x < dots(box.x) + dots(box.width); x++) if (getDot(bm, x, y)) n++;
  return n;
}

const NAME: MmBox = { x: 1, y: 1, width: 34, height: 9 };
const ASSET: MmBox = { x: 1, y: 12, width: 34, height: 8 };
const CODE: MmBox = { x: 37, y: 1, width: 21, height: 21 };
const DESIGN = {
  stock: 'brother-ql-62x29',
  footer: '',
  elements: [
    { type: 'text', box: NAME, text: '{name}', pt: { min: 8, max: 20 } },
    { type: 'text', box: ASSET, text: '{assetId}', pt: { min: 8, max: 20 } },
    { type: 'code', box: CODE, symbology: 'qr', data: '{url}' },
  ],
};

describe('previewLabelTemplate with a sample record', () => {
  it('draws a 12-digit asset sample: its name and asset id inked in their boxes, its code carrying its URL', async () => {
    const r = await preview({ design: DESIGN, sample: { kind: 'asset', name: 'Sample drill', assetId: '123456789012', path: ['Garage', 'Shelf 3'] } });
    expect(r.status, r.bytes.toString()).toBe(200);
    expect(r.type).toBe('image/png');
    expect(r.headers.get('cache-control')).toBe('no-store');
    const bm = decodeMonoPng(r.bytes);
    expect(inkIn(bm, NAME)).toBeGreaterThan(200);
    expect(inkIn(bm, ASSET)).toBeGreaterThan(200);
    const codes = await decodeBarcodes(r.bytes, { formats: ['QRCode'] });
    expect(codes.map((c) => c.text)).toEqual([expect.stringMatching(/\/a\/123-456-789-012$/)]);
    expect(r.headers.get('label-warnings') ?? '').not.toMatch(/text-shortened/);
  });

  it('shortens the longest name the rules allow with a warning, and draws a right-to-left one', async () => {
    const longest = await preview({ design: DESIGN, sample: { kind: 'item', name: 'W'.repeat(200) } });
    expect(longest.status, longest.bytes.toString()).toBe(200);
    expect(longest.headers.get('label-warnings')).toMatch(/text-shortened/);
    expect(inkIn(decodeMonoPng(longest.bytes), NAME)).toBeGreaterThan(500);
    const rtl = await preview({ design: DESIGN, sample: { kind: 'location', name: 'מדף עליון 3', path: ['מחסן'] } });
    expect(rtl.status, rtl.bytes.toString()).toBe(200);
    const bm = decodeMonoPng(rtl.bytes);
    expect(inkIn(bm, NAME)).toBeGreaterThan(200);
    // A location has no asset id: that box stays blank.
    expect(inkIn(bm, ASSET)).toBe(0);
  });

  it("refuses a sample that breaks the records' rules with a 422 naming them under /sample", async () => {
    const blank = await preview({ design: DESIGN, sample: { kind: 'item', name: '   ' } });
    expect(blank.status, 'blank').toBe(422);
    expect(blank.json!.detail).toMatch(/^\/sample: .*name/);
    const tooLong = await preview({ design: DESIGN, sample: { kind: 'item', name: 'x'.repeat(201) } });
    expect(tooLong.status, 'tooLong').toBe(422);
    expect(tooLong.json!.detail).toMatch(/^\/sample: /);
    const assetWithoutId = await preview({ design: DESIGN, sample: { kind: 'asset', name: 'Drill' } });
    expect(assetWithoutId.status, 'assetWithoutId').toBe(422);
    expect(assetWithoutId.json!.detail).toBe('/sample/assetId: an asset label needs an asset id.');
    const badAssetId = await preview({ design: DESIGN, sample: { kind: 'asset', name: 'Drill', assetId: 'abc-def' } });
    expect(badAssetId.status, 'badAssetId').toBe(422);
    expect(badAssetId.json!.detail).toMatch(/^\/sample: .*asset/);
  });

  it('takes exactly one of record and sample (400 for both or neither), and stores nothing', async () => {
    const both = await preview({ design: DESIGN, record: { kind: 'item', id: 'tape-measure' }, sample: { kind: 'item', name: 'Drill' } });
    expect(both.status).toBe(400);
    const neither = await preview({ design: DESIGN });
    expect(neither.status).toBe(400);
    await preview({ design: DESIGN, sample: { kind: 'item', name: 'Never stored 7f3a' } });
    const search = await fetch(`${srv.url}/v1/labelmaker/records?q=${encodeURIComponent('Never stored 7f3a')}`, { headers: { Authorization: `Bearer ${srv.tokens.editor}`, Accept: 'application/json' } });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { records: unknown[] }).records).toEqual([]);
  });
});
