/** The stock table in docs/labels-and-templates.md is what src/labels/stock.ts and the layout say (scripts/lib/stock-table.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STOCKS } from '../../src/labels/index.js';
import { stockTable, TABLE_END, TABLE_START } from '../../scripts/lib/stock-table.js';

const page = readFileSync(new URL('../../docs/labels-and-templates.md', import.meta.url), 'utf8');

describe('the stock table of docs/labels-and-templates.md', () => {
  it('is the one made from src/labels/stock.ts (run `npm run docs:stocks` after changing a stock)', () => {
    const start = page.indexOf(TABLE_START);
    const end = page.indexOf(TABLE_END);
    expect(start, 'the page has its stock-table markers').toBeGreaterThanOrEqual(0);
    expect(page.slice(start, end + TABLE_END.length)).toBe(stockTable());
  });

  it('has a row for every stock', () => {
    for (const stock of STOCKS) expect(stockTable(), stock.name).toContain(`| \`${stock.name}\``);
  });
});
