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
import { ProblemError } from '../errors.js';
import type { LabelContent } from './content.js';
import type { Bitmap } from './design.js';
import { PATH_SEPARATOR } from './content.js';
import { paperDots, type Stock } from './stock.js';
import { SYMBOLOGIES, type BarsSymbol, type EcLevel, type MatrixSymbol, type MatrixSymbology } from './symbols.js';
import {
  ASCENT,
  blockGap,
  breakUnits,
  DESCENT,
  ELLIPSIS,
  fitBlocks,
  fitFooter,
  isRtl,
  LINE_HEIGHT,
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
      /** Turned clockwise about (x, y) by this many degrees (90: reads top to bottom). */
      rotate: 0 | 90 | 180 | 270;
      /** Nothing of this text is drawn outside this box (design coordinates). */
      clip: Box;
      /** Drawn in the red plane (a two-colour stock); absent: black. The same on every kind of item. */
      red?: true;
    }
  | { kind: 'matrix'; x: number; y: number; module: number; symbol: MatrixSymbol; red?: true }
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
      red?: true;
    }
  | { kind: 'bitmap'; x: number; y: number; bitmap: Bitmap; red?: true }
  /** A filled rectangle of whole dots (an element design's rules and frames, elements.ts). */
  | { kind: 'rect'; x: number; y: number; w: number; h: number; red?: true };

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

/** The label cannot be drawn legibly on this stock (e.g. a code too dense for it): the record is fine, the client can choose other stock. */
export class LabelFitError extends ProblemError {
  override name = 'LabelFitError';
  constructor(message: string) {
    super('invalid-request', message, { detail: `${message}; choose a larger template.` });
  }
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
  /** Largest secondary line in px where the title's largest size grew with the stock (LabelContent.textPt.grownFrom). */
  lineCeil?: number;
  /** Bars along the design's x axis run across the print head when the design is rotated. */
  goodBars: 'vertical' | 'horizontal';
  /** Unprinted paper below the design's bottom edge (stock.ts paperDots), in dots. */
  paperBelow: number;
  /** A 2D code's quiet zone may lie in that paper (tried where the QR code leaves no line for the title otherwise). */
  paperQuiet: boolean;
}

const pt = (points: number, dpi: number) => Math.round((points / 72) * dpi);
/** Secondary lines' size as a share of the title's. */
const LINE_RATIO = 0.62;

function frame(content: LabelContent, stock: Stock, w: number, h: number, paperQuiet = false): Frame {
  const dpmm = stock.dpi / 25.4;
  // A sheet fed through an office printer lands up to a millimetre or so off its die-cut: cells keep
  // 1.6 mm, about gLabels' markup margin on these sheets (1/16 in, templates/avery-us-templates.xml).
  const least = stock.pagePrinter ? 1.6 : 1.2;
  const margin = Math.round(Math.max(least * dpmm, Math.min(3 * dpmm, 0.06 * Math.min(w, h))));
  return {
    stock,
    dpmm,
    margin,
    floor: pt(content.textPt.min, stock.dpi),
    ceil: pt(content.textPt.max, stock.dpi),
    ...(content.textPt.grownFrom ? { lineCeil: Math.round(pt(content.textPt.grownFrom, stock.dpi) * LINE_RATIO) } : {}),
    goodBars: stock.orientation === 'rotated' ? 'vertical' : 'horizontal',
    // A rotated design's bottom edge is the PNG's left edge: paper across the head; else along the feed.
    paperBelow: paperDots(stock)[stock.orientation === 'rotated' ? 'across' : 'along'],
    paperQuiet,
  };
}

/** What layout knows of the 2D code's symbology (symbols.ts SYMBOLOGIES). */
const sym2d = (spec: NonNullable<LabelContent['code2d']>): MatrixSymbology => SYMBOLOGIES[spec.symbology];

/**
 * Side of the smallest square that holds the 2D code at `module` (default: its
 * symbology's smallest module), quiet zone included.
 */
function min2dSide(spec: NonNullable<LabelContent['code2d']>, module = sym2d(spec).minModule): number {
  const s = sym2d(spec);
  return (s.leastModulesAcross(spec.data) + 2 * s.quiet) * module;
}

/** Side of the square that holds the 2D code at its preferred module (symbols.ts MatrixSymbology.preferredModule). */
const preferred2dSide = (spec: NonNullable<LabelContent['code2d']>) => min2dSide(spec, sym2d(spec).preferredModule);

/**
 * The 2D code for a square of `side` dots: the largest module that fits, and
 * (where the symbology has a choice) the strongest error correction that keeps
 * that module, so spare room buys damage tolerance instead of nothing. Encoded
 * once, here.
 */
