/**
 * Element designs (docs/labels-and-templates.md "Element designs"): text, codes, the logo,
 * rules and frames, each in a box in millimetres on the stock's printable area. An element
 * design becomes the same Layout (layout.ts Placed items) a line design does, so painting,
 * the 1-bit and two-colour rasters, sheets and every label path are shared; text is fitted
 * with text.ts's wrap and ellipsize, codes with symbols.ts's encoders and module rules.
 */
import type { Stock } from './stock.js';
import { placeInGrid, type ElementGrid, type GridCell, type MmBox } from './grid.js';
export { GridError, type ElementGrid, type GridCell, type MmBox } from './grid.js';
import type { Bitmap } from './design.js';
import { CodeFitError, type Box, type Layout, type Measures, type Placed } from './layout.js';
import { ASCENT, DESCENT, ellipsize, isRtl, LINE_HEIGHT, styleFont, wrap } from './text.js';
import { parsePlaceholders } from './placeholders.js';
import type { Template } from './design.js';
import { isMatrixSymbology, SYMBOLOGIES, type BarsSymbol, type MatrixSymbol, type Symbology } from './symbols.js';

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

/** The area a grid divides, in mm: the printable area, on continuous tape as long as the stock's shortest label (rounded down to 0.1 mm). */
export function gridAreaMm(stock: Stock): { width: number; height: number } {
  const length = stock.lengthDots ?? stock.minLengthDots;
  const [w, h] = stock.orientation === 'rotated' ? [length, stock.widthDots] : [stock.widthDots, length];
  const mm = (dots: number) => Math.floor((dots / stock.dpi) * 254) / 10;
  return { width: mm(w), height: mm(h) };
}

/**
 * The design's elements with a box each, on this stock (grid.ts placeInGrid over gridAreaMm):
 * GridError for a cell outside the grid, a cell without a grid, or tracks that do not fit.
 */
export function placeOnGrid<E extends { box?: MmBox; cell?: GridCell }>(elements: readonly E[], grid: ElementGrid | undefined, stock: Stock): (Omit<E, 'cell'> & { box: MmBox })[] {
  return placeInGrid(elements, grid, { ...gridAreaMm(stock), name: stock.name });
}

export type QuarterTurns = 0 | 1 | 2 | 3;

/** An element of a design (the spec's TemplateElement, with its placeholders not yet filled). */
export type ElementSpec =
  | { type: 'text'; box: MmBox; text: string; pt?: { min: number; max: number }; weight?: 'regular' | 'bold'; align?: Align; lines?: number; rotation?: QuarterTurns; colour?: 'black' | 'red' }
  | { type: 'code'; box: MmBox; symbology: Symbology; data?: string; rotation?: QuarterTurns; colour?: 'black' | 'red' }
  | { type: 'image'; box: MmBox; align?: Align; rotation?: QuarterTurns; colour?: 'black' | 'red' }
  | { type: 'line' | 'frame'; box: MmBox; thicknessMm?: number; colour?: 'black' | 'red' };
export type Align = 'start' | 'centre' | 'end';

/** An element with its record's values filled in (content.ts): text '' is left out; a code without data too. */
export type ResolvedElement =
  | { type: 'text'; box: MmBox; text: string; pt: { min: number; max: number }; bold: boolean; align: Align; lines: number; rotation: QuarterTurns; red?: true }
  | { type: 'code'; box: MmBox; symbology: Symbology; data: string; rotation: QuarterTurns; red?: true }
  | { type: 'image'; box: MmBox; align: Align; rotation: QuarterTurns; red?: true }
  | { type: 'line' | 'frame'; box: MmBox; thicknessMm: number; red?: true };

export const DEFAULT_ELEMENT_PT = { min: 7, max: 36 };
const DEFAULT_THICKNESS_MM = 0.3;

/**
 * Whether a template's element designs name `{today}` or `{counter}`: only their labels
 * carry the day or their place in a batch (LabelRecord.today, .counter), so only their
 * keys and ETags change with them (label-cache.ts) and every other label keeps its cache.
 */
