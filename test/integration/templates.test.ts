/**
 * Saved templates from the client's side of the wire: the real server over a
 * real SQLite file and a real PostgreSQL schema. Round trips, conditional
 * writes between two editors, scopes, and labels drawn with saved templates,
 * measured in their pixels (codes decoded, text lines counted, the logo found
 * bit for bit where it belongs, nothing in the outer margin).
 */
import { crc32 } from 'node:zlib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCanvas } from 'canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlackRedPng, decodeMonoPng, getDot, type MonoBitmap } from '../../src/labels/mono-png.js';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { problemErrors, schemaErrors, spec } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';
import { createFaultRole, type FaultRole } from '../helpers/faults.js';

const TEMPLATES = '/v1/labelmaker/templates';
const JSON_ACCEPT = 'application/json, application/problem+json';

interface Sent {
  status: number;
  headers: Headers;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  body: Buffer;
}

function client(srv: () => TestServer) {
  return async (method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Sent> => {
    const headers: Record<string, string> = { Accept: JSON_ACCEPT, Authorization: `Bearer ${opts.token ?? srv().tokens.editor}`, ...opts.headers };
    if (opts.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const res = await fetch(srv().url + path, { method, headers, body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) });
    const body = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type') ?? '';
    const json = /json/.test(type) && body.length ? JSON.parse(body.toString('utf8')) : undefined;
    if (/problem\+json/.test(type)) {
      expect(problemErrors(json), body.toString()).toBeUndefined();
      expect(json.status).toBe(res.status);
    }
    return { status: res.status, headers: res.headers, json, body };
  };
}

const templateSchema = spec.components.schemas.LabelTemplate;

const BASIC = { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'path' }], codes: ['qr'], footer: '' };

