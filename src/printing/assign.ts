/**
 * A job's printer and hold, from the fleet as stored: the routing rule (routing.ts) and
 * the hold rule (holds.ts) applied to the printers' settings and last status readings.
 * Used by the label service on every print (the one place jobs are submitted), by a move,
 * and by reevaluateHolds whenever a printer's status or settings change.
 */
import type { PrinterStore, PrintJobStore, SavedPrinter } from '../records/types.js';
import { holdReason, loadedStocks, type HoldStatus } from './holds.js';
import { choosePrinter, PrintingNotConfiguredError, UnknownPrinterError, type RouteRequest } from './routing.js';

export interface Assignment {
  /** The printer's name (what the job stores). */
  printer: string;
  /** Why it cannot print there now, or null. */
  heldReason: string | null;
}

/** The hold rule for one saved printer and stock. */
export function heldOn(printer: SavedPrinter, stock: string): string | null {
  const reachable = printer.reach ? printer.reach.reaching > 0 : undefined;
  return holdReason({ ...printer, reachable }, printer.status as HoldStatus | null, { stock });
}

/**
 * The printer a new job goes to and whether it is held there. With no printers stored
 * (the configuration could not be written), `fallback` (PRINTER_URI's name) takes it, unheld;
 * with neither, nothing can print (PrintingNotConfiguredError, a 501; `advice` says what to do instead).
 */
export async function assignPrinter(
  printers: Pick<PrinterStore, 'list'>,
  request: Omit<RouteRequest, 'locations'> & { locations: () => Promise<readonly string[]> },
  fallback: string | undefined,
  advice?: string,
): Promise<Assignment> {
  const fleet = await printers.list();
  if (fleet.length === 0) {
    if (fallback === undefined) throw new PrintingNotConfiguredError(advice);
    if (request.requested !== undefined && request.requested !== fallback) throw new UnknownPrinterError(request.requested, [fallback]);
    return { printer: fallback, heldReason: null };
  }
  const printer = (await route(fleet, request))!;
  return { printer: printer.name, heldReason: heldOn(printer, request.stock) };
}

/**
 * The routing rule over the stored fleet, with each printer's hold and reported roll from its
 * last status reading; the record's location chain costs store reads: only when a printer is
 * placed and none was named.
 */
async function route(fleet: readonly SavedPrinter[], request: Omit<RouteRequest, 'locations'> & { locations: () => Promise<readonly string[]> }): Promise<SavedPrinter | undefined> {
  const placed = request.requested === undefined && fleet.some((p) => p.locationId !== null);
  const routable = fleet.map((printer) => ({ ...printer, reported: loadedStocks(printer.status as HoldStatus | null), printer }));
  const chosen = choosePrinter(routable, { ...request, locations: placed ? await request.locations() : [] }, (p) => heldOn(p.printer, request.stock));
  return chosen?.printer;
}

/** A label's printers as listPrinters shows them: each with why it would hold the label now (null: it can print it), and the one the rule chooses. */
export interface FleetAdvice {
  printers: { printer: SavedPrinter; heldReason: string | null }[];
  /** The printer a print of the label without a named printer goes to; undefined with no printers. */
  suggested: string | undefined;
}

/** The same rules as assignPrinter, for every printer of the fleet (nothing is stored or printed). */
export async function adviseFleet(printers: Pick<PrinterStore, 'list'>, request: { stock: string; locations: () => Promise<readonly string[]> }): Promise<FleetAdvice> {
  const fleet = await printers.list();
  return {
    printers: fleet.map((printer) => ({ printer, heldReason: heldOn(printer, request.stock) })),
    suggested: (await route(fleet, request))?.name,
  };
}

/**
 * Looks again at the holds of a printer's queued jobs (after its status reading or
 * settings changed): each stock's jobs are held or released together. Returns how many
 * jobs changed; released jobs are claimable at once.
 */
export async function reevaluateHolds(stores: { printers: Pick<PrinterStore, 'get'>; jobs: Pick<PrintJobStore, 'queuedStocks' | 'setHeld'> }, printerName: string): Promise<number> {
  const printer = await stores.printers.get(printerName);
  if (!printer) return 0;
  let changed = 0;
  for (const { template } of await stores.jobs.queuedStocks(printerName)) changed += await stores.jobs.setHeld(printerName, template, heldOn(printer, template));
  return changed;
}
