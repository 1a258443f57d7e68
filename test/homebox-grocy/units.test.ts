/**
 * The pieces behind the integrations, without a server: how Homebox's text
 * becomes a record, how a foreign PNG is fitted to the stock, form bodies, key
 * redaction and the key's scopes.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCanvas } from 'canvas';
import { checkTokenScopes, UsageError } from '../../src/commands.js';
import { formFieldReader, formFields, jsonFieldReader, type FieldReader } from '../../src/api/bodies.js';
import { grocyRecord, grocyTemplate, homeboxRecord } from '../../src/api/integration-handlers.js';
import { redactRequestTarget } from '../../src/api/redact.js';
import { builtInTemplate, getStock, LabelFitError, renderLabel, STOCKS } from '../../src/labels/index.js';
import { layoutFor } from '../../src/labels/render.js';
import { encodeCode128, encodeCode128Digits, SymbolError } from '../../src/labels/symbols.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { fitImageToStock, ImageError } from '../../src/labels/fit-image.js';
import { decodeMonoPng } from '../../src/labels/mono-png.js';
import { readPngHeader } from '../helpers/png.js';
import { inkBox } from '../labels/ink.js';

const BASE = 'https://homebox.example.com';

describe("Homebox's query → the record drawn", () => {
  it('an item with its location line: title, path, absolute URL kept', () => {
    expect(homeboxRecord({ TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: 'http://hb.local:3100/item/abc-1' }, BASE)).toEqual({
      kind: 'item', id: 'abc-1', name: 'Cordless drill', path: ['Garage'], url: 'http://hb.local:3100/item/abc-1', description: '',
    });
  });
  it("a location: Homebox's constant 'Homebox Location' is dropped; a relative URL gets the base", () => {
    expect(homeboxRecord({ TitleText: 'Shelf 3', DescriptionText: 'Homebox Location', URL: '/location/l-1' }, BASE)).toEqual({
      kind: 'location', id: 'l-1', name: 'Shelf 3', path: [], url: `${BASE}/location/l-1`, description: '',
    });
  });
  it("an asset: TitleText is the asset id, the item's name comes from DescriptionText", () => {
    const r = homeboxRecord({ TitleText: '000-012', DescriptionText: 'Cordless drill\nLocation: Garage', URL: '/a/000-012' }, BASE);
    expect(r).toMatchObject({ kind: 'asset', id: '000-012', assetId: 12, name: 'Cordless drill', path: ['Garage'], url: `${BASE}/a/000-012` });
  });
  it('no URL, or one that is not a URL: an item label that points at the base', () => {
    expect(homeboxRecord({ TitleText: 'Thing' }, BASE)).toMatchObject({ kind: 'item', name: 'Thing', url: BASE });
    expect(homeboxRecord({ TitleText: 'Thing', URL: 'http://[bad' }, BASE)).toMatchObject({ kind: 'item', name: 'Thing' });
  });
  it('control characters never reach the label', () => {
    expect(homeboxRecord({ TitleText: 'a\u0000b\r\nc', URL: '/item/x' }, BASE).name).toBe('a b c');
  });
});

describe("Grocy's payload → the record drawn", () => {
  it('the first of product, battery, chore, recipe is the title; the grocycode is the code; the due date a line', () => {
    expect(grocyRecord({ product: 'Milk', grocycode: 'grcy:p:1:2', due_date: 'DD: 2026-06-09' })).toMatchObject({ name: 'Milk', url: 'grcy:p:1:2', description: 'DD: 2026-06-09' });
    expect(grocyRecord({ battery: 'Smoke alarm', grocycode: 'grcy:b:4' })).toMatchObject({ name: 'Smoke alarm', url: 'grcy:b:4' });
    expect(grocyRecord({ grocycode: 'grcy:r:9' }).name).toBe('grcy:r:9');
  });
});

describe("Grocy's due date on the label", () => {
  const texts = (layout: ReturnType<typeof layoutFor>['layout']) => layout.items.flatMap((i) => (i.kind === 'text' ? [i.text] : []));
  /** The date drawn whole: on one line, or over consecutive lines (`DD:` / `2026-06-09`). */
  const drawsWhole = (lines: string[], date: string) => lines.some((_, i) => lines.slice(i).some((_, j) => lines.slice(i, i + j + 1).join(' ') === date));

  it('on every stock the due date is drawn whole (the date alone where the whole line cannot be), or the label warns due-date-cut; on 23 x 23, 30332 and 62 x 29 it is drawn', () => {
    const payload = { product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' };
    const cut: string[] = [];
    for (const stock of STOCKS) {
      const template = grocyTemplate(builtInTemplate(stock.name)!);
      let { layout } = layoutFor(grocyRecord(payload), template);
      // As printGrocyLabel does: the date without Grocy's prefix where the whole line was cut.
      if (layout.warnings.includes('due-date-cut')) ({ layout } = layoutFor(grocyRecord(payload, true), template));
      const lines = texts(layout);
      if (layout.warnings.includes('due-date-cut')) cut.push(stock.name);
      else expect(drawsWhole(lines, 'DD: 2026-06-09') || drawsWhole(lines, '2026-06-09'), `${stock.name}: ${lines.join(' | ')}`).toBe(true);
      expect(lines.join(' '), stock.name).toContain('Whole');
    }
    for (const name of ['brother-ql-23x23', 'dymo-30332', 'brother-ql-62x29']) expect(cut, name).not.toContain(name);
    console.log(`due date cut (warned) on: ${cut.join(', ') || 'none'}`);
  });

  it('on 23 mm square stock a chore name wraps between its words, not inside one', () => {
    const { layout } = layoutFor(grocyRecord({ chore: 'Descale the kettle', grocycode: 'grcy:c:3' }), grocyTemplate(builtInTemplate('brother-ql-23x23')!));
    const words = new Set(['Descale', 'the', 'kettle']);
    for (const line of texts(layout)) for (const w of line.replace('…', '').split(' ')) expect(words.has(w), `${line}`).toBe(true);
  });
});

