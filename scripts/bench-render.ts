/**
 * Label rendering benchmark: per preset, median ms per label (layout + draw +
 * encode) and bytes per label for our 1-bit PNG path (renderLabel: Cairo draws
 * the text, QR and Code 128 modules are set in the 1-bit rows), next to a
 * baseline in the same run: the same layout drawn entirely by Cairo (text,
 * QR and bars as canvas rectangles, on RGBA) and encoded by
 * canvas.toBuffer('image/png') (8-bit RGBA). Both give the same pixels after
 * thresholding (test/labels/render.test.ts checks it).
 * Each iteration renders a different record (title, URL), distinct across
 * presets too, so per-text caches (QR matrices, text widths) do not flatter
 * renderLabel. The baseline runs after it over the same records, so it gets
 * the layout from those caches: its time is drawing + encoding only (which
 * flatters the baseline, never us).
 * Run: npx tsx scripts/bench-render.ts [iterations] [stock name filter]
 */
import { builtInTemplate, renderLabel, STOCKS, type LabelRecord } from '../src/labels/index.js';
import { layoutFor, paint } from '../src/labels/render.js';
import { BASIC } from '../test/labels/samples.js';

const N = Number(process.argv[2] ?? 200);
const only = process.argv[3];
const WARMUP = 100;

function record(i: number, preset: number): LabelRecord {
  const base = BASIC[i % BASIC.length]!;
  // Digits only: a letter would force the URL's tail into byte mode and a larger QR.
  const n = preset * 10 ** String(WARMUP + N).length + i;
  return { ...base, name: `${base.name} ${n}`, url: `${base.url}-${n}` };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

const rows: string[][] = [['preset', 'size', '1-bit ms', '1-bit B', 'RGBA ms', 'RGBA B', 'speed x', 'size x']];
for (const [p, stock] of STOCKS.entries()) {
  if (only && !stock.name.includes(only)) continue;
  const preset = stock.name;
  const template = builtInTemplate(preset)!;
  const ours: number[] = [];
  const oursBytes: number[] = [];
  const base: number[] = [];
  const baseBytes: number[] = [];
  let size = '';
  const records = Array.from({ length: WARMUP + N }, (_, i) => record(i, p));
  // Two phases over the same records: ours first, then the baseline. Interleaving
  // them made each evict the other's caches and measured that instead.
  for (const [i, content] of records.entries()) {
    const t = performance.now();
    const r = renderLabel(content, template);
    const ms = performance.now() - t;
    if (i < WARMUP) continue;
    size = `${r.width}x${r.height}`;
    ours.push(ms);
    oursBytes.push(r.png.length);
  }
  for (const [i, content] of records.entries()) {
    const t = performance.now();
    const canvas = paint(layoutFor(content, template).layout);
    const png8 = canvas.toBuffer('image/png');
    const ms = performance.now() - t;
    if (i < WARMUP) continue;
    base.push(ms);
    baseBytes.push(png8.length);
  }
  const [o, b, ob, bb] = [median(ours), median(base), median(oursBytes), median(baseBytes)];
  rows.push([preset, size, o.toFixed(2), String(ob), b.toFixed(2), String(bb), (b / o).toFixed(1), (bb / ob).toFixed(1)]);
}
const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log(`\nmedian of ${N} labels per preset after ${WARMUP} warm-up, a new title and URL per label.`);
console.log("1-bit = renderLabel (layout incl. QR, Cairo text on A8, codes set in 1-bit rows, 1-bit PNG).");
console.log("RGBA = the same layout (from renderLabel's caches) drawn wholly by Cairo, QR and bars included, on RGBA;");
console.log("       canvas.toBuffer('image/png'). Same pixels after thresholding.");
console.log('Note: RGBA baseline for rotated stock is the landscape design, before rotation.');