export function templateUses(template: Pick<Template, 'designs'>, name: 'today' | 'counter'): boolean {
  let names = usedNames.get(template.designs);
  if (!names) {
    names = new Set<string>();
    for (const d of Object.values(template.designs))
      for (const el of d.elements ?? []) {
        const text = el.type === 'text' ? el.text : el.type === 'code' ? (el.data ?? '') : '';
        for (const p of parsePlaceholders(text)) if ('name' in p) names.add(p.name);
      }
    usedNames.set(template.designs, names);
  }
  return names.has(name);
}
/** Per designs object (a saved template's are made once per revision, built-ins' once): asked on every label. */
const usedNames = new WeakMap<object, Set<string>>();

/** The default data of a code element: the record's URL in a 2D code, an asset id's digits in a Code 128. */
export function defaultCodeData(symbology: Symbology): string {
  return isMatrixSymbology(symbology) ? '{url}' : '{assetDigits}';
}

/** An element with its placeholders filled by `fill` ('' where the record lacks one), its defaults in. */
export function resolveElement(el: ElementSpec, fill: (text: string) => string, red: (colour: 'black' | 'red' | undefined) => { red?: true }): ResolvedElement {
  const ink = red(el.colour);
  switch (el.type) {
    case 'text':
      return { type: 'text', box: el.box, text: fill(el.text), pt: el.pt ?? DEFAULT_ELEMENT_PT, bold: el.weight === 'bold', align: el.align ?? 'start', lines: el.lines ?? 1, rotation: el.rotation ?? 0, ...ink };
    case 'code':
      return { type: 'code', box: el.box, symbology: el.symbology, data: fill(el.data ?? defaultCodeData(el.symbology)), rotation: el.rotation ?? 0, ...ink };
    case 'image':
      return { type: 'image', box: el.box, align: el.align ?? 'centre', rotation: el.rotation ?? 0, ...ink };
    default:
      return { type: el.type, box: el.box, thicknessMm: el.thicknessMm ?? DEFAULT_THICKNESS_MM, ...ink };
  }
}

const pt = (points: number, dpi: number) => Math.round((points / 72) * dpi);

/** The element design's layout on the stock: the same placed items a line design becomes (layout.ts). */
export function layoutElements(elements: readonly ResolvedElement[], logo: Bitmap | undefined, stock: Stock, m: Measures, warnings: string[]): Layout {
  const area = elementArea(stock);
  const dots = (mm: number) => mmToDots(mm, stock);
  const boxes = elements.map((el) => {
    const x0 = Math.min(area.width, dots(el.box.x));
    const y0 = Math.min(area.height, dots(el.box.y));
    return { x0, y0, x1: Math.min(area.width, x0 + dots(el.box.width)), y1: Math.min(area.height, y0 + dots(el.box.height)) };
  });
  // Continuous tape: as long as its lowest box (along the feed: x on rotated stock), at least its shortest label.
  const along = stock.orientation === 'rotated' ? 'x1' : 'y1';
  const length = stock.lengthDots ?? Math.max(stock.minLengthDots, ...boxes.map((b) => b[along]));
  const [width, height] = stock.orientation === 'rotated' ? [length, area.height] : [area.width, length];
  const items: Placed[] = [];
  const out = new Set<string>(warnings);
  elements.forEach((el, i) => {
    const box = boxes[i]!;
    if (box.x1 <= box.x0 || box.y1 <= box.y0) return;
    if (el.type === 'text') {
      if (el.text === '') return;
      if (!placeText(el, box, stock, m, items)) out.add('text-shortened');
    } else if (el.type === 'code') {
      if (el.data !== '') placeCode(el, i, box, stock, items);
    } else if (el.type === 'image') {
      if (logo) placeImage(el, box, logo, items);
    } else {
      const t = Math.max(1, dots(el.thicknessMm));
      const ink = el.red ? { red: true as const } : {};
      const rect = (x: number, y: number, w: number, h: number) => items.push({ kind: 'rect', x, y, w, h, ...ink });
      const [w, h] = [box.x1 - box.x0, box.y1 - box.y0];
      if (el.type === 'line') {
        if (w >= h) rect(box.x0, box.y0 + Math.floor((h - t) / 2), w, Math.min(t, h));
        else rect(box.x0 + Math.floor((w - t) / 2), box.y0, Math.min(t, w), h);
      } else {
        const tt = Math.min(t, Math.floor(w / 2), Math.floor(h / 2));
        rect(box.x0, box.y0, w, tt);
        rect(box.x0, box.y1 - tt, w, tt);
        rect(box.x0, box.y0 + tt, tt, h - 2 * tt);
        rect(box.x1 - tt, box.y0 + tt, tt, h - 2 * tt);
      }
    }
  });
  return { stock, warnings: [...out], width, height, rotate90: stock.orientation === 'rotated', items };
}

