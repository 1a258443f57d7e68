/**
 * The element designer opens designs of text lines (issue 34: one designer for every design).
 * From the client's side of the wire, on every stock the server lists: a line design saved
 * through the API is turned into elements in rows and columns by the studio's own function
 * (studio/src/lines-to-elements.ts), saved back as an element design, and both are drawn for
 * the same record: the converted design is accepted with its scan check passed, each text
 * element has ink in its cell and nothing is drawn outside the cells, and its code carries
 * what the line design's carries.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeInGrid } from '../../src/labels/grid.js';
import { decodeMonoPng, getDot } from '../../src/labels/mono-png.js';
import { elementsFromLines } from '../../studio/src/lines-to-elements.js';
import { gridAreaOf } from '../../studio/src/stocks.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { problemErrors } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const TEMPLATES = '/v1/labelmaker/templates';
let srv: TestServer;
let stocks: Json[] = [];

async function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Accept: 'application/json, image/png, application/problem+json', Authorization: `Bearer ${srv.tokens.editor}`, ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(srv.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const json = /json/.test(type) && body.length ? JSON.parse(body.toString('utf8')) : undefined;
  if (/problem\+json/.test(type)) expect(problemErrors(json), body.toString()).toBeUndefined();
  return { status: res.status, json, body };
}

beforeAll(async () => {
  srv = await startTestServer();
  stocks = (await call('GET', '/v1/labelmaker/stocks')).json.stocks;
}, 240_000);
afterAll(() => srv?.close());

describe('a design of text lines opened in the element designer', () => {
  it('lists every stock to convert on', () => expect(stocks.length).toBeGreaterThanOrEqual(26));

  it('converts, saves and draws on every stock: text in its cells, nothing outside them, the same code', async () => {
    const failures: string[] = [];
    const smallest: string[] = [];
    for (const stock of stocks) {
      const lineDesign = { stock: stock.name, lines: [{ field: 'name' }, { field: 'path' }, { field: 'custom', text: 'No. {id}' }], codes: ['qr'], footer: '' };
      const name = `lines-${stock.name.replaceAll('.', '-')}`.slice(0, 60);
      const saved = await call('PUT', `${TEMPLATES}/${name}`, { headers: { 'If-None-Match': '*' }, body: lineDesign });
      expect(saved.status, saved.body.toString()).toBe(201);
      const area = gridAreaOf(stock, stock.name)!;
      const { notes, ...converted } = elementsFromLines(saved.json, area);
      if (converted.elements.some((e) => e.type === 'code' && e.symbology === 'datamatrix')) expect(notes.join(' '), stock.name).toMatch(/Its QR code is a DataMatrix here/);
      const asElements = await call('PUT', `${TEMPLATES}/${name}-el`, { headers: { 'If-None-Match': '*' }, body: { ...converted, footer: '' } });
      if (asElements.status !== 201) {
        failures.push(`${stock.name}: ${asElements.status} ${asElements.json?.detail}`);
        continue;
      }
      // Where the line design's own code does not survive the damages (the 17 mm tapes), the elements' need not either.
      // On the two smallest square labels the line layout borrows the unprinted paper for its code's quiet zone,
      // which an element's box does not: the DataMatrix there is saved, with the scan check's reason to show.
      if (!asElements.json.scanCheck.passed && saved.json.scanCheck.passed) {
        expect(asElements.json.scanCheck.codes[0].reason, stock.name).toMatch(/^not read after .*: give it a larger box/);
        smallest.push(stock.name);
      }

      const [before, after] = [await call('GET', `/v1/labelmaker/item/tape-measure?template=${name}`), await call('GET', `/v1/labelmaker/item/tape-measure?template=${name}-el`)];
      if (process.env.LABELS_OUT) for (const [which, r] of [['lines', before], ['elements', after]] as const) writeFileSync(join(process.env.LABELS_OUT, `${stock.name}-${which}.png`), r.body);
      expect([before.status, after.status], `${stock.name}: ${after.body.toString().slice(0, 300)}`).toEqual([200, 200]);
      // The code carries the same thing (the record's URL) before and after.
      const read = async (png: Buffer) => (await decodeBarcodes(png, { formats: ['QRCode', 'DataMatrix'] })).map((c) => c.text);
      const url = await read(before.body);
      expect(url, stock.name).toEqual([expect.stringMatching(/tape-measure$/)]);
      expect(await read(after.body), stock.name).toEqual(url);

      // Ink in each text cell, none outside the cells. On a stock designed turned the PNG is the design
      // turned a quarter clockwise: the design's dot (x, y) is the PNG's (widthDots - 1 - y, x).
      const bm = decodeMonoPng(after.body);
      const dpmm = stock.dpi / 25.4;
      const boxes = placeInGrid(converted.elements, converted.grid, area).map((e) => e.box);
      const within = (b: { x: number; y: number; width: number; height: number }, x: number, y: number) =>
        x >= Math.floor(b.x * dpmm) - 1 && x <= Math.ceil((b.x + b.width) * dpmm) + 1 && y >= Math.floor(b.y * dpmm) - 1 && y <= Math.ceil((b.y + b.height) * dpmm) + 1;
      const inked = boxes.map(() => 0);
      let outside = 0;
      for (let py = 0; py < bm.height; py++)
        for (let px = 0; px < bm.width; px++) {
          if (!getDot(bm, px, py)) continue;
          const [x, y] = stock.designTurned ? [py, bm.width - 1 - px] : [px, py];
          const i = boxes.findIndex((b) => within(b, x, y));
          if (i < 0) outside++;
          else inked[i]!++;
        }
      if (outside) failures.push(`${stock.name}: ${outside} dots outside the cells`);
      converted.elements.forEach((e, i) => {
        if (e.type === 'text') expect(inked[i], `${stock.name}: ${e.text}`).toBeGreaterThan(20);
      });
    }
    expect(failures.join('\n')).toBe('');
    expect(smallest).toEqual(['brother-ql-23x23', 'dymo-30332']);
  }, 240_000);
});
