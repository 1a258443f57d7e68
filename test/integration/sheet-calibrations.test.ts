/**
 * Saved sheet calibrations from the client's side of the wire, on a real server over
 * a real SQLite file and a real PostgreSQL schema: saved once per sheet product with
 * templates:write, read with labels:read, applied to the product's sheets that give
 * no offset (the labels' ink moves by it in the rasterised PDF), overridden by a
 * request's own offset, stated on the calibration page, and cleared.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSheetProduct, sheetGeometry } from '../../src/labels/index.js';
import { pageInkBox, pdfText, rasterizePdf } from '../helpers/pdf.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { headerErrors, problemErrors, resolve, schemaErrors, spec } from '../helpers/spec.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';

const CALIBRATIONS = '/v1/labelmaker/sheet-calibrations';
const SHEET = { sheet: 'avery-l7160', selection: { records: [{ kind: 'item', id: 'tape-measure' }] }, copies: 2 };
const DPI = 300;
const mm = (px: number) => (px / DPI) * 25.4;

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json?: any;
}

/** One request on a connection of its own (rasterising keeps this process busy past the server's keep-alive). */
function call(srv: TestServer, method: string, path: string, token: string | null, body?: unknown): Promise<Answer> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string | number> = { Accept: 'application/pdf, application/json, application/problem+json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (data) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  return new Promise((done, fail) => {
    const req = request(`${srv.url}${path}`, { method, agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const buf = Buffer.concat(chunks);
        const type = res.headers['content-type'] ?? '';
        const json = /json/.test(type) && buf.length ? JSON.parse(buf.toString('utf8')) : undefined;
        if (/problem\+json/.test(type)) expect(problemErrors(json), buf.toString()).toBeUndefined();
        done({ status: res.statusCode!, headers: res.headers as Record<string, string | undefined>, body: buf, json });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(data);
  });
}

/** The ink of a sheet's first page as a whole, in px at 300 dpi. */
const inkOf = (pdf: Buffer) => pageInkBox(rasterizePdf(pdf, DPI)[0]!);

