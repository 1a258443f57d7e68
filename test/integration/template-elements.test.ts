/**
 * Element designs (issue 34) from the client's side of the wire: the real server over a real
 * SQLite file. Saved, drawn and measured in their pixels: each element's ink inside its box
 * and none outside, text at its size, turned text, the red plane on the red stock, codes read
 * after the save-time damages; refusals at save; export and import as a file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlackRedPng, decodeMonoPng, getDot, type MonoBitmap } from '../../src/labels/mono-png.js';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { problemErrors, schemaErrors, spec } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const TEMPLATES = '/v1/labelmaker/templates';
const PNG = { Accept: 'image/png, application/problem+json' };
let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
}, 240_000);
afterAll(() => srv?.close());

async function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json', Authorization: `Bearer ${srv.tokens.editor}`, ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(srv.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const json = /json/.test(type) && body.length ? JSON.parse(body.toString('utf8')) : undefined;
  if (/problem\+json/.test(type)) expect(problemErrors(json), body.toString()).toBeUndefined();
  return { status: res.status, headers: res.headers, json, body };
}

const stock = getStock('brother-ql-62x29');
const dots = (mm: number) => Math.round((mm / 25.4) * stock.dpi);
type MmBox = { x: number; y: number; width: number; height: number };
/** Dark dots inside and outside a box (in mm), with the inked extent inside. */
function inkIn(bm: MonoBitmap, box: MmBox, others: MmBox[] = []) {
  const [x0, y0, x1, y1] = [dots(box.x), dots(box.y), dots(box.x) + dots(box.width), dots(box.y) + dots(box.height)];
  let inside = 0;
  let outside = 0;
  const ext = { x0: Infinity, y0: Infinity, x1: -1, y1: -1 };
  const inAny = (x: number, y: number) => others.some((o) => x >= dots(o.x) && x < dots(o.x) + dots(o.width) && y >= dots(o.y) && y < dots(o.y) + dots(o.height));
  for (let y = 0; y < bm.height; y++)
    for (let x = 0; x < bm.width; x++) {
      if (!getDot(bm, x, y)) continue;
      if (x >= x0 && x < x1 && y >= y0 && y < y1) {
        inside++;
        ext.x0 = Math.min(ext.x0, x);
        ext.y0 = Math.min(ext.y0, y);
        ext.x1 = Math.max(ext.x1, x);
        ext.y1 = Math.max(ext.y1, y);
      } else if (!inAny(x, y)) outside++;
    }
  return { inside, outside, ext };
}

const NAME: MmBox = { x: 1, y: 1, width: 36, height: 9 };
const RULE: MmBox = { x: 1, y: 10.5, width: 36, height: 1 };
const PATH: MmBox = { x: 1, y: 12, width: 30, height: 8 };
const TURNED: MmBox = { x: 32, y: 12, width: 5, height: 10 };
const QR: MmBox = { x: 38, y: 1, width: 20, height: 20 };
const DESIGN = {
  stock: 'brother-ql-62x29',
  footer: '',
  elements: [
    { type: 'text', box: NAME, text: '{name}', weight: 'bold', pt: { min: 8, max: 20 } },
    { type: 'line', box: RULE },
    { type: 'text', box: PATH, text: 'Shelf: {path}', pt: { min: 6, max: 12 } },
    { type: 'text', box: TURNED, text: 'No. {counter}', rotation: 1, pt: { min: 6, max: 10 } },
    { type: 'code', box: QR, symbology: 'qr', data: '{url}' },
  ],
};