describe("Grocy's grocycode as Code 128 (code=code128)", () => {
  it('printable ASCII in code sets A/B/C; digits give exactly the asset barcode\'s bars; anything else is refused', () => {
    for (const digits of ['000001', '12345', '999999999999']) expect(encodeCode128(digits, 'x')).toEqual(encodeCode128Digits(digits, 'x'));
    const g = encodeCode128('grcy:p:12:345', 'grcy:p:12:345');
    expect(g.widths.reduce((a, b) => a + b, 0)).toBe(g.modules);
    expect(g.widths.every((w) => Number.isInteger(w) && w >= 1 && w <= 4)).toBe(true);
    expect(g.modules).toBe(178);
    expect(() => encodeCode128('grcy:p:ä', '')).toThrow(SymbolError);
    expect(() => encodeCode128('', '')).toThrow(SymbolError);
  });

  it('on every stock: a label whose Code 128 decodes to the grocycode with its quiet zones inside the label, or a LabelFitError, never a cut-off code', async () => {
    const record = grocyRecord({ product: 'Whole milk', grocycode: 'grcy:p:12:6489c6b1a3e2f', due_date: 'DD: 2026-06-09' });
    const refused: string[] = [];
    for (const stock of STOCKS) {
      const template = grocyTemplate(builtInTemplate(stock.name)!, 'code128');
      let layout;
      try {
        ({ layout } = layoutFor(record, template, {}));
      } catch (err) {
        expect(err, stock.name).toBeInstanceOf(LabelFitError);
        expect((err as Error).message).toContain(stock.name);
        refused.push(stock.name);
        continue;
      }
      const bars = layout.items.find((i) => i.kind === 'bars');
      if (bars?.kind !== 'bars') throw new Error(`${stock.name}: no bars`);
      expect(layout.warnings, stock.name).not.toContain('code-omitted');
      const start = bars.bars === 'vertical' ? bars.x : bars.y;
      const runLen = bars.bars === 'vertical' ? layout.width : layout.height;
      expect(start - bars.symbol.quiet * bars.module, stock.name).toBeGreaterThanOrEqual(0);
      expect(start + (bars.symbol.modules + bars.symbol.quiet) * bars.module, stock.name).toBeLessThanOrEqual(runLen);
      const png = renderLabel(record, template).png;
      expect((await decodeBarcodes(png, { formats: ['Code128'] })).map((c) => c.text), stock.name).toEqual(['grcy:p:12:6489c6b1a3e2f']);
    }
    console.log(`grocycode as Code 128 refused (422) on: ${refused.join(', ')}`);
    expect(refused).toContain('brother-ql-23x23');
    expect(refused.length).toBeLessThan(STOCKS.length);
  });
});

