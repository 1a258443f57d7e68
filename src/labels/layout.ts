/**
 * Where everything goes on a label: content in, placed items out, in design
 * coordinates (dots). Codes are sized in whole dots per module and encoded
 * here once; text is fitted to its box and checked against the ink it really
 * draws at the size it is drawn. Painters (paint.ts) draw the result on a
 * 1-bit raster or any canvas surface, and never decide anything.
 *
 * Two arrangements, chosen by the design's shape (tall narrow stock is
 * designed across its long side and rotated into the raster, see stock.ts):
 * - wide: 2D code at the left, text to its right; a linear code either as a
 *   column at the right edge (bars across the print head) or under the text.
 * - tall: text on top, 2D code below it, the linear code beside or under it.
 * Continuous tape grows (up to its maximum) before text shrinks.
 *
 * Linear codes are turned, where they fit, so that their bars run across the
 * print head: one dead heating element then leaves a thin gap across every
 * bar, which a scanner reads through, instead of splitting a bar along its
 * whole length.
 */
import type { LabelContent } from './content.js';
import { PATH_SEPARATOR } from './content.js';
import type { QrLevel } from './qr.js';
import { qrSymbolSize } from './qr.js';
import type { Stock } from './stock.js';
import { encodeDataMatrix, encodeQr, type BarsSymbol, type MatrixSymbol } from './symbols.js';
import {
  ASCENT,
  blockGap,
  DESCENT,
  fitBlocks,
  fitFooter,
  isRtl,
  LINE_HEIGHT,
  stackHeight,
  styleFont,
  type FitResult,
  type FittedBlock,
  type Measure,
  type TextBlock,
} from './text.js';

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Ink extents of text drawn at its real size, relative to the alignment point (canvas TextMetrics). */
export interface Ink {
  left: number;
  right: number;
  ascent: number;
  descent: number;
}
export type InkMeasure = (font: string, text: string) => Ink;

export type Placed =
  | {
      kind: 'text';
      /** Alignment point on the baseline. */
      x: number;
      y: number;
      text: string;
      font: string;
      align: 'left' | 'right' | 'center';
      rtl: boolean;
      /** 90: turned clockwise about (x, y) (reads top to bottom). */
      rotate: 0 | 90;
      /** Nothing of this text is drawn outside this box (design coordinates). */
      clip: Box;
    }
  | { kind: 'matrix'; x: number; y: number; module: number; symbol: MatrixSymbol }
  | {
      kind: 'bars';
      /** Corner of the first bar. */
      x: number;
      y: number;
      module: number;
      /** Bar length in dots. */
      length: number;
      bars: 'vertical' | 'horizontal';
      symbol: BarsSymbol;
    };

export interface Layout {
  stock: Stock;
  /** What the reader should know (content's warnings plus e.g. 'code-omitted'). */
  warnings: string[];
  /** Size of the design; the PNG is this size, or its transpose when rotate90. */
  width: number;
  height: number;
  rotate90: boolean;
  items: Placed[];
}

/** The label cannot be drawn legibly on this stock (e.g. a code too dense for it). */
export class LabelFitError extends RangeError {
  override name = 'LabelFitError';
}

export interface Measures {
  advance: Measure;
  ink: InkMeasure;
}

interface Frame {
  stock: Stock;
  dpmm: number;
  margin: number;
  /** Smallest and largest text in px. */
  floor: number;
  ceil: number;
  /** Bars along the design's x axis run across the print head when the design is rotated. */
  goodBars: 'vertical' | 'horizontal';
}

const pt = (points: number, dpi: number) => Math.round((points / 72) * dpi);

function frame(content: LabelContent, stock: Stock, w: number, h: number): Frame {
  const dpmm = stock.dpi / 25.4;
  const margin = Math.round(Math.max(1.2 * dpmm, Math.min(3 * dpmm, 0.06 * Math.min(w, h))));
  return {
    stock,
    dpmm,
    margin,
    floor: pt(content.textPt.min, stock.dpi),
    ceil: pt(content.textPt.max, stock.dpi),
    goodBars: stock.orientation === 'rotated' ? 'vertical' : 'horizontal',
  };
}