function place2d(spec: NonNullable<LabelContent['code2d']>, side: number): { symbol: MatrixSymbol; module: number } | null {
  const s = sym2d(spec);
  const moduleAt = (level: EcLevel | undefined) => {
    const n = s.modulesAcross(spec.data, level);
    return n === undefined ? 0 : Math.floor(side / (n + 2 * s.quiet));
  };
  let level = s.levels?.usual;
  const m = moduleAt(level);
  if (m >= s.minModule) {
    for (const l of s.levels?.stronger ?? []) {
      if (moduleAt(l) >= m) {
        level = l;
        break;
      }
    }
  } else if (s.levels && moduleAt(s.levels.fallback) >= s.minModule) level = s.levels.fallback;
  else return null;
  const symbol = s.encode(spec.data, level);
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

/**
 * Where a linear code may go, best first (measured with the robustness suite):
 * bars across the print head (a dead element leaves a thin gap across every
 * bar instead of splitting one) before bars along it, each with its symbology's
 * preferred module widths (symbols.ts LinearSymbology.modules) before its last
 * resort, and that only where the 2D code keeps its smallest module. Only the
 * first choice reads after every degradation; a sturdy code (CodeSpec.sturdy)
 * takes it or is left out.
 */
const BAR_CHOICES = (c: LabelContent, f: Frame, across: 'vertical' | 'horizontal', along: 'vertical' | 'horizontal') => {
  const { preferred, lastResort } = SYMBOLOGIES[c.code1d!.symbology].modules;
  const all: (readonly ['vertical' | 'horizontal', number])[] = [
    ...preferred.map((m) => [across, m] as const),
    ...preferred.map((m) => [along, m] as const),
    [across, lastResort],
    [along, lastResort],
  ];
  // Where text grew with the stock (LabelContent.textPt.grownFrom), bars grow as much first: the
  // caption under them stays the largest text, and wider bars only read more easily.
  const grown = c.textPt.grownFrom ? Math.round((preferred[0]! * c.textPt.max) / c.textPt.grownFrom) : preferred[0]!;
  if (grown > preferred[0]!) all.unshift([across, grown]);
  // A sturdy code (the standard asset barcode) takes the first choice (grown bars, else its best across) or none on a thermal printer.
  return c.code1dSturdy && !f.stock.pagePrinter ? all.slice(0, grown > preferred[0]! ? 2 : 1) : all;
};

/** The linear code has the first of BAR_CHOICES: its best module width, bars across the print head. */
const bestBars = (b: BarsBlock | undefined, f: Frame) => !b || (b.module >= SYMBOLOGIES[b.symbol.symbology].modules.preferred[0]! && b.bars === f.goodBars);

/** The linear code fits nowhere: it is left out (layoutLabel) and the 2D code carries the record. */
class NoRoomForBars extends Error {}
/**
 * The stock's 2D code does not fit, or leaves no line for the title: a smaller symbology may (LabelContent.code2d.smaller:
 * a DataMatrix for the QR code). `paperMayHelp`: it is the title's line that is missing, and the code's quiet zone could go
 * on into the paper below (belowMargin).
 */
class Code2dNoRoom extends Error {
  constructor(readonly paperMayHelp = false) {
    super();
  }
}

/** `red`: the bars and their caption in the red plane (LabelContent.code1dRed). */
function placeBars(b: BarsBlock, x: number, y: number, items: Placed[], f: Frame, red: boolean): void {
  const ink = red ? { red: true as const } : {};
  const q = b.symbol.quiet * b.module;
  const font = styleFont({ size: b.captionSize, weight: 'bold' });
  const capH = Math.round((ASCENT + DESCENT) * b.captionSize);
  if (b.bars === 'vertical') {
    items.push({ kind: 'bars', x: x + q, y, module: b.module, length: b.barLength, bars: 'vertical', symbol: b.symbol, ...ink });
    const base = y + b.barLength + b.gap + Math.round(ASCENT * b.captionSize);
    const clip = { x0: x, y0: y + b.barLength + 1, x1: x + b.run, y1: y + b.cross + 1 };
    items.push({ kind: 'text', x: x + Math.round(b.run / 2), y: base, text: b.symbol.text, font, align: 'center', rtl: false, rotate: 0, clip, ...ink });
  } else {
    // Turned clockwise: the caption, under the bars before turning, is now at their left, reading top to bottom.
    const barsX = x + b.cross - b.barLength;
    items.push({ kind: 'bars', x: barsX, y: y + q, module: b.module, length: b.barLength, bars: 'horizontal', symbol: b.symbol, ...ink });
    const baselineX = x + Math.round(DESCENT * b.captionSize);
    const clip = { x0: x, y0: y, x1: barsX - 1, y1: y + b.run };
    items.push({ kind: 'text', x: baselineX, y: y + Math.round(b.run / 2), text: b.symbol.text, font, align: 'center', rtl: false, rotate: 90, clip, ...ink });
  }
  void capH;
  void f;
}

/** Text blocks of the content, title first. */
function textBlocks(c: LabelContent): TextBlock[] {
  return c.blocks.map((b) => ({ text: b.text, segments: b.segments, sep: PATH_SEPARATOR, bold: b.role === 'title', ...(b.keep ? { keep: true } : {}), ...(b.red ? { red: true as const } : {}) }));
}

/** The warnings of kept lines (ContentBlock.keep) the fit did not draw whole. */
function keptLost(c: LabelContent, fit: FitResult): string[] {
  return c.blocks.filter((b) => b.keep && !fit.blocks.some((f) => f.lines.join(' ') === b.text)).map((b) => b.keep!);
}

/** What the layout tells the reader about its text: kept lines not drawn whole, and text shortened to fit. */
function textWarnings(c: LabelContent, fit: FitResult): string[] {
  // A kept line may warn with text-shortened itself (a custom field's date, content.ts): each word once.
  return [...new Set([...keptLost(c, fit), ...(fit.shortened ? ['text-shortened'] : [])])];
}

/** The title was broken inside a word (a unit of text.ts breakUnits) for want of width. */
function brokenWord(c: LabelContent, fit: FitResult): boolean {
  const title = c.blocks[0];
  const lines = fit.blocks[0]?.lines;
  if (!title || title.whole || !lines || lines.length < 2) return false;
  const starts = new Set<number>();
  let at = 0;
  for (const u of breakUnits(title.text)) {
    starts.add(at);
    at += u.length;
  }
  let from = 0;
  for (const line of lines.slice(1)) {
    const i = title.text.indexOf(line.replace(ELLIPSIS, ''), from);
    if (i < 0) return false; // a path's or shortened line: not comparable
    if (!starts.has(i)) return true;
    from = i + 1;
  }
  return false;
}

/** Height of the kept lines (ContentBlock.keep) at the smallest size, one line each, with their gaps. */
function keptHeight(c: LabelContent, f: Frame): number {
  return c.blocks.filter((b) => b.keep).length * (Math.ceil(LINE_HEIGHT * f.floor) + blockGap(f.floor));
}

/**
 * How far a line reaches above and below its baseline: the font's ascent and
 * descent, or the line's real ink where that reaches further (stacked
 * combining marks, Thai vowels above tall consonants), plus a dot for hinting.
 * Lines are stacked by these, so no line's ink reaches into its neighbour's.
 */
function lineExtent(m: Measures, font: string, size: number, text: string, tight = false): [above: number, below: number] {
  const ink = m.ink(font, text);
  // Tight (FittedBlock.tight): the ink itself and a fifth of the size between lines.
  if (tight) return [ink.ascent + 1, ink.descent + 1 + Math.round(0.2 * size)];
  return [Math.max(ASCENT * size, ink.ascent + 1), Math.max(DESCENT * size, ink.descent + 1)];
}

/** Each line's extent (lineExtent), block by block. */
function lineExtents(blocks: FittedBlock[], m: Measures): [above: number, below: number][][] {
  return blocks.map((b) => {
    const font = styleFont(b.style);
    return b.lines.map((l) => lineExtent(m, font, b.style.size, l, b.tight));
  });
}

/** Height of stacked blocks with each line as tall as its ink (see lineExtent). */
function inkStackHeight(blocks: FittedBlock[], m: Measures, extents = lineExtents(blocks, m)): number {
  let h = 0;
  blocks.forEach((b, i) => {
    if (i > 0) h += blockGap(b.style.size);
    for (const [above, below] of extents[i]!) h += above + below;
  });
  return h;
}

/**
 * Fits the text into `box` and checks every line's real ink at its real size
 * against the box: shrinks and refits when a line would reach past its width
 * (fallback glyphs and stacked marks draw wider than their advance) or the
 * lines, stacked by their ink, past its height.
 */
function fitChecked(blocks: TextBlock[], box: Box, max: number, lineMax: number | undefined, titleLines: number, f: Frame, m: Measures, lineLines = 2): FitResult {
  const w = box.x1 - box.x0;
  const h = box.y1 - box.y0;
  let top = Math.max(f.floor, Math.min(max, Math.floor(h / LINE_HEIGHT)));
  for (let round = 0; ; round++) {
    const r = fitBlocks(blocks, { max: top, min: f.floor, lineRatio: LINE_RATIO, lineMax: f.lineCeil === undefined ? lineMax : Math.min(lineMax ?? Infinity, f.lineCeil), titleLines, lineLines }, w, h, m.advance);
    const wide = r.blocks.some((b) =>
      b.lines.some((l) => {
        const ink = m.ink(styleFont(b.style), l);
        return ink.left + ink.right > w;
      }),
    );
    const tall = inkStackHeight(r.blocks, m) > h;
    if ((!wide && !tall) || r.titleSize <= f.floor || round > 8) return r;
    top = Math.max(f.floor, Math.floor(r.titleSize * 0.93));
  }
}

/**
 * An identifier title (ContentBlock.whole) that the fit had to shorten is drawn
 * whole instead: at the smallest size, wrapped at its dashes, its lines stacked
 * by their ink (digits have no descenders), alone: the other lines give way.
 */
function wholeTitle(c: LabelContent, fit: FitResult, box: Box, f: Frame, m: Measures): FitResult {
  const title = c.blocks[0];
  if (!title?.whole || !fit.blocks[0]?.lines.some((l) => l.includes(ELLIPSIS))) return fit;
  const style = { size: f.floor, weight: 'bold' as const };
  return { blocks: [{ lines: wholeLines(title.text, box.x1 - box.x0, f, m), style, tight: true, ...(title.red ? { red: true as const } : {}) }], complete: false, shortened: false, titleSize: f.floor };
}

/** An identifier at the smallest size in its dash-separated groups, as evenly over the fewest lines as fit ("999-999-" over "999-999"), a dash ending each line. */
function wholeLines(text: string, width: number, f: Frame, m: Measures): string[] {
  const font = styleFont({ size: f.floor, weight: 'bold' });
  const groups = text.split(/(?<=-)/);
  for (let n = 1; n < groups.length; n++) {
    const per = Math.ceil(groups.length / n);
    const chunks = Array.from({ length: Math.ceil(groups.length / per) }, (_, i) => groups.slice(i * per, (i + 1) * per).join(''));
    if (chunks.every((l) => m.advance(font, l) <= width)) return chunks;
  }
  return groups;
}

/**
 * Text ops for fitted blocks, stacked from `top` line by line as tall as their ink; returns the bottom.
 * Lines stacked by their ink overflow the box only where stacked marks are taller than it at the
 * smallest size: then the marks above the first line and below the last give way (the box clips
 * them), not the letters, which a clip at the bottom alone cut in half on tiny stock.
 */
function placeText(items: Placed[], blocks: FittedBlock[], top: number, box: Box, align: 'left' | 'center', m: Measures): number {
  const extents = lineExtents(blocks, m);
  const [trimTop, trimBottom] = marksToClip(blocks, extents, inkStackHeight(blocks, m, extents) - (box.y1 - top));
  let y = top - trimTop;
  blocks.forEach((b, i) => {
    if (i > 0) y += blockGap(b.style.size);
    const font = styleFont(b.style);
    // Direction is the paragraph's: a wrapped "12" stays aligned with its Arabic line.
    const rtl = isRtl(b.lines.join(' '));
    const ink = b.red ? { red: true as const } : {};
    b.lines.forEach((text, j) => {
      const [above, below] = extents[i]![j]!;
      const base = Math.round(y + above);
      if (align === 'center') items.push({ kind: 'text', x: Math.round((box.x0 + box.x1) / 2), y: base, text, font, align: 'center', rtl, rotate: 0, clip: box, ...ink });
      else items.push({ kind: 'text', x: rtl ? box.x1 : box.x0, y: base, text, font, align: rtl ? 'right' : 'left', rtl, rotate: 0, clip: box, ...ink });
      y += above + below;
    });
  });
  return y - trimBottom;
}

/** How much of the first line's ink above its font's ascent and the last line's below its descent may go, shared evenly, to absorb `over` dots. */
function marksToClip(blocks: FittedBlock[], extents: [number, number][][], over: number): [top: number, bottom: number] {
  const first = extents[0]?.[0];
  const last = extents.at(-1)?.at(-1);
  if (over <= 0 || !first || !last) return [0, 0];
  const excess = (b: FittedBlock, extent: number, side: 0 | 1) =>
    b.tight ? 0 : Math.max(0, Math.floor(extent - (side === 0 ? ASCENT : DESCENT) * b.style.size)); // tight: identifiers, no marks
  const [upTo, downTo] = [excess(blocks[0]!, first[0], 0), excess(blocks.at(-1)!, last[1], 1)];
  const bottom = Math.min(downTo, Math.max(Math.ceil(over / 2), over - upTo));
  return [Math.min(upTo, over - bottom), bottom];
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
  /** The linear code (if any) has its best module width with its bars across the head (bestBars). */
  bestBars: boolean;
  /** The stock's 2D code gave way to its smaller stand-in (Code2dNoRoom): its QR code to a DataMatrix. */
  smallerCode?: true;
}

function wide(c: LabelContent, f: Frame, w: number, h: number, fixed: boolean, m: Measures, warnings: string[]): Arranged {
  const { margin } = f;
  const items: Placed[] = [];
  const inner: Box = { x0: margin, y0: margin, x1: w - margin, y1: h - margin };
  const baseH = fixed ? h : f.stock.orientation === 'rotated' ? h : f.stock.minLengthDots;
  let rightEdge = inner.x1;
  let bottomBars: BarsBlock | undefined;
  let bars: BarsBlock | undefined;
  /** Largest 2D code that leaves the linear code its place beside it. */
  let maxSide = Infinity;

  if (c.code1d) {
    // Where the linear code goes: the first of BAR_CHOICES that fits.
    const codeW = c.code2d ? Math.min(baseH, Math.round(w * (w < 1.5 * h ? 0.62 : 0.45))) : 0;
    const column = inner.x1 - Math.max(inner.x0, codeW);
    const min2d = c.code2d ? min2dSide(c.code2d) : 0;
    let cap2d = Infinity;
    const tryBars = (bars: 'vertical' | 'horizontal', module: number): BarsBlock | undefined => {
      const b = barsBlock(c.code1d!, module, bars, f, baseH, m);
      if (bars === 'horizontal') return b.run <= h && b.cross <= 0.3 * w ? b : undefined;
      // Under the text beside the 2D code (its quiet zone may share the code's), else under both
      // if the 2D code keeps its smallest module in the height left.
      if (b.run - b.symbol.quiet * module <= column) return b;
      // Beside a 2D code kept at its smallest module.
      if (c.code2d) {
        const q = sym2d(c.code2d).quiet * sym2d(c.code2d).minModule;
        const right = Math.max(0, margin - q) + min2d - q + Math.round(margin * 0.75);
        if (b.run - b.symbol.quiet * module <= inner.x1 - Math.max(inner.x0, right)) {
          cap2d = min2d;
          return b;
        }
      }
      return b.run <= w && h - b.cross - margin >= min2d ? b : undefined;
    };
    const across = f.goodBars;
    const along = across === 'horizontal' ? 'vertical' : 'horizontal';
    for (const [orientation, module] of BAR_CHOICES(c, f, across, along)) {
      cap2d = Infinity;
      bars = tryBars(orientation, module);
      if (bars) break;
    }
    if (!bars) throw new NoRoomForBars();
    maxSide = cap2d;
    if (bars.bars === 'horizontal') {
      rightEdge = w - margin - bars.cross;
      placeBars(bars, rightEdge, Math.round((h - bars.run) / 2), items, f, c.code1dRed === true);
      rightEdge -= Math.round(margin / 2);
    } else bottomBars = bars;
  }

  // 2D code: a square as tall as the label (its quiet zone is the margin), at most ~45% of the width.
  let codeRight = 0;
  if (c.code2d) {
    let side = Math.min(baseH, Math.round(w * (w < 1.5 * h ? 0.62 : 0.45)));
    // On tiny stock the code takes what its smallest module needs; the text gets less.
    side = Math.max(side, Math.min(baseH, preferred2dSide(c.code2d)));
    side = Math.min(side, maxSide);
    // Bars that do not fit beside the code go under everything: the code shrinks to the height left.
    const under = bottomBars !== undefined && rightEdge - side < bottomBars.run - bottomBars.symbol.quiet * bottomBars.module;
    if (under) side = Math.min(side, h - bottomBars!.cross - margin);
    let placed = place2d(c.code2d, side);
    // Page printers (sheet cells): the code's ink keeps the margin from the die-cut too, not only its quiet zone.
    if (placed && f.stock.pagePrinter && !under) {
      const { symbol } = placed;
      const module = Math.floor((Math.min(h, baseH) - 2 * margin) / symbol.cols);
      // Where the code would not fit that way, it keeps its place with its quiet zone in the margin.
      if (module < placed.module) placed = place2d(c.code2d, module * (symbol.cols + 2 * symbol.quiet)) ?? placed;
    }
    if (placed) {
      const { symbol, module } = placed;
      const block = (symbol.cols + 2 * symbol.quiet) * module;
      const q = symbol.quiet * module;
      const x = Math.max(0, margin - q);
      const y = under ? Math.max(0, margin - q) : Math.floor((Math.min(h, baseH) - block) / 2);
      items.push({ kind: 'matrix', x: x + q, y: y + q, module, symbol, ...(c.code2d.red ? { red: true as const } : {}) });
      codeRight = x + block - q + Math.round(margin * 0.75);
    } else if (c.code2d.smaller) {
      throw new Code2dNoRoom();
    } else if (bottomBars) {
      // Tiny stock: the linear code already carries the asset id; the 2D code is left out (and said so).
      warnings.push('code-omitted');
    } else throw tooSmall(`the ${sym2d(c.code2d).title}`, f);
  }
  const text: Box = { x0: Math.max(inner.x0, codeRight), y0: inner.y0, x1: rightEdge, y1: inner.y1 };
  if (bottomBars) {
    const q = bottomBars.symbol.quiet * bottomBars.module;
    const fullWidth = text.x1 - text.x0 < bottomBars.run - q;
    const bx = fullWidth ? Math.round((w - bottomBars.run) / 2) : Math.max(text.x0 - q, Math.round((text.x0 + text.x1 - bottomBars.run) / 2));
    const by = h - margin - bottomBars.cross;
    placeBars(bottomBars, Math.max(0, Math.min(bx, w - bottomBars.run)), by, items, f, c.code1dRed === true);
    text.y1 = by - Math.round(margin / 2);
    // Bars under the text must leave it a line at the smallest size (short sheet cells: Avery L7656);
    // else the linear code gives way as for lack of room, and the name is not cut off by its box.
    const first = c.blocks[0];
    if (first) {
      const ink = m.ink(styleFont({ size: f.floor, weight: first.role === 'title' ? 'bold' : 'normal' }), first.text);
      if (text.y1 - text.y0 < Math.ceil(ink.ascent + ink.descent)) throw new NoRoomForBars();
    }
  }
  if (c.logo) {
    // The logo takes the corner of the text column away from the 2D code; the text keeps the rest.
    const gap = Math.round(margin / 2);
    if (c.logo.height > text.y1 - text.y0 || text.x1 - text.x0 - c.logo.width - gap < minTextWidth(c, f)) throw tooSmall('the logo (with the codes and text beside it)', f);
    items.push({ kind: 'bitmap', x: text.x1 - c.logo.width, y: text.y0, bitmap: c.logo });
    text.x1 -= c.logo.width + gap;
  }
  // As in the tall layout: built-in designs keep their text at the floor size; only a design that asks for more is refused.
  if (c.logo || c.textPt.min > 7) assertTextRoom(c, text, f);
  const captionPx = bars?.captionSize;
  const max = captionPx ? Math.floor(captionPx * 0.85) : f.ceil;
  const foot = footerFor(c, text, f, m, Math.round(0.1 * baseH));
  const footBottom = text.y1;
  if (foot) text.y1 -= Math.ceil(inkStackHeight([foot], m)) + blockGap(f.floor);
  // Continuous tape may take more lines as it grows.
  // A long name may take more lines where the box is tall enough for them at a readable size (continuous tape grows instead).
  const titleLines = fixed ? Math.max(2, Math.min(4, Math.floor((text.y1 - text.y0) / (LINE_HEIGHT * 2.5 * f.floor)))) : 6;
  const fit = wholeTitle(c, fitChecked(textBlocks(c), text, max, captionPx ? Math.floor(captionPx * 0.7) : undefined, titleLines, f, m, fixed ? 2 : 4), text, f, m);
  const used = inkStackHeight(fit.blocks, m);
  placeText(items, fit.blocks, Math.round(text.y0 + Math.max(0, (text.y1 - text.y0 - used) / 2)), text, 'left', m);
  if (foot) {
    const top = Math.round(footBottom - inkStackHeight([foot], m));
    placeText(items, [foot], top, { x0: text.x0, y0: text.y1 + 1, x1: text.x1, y1: footBottom }, 'left', m);
  }
  const placed = c.codePosition === 'right' ? items.map((item) => mirrored(item, w)) : items;
  return { layout: { stock: f.stock, warnings: [...c.warnings, ...textWarnings(c, fit)], width: w, height: h, rotate90: false, items: placed }, fit, bestBars: bestBars(bars, f) };
}

/**
 * An item moved to the mirror position across the label's width, its content
 * unchanged (codes are never mirrored): the 2D code on the right, text and logo
 * on the left. A text keeps its place inside its clip box.
 */
function mirrored(item: Placed, w: number): Placed {
  switch (item.kind) {
    case 'text': {
      const clip = { ...item.clip, x0: w - item.clip.x1, x1: w - item.clip.x0 };
      return { ...item, clip, x: clip.x0 + (item.x - item.clip.x0) };
    }
    case 'matrix':
      return { ...item, x: w - item.x - item.symbol.cols * item.module };
    case 'bars':
      return { ...item, x: w - item.x - (item.bars === 'vertical' ? item.symbol.modules * item.module : item.length) };
    case 'bitmap':
      return { ...item, x: w - item.x - item.bitmap.width };
    case 'rect':
      return { ...item, x: w - item.x - item.w };
  }
}

/** Narrowest text column worth drawing: a few characters at the smallest size. */
const minTextWidth = (c: LabelContent, f: Frame) => (c.blocks.length > 0 ? 3 * f.floor : 0);

/**
 * A design whose text cannot have one line at its smallest size beside its codes
 * and logo (a minimum text size too large for the stock) is refused rather than
 * drawn past its box.
 */
function assertTextRoom(c: LabelContent, box: Box, f: Frame): void {
  if (c.blocks.length === 0) return;
  if (box.y1 - box.y0 < Math.floor(LINE_HEIGHT * f.floor) || box.x1 - box.x0 < minTextWidth(c, f)) {
    throw new LabelFitError(`text of at least ${c.textPt.min} pt does not fit ${f.stock.name} beside its codes${c.logo ? ' and logo' : ''}`);
  }
}

/**
 * How far a 2D code's block (symbol and quiet zone of `quiet` dots) may reach
 * below the bottom margin's inner edge: its quiet zone lies in the margin, and
 * its symbol stays 1 mm from the printable edge (no ink there on any stock).
 * With f.paperQuiet, the quiet zone may go on into the paper beyond the
 * printable area and the symbol reach that edge, if it stays 1 mm from the
 * label's own edge: on the 23 mm square that keeps a QR code and the name's line.
 */
function belowMargin(quiet: number, f: Frame): number {
  if (f.paperQuiet && f.paperBelow > 0) {
    const fromEdge = Math.min(f.margin, Math.max(0, Math.ceil(f.dpmm) - f.paperBelow, quiet - f.paperBelow));
    return f.margin - fromEdge + quiet;
  }
  const q = Math.min(quiet, f.margin);
  return f.margin - Math.max(Math.ceil(f.dpmm), q) + q;
}

function tall(c: LabelContent, f: Frame, w: number, h: number, m: Measures): Arranged {
  const { margin } = f;
  const items: Placed[] = [];
  const inner: Box = { x0: margin, y0: margin, x1: w - margin, y1: h - margin };
  if (c.logo) {
    // The logo above the text, centred.
    if (c.logo.width > inner.x1 - inner.x0 || c.logo.height > inner.y1 - inner.y0) throw tooSmall('the logo', f);
    items.push({ kind: 'bitmap', x: Math.round((w - c.logo.width) / 2), y: inner.y0, bitmap: c.logo });
    inner.y0 += c.logo.height + Math.round(margin / 2);
  }
  let bottom = inner.y1;
  const foot = footerFor(c, { ...inner, y1: inner.y0 + Math.round(h * 0.3) }, f, m, Math.round(0.04 * w));
  if (foot) {
    const fh = Math.ceil(inkStackHeight([foot], m));
    placeText(items, [foot], bottom - fh, { ...inner, y0: bottom - fh - 1, y1: h - margin }, 'center', m);
    bottom -= fh + blockGap(f.floor);
  }
  // The linear code: beside the 2D code with bars across the head where that fits, else under it.
  let bars: BarsBlock | undefined;
  if (c.code1d) {
    // The first of BAR_CHOICES that fits (beside the 2D code across the head, else under it).
    // Under the 2D code only if a line of title, the 2D code at its smallest module and the bars all fit the height.
    const minStack = LINE_HEIGHT * Math.round(f.floor * 1.2) + (c.code2d ? min2dSide(c.code2d) : 0) + 2 * margin;
    const tryBars = (orientation: 'vertical' | 'horizontal', module: number): BarsBlock | undefined => {
      const b = barsBlock(c.code1d!, module, orientation, f, w, m);
      if (orientation === f.goodBars && f.goodBars === 'horizontal') return b.cross <= 0.45 * w && b.run <= 0.75 * h ? b : undefined;
      return b.run <= w && minStack + b.cross <= h ? b : undefined;
    };
    const along = f.goodBars === 'horizontal' ? 'vertical' : 'horizontal';
    for (const [orientation, module] of BAR_CHOICES(c, f, f.goodBars, along)) {
      bars = tryBars(orientation, module);
      if (bars) break;
    }
    if (!bars) throw new NoRoomForBars();
  }
  const beside = bars?.bars === 'horizontal';
  const codeW = beside ? w - bars!.cross - margin : w;
  const underH = bars && !beside ? bars.cross + Math.round(margin / 2) : 0;
  // Text gets what is left after a 2D code of at least ~40% of the label's height.
  let minSide = 0;
  // On tiny stock the code takes what its smallest module needs (DataMatrix: 5 dots where there is room).
  const wanted = c.code2d ? Math.min(codeW, preferred2dSide(c.code2d)) : 0;
  if (c.code2d) {
    const p = place2d(c.code2d, Math.max(Math.round(Math.min(codeW, h * 0.4)), Math.min(codeW, min2dSide(c.code2d))));
    if (!p) throw c.code2d.smaller ? new Code2dNoRoom() : tooSmall('the 2D code', f);
    minSide = (p.symbol.cols + 2 * p.symbol.quiet) * p.module;
  }
  // The preferred code's quiet zone may lie in the bottom margin (square stock needs that room).
  const wantedQuiet = c.code2d && !underH && !beside ? belowMargin(sym2d(c.code2d).quiet * sym2d(c.code2d).preferredModule, f) : 0;
  // Room for the 2D code at its preferred module (DataMatrix: 5 dots), if a line of title still fits above it.
  let quietShared = 0;
  /** The preferred code's room is reserved below the text: the text may not take it. */
  let reserved = false;
  if (wanted > minSide) {
    // An identifier title drawn whole may need more than one line at the smallest size.
    const title = c.blocks[0];
    const titleLines = title?.whole ? wholeLines(title.text, inner.x1 - inner.x0, f, m).length : 1;
    if (wanted - wantedQuiet + underH + Math.ceil(titleLines * LINE_HEIGHT * f.floor) + keptHeight(c, f) <= bottom - inner.y0) {
      minSide = wanted;
      quietShared = wantedQuiet;
    }
    reserved = minSide === wanted && c.code2d !== undefined && sym2d(c.code2d).preferredModule > sym2d(c.code2d).minModule;
  }
  const minGroup = Math.max(minSide, beside ? bars!.run : 0) + underH - quietShared;
  // The stock's 2D code (it has a smaller stand-in), or any code whose quiet zone the paper below the printable area could take.
  const paperMayHelp = c.code2d !== undefined && sym2d(c.code2d).quietIntoPaper && !f.paperQuiet && f.paperBelow > 0;
  if (c.code2d && (c.code2d.smaller || paperMayHelp)) {
    // A line of title at the smallest size must fit above the code; an identifier, all its
    // lines, as tall as their ink (digits and dashes: wholeTitle draws them so).
    const title = c.blocks[0];
    const needed = title?.whole
      ? inkStackHeight([{ lines: wholeLines(title.text, inner.x1 - inner.x0, f, m), style: { size: f.floor, weight: 'bold' }, tight: true }], m)
      : LINE_HEIGHT * f.floor;
    // The code's quiet zone may lie in the bottom margin (as placed below), which leaves the text that much more.
    if (bottom - minGroup + (wantedQuiet - quietShared) - inner.y0 < Math.ceil(needed)) throw new Code2dNoRoom(paperMayHelp);
  }
  if (c.logo || c.textPt.min > 7) assertTextRoom(c, { ...inner, y1: bottom - minGroup }, f);
  const textBox: Box = { ...inner, y1: Math.max(inner.y0 + Math.ceil(LINE_HEIGHT * f.floor), bottom - minGroup) };
  const captionPx = bars?.captionSize;
  const fit = wholeTitle(c, fitChecked(textBlocks(c), textBox, captionPx ? Math.floor(captionPx * 0.85) : f.ceil, captionPx ? Math.floor(captionPx * 0.7) : undefined, 3, f, m), textBox, f, m);
  // Text taller than its box (stacked marks at the smallest size) is clipped there, and the codes keep their room.
  const textEnd = Math.min(textBox.y1, Math.ceil(placeText(items, fit.blocks, textBox.y0, textBox, 'center', m)));
  const room = bottom - textEnd - Math.round(margin / 2);
  let side = 0;
  let code: { symbol: MatrixSymbol; module: number } | null = null;
  if (c.code2d) {
    code = place2d(c.code2d, Math.min(codeW, Math.max(room - underH, reserved ? minSide : 0), Math.max(wanted, Math.round(h * 0.6)))) ?? place2d(c.code2d, minSide);
    if (!code) throw c.code2d.smaller ? new Code2dNoRoom() : tooSmall('the 2D code', f);
    side = (code.symbol.cols + 2 * code.symbol.quiet) * code.module;
  }
  const groupH = Math.max(side, beside ? bars!.run : 0) + underH;
  // Centred in the room left; never past the bottom margin (a 2D code's quiet zone may lie in it).
  const slack = code && !underH ? code.symbol.quiet * code.module : 0;
  const top = Math.min(Math.round(textEnd + Math.max(0, (bottom - textEnd - groupH) / 2)), bottom + belowMargin(slack, f) - groupH);
  // Text never reaches into the codes' quiet zones, whatever its ink does.
  for (const item of items) if (item.kind === 'text' && item.clip.y1 > top && item.clip.y0 < top) item.clip = { ...item.clip, y1: top };
  const groupW = side + (beside ? bars!.cross + Math.round(margin / 2) : 0);
  const left = Math.max(0, Math.floor((w - groupW) / 2));
  if (code) {
    const q = code.symbol.quiet * code.module;
    items.push({ kind: 'matrix', x: left + q, y: top + q, module: code.module, symbol: code.symbol, ...(c.code2d?.red ? { red: true as const } : {}) });
  }
  if (bars) {
    if (beside) placeBars(bars, Math.min(w - margin - bars.cross, left + side + Math.round(margin / 2)), top + Math.round((Math.max(side, bars.run) - bars.run) / 2), items, f, c.code1dRed === true);
    else placeBars(bars, Math.max(0, Math.floor((w - bars.run) / 2)), top + side + Math.round(margin / 2), items, f, c.code1dRed === true);
  }
  return { layout: { stock: f.stock, warnings: [...c.warnings, ...textWarnings(c, fit)], width: w, height: h, rotate90: false, items }, fit, bestBars: bestBars(bars, f) };
}

export function layoutLabel(original: LabelContent, stock: Stock, m: Measures): Layout {
  const rotated = stock.orientation === 'rotated';
  // Design size: across the long side for rotated stock.
  const across = stock.widthDots;
  const arrange = (length: number, fixed: boolean, content = original, paperQuiet = false): Arranged => {
    const [w, h] = rotated ? [length, across] : [across, length];
    const f = frame(content, stock, w, h, paperQuiet);
    try {
      // Near-square tiny stock: a 2D code of its smallest modules leaves no useful column beside it, so text goes above it.
      const nearSquare = w < 1.35 * h;
      const cramped = nearSquare && content.code2d !== undefined && preferred2dSide(content.code2d) > 0.5 * w;
      if (w < h || cramped) return tall(content, f, w, h, m);
      const beside = wide(content, f, w, h, fixed, m, content.warnings);
      // Near-square stock: the column beside the code may be too narrow for a kept line (a due date)
      // or a word of the title (broken mid-word); text above the code then has the label's width.
      if (!nearSquare || !fixed || (keptLost(content, beside.fit).length === 0 && !brokenWord(content, beside.fit))) return beside;
      try {
        const above = tall(content, f, w, h, m);
        const worse = (a: Arranged) => 2 * keptLost(content, a.fit).length + (brokenWord(content, a.fit) ? 1 : 0);
        return worse(above) < worse(beside) ? above : beside;
      } catch (e) {
        if (e instanceof LabelFitError || e instanceof Code2dNoRoom || e instanceof NoRoomForBars) return beside;
        throw e;
      }
    } catch (e) {
      if (e instanceof Code2dNoRoom) {
        // First the code with its quiet zone in the paper below the printable area (where its symbology allows
        // that), then the smaller code (a template's own code has none: with the paper, it takes what room is left).
        if (e.paperMayHelp) {
          try {
            return arrange(length, fixed, content, true);
          } catch (again) {
            if (!(again instanceof Code2dNoRoom)) throw again;
          }
        }
        const code2d = { symbology: content.code2d!.smaller!, data: content.code2d!.data, ...(content.code2d!.red ? { red: true as const } : {}) };
        return { ...arrange(length, fixed, { ...content, code2d }), smallerCode: true };
      }
      if (!(e instanceof NoRoomForBars)) throw e;
      const bars = content.code1d!;
      if (content.code1dRequired) throw new LabelFitError(`the ${SYMBOLOGIES[bars.symbology].title} of ${JSON.stringify(bars.data)} (${bars.modules + 2 * bars.quiet} modules with its quiet zones) does not fit ${stock.name}`);
      // No room for the linear code (a sturdy one without 4-dot bars across the head, or any on 23 mm stock): its caption becomes the title, the 2D code carries the id.
      const caption = content.code1d!.text;
      // A sturdy code is left out by the design's own rule (CodeSpec.sturdy), its id printed as the title:
      // nothing asked for is missing, so no warning (a warning on every such label teaches users to ignore them).
      const warnings = content.code1dSturdy ? content.warnings : [...content.warnings, 'code-omitted'];
      const without = { ...content, code1d: undefined, blocks: [{ role: 'title' as const, text: caption, whole: true as const, ...(content.code1dRed ? { red: true as const } : {}) }, ...content.blocks.map((b) => ({ ...b, role: 'line' as const }))], warnings };
      // Continuous tape grows for the barcode before it is left out.
      return { ...arrange(length, fixed, without), bestBars: false };
    }
  };
  let result: Arranged;
  if (stock.lengthDots !== null) result = arrange(stock.lengthDots, true);
  else {
    // Continuous tape: the shortest length at which everything fits whole at its size; else the one with the largest text.
    const lengths = [1, 1.25, 1.5, 2, 3, 4].map((k) => Math.min(stock.maxLengthDots, Math.round(stock.minLengthDots * k)));
    let best: Arranged | undefined;
    // A longer label is also worth it for a sturdier barcode (4-dot bars across the head) and for the stock's QR code.
    const sturdy = (a: Arranged) => a.bestBars || original.shortest === true;
    const score = (a: Arranged) => (sturdy(a) ? 1e6 : 0) + (a.smallerCode ? 0 : 1e5) + a.fit.titleSize;
    for (const len of [...new Set(lengths)]) {
      const a = arrange(len, false);
      if (a.fit.complete && sturdy(a) && !a.smallerCode) {
        best = a;
        break;
      }
      if (!best || score(a) > score(best)) best = a;
    }
    result = best!;
  }
  return { ...result.layout, rotate90: rotated };
}
