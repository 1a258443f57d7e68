import { Jimp } from 'jimp';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { darkenRect, encodePng1, packAlpha } from '../../src/labels/png.js';
import { packRows } from './reference-pack.js';

/** A BGRA buffer like canvas.toBuffer('raw'), black where dark(x, y). */
function raw(w: number, h: number, dark: (x: number, y: number) => boolean): Buffer {
  const b = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const v = dark(x, y) ? 0 : 255;
      b.fill(v, (y * w + x) * 4, (y * w + x) * 4 + 3);
      b[(y * w + x) * 4 + 3] = 255;
    }
  }
  return b;
}

async function pixels(png: Buffer): Promise<{ w: number; h: number; dark: (x: number, y: number) => boolean }> {
  const img = await Jimp.read(png);
  const { width: w, height: h, data } = img.bitmap;
  return { w, h, dark: (x, y) => data[(y * w + x) * 4]! === 0 };
}

describe('1-bit PNG encoder', () => {
  const pattern = (x: number, y: number) => (x * 7 + y * 3) % 5 === 0 || x === y;

  it('round-trips pixels exactly, including rows that are not a multiple of 8', async () => {
    const [w, h] = [13, 9];
    const png = encodePng1(packRows(raw(w, h, pattern), w, h, false), w, h, 300);
    expect([png[24], png[25]]).toEqual([1, 0]); // bit depth 1, grayscale
    const p = await pixels(png);
    expect([p.w, p.h]).toEqual([w, h]);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) expect(p.dark(x, y), `${x},${y}`).toBe(pattern(x, y));
  });

  it('owns its memory: a small PNG is not a view into a shared pool slab (the label cache would keep whole slabs alive)', () => {
    const [w, h] = [13, 9];
    const png = encodePng1(packRows(raw(w, h, pattern), w, h, false), w, h, 300);
    expect(png.length).toBeLessThan(Buffer.poolSize);
    expect([png.byteOffset, png.buffer.byteLength]).toEqual([0, png.length]);
  });

  it('thresholds at 50%', () => {
    const b = raw(8, 1, () => false);
    b[1] = 127; // green of pixel 0: darker than half
    b[5] = 128; // pixel 1: not
    const rows = packRows(b, 8, 1, false);
    expect([...rows]).toEqual([0, 0b01111111]);
  });

  it('rotates 90° clockwise: the design top-left lands at the output top-right', async () => {
    const [w, h] = [11, 6]; // landscape design
    const png = encodePng1(packRows(raw(w, h, pattern), w, h, true), h, w);
    const p = await pixels(png);
    expect([p.w, p.h]).toEqual([h, w]);
    for (let y = 0; y < w; y++) for (let x = 0; x < h; x++) expect(p.dark(x, y)).toBe(pattern(y, h - 1 - x));
  });

  it('writes only IHDR, pHYs, IDAT and IEND, deterministically', () => {
    const rows = packRows(raw(20, 20, pattern), 20, 20, false);
    const png = encodePng1(rows, 20, 20, 203);
    expect(encodePng1(rows, 20, 20, 203).equals(png)).toBe(true);
    const types: string[] = [];
    for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at)) types.push(png.toString('latin1', at + 4, at + 8));
    expect(types).toEqual(['IHDR', 'pHYs', 'IDAT', 'IEND']);
    const idat = png.indexOf('IDAT');
    expect(inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4))).equals(rows)).toBe(true);
  });

  /** An A8 buffer (canvas pixelFormat 'A8': stride rounded up to 4), alpha 255 where dark(x, y). */
  function alpha(w: number, h: number, dark: (x: number, y: number) => boolean): Buffer {
    const stride = (w + 3) & ~3;
    const b = Buffer.alloc(stride * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) if (dark(x, y)) b[y * stride + x] = 255;
    return b;
  }

  it('packAlpha gives the same rows as packRows on the same pixels, rotated or not, any width', () => {
    for (const [w, h] of [[13, 9], [16, 5], [37, 11], [8, 8], [1, 3]] as const) {
      for (const rot of [false, true]) {
        expect(packAlpha(alpha(w, h, pattern), w, h, rot).equals(packRows(raw(w, h, pattern), w, h, rot)), `${w}x${h} ${rot}`).toBe(true);
      }
    }
  });

  it('packAlpha thresholds at 50% (alpha >= 128 is dark)', () => {
    const b = Buffer.alloc(16); // 9 px wide: stride 12, first row
    b[0] = 128;
    b[1] = 127;
    b[8] = 200;
    expect([...packAlpha(b.subarray(0, 12), 9, 1, false)]).toEqual([0, 0b01111111, 0b01111111]);
  });

  it('darkenRect clears exactly the rectangle, across byte boundaries', () => {
    const [w, h] = [29, 6];
    const rect = (x: number, y: number) => x >= 3 && x < 21 && y >= 1 && y < 4;
    const rows = packRows(raw(w, h, () => false), w, h, false);
    darkenRect(rows, w, 3, 1, 18, 3);
    expect(rows.equals(packRows(raw(w, h, rect), w, h, false))).toBe(true);
    darkenRect(rows, w, 5, 2, 2, 1); // inside one byte, already dark
    expect(rows.equals(packRows(raw(w, h, rect), w, h, false))).toBe(true);
  });
});
