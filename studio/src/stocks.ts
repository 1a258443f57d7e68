/**
 * The label stocks, as the service lists them (listStocks): what the Template and Stock
 * lists offer, the titles jobs are shown with, and each stock's size for the preview.
 * Read from the service at sign-in, never built into the page: the studio shows the
 * stocks of the service it talks to.
 */
import type { Stock, Studio } from './api.js';

/** The studio's default choice, as the service's default template (DEFAULT_TEMPLATE) is out of its sight. */
export const DEFAULT_STOCK = 'brother-ql-62x29';

let stocks: Stock[] = [];
/** By name and part number (each is a template name). */
let byName = new Map<string, Stock>();

/** Reads the list; false when it could not be read (the lists then offer what they can without it). */
export async function loadStocks(api: Studio): Promise<boolean> {
  try {
    stocks = await api.stocks();
  } catch {
    stocks = [];
  }
  byName = new Map(stocks.flatMap((s) => [s.name, ...s.partNumbers].map((n) => [n, s] as const)));
  return stocks.length > 0;
}

export const allStocks = (): readonly Stock[] => stocks;

/** The stock with this name or part number. */
export const findStock = (name: string): Stock | undefined => byName.get(name);

/** The stock's title, or the name as given when the service did not list it. */
export const stockTitle = (name: string): string => findStock(name)?.title ?? name;

/** Dots as mm to 0.1 mm, down: as the service measures the printable area boxes must lie in (the listing's mm are rounded). */
export const floorMm = (dots: number, dpi: number): number => Math.floor((dots / dpi) * 254) / 10;

/**
 * The printable area in mm as the service measures a design's boxes on this stock: x along
 * the label's length where it is designed turned (designTurned); on continuous tape, which
 * has no length of its own, `continuousLengthMm`.
 */
export function designArea(stock: Pick<Stock, 'dpi' | 'printable' | 'designTurned'>, continuousLengthMm: number): { width: number; height: number } {
  const across = floorMm(stock.printable.widthDots, stock.dpi);
  const length = stock.printable.lengthDots ? floorMm(stock.printable.lengthDots, stock.dpi) : continuousLengthMm;
  return stock.designTurned ? { width: length, height: across } : { width: across, height: length };
}

/** The area a design's rows and columns divide, as the service sizes it (continuous tape: its shortest label); undefined for a stock not listed. */
export function gridAreaOf(stock: Pick<Stock, 'dpi' | 'printable' | 'designTurned'> | undefined, name: string): { width: number; height: number; name: string } | undefined {
  return stock && { ...designArea(stock, floorMm(stock.printable.minLengthDots, stock.dpi)), name };
}
