/**
 * The robustness check behind test/labels/robustness.test.ts: render a label,
 * put it through a simulated printer and scanner (test/helpers/degrade.ts),
 * and see whether zxing still reads each of its codes.
 *
 * - The scanner sees the label on its paper: the PNG (the printable area)
 *   with the stock's unprinted margins around it (stock.ts paperDots), as white.
 * - Single degradations: the whole label, degraded one way, decoded as a
 *   scanner would see it (any orientation).
 * - Dead print-head dot: one sweep per code over the head positions (PNG
 *   columns: x runs across the head) that cross the symbol; elsewhere a dead
 *   dot cannot touch it. Every module column is tried at its first, middle and
 *   last dot (so every dot with modules of up to 3 dots). Each position is
 *   decoded on the code's own region (symbol, quiet zone and a few dots
 *   around), linear codes stood upright, so a sweep stays cheap.
 * - Combined: everything at once (degrade.ts `combined`), with the dead dot
 *   in the column through the middle of the code.
 */
import { decodeMonoPng } from '../../src/labels/mono-png.js';
import type { Layout } from '../../src/labels/layout.js';
import type { RenderedLabel } from '../../src/labels/index.js';
import { decodeBarcodes, type Format } from '../helpers/barcodes.js';
import { paperDots } from '../../src/labels/stock.js';
import { combined, crop, deadDot, fromDots, onPaper, SINGLE, toImageData, turn90, type Gray } from '../helpers/degrade.js';

/** A code on a rendered label, in PNG coordinates. */
export interface LabelCode {
  format: Format;
  text: string;
  /** The symbol (no quiet zone) and the symbol with its quiet zone: [x0, y0, x1, y1). */
  symbol: [number, number, number, number];
  zone: [number, number, number, number];
  /** Module size in dots, and for linear codes whether the bars run across the print head. */
  module: number;
  acrossHead?: boolean;
}

/** Design box -> PNG box (rotated stock is turned clockwise: design (x, y) -> PNG (height - 1 - y, x)). */
function toPng(layout: Layout, [x0, y0, x1, y1]: [number, number, number, number]): [number, number, number, number] {
  return layout.rotate90 ? [layout.height - y1, x0, layout.height - y0, x1] : [x0, y0, x1, y1];
}

export function codesOf(layout: Layout): LabelCode[] {
  const out: LabelCode[] = [];
  for (const item of layout.items) {
    if (item.kind === 'matrix') {
      const { symbol: s, module: m } = item;
      const q = s.quiet * m;
      const box: [number, number, number, number] = [item.x, item.y, item.x + s.cols * m, item.y + s.rows * m];
      out.push({
        format: s.symbology === 'qr' ? 'QRCode' : 'DataMatrix',
        text: s.data,
        symbol: toPng(layout, box),
        zone: toPng(layout, [box[0] - q, box[1] - q, box[2] + q, box[3] + q]),
        module: m,
      });
    } else if (item.kind === 'bars') {
      const { symbol: s, module: m } = item;
      const run = s.modules * m;
      const q = s.quiet * m;
      const box: [number, number, number, number] =
        item.bars === 'vertical' ? [item.x, item.y, item.x + run, item.y + item.length] : [item.x, item.y, item.x + item.length, item.y + run];
      const zone: [number, number, number, number] = item.bars === 'vertical' ? [box[0] - q, box[1], box[2] + q, box[3]] : [box[0], box[1] - q, box[2], box[3] + q];
      // In the PNG, bars standing up (vertical) run along x, i.e. along the head: a dead dot splits one.
      const pngVertical = (item.bars === 'vertical') !== layout.rotate90;
      out.push({ format: 'Code128', text: s.data, symbol: toPng(layout, box), zone: toPng(layout, zone), module: m, acrossHead: !pngVertical });
    }
  }
  return out;
}

/**
 * The scanner: zxing trying everything it can (every row, rotations, and its
 * denoising pass for 2D codes). Without denoising, zxing finds no QR code
 * whose finder pattern has a one-dot white line through its core, and no
 * DataMatrix with such a line anywhere, whatever the module size, error
 * correction or orientation: no layout can fix that, a decoder option does.
 */
const SCAN = { tryDenoise: true } as const;

export const read = async (g: Gray, code: LabelCode, tryRotate = true): Promise<boolean> =>
  (await decodeBarcodes(toImageData(g), { ...SCAN, formats: [code.format], tryRotate })).some((c) => c.format === code.format && c.text === code.text);

/** The code's region for the dead-dot sweep: quiet zone plus a few dots of label around it. */
function region(g: Gray, code: LabelCode): { img: Gray; x0: number } {
  const pad = 6;
  const [x0, y0, x1, y1] = code.zone;
  const img = crop(g, x0 - pad, y0 - pad, x1 + pad, y1 + pad);
  return { img, x0: Math.max(0, x0 - pad) };
}

/** Head positions (PNG columns) where one dead dot stops the code from reading. */
export async function deadDotFailures(g: Gray, code: LabelCode): Promise<{ failed: number[]; positions: number }> {
  const { img, x0 } = region(g, code);
  const failed: number[] = [];
  const linear = code.format === 'Code128';
  let positions = 0;
  for (let x = code.symbol[0]; x < code.symbol[2]; x++) {
    // Within a module column only where the dead dot falls matters (its edges or its middle):
    // every module column is tried at its first, middle and last dot (every dot up to 3-dot modules).
    const at = (x - code.symbol[0]) % code.module;
    if (at !== 0 && at !== code.module - 1 && at !== code.module >> 1) continue;
    positions++;
    let damaged = deadDot(img, x - x0);
    // Stand linear codes up: bars along y in the picture, so a decoder needs no rotation.
    if (linear && code.acrossHead) damaged = turn90(damaged);
    if (!(await read(damaged, code, !linear))) failed.push(x);
  }
  return { failed, positions };
}

export interface CodeResult {
  code: LabelCode;
  /** Degradation name -> decoded. */
  single: Record<string, boolean>;
  dead: { failed: number[]; positions: number };
  combined: boolean;
}

/** The label as a scanner sees it: the PNG on the stock's paper, and its codes in that picture's coordinates. */
export function onItsPaper(label: RenderedLabel, layout: Layout): { g: Gray; codes: LabelCode[] } {
  // The PNG's x runs across the print head, its y along the feed.
  const { across, along } = paperDots(layout.stock);
  const g = onPaper(fromDots(decodeMonoPng(label.png)), across, along);
  const at = ([x0, y0, x1, y1]: [number, number, number, number]): [number, number, number, number] => [x0 + across, y0 + along, x1 + across, y1 + along];
  return { g, codes: codesOf(layout).map((c) => ({ ...c, symbol: at(c.symbol), zone: at(c.zone) })) };
}

export async function checkLabel(label: RenderedLabel, layout: Layout): Promise<CodeResult[]> {
  const { g, codes } = onItsPaper(label, layout);
  const results: CodeResult[] = codes.map((code) => ({ code, single: {}, dead: { failed: [], positions: 0 }, combined: false }));
  for (const [name, degrade] of Object.entries(SINGLE)) {
    const found = await decodeBarcodes(toImageData(degrade(g)), SCAN);
    for (const r of results) r.single[name] = found.some((c) => c.format === r.code.format && c.text === r.code.text);
  }
  for (const r of results) {
    r.dead = await deadDotFailures(g, r.code);
    const middle = (r.code.symbol[0] + r.code.symbol[2]) >> 1;
    r.combined = await read(combined(g, middle), r.code);
  }
  return results;
}