describe('form bodies (application/x-www-form-urlencoded)', () => {
  it('fields as strings, the first of repeated names, PHP-style nested fields left out', () => {
    expect(formFields('product=Whole+milk&grocycode=grcy%3Ap%3A12&details%5Bid%5D=12&product=other&due_date=')).toEqual({ product: 'Whole milk', grocycode: 'grcy:p:12', due_date: '' });
  });
});

describe('reading only the wanted fields as a body streams (x-body-fields: declared)', () => {
  const FIELDS = new Set(['grocycode', 'product', 'due_date']);
  const read = (reader: FieldReader, text: string, piece: number) => {
    const bytes = Buffer.from(text, 'utf8');
    for (let at = 0; at < bytes.length; at += piece) reader.write(bytes.subarray(at, at + piece));
    return reader.end();
  };
  it('JSON: the same fields as JSON.parse, in pieces of any size, escapes and nesting included; malformed JSON is undefined', () => {
    const bodies = [
      { product: 'Crème "fraîche" \\ à \u2603 ☃ 🥛', grocycode: 'grcy:p:9', details: { product: 'no', grocycode: 'grcy:p:1', list: [1, { a: '}],"' }, 'x\\"'] } },
      { 'produ\"ct': 'escaped name', 'product': 'last', due_date: null, grocycode: 'grcy:p:2', product2: 'x', extra: ['product', { due_date: 'no' }] },
      { grocycode: 'grcy:p:3', due_date: { nested: ['a', 'b'] }, [`${'n'.repeat(300)}`]: 'long name' },
    ];
    for (const body of bodies) {
      const text = JSON.stringify(body, null, body === bodies[1] ? 2 : undefined);
      const want = Object.fromEntries(Object.entries(JSON.parse(text) as object).filter(([k]) => FIELDS.has(k)));
      for (const piece of [1, 2, 3, 5, 7, 64, 100_000]) expect(read(jsonFieldReader(FIELDS), text, piece), `${piece}: ${text}`).toEqual(want);
    }
    expect(read(jsonFieldReader(FIELDS), '["grcy:p:9"]', 3)).toEqual([]);
    for (const bad of ['{"grocycode": "grcy:p:9"', '{"grocycode": "grcy:p:9"} {}', '{"product": tru}', '"grcy:p:9"', '', '{"a": "x}', `{"a":${'['.repeat(100)}${']'.repeat(100)}}`, '{"a": [}']) {
      for (const piece of [1, 4, 1000]) expect(read(jsonFieldReader(FIELDS), bad, piece), `${piece}: ${bad}`).toBeUndefined();
    }
  });
  it('form fields: the first of each wanted name, in pieces of any size; other fields skipped', () => {
    const text = 'details%5Bproduct%5D=no&product=Cr%C3%A8me+fra%C3%AEche+%26+herbs&grocycode=grcy%3Ap%3A9&product=second&due_date=&x=' + 'y'.repeat(1000);
    for (const piece of [1, 2, 3, 9, 100_000]) expect(read(formFieldReader(FIELDS), text, piece)).toEqual({ product: 'Crème fraîche & herbs', grocycode: 'grcy:p:9', due_date: '' });
  });
});