/** Smallest module (dots) a 2D code is printed with: ~0.25 mm. */
const min2dModule = (dpi: number) => (dpi >= 300 ? 3 : 2);

/**
 * The 2D code for a square of `side` dots: the largest module that fits, and
 * (QR) the strongest error correction that keeps that module, so spare room
 * buys damage tolerance instead of nothing. Encoded once, here.
 */
function place2d(spec: NonNullable<LabelContent['code2d']>, side: number, f: Frame): { symbol: MatrixSymbol; module: number } | null {
  const min = min2dModule(f.stock.dpi);
  if (spec.symbology === 'datamatrix') {
    const symbol = encodeDataMatrix(spec.data);
    const module = Math.floor(side / (symbol.cols + 2 * symbol.quiet));
    return module >= min ? { symbol, module } : null;
  }
  const moduleAt = (level: QrLevel) => {
    const n = qrSymbolSize(spec.data, level);
    return n === undefined ? 0 : Math.floor(side / (n + 8));
  };
  const m = moduleAt('M');
  let level: QrLevel = 'M';
  if (m >= min) {
    for (const l of ['H', 'Q'] as const) {
      if (moduleAt(l) >= m) {
        level = l;
        break;
      }
    }
  } else if (moduleAt('L') >= min) level = 'L';
  else return null;
  const symbol = encodeQr(spec.data, level);
  return { symbol, module: Math.floor(side / (symbol.cols + 2 * symbol.quiet)) };
}

function tooSmall(what: string, f: Frame): LabelFitError {
  return new LabelFitError(`${what} does not fit ${f.stock.name}`);
}

/** A linear code with its caption, as one block in design coordinates. */
interface BarsBlock {
  symbol: BarsSymbol;
  module: number;
  bars: 'vertical' | 'horizontal';
  barLength: number;
  captionSize: number;
  gap: number;
  /** Extent along the bars' run (quiet zones included) and across it (bars + gap + caption). */
  run: number;
  cross: number;
}

function barsBlock(symbol: BarsSymbol, module: number, bars: 'vertical' | 'horizontal', f: Frame, shortSide: number, m: Measures): BarsBlock {
  const run = (symbol.modules + 2 * symbol.quiet) * module;
  const barLength = Math.round(Math.max(4 * f.dpmm, 0.17 * shortSide));
  // The caption (the asset id) is the largest text on the label: as large as fits the code's run, same for every id of a length.
  const fontAt = (s: number) => styleFont({ size: s, weight: 'bold' });
  let captionSize = Math.max(f.floor, Math.min(Math.round(0.18 * shortSide), Math.round(f.ceil * 1.2)));
  while (captionSize > f.floor && m.advance(fontAt(captionSize), symbol.text) > run) captionSize--;
  const gap = Math.round(0.15 * captionSize);
  const cross = barLength + gap + Math.round((ASCENT + DESCENT) * captionSize);
  return { symbol, module, bars, barLength, captionSize, gap, run, cross };
}

/** Bar module sizes to try: ~0.34 mm, then ~0.25 mm (3 dots at 203 dpi where the stock allows). */
const barModules = (dpi: number) => (dpi >= 300 ? [4, 3] : [3, 2]);