describe.each([
  ['SQLite', async () => ({ srv: await startTestServer(), schema: undefined as TestSchema | undefined })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { srv: await startTestServer({ DATABASE_URL: schema.url }), schema };
    },
  ],
])('saved templates on %s', (_store, start) => {
  let srv: TestServer;
  let schema: TestSchema | undefined;
  const call = client(() => srv);
  beforeAll(async () => {
    ({ srv, schema } = await start());
  });
  afterAll(async () => {
    await srv?.stop();
    await schema?.drop();
  });

  it('round trip: create, read, list, replace, delete', async () => {
    const created = await call('PUT', `${TEMPLATES}/shelf-tags`, { body: BASIC, headers: { 'If-None-Match': '*' } });
    expect(created.status, created.body.toString()).toBe(201);
    expect(created.headers.get('location')).toBe(`${TEMPLATES}/shelf-tags`);
    const etag = created.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(schemaErrors(templateSchema, created.json)).toBeUndefined();
    expect(created.json).toMatchObject({ name: 'shelf-tags', ...BASIC, codePosition: 'left', textPt: { min: 7, max: 36 }, logo: null });

    const read = await call('GET', `${TEMPLATES}/shelf-tags`, { token: srv.tokens.read });
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    expect(read.json).toEqual(created.json);
    expect((await call('GET', `${TEMPLATES}/shelf-tags`, { token: srv.tokens.read, headers: { 'If-None-Match': etag } })).status).toBe(304);

    const list = await call('GET', TEMPLATES, { token: srv.tokens.read });
    expect(list.status).toBe(200);
    expect(list.json.templates.map((t: { name: string }) => t.name)).toContain('shelf-tags');
    expect(schemaErrors(spec.components.schemas.LabelTemplateList, list.json)).toBeUndefined();

    const replaced = await call('PUT', `${TEMPLATES}/shelf-tags`, { body: { ...BASIC, footer: 'ACME' }, headers: { 'If-Match': etag } });
    expect(replaced.status).toBe(200);
    const etag2 = replaced.headers.get('etag')!;
    expect(etag2).not.toBe(etag);
    expect(replaced.json.footer).toBe('ACME');
    expect(replaced.json.createdAt).toBe(created.json.createdAt);
    expect((await call('GET', `${TEMPLATES}/shelf-tags`)).json.footer).toBe('ACME');

    expect((await call('DELETE', `${TEMPLATES}/shelf-tags`, { headers: { 'If-Match': etag2 } })).status).toBe(204);
    expect((await call('GET', `${TEMPLATES}/shelf-tags`)).status).toBe(404);
    const label = await call('GET', '/v1/labelmaker/location/shelf-3?template=shelf-tags', { headers: { Accept: 'image/png, application/problem+json' } });
    expect(label.status).toBe(400);
    expect(label.json.detail).toMatch(/^query parameter template: no template is named shelf-tags/);
  });

  it('two editors: the second one, holding a stale ETag, gets a 412 and changes nothing', async () => {
    const created = await call('PUT', `${TEMPLATES}/bins`, { body: BASIC, headers: { 'If-None-Match': '*' } });
    const etag = created.headers.get('etag')!;
    const first = await call('PUT', `${TEMPLATES}/bins`, { body: { ...BASIC, footer: 'first' }, headers: { 'If-Match': etag } });
    expect(first.status).toBe(200);
    const second = await call('PUT', `${TEMPLATES}/bins`, { body: { ...BASIC, footer: 'second' }, headers: { 'If-Match': etag } });
    expect(second.status).toBe(412);
    expect(second.json.type).toBe('/problems/precondition-failed');
    expect((await call('GET', `${TEMPLATES}/bins`)).json.footer).toBe('first');
    // A delete with the stale ETag fails too; creating over an existing name fails.
    expect((await call('DELETE', `${TEMPLATES}/bins`, { headers: { 'If-Match': etag } })).status).toBe(412);
    expect((await call('PUT', `${TEMPLATES}/bins`, { body: BASIC, headers: { 'If-None-Match': '*' } })).status).toBe(412);
    // Without any precondition: 428, for a change and a delete.
    expect((await call('PUT', `${TEMPLATES}/bins`, { body: BASIC })).json.type).toBe('/problems/precondition-required');
    expect((await call('DELETE', `${TEMPLATES}/bins`)).status).toBe(428);
    // Replacing a template that does not exist: 412 (create it with If-None-Match: *).
    expect((await call('PUT', `${TEMPLATES}/nothing-here`, { body: BASIC, headers: { 'If-Match': etag } })).status).toBe(412);
    // Many editors at once with the same ETag: exactly one wins.
    const now = (await call('GET', `${TEMPLATES}/bins`)).headers.get('etag')!;
    const race = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call('PUT', `${TEMPLATES}/bins`, { body: { ...BASIC, footer: `editor ${i}` }, headers: { 'If-Match': now } })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
  });

  it('scopes: labels:read reads but cannot write; templates:write is needed to change', async () => {
    const denied = await call('PUT', `${TEMPLATES}/readers`, { token: srv.tokens.read, body: BASIC, headers: { 'If-None-Match': '*' } });
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toMatch(/'templates:write'/);
    expect((await call('GET', `${TEMPLATES}/readers`, { token: srv.tokens.read })).status).toBe(404);
    expect((await call('GET', TEMPLATES, { token: srv.tokens.printOnly })).status).toBe(403);
    expect((await call('DELETE', `${TEMPLATES}/readers`, { token: srv.tokens.print, headers: { 'If-Match': '"x"' } })).status).toBe(403);
  });

  it('names of built-in templates are reserved (409)', async () => {
    for (const name of ['brother-ql-62x29', 'brother-dk-11209']) {
      const res = await call('PUT', `${TEMPLATES}/${name}`, { body: BASIC, headers: { 'If-None-Match': '*' } });
      expect(res.status).toBe(409);
      expect(res.json.type).toBe('/problems/template-name-reserved');
    }
  });

  it("a label's ETag changes when its template changes", async () => {
    const created = await call('PUT', `${TEMPLATES}/etag-check`, { body: { ...BASIC, footer: 'one' }, headers: { 'If-None-Match': '*' } });
    const label = () => fetch(`${srv.url}/v1/labelmaker/location/shelf-3?template=etag-check`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
    const first = (await label()).headers.get('etag')!;
    await call('PUT', `${TEMPLATES}/etag-check`, { body: { ...BASIC, footer: 'two' }, headers: { 'If-Match': created.headers.get('etag')! } });
    const second = await label();
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).not.toBe(first);
    const revalidated = await fetch(`${srv.url}/v1/labelmaker/location/shelf-3?template=etag-check`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, 'If-None-Match': first } });
    expect(revalidated.status).toBe(200);
  });
});

