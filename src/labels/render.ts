/**
 * renderLabel: a record and a template in, a 1-bit PNG at the stock's exact
 * size out. Cairo draws the text on an 8-bit alpha canvas (thresholded at
 * 50%), the codes' modules are set straight into the 1-bit rows. Canvases are
 * reused per size (the server is single-threaded and each call repaints the
 * whole canvas), fonts load once in fonts.ts.
 */
import { layoutElements } from './elements.js';
import { createCanvas, type Canvas } from 'canvas';
import { resolveContent, type LabelContent } from './content.js';
import type { LabelRecord, Template } from './design.js';
import { withFontLock } from './font-lock.js';
import { assertFontIsolation, fontString, missingGlyphs } from './fonts.js';
import { layoutLabel, type Ink, type Layout, type Measures } from './layout.js';
import { codeRects, hasRed, paintLayout, type Plane } from './paint.js';
import { darkenRect, encodePng1, encodePngBlackRed, packAlpha } from './png.js';
import { release } from './release.js';
import type { Stock } from './stock.js';
import type { Measure } from './text.js';

export interface RenderedLabel {
  /**
   * 1-bit grayscale; on a two-colour stock with red marks a 2-bit palette PNG (white, black,
   * red: png.ts encodePngBlackRed), each dot one ink, so a preview shows what prints.
   */
  png: Buffer;
  width: number;
  height: number;
  stock: Stock;
  /**
   * What a reader of the label should know: 'name-not-visible' (the name had
   * no visible character and reads "[no name]"), 'missing-glyphs' (some
   * characters print as boxes; see missingGlyphs), 'red-as-black' (the design marks
   * something red and the stock prints black only: drawn black).
   */
  warnings: string[];
  /** Code points drawn as boxes because no bundled font has them. */
  missingGlyphs: number[];
}

// Fitting tries several sizes, and each measurement shapes with Pango, so
// every string is measured once per weight at 100 px, advance and ink
// together, and scaled to the size asked (hintslight leaves advances alone:
// < 0.003% off from 20 to 140 px; ink extents move by under a dot, which the
// layout's 1-dot allowance and each text's clip box cover).
const measureCtx = createCanvas(1, 1).getContext('2d');
measureCtx.textAlign = 'left';
interface Metrics {
  advance: number;
  ink: Ink;
}
const metrics = new Map<string, Metrics>();
// Enough for one label's fitting and the strings labels share (paths, footers); each
// render thread holds its own. 2,000 against 20,000: about 10 MB less RSS with two
// threads after 10,000 distinct labels, at the same speed (measured with the pool).
const METRICS_MAX = 2_000;
const REF = 100;
const FONT_SIZE = /^(bold )?(\d+(?:\.\d+)?)px/;
const refFonts = { normal: fontString(REF, 'normal'), bold: fontString(REF, 'bold') };
let refFont = '';

function metricsOf(font: string, text: string): { m: Metrics; scale: number } {
  const f = FONT_SIZE.exec(font);
  if (!f) throw new Error(`unexpected font string: ${font}`);
  const bold = f[1] !== undefined;
  const key = `${bold ? 'b' : 'n'}${text}`;
  let m = metrics.get(key);
  if (m === undefined) {
    const want = refFonts[bold ? 'bold' : 'normal'];
    // Setting a font parses the whole family list (~20-40 µs): only when it changes.
    if (refFont !== want) measureCtx.font = refFont = want;
    const t = withFontLock(() => measureCtx.measureText(text));
    m = {
      advance: t.width / REF,
      ink: { left: t.actualBoundingBoxLeft / REF, right: t.actualBoundingBoxRight / REF, ascent: t.actualBoundingBoxAscent / REF, descent: t.actualBoundingBoxDescent / REF },
    };
    if (metrics.size >= METRICS_MAX) metrics.clear();
    metrics.set(key, m);
  }
  return { m, scale: Number(f[2]) };
}

