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
 * Cells that cannot pass, by measurement, each with why (none since 24 November).
 * The last two were the 23 mm square's location and item labels at half resolution
 * with the scanner's grid a dot off along the feed: their URL's QR code (164 dots
 * with its quiet zone) left no line for the name, and the 4-dot DataMatrix that
 * stood in read at 3 phases of 4 (about 190 of 256 framings). The QR code now lets
 * the bottom of its quiet zone lie in the 3 mm of unprinted paper below the
 * printable area (layout.ts belowMargin), which keeps the name's line; the suite
 * scans each label on its stock's paper (robustness.ts onItsPaper).
 * Over 20 speckle patterns per code (`npm run robustness:speckle`), every code
 * reads all 20. A scan is one framing: placed at 256 offsets on
 * white paper and scanned at half resolution (`npm run robustness:framing`), every
 * 4-dot QR code reads at about 246-255 of them, every larger code at all 256.
 * No Code 128 cell: the standard asset barcode is drawn only with 4-dot bars
 * across the print head (CodeSpec.sturdy) and left out where they do not fit,
 * because each other arrangement loses a cell: 3-dot bars read at half
 * resolution at one grid phase of two (all five ids tried, any placement, also
 * with bars a dot thinner or fractional modules), and bars along the head
 * (4-dot ones in a full-width band on 62 x 29 mm too) split at a dead dot.
 */
const KNOWN: { stock: string; kind: string; format: string; degradation: string; why: string }[] = [];

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
        // Asset labels carry two codes, except where the design leaves one out (the sturdy barcode where its bars do not fit, or the 2D code on tiny stock).
        const both = layout.items.some((i) => i.kind === 'bars') && layout.items.some((i) => i.kind === 'matrix');
        expect(results.length, `${stock.name} ${record.kind}: codes on the label`).toBe(record.kind === 'asset' ? 2 - Number(!both) : 1);
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
      // A KNOWN cell whose code is no longer on its label is stale too.
      for (const k of KNOWN.filter((k) => k.stock === stock.name)) {
        if (!rows.some((r) => r.stock === k.stock && r.kind === k.kind && r.r.code.format === k.format)) problems.push(`${k.stock} ${k.kind} has no ${k.format}: remove it from KNOWN`);
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
