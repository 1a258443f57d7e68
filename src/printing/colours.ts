/**
 * Which printers a job's label needs, by its stock's inks (labels/stock.ts Stock.colours).
 * Pure: the fleet's hold rule asks it before a job goes to a printer.
 */
import { findStock, printsRed } from '../labels/index.js';

/**
 * Whether a job on this stock (a job's `template`: canonical stock name or alias) needs a
 * printer with the red/black roll loaded (Printer.red). True for every job on a two-colour
 * stock, also a label without red marks: the printer refuses black-only jobs on that roll,
 * and the label was laid out for it. Red marks appear only on such a stock (elsewhere they
 * are drawn black, warning 'red-as-black'), so a false answer means the label is black only.
 */
export function jobNeedsRed(stockName: string): boolean {
  const stock = findStock(stockName);
  return stock !== undefined && printsRed(stock);
}
