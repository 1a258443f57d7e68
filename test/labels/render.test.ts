import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import { CONTINUOUS_MAX_HEIGHT_PX, getPreset, PRESET_NAMES, renderLabel, type PresetName } from '../../src/labels/index.js';
import { layoutFor, measure, paint, rasterize } from '../../src/labels/render.js';
import { packRows } from './reference-pack.js';
import { ASCENT, DESCENT } from '../../src/labels/text.js';
import { qrBlockSide, QR_QUIET_MODULES } from '../../src/labels/qr.js';
import { code128BlockWidth, CODE128_QUIET_MODULES } from '../../src/labels/code128.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { BASIC, STRESS } from './samples.js';

/** Pixel size the printer expects; continuous tape only fixes the width. */
function expectStockSize(preset: PresetName, width: number, height: number): void {
  const p = getPreset(preset);
  expect(width).toBe(p.widthPx);
  if (p.heightPx === null) {
    expect(height).toBeGreaterThan(0);
    expect(height).toBeLessThanOrEqual(CONTINUOUS_MAX_HEIGHT_PX);
  } else expect(height).toBe(p.heightPx);
}

describe('renderLabel on every preset and kind', () => {
  for (const preset of PRESET_NAMES) {
    for (const content of BASIC) {
      it(`${preset} ${content.kind}: exact 1-bit PNG with readable codes`, async () => {
        const { png, width, height } = renderLabel(content, preset);
        expectStockSize(preset, width, height);
        const header = readPngHeader(png);
        expect(header).toEqual({ width, height, bitDepth: 1, colorType: 0 });

        const img = await Jimp.read(png);
        expect([img.bitmap.width, img.bitmap.height]).toEqual([width, height]);
        const data = img.bitmap.data;
        let black = 0;
        let gray = 0;
        for (let i = 0; i < data.length; i += 4) {
          const v = data[i]!;
          if (v === 0) black++;
          else if (v !== 255) gray++;
        }
        expect(gray).toBe(0);
        expect(black).toBeGreaterThan(0);

        const codes = await decodeBarcodes(png);
        expect(codes.filter((c) => c.format === 'QRCode').map((c) => c.text)).toEqual([content.qrUrl]);
        const bars = codes.filter((c) => c.format === 'Code128').map((c) => c.text);
        expect(bars).toEqual(content.kind === 'asset' ? [content.barcode] : []);
      });
    }
  }
});

describe('determinism', () => {
  it('renders the same record to byte-identical PNGs, also after other labels', () => {
    for (const preset of ['brother-ql-62x29', 'brother-ql-29x90', 'zebra-4x6-203dpi'] as const) {
      const first = renderLabel(BASIC[2]!, preset).png;
      renderLabel(STRESS[0]!.content, preset);
      renderLabel(BASIC[0]!, 'brother-ql-62');
      expect(renderLabel(BASIC[2]!, preset).png.equals(first)).toBe(true);
    }
  });
});

