/** Reading a label PNG back as dots, to measure ink where the printer would put it. */
import { decodeMonoPng, getDot, type MonoBitmap } from '../../src/labels/mono-png.js';

export type Dots = MonoBitmap;
export const dots = (png: Buffer): Dots => decodeMonoPng(png);
export const dark = (d: Dots, x: number, y: number): boolean => getDot(d, x, y);

/** Dark dots within `m` dots of any edge, except inside the `allowed` boxes ([x0, y0, x1, y1)). */
export function inkInMargin(d: Dots, m: number, allowed: readonly (readonly [number, number, number, number])[] = []): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  const inside = (x: number, y: number) => allowed.some(([x0, y0, x1, y1]) => x >= x0 && x < x1 && y >= y0 && y < y1);
  for (let y = 0; y < d.height; y++) {
    for (let x = 0; x < d.width; x++) {
      if ((x < m || y < m || x >= d.width - m || y >= d.height - m) && getDot(d, x, y) && !inside(x, y)) out.push({ x, y });
    }
  }
  return out;
}

/** Bounding box of the dark dots inside a rectangle. */
export function inkBox(d: Dots, x0 = 0, y0 = 0, x1 = d.width, y1 = d.height): { x0: number; y0: number; x1: number; y1: number } | undefined {
  let b: { x0: number; y0: number; x1: number; y1: number } | undefined;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      if (!getDot(d, x, y)) continue;
      b = b ? { x0: Math.min(b.x0, x), y0: Math.min(b.y0, y), x1: Math.max(b.x1, x + 1), y1: Math.max(b.y1, y + 1) } : { x0: x, y0: y, x1: x + 1, y1: y + 1 };
    }
  }
  return b;
}

/** 8-bit RGBA image of the dots (white paper, black ink), for decoders and degradations. */
export function toGray(d: Dots): { data: Float32Array; width: number; height: number } {
  const data = new Float32Array(d.width * d.height);
  for (let y = 0; y < d.height; y++) for (let x = 0; x < d.width; x++) data[y * d.width + x] = getDot(d, x, y) ? 0 : 255;
  return { data, width: d.width, height: d.height };
}
