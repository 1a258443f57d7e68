/**
 * Painting a layout: the only place that turns placed items into marks. Two
 * targets share it: any canvas 2D context (Cairo: the RGBA reference here, a
 * PDF surface for sheets later, scaled from dots to points by the caller's
 * transform), and the 1-bit raster (render.ts), which draws text through the
 * same function and sets code modules straight into its rows.
 */
import type { CanvasRenderingContext2D } from 'canvas';
import type { Bitmap } from './design.js';
import { withFontLock } from './font-lock.js';
import type { Layout, Placed } from './layout.js';
import { RED_RGB } from './png.js';
import { barRuns, matrixRuns } from './symbols.js';

export type Rect = (x: number, y: number, w: number, h: number) => void;

/**
 * One ink of a two-colour label (Stock.colours): 'black' is every item not marked red,
 * 'red' the items marked red (Placed.red). Undefined: every item.
 */
export type Plane = 'black' | 'red';


function inPlane(item: Placed, plane: Plane | undefined): boolean {
  return plane === undefined || (plane === 'red') === (item.red === true);
}

/** Whether any item of the layout is drawn red. */
export function hasRed(layout: Layout): boolean {
  return layout.items.some((i) => i.red === true);
}

/** Calls rect for every dark module run of the layout's codes (whole dots, design coordinates), of one plane or all. */
export function codeRects(layout: Layout, rect: Rect, plane?: Plane): void {
  for (const item of layout.items) {
    if (!inPlane(item, plane)) continue;
    if (item.kind === 'matrix') matrixRuns(item.symbol, item.x, item.y, item.module, rect);
    else if (item.kind === 'bars') barRuns(item.symbol, item.x, item.y, item.module, item.length, item.bars, rect);
    else if (item.kind === 'bitmap') bitmapRuns(item.bitmap, item.x, item.y, rect);
    else if (item.kind === 'rect') rect(item.x, item.y, item.w, item.h);
  }
}

/** Calls rect for every run of dark pixels of a 1-bit picture (0 bits are dark), row by row. */
export function bitmapRuns(b: Bitmap, x: number, y: number, rect: Rect): void {
  const stride = ((b.width + 7) >> 3) + 1;
  for (let r = 0; r < b.height; r++) {
    const o = r * stride + 1;
    let start = -1;
    for (let c = 0; c <= b.width; c++) {
      const dark = c < b.width && (b.rows[o + (c >> 3)]! & (0x80 >> (c & 7))) === 0;
      if (dark && start < 0) start = c;
      else if (!dark && start >= 0) {
        rect(x + start, y + r, c - start, 1);
        start = -1;
      }
    }
  }
}

/**
 * Text state last set during one paintLayout call: setting a font parses its whole family list
 * (~20-40 µs), so only changes are set. It lives no longer than the call: a caller may wrap
 * each label in save/restore (sheet-pdf.ts does, per cell), and restore puts the context's font
 * back, so a state remembered across calls would skip setting a font the context no longer has.
 */
interface TextState {
  font: string;
  align: string;
  direction: string;
}

function drawText(ctx: CanvasRenderingContext2D, t: Extract<Placed, { kind: 'text' }>, state: TextState): void {
  // Set outside this text's save/restore, so that its restore keeps them for the next text.
  if (state.font !== t.font) ctx.font = state.font = t.font;
  if (state.align !== t.align) ctx.textAlign = state.align = t.align as CanvasTextAlign;
  // node-canvas sets Pango's base direction from this (it turns auto-detection off).
  const direction = t.rtl ? 'rtl' : 'ltr';
  if (state.direction !== direction) ctx.direction = state.direction = direction;
  ctx.save();
  // Text never leaves its box: stacked marks and fallback glyphs cannot reach a margin or a code's quiet zone.
  ctx.beginPath();
  ctx.rect(t.clip.x0, t.clip.y0, t.clip.x1 - t.clip.x0, t.clip.y1 - t.clip.y0);
  ctx.clip();
  if (t.rotate !== 0) {
    ctx.translate(t.x, t.y);
    ctx.rotate((t.rotate * Math.PI) / 180);
    withFontLock(() => ctx.fillText(t.text, 0, 0));
  } else withFontLock(() => ctx.fillText(t.text, t.x, t.y));
  ctx.restore();
}

/**
 * Draws the layout on a canvas context in design coordinates: white
 * background, text, and (unless `codes` is false) the codes as rectangles.
 * `plane`: only that plane's items, in black (one plane of a two-colour
 * raster); without it every item, red ones in RED_RGB.
 */
export function paintLayout(ctx: CanvasRenderingContext2D, layout: Layout, opts: { background: boolean; codes: boolean; plane?: Plane }): void {
  // Rectangles sit on whole dots; no antialiasing keeps their edges exact.
  ctx.antialias = 'none';
  if (opts.background) {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, layout.width, layout.height);
  }
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = '#000';
  const state: TextState = { font: '', align: '', direction: '' };
  let fill = '#000';
  for (const item of layout.items) {
    if (item.kind !== 'text' || !inPlane(item, opts.plane)) continue;
    const want = item.red && opts.plane === undefined ? RED_CSS : '#000';
    if (fill !== want) ctx.fillStyle = fill = want;
    drawText(ctx, item, state);
  }
  if (opts.codes) {
    for (const plane of opts.plane ? [opts.plane] : (['black', 'red'] as const)) {
      ctx.fillStyle = plane === 'red' && opts.plane === undefined ? RED_CSS : '#000';
      codeRects(layout, (x, y, w, h) => ctx.fillRect(x, y, w, h), plane);
    }
  }
}

const RED_CSS = `#${RED_RGB.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
