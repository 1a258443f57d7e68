/**
 * Where everything goes on a label, as a list of draw operations in design
 * coordinates. Tall narrow stock is designed landscape and rotated when
 * encoded (see presets.ts), so there are two designs: "landscape" (QR at the
 * left, text column at the right) and "portrait" (text on top, QR centred
 * below). Continuous tape uses the landscape design with a length that
 * follows the text.
 */
import { code128BlockWidth, code128Pattern, CODE128_QUIET_MODULES } from './code128.js';
import { getPreset, type Preset, type PresetName } from './presets.js';
import { minQrModule, qrBlockSide, qrMatrix, QR_QUIET_MODULES, type QrMatrix } from './qr.js';
import {
  ASCENT,
  blockGap,
  DESCENT,
  ellipsize,
  fitText,
  isRtl,
  LINE_HEIGHT,
  stackHeight,
  styleFont,
  type FittedBlock,
  type Measure,
} from './text.js';
import type { LabelContent } from './types.js';

export type Align = 'left' | 'center';

export type DrawOp =
  | { kind: 'text'; x: number; y: number; text: string; font: string; align: 'left' | 'right' | 'center'; rtl: boolean }
  | { kind: 'qr'; x: number; y: number; module: number; matrix: QrMatrix }
  | { kind: 'bars'; x: number; y: number; module: number; height: number; pattern: string };

export interface Layout {
  /** Size of the design; the PNG is this size, or its transpose when rotate90. */
  width: number;
  height: number;
  rotate90: boolean;
  ops: DrawOp[];
}

/** The label cannot be drawn legibly on this stock (e.g. a QR too dense for it). */
export class LabelFitError extends RangeError {
  override name = 'LabelFitError';
}

interface Metrics {
  dpmm: number;
  /** Smallest text size (px) drawn: 7 pt, cap height ≈ 1.8 mm. */
  floor: number;
  margin: number;
}

function metrics(p: Preset, w: number, h: number): Metrics {
  const dpmm = p.dpi / 25.4;
  const floor = Math.round((7 / 72) * p.dpi);
  const margin = Math.round(Math.max(1.2 * dpmm, Math.min(3 * dpmm, 0.06 * Math.min(w, h))));
  return { dpmm, floor, margin };
}

/** Largest QR module that keeps the symbol + quiet zone within `side` dots. */
function qrModuleFor(m: QrMatrix, side: number, p: Preset): number {
  const module = Math.floor(side / (m.size + 2 * QR_QUIET_MODULES));
  if (module < minQrModule(p.dpi)) {
    throw new LabelFitError(`QR code (${m.size} modules) does not fit ${p.name}: shorten the URL`);
  }
  return module;
}

/** Bar width for Code 128 within `width` dots, between the density floor and a sensible cap. */
function barModuleFor(pattern: string, width: number, p: Preset): number {
  const cap = p.dpi >= 300 ? 4 : 3;
  const module = Math.min(cap, Math.floor(width / (pattern.length + 2 * CODE128_QUIET_MODULES)));
  if (module < 2) throw new LabelFitError(`barcode does not fit ${p.name}: the asset id is too long`);
  return module;
}

/** Emits text ops for fitted blocks from `top`; returns the bottom. */
function placeBlocks(ops: DrawOp[], blocks: FittedBlock[], top: number, x0: number, x1: number, align: Align): number {
  let y = top;
  blocks.forEach((b, i) => {
    if (i > 0) y += blockGap(b.style.size);
    const font = styleFont(b.style);
    // Direction is the paragraph's: a wrapped "12" stays aligned with its Arabic line.
    const rtl = isRtl(b.lines.join(' '));
    for (const text of b.lines) {
      const baseline = Math.round(y + ASCENT * b.style.size);
      if (align === 'center') ops.push({ kind: 'text', x: Math.round((x0 + x1) / 2), y: baseline, text, font, align: 'center', rtl });
      else ops.push({ kind: 'text', x: rtl ? x1 : x0, y: baseline, text, font, align: rtl ? 'right' : 'left', rtl });
      y += LINE_HEIGHT * b.style.size;
    }
  });
  return y;
}

