/**
 * listStocks over HTTP on the real server: every stock of the engine's table as the spec
 * shows it, cacheable per release (ETag, Cache-Control, 304), and the spec's example (what
 * the mock answers) the same as the server's answer for the stocks it shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockBody } from '../../src/api/stock-handlers.js';
import { getStock, STOCKS } from '../../src/labels/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { documentedResponse, headerErrors, schemaErrors, type Json } from '../helpers/spec.js';

const PATH = '/v1/labelmaker/stocks';
type StockList = { stocks: Json[] };

let srv: TestServer;
let other: TestServer;
beforeAll(async () => {
  [srv, other] = await Promise.all([startTestServer(), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([srv?.stop(), other?.stop()]);
});

const get = (server: TestServer, headers: Record<string, string> = {}, token: string | null = server.tokens.read, method = 'GET') =>
  fetch(server.url + PATH, { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } });

describe('listStocks', () => {
  it('lists every stock of the table, in its order, as the spec shows a stock', async () => {
    const res = await get(srv);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as StockList;
    const doc = documentedResponse('listStocks', 200);
    expect(schemaErrors(doc.content['application/json'].schema, body)).toBeUndefined();
    expect(body.stocks.map((s) => s.name)).toEqual(STOCKS.map((s) => s.name));
    for (const [name, value] of Object.entries<Json>(doc.headers)) {
      if (name === 'Access-Control-Allow-Origin') continue;
      expect(headerErrors(value, res.headers.get(name) ?? ''), name).toBeUndefined();
    }
  });

  it('gives each stock its size, dpi, printable area and unprinted edge, part numbers, kind and colours', async () => {
    const { stocks } = (await (await get(srv)).json()) as StockList;
    const byName = new Map(stocks.map((s) => [s.name, s]));
    // Brother QL 62 x 29: 696 x 271 dots at 300 dpi, 1.5 mm of paper each side across, 3 mm along.
    expect(byName.get('brother-ql-62x29')).toEqual({
      name: 'brother-ql-62x29',
      title: 'Brother QL 62 × 29 mm die-cut (DK-11209)',
      partNumbers: ['brother-dk-11209'],
      kind: 'die-cut',
      widthMm: 62,
      lengthMm: 29,
      dpi: 300,
      printable: { widthDots: 696, lengthDots: 271, minLengthDots: 271, maxLengthDots: 271, widthMm: 58.9, lengthMm: 22.9, edgeMm: { across: 1.5, along: 3 } },
      designTurned: false,
      colours: ['black'],
    });
    // Narrow labels are designed along their length (the PNG is the design turned: template-elements.test.ts measures it).
    expect(stocks.filter((s) => s.designTurned).map((s) => s.name).sort()).toEqual(
      ['brother-ql-17x54', 'brother-ql-17x87', 'brother-ql-29', 'brother-ql-29x90', 'brother-ql-38x90', 'dymo-30252', 'dymo-30332', 'dymo-30336', 'dymo-99012'],
    );
    // Continuous tape: no length, a length range, no paper along the feed.
    expect(byName.get('brother-ql-29')).toMatchObject({ kind: 'continuous', lengthMm: null, printable: { lengthDots: null, minLengthDots: 991, maxLengthDots: 2000, lengthMm: null, edgeMm: { along: 0 } } });
    // Zebra: the PNG is the whole label; 203 dpi.
    expect(byName.get('zebra-4x6-203dpi')).toMatchObject({ dpi: 203, printable: { widthDots: 812, lengthDots: 1218, edgeMm: { across: 0, along: 0 } } });
    // Every part number is a template name of the same stock, and every stock prints black.
    for (const s of stocks) {
      for (const part of s.partNumbers) expect(getStock(part).name).toBe(s.name);
      expect(s.colours[0]).toBe('black');
      expect(Math.abs(s.printable.widthMm - (s.printable.widthDots / s.dpi) * 25.4), s.name).toBeLessThanOrEqual(0.05 + 1e-9);
      expect(s.printable.widthMm + 2 * s.printable.edgeMm.across).toBeLessThanOrEqual(s.widthMm + 0.1);
    }
  });

  it('says red on a stock that prints red', () => {
    expect(stockBody(getStock('brother-ql-62-red')).colours).toEqual(['black', 'red']);
    expect(stockBody(getStock('brother-ql-62')).colours).toEqual(['black']);
  });

  it('is cacheable for an hour, with one ETag per release: If-None-Match gives a 304', async () => {
    const first = await get(srv);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, max-age=3600');
    // Another instance of the same release: the same ETag.
    expect((await get(other)).headers.get('etag')).toBe(etag);
    const again = await get(srv, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, max-age=3600');
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await get(srv, { 'If-None-Match': `W/${etag}, "other"` })).status).toBe(304);
    expect((await get(srv, { 'If-None-Match': '"stale"' })).status).toBe(200);
    // HEAD answers as GET without the body.
    const head = await get(srv, {}, srv.tokens.read, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
  });

  it('needs labels:read: 401 without a token, 403 for a print-only token', async () => {
    expect((await get(srv, {}, null)).status).toBe(401);
    const refused = await get(srv, {}, srv.tokens.printOnly);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { type: string }).type).toBe('/problems/insufficient-scope');
  });

  it("the spec's example (the mock's answer) is the server's answer for the stocks it shows", async () => {
    const { stocks } = (await (await get(srv)).json()) as StockList;
    const example = documentedResponse('listStocks', 200).content['application/json'].example as StockList;
    expect(example.stocks.length).toBeGreaterThan(0);
    for (const s of example.stocks) expect(s).toEqual(stocks.find((x) => x.name === s.name));
  });
});