/**
 * Text in its box: the largest size of its range (whole dots) at which it wraps within its lines
 * and their height fits the box (turned a quarter: the box's height is the line's length), else at
 * the smallest size, shortened with an ellipsis. Returns false when it was shortened.
 */
function placeText(el: Extract<ResolvedElement, { type: 'text' }>, box: Box, stock: Stock, m: Measures, items: Placed[]): boolean {
  const turned = el.rotation % 2 === 1;
  const [run, cross] = turned ? [box.y1 - box.y0, box.x1 - box.x0] : [box.x1 - box.x0, box.y1 - box.y0];
  const weight = el.bold ? 'bold' : 'normal';
  const min = Math.max(1, pt(el.pt.min, stock.dpi));
  const max = Math.max(min, pt(el.pt.max, stock.dpi));
  const minFont = styleFont({ size: min, weight });
  // The largest size that fits, by bisection (a smaller size fits wherever a larger one does).
  const attempt = (size: number): string[] | null => {
    const l = wrap(el.text, run, el.lines, styleFont({ size, weight }), m.advance, false, minFont);
    return l && l.length * LINE_HEIGHT * size <= cross ? l : null;
  };
  let size = min;
  let lines = attempt(min);
  if (lines) {
    let [lo, hi] = [min, max];
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      const l = attempt(mid);
      if (l) [lo, lines] = [mid, l];
      else hi = mid - 1;
    }
    size = lo;
  }
  let whole = true;
  if (!lines) {
    size = min;
    const fit = Math.max(1, Math.min(el.lines, Math.floor(cross / (LINE_HEIGHT * size))));
    lines = wrap(el.text, run, fit, minFont, m.advance, true) ?? [ellipsize(el.text, run, minFont, m.advance)];
    whole = false;
  }
  const font = styleFont({ size, weight });
  const rtl = isRtl(el.text);
  // 'start' is the right edge for right-to-left text.
  const side = el.align === 'centre' ? 'center' : (el.align === 'start') !== rtl ? 'left' : 'right';
  const lineH = LINE_HEIGHT * size;
  const top = Math.round((cross - lines.length * lineH) / 2);
  const ink = el.red ? { red: true as const } : {};
  lines.forEach((text, k) => {
    // Along the run: offset from the run's start; across: the baseline's distance from the box's top edge (in the text's own frame).
    const along = side === 'left' ? 0 : side === 'right' ? run : Math.round(run / 2);
    const base = top + Math.round(k * lineH + ((LINE_HEIGHT - ASCENT - DESCENT) / 2 + ASCENT) * size);
    // The text's frame turned into the box: (along, base) to design coordinates.
    const [x, y] =
      el.rotation === 0 ? [box.x0 + along, box.y0 + base]
      : el.rotation === 1 ? [box.x1 - base, box.y0 + along]
      : el.rotation === 2 ? [box.x1 - along, box.y1 - base]
      : [box.x0 + base, box.y1 - along];
    items.push({ kind: 'text', x, y, text, font, align: side, rtl, rotate: ((el.rotation * 90) as 0 | 90 | 180 | 270), clip: box, ...ink });
  });
  return whole;
}