function placeBars(b: BarsBlock, x: number, y: number, items: Placed[], f: Frame): void {
  const q = b.symbol.quiet * b.module;
  const font = styleFont({ size: b.captionSize, weight: 'bold' });
  const capH = Math.round((ASCENT + DESCENT) * b.captionSize);
  if (b.bars === 'vertical') {
    items.push({ kind: 'bars', x: x + q, y, module: b.module, length: b.barLength, bars: 'vertical', symbol: b.symbol });
    const base = y + b.barLength + b.gap + Math.round(ASCENT * b.captionSize);
    const clip = { x0: x, y0: y + b.barLength + 1, x1: x + b.run, y1: y + b.cross + 1 };
    items.push({ kind: 'text', x: x + Math.round(b.run / 2), y: base, text: b.symbol.text, font, align: 'center', rtl: false, rotate: 0, clip });
  } else {
    // Turned clockwise: the caption, under the bars before turning, is now at their left, reading top to bottom.
    const barsX = x + b.cross - b.barLength;
    items.push({ kind: 'bars', x: barsX, y: y + q, module: b.module, length: b.barLength, bars: 'horizontal', symbol: b.symbol });
    const baselineX = x + Math.round(DESCENT * b.captionSize);
    const clip = { x0: x, y0: y, x1: barsX - 1, y1: y + b.run };
    items.push({ kind: 'text', x: baselineX, y: y + Math.round(b.run / 2), text: b.symbol.text, font, align: 'center', rtl: false, rotate: 90, clip });
  }
  void capH;
  void f;
}

/** Text blocks of the content, title first. */
function textBlocks(c: LabelContent): TextBlock[] {
  return c.blocks.map((b) => ({ text: b.text, segments: b.segments, sep: PATH_SEPARATOR, bold: b.role === 'title' }));
}

/**
 * Fits the text into `box` and checks every line's real ink at its real size
 * against the box's width; shrinks and refits when a line would reach past it
 * (fallback glyphs and stacked marks draw wider than the scaled estimate).
 */
function fitChecked(blocks: TextBlock[], box: Box, max: number, lineMax: number | undefined, titleLines: number, f: Frame, m: Measures, lineLines = 2): FitResult {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  let top = Math.max(f.floor, Math.min(max, Math.floor(h / LINE_HEIGHT)));
  for (let round = 0; ; round++) {
    const r = fitBlocks(blocks, { max: top, min: f.floor, lineRatio: 0.62, lineMax, titleLines, lineLines }, w, h, m.advance);
    const wide = r.blocks.some((b) =>
      b.lines.some((l) => {
        const ink = m.ink(styleFont(b.style), l);
        return ink.left + ink.right > w;
      }),
    );
    if (!wide || r.titleSize <= f.floor || round > 8) return r;
    top = Math.max(f.floor, Math.floor(r.titleSize * 0.93));
  }
}

/** Text ops for fitted blocks, stacked from `top`; returns the bottom. */
function placeText(items: Placed[], blocks: FittedBlock[], top: number, box: Box, align: 'left' | 'center'): number {
  let y = top;
  blocks.forEach((b, i) => {
    if (i > 0) y += blockGap(b.style.size);
    const font = styleFont(b.style);
    // Direction is the paragraph's: a wrapped "12" stays aligned with its Arabic line.
    const rtl = isRtl(b.lines.join(' '));
    for (const text of b.lines) {
      const base = Math.round(y + ASCENT * b.style.size);
      if (align === 'center') items.push({ kind: 'text', x: Math.round((box.x0 + box.x1) / 2), y: base, text, font, align: 'center', rtl, rotate: 0, clip: box });
      else items.push({ kind: 'text', x: rtl ? box.x1 : box.x0, y: base, text, font, align: rtl ? 'right' : 'left', rtl, rotate: 0, clip: box });
      y += LINE_HEIGHT * b.style.size;
    }
  });
  return y;
}

/** Reserves the footer at the bottom of `box` if the label can spare it; returns its block or null. */
function footerFor(c: LabelContent, box: Box, f: Frame, m: Measures, sizeHint: number): FittedBlock | null {
  if (!c.footer) return null;
  const h = box.y1 - box.y0;
  // Tiny stock: the record's own title (one line at its smallest) comes first; the footer goes.
  const needed = LINE_HEIGHT * Math.round(f.floor * 1.2) + (c.blocks.length > 1 ? LINE_HEIGHT * f.floor + blockGap(f.floor) : 0);
  const spare = h - needed - blockGap(f.floor);
  if (spare < LINE_HEIGHT * f.floor) return null;
  return fitFooter(c.footer, Math.max(f.floor, sizeHint), f.floor, box.x1 - box.x0, Math.min(spare, 2 * LINE_HEIGHT * f.floor + 1), m.advance);
}

