import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Jimp } from 'jimp';
import { describe, expect, it } from 'vitest';
import { builtInTemplate, renderLabel, type LabelRecord } from '../../src/labels/index.js';
import { ASSET, FOOTER, HOSTILE, ITEM, LOCATION } from './samples.js';

/**
 * Golden images: representative labels compared pixel by pixel. A few pixels
 * may differ across FreeType/Cairo versions; layout changes move thousands.
 * UPDATE_GOLDENS=1 rewrites them (then look at them before committing).
 */
const dir = new URL('../fixtures/labels/', import.meta.url);
const TOLERANCE = 0.002; // share of pixels allowed to differ
const update = process.env.UPDATE_GOLDENS === '1';
const stress = (name: string) => HOSTILE.find((s) => s.name === name)!.record;

const cases: [string, LabelRecord, string][] = [
  ['brother-ql-62x29-asset', ASSET, 'brother-ql-62x29'],
  ['brother-ql-29x90-location', LOCATION, 'brother-ql-29x90'],
  ['brother-ql-62x100-item', ITEM, 'brother-ql-62x100'],
  ['zebra-2x1-203dpi-arabic', stress('arabic'), 'zebra-2x1-203dpi'],
  ['brother-ql-62-long-item', stress('long'), 'brother-ql-62'],
  ['brother-ql-62x100-asset', ASSET, 'brother-ql-62x100'],
  ['brother-ql-17x54-thai', stress('thai'), 'brother-ql-17x54'],
  // 4 x 6 in class: the title grown with the stock (59 pt), the path at its usual size.
  ['brother-ql-102x152-item', ITEM, 'brother-ql-102x152'],
];

describe('golden labels', () => {
  for (const [name, content, preset] of cases) {
    it(`${name} matches test/fixtures/labels/${name}.png`, async () => {
      const { png } = renderLabel(content, builtInTemplate(preset)!, { footer: FOOTER });
      const file = new URL(`${name}.png`, dir);
      if (update) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(file, png);
      }
      expect(existsSync(file), `missing golden ${name}.png: run with UPDATE_GOLDENS=1`).toBe(true);
      const [want, got] = await Promise.all([Jimp.read(readFileSync(file)), Jimp.read(png)]);
      expect([got.bitmap.width, got.bitmap.height]).toEqual([want.bitmap.width, want.bitmap.height]);
      let diff = 0;
      const a = want.bitmap.data;
      const b = got.bitmap.data;
      for (let i = 0; i < a.length; i += 4) if (a[i] !== b[i]) diff++;
      expect(diff / (a.length / 4)).toBeLessThanOrEqual(TOLERANCE);
    });
  }
});