/** Black square with a white square hole: easy to find bit for bit. */
function squareLogo(): Buffer {
  const c = createCanvas(40, 40);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, 40, 40);
  ctx.clearRect(10, 10, 20, 20); // transparent: white on the label
  return c.toBuffer('image/png');
}

/** Rows of the region that hold ink, grouped into bands separated by blank rows. */
function inkBands(d: MonoBitmap, x0: number, x1: number): number {
  let bands = 0;
  let inBand = false;
  for (let y = 0; y < d.height; y++) {
    let ink = false;
    for (let x = x0; x < x1 && !ink; x++) ink = getDot(d, x, y);
    if (ink && !inBand) bands++;
    inBand = ink;
  }
  return bands;
}

function inkInOuterMargin(d: MonoBitmap, m: number): number {
  let n = 0;
  for (let y = 0; y < d.height; y++) for (let x = 0; x < d.width; x++) if ((x < m || y < m || x >= d.width - m || y >= d.height - m) && getDot(d, x, y)) n++;
  return n;
}

describe('labels drawn with saved templates carry exactly what they configure', () => {
  let srv: TestServer;
  const call = client(() => srv);
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv?.stop();
  });

  async function save(name: string, body: object) {
    const res = await call('PUT', `${TEMPLATES}/${name}`, { body, headers: { 'If-None-Match': '*' } });
    expect(res.status, res.body.toString()).toBe(201);
    return res.json;
  }
  async function label(path: string, template: string): Promise<{ png: Buffer; dots: MonoBitmap }> {
    const res = await fetch(`${srv.url}${path}?template=${template}`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Accept: 'image/png, application/problem+json' } });
    const png = Buffer.from(await res.arrayBuffer());
    expect(res.status, png.toString()).toBe(200);
    return { png, dots: decodeMonoPng(png) };
  }
  const ASSET = '/v1/labelmaker/assets/000-001';
  const ITEM = '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';
  const oneMm = (stock: string) => Math.round(getStock(stock).dpi / 25.4);

  it('codes: exactly the symbologies asked for, carrying the right data', async () => {
    await save('only-barcode', { stock: 'brother-ql-62x29', codes: ['code128'], footer: '' });
    await save('only-datamatrix', { stock: 'brother-ql-62x29', codes: ['datamatrix'], footer: '' });
    await save('no-codes', { stock: 'brother-ql-62x29', codes: [], footer: '' });
    await save('qr-and-bars', { stock: 'brother-ql-62x29', codes: ['qr', 'code128'], footer: '' });
    const codesOf = async (t: string) => (await decodeBarcodes((await label(ASSET, t)).png)).map((c) => `${c.format}:${c.text}`).sort();
    expect(await codesOf('only-barcode')).toEqual(['Code128:000001']);
    expect(await codesOf('only-datamatrix')).toEqual(['DataMatrix:https://inventory.example.test/a/000-001']);
    expect(await codesOf('no-codes')).toEqual([]);
    expect(await codesOf('qr-and-bars')).toEqual(['Code128:000001', 'QRCode:https://inventory.example.test/a/000-001']);
    // An item label has no asset id: the barcode-only template draws no code on it.
    expect((await decodeBarcodes((await label(ITEM, 'only-barcode')).png)).length).toBe(0);
  });

  it('text lines: each configured field adds its line, and no field appears unasked', async () => {
    // No codes: the whole width is text, so bands of ink are text lines.
    const base = { stock: 'brother-ql-102x51', codes: [], footer: '', textPt: { min: 10, max: 14 } };
    await save('lines-1', { ...base, lines: [{ field: 'name' }] });
    await save('lines-2', { ...base, lines: [{ field: 'name' }, { field: 'path' }] });
    await save('lines-3', { ...base, lines: [{ field: 'name' }, { field: 'path' }, { field: 'description' }] });
    await save('lines-4', { ...base, lines: [{ field: 'name' }, { field: 'path' }, { field: 'description' }, { field: 'custom', text: 'Asset {assetId}' }] });
    await save('lines-0', { ...base, lines: [] });
    const bands = async (t: string, path = ITEM) => {
      const { dots } = await label(path, t);
      return inkBands(dots, 0, dots.width);
    };
    expect(await bands('lines-0')).toBe(0);
    expect(await bands('lines-1')).toBe(1);
    expect(await bands('lines-2')).toBe(2);
    expect(await bands('lines-3')).toBe(3);
    // {assetId} is empty on an item label: the custom line is left out there, and shows on the asset label.
    expect(await bands('lines-4')).toBe(3);
    expect(await bands('lines-4', ASSET)).toBe(4);
  });

  it('the 2D code sits on the side asked for; nothing is drawn in the outer 1 mm', async () => {
    await save('qr-left', { ...BASIC, codePosition: 'left' });
    await save('qr-right', { ...BASIC, codePosition: 'right' });
    for (const [t, side] of [['qr-left', 'left'], ['qr-right', 'right']] as const) {
      const { png, dots } = await label(ITEM, t);
      expect(inkInOuterMargin(dots, oneMm('brother-ql-62x29'))).toBe(0);
      expect((await decodeBarcodes(png)).map((c) => c.text)).toEqual([`https://inventory.example.test/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f`]);
      // The code is the only ink in a full-height column: it fills most rows of its third of the label.
      const third = Math.floor(dots.width / 3);
      const [x0, x1] = side === 'left' ? [0, third] : [dots.width - third, dots.width];
      let rows = 0;
      for (let y = 0; y < dots.height; y++) for (let x = x0; x < x1; x++) if (getDot(dots, x, y)) { rows++; break; }
      expect(rows, t).toBeGreaterThan(dots.height * 0.6);
    }
  });

  it('the logo prints as its 1-bit picture, bit for bit, in the corner opposite the code', async () => {
    const saved = await save('with-logo', { ...BASIC, logo: { image: squareLogo().toString('base64'), heightMm: 8 } });
    expect(saved.logo).toMatchObject({ heightMm: 8, width: 94, height: 94 });
    const logo = decodeMonoPng(Buffer.from(saved.logo.png, 'base64'));
    // The stored picture is clean 1-bit: black frame, white hole.
    expect(getDot(logo, 2, 2)).toBe(true);
    expect(getDot(logo, 47, 47)).toBe(false);
    const { png, dots } = await label(ITEM, 'with-logo');
    expect(inkInOuterMargin(dots, oneMm('brother-ql-62x29'))).toBe(0);
    expect((await decodeBarcodes(png)).length).toBe(1);
    // Find the logo in the label: every one of its dots where it is placed (top right, inside the margin).
    const at = findBitmap(dots, logo, { x0: Math.floor(dots.width / 2), y0: 0, x1: dots.width, y1: Math.floor(dots.height / 2) });
    expect(at).toBeDefined();
    expect(at!.x + logo.width).toBeLessThanOrEqual(dots.width - oneMm('brother-ql-62x29'));
    expect(at!.x).toBeGreaterThan(dots.width * 0.6);
  });

  it('a label the design leaves blank says so (label-empty); a label with something on it does not', async () => {
    await save('asset-barcode-only', { stock: 'brother-ql-62x29', lines: [], codes: ['code128'], footer: '' });
    const warnings = async (path: string) =>
      (await fetch(`${srv.url}${path}?template=asset-barcode-only`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Connection: 'close' } })).headers.get('label-warnings');
    // An item has no asset id: nothing of the design applies, and the PNG is blank.
    const item = await label(ITEM, 'asset-barcode-only');
    let ink = 0;
    for (let y = 0; y < item.dots.height; y++) for (let x = 0; x < item.dots.width; x++) ink += Number(getDot(item.dots, x, y));
    expect(ink).toBe(0);
    expect(await warnings(ITEM)).toBe('label-empty');
    expect(await warnings(ASSET)).toBeNull();
    // The default asset label on 62 x 29 mm leaves its barcode out by the design's rule: no warning either.
    const standard = await fetch(`${srv.url}${ASSET}?template=brother-ql-62x29`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Connection: 'close' } });
    expect(standard.status).toBe(200);
    expect(standard.headers.get('label-warnings')).toBeNull();
  });

  it('red: a line and the codes marked red print red on the red/black roll (palette PNG, measured per ink) and black elsewhere with red-as-black', async () => {
    const design = { lines: [{ field: 'name', colour: 'red' }, { field: 'path', colour: 'black' }], codes: ['qr'], codeColour: 'red', footer: '' };
    const saved = await save('red-roll', { stock: 'brother-dk-22251', ...design });
    expect(schemaErrors(templateSchema, saved)).toBeUndefined();
    expect([saved.codeColour, saved.lines[0].colour]).toEqual(['red', 'red']);
    // A template saved without colours shows its codes black.
    expect((await save('no-colours', BASIC)).codeColour).toBe('black');
    await save('red-on-black-roll', { stock: 'brother-ql-62', ...design });
    const get = (t: string) => fetch(`${srv.url}${ITEM}?template=${t}`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Connection: 'close' } });
    const red = await get('red-roll');
    expect(red.headers.get('label-warnings')).toBeNull();
    const png = Buffer.from(await red.arrayBuffer());
    expect([png[24], png[25]]).toEqual([2, 3]); // 2-bit palette
    const planes = decodeBlackRedPng(png);
    const count = (b: MonoBitmap) => b.bits.reduce((n, v) => n + (v.toString(2).match(/1/g) ?? []).length, 0);
    expect(count(planes.red!)).toBeGreaterThan(2 * count(planes.black)); // name and QR code red, the path black
    expect(count(planes.black)).toBeGreaterThan(300);
    expect((await decodeBarcodes(png)).map((c) => c.text)).toEqual(['https://inventory.example.test/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f']);
    const black = await get('red-on-black-roll');
    expect(black.headers.get('label-warnings')).toBe('red-as-black');
    const blackPng = Buffer.from(await black.arrayBuffer());
    expect([blackPng[24], blackPng[25]]).toEqual([1, 0]); // 1-bit gray
    // The same dots, all black.
    expect(decodeMonoPng(blackPng).bits.equals(decodeMonoPng(png).bits)).toBe(true);
  });

  it('a custom line with an unknown placeholder is refused (422 naming the line and the placeholder), not printed literally', async () => {
    const typo = await call('PUT', `${TEMPLATES}/typo`, { body: { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'Owner {nmae} {kind}' }] }, headers: { 'If-None-Match': '*' } });
    expect(typo.status).toBe(422);
    expect(typo.json.detail).toMatch(/^\/lines\/1\/text: unknown placeholder \{nmae\} \(placeholders: \{name\}, /);
    const preview = await call('POST', '/v1/labelmaker/template-previews', { body: { design: { stock: 'brother-ql-62x29', lines: [{ field: 'custom', text: '{url}' }] }, record: { kind: 'item', id: 'tape-measure' } } });
    expect(preview.status).toBe(422);
    expect(preview.json.detail).toMatch(/^\/design\/lines\/0\/text: unknown placeholder \{url\}/);
    expect((await call('GET', `${TEMPLATES}/typo`)).status).toBe(404);
    // Every documented placeholder is accepted.
    await save('all-placeholders', { stock: 'brother-ql-102x51', lines: [{ field: 'custom', text: '{name} {assetId} {path} {id} {kind} {description}' }] });
  });

  it('a template that cannot fit its stock is refused at PUT with a 422 naming the field', async () => {
    const tooBig = await call('PUT', `${TEMPLATES}/huge-text`, { body: { stock: 'brother-ql-17x54', textPt: { min: 40, max: 60 } }, headers: { 'If-None-Match': '*' } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.json.detail).toMatch(/^\/textPt\/min: text of at least 40 pt does not fit brother-ql-17x54/);
    const logoAndCode = await call('PUT', `${TEMPLATES}/crowded`, {
      body: { stock: 'brother-ql-62x29', codes: ['qr'], logo: { image: squareLogo().toString('base64'), heightMm: 22 } },
      headers: { 'If-None-Match': '*' },
    });
    expect(logoAndCode.status).toBe(422);
    expect(logoAndCode.json.detail).toMatch(/^\/logo\/heightMm: /);
    const minOverMax = await call('PUT', `${TEMPLATES}/upside-down`, { body: { stock: 'brother-ql-62x29', textPt: { min: 20, max: 10 } }, headers: { 'If-None-Match': '*' } });
    expect(minOverMax.json.detail).toMatch(/^\/textPt\/min: /);
    const unknownStock = await call('PUT', `${TEMPLATES}/no-stock`, { body: { stock: 'avery-5160' }, headers: { 'If-None-Match': '*' } });
    expect(unknownStock.status).toBe(422);
    expect(unknownStock.json.detail).toMatch(/^\/stock: /);
    const textOnName = await call('PUT', `${TEMPLATES}/bad-line`, { body: { stock: 'brother-ql-62x29', lines: [{ field: 'name', text: 'x' }] }, headers: { 'If-None-Match': '*' } });
    expect(textOnName.json.detail).toMatch(/^\/lines\/0\/text: /);
    // Nothing of these was saved.
    expect((await call('GET', TEMPLATES)).json.templates.map((t: { name: string }) => t.name)).not.toContain('huge-text');
  });

  it('a label whose record cannot fit at render time is a clear problem, never an overflowing label', async () => {
    await save('tiny-dm', { stock: 'brother-ql-17x54', codes: ['datamatrix'] });
    const id = 'Garage-Shelf-3.Bin-12.Drawer-4.Left-Tray.M3-Screws-and-Nuts.2026';
    await srv.store.records.upsertMany([{ kind: 'item', id, name: 'Screws', description: '', parentId: null, assetId: null }]);
    const res = await call('GET', `/v1/labelmaker/item/${id}?template=tiny-dm`, { headers: { Accept: 'image/png, application/problem+json' } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toMatch(/does not fit brother-ql-17x54/);
  });

  it('previewLabelTemplate draws the label a save would, bit for bit, and saves nothing', async () => {
    const preview = (body: object, token = srv.tokens.read) => call('POST', '/v1/labelmaker/template-previews', { body, token, headers: { Accept: 'image/png, application/problem+json' } });
    const design = { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'Asset {assetId} · {kind}' }], codes: ['qr', 'code128'], codePosition: 'right', textPt: { min: 8, max: 24 }, footer: 'Call 555 0100', logo: { image: squareLogo().toString('base64'), heightMm: 6 } };
    const before = (await call('GET', TEMPLATES)).json.templates.length;
    // A labels:read token may preview; the answer is never cached.
    const shown = await preview({ design, record: { kind: 'asset', id: '000-001' } });
    expect(shown.status, shown.body.toString()).toBe(200);
    expect(shown.headers.get('content-type')).toBe('image/png');
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.headers.get('etag')).toBeNull();
    expect((await call('GET', TEMPLATES)).json.templates.length).toBe(before);
    // Saved, the same design draws the same bytes.
    await save('previewed', design);
    expect(shown.body.equals((await label(ASSET, 'previewed')).png)).toBe(true);
    expect((await decodeBarcodes(shown.body)).map((c) => `${c.format}:${c.text}`).sort()).toEqual(['Code128:000001', 'QRCode:https://inventory.example.test/a/000-001']);
    // The design is checked as a save checks it, its pointer under /design.
    const upsideDown = await preview({ design: { ...design, textPt: { min: 30, max: 10 } }, record: { kind: 'asset', id: '000-001' } });
    expect(upsideDown.status).toBe(422);
    expect(upsideDown.json.detail).toMatch(/^\/design\/textPt\/min: /);
    const notAnImage = await preview({ design: { ...design, logo: { image: Buffer.from('GIF89a not a logo').toString('base64'), heightMm: 6 } }, record: { kind: 'asset', id: '000-001' } });
    expect(notAnImage.status).toBe(422);
    expect(notAnImage.json.detail).toMatch(/^\/design\/logo\/image: /);
    // The record as the label operations find it.
    const missing = await preview({ design, record: { kind: 'item', id: 'no-such-item' } });
    expect(missing.status).toBe(404);
    expect(missing.json.detail).toBe('No item has the id no-such-item.');
    // A token of another kind of work may not.
    expect((await preview({ design, record: { kind: 'asset', id: '000-001' } }, srv.tokens.printOnly)).status).toBe(403);
  });

  it('hostile input: a huge logo, an SVG with external references (nothing fetched), invalid base64, a huge body', async () => {
    let fetched = 0;
    const trap = createServer((_req, res) => {
      fetched++;
      res.end('<svg/>');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    const port = (trap.address() as AddressInfo).port;
    try {
      const svgs = [
        `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10"><image xlink:href="http://127.0.0.1:${port}/x.png" width="10" height="10"/></svg>`,
        `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="file:///etc/passwd" width="10" height="10"/></svg>`,
        `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "http://127.0.0.1:${port}/e">]><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&x;</text></svg>`,
        `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><style>@import url(http://127.0.0.1:${port}/s.css);</style></svg>`,
        `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect fill="url(http://127.0.0.1:${port}/p#a)" width="5" height="5"/></svg>`,
      ];
      for (const svg of svgs) {
        const res = await call('PUT', `${TEMPLATES}/svg-trap`, { body: { ...BASIC, logo: { image: Buffer.from(svg).toString('base64'), heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
        expect(res.status, svg).toBe(422);
        expect(res.json.detail).toMatch(/^\/logo\/image: the SVG contains/);
      }
      expect(fetched).toBe(0);
    } finally {
      trap.close();
    }
    // A PNG that claims 20000 x 20000 pixels is refused before it is decoded.
    const bomb = squareLogo();
    bomb.writeUInt32BE(20_000, 16);
    bomb.writeUInt32BE(20_000, 20);
    bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)), 29); // a well-formed header: only its size is wrong
    const big = await call('PUT', `${TEMPLATES}/bomb`, { body: { ...BASIC, logo: { image: bomb.toString('base64'), heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(big.status).toBe(422);
    expect(big.json.detail).toMatch(/^\/logo\/image: the PNG is 20000 x 20000 pixels/);
    // Not an image; not base64 (schema: 400 naming the field); base64 with broken padding.
    const junk = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, logo: { image: Buffer.from('hello world').toString('base64'), heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(junk.json.detail).toBe('/logo/image: not a PNG or SVG image.');
    const notBase64 = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, logo: { image: '***not base64***', heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(notBase64.status).toBe(400);
    expect(notBase64.json.detail).toMatch(/^body \/logo\/image: /);
    const badPadding = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, logo: { image: 'iVBORw0KGgo=A', heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(badPadding.status).toBe(400);
    const cutShort = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, logo: { image: 'iVBORw0KGgoAAAANSUhEUgAAAA', heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(cutShort.status).toBe(400);
    expect(cutShort.json.detail).toMatch(/^body \/logo\/image: /);
    // Valid base64 of a PNG cut off after its header: it cannot be read.
    const truncated = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, logo: { image: squareLogo().subarray(0, 48).toString('base64'), heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(truncated.status).toBe(422);
    expect(truncated.json.detail).toMatch(/^\/logo\/image: the PNG is truncated in its \w{4} chunk/);
    // A body over 600 KiB: 413 before it is read whole.
    const huge = await call('PUT', `${TEMPLATES}/huge`, { body: { ...BASIC, logo: { image: 'A'.repeat(700 * 1024), heightMm: 5 } }, headers: { 'If-None-Match': '*' } });
    expect(huge.status).toBe(413);
    // Not JSON; not application/json; an unknown member.
    expect((await call('PUT', `${TEMPLATES}/junk`, { body: '{"stock":', headers: { 'If-None-Match': '*' } })).json.detail).toBe('The request body is not valid JSON.');
    expect((await call('PUT', `${TEMPLATES}/junk`, { body: 'stock=x', headers: { 'If-None-Match': '*', 'Content-Type': 'application/x-www-form-urlencoded' } })).status).toBe(415);
    const extra = await call('PUT', `${TEMPLATES}/junk`, { body: { ...BASIC, colour: 'red' }, headers: { 'If-None-Match': '*' } });
    expect(extra.status).toBe(400);
    expect(extra.json.detail).toMatch(/^body \/: must NOT have additional properties/);
    expect((await call('GET', `${TEMPLATES}/junk`)).status).toBe(404);
  });
});

/** Where the picture appears in the label with every dot equal, searching the box. */
function findBitmap(d: MonoBitmap, b: MonoBitmap, box: { x0: number; y0: number; x1: number; y1: number }): { x: number; y: number } | undefined {
  for (let y = box.y0; y + b.height <= Math.min(d.height, box.y1 + b.height); y++) {
    for (let x = box.x0; x + b.width <= Math.min(d.width, box.x1 + b.width); x++) {
      let same = true;
      for (let v = 0; v < b.height && same; v++) for (let u = 0; u < b.width && same; u++) same = getDot(d, x + u, y + v) === getDot(b, u, v);
      if (same) return { x, y };
    }
  }
  return undefined;
}

describe('a store that refuses writes', () => {
  let srv: TestServer;
  let schema: TestSchema;
  let role: FaultRole;
  const call = client(() => srv);
  beforeAll(async () => {
    schema = await createTestSchema();
    // Migrated by the owner first, then served by a role whose writes the test takes away.
    const owner = await startTestServer({ DATABASE_URL: schema.url });
    role = await createFaultRole(schema);
    await owner.stop();
    srv = await startTestServer({ DATABASE_URL: role.url });
  });
  afterAll(async () => {
    await srv?.stop();
    await role?.drop();
    await schema?.drop();
  });

  it('answers template writes with a 503 (Retry-After) while reads and labels keep working', async () => {
    const created = await call('PUT', `${TEMPLATES}/kept`, { body: BASIC, headers: { 'If-None-Match': '*' } });
    expect(created.status).toBe(201);
    await role.setReadOnly(true);
    try {
      const refused = await call('PUT', `${TEMPLATES}/refused`, { body: BASIC, headers: { 'If-None-Match': '*' } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      const deleted = await call('DELETE', `${TEMPLATES}/kept`, { headers: { 'If-Match': created.headers.get('etag')! } });
      expect(deleted.status).toBe(503);
      expect((await call('GET', `${TEMPLATES}/kept`)).status).toBe(200);
      const label = await fetch(`${srv.url}/v1/labelmaker/location/shelf-3?template=kept`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } });
      expect(label.status).toBe(200);
    } finally {
      await role.setReadOnly(false);
    }
  });
});