interface Arranged {
  layout: Layout;
  fit: FitResult;
}

function wide(c: LabelContent, f: Frame, w: number, h: number, fixed: boolean, m: Measures, warnings: string[]): Arranged {
  const { margin } = f;
  const items: Placed[] = [];
  const inner: Box = { x0: margin, y0: margin, x1: w - margin, y1: h - margin };
  const baseH = fixed ? h : f.stock.orientation === 'rotated' ? h : f.stock.minLengthDots;
  let rightEdge = inner.x1;
  let bottomBars: BarsBlock | undefined;
  let bars: BarsBlock | undefined;

  if (c.code1d) {
    const mods = barModules(f.stock.dpi);
    let chosen: BarsBlock | undefined;
    // Across the head: a column at the right edge (unturned designs) ...
    if (f.goodBars === 'horizontal') {
      for (const module of mods) {
        const b = barsBlock(c.code1d, module, 'horizontal', f, baseH, m);
        if (b.run <= h && b.cross <= 0.3 * w) {
          chosen = b;
          break;
        }
      }
    }
    // ... else under the text, beside the 2D code (its quiet zone may share the code's), else under both.
    const codeW = c.code2d ? Math.min(baseH, Math.round(w * (w < 1.5 * h ? 0.62 : 0.45))) : 0;
    const column = inner.x1 - Math.max(inner.x0, codeW);
    for (const module of chosen ? [] : mods) {
      const v = barsBlock(c.code1d, module, 'vertical', f, baseH, m);
      if (v.run - v.symbol.quiet * module <= column) {
        chosen = v;
        break;
      }
    }
    for (const module of chosen ? [] : [...mods, 2]) {
      const v = barsBlock(c.code1d, module, 'vertical', f, baseH, m);
      if (v.run <= w) {
        chosen = v;
        break;
      }
    }
    if (!chosen) throw tooSmall('the asset barcode', f);
    bars = chosen;
    if (chosen.bars === 'horizontal') {
      rightEdge = w - margin - chosen.cross;
      placeBars(chosen, rightEdge, Math.round((h - chosen.run) / 2), items, f);
      rightEdge -= Math.round(margin / 2);
    } else bottomBars = chosen;
  }

  // 2D code: a square as tall as the label (its quiet zone is the margin), at most ~45% of the width.
  let codeRight = 0;
  if (c.code2d) {
    let side = Math.min(baseH, Math.round(w * (w < 1.5 * h ? 0.62 : 0.45)));
    // Bars that do not fit beside the code go under everything: the code shrinks to the height left.
    const under = bottomBars !== undefined && rightEdge - side < bottomBars.run - bottomBars.symbol.quiet * bottomBars.module;
    if (under) side = Math.min(side, h - bottomBars!.cross - margin);
    const placed = place2d(c.code2d, side, f);
    if (placed) {
      const { symbol, module } = placed;
      const block = (symbol.cols + 2 * symbol.quiet) * module;
      const q = symbol.quiet * module;
      const x = Math.max(0, margin - q);
      const y = under ? Math.max(0, margin - q) : Math.floor((Math.min(h, baseH) - block) / 2);
      items.push({ kind: 'matrix', x: x + q, y: y + q, module, symbol });
      codeRight = x + block - q + Math.round(margin * 0.75);
    } else if (bottomBars) {
      // Tiny stock: the linear code already carries the asset id; the 2D code is left out (and said so).
      warnings.push('code-omitted');
    } else throw tooSmall(`the ${c.code2d.symbology === 'qr' ? 'QR code' : 'DataMatrix'}`, f);
  }
  const text: Box = { x0: Math.max(inner.x0, codeRight), y0: inner.y0, x1: rightEdge, y1: inner.y1 };
  if (bottomBars) {
    const q = bottomBars.symbol.quiet * bottomBars.module;
    const fullWidth = text.x1 - text.x0 < bottomBars.run - q;
    const bx = fullWidth ? Math.round((w - bottomBars.run) / 2) : Math.max(text.x0 - q, Math.round((text.x0 + text.x1 - bottomBars.run) / 2));
    const by = h - margin - bottomBars.cross;
    placeBars(bottomBars, Math.max(0, Math.min(bx, w - bottomBars.run)), by, items, f);
    text.y1 = by - Math.round(margin / 2);
  }
  const captionPx = bars?.captionSize;
  const max = captionPx ? Math.floor(captionPx * 0.85) : f.ceil;
  const foot = footerFor(c, text, f, m, Math.round(0.1 * baseH));
  const footBottom = text.y1;
  if (foot) text.y1 -= Math.ceil(foot.lines.length * LINE_HEIGHT * foot.style.size) + blockGap(f.floor);
  // Continuous tape may take more lines as it grows.
  const fit = fitChecked(textBlocks(c), text, max, captionPx ? Math.floor(captionPx * 0.7) : undefined, fixed ? 2 : 6, f, m, fixed ? 2 : 4);
  const used = stackHeight(fit.blocks);
  placeText(items, fit.blocks, Math.round(text.y0 + Math.max(0, (text.y1 - text.y0 - used) / 2)), text, 'left');
  if (foot) {
    const top = Math.round(footBottom - foot.lines.length * LINE_HEIGHT * foot.style.size);
    placeText(items, [foot], top, { x0: text.x0, y0: text.y1 + 1, x1: text.x1, y1: footBottom }, 'left');
  }
  return { layout: { stock: f.stock, warnings: c.warnings, width: w, height: h, rotate90: false, items }, fit };
}

