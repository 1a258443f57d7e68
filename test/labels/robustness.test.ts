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
 * Cells that cannot pass, by measurement (scratch experiments and this suite):
 * - 3-dot Code 128 modules are 1.5 scanner pixels at half resolution: zxing
 *   reads them at one grid phase of the two (all five ids tried, any placement).
 *   Used only where 4-dot bars fit neither across nor along the head.
 * - Bars along the head (standing up in the PNG): a dead element inside a bar
 *   splits it. Used only where the stock is too short for 3-dot bars across
 *   the head (203 dpi, 1 in tall).
 * - DataMatrix with 4-dot modules is 2 scanner pixels per module at half
 *   resolution: zxing reads it at one grid phase only on some placements. The
 *   5-dot modules that read at both leave no room for the name on the 23 and
 *   25 mm squares, so there the name wins.
 * - zebra-2x1-203dpi: the 3-dot bars beside the QR code also lose to blur 1.5
 *   (alone on white they read). The alternative, 2-dot bars across the head,
 *   fails blur 1.5 and a half-resolution phase too, and the issue asks for 3
 *   dots at 203 dpi; 4-dot bars leave no room for a QR code of 4-dot modules.
 */
const KNOWN: { stock: string; kind: string; format: string; degradation: string; why: string }[] = [
  ...['brother-ql-62x29', 'brother-ql-52x29', 'dymo-30334', 'zebra-2x1-300dpi'].map((stock) => ({
    stock,
    kind: 'asset',
    format: 'Code128',
    degradation: 'downscale 0.5',
    why: '3-dot bars (4 do not fit across the head): half resolution reads at one grid phase',
  })),
  { stock: 'zebra-2x1-203dpi', kind: 'asset', format: 'Code128', degradation: 'downscale 0.5', why: '3-dot bars along the head: half resolution reads at one grid phase' },
  { stock: 'zebra-2x1-203dpi', kind: 'asset', format: 'Code128', degradation: 'blur 1.5', why: '3-dot bars beside the QR code on 1 in stock' },
  { stock: 'zebra-2x1-203dpi', kind: 'asset', format: 'Code128', degradation: DEAD, why: 'bars along the head: 1 in stock is too short for 3-dot bars across it' },
  { stock: 'zebra-2.25x1.25-203dpi', kind: 'asset', format: 'Code128', degradation: 'downscale 0.5 (grid +1 dot)', why: '3-dot bars along the head: half resolution reads at one grid phase' },
  { stock: 'zebra-2.25x1.25-203dpi', kind: 'asset', format: 'Code128', degradation: DEAD, why: 'bars along the head: 1.25 in stock is too short for 3-dot bars across it' },
  { stock: 'brother-ql-23x23', kind: 'asset', format: 'DataMatrix', degradation: 'downscale 0.5', why: '4-dot DataMatrix under the name on 23 mm stock: half resolution reads at one grid phase' },
  ...['location', 'item', 'asset'].map((kind) => ({
    stock: 'dymo-30332',
    kind,
    format: 'DataMatrix',
    degradation: 'downscale 0.5 (grid +1 dot)',
    why: '4-dot DataMatrix under the name on 25 mm stock: half resolution reads at one grid phase',
  })),
  ...['zebra-3x1-203dpi', 'homebox-526x200'].map((stock) => ({ stock, kind: 'asset', format: 'Code128', degradation: DEAD, why: '4-dot bars along the head: 1 in stock is too short for bars across it' })),
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
