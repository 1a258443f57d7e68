/**
 * Which of our stocks (labels/stock.ts) match the media a printer reports: by the
 * Brother QL media codes (tape width and label length in mm, as ESC i z sends them)
 * or by size for IPP printers (PWG media sizes, 1/100 mm).
 */
import { STOCKS, type Stock } from '../../labels/stock.js';

/** Brother's part number for the red/black two-colour roll (62 mm continuous). */
export const TWO_COLOUR_PART = 'DK-22251';

/**
 * A two-colour stock: one that carries the DK-22251 part number as an alias. On such a
 * roll the printer refuses black-only jobs, so only two-colour stocks match it, and
 * two-colour stocks match nothing else.
 */
export function isTwoColourStock(stock: Stock): boolean {
  return stock.aliases.includes(`brother-${TWO_COLOUR_PART.toLowerCase()}`);
}

/** Stocks printable on the Brother QL media a status reply names (length 0 = continuous). */
export function qlStocks(widthMm: number, lengthMm: number, red: boolean | null): Stock[] {
  return STOCKS.filter((s) => s.brotherQl && s.brotherQl.widthMm === widthMm && s.brotherQl.lengthMm === lengthMm && colourFits(s, red));
}

/**
 * Stocks of this size (lengthMm 0 = continuous), within 1 mm: IPP sizes are whole
 * 1/100 mm and inch stocks are not (2 in = 50.8 mm; a printer may round differently).
 */
export function stocksBySize(widthMm: number, lengthMm: number, red: boolean | null): Stock[] {
  const near = (a: number, b: number): boolean => Math.abs(a - b) <= 1;
  return STOCKS.filter(
    (s) => !s.pagePrinter && near(s.widthMm, widthMm) && (lengthMm === 0 ? s.lengthMm === null : s.lengthMm !== null && near(s.lengthMm, lengthMm)) && colourFits(s, red),
  );
}

function colourFits(stock: Stock, red: boolean | null): boolean {
  if (red === null) return true;
  return isTwoColourStock(stock) === red;
}

/** The maker's part number of a stock, for people: 'brother-dk-22205' -> 'DK-22205'. */
export function partNumber(stock: Stock): string | undefined {
  for (const alias of stock.aliases) {
    const m = /^brother-dk-(\d+)$/.exec(alias);
    if (m) return `DK-${m[1]}`;
  }
  return undefined;
}

/** Plain words for a size: "62 mm continuous roll", "62 × 29 mm labels". */
export function sizeWords(widthMm: number, lengthMm: number, red: boolean | null): string {
  const w = formatMm(widthMm);
  const colour = red ? ' red/black' : '';
  return lengthMm === 0 ? `${w} mm continuous${colour} roll` : `${w} × ${formatMm(lengthMm)} mm${colour} labels`;
}

function formatMm(mm: number): string {
  return String(Math.round(mm * 10) / 10);
}
