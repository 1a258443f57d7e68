/**
 * The scan check of a design (the spec's ScanCheck): its label drawn with sample
 * records on the stock's paper, each code damaged as the robustness suite damages it
 * (degrade.ts SINGLE, as test/labels/robustness.test.ts) and read back with zxing
 * (barcode-reader.ts). A two-colour label is read as printed: its red marks in the red
 * ink's gray (degrade.ts fromInks). A few hundred ms to seconds of CPU: it runs on a render thread
 * (render-worker.ts), never on the event loop.
 */
import { decodeBarcodes, type Format } from './barcode-reader.js';
import { fromInks, onPaper, SINGLE, toImageData } from './degrade.js';
import type { LabelRecord, Template } from './design.js';
import { decodeBlackRedPng } from './mono-png.js';
import { layoutFor, renderLabel } from './render.js';
import { paperDots } from './stock.js';

const FORMATS = { qr: 'QRCode', datamatrix: 'DataMatrix', code128: 'Code128' } as const satisfies Record<string, Format>;
type Sym = keyof typeof FORMATS;

/** One code of the design: which element it is (-1: a line design's code), and whether it was read after each damage. */
export interface ScannedCode {
  element: number;
  symbology: Sym;
  damages: { damage: string; decoded: boolean }[];
}

/** What each code carries on the record's label, and which element it is (`codeElements`: the design's code elements' indexes in order; null for a line design). */
function codesOn(template: Template, record: LabelRecord, codeElements: readonly number[] | null): { element: number; symbology: Sym; text: string }[] {
  const { layout } = layoutFor(record, template);
  let k = 0;
  return layout.items.flatMap((item) => {
    if (item.kind !== 'matrix' && item.kind !== 'bars') return [];
    const element = codeElements ? (codeElements[k++] ?? -1) : -1;
    return [{ element, symbology: item.symbol.symbology, text: item.symbol.data }];
  });
}

/** Every code of the template on each record's label, damaged and read; a code seen on several records' labels keeps its worst. */
export async function scanCodes(template: Template, records: readonly LabelRecord[], codeElements: readonly number[] | null): Promise<ScannedCode[]> {
  const codes: ScannedCode[] = [];
  for (const record of records) {
    const expected = codesOn(template, record, codeElements);
    if (expected.length === 0) continue;
    const label = renderLabel(record, template);
    const { across, along } = paperDots(template.stock);
    // As printed: on a two-colour roll the red codes in the red ink's gray, not as dark as black.
    const { black, red } = decodeBlackRedPng(label.png);
    const g = onPaper(fromInks(black, red), across, along);
    const damages = [['clean', (x: typeof g) => x] as const, ...Object.entries(SINGLE)];
    const results = expected.map((c) => ({ element: c.element, symbology: c.symbology, damages: [] as ScannedCode['damages'] }));
    for (const [damage, degrade] of damages) {
      const found = await decodeBarcodes(toImageData(degrade(g)), { tryDenoise: true });
      expected.forEach((c, i) => results[i]!.damages.push({ damage, decoded: found.some((f) => f.format === FORMATS[c.symbology] && f.text === c.text) }));
    }
    for (const r of results) {
      const same = codes.find((c) => c.element === r.element && c.symbology === r.symbology);
      if (!same) codes.push(r);
      else same.damages = same.damages.map((d, i) => ({ damage: d.damage, decoded: d.decoded && (r.damages[i]?.decoded ?? false) }));
    }
  }
  return codes;
}
