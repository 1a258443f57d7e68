/**
 * How often each code on each stock reads over many variations of a
 * degradation, where the robustness suite (test/labels/robustness.test.ts)
 * tries one, or for more records than the suite's. One try says little about a
 * layout: these show which cells miss some and how many.
 *   npm run robustness:speckle [-- 20]   3% speckle, 20 patterns per code
 *   npm run robustness:framing [-- 16]   a half-resolution scan of the label on
 *     more white paper, placed at 16 x 16 offsets (0-15 dots each way: every grid
 *     phase and every alignment with zxing's 8 x 8 binarizer blocks)
 *   npm run robustness:hostile           the suite's single degradations (no
 *     dead-dot sweep) on the hostile-name records of the contact sheet
 * The label is on its stock's paper (robustness.ts onItsPaper), as in the suite.
 */
import { builtInTemplate, renderLabel, STOCKS, type LabelRecord } from '../src/labels/index.js';
import { layoutFor } from '../src/labels/render.js';
import { downscale, onPaper, SINGLE, speckle, type Gray } from '../test/helpers/degrade.js';
import { onItsPaper, read } from '../test/labels/robustness.js';
import { BASIC, HOSTILE } from '../test/labels/samples.js';

interface Measure {
  records: readonly { name: string; record: LabelRecord }[];
  /** The variants for n (the command's number): each a name and the degradation. */
  variants(n: number): [string, (g: Gray) => Gray][];
  n: number;
}

const basic = BASIC.map((record) => ({ name: record.kind, record }));
const MEASURES: Record<string, Measure> = {
  speckle: { records: basic, n: 20, variants: (n) => Array.from({ length: n }, (_, i) => [`pattern ${i + 1}`, (g) => speckle(g, 0.03, 0.7, i + 1)]) },
  // The label at offset (x, y) on paper 48 dots larger than it each way (at least 16 dots on every side).
  framing: {
    records: basic,
    n: 16,
    variants: (n) =>
      Array.from({ length: n * n }, (_, i) => {
        const [x, y] = [16 + (i % n), 16 + Math.floor(i / n)];
        return [`at ${x},${y}`, (g) => downscale(onPaper(g, x, y, 48 - x, 48 - y), 0.5)];
      }),
  },
  hostile: { records: HOSTILE, n: 0, variants: () => Object.entries(SINGLE) },
};

const name = process.argv[2] ?? 'speckle';
const measure = MEASURES[name];
if (!measure) throw new Error(`robustness-rates: unknown measure ${name} (${Object.keys(MEASURES).join(', ')})`);
const variants = measure.variants(Number(process.argv[3] ?? measure.n));
const misses: string[] = [];
let reads = 0;
let tries = 0;
for (const stock of STOCKS) {
  const template = builtInTemplate(stock.name)!;
  const cells: string[] = [];
  for (const { name: recordName, record } of measure.records) {
    const { g, codes } = onItsPaper(renderLabel(record, template), layoutFor(record, template).layout);
    for (const code of codes) {
      const missed: string[] = [];
      for (const [variant, degrade] of variants) if (!(await read(degrade(g), code))) missed.push(variant);
      const hits = variants.length - missed.length;
      reads += hits;
      tries += variants.length;
      cells.push(`${recordName} ${code.format} ${hits}/${variants.length}`);
      if (missed.length) misses.push(`${stock.name} ${recordName} ${code.format} m${code.module}: ${hits}/${variants.length}${missed.length <= 3 ? ` (missed ${missed.join('; ')})` : ''}`);
    }
  }
  console.log(`${stock.name.padEnd(24)}${cells.join('  ')}`);
}
console.log(`\n${reads} of ${tries} reads (${name})`);
console.log(misses.length ? `cells that miss some:\n  ${misses.join('\n  ')}` : 'every code read every time');
