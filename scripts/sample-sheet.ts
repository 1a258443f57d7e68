/**
 * Renders every preset x kind (and stress content on a few presets) into
 * out/samples/*.png for looking at. Run: npx tsx scripts/sample-sheet.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { PRESET_NAMES, renderLabel } from '../src/labels/index.js';
import { BASIC, STRESS } from '../test/labels/samples.js';

const dir = new URL('../out/samples/', import.meta.url);
mkdirSync(dir, { recursive: true });
let n = 0;
for (const preset of PRESET_NAMES) {
  for (const content of BASIC) {
    writeFileSync(new URL(`${preset}--${content.kind}.png`, dir), renderLabel(content, preset).png);
    n++;
  }
  for (const { name, content } of STRESS) {
    writeFileSync(new URL(`${preset}--${name}.png`, dir), renderLabel(content, preset).png);
    n++;
  }
}
console.log(`wrote ${n} labels to ${dir.pathname}`);
