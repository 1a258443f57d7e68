/**
 * Label rendering benchmark: per preset, median ms per label (layout + draw +
 * encode) and bytes per label for our 1-bit PNG path, next to the same
 * drawing encoded by canvas.toBuffer('image/png') (8-bit RGBA) in the same run.
 * Each iteration renders a different record (title, URL), so per-text caches
 * do not flatter the numbers. Run: npx tsx scripts/bench-render.ts [iterations]
 */
import { encodePng1, packRows } from '../src/labels/png.js';
import { getPreset, PRESET_NAMES, renderLabel, type LabelContent } from '../src/labels/index.js';
import { layoutFor, paint } from '../src/labels/render.js';
import { BASIC } from '../test/labels/samples.js';

const N = Number(process.argv[2] ?? 200);
const WARMUP = 50;

function record(i: number): LabelContent {
  const base = BASIC[i % BASIC.length]!;
  return { ...base, title: `${base.title} ${i}`, qrUrl: `${base.qrUrl}-${i}` };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

const rows: string[][] = [['preset', 'size', '1-bit ms', '1-bit B', 'RGBA ms', 'RGBA B', 'speed x', 'size x']];
for (const preset of PRESET_NAMES) {
  const ours: number[] = [];
  const oursBytes: number[] = [];
  const base: number[] = [];
  const baseBytes: number[] = [];
  let size = '';
  for (let i = 0; i < WARMUP + N; i++) {
    const content = record(i);
    let t = performance.now();
    const r = renderLabel(content, preset);
    const ourMs = performance.now() - t;
    t = performance.now();
    const canvas = paint(layoutFor(content, preset));
    const png8 = canvas.toBuffer('image/png');
    const baseMs = performance.now() - t;
    if (i < WARMUP) continue;
    size = `${r.width}x${r.height}`;
    ours.push(ourMs);
    oursBytes.push(r.png.length);
    base.push(baseMs);
    baseBytes.push(png8.length);
  }
  const [o, b, ob, bb] = [median(ours), median(base), median(oursBytes), median(baseBytes)];
  rows.push([preset, size, o.toFixed(2), String(ob), b.toFixed(2), String(bb), (b / o).toFixed(1), (bb / ob).toFixed(1)]);
}
// Keep tree-shaking honest: these are what renderLabel uses.
void encodePng1;
void packRows;
void getPreset;

const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
for (const [i, r] of rows.entries()) {
  console.log(r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
console.log(`\nmedian of ${N} labels per preset after ${WARMUP} warm-up; RGBA = same drawing, canvas.toBuffer('image/png').`);
console.log('Note: RGBA baseline for rotated stock is the landscape design, before rotation.');