describe('element designs', () => {
  it('are saved with their scan check, and each element is drawn inside its box', async () => {
    const saved = await call('PUT', `${TEMPLATES}/bins`, { headers: { 'If-None-Match': '*' }, body: DESIGN });
    expect(saved.status, saved.body.toString()).toBe(201);
    expect(schemaErrors(spec.components.schemas.LabelTemplate, saved.json)).toBeUndefined();
    expect(saved.json.elements).toEqual(DESIGN.elements);
    expect(saved.json.scanCheck.passed).toBe(true);
    const qr = saved.json.scanCheck.codes.find((c: { element: number }) => c.element === 4);
    expect(qr.symbology).toBe('qr');
    // The clean read and every single damage of the robustness suite.
    expect(qr.damages.map((d: { damage: string }) => d.damage)).toEqual(expect.arrayContaining(['clean', 'downscale 0.5', 'blur 1.5', 'speckle 3%', 'rotate 4°']));

    const label = await call('GET', '/v1/labelmaker/item/tape-measure?template=bins', { headers: PNG });
    expect(label.status, label.body.toString()).toBe(200);
    const bm = decodeMonoPng(label.body);
    expect([bm.width, bm.height]).toEqual([stock.widthDots, stock.lengthDots]);
    const boxes = [NAME, RULE, PATH, TURNED, QR];
    for (const box of boxes) {
      const { inside } = inkIn(bm, box);
      expect(inside, JSON.stringify(box)).toBeGreaterThan(20);
    }
    // Nothing outside every box.
    expect(inkIn(bm, { x: 0, y: 0, width: 0.1, height: 0.1 }, boxes).outside).toBe(0);
    // The name's cap height fits its box and is large (a 20 pt maximum: about 80 dots of line at 300 dpi).
    const name = inkIn(bm, NAME).ext;
    expect(name.y1 - name.y0).toBeGreaterThan(dots(4));
    // The rule: one band of whole rows across its box.
    const rule = inkIn(bm, RULE).ext;
    expect(rule.y1 - rule.y0 + 1).toBeLessThanOrEqual(dots(0.3) + 1);
    expect(rule.x1 - rule.x0 + 1).toBe(dots(36));
    // Turned a quarter: the text runs down its box (taller than wide).
    const turned = inkIn(bm, TURNED).ext;
    expect(turned.y1 - turned.y0).toBeGreaterThan(2 * (turned.x1 - turned.x0));
    const codes = await decodeBarcodes(label.body, { formats: ['QRCode'] });
    expect(codes.map((c) => c.text)).toEqual([expect.stringMatching(/tape-measure$/)]);
  });

  it('shrink text within its range, then shorten it with text-shortened', async () => {
    const long = { stock: 'brother-ql-62x29', footer: '', elements: [{ type: 'text', box: { x: 1, y: 1, width: 20, height: 5 }, text: 'A very long custom text that cannot fit this small box at all', pt: { min: 8, max: 14 } }] };
    const preview = await call('POST', '/v1/labelmaker/template-previews', { headers: PNG, body: { design: long, record: { kind: 'item', id: 'tape-measure' } } });
    expect(preview.status, preview.body.toString()).toBe(200);
    expect(preview.headers.get('label-warnings')).toMatch(/text-shortened/);
    const { outside } = inkIn(decodeMonoPng(preview.body), long.elements[0]!.box);
    expect(outside).toBe(0);
  });

  it('draw red elements in the red plane on the red stock, black with red-as-black elsewhere', async () => {
    const box = { x: 2, y: 2, width: 40, height: 10 };
    const design = (s: string) => ({ stock: s, footer: '', elements: [{ type: 'frame', box, colour: 'red', thicknessMm: 1 }, { type: 'text', box: { x: 5, y: 4, width: 30, height: 6 }, text: '{name}' }] });
    const red = await call('POST', '/v1/labelmaker/template-previews', { headers: PNG, body: { design: design('brother-ql-62-red'), record: { kind: 'item', id: 'tape-measure' } } });
    expect(red.status, red.body.toString()).toBe(200);
    const planes = decodeBlackRedPng(red.body);
    expect(planes.red).not.toBeNull();
    // The frame's top edge is red, not black; the name is black.
    const y = dots(2) + 2;
    expect(getDot(planes.red!, dots(20), y)).toBe(true);
    expect(getDot(planes.black, dots(20), y)).toBe(false);
    expect(red.headers.get('label-warnings') ?? '').not.toMatch(/red-as-black/);
    const black = await call('POST', '/v1/labelmaker/template-previews', { headers: PNG, body: { design: design('brother-ql-62x29'), record: { kind: 'item', id: 'tape-measure' } } });
    expect(black.headers.get('label-warnings')).toMatch(/red-as-black/);
    expect(getDot(decodeMonoPng(black.body), dots(20), y)).toBe(true);
  });

  it('check red codes on the red roll as printed: a red and a black QR code both scan; a red code too small is refused with its reason', async () => {
    const red = getStock('brother-ql-62-red');
    const design = {
      stock: 'brother-ql-62-red',
      footer: '',
      elements: [
        { type: 'code', box: { x: 1, y: 1, width: 26, height: 26 }, symbology: 'qr', data: '{url}', colour: 'red' },
        { type: 'code', box: { x: 34, y: 1, width: 22, height: 22 }, symbology: 'qr', data: '{id}' },
      ],
    };
    const saved = await call('PUT', `${TEMPLATES}/red-codes`, { headers: { 'If-None-Match': '*' }, body: design });
    expect(saved.status, saved.body.toString()).toBe(201);
    expect(saved.json.scanCheck.passed, JSON.stringify(saved.json.scanCheck)).toBe(true);
    expect(saved.json.scanCheck.codes.map((c: { element: number }) => c.element).sort()).toEqual([0, 1]);
    for (const code of saved.json.scanCheck.codes) expect(code.damages.every((d: { decoded: boolean }) => d.decoded), JSON.stringify(code)).toBe(true);
    // The label as printed: the first code in the red plane only, the second in the black; both read from the two-colour PNG.
    const label = await call('GET', '/v1/labelmaker/item/tape-measure?template=red-codes', { headers: PNG });
    const planes = decodeBlackRedPng(label.body);
    const at = (mm: number) => Math.round((mm / 25.4) * red.dpi);
    let [redInk, blackInk] = [0, 0];
    for (let y = at(1); y < at(23); y++)
      for (let x = at(1); x < at(23); x++) {
        if (getDot(planes.red!, x, y)) redInk++;
        if (getDot(planes.black, x, y)) blackInk++;
      }
    expect(redInk).toBeGreaterThan(1000);
    expect(blackInk).toBe(0);
    expect((await decodeBarcodes(label.body, { formats: ['QRCode'] })).map((c) => c.text).sort()).toEqual(['tape-measure', expect.stringMatching(/tape-measure$/)].sort());
    // The same red code in a smaller box: it fits its module rule, but read as the red ink prints it
    // fails a damage a black code of that box survives (the second code above): the check fails with its reason.
    const smaller = { ...design, elements: [{ ...design.elements[0]!, box: { x: 1, y: 1, width: 22, height: 22 } }, design.elements[1]!] };
    const weak = await call('PUT', `${TEMPLATES}/red-weak`, { headers: { 'If-None-Match': '*' }, body: smaller });
    expect(weak.status, weak.body.toString()).toBe(201);
    expect(weak.json.scanCheck.passed).toBe(false);
    const [redCode, blackCode] = [0, 1].map((i) => weak.json.scanCheck.codes.find((c: { element: number }) => c.element === i));
    expect(redCode.damages.some((d: { decoded: boolean }) => !d.decoded)).toBe(true);
    expect(redCode.reason).toMatch(/^not read after .+: it is printed in red, which a camera sees lighter than black: give it a larger box/);
    expect(blackCode.reason).toBeUndefined();
    expect(schemaErrors(spec.components.schemas.LabelTemplate, weak.json)).toBeUndefined();
    // A red QR code in a box smaller than its smallest module and quiet zone: refused, with the reason and where it fits.
    const small = { ...design, elements: [{ ...design.elements[0]!, box: { x: 1, y: 1, width: 10, height: 10 } }] };
    const refused = await call('PUT', `${TEMPLATES}/red-small`, { headers: { 'If-None-Match': '*' }, body: small });
    expect(refused.status).toBe(422);
    expect(refused.json.detail).toMatch(/^\/elements\/0: the QR code .* needs 180 dots square with its quiet zone, its box is 118 x 118 on brother-ql-62-red/);
  });

  it('refuse at save a code that cannot keep its module and quiet zone, naming the stocks that hold it', async () => {
    // A URL's QR code needs 180 dots square at its smallest (4-dot) module: 22.5 mm at 203 dpi, 15.3 mm at 300 dpi.
    const tiny = { stock: 'zebra-2x1-203dpi', elements: [{ type: 'code', box: { x: 1, y: 1, width: 16, height: 16 }, symbology: 'qr' }] };
    const res = await call('PUT', `${TEMPLATES}/tiny`, { headers: { 'If-None-Match': '*' }, body: tiny });
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(/^\/elements\/0: the QR code .* needs 180 dots square with its quiet zone, its box is 128 x 128 on zebra-2x1-203dpi .*its box holds it on .*brother-ql-62x29/);
    expect(res.json.fitsOn).toContain('brother-ql-62x29');
    expect(res.json.fitsOn).not.toContain('zebra-4x6-203dpi');
    const bigger = await call('PUT', `${TEMPLATES}/tiny`, { headers: { 'If-None-Match': '*' }, body: { ...tiny, stock: 'brother-ql-62x29' } });
    expect(bigger.status, bigger.body.toString()).toBe(201);
    expect((await call('GET', `${TEMPLATES}/tiny`)).status).toBe(200);
    const outside = await call('PUT', `${TEMPLATES}/outside`, { headers: { 'If-None-Match': '*' }, body: { stock: 'brother-ql-62x29', elements: [{ type: 'text', box: { x: 40, y: 1, width: 30, height: 5 }, text: 'x' }] } });
    expect(outside.status).toBe(422);
    expect(outside.json.detail).toMatch(/^\/elements\/0\/box: .* outside the printable area of brother-ql-62x29 \(58\.9 x 22\.9 mm\)/);
    const mixed = await call('PUT', `${TEMPLATES}/mixed`, { headers: { 'If-None-Match': '*' }, body: { ...DESIGN, lines: [{ field: 'name' }] } });
    expect(mixed.status).toBe(422);
    expect(mixed.json.detail).toMatch(/^\/lines: an element design/);
    const unknown = await call('PUT', `${TEMPLATES}/unknown`, { headers: { 'If-None-Match': '*' }, body: { stock: 'brother-ql-62x29', elements: [{ type: 'text', box: NAME, text: '{nmae}' }] } });
    expect(unknown.json.detail).toMatch(/^\/elements\/0\/text: unknown placeholder \{nmae\}/);
    const image = await call('PUT', `${TEMPLATES}/image`, { headers: { 'If-None-Match': '*' }, body: { stock: 'brother-ql-62x29', elements: [{ type: 'image', box: NAME }] } });
    expect(image.json.detail).toMatch(/^\/elements\/0: an image element shows the template's logo/);
  });

  it('export as a file that imports to the same labels', async () => {
    const file = await call('GET', `${TEMPLATES}/bins/file`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="bins.labelmaker.json"');
    expect(schemaErrors(spec.components.schemas.LabelTemplateInput, file.json)).toBeUndefined();
    const imported = await call('PUT', `${TEMPLATES}/bins-copy`, { headers: { 'If-None-Match': '*' }, body: file.json });
    expect(imported.status, imported.body.toString()).toBe(201);
    const a = await call('GET', '/v1/labelmaker/item/tape-measure?template=bins', { headers: PNG });
    const b = await call('GET', '/v1/labelmaker/item/tape-measure?template=bins-copy', { headers: PNG });
    expect(b.body.equals(a.body)).toBe(true);
    expect((await call('GET', `${TEMPLATES}/no-such/file`)).status).toBe(404);
  });

  it('on a stock designed turned (designTurned), x runs along the label: the PNG is the design turned a quarter clockwise', async () => {
    const turned = (await call('GET', '/v1/labelmaker/stocks')).json.stocks.find((x: { name: string }) => x.name === 'brother-ql-38x90');
    expect(turned).toMatchObject({ designTurned: true, printable: { widthDots: 413, lengthDots: 991 } });
    // A bar 80 mm along x and 3 mm across y, 2 mm from the design's top edge.
    const bar = { x: 0, y: 2, width: 80, height: 3 };
    const saved = await call('PUT', `${TEMPLATES}/turned-bar`, { headers: { 'If-None-Match': '*' }, body: { stock: 'brother-ql-38x90', footer: '', elements: [{ type: 'frame', box: bar, thicknessMm: 3 }] } });
    expect(saved.status, saved.body.toString()).toBe(201);
    const label = await call('GET', '/v1/labelmaker/location/garage?template=turned-bar', { headers: PNG });
    const bm = decodeMonoPng(label.body);
    expect([bm.width, bm.height]).toEqual([413, 991]);
    const d = (mm: number) => Math.round((mm / 25.4) * 300);
    const ext = { x0: Infinity, y0: Infinity, x1: -1, y1: -1 };
    for (let y = 0; y < bm.height; y++)
      for (let x = 0; x < bm.width; x++)
        if (getDot(bm, x, y)) Object.assign(ext, { x0: Math.min(ext.x0, x), y0: Math.min(ext.y0, y), x1: Math.max(ext.x1, x), y1: Math.max(ext.y1, y) });
    // Design (x, y) is PNG (widthDots - 1 - y, x): the bar runs down the PNG, at its right edge.
    expect(ext).toEqual({ x0: 413 - d(5), y0: 0, x1: 413 - 1 - d(2), y1: d(80) - 1 });
  });

  it('line designs are saved with a scan check too, and export as line designs', async () => {
    const saved = await call('PUT', `${TEMPLATES}/lines`, { headers: { 'If-None-Match': '*' }, body: { stock: 'brother-ql-62x29', codes: ['qr'] } });
    expect(saved.status).toBe(201);
    expect(saved.json.scanCheck.codes[0]).toMatchObject({ element: -1, symbology: 'qr' });
    expect(saved.json.scanCheck.passed).toBe(true);
    const file = await call('GET', `${TEMPLATES}/lines/file`);
    expect(file.json).toMatchObject({ stock: 'brother-ql-62x29', codes: ['qr'], lines: [{ field: 'name' }, { field: 'path' }] });
  });
});

describe('element designs in rows and columns', () => {
  // A bin label: the name over the path in the first column, the QR code down the second (both rows).
  const GRID = { rows: ['1fr', '1fr'], columns: ['1fr', '24mm'], rowGapMm: 1, columnGapMm: 1 };
  const ELEMENTS = [
    { type: 'text', cell: { row: 1, column: 1 }, text: '{name}', weight: 'bold', pt: { min: 8, max: 40 } },
    { type: 'text', cell: { row: 2, column: 1 }, text: 'Shelf: {path}', pt: { min: 6, max: 40 } },
    { type: 'code', cell: { row: 1, column: 2, rowSpan: 2 }, symbology: 'qr', data: '{url}' },
  ];
  /** The printable area in mm as the server states it (to 0.1 mm, down), and the grid's cells in it, worked out here. */
  function cells(stockName: string) {
    const s = getStock(stockName);
    const mm = (d: number) => Math.floor((d / s.dpi) * 254) / 10;
    const [w, h] = [mm(s.widthDots), mm(s.lengthDots!)];
    const col1 = w - 24 - 1;
    const row = (h - 1) / 2;
    return {
      s,
      name: { x: 0, y: 0, width: col1, height: row },
      path: { x: 0, y: row + 1, width: col1, height: row },
      code: { x: col1 + 1, y: 0, width: 24, height: h },
    };
  }

  for (const stockName of ['brother-ql-62x29', 'brother-ql-102x51']) {
    it(`draws each element inside its cell on ${stockName}, sized by the layout; the code decodes`, async () => {
      const name = `grid-${stockName}`;
      const saved = await call('PUT', `${TEMPLATES}/${name}`, { headers: { 'If-None-Match': '*' }, body: { stock: stockName, footer: '', grid: GRID, elements: ELEMENTS } });
      expect(saved.status, saved.body.toString()).toBe(201);
      expect(schemaErrors(spec.components.schemas.LabelTemplate, saved.json)).toBeUndefined();
      expect(saved.json.grid).toEqual(GRID);
      expect(saved.json.elements).toEqual(ELEMENTS);
      expect(saved.json.scanCheck.passed).toBe(true);
      const label = await call('GET', `/v1/labelmaker/item/tape-measure?template=${name}`, { headers: PNG });
      expect(label.status, label.body.toString()).toBe(200);
      const bm = decodeMonoPng(label.body);
      const c = cells(stockName);
      expect([bm.width, bm.height]).toEqual([c.s.widthDots, c.s.lengthDots]);
      const d = (mm: number) => Math.round((mm / 25.4) * c.s.dpi);
      /** Ink inside a cell, its extent, and ink outside every cell. */
      const measure = (box: MmBox, others: MmBox[]) => {
        const [x0, y0, x1, y1] = [d(box.x), d(box.y), d(box.x + box.width), d(box.y + box.height)];
        const within = (b: MmBox, x: number, y: number) => x >= d(b.x) && x < d(b.x + b.width) && y >= d(b.y) && y < d(b.y + b.height);
        let inside = 0;
        let outside = 0;
        const ext = { x0: Infinity, y0: Infinity, x1: -1, y1: -1 };
        for (let y = 0; y < bm.height; y++)
          for (let x = 0; x < bm.width; x++) {
            if (!getDot(bm, x, y)) continue;
            if (x >= x0 && x < x1 && y >= y0 && y < y1) {
              inside++;
              ext.x0 = Math.min(ext.x0, x);
              ext.y0 = Math.min(ext.y0, y);
              ext.x1 = Math.max(ext.x1, x);
              ext.y1 = Math.max(ext.y1, y);
            } else if (!others.some((o) => within(o, x, y))) outside++;
          }
        return { inside, outside, ext };
      };
      const all = [c.name, c.path, c.code];
      for (const box of all) expect(measure(box, all).inside, JSON.stringify(box)).toBeGreaterThan(200);
      // No ink outside the three cells (the gaps between them included).
      expect(measure(c.name, all).outside).toBe(0);
      // The name fills its cell's height (text grows to its row, up to 40 pt); on the larger stock it is larger.
      const nameExt = measure(c.name, all).ext;
      expect(nameExt.y1 - nameExt.y0).toBeGreaterThan(d(c.name.height) * 0.45);
      // The code spans both rows: centred in its column's whole height, across the gap between the rows.
      const codeExt = measure(c.code, all).ext;
      expect(codeExt.y0).toBeLessThan(d(c.name.height));
      expect(codeExt.y1).toBeGreaterThan(d(c.path.y));
      expect(Math.abs((codeExt.y0 + codeExt.y1) / 2 - d(c.code.height / 2))).toBeLessThanOrEqual(d(1));
      expect(Math.abs((codeExt.x0 + codeExt.x1) / 2 - d(c.code.x + c.code.width / 2))).toBeLessThanOrEqual(d(1));
      const codes = await decodeBarcodes(label.body, { formats: ['QRCode'] });
      expect(codes.map((x) => x.text)).toEqual([expect.stringMatching(/tape-measure$/)]);
    });
  }

  it('refuses a cell outside the grid, a cell without a grid, a box and a cell at once, and tracks wider than the stock', async () => {
    const put = (name: string, body: unknown) => call('PUT', `${TEMPLATES}/${name}`, { headers: { 'If-None-Match': '*' }, body });
    const outside = await put('grid-outside', { stock: 'brother-ql-62x29', grid: GRID, elements: [ELEMENTS[0], { ...ELEMENTS[1], cell: { row: 2, column: 2, columnSpan: 2 } }] });
    expect(outside.status).toBe(422);
    expect(outside.json.detail).toMatch(/^\/elements\/1\/cell: the cell \(row 2, column 2 to 3\) is outside the grid of 2 rows and 2 columns/);
    const noGrid = await put('grid-none', { stock: 'brother-ql-62x29', elements: ELEMENTS });
    expect(noGrid.status).toBe(422);
    expect(noGrid.json.detail).toMatch(/^\/elements\/0\/cell: .*the design has no grid/);
    const both = await put('grid-both', { stock: 'brother-ql-62x29', grid: GRID, elements: [{ ...ELEMENTS[0], box: { x: 1, y: 1, width: 10, height: 5 } }] });
    expect(both.status).toBe(400);
    const wide = await put('grid-wide', { stock: 'brother-ql-62x29', grid: { ...GRID, columns: ['40mm', '24mm'] }, elements: ELEMENTS });
    expect(wide.status).toBe(422);
    expect(wide.json.detail).toMatch(/^\/grid\/columns: the columns' fixed sizes and gaps need 65 mm, the printable area of brother-ql-62x29 has 58\.9 mm/);
    const lines = await put('grid-lines', { stock: 'brother-ql-62x29', grid: GRID });
    expect(lines.status).toBe(422);
    expect(lines.json.detail).toMatch(/^\/grid: a grid places elements/);
    // A code too large for its cell: refused as a box is, with the stocks where its cell (sized there) holds it.
    const small = await put('grid-small', { stock: 'brother-ql-62x29', grid: { rows: ['1fr', '1fr'], columns: ['1fr', '1fr', '1fr', '1fr'] }, elements: [{ type: 'code', cell: { row: 1, column: 4 }, symbology: 'qr' }] });
    expect(small.status).toBe(422);
    expect(small.json.detail).toMatch(/^\/elements\/0: the QR code .* needs 180 dots square with its quiet zone, its box is 174 x 135 on brother-ql-62x29/);
    expect(small.json.fitsOn).toContain('brother-ql-102x51');
    expect(small.json.fitsOn).not.toContain('brother-ql-62x29');
    // None of them was saved.
    for (const name of ['grid-outside', 'grid-none', 'grid-both', 'grid-wide', 'grid-lines', 'grid-small']) expect((await call('GET', `${TEMPLATES}/${name}`)).status).toBe(404);
  });
});
