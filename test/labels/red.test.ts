/**
 * The red/black roll (brother-ql-62-red, DK-22251): designs that mark lines and codes red are
 * drawn as a black and a red plane, into a white/black/red palette PNG; on every other stock
 * the same marks are drawn black with the warning 'red-as-black'. Red ink is measured per
 * plane, and the two planes together are exactly the label the black-only 62 mm roll gets.
 */
import { describe, expect, it } from 'vitest';
import { builtInTemplate, getStock, renderLabel, sameDesignForEveryKind, type LabelDesign, type Template } from '../../src/labels/index.js';
import { decodeBlackRedPng, decodeMonoPng, getDot, type MonoBitmap } from '../../src/labels/mono-png.js';
import { BLACK_RED_PALETTE } from '../../src/labels/png.js';
import { printsRed, STOCKS } from '../../src/labels/stock.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { layoutFor, paint, rasterize } from '../../src/labels/render.js';
import { inkBox } from './ink.js';
import { packRows } from './reference-pack.js';
import { ASSET, ITEM } from './samples.js';

const BLACK_DESIGN: LabelDesign = {
  text: [
    { role: 'title', source: { field: 'name' } },
    { role: 'line', source: { field: 'path' } },
  ],
  codes: [{ symbology: 'stock-2d', data: '{url}' }, { symbology: 'code128', data: '{assetDigits}', caption: '{assetId}' }],
  textPt: { min: 7, max: 36 },
};
/** The title red, and (codes: true) the codes too. */
function redDesign(codes: boolean): LabelDesign {
  return {
    ...BLACK_DESIGN,
    text: [{ ...BLACK_DESIGN.text[0]!, colour: 'red' }, BLACK_DESIGN.text[1]!],
    codes: codes ? BLACK_DESIGN.codes.map((c) => ({ ...c, colour: 'red' as const })) : BLACK_DESIGN.codes,
  };
}
const on = (stock: string, design: LabelDesign): Template => ({ name: 't', stock: getStock(stock), designs: sameDesignForEveryKind(design) });

function count(b: MonoBitmap): number {
  let n = 0;
  for (let y = 0; y < b.height; y++) for (let x = 0; x < b.width; x++) if (getDot(b, x, y)) n++;
  return n;
}
function union(a: MonoBitmap, b: MonoBitmap): MonoBitmap {
  return { ...a, bits: Buffer.from(a.bits.map((v, i) => v | b.bits[i]!)) };
}
function overlap(a: MonoBitmap, b: MonoBitmap): number {
  return a.bits.reduce((n, v, i) => n + (v & b.bits[i]! ? 1 : 0), 0);
}

describe('the red/black stock', () => {
  it('is one stock, 62 mm continuous like DK-22205, named after DK-22251, the only one that prints red', () => {
    const red = STOCKS.filter(printsRed);
    expect(red.map((s) => [s.name, s.aliases, s.colours])).toEqual([['brother-ql-62-red', ['brother-dk-22251'], ['black', 'red']]]);
    const plain = getStock('brother-ql-62');
    expect(plain.colours).toEqual(['black']);
    for (const k of ['widthMm', 'lengthMm', 'dpi', 'widthDots', 'lengthDots', 'minLengthDots', 'maxLengthDots', 'brotherQl'] as const) expect(red[0]![k]).toEqual(plain[k]);
  });
});

