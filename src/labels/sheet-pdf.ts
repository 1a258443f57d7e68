/**
 * Many labels on a sheet product, as a PDF: the same layout (layout.ts) and the
 * same painter (paint.ts) as the PNG labels, drawn on Cairo's PDF surface, so
 * text stays text (embedded, subset fonts) and codes stay vector rectangles.
 *
 * Each cell gets a stock of its own size (sheetCellStock): the layout is made in
 * 300-dpi dots for that cell and scaled to points. A record is laid out once,
 * however many copies it has.
 */
import { ProblemError } from '../errors.js';
import { createCanvas, type CanvasRenderingContext2D } from 'canvas';
import type { LabelRecord, Template } from './design.js';
import { withFontLock } from './font-lock.js';
import { assertFontIsolation, fontString, missingGlyphs } from './fonts.js';
import type { Layout } from './layout.js';
import { paintLayout } from './paint.js';
import { layoutFor } from './render.js';
import { sheetGeometry, type Cell, type SheetGeometry, type SheetProduct } from './sheets.js';
import type { Stock } from './stock.js';

const PT_PER_MM = 72 / 25.4;
/** Cell layouts are made at this density; a 4-dot module is 0.34 mm. */
const CELL_DPI = 300;
/** Below this label height a QR code of a URL has no room: DataMatrix (smaller for the same data). */
const DATAMATRIX_BELOW_MM = 20;
/**
 * Below this label height even a DataMatrix of a URL has no room at 300 dpi inside the cell's
 * 1.6 mm margin (Avery 5167's 12.7 mm): the cell is laid out at 600 dpi (office printers print 600).
 */
const FINE_BELOW_MM = 13;

/** Labels took longer to make than a request may (the message says how far they got); nothing was printed. */
export class SheetTimeoutError extends ProblemError {
  override name = 'SheetTimeoutError';
  constructor(message: string) {
    super('unavailable', message, {
      detail: 'The labels took too long to make; ask for fewer per request. Nothing was printed.',
      headers: { 'Retry-After': '5' },
    });
  }
}

export interface SheetOptions {
  product: SheetProduct;
  /** The cell design (its stock only matters for 'label-per-page'). */
  template: Template;
  /** Position (1-based, reading order) of the first label on the first page: a partly used sheet. */
  startAt?: number;
  /** Outline of each label (and the page edge for label-per-page), for cutting or checking alignment. */
  guides?: boolean;
  footer?: string;
  /** Rendering stops with SheetTimeoutError past this time (ms since the epoch). */
  deadline?: number;
  /** Called between labels so a long sheet does not hold the event loop (default: setImmediate). */
  yieldEvery?: number;
  /** Everything printed moves by this much (mm, right and down): corrects a printer's offset (see renderCalibrationPdf). */
  offsetMm?: { x: number; y: number };
  /** Where offsetMm came from, as a calibration page states it (default 'request'). */
  offsetFrom?: OffsetFrom;
}

/** The largest offset a request may ask for, mm either way; the calibration scales reach as far. */
export const MAX_OFFSET_MM = 5;

export interface SheetPdf {
  pdf: Buffer;
  pages: number;
  labels: number;
  /** Every label's warnings together, as on the PNG labels ('missing-glyphs': see missingGlyphs). */
  warnings: string[];
  /** Code points drawn as boxes on any label. */
  missingGlyphs: number[];
  /** Which labels carry warnings: page and position (1-based, reading order) of each, in drawing order. */
  labelWarnings: { page: number; position: number; warnings: string[] }[];
}

/** The stock a sheet cell is laid out on: the label's size at 300 dpi. */
export function sheetCellStock(product: SheetProduct, template: Template): Stock {
  if (product.page === 'label') return template.stock;
  const dpi = product.labelHeightMm < FINE_BELOW_MM ? 600 : CELL_DPI;
  const w = Math.round((product.labelWidthMm / 25.4) * dpi);
  const h = Math.round((product.labelHeightMm / 25.4) * dpi);
  return {
    name: product.name,
    aliases: [],
    title: product.title,
    // Sheets are printed black (a design's red marks: 'red-as-black').
    colours: ['black'],
    widthMm: product.labelWidthMm,
    lengthMm: product.labelHeightMm,
    dpi,
    widthDots: w,
    lengthDots: h,
    maxLengthDots: h,
    minLengthDots: h,
    orientation: w >= h ? 'landscape' : 'portrait',
    code2d: Math.min(product.labelWidthMm, product.labelHeightMm) < DATAMATRIX_BELOW_MM ? 'datamatrix' : 'qr',
    pagePrinter: true,
  };
}