describe('long and non-Latin content stays within the stock', () => {
  for (const preset of PRESET_NAMES) {
    it(`${preset}: every text, QR and bar block lies inside the label, none overlap`, () => {
      for (const { name, content } of [...STRESS, ...BASIC.map((c) => ({ name: c.kind, content: c }))]) {
        const layout = layoutFor(content, preset);
        // ink: what is drawn; clear: ink plus the quiet zone nothing else may enter.
        type Box = { x0: number; y0: number; x1: number; y1: number };
        const items: { what: string; ink: Box; clear: Box }[] = [];
        for (const op of layout.ops) {
          if (op.kind === 'qr') {
            const s = qrBlockSide(op.matrix, op.module);
            const q = QR_QUIET_MODULES * op.module;
            const clear = { x0: op.x, y0: op.y, x1: op.x + s, y1: op.y + s };
            items.push({ what: 'qr', clear, ink: { x0: op.x + q, y0: op.y + q, x1: op.x + s - q, y1: op.y + s - q } });
          } else if (op.kind === 'bars') {
            const q = CODE128_QUIET_MODULES * op.module;
            const w = code128BlockWidth(op.pattern, op.module);
            const ink = { x0: op.x, y0: op.y, x1: op.x + w - 2 * q, y1: op.y + op.height };
            items.push({ what: 'bars', ink, clear: { ...ink, x0: op.x - q, x1: op.x - q + w } });
          } else {
            const size = Number(/(\d+)px/.exec(op.font)![1]);
            const w = measure(op.font, op.text);
            const x0 = op.align === 'left' ? op.x : op.align === 'right' ? op.x - w : op.x - w / 2;
            const ink = { x0, y0: op.y - ASCENT * size, x1: x0 + w, y1: op.y + DESCENT * size };
            items.push({ what: `text "${op.text}"`, ink, clear: ink });
          }
        }
        // Text lines may touch by the rounding of their baselines (1 px).
        const meets = (a: Box, b: Box, t: number) => a.x0 < b.x1 - t && b.x0 < a.x1 - t && a.y0 < b.y1 - t && b.y0 < a.y1 - t;
        for (const [i, a] of items.entries()) {
          const where = `${name}: ${a.what} at ${JSON.stringify(a.clear)} in ${layout.width}x${layout.height}`;
          expect(a.clear.x0, where).toBeGreaterThanOrEqual(0);
          expect(a.clear.y0, where).toBeGreaterThanOrEqual(0);
          expect(a.clear.x1, where).toBeLessThanOrEqual(layout.width);
          expect(a.clear.y1, where).toBeLessThanOrEqual(layout.height);
          for (const b of items.slice(i + 1)) {
            const t = a.what.startsWith('text') && b.what.startsWith('text') ? 1 : 0;
            const overlap = meets(a.ink, b.clear, t) || meets(a.clear, b.ink, t);
            expect(overlap, `${name} on ${preset}: ${a.what} overlaps ${b.what}`).toBe(false);
          }
        }
        const { width, height } = renderLabel(content, preset);
        expectStockSize(preset, width, height);
      }
    });
  }

  const small: PresetName[] = ['brother-ql-62x29', 'brother-ql-17x54', 'brother-ql-29x90', 'zebra-2x1-203dpi', 'homebox-526x200', 'brother-ql-62'];
  for (const preset of small) {
    it(`${preset}: codes still decode with long and non-Latin names`, async () => {
      for (const { name, content } of STRESS) {
        const codes = await decodeBarcodes(renderLabel(content, preset).png);
        expect(codes.find((c) => c.format === 'QRCode')?.text, name).toBe(content.qrUrl);
        if (content.kind === 'asset') expect(codes.find((c) => c.format === 'Code128')?.text, name).toBe(content.barcode);
      }
    });
  }

  it('continuous tape grows with the text but stops at its maximum', () => {
    const short = renderLabel(BASIC[1]!, 'brother-ql-62');
    const long = renderLabel(STRESS[0]!.content, 'brother-ql-62');
    expect(long.height).toBeGreaterThan(short.height);
    const huge = renderLabel({ ...BASIC[1]!, lines: Array.from({ length: 60 }, (_, i) => `Line ${i} `.repeat(20)) }, 'brother-ql-62');
    expect(huge.height).toBeLessThanOrEqual(CONTINUOUS_MAX_HEIGHT_PX);
  });
});

describe('1-bit rasterization', () => {
  it('sets the same pixels as Cairo drawing the whole label (codes included) and thresholding it', () => {
    for (const preset of PRESET_NAMES) {
      for (const content of [...BASIC, ...STRESS.map((s) => s.content)]) {
        const layout = layoutFor(content, preset);
        const fast = rasterize(layout);
        const cairo = packRows(paint(layout).toBuffer('raw'), layout.width, layout.height, layout.rotate90);
        expect(fast.equals(cairo), `${preset} ${content.title}`).toBe(true);
        expect(cairo.filter((b) => b !== 0 && b !== 0xff).length, 'not blank').toBeGreaterThan(100);
      }
    }
  });
});
