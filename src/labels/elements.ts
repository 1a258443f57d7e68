/**
 * Element designs (docs/labels-and-templates.md "Element designs"): text, codes, the logo,
 * rules and frames, each in a box in millimetres on the stock's printable area. An element
 * design becomes the same Layout (layout.ts Placed items) a line design does, so painting,
 * the 1-bit and two-colour rasters, sheets and every label path are shared; text is fitted
 * with text.ts's wrap and ellipsize, codes with symbols.ts's encoders and module rules.
 */
import type { Stock } from './stock.js';

/** The design's size in dots (as layout.ts lays a line design out: across the long side of rotated stock); continuous tape at its longest. */
export function elementArea(stock: Stock): { width: number; height: number } {
  const length = stock.lengthDots ?? stock.maxLengthDots;
  return stock.orientation === 'rotated' ? { width: length, height: stock.widthDots } : { width: stock.widthDots, height: length };
}

/** Millimetres to the stock's dots (rounded to the nearest dot). */
export function mmToDots(mm: number, stock: Stock): number {
  return Math.round((mm / 25.4) * stock.dpi);
}

/** The printable area in mm (to 0.1 mm, down), as a box must lie within it. */
export function elementAreaMm(stock: Stock): { width: number; height: number } {
  const { width, height } = elementArea(stock);
  const mm = (dots: number) => Math.floor((dots / stock.dpi) * 254) / 10;
  return { width: mm(width), height: mm(height) };
}