/** The label's size on the page in mm (as the PNG would be: rotated stock is turned). */
function labelMm(layout: Layout): { width: number; height: number } {
  const dpi = layout.stock.dpi;
  const [w, h] = layout.rotate90 ? [layout.height, layout.width] : [layout.width, layout.height];
  return { width: (w / dpi) * 25.4, height: (h / dpi) * 25.4 };
}

export async function renderSheetPdf(records: readonly { record: LabelRecord; copies: number }[], opts: SheetOptions): Promise<SheetPdf> {
  assertFontIsolation();
  const { product, template, guides = false, footer, deadline, yieldEvery = 20 } = opts;
  const stock = sheetCellStock(product, template);
  const cellTemplate: Template = { ...template, stock };
  const layouts: Layout[] = [];
  const warnings = new Set<string>();
  const missing = new Set<number>();
  // Per record, as renderLabel says them for the PNG: the layout's, and characters no bundled font has.
  const recordWarnings: string[][] = [];
  for (const { record } of records) {
    const { layout } = layoutFor(record, cellTemplate, { footer });
    const boxes = missingGlyphs(layout.items.map((i) => (i.kind === 'text' ? i.text : '')).join(''));
    boxes.forEach((cp) => missing.add(cp));
    const own = [...new Set(layout.warnings), ...(boxes.length ? ['missing-glyphs'] : [])];
    own.forEach((w) => warnings.add(w));
    recordWarnings.push(own);
    layouts.push(layout);
  }
  const labelWarnings: SheetPdf['labelWarnings'] = [];
  // label-per-page: the page is the stock's paper, not its printable area, so a print dialog
  // neither centres nor scales it (the printable area sits centred on it, as on the label).
  // Continuous tape: every page as long as the longest label (one page size per document keeps
  // print dialogs simple). The PNG's width always runs across the print head: the stock's width.
  const sizes = layouts.map(labelMm);
  const longest = Math.max(0, ...sizes.map((s) => s.height));
  const geometry = shifted(sheetGeometry(product, { width: stock.widthMm, height: stock.lengthMm ?? longest }), opts.offsetMm);
  const perPage = geometry.cells.length;
  const start = Math.min(Math.max(1, opts.startAt ?? 1), perPage) - 1;

  // Cairo's PDF pages are whole points: A4 (595.28 x 841.89 pt) becomes 595 x 842, under 0.2 mm off;
  // labels are placed from the top-left corner, where the sheet's die-cut is measured from.
  const pageW = Math.round(geometry.pageWidthMm * PT_PER_MM);
  const pageH = Math.round(geometry.pageHeightMm * PT_PER_MM);
  const canvas = createCanvas(pageW, pageH, 'pdf');
  const ctx = canvas.getContext('2d');
  // Text as text: glyphs of embedded, subset fonts (node-canvas draws text as outlines by default).
  ctx.textDrawingMode = 'glyph';
  let slot = start;
  let pages = 1;
  let drawn = 0;
  try {
    if (guides) drawGuides(ctx, geometry.cells, geometry.cornerMm);
    for (let i = 0; i < layouts.length; i++) {
      for (let copy = 0; copy < records[i]!.copies; copy++) {
        if (slot === perPage) {
          ctx.addPage(pageW, pageH);
          pages++;
          slot = 0;
          if (guides) drawGuides(ctx, geometry.cells, geometry.cornerMm);
        }
        drawLabel(ctx, layouts[i]!, geometry.cells[slot]!);
        if (recordWarnings[i]!.length) labelWarnings.push({ page: pages, position: slot + 1, warnings: recordWarnings[i]! });
        slot++;
        drawn++;
        if (drawn % yieldEvery === 0) {
          if (deadline !== undefined && Date.now() > deadline) throw new SheetTimeoutError(`the sheet took longer than its time limit after ${drawn} labels`);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    }
  } catch (err) {
    // Cairo finishes a PDF left unfinished when the canvas is garbage-collected, embedding
    // its fonts then, outside the font lock (font-lock.ts): finish it here instead.
    withFontLock(() => canvas.toBuffer('application/pdf'));
    throw err;
  }
  const pdf = printAtActualSize(withFontLock(() => canvas.toBuffer('application/pdf', { title: `Labels (${product.name})`, creator: 'Labelmaker', creationDate: new Date(0) })));
  return { pdf, pages, labels: drawn, warnings: [...warnings], missingGlyphs: [...missing], labelWarnings };
}

/**
 * Asks viewers to print at actual size, so a print dialog's "fit to page" does not shrink the
 * sheet off its die-cut: an incremental update (ISO 32000-1 §7.5.6) that rewrites the catalog
 * with `/ViewerPreferences << /PrintScaling /None >>` (§12.2; PDF 1.6, hence `/Version`).
 * Cairo writes a classic cross-reference table and trailer, which name the catalog.
 */
export function printAtActualSize(pdf: Buffer): Buffer {
  const tail = pdf.toString('latin1', Math.max(0, pdf.length - 2048));
  const trailer = /trailer\s*<<([\s\S]*?)>>\s*startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  const root = trailer && /\/Root\s+(\d+)\s+(\d+)\s+R/.exec(trailer[1]!);
  const size = trailer && /\/Size\s+(\d+)/.exec(trailer[1]!);
  if (!trailer || !root || !size) throw new Error('unexpected PDF trailer from Cairo');
  const [, num, gen] = root;
  const start = pdf.lastIndexOf(`\n${num} ${gen} obj`, undefined, 'latin1') + 1;
  const end = pdf.indexOf('endobj', start, 'latin1');
  const object = pdf.toString('latin1', start, end);
  const close = object.lastIndexOf('>>');
  if (start === 0 || end < 0 || close < 0 || !/\/Type\s*\/Catalog/.test(object)) throw new Error('unexpected PDF catalog from Cairo');
  if (object.includes('/ViewerPreferences')) return pdf;
  const catalog = `${object.slice(0, close)}   /Version /1.6\n   /ViewerPreferences << /PrintScaling /None >>\n>>\nendobj\n`;
  const info = /\/Info\s+\d+\s+\d+\s+R/.exec(trailer[1]!);
  const at = pdf.length + 1; // after the newline below
  const xref = at + catalog.length;
  const update =
    `\n${catalog}xref\n${num} 1\n${String(at).padStart(10, '0')} ${gen!.padStart(5, '0')} n \n` +
    `trailer\n<< /Size ${size[1]}\n   /Root ${num} ${gen} R\n${info ? `   ${info[0]}\n` : ''}   /Prev ${trailer[2]}\n>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(update, 'latin1')]);
}

/** The geometry with every cell moved by the offset (the page stays). */
function shifted(g: SheetGeometry, offset: { x: number; y: number } | undefined): SheetGeometry {
  if (!offset || (offset.x === 0 && offset.y === 0)) return g;
  return { ...g, cells: g.cells.map((c) => ({ ...c, x: c.x + offset.x, y: c.y + offset.y })) };
}

/** Where a calibration page's offset came from: the request, the product's saved calibration, or neither. */
export type OffsetFrom = 'request' | 'saved' | 'none';
const OFFSET_FROM: Record<OffsetFrom, string> = { request: 'this request’s', saved: 'the calibration saved for this sheet', none: 'no calibration saved' };

/**
 * A test page for a sheet product: every label's outline, and two scales on each label, one
 * across its top edge (at the middle) and one across its left edge, ticked every 0.5 mm from
 * -5 to +5 mm. Printed on the product's sheet, the number where the die-cut edge crosses a scale
 * is the offset to enter: the top edge's as offsetYMm, the left edge's as offsetXMm (a printer
 * that prints 1 mm low puts the edge at -1; moving everything up 1 mm corrects it). Drawn with
 * the offset given, so a corrected page shows 0 at every edge.
 */
export function renderCalibrationPdf(opts: Pick<SheetOptions, 'product' | 'template' | 'offsetMm' | 'offsetFrom'>): SheetPdf {
  assertFontIsolation();
  const { product, template } = opts;
  const stock = sheetCellStock(product, template);
  const offset = opts.offsetMm ?? { x: 0, y: 0 };
  const geometry = shifted(sheetGeometry(product, { width: stock.widthMm, height: stock.lengthMm ?? (stock.minLengthDots / stock.dpi) * 25.4 }), offset);
  const pageW = Math.round(geometry.pageWidthMm * PT_PER_MM);
  const pageH = Math.round(geometry.pageHeightMm * PT_PER_MM);
  const canvas = createCanvas(pageW, pageH, 'pdf');
  const ctx = canvas.getContext('2d');
  ctx.textDrawingMode = 'glyph';
  drawGuides(ctx, geometry.cells, geometry.cornerMm, '#000');
  ctx.scale(PT_PER_MM, PT_PER_MM); // millimetres from here on
  ctx.strokeStyle = '#000';
  ctx.fillStyle = '#000';
  ctx.lineWidth = 0.12;
  ctx.font = fontString(1.4, 'bold');
  for (const cell of geometry.cells) {
    scale(ctx, cell.x + cell.width / 2, cell.y, 'down');
    scale(ctx, cell.x, cell.y + cell.height / 2, 'right');
  }
  const first = geometry.cells[0]!;
  if (first.y - offset.y >= 8) {
    ctx.font = fontString(2.2);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    const fmt = (v: number) => `${v > 0 ? '+' : ''}${v.toFixed(1)}`;
    withFontLock(() => {
      ctx.fillText(`${product.name} calibration, printed with offsetXMm ${fmt(offset.x)}, offsetYMm ${fmt(offset.y)} (${OFFSET_FROM[opts.offsetFrom ?? 'request']}).`, 6, 4.5);
      ctx.fillText('Read where each label’s top edge crosses its scale: add it to offsetYMm; the left edge: add it to offsetXMm. Save the sums for this sheet (putSheetCalibration).', 6, 7.5);
    });
  }
  const pdf = printAtActualSize(withFontLock(() => canvas.toBuffer('application/pdf', { title: `Calibration (${product.name})`, creator: 'Labelmaker', creationDate: new Date(0) })));
  return { pdf, pages: 1, labels: 0, warnings: [], missingGlyphs: [], labelWarnings: [] };
}

/**
 * A scale across a label's edge at (x, y), mm: ticks every 0.5 mm from -MAX to +MAX along
 * `dir` (positive into the label), longer and numbered at whole millimetres.
 */
function scale(ctx: CanvasRenderingContext2D, x: number, y: number, dir: 'down' | 'right'): void {
  const at = (along: number, across: number): [number, number] => (dir === 'down' ? [x + across, y + along] : [x + along, y + across]);
  ctx.beginPath();
  ctx.moveTo(...at(-MAX_OFFSET_MM, 0));
  ctx.lineTo(...at(MAX_OFFSET_MM, 0));
  for (let i = -2 * MAX_OFFSET_MM; i <= 2 * MAX_OFFSET_MM; i++) {
    const half = i === 0 ? 1.4 : i % 2 === 0 ? 0.7 : 0.35;
    ctx.moveTo(...at(i / 2, -half));
    ctx.lineTo(...at(i / 2, half));
  }
  ctx.stroke();
  // Numbers alternate sides (odd millimetres on one, even on the other), 2 mm apart on each.
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  for (let mm = -MAX_OFFSET_MM; mm <= MAX_OFFSET_MM; mm++) {
    if (mm === 0) continue;
    const side = mm % 2 === 0 ? -1 : 1;
    const [tx, ty] = at(mm, side * (dir === 'down' ? 2 : 1.6));
    withFontLock(() => ctx.fillText(`${mm > 0 ? '+' : ''}${mm}`, tx, ty));
  }
}

/** One label in its cell: centred (a cell's dots round to a whole number), scaled from dots to points. */
function drawLabel(ctx: CanvasRenderingContext2D, layout: Layout, cell: Cell): void {
  const dpi = layout.stock.dpi;
  const size = labelMm(layout);
  ctx.save();
  ctx.translate((cell.x + (cell.width - size.width) / 2) * PT_PER_MM, (cell.y + (cell.height - size.height) / 2) * PT_PER_MM);
  ctx.scale(72 / dpi, 72 / dpi);
  // Tall narrow stock is designed across its long side and turned clockwise, as in render.ts.
  if (layout.rotate90) {
    ctx.translate(layout.height, 0);
    ctx.rotate(Math.PI / 2);
  }
  paintLayout(ctx, layout, { background: false, codes: true });
  ctx.restore();
}

/** Hairline outlines of the labels in light grey: visible for cutting, faint on a label that is slightly off. */
function drawGuides(ctx: CanvasRenderingContext2D, cells: readonly Cell[], cornerMm: number, colour = '#9a9a9a'): void {
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.lineWidth = 0.25;
  ctx.antialias = 'default';
  for (const c of cells) {
    const [x, y, w, h, r] = [c.x, c.y, c.width, c.height, Math.min(cornerMm, c.width / 2, c.height / 2)].map((v) => v * PT_PER_MM) as [number, number, number, number, number];
    ctx.beginPath();
    ctx.roundRect(x, y, w, h, r);
    ctx.stroke();
  }
  ctx.restore();
}