function tall(c: LabelContent, f: Frame, w: number, h: number, m: Measures): Arranged {
  const { margin } = f;
  const items: Placed[] = [];
  const inner: Box = { x0: margin, y0: margin, x1: w - margin, y1: h - margin };
  let bottom = inner.y1;
  const foot = footerFor(c, { ...inner, y1: inner.y0 + Math.round(h * 0.3) }, f, m, Math.round(0.04 * w));
  if (foot) {
    const fh = Math.ceil(foot.lines.length * LINE_HEIGHT * foot.style.size);
    placeText(items, [foot], bottom - fh, { ...inner, y0: bottom - fh - 1, y1: h - margin }, 'center');
    bottom -= fh + blockGap(f.floor);
  }
  // The linear code: beside the 2D code with bars across the head where that fits, else under it.
  let bars: BarsBlock | undefined;
  if (c.code1d) {
    for (const module of barModules(f.stock.dpi).concat(2)) {
      const across = barsBlock(c.code1d, module, f.goodBars, f, w, m);
      const fitsAcross = f.goodBars === 'horizontal' ? across.cross <= 0.4 * w && across.run <= 0.6 * h : across.run <= w;
      if (fitsAcross) {
        bars = across;
        break;
      }
    }
    if (!bars) {
      for (const module of barModules(f.stock.dpi).concat(2)) {
        const v = barsBlock(c.code1d, module, 'vertical', f, w, m);
        if (v.run <= w) {
          bars = v;
          break;
        }
      }
    }
    if (!bars) throw tooSmall('the asset barcode', f);
  }
  const beside = bars?.bars === 'horizontal';
  const codeW = beside ? w - bars!.cross - margin : w;
  const underH = bars && !beside ? bars.cross + Math.round(margin / 2) : 0;
  // Text gets what is left after a 2D code of at least ~40% of the label's height.
  let minSide = 0;
  if (c.code2d) {
    const p = place2d(c.code2d, Math.round(Math.min(codeW, h * 0.4)), f);
    if (!p) throw tooSmall('the 2D code', f);
    minSide = (p.symbol.cols + 2 * p.symbol.quiet) * p.module;
  }
  const minGroup = Math.max(minSide, beside ? bars!.run : 0) + underH;
  const textBox: Box = { ...inner, y1: Math.max(inner.y0 + f.floor * 2, bottom - minGroup) };
  const captionPx = bars?.captionSize;
  const fit = fitChecked(textBlocks(c), textBox, captionPx ? Math.floor(captionPx * 0.85) : f.ceil, captionPx ? Math.floor(captionPx * 0.7) : undefined, 3, f, m);
  const textEnd = Math.ceil(placeText(items, fit.blocks, margin, textBox, 'center'));
  const room = bottom - textEnd - Math.round(margin / 2);
  let side = 0;
  let code: { symbol: MatrixSymbol; module: number } | null = null;
  if (c.code2d) {
    code = place2d(c.code2d, Math.min(codeW, room - underH, Math.round(h * 0.6)), f) ?? place2d(c.code2d, minSide, f);
    if (!code) throw tooSmall('the 2D code', f);
    side = (code.symbol.cols + 2 * code.symbol.quiet) * code.module;
  }
  const groupH = Math.max(side, beside ? bars!.run : 0) + underH;
  const top = Math.round(textEnd + Math.max(0, (bottom - textEnd - groupH) / 2));
  // Text never reaches into the codes' quiet zones, whatever its ink does.
  for (const item of items) if (item.kind === 'text' && item.clip.y1 > top && item.clip.y0 < top) item.clip = { ...item.clip, y1: top };
  const groupW = side + (beside ? bars!.cross + Math.round(margin / 2) : 0);
  const left = Math.max(0, Math.floor((w - groupW) / 2));
  if (code) {
    const q = code.symbol.quiet * code.module;
    items.push({ kind: 'matrix', x: left + q, y: top + q, module: code.module, symbol: code.symbol });
  }
  if (bars) {
    if (beside) placeBars(bars, Math.min(w - margin - bars.cross, left + side + Math.round(margin / 2)), top + Math.round((Math.max(side, bars.run) - bars.run) / 2), items, f);
    else placeBars(bars, Math.max(0, Math.floor((w - bars.run) / 2)), top + side + Math.round(margin / 2), items, f);
  }
  return { layout: { stock: f.stock, warnings: c.warnings, width: w, height: h, rotate90: false, items }, fit };
}

