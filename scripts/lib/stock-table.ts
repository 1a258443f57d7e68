/**
 * The stock table of docs/labels-and-templates.md, made from src/labels/stock.ts (the
 * one place stock facts live) and from what the layout does with each stock: whether
 * the standard asset design has room for its Code 128 beside the 2D code. Written by
 * `npm run docs:stocks`; test/docs/stock-table.test.ts fails when the page differs.
 */
import { builtInTemplate, layoutFor, STOCKS, type LabelRecord, type Stock } from '../../src/labels/index.js';

export const TABLE_START = '<!-- stock-table: made from src/labels/stock.ts by `npm run docs:stocks`; do not edit by hand -->';
export const TABLE_END = '<!-- /stock-table -->';

/** A 6-digit asset id, as the demo's first asset: what "has the asset barcode" is measured with. */
const ASSET: LabelRecord = { kind: 'asset', id: 'asset-1', name: 'Cordless drill', path: ['Garage', 'Shelf 3'], assetId: 1, url: 'https://inventory.example.com/a/000-001' };

function dots(stock: Stock): string {
  return stock.lengthDots === null ? `${stock.widthDots} x ${stock.minLengthDots}-${stock.maxLengthDots}` : `${stock.widthDots} x ${stock.lengthDots}`;
}

/** Whether the standard asset label carries the Code 128 of a 6-digit asset id on this stock. */
export function hasAssetBarcode(stock: Stock): boolean {
  return layoutFor(ASSET, builtInTemplate(stock.name)!).layout.items.some((i) => i.kind === 'bars');
}

export function stockTable(): string {
  const rows = STOCKS.map((s) => {
    const names = `\`${s.name}\`${s.aliases.length ? ` (${s.aliases.map((a) => `\`${a}\``).join(', ')})` : ''}`;
    const laidOut = s.orientation === 'rotated' ? 'across its long side, turned' : s.orientation;
    const barcode = hasAssetBarcode(s) ? 'yes' : 'no: the asset id is the title';
    return `| ${names} | ${s.title} | ${dots(s)} | ${s.dpi} | ${laidOut} | ${barcode} |`;
  });
  return [
    TABLE_START,
    '| template (aliases) | stock | dots (across head x feed) | dpi | design laid out | asset barcode (6-digit id) |',
    '|---|---|---|---|---|---|',
    ...rows,
    TABLE_END,
  ].join('\n');
}

/** The page with its table replaced by `table`. */
export function withTable(page: string, table: string): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page has no ${TABLE_START} ... ${TABLE_END} section`);
  return page.slice(0, start) + table + page.slice(end + TABLE_END.length);
}
