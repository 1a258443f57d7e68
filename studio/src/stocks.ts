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