export const measure: Measure = (font, text) => {
  const { m, scale } = metricsOf(font, text);
  return m.advance * scale;
};

/** Ink extents of text at the size it is drawn (left-aligned), relative to its alignment point on the baseline. */
export function inkOf(font: string, text: string): Ink {
  const { m, scale } = metricsOf(font, text);
  return { left: m.ink.left * scale, right: m.ink.right * scale, ascent: m.ink.ascent * scale, descent: m.ink.descent * scale };
}

export const MEASURES: Measures = { advance: measure, ink: inkOf };

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

/** The whole layout drawn by Cairo on a (reused) RGBA canvas, black on white: the reference picture. */
export function paint(layout: Layout): Canvas {
  const canvas = canvasFor(layout.width, layout.height, false);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  paintLayout(ctx, layout, { background: true, codes: true });
  return canvas;
}

/**
 * The layout as packed 1-bit PNG scanlines (see packAlpha): Cairo draws the
 * text on an 8-bit alpha canvas (a quarter of RGBA's bytes to clear and
 * read), the codes are set in the rows directly. Pixel for pixel the same as
 * thresholding paint(layout) (test/labels/render.test.ts checks it).
 * `plane`: only the items of that ink (a two-colour label is two of these).
 */
export function rasterize(layout: Layout, plane?: Plane): Buffer {
  const canvas = canvasFor(layout.width, layout.height, true);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, layout.width, layout.height);
  paintLayout(ctx, layout, { background: false, codes: false, plane });
  const raw = canvas.toBuffer('raw');
  const rows = packAlpha(raw, layout.width, layout.height, layout.rotate90);
  release(raw);
  const outW = layout.rotate90 ? layout.height : layout.width;
  // Design (x, y) lands at output (height - 1 - y, x) when rotated clockwise.
  codeRects(
    layout,
    layout.rotate90
      ? (x, y, w, h) => darkenRect(rows, outW, layout.height - y - h, x, h, w)
      : (x, y, w, h) => darkenRect(rows, outW, x, y, w, h),
    plane,
  );
  return rows;
}

/** Content and layout of a record on a template (no drawing). */
export function layoutFor(record: LabelRecord, template: Template, opts: { footer?: string } = {}): { content: LabelContent; layout: Layout } {
  const content = resolveContent(record, template.designs[record.kind], template.stock, opts);
  // An element design: each element in its own box (elements.ts), painted as a line design's layout is.
  const layout = content.elements ? layoutElements(content.elements, content.logo, template.stock, MEASURES, content.warnings) : layoutLabel(content, template.stock, MEASURES);
  // A design can show nothing of a record (a Code 128 only, on an item): never a blank label without a word.
  if (layout.items.length === 0) layout.warnings = [...layout.warnings, 'label-empty'];
  return { content, layout };
}

export function renderLabel(record: LabelRecord, template: Template, opts: { footer?: string } = {}): RenderedLabel {
  assertFontIsolation();
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- content is unused (the raster comes from the layout alone): drop it when this function is next changed
  const { content, layout } = layoutFor(record, template, opts);
  const width = layout.rotate90 ? layout.height : layout.width;
  const height = layout.rotate90 ? layout.width : layout.height;
  const missing = missingGlyphs(layout.items.map((i) => (i.kind === 'text' ? i.text : '')).join(''));
  const warnings = [...new Set(layout.warnings), ...(missing.length ? ['missing-glyphs'] : [])];
  let png: Buffer;
  // Red items exist only on a stock that prints red (content.ts draws them black elsewhere).
  if (hasRed(layout)) {
    const black = rasterize(layout, 'black');
    const red = rasterize(layout, 'red');
    png = encodePngBlackRed(black, red, width, height, template.stock.dpi);
    release(black);
    release(red);
  } else {
    const rows = rasterize(layout);
    png = encodePng1(rows, width, height, template.stock.dpi);
    release(rows);
  }
  return { png, width, height, stock: template.stock, warnings, missingGlyphs: missing };
}