export function layoutLabel(content: LabelContent, stock: Stock, m: Measures): Layout {
  const rotated = stock.orientation === 'rotated';
  const longSide = Math.max(stock.widthDots, stock.maxLengthDots);
  if (content.code1d && (content.code1d.modules + 2 * content.code1d.quiet) * 2 > longSide) {
    // Too long for this stock even at 2-dot modules (12 digits on 23 mm): its caption becomes the title, the 2D code carries it.
    const caption = content.code1d.text;
    content = { ...content, code1d: undefined, blocks: [{ role: 'title', text: caption }, ...content.blocks.map((b) => ({ ...b, role: 'line' as const }))], warnings: [...content.warnings, 'code-omitted'] };
  }
  // Design size: across the long side for rotated stock.
  const across = stock.widthDots;
  const arrange = (length: number, fixed: boolean): Arranged => {
    const [w, h] = rotated ? [length, across] : [across, length];
    const f = frame(content, stock, w, h);
    return w >= h ? wide(content, f, w, h, fixed, m, content.warnings) : tall(content, f, w, h, m);
  };
  let result: Arranged;
  if (stock.lengthDots !== null) result = arrange(stock.lengthDots, true);
  else {
    // Continuous tape: the shortest length at which everything fits whole at its size; else the one with the largest text.
    const lengths = [1, 1.25, 1.5, 2, 3, 4].map((k) => Math.min(stock.maxLengthDots, Math.round(stock.minLengthDots * k)));
    let best: Arranged | undefined;
    for (const len of [...new Set(lengths)]) {
      const a = arrange(len, false);
      if (a.fit.complete) {
        best = a;
        break;
      }
      if (!best || a.fit.titleSize > best.fit.titleSize) best = a;
    }
    result = best!;
  }
  return { ...result.layout, rotate90: rotated };
}
