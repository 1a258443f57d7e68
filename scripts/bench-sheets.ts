/**
 * Sheet throughput: labels per second into a PDF (renderSheetPdf: layout + Cairo's
 * PDF surface + font subsetting at the end) for a few sheet products, next to the
 * single-label PNG path (renderLabel) in the same run over the same records, as a
 * table with ratios. Every label is a different record (no per-text cache flatters
 * either side). Median of ROUNDS rounds.
 * Run: npm run bench:sheets [-- labels-per-sheet]
 */
import { builtInTemplate, findSheetProduct, renderLabel, renderSheetPdf, type LabelRecord } from '../src/labels/index.js';
import { BASIC } from '../test/labels/samples.js';

const LABELS = Number(process.argv[2] ?? 210);
const ROUNDS = 5;
const PRODUCTS = ['avery-l7160', 'avery-5160', 'avery-l7656', 'label-per-page'];
const template = builtInTemplate('brother-ql-62x29')!;
let serial = 0;
const records = (): LabelRecord[] =>
  Array.from({ length: LABELS }, (_, i) => {
    const base = BASIC[i % BASIC.length]!;
    const n = ++serial;
    return { ...base, name: `${base.name} ${n}`, url: `${base.url}-${n}`, ...(base.kind === 'asset' ? { assetId: n } : {}) };
  });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(run: () => Promise<unknown> | unknown): Promise<number> {
  const t = performance.now();
  await run();
  return performance.now() - t;
}

// Warm-up: fonts, canvases, the PDF path.
for (const r of records().slice(0, 30)) renderLabel(r, template);
await renderSheetPdf(records().slice(0, 30).map((record) => ({ record, copies: 1 })), { product: findSheetProduct('avery-l7160')!, template });

const rows: { what: string; ms: number; perSec: number; bytes: number }[] = [];
const pngMs: number[] = [];
let pngBytes = 0;
for (let r = 0; r < ROUNDS; r++) {
  const recs = records();
  pngMs.push(await time(() => { pngBytes = recs.reduce((n, rec) => n + renderLabel(rec, template).png.length, 0); }));
}
const png = median(pngMs);
rows.push({ what: `PNG labels (renderLabel, ${template.name})`, ms: png, perSec: (LABELS / png) * 1000, bytes: pngBytes / LABELS });
for (const name of PRODUCTS) {
  const ms: number[] = [];
  let bytes = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const recs = records();
    ms.push(await time(async () => { bytes = (await renderSheetPdf(recs.map((record) => ({ record, copies: 1 })), { product: findSheetProduct(name)!, template })).pdf.length; }));
  }
  const m = median(ms);
  rows.push({ what: `PDF sheet ${name}`, ms: m, perSec: (LABELS / m) * 1000, bytes: bytes / LABELS });
}
console.log(`${LABELS} different labels per run, median of ${ROUNDS} runs (same process, same records generator)\n`);
console.log(['what'.padEnd(44), 'ms/run'.padStart(9), 'labels/s'.padStart(10), 'bytes/label'.padStart(12), 'vs PNG'.padStart(8)].join(' '));
for (const row of rows) {
  console.log([row.what.padEnd(44), row.ms.toFixed(0).padStart(9), row.perSec.toFixed(0).padStart(10), row.bytes.toFixed(0).padStart(12), `${(row.perSec / rows[0]!.perSec).toFixed(2)}x`.padStart(8)].join(' '));
}
