/**
 * Print-and-scan robustness: every stock x kind rendered, put through a
 * simulated printer and scanner, and read back with zxing (robustness.ts).
 * Every code must decode after each single degradation and after a dead
 * print-head dot at any position, except the few cells listed in KNOWN,
 * where measurement showed that no layout on that stock can do it (each says
 * why). A KNOWN cell that starts to pass fails the test too, so the list stays
 * true. The combined degradation (everything at once) is reported, not
 * required. Tables: printed, and written to out/robustness/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { builtInTemplate, renderLabel, STOCKS } from '../../src/labels/index.js';
import { layoutFor } from '../../src/labels/render.js';
import { SINGLE } from '../helpers/degrade.js';
import { checkLabel, type CodeResult } from './robustness.js';
import { BASIC } from './samples.js';

const DEAD = 'dead dot';

/**
 * Cells that cannot pass, by measurement (24 November; the KNOWN cell before then,
 * the 23 mm asset label's DataMatrix under speckle, reads now as a QR code):
 * - brother-ql-23x23 location and item, half resolution with the scanner's grid
 *   one dot off along the feed only (a phase added that day, when it showed that a
 *   4-dot DataMatrix reads at two or three of the four phases; the old suite
 *   tried the diagonal ones only). A QR code reads at every phase and after every
 *   other degradation on the tiny stocks, and they use it where it fits; but here a
 *   location's or item's URL makes a QR code of 41 modules with its quiet zone,
 *   164 of the label's 202 dots, and the name no longer fits above it (looked at on
 *   the contact sheet: cut in half). A DataMatrix of the same URL takes 144 dots at
 *   4-dot modules and leaves a line for the name; at 5 dots it would not. So these
 *   labels keep the DataMatrix (LabelContent.code2d.smaller) and this phase.
 * Over 20 speckle patterns per code (`npm run robustness:speckle`), every QR code
 * reads all 20, the DataMatrix codes 17-20 (zxing's DataMatrix detector misses a few
 * patterns at any module size), Code 128 19-20.
 * No Code 128 cell: the standard asset barcode is drawn only with 4-dot bars
 * across the print head (CodeSpec.sturdy) and left out where they do not fit,
 * because each other arrangement loses a cell: 3-dot bars read at half
 * resolution at one grid phase of two (all five ids tried, any placement, also
 * with bars a dot thinner or fractional modules), and bars along the head
 * (4-dot ones in a full-width band on 62 x 29 mm too) split at a dead dot.
 */
const ALONG = 'downscale 0.5 (grid +1 dot along)';
const NAME_ABOVE = "a QR code of the URL leaves no line for the name on 23 mm stock: a 4-dot DataMatrix, which misses this one phase";
const KNOWN: { stock: string; kind: string; format: string; degradation: string; why: string }[] = [
  { stock: 'brother-ql-23x23', kind: 'location', format: 'DataMatrix', degradation: ALONG, why: NAME_ABOVE },
  { stock: 'brother-ql-23x23', kind: 'item', format: 'DataMatrix', degradation: ALONG, why: NAME_ABOVE },
];

const known = (stock: string, kind: string, format: string, degradation: string) =>
  KNOWN.find((k) => k.stock === stock && k.kind === kind && k.format === format && k.degradation === degradation);

const rows: { stock: string; kind: string; r: CodeResult }[] = [];

describe('print-and-scan robustness (zxing)', () => {
  for (const stock of STOCKS) {
    it(`${stock.name}: every code reads after each single degradation and any dead dot`, async () => {
      const template = builtInTemplate(stock.name)!;
      const problems: string[] = [];
      for (const record of BASIC) {
        const label = renderLabel(record, template);
        const { layout } = layoutFor(record, template);
        const results = await checkLabel(label, layout);
        expect(results.length, `${stock.name} ${record.kind}: codes on the label`).toBe(record.kind === 'asset' ? 2 - Number(label.warnings.includes('code-omitted')) : 1);
        for (const r of results) {
          rows.push({ stock: stock.name, kind: record.kind, r });
          const cells: [string, boolean][] = [...Object.entries(r.single), [DEAD, r.dead.failed.length === 0]];
          for (const [degradation, ok] of cells) {
            const k = known(stock.name, record.kind, r.code.format, degradation);
            const where = `${stock.name} ${record.kind} ${r.code.format} m${r.code.module}: ${degradation}`;
            if (!ok && !k) problems.push(`${where} does not read${degradation === DEAD ? ` (head positions ${r.dead.failed.slice(0, 8).join(', ')}…)` : ''}`);
            if (ok && k) problems.push(`${where} reads now: remove it from KNOWN`);
          }
        }
      }
      expect(problems).toEqual([]);
    }, 240_000); // large stock sweeps many dead-dot positions: a minute or more on a busy machine
  }
});

afterAll(() => {
  if (rows.length === 0) return;
  const names = Object.keys(SINGLE);
  const mark = (ok: boolean, k: boolean) => (ok ? 'yes' : k ? 'no (known)' : 'NO');
  const head = ['stock', 'kind', 'code', 'module', ...names, 'dead dot (failed/positions)'];
  const single = rows.map(({ stock, kind, r }) => [
    stock,
    kind,
    r.code.format,
    `${r.code.module}${r.code.acrossHead === undefined ? '' : r.code.acrossHead ? ' across' : ' along'}`,
    ...names.map((n) => mark(r.single[n]!, !!known(stock, kind, r.code.format, n))),
    `${r.dead.failed.length}/${r.dead.positions}`,
  ]);
  const combined = rows.map(({ stock, kind, r }) => [stock, kind, r.code.format, String(r.code.module), r.combined ? 'decoded' : 'not decoded']);
  const md = (h: string[], body: string[][]) => [`| ${h.join(' | ')} |`, `|${h.map(() => ' --- ').join('|')}|`, ...body.map((b) => `| ${b.join(' | ')} |`)].join('\n');
  const decoded = rows.filter((r) => r.r.combined).length;
  const text = [
    '# Print-and-scan robustness',
    '',
    'Decoder: zxing-wasm (tryHarder, tryRotate, tryDenoise). Module in printer dots; across/along: bars across or along the print head.',
    '',
    '## Single degradations',
    '',
    md(head, single),
    '',
    '## Combined (dead dot through the middle of the code, 1 px ink spread, 3% speckle, 4° tilt, blur 1.5, half resolution)',
    '',
    `${decoded} of ${rows.length} codes decoded.`,
    '',
    md(['stock', 'kind', 'code', 'module', 'combined'], combined),
    '',
  ].join('\n');
  const dir = new URL('../../out/robustness/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  writeFileSync(new URL('robustness.md', dir), text);
  console.log(`\n${text}\nwritten to ${dir.pathname}robustness.md`);
});