describe.each([
  ['SQLite', async () => ({ srv: await startTestServer(), schema: undefined as TestSchema | undefined })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { srv: await startTestServer({ DATABASE_URL: schema.url }), schema };
    },
  ],
])('sheet calibrations on %s', (_store, start) => {
  let srv: TestServer;
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    ({ srv, schema } = await start());
  });
  afterAll(async () => {
    await srv?.stop();
    await schema?.drop();
  });

  it('saved with templates:write, read with labels:read, replaced, checked; unknown products and offsets past 5 mm are 400s naming the field', async () => {
    const path = `${CALIBRATIONS}/avery-5160`;
    const none = await call(srv, 'GET', path, srv.tokens.read);
    expect(none.status).toBe(404);
    expect(none.json.detail).toBe('No calibration is saved for avery-5160; its sheets print without an offset.');
    // Reading is not writing: labels:read alone may not save or clear.
    expect((await call(srv, 'PUT', path, srv.tokens.read, { offsetXMm: 1, offsetYMm: 1 })).status).toBe(403);
    expect((await call(srv, 'DELETE', path, srv.tokens.read)).status).toBe(403);
    expect((await call(srv, 'GET', path, srv.tokens.printOnly)).status).toBe(403);

    const created = await call(srv, 'PUT', path, srv.tokens.editor, { offsetXMm: -0.35, offsetYMm: 1.2 });
    expect(created.status).toBe(201);
    expect(schemaErrors(resolve('#/components/schemas/SheetCalibration'), created.json)).toBeUndefined();
    expect(created.json).toMatchObject({ sheet: 'avery-5160', offsetXMm: -0.35, offsetYMm: 1.2 });
    const read = await call(srv, 'GET', path, srv.tokens.read);
    expect(read.status).toBe(200);
    expect(read.headers['cache-control']).toBe('no-store');
    expect(read.json).toEqual(created.json);
    const replaced = await call(srv, 'PUT', path, srv.tokens.editor, { offsetXMm: 0.5, offsetYMm: 0 });
    expect(replaced.status).toBe(200);
    expect((await call(srv, 'GET', path, srv.tokens.read)).json).toMatchObject({ offsetXMm: 0.5, offsetYMm: 0 });

    for (const [body, detail] of [
      [{ offsetXMm: 5.5, offsetYMm: 0 }, /offsetXMm: must be <= 5/],
      [{ offsetXMm: 0, offsetYMm: -6 }, /offsetYMm: must be >= -5/],
      [{ offsetXMm: 0 }, /offsetYMm/],
      [{ offsetXMm: 0, offsetYMm: 0, printer: 'office' }, /additional properties \(printer\)/],
    ] as const) {
      const res = await call(srv, 'PUT', path, srv.tokens.editor, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.detail).toMatch(detail);
    }
    const unknown = await call(srv, 'PUT', `${CALIBRATIONS}/avery-9999`, srv.tokens.editor, { offsetXMm: 0, offsetYMm: 0 });
    expect(unknown.status).toBe(400);
    expect(unknown.json.detail).toMatch(/path parameter sheet/);
    // Refused writes changed nothing.
    expect((await call(srv, 'GET', path, srv.tokens.read)).json).toMatchObject({ offsetXMm: 0.5, offsetYMm: 0 });
  });

  it("moves the labels' ink of the product's sheets that give no offset; a request's own offset wins; Sheet-Offset says which; other products are untouched; clearing it puts them back", async () => {
    const before = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, SHEET);
    expect(before.status).toBe(200);
    expect(before.headers['sheet-offset']).toBe('none x=0 y=0');
    const header = spec.components.headers['Sheet-Offset'];
    expect(headerErrors(header, before.headers['sheet-offset']!)).toBeUndefined();

    expect((await call(srv, 'PUT', `${CALIBRATIONS}/avery-l7160`, srv.tokens.editor, { offsetXMm: 2, offsetYMm: -1.5 })).status).toBe(201);
    const saved = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, SHEET);
    expect(saved.status).toBe(200);
    expect(saved.headers['sheet-offset']).toBe('saved x=2 y=-1.5');
    expect(headerErrors(header, saved.headers['sheet-offset']!)).toBeUndefined();
    // The labels' ink as a whole: 2 mm right and 1.5 mm up, to the pixel (0.085 mm) and a half.
    const [a, b] = [inkOf(before.body), inkOf(saved.body)];
    for (const [edge, want] of [['x0', 2], ['x1', 2], ['y0', -1.5], ['y1', -1.5]] as const) expect(Math.abs(mm(b[edge] - a[edge]) - want), edge).toBeLessThan(0.13);

    // The request's own offset wins, even a zero one (the other axis is then 0 too).
    const own = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, { ...SHEET, offsetXMm: 0 });
    expect(own.headers['sheet-offset']).toBe('request x=0 y=0');
    const c = inkOf(own.body);
    for (const edge of ['x0', 'x1', 'y0', 'y1'] as const) expect(Math.abs(mm(c[edge] - a[edge])), edge).toBeLessThan(0.13);
    const ownY = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, { ...SHEET, offsetYMm: 1 });
    expect(ownY.headers['sheet-offset']).toBe('request x=0 y=1');

    // Another product has its own (none saved).
    const other = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, { ...SHEET, sheet: 'avery-l7163' });
    expect(other.headers['sheet-offset']).toBe('none x=0 y=0');

    expect((await call(srv, 'DELETE', `${CALIBRATIONS}/avery-l7160`, srv.tokens.editor)).status).toBe(204);
    expect((await call(srv, 'DELETE', `${CALIBRATIONS}/avery-l7160`, srv.tokens.editor)).status).toBe(404);
    const cleared = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, SHEET);
    expect(cleared.headers['sheet-offset']).toBe('none x=0 y=0');
    const d = inkOf(cleared.body);
    for (const edge of ['x0', 'x1', 'y0', 'y1'] as const) expect(Math.abs(mm(d[edge] - a[edge])), edge).toBeLessThan(0.13);
  }, 120_000);

  it('the calibration page is drawn with the saved offset and states it, with where it came from', async () => {
    const cells = sheetGeometry(findSheetProduct('avery-l7163')!).cells;
    const page = async (body: Record<string, unknown>) => {
      const res = await call(srv, 'POST', '/v1/labelmaker/sheets', srv.tokens.read, { sheet: 'avery-l7163', calibration: true, ...body });
      expect(res.status).toBe(200);
      return res;
    };
    const plain = await page({});
    expect(plain.headers['sheet-offset']).toBe('none x=0 y=0');
    expect(pdfText(plain.body)).toContain('printed with offsetXMm 0.0, offsetYMm 0.0 (no calibration saved)');

    expect((await call(srv, 'PUT', `${CALIBRATIONS}/avery-l7163`, srv.tokens.editor, { offsetXMm: -1, offsetYMm: 1.5 })).status).toBe(201);
    const saved = await page({});
    expect(saved.headers['sheet-offset']).toBe('saved x=-1 y=1.5');
    expect(pdfText(saved.body)).toContain('printed with offsetXMm -1.0, offsetYMm +1.5 (the calibration saved for this sheet)');
    // Each label's top scale (its spine at the label's middle, 5 mm either side of the top edge) is where the saved offset puts it.
    const raster = rasterizePdf(saved.body, DPI)[0]!;
    const px = (v: number) => Math.round((v / 25.4) * DPI);
    const dark = (xMm: number, yMm: number) => raster.data[px(yMm) * raster.width + px(xMm)]! < 128;
    for (const cell of cells) {
      const [cx, top] = [cell.x + cell.width / 2 - 1, cell.y + 1.5];
      for (const t of [-4.5, -2.25, 2.25, 4.5]) expect(dark(cx, top + t), `top scale at ${t} mm`).toBe(true);
      // Not where it would be without the offset.
      expect(dark(cx + 1, top + 3.25)).toBe(false);
    }
    // A request's own offset wins here too.
    const own = await page({ offsetXMm: 0.5, offsetYMm: 0 });
    expect(own.headers['sheet-offset']).toBe('request x=0.5 y=0');
    expect(pdfText(own.body)).toContain('printed with offsetXMm +0.5, offsetYMm 0.0 (this request’s)');
  }, 60_000);
});