describe('redaction of integration keys', () => {
  it('the key segment goes, well-formed or not; ordinary paths are untouched', () => {
    const key = `lm_abcdefgh_${'A'.repeat(43)}`;
    expect(redactRequestTarget(`/v1/integrations/homebox/${key}/labels/brother-ql-62x29?TitleText=x`)).toBe('/v1/integrations/homebox/***/labels/brother-ql-62x29?TitleText=x');
    expect(redactRequestTarget('/v1/integrations/grocy/typo-in-my-key/brother-ql-62x29')).toBe('/v1/integrations/grocy/***/brother-ql-62x29');
    expect(redactRequestTarget('/v1/labelmaker/item/abc?print=true')).toBe('/v1/labelmaker/item/abc?print=true');
  });
});

describe('integration key scopes', () => {
  it('a key holds integration scopes only; ordinary tokens never mix them in', () => {
    expect(() => checkTokenScopes(['integrations:render', 'integrations:print'])).not.toThrow();
    expect(() => checkTokenScopes(['labels:read', 'labels:print'])).not.toThrow();
    expect(() => checkTokenScopes(['integrations:print', 'labels:read'])).toThrow(UsageError);
  });
});

describe('fitting a foreign PNG to the stock', () => {
  const picture = (w: number, h: number) => {
    const c = createCanvas(w, h);
    const g = c.getContext('2d');
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    g.fillStyle = '#000';
    g.fillRect(0, 0, w, h / 2); // top half black: shows which way it was turned
    return c.toBuffer('image/png');
  };

  it("Homebox's 526 x 200 picture on 62 x 29 mm: scaled up to fill the width, 1-bit, never outside the stock", async () => {
    const stock = getStock('brother-ql-62x29');
    const f = await fitImageToStock(picture(526, 200), stock);
    const h = readPngHeader(f.png);
    expect([h.width, h.height, h.bitDepth, h.colorType]).toEqual([696, 271, 1, 0]);
    expect(f.rotated).toBe(false);
    const box = inkBox(decodeMonoPng(f.png))!;
    expect(box.x1 - box.x0).toBeGreaterThanOrEqual(695); // the full width
    expect(box.y1).toBeLessThanOrEqual(271);
  });

  it('a wide picture on tall narrow stock is turned a quarter clockwise (its top ends up on the right)', async () => {
    const stock = getStock('brother-ql-29x90');
    const f = await fitImageToStock(picture(600, 200), stock);
    expect(f.rotated).toBe(true);
    const dots = decodeMonoPng(f.png);
    expect([dots.width, dots.height]).toEqual([stock.widthDots, stock.lengthDots]);
    const right = inkBox(dots, Math.floor(dots.width / 2), 0, dots.width, dots.height);
    const left = inkBox(dots, 0, 0, Math.floor(dots.width / 2), dots.height);
    expect(right).toBeDefined();
    expect(left).toBeUndefined();
  });

  it('on continuous tape the length follows the picture, within the stock bounds', async () => {
    const stock = getStock('brother-ql-62');
    const f = await fitImageToStock(picture(400, 100), stock);
    expect(f.height).toBe(Math.max(stock.minLengthDots, 174));
    const long = await fitImageToStock(picture(100, 4000), stock);
    expect(long.height).toBeLessThanOrEqual(stock.maxLengthDots);
  });

  it('refuses what is not a PNG, and pictures over 20 megapixels before decoding them', async () => {
    await expect(fitImageToStock(Buffer.from('GIF89a............................'), getStock('brother-ql-62x29'))).rejects.toThrow(ImageError);
    const huge = Buffer.from(picture(10, 10));
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    huge.writeUInt32BE(crc32(huge.subarray(12, 29)), 29); // a well-formed IHDR that declares 10 gigapixels
    await expect(fitImageToStock(huge, getStock('brother-ql-62x29'))).rejects.toThrow(/megapixels/);
  });
});