function footerOp(text: string, size: number, x0: number, x1: number, bottom: number, align: Align, measure: Measure): DrawOp {
  const font = styleFont({ size, weight: 'normal' });
  const line = ellipsize(text.replace(/\s+/gu, ' ').trim(), x1 - x0, font, measure);
  const rtl = isRtl(line);
  const y = Math.round(bottom - DESCENT * size);
  if (align === 'center') return { kind: 'text', x: Math.round((x0 + x1) / 2), y, text: line, font, align: 'center', rtl };
  return { kind: 'text', x: rtl ? x1 : x0, y, text: line, font, align: rtl ? 'right' : 'left', rtl };
}

/** Base length for continuous tape: the 62 x 29 mm die-cut label's. */
const CONTINUOUS_MIN_HEIGHT = 271;

function landscape(c: LabelContent, p: Preset, w: number, fixedH: number | null, measure: Measure): Layout {
  const baseH = fixedH ?? CONTINUOUS_MIN_HEIGHT;
  const { floor, margin, dpmm } = metrics(p, w, baseH);
  const matrix = qrMatrix(c.qrUrl);
  const qrModule = qrModuleFor(matrix, Math.min(baseH, Math.round(w * 0.45)), p);
  const qrSide = qrBlockSide(matrix, qrModule);
  const quiet = QR_QUIET_MODULES * qrModule;
  // The QR's quiet zone doubles as its margin; pad only if it is thinner.
  const qrX = Math.max(0, margin - quiet);
  const x0 = qrX + qrSide + Math.round(margin / 2);
  const x1 = w - margin;
  const colW = x1 - x0;

  const footerSize = floor;
  const footerH = c.footer ? Math.round(LINE_HEIGHT * footerSize) : 0;
  let bars: { pattern: string; module: number; height: number } | undefined;
  if (c.kind === 'asset' && c.barcode) {
    const pattern = code128Pattern(c.barcode);
    // Bars may start inside the QR's quiet zone but need their own 10 modules clear of its dark modules.
    const module = barModuleFor(pattern, w - margin / 2 - (qrX + qrSide - quiet), p);
    bars = { pattern, module, height: Math.round(Math.max(4 * dpmm, 0.2 * baseH)) };
  }
  const reserved = (footerH ? footerH + blockGap(footerSize) : 0) + (bars ? bars.height + Math.round(margin / 2) : 0);

  const titleSize = Math.round(0.21 * baseH);
  const lineSize = Math.max(floor, Math.round(0.125 * baseH));
  let h: number;
  let blocks: FittedBlock[];
  if (fixedH !== null) {
    h = fixedH;
    const lineLines = c.lines.length === 1 ? 2 : 1;
    const o = { titleSize, lineSize, floor, titleLines: 2, lineLines };
    blocks = fitText(c.title, c.lines, o, colW, h - 2 * margin - reserved, measure);
  } else {
    // Continuous: keep the preferred sizes and let the tape grow, up to its maximum.
    const maxText = p.maxHeightPx - 2 * margin - reserved;
    blocks = fitText(c.title, c.lines, { titleSize, lineSize, floor, titleLines: 4, lineLines: 3 }, colW, maxText, measure);
    h = Math.min(p.maxHeightPx, Math.max(baseH, Math.ceil(stackHeight(blocks) + reserved + 2 * margin)));
  }

  const ops: DrawOp[] = [{ kind: 'qr', x: qrX, y: fixedH === null ? 0 : Math.floor((h - qrSide) / 2), module: qrModule, matrix }];
  placeBlocks(ops, blocks, margin, x0, x1, 'left');
  let bottom = h - margin;
  if (c.footer) {
    ops.push(footerOp(c.footer, footerSize, x0, x1, bottom, 'left', measure));
    bottom -= footerH + blockGap(footerSize);
  }
  if (bars) {
    const barsX = Math.max(x0, qrX + qrSide - quiet + CODE128_QUIET_MODULES * bars.module);
    ops.push({ kind: 'bars', x: barsX, y: bottom - bars.height, module: bars.module, height: bars.height, pattern: bars.pattern });
  }
  return { width: w, height: h, rotate90: false, ops };
}

