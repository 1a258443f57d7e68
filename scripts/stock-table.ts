/** `npm run docs:stocks`: writes the stock table of docs/labels-and-templates.md from src/labels/stock.ts (scripts/lib/stock-table.ts). */
import { readFileSync, writeFileSync } from 'node:fs';
import { stockTable, withTable } from './lib/stock-table.js';

const page = new URL('../docs/labels-and-templates.md', import.meta.url);
writeFileSync(page, withTable(readFileSync(page, 'utf8'), stockTable()));
