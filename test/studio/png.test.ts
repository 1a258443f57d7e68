/**
 * The studio's reading of a label's physical size from its PNG (studio/src/png.ts),
 * on PNGs made by the service's own encoder, and on PNGs without pHYs.
 */
import { describe, expect, it } from 'vitest';
import { encodePng1 } from '../../src/labels/png.js';
import { mm, pngSize } from '../../studio/src/png.js';

/** A blank 1-bit PNG: one filter byte plus the packed row, per row. */
function blank(width: number, height: number, dpi?: number): Uint8Array {
  const row = 1 + Math.ceil(width / 8);
  return new Uint8Array(encodePng1(Buffer.alloc(row * height, 0xff), width, height, dpi));
}

describe('pngSize', () => {
  it.each([
    [696, 271, 300, 58.9, 22.9],
    [406, 203, 203, 50.8, 25.4],
    [1200, 1800, 300, 101.6, 152.4],
  ])('%i x %i dots at %i dpi is %f x %f mm', (w, h, dpi, wMm, hMm) => {
    const size = pngSize(blank(w, h, dpi))!;
    expect(size).toEqual({ widthPx: w, heightPx: h, dpi });
    expect([mm(size.widthPx, size.dpi!), mm(size.heightPx, size.dpi!)]).toEqual([wMm, hMm]);
  });

  it('has no dpi without pHYs, and refuses what is not a PNG', () => {
    expect(pngSize(blank(10, 5))).toEqual({ widthPx: 10, heightPx: 5, dpi: null });
    expect(pngSize(new TextEncoder().encode('%PDF-1.7 not a png at all, honestly'))).toBeNull();
    expect(pngSize(new Uint8Array(4))).toBeNull();
  });
});
