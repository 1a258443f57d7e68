/**
 * The scan check of a saved design (the spec's ScanCheck): its label drawn with a sample
 * record, on the stock's paper, each code damaged as the robustness suite damages it
 * (src/labels/degrade.ts SINGLE, as test/labels/robustness.test.ts) and read back with
 * zxing (barcode-reader.ts). Run once per save, on the request's thread: a few hundred ms.
 */
import { decodeMonoPng, layoutFor, paperDots, renderLabel, type LabelRecord, type Template } from '../labels/index.js';
import { fromDots, onPaper, SINGLE, toImageData } from '../labels/degrade.js';
import { decodeBarcodes, type Format } from './barcode-reader.js';
import type { ScanCheck, StoredDesign } from './template-design.js';

const FORMATS = { qr: 'QRCode', datamatrix: 'DataMatrix', code128: 'Code128' } as const satisfies Record<string, Format>;
type Sym = keyof typeof FORMATS;

/** What each code of the design carries on the record's label, and which element it is (-1: a line design's). */
function codesOn(template: Template, record: LabelRecord, design: StoredDesign): { element: number; symbology: Sym; text: string }[] {
  const { layout } = layoutFor(record, template);
  const elementIndexes = (design.elements ?? []).flatMap((el, i) => (el.type === 'code' ? [i] : []));
  let k = 0;
  return layout.items.flatMap((item) => {
    if (item.kind !== 'matrix' && item.kind !== 'bars') return [];
    const element = design.elements ? (elementIndexes[k++] ?? -1) : -1;
    return [{ element, symbology: item.symbol.symbology, text: item.symbol.data }];
  });
}

export async function scanCheck(template: Template, records: readonly LabelRecord[], design: StoredDesign, now: Date): Promise<ScanCheck> {
  const codes: ScanCheck['codes'] = [];
  for (const record of records) {
    const expected = codesOn(template, record, design);
    if (expected.length === 0) continue;
    const label = renderLabel(record, template);
    const { across, along } = paperDots(template.stock);
    const g = onPaper(fromDots(decodeMonoPng(label.png)), across, along);
    const damages = [['clean', (x: typeof g) => x] as const, ...Object.entries(SINGLE)];
    const results = expected.map((c) => ({ element: c.element, symbology: c.symbology, damages: [] as { damage: string; decoded: boolean }[] }));
    for (const [damage, degrade] of damages) {
      const found = await decodeBarcodes(toImageData(degrade(g)), { tryDenoise: true });
      expected.forEach((c, i) => results[i]!.damages.push({ damage, decoded: found.some((f) => f.format === FORMATS[c.symbology] && f.text === c.text) }));
    }
    // One entry per code: a code seen on several kinds' labels keeps its worst.
    for (const r of results) {
      const same = codes.find((c) => c.element === r.element && c.symbology === r.symbology);
      if (!same) codes.push(r);
      else same.damages = same.damages.map((d, i) => ({ damage: d.damage, decoded: d.decoded && (r.damages[i]?.decoded ?? false) }));
    }
  }
  return { passed: codes.every((c) => c.damages.every((d) => d.decoded)), checkedAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), codes };
}