describe('red marks', () => {
  it('on the red/black roll: a 2-bit palette PNG (white, black, red); the title and codes red, the path black, none in both', () => {
    const r = renderLabel(ASSET, on('brother-ql-62-red', redDesign(true)));
    expect(r.warnings).toEqual([]);
    expect(readPngHeader(r.png)).toMatchObject({ bitDepth: 2, colorType: 3 });
    expect(r.png.includes(Buffer.concat([Buffer.from('PLTE'), Buffer.from(BLACK_RED_PALETTE)]))).toBe(true);
    const { black, red } = decodeBlackRedPng(r.png);
    expect(red).not.toBeNull();
    const [b, rd] = [count(black), count(red!)];
    // Measured: title, QR code, Code 128 and its caption red; the path alone black.
    expect(rd).toBeGreaterThan(5 * b);
    expect(b).toBeGreaterThan(500);
    expect(overlap(black, red!)).toBe(0);
    // The path is the only black: under the title, beside the QR code.
    const box = inkBox(black)!;
    const redBox = inkBox(red!)!;
    expect(box.y0).toBeGreaterThan(redBox.y0);
    expect(box.x0).toBeGreaterThan(200);
  });

  it('black and red together are, dot for dot, the label the black-only roll gets (layout is the same)', () => {
    for (const codes of [false, true]) {
      const r = renderLabel(ASSET, on('brother-ql-62-red', redDesign(codes)));
      const plain = renderLabel(ASSET, on('brother-ql-62', BLACK_DESIGN));
      const { black, red } = decodeBlackRedPng(r.png);
      const mono = decodeMonoPng(plain.png);
      expect([r.width, r.height]).toEqual([plain.width, plain.height]);
      expect(union(black, red!).bits.equals(mono.bits)).toBe(true);
      // Drivers without red (decodeMonoPng) see every mark, red as black.
      expect(decodeMonoPng(r.png).bits.equals(mono.bits)).toBe(true);
    }
  });

  it('only the title red: its ink is red, the codes stay black', () => {
    const r = renderLabel(ASSET, on('brother-ql-62-red', redDesign(false)));
    const { black, red } = decodeBlackRedPng(r.png);
    const title = inkBox(red!)!;
    // The title is one line of bold text: wide and short, right of the QR code.
    expect(title.x0).toBeGreaterThan(200);
    expect(title.y1 - title.y0).toBeLessThan(80);
    expect(count(red!)).toBeGreaterThan(1000);
    expect(count(black)).toBeGreaterThan(3 * count(red!)); // QR code, bars, path
  });

  it('each plane is the Cairo reference drawing of the whole label (red in #E00000), thresholded, where that plane has ink', () => {
    for (const codes of [false, true]) {
      const { layout } = layoutFor(ASSET, on('brother-ql-62-red', redDesign(codes)));
      const canvas = paint(layout);
      const raw = canvas.toBuffer('raw');
      // Together: thresholded as always (green < 128: red and black are both dark).
      const both = packRows(raw, layout.width, layout.height, false);
      const black = rasterize(layout, 'black');
      const red = rasterize(layout, 'red');
      expect(Buffer.from(black.map((v, i) => v & red[i]!)).equals(both)).toBe(true);
      // Red only where the reference is red: its red channel high (raw is BGRA).
      const rgba = canvas.getContext('2d').getImageData(0, 0, layout.width, layout.height).data;
      const stride = ((layout.width + 7) >> 3) + 1;
      let redDots = 0;
      for (let y = 0; y < layout.height; y++) {
        for (let x = 0; x < layout.width; x++) {
          const inRed = (red[y * stride + 1 + (x >> 3)]! & (0x80 >> (x & 7))) === 0;
          const p = (y * layout.width + x) * 4;
          if (inRed) {
            redDots++;
            expect(rgba[p]! >= 128 && rgba[p + 1]! < 128, `(${x}, ${y})`).toBe(true);
          }
        }
      }
      expect(redDots).toBeGreaterThan(1000);
    }
  });

  it('a camera reads red codes (the PNG as a colour picture)', async () => {
    const r = renderLabel(ASSET, on('brother-ql-62-red', redDesign(true)));
    const codes = await decodeBarcodes(r.png);
    expect(codes).toEqual(expect.arrayContaining([{ format: 'QRCode', text: ASSET.url }, { format: 'Code128', text: '000001' }]));
  });

  it('on a black-only stock: drawn black, byte for byte the design without red, warning red-as-black', () => {
    for (const stock of ['brother-ql-62', 'brother-ql-62x29', 'zebra-4x6-203dpi']) {
      const r = renderLabel(ITEM, on(stock, redDesign(true)));
      const black = renderLabel(ITEM, on(stock, BLACK_DESIGN));
      expect(r.warnings).toEqual(['red-as-black']);
      expect(black.warnings).toEqual([]);
      expect(readPngHeader(r.png)).toMatchObject({ bitDepth: 1, colorType: 0 });
      expect(r.png.equals(black.png)).toBe(true);
    }
  });

  it('a design without red on the red/black roll: 1-bit PNG, the same bytes as on DK-22205', () => {
    for (const record of [ASSET, ITEM]) {
      const red = renderLabel(record, builtInTemplate('brother-dk-22251')!);
      const plain = renderLabel(record, builtInTemplate('brother-ql-62')!);
      expect(readPngHeader(red.png)).toMatchObject({ bitDepth: 1, colorType: 0 });
      expect(red.png.equals(plain.png)).toBe(true);
      expect(decodeBlackRedPng(red.png).red).toBeNull();
    }
  });
});
