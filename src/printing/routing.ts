/**
 * Which printer a job goes to (issue 31), one pure rule shared by every print path
 * (through the label service) and by listPrinters' suggestion:
 *   1. the printer the request names (an unknown name is a 422 `unknown-printer`);
 *   2. else, among the printers that can print the label NOW (no hold reason: reached,
 *      not offline or needing attention, the stock in their settings and in the roll they
 *      report, red where needed: a red/black label only on a printer that prints red):
 *      a. the one placed nearest the record's location (the record's own location, then
 *         its parents, nearest first);
 *      b. else the default printer;
 *      c. else one known to have the stock: listed in its settings or in the roll it
 *         reports (a printer taking any stock, with no reading, is no evidence of the roll);
 *   3. else (no printer can print it now) the printer it waits for, held: the one placed
 *      nearest that takes the stock, else the default.
 * A printer with no stocks listed takes any. In one place, one listing the stock beats one
 * taking any, then by name. No printers at all: undefined (printing-not-configured).
 * So a job is held only when no printer the rule may pick can print it now.
 */
import { ProblemError } from '../errors.js';
import { jobNeedsRed } from './colours.js';

/** What the rule needs of a printer. */
export interface RoutablePrinter {
  name: string;
  locationId: string | null;
  /** The stocks its settings list (none: any). */
  stocks: readonly string[];
  /** Whether it prints red (the red/black roll loaded; its settings). */
  red: boolean;
  isDefault: boolean;
  /** The stocks the roll it reports fits (none or absent: it does not tell). */
  reported?: readonly string[];
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

/** Why a printer cannot print the label now (holds.ts), or null; absent: every printer can. */
export type HoldOf<P> = (printer: P) => string | null;

/**
 * Whether the printer's settings let it print the stock: it has the stock loaded (no stocks
 * listed: any) and, for a job that needs red (colours.ts), it prints red. These are the
 * settings half of the hold rule (holds.ts): a printer failing them would hold the job.
 */
export const takesStock = (p: Pick<RoutablePrinter, 'stocks' | 'red'>, stock: string) =>
  (p.stocks.length === 0 || p.stocks.includes(stock)) && (p.red || !jobNeedsRed(stock));

export function choosePrinter<P extends RoutablePrinter>(printers: readonly P[], { requested, stock, locations }: RouteRequest, holdOf: HoldOf<P> = () => null): P | undefined {
  if (requested !== undefined) {
    const named = printers.find((p) => p.name === requested);
    if (!named) throw new UnknownPrinterError(requested, printers.map((p) => p.name));
    return named;
  }
  const ready = printers.filter((p) => takesStock(p, stock) && holdOf(p) === null);
  const knownToHave = (p: P) => p.stocks.includes(stock) || (p.reported ?? []).includes(stock);
  return (
    nearest(ready, stock, locations) ??
    ready.find((p) => p.isDefault) ??
    byPreference(ready.filter(knownToHave), stock)[0] ??
    nearest(printers.filter((p) => takesStock(p, stock)), stock, locations) ??
    printers.find((p) => p.isDefault) ??
    printers[0]
  );
}

/** The first printer placed at a location of the chain (nearest first). */
function nearest<P extends RoutablePrinter>(printers: readonly P[], stock: string, locations: readonly string[]): P | undefined {
  for (const location of locations) {
    const here = byPreference(printers.filter((p) => p.locationId === location), stock);
    if (here[0]) return here[0];
  }
  return undefined;
}

/** One listing the stock beats one taking any, then by name. */
function byPreference<P extends RoutablePrinter>(printers: P[], stock: string): P[] {
  const lists = (p: P) => Number(!p.stocks.includes(stock));
  return printers.sort((a, b) => lists(a) - lists(b) || (a.name < b.name ? -1 : 1));
}
