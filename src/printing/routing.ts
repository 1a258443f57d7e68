/**
 * Which printer a job goes to (issue 31), one pure rule shared by every print path
 * (through the label service) and by listPrinters' suggestion:
 *   1. the printer the request names (an unknown name is a 422 `unknown-printer`);
 *   2. else the printer placed nearest the record's location (the record's own
 *      location, then its parents, nearest first) that has the label's stock loaded
 *      (a printer with no stocks listed takes any; a label on the red/black stock only
 *      a printer that prints red, or the hold rule would hold it there for good);
 *   3. else the default printer.
 * No printers at all: undefined (the caller answers printing-not-configured).
 */
import { ProblemError } from '../errors.js';
import { jobNeedsRed } from './colours.js';

/** What the rule needs of a printer. */
export interface RoutablePrinter {
  name: string;
  locationId: string | null;
  stocks: readonly string[];
  /** Whether it prints red (the red/black roll loaded; its settings). */
  red: boolean;
  isDefault: boolean;
}

/** A print request named a printer the fleet does not have: nothing was printed. */
export class UnknownPrinterError extends ProblemError {
  override name = 'UnknownPrinterError';
  constructor(name: string, known: readonly string[]) {
    super('unknown-printer', `No printer is named ${name}; the printers are ${known.length ? known.join(', ') : '(none)'}.`);
  }
}

/** A print was asked of a server with no printer (none configured, none stored): nothing was printed. `instead` says what the client can do. */
export class PrintingNotConfiguredError extends ProblemError {
  override name = 'PrintingNotConfiguredError';
  constructor(instead?: string) {
    super('printing-not-configured', `This server has no printer configured${instead ? `; ${instead}` : '.'}`);
  }
}

export interface RouteRequest {
  /** The printer the request names, if any. */
  requested?: string;
  /** The label's canonical stock name. */
  stock: string;
  /** Location ids from the record's own location outwards (nearest first); empty when unplaced or not a record. */
  locations: readonly string[];
}

/**
 * Whether the printer's settings let it print the stock: it has the stock loaded (no stocks
 * listed: any) and, for a job that needs red (colours.ts), it prints red. These are the
 * settings half of the hold rule (holds.ts): a printer failing them would hold the job.
 */
export const takesStock = (p: Pick<RoutablePrinter, 'stocks' | 'red'>, stock: string) =>
  (p.stocks.length === 0 || p.stocks.includes(stock)) && (p.red || !jobNeedsRed(stock));

export function choosePrinter<P extends RoutablePrinter>(printers: readonly P[], { requested, stock, locations }: RouteRequest): P | undefined {
  if (requested !== undefined) {
    const named = printers.find((p) => p.name === requested);
    if (!named) throw new UnknownPrinterError(requested, printers.map((p) => p.name));
    return named;
  }
  for (const location of locations) {
    // Several printers in one place: the one listing the stock beats one that takes any, then by name.
    const here = printers.filter((p) => p.locationId === location && takesStock(p, stock));
    here.sort((a, b) => Number(a.stocks.length === 0) - Number(b.stocks.length === 0) || (a.name < b.name ? -1 : 1));
    if (here[0]) return here[0];
  }
  return printers.find((p) => p.isDefault) ?? printers[0];
}
