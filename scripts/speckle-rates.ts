/**
 * How often each code on each stock reads after 3% speckle, over many speckle
 * patterns instead of the robustness suite's one (test/labels/robustness.test.ts).
 * Speckle is random, so one pattern says little about a layout: this shows
 * which cells miss some patterns and how many (zxing's DataMatrix detector
 * misses a few at any module size; see KNOWN in the suite).
 *   npm run robustness:speckle [-- 20]   (patterns per code; default 20)
 */
import { builtInTemplate, renderLabel, STOCKS } from '../src/labels/index.js';
import { layoutFor } from '../src/labels/render.js';
import { decodeMonoPng } from '../src/printing/mono-png.js';
import { fromDots, speckle } from '../test/helpers/degrade.js';
import { codesOf, read } from '../test/labels/robustness.js';
import { BASIC } from '../test/labels/samples.js';

const patterns = Number(process.argv[2] ?? 20);
const misses: string[] = [];
for (const stock of STOCKS) {
  const template = builtInTemplate(stock.name)!;
  const cells: string[] = [];
  for (const record of BASIC) {
    const label = renderLabel(record, template);
    const dots = fromDots(decodeMonoPng(label.png));
    for (const code of codesOf(layoutFor(record, template).layout)) {
      let reads = 0;
      for (let seed = 1; seed <= patterns; seed++) if (await read(speckle(dots, 0.03, 0.7, seed), code)) reads++;
      cells.push(`${record.kind} ${code.format} ${reads}/${patterns}`);
      if (reads < patterns) misses.push(`${stock.name} ${record.kind} ${code.format} m${code.module}: ${reads}/${patterns}`);
    }
  }
  console.log(`${stock.name.padEnd(24)}${cells.join('  ')}`);
}
console.log(misses.length ? `\ncells that miss some patterns:\n  ${misses.join('\n  ')}` : '\nevery code read every pattern');