/** A code at the largest whole-dot module that fits its box with its quiet zone, centred; below the symbology's smallest module: CodeFitError. */
function placeCode(el: Extract<ResolvedElement, { type: 'code' }>, index: number, box: Box, stock: Stock, items: Placed[]): void {
  const [w, h] = [box.x1 - box.x0, box.y1 - box.y0];
  const ink = el.red ? { red: true as const } : {};
  if (el.symbology === 'code128') {
    const s = SYMBOLOGIES.code128;
    let symbol: BarsSymbol;
    try {
      symbol = s.encode(el.data, el.data, false);
    } catch (err) {
      throw new CodeFitError(`element ${index}: ${err instanceof Error ? err.message : String(err)}`, index);
    }
    const turned = el.rotation % 2 === 1;
    const [run, cross] = turned ? [h, w] : [w, h];
    const module = Math.floor(run / (symbol.modules + 2 * symbol.quiet));
    // Bars across the print head take 3 dots at least (layout.ts's sturdy rule); along it, 4.
    const least = s.modules.lastResort;
    if (module < least) throw new CodeFitError(`element ${index}: the Code 128 of ${JSON.stringify(el.data)} needs ${(symbol.modules + 2 * symbol.quiet) * least} dots with its quiet zones, its box has ${run} on ${stock.name}`, index);
    const length = cross;
    const span = symbol.modules * module;
    const start = Math.floor((run - span) / 2);
    items.push(turned ? { kind: 'bars', x: box.x0, y: box.y0 + start, module, length, bars: 'horizontal', symbol, ...ink } : { kind: 'bars', x: box.x0 + start, y: box.y0, module, length, bars: 'vertical', symbol, ...ink });
    return;
  }
  const s = SYMBOLOGIES[el.symbology];
  let symbol: MatrixSymbol;
  try {
    symbol = s.encode(el.data, s.levels?.usual);
  } catch (err) {
    throw new CodeFitError(`element ${index}: ${err instanceof Error ? err.message : String(err)}`, index);
  }
  const module = Math.floor(Math.min(w, h) / (symbol.cols + 2 * symbol.quiet));
  if (module < s.minModule)
    throw new CodeFitError(`element ${index}: the ${s.title} of ${JSON.stringify(el.data)} needs ${(symbol.cols + 2 * symbol.quiet) * s.minModule} dots square with its quiet zone, its box is ${w} x ${h} on ${stock.name}`, index);
  const side = symbol.cols * module;
  items.push({ kind: 'matrix', x: box.x0 + Math.floor((w - side) / 2), y: box.y0 + Math.floor((h - side) / 2), module, symbol, ...ink });
}

/** The logo turned and scaled down (whole dots, nearest neighbour) into its box, placed by its alignment. */
function placeImage(el: Extract<ResolvedElement, { type: 'image' }>, box: Box, logo: Bitmap, items: Placed[]): void {
  const turned = turnBitmap(logo, el.rotation);
  const [w, h] = [box.x1 - box.x0, box.y1 - box.y0];
  const scale = Math.min(1, w / turned.width, h / turned.height);
  const bitmap = scale < 1 ? scaleBitmap(turned, Math.max(1, Math.floor(turned.width * scale)), Math.max(1, Math.floor(turned.height * scale))) : turned;
  const x = el.align === 'start' ? box.x0 : el.align === 'end' ? box.x1 - bitmap.width : box.x0 + Math.floor((w - bitmap.width) / 2);
  items.push({ kind: 'bitmap', x, y: box.y0 + Math.floor((h - bitmap.height) / 2), bitmap, ...(el.red ? { red: true as const } : {}) });
}

function dark(b: Bitmap, x: number, y: number): boolean {
  const stride = ((b.width + 7) >> 3) + 1;
  return (b.rows[y * stride + 1 + (x >> 3)]! & (0x80 >> (x & 7))) === 0;
}

/** A 1-bit picture of width x height whose dot (x, y) is dark where `at(x, y)` is (PNG scanlines as Bitmap). */
function bitmapOf(width: number, height: number, at: (x: number, y: number) => boolean): Bitmap {
  const stride = ((width + 7) >> 3) + 1;
  const rows = new Uint8Array(stride * height).fill(0xff);
  for (let y = 0; y < height; y++) {
    rows[y * stride] = 0;
    for (let x = 0; x < width; x++) if (at(x, y)) rows[y * stride + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
  }
  return { width, height, rows };
}

/** The picture turned clockwise by quarter turns. */
export function turnBitmap(b: Bitmap, turns: QuarterTurns): Bitmap {
  if (turns === 0) return b;
  if (turns === 2) return bitmapOf(b.width, b.height, (x, y) => dark(b, b.width - 1 - x, b.height - 1 - y));
  // A clockwise quarter: new (x, y) shows old (y, height - 1 - x); three quarters: old (width - 1 - y, x).
  return turns === 1 ? bitmapOf(b.height, b.width, (x, y) => dark(b, y, b.height - 1 - x)) : bitmapOf(b.height, b.width, (x, y) => dark(b, b.width - 1 - y, x));
}

function scaleBitmap(b: Bitmap, width: number, height: number): Bitmap {
  return bitmapOf(width, height, (x, y) => dark(b, Math.floor((x * b.width) / width), Math.floor((y * b.height) / height)));
}
