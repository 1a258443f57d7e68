/**
 * renderLabel: content + stock -> 1-bit PNG at the stock's exact size. Draws
 * the layout on white with node-canvas, thresholds at 50% and encodes 1-bit.
 * Canvases are reused per size (the server is single-threaded and each call
 * repaints the whole canvas), fonts load once in fonts.ts.
 */
import { createCanvas, type Canvas, type CanvasRenderingContext2D } from 'canvas';
import { code128Runs, drawCode128 } from './code128.js';
import { fontString } from './fonts.js';
import { layoutLabel, type Layout } from './layout.js';
import { darkenRect, encodePng1, packAlpha } from './png.js';
import { getPreset, type PresetName } from './presets.js';
import { drawQr, qrRuns } from './qr.js';
import type { Measure } from './text.js';
import type { LabelContent } from './types.js';

export interface RenderedLabel {
  png: Buffer;
  width: number;
  height: number;
}

// Measuring is the costly part of fitting text (each call shapes with Pango),
// and the fitter tries several sizes. Advances scale linearly with the size
// (hintslight leaves them alone: measured < 0.003% off from 20 to 140 px), so
// each string is measured once per weight at 100 px and scaled.
const measureCtx = createCanvas(1, 1).getContext('2d');
const widths = new Map<string, number>();
const WIDTHS_MAX = 20_000;
const REF = 100;
const FONT_SIZE = /^(bold )?(\d+(?:\.\d+)?)px/;

export const measure: Measure = (font, text) => {
  const m = FONT_SIZE.exec(font);
  if (!m) throw new Error(`unexpected font string: ${font}`);
  const bold = m[1] !== undefined;
  const key = `${bold ? 'b' : 'n'}${text}`;
  let w = widths.get(key);
  if (w === undefined) {
    measureCtx.font = fontString(REF, bold ? 'bold' : 'normal');
    w = measureCtx.measureText(text).width / REF;
    if (widths.size >= WIDTHS_MAX) widths.clear();
    widths.set(key, w);
  }
  return w * Number(m[2]);
};

const canvases = new Map<string, Canvas>();
const CANVASES_MAX = 24; // die-cut sizes + a few continuous lengths

function canvasFor(width: number, height: number, alpha: boolean): Canvas {
  const key = `${width}x${height}${alpha ? 'a' : ''}`;
  let c = canvases.get(key);
  if (!c) {
    if (canvases.size >= CANVASES_MAX) canvases.delete(canvases.keys().next().value as string);
    c = createCanvas(width, height);
    // The pixel format is fixed by the first getContext.
    c.getContext('2d', alpha ? { pixelFormat: 'A8' } : undefined);
    canvases.set(key, c);
  }
  return c;
}

/**
 * Paints a layout onto a (reused) RGBA canvas, black on white, and returns
 * it: the reference drawing (renderLabel's pixels are this, thresholded).
 */
export function paint(layout: Layout): Canvas {
  return paintOn(canvasFor(layout.width, layout.height, false), layout, true);
}

/**
 * The text of a layout on a (reused) 8-bit alpha canvas: ink is alpha, no
 * ink is 0. A quarter of the bytes of RGBA for Cairo to clear and for
 * packAlpha to read; Cairo's coverage is the same (over white, RGBA green =
 * 255 - alpha), which the tests check pixel for pixel.
 */
export function paintText(layout: Layout): Canvas {
  return paintOn(canvasFor(layout.width, layout.height, true), layout, false);
}

function paintOn(canvas: Canvas, layout: Layout, codes: boolean): Canvas {
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  // Rectangles sit on whole dots; no antialiasing keeps their edges exact.
  ctx.antialias = 'none';
  if (codes) {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, layout.width, layout.height);
  } else ctx.clearRect(0, 0, layout.width, layout.height);
  ctx.textBaseline = 'alphabetic';
  for (const op of layout.ops) {
    if (op.kind === 'qr') {
      if (codes) drawQr(ctx, op.matrix, op.x, op.y, op.module);
    } else if (op.kind === 'bars') {
      if (codes) drawCode128(ctx, op.pattern, op.x, op.y, op.module, op.height);
    } else drawText(ctx, op.text, op.x, op.y, op.font, op.align, op.rtl);
  }
  return canvas;
}

/**
 * Sets the dark modules of the layout's codes in packed rows (packAlpha
 * output, rotated like it). Same pixels as drawQr/drawCode128 on the canvas:
 * the symbols are whole-dot rectangles on a white background (their quiet
 * zones are white already: layout keeps text out of them).
 */
function drawCodes1(rows: Buffer, layout: Layout): void {
  const outW = layout.rotate90 ? layout.height : layout.width;
  // Design (x, y) lands at output (height - 1 - y, x) when rotated clockwise.
  const rect = layout.rotate90
    ? (x: number, y: number, w: number, h: number) => darkenRect(rows, outW, layout.height - y - h, x, h, w)
    : (x: number, y: number, w: number, h: number) => darkenRect(rows, outW, x, y, w, h);
  for (const op of layout.ops) {
    if (op.kind === 'qr') qrRuns(op.matrix, op.x, op.y, op.module, rect);
    else if (op.kind === 'bars') code128Runs(op.pattern, op.x, op.y, op.module, op.height, rect);
  }
}

function drawText(
  ctx: CanvasRenderingContext2D,
  text: string,
  x: number,
  y: number,
  font: string,
  align: CanvasTextAlign,
  rtl: boolean,
): void {
  ctx.font = font;
  ctx.textAlign = align;
  // node-canvas sets Pango's base direction from this (it turns auto-detection off).
  ctx.direction = rtl ? 'rtl' : 'ltr';
  ctx.fillStyle = '#000';
  ctx.fillText(text, x, y);
}

export function layoutFor(content: LabelContent, preset: PresetName): Layout {
  return layoutLabel(content, preset, measure);
}

/**
 * The layout as packed 1-bit PNG scanlines (see packAlpha): Cairo draws the
 * text, the codes are set in the rows directly. Pixel for pixel the same as
 * the reference packer over paint(layout) (test/labels/reference-pack.ts), only faster.
 */
export function rasterize(layout: Layout): Buffer {
  const canvas = paintText(layout);
  const rows = packAlpha(canvas.toBuffer('raw'), layout.width, layout.height, layout.rotate90);
  drawCodes1(rows, layout);
  return rows;
}

export function renderLabel(content: LabelContent, preset: PresetName): RenderedLabel {
  const layout = layoutFor(content, preset);
  const rows = rasterize(layout);
  const width = layout.rotate90 ? layout.height : layout.width;
  const height = layout.rotate90 ? layout.width : layout.height;
  return { png: encodePng1(rows, width, height, getPreset(preset).dpi), width, height };
}