function portrait(c: LabelContent, p: Preset, w: number, h: number, measure: Measure): Layout {
  const { floor, margin, dpmm } = metrics(p, w, h);
  const x0 = margin;
  const x1 = w - margin;
  const matrix = qrMatrix(c.qrUrl);

  const footerSize = Math.max(floor, Math.round(0.032 * w));
  const footerH = c.footer ? Math.round(LINE_HEIGHT * footerSize) : 0;
  const footerTop = h - margin - footerH;
  let bars: { pattern: string; module: number; height: number; gap: number } | undefined;
  if (c.kind === 'asset' && c.barcode) {
    const pattern = code128Pattern(c.barcode);
    bars = { pattern, module: barModuleFor(pattern, w, p), height: Math.round(Math.max(6 * dpmm, 0.07 * h)), gap: Math.round(margin / 2) };
  }
  const barsH = bars ? bars.height + bars.gap : 0;
  // Text gets what is left after a QR of at least ~40% of the label's height...
  const minQr = qrBlockSide(matrix, qrModuleFor(matrix, Math.round(Math.min(w, h * 0.4)), p));
  const textBudget = footerTop - margin - minQr - barsH;
  const o = { titleSize: Math.round(0.14 * w), lineSize: Math.max(floor, Math.round(0.07 * w)), floor, titleLines: 3, lineLines: 2 };
  const blocks = fitText(c.title, c.lines, o, x1 - x0, textBudget, measure);

  const ops: DrawOp[] = [];
  const textBottom = Math.ceil(placeBlocks(ops, blocks, margin, x0, x1, 'center'));
  if (c.footer) ops.push(footerOp(c.footer, footerSize, x0, x1, h - margin, 'center', measure));
  // ...then grows into the rest (its quiet zone may reach into the side margins).
  const room = footerTop - textBottom - barsH;
  const qrModule = qrModuleFor(matrix, Math.min(w, room, Math.round(h * 0.55)), p);
  const qrSide = qrBlockSide(matrix, qrModule);
  // The group (QR, bars) sits centred in the space between text and footer.
  const groupH = qrSide + barsH;
  const qrY = Math.round(textBottom + (footerTop - textBottom - groupH) / 2);
  ops.push({ kind: 'qr', x: Math.floor((w - qrSide) / 2), y: qrY, module: qrModule, matrix });
  if (bars) {
    const bw = code128BlockWidth(bars.pattern, bars.module);
    ops.push({
      kind: 'bars',
      x: Math.floor((w - bw) / 2) + CODE128_QUIET_MODULES * bars.module,
      y: qrY + qrSide + bars.gap,
      module: bars.module,
      height: bars.height,
      pattern: bars.pattern,
    });
  }
  return { width: w, height: h, rotate90: false, ops };
}

export function layoutLabel(content: LabelContent, presetName: PresetName, measure: Measure): Layout {
  const p = getPreset(presetName);
  if (p.orientation === 'rotated') {
    // Design across the long side; the encoder turns it into the printer's raster.
    const l = landscape(content, p, p.maxHeightPx, p.widthPx, measure);
    return { ...l, rotate90: true };
  }
  if (p.orientation === 'portrait') return portrait(content, p, p.widthPx, p.maxHeightPx, measure);
  return landscape(content, p, p.widthPx, p.heightPx, measure);
}
