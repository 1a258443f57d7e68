/**
 * Why a job cannot print on its printer now, in plain words, or null when it can (issue 31).
 * A held job stays queued (state `queued`, `heldReason` set) and is never claimed; the
 * reason is looked at again on submit, on a status change, on the printer's settings
 * change and on a move (reevaluateHolds), so the job prints by itself once it clears.
 * "unknown" (a folder, a command, not read yet) never holds a job: we cannot tell.
 */
import { findStock } from '../labels/index.js';
import { jobNeedsRed } from './colours.js';

/** A stock as people know it (its title, with the maker's part number), not its API name. */
const stockWords = (name: string): string => findStock(name)?.title ?? name;

export interface HoldPrinter {
  title: string;
  stocks: readonly string[];
  red: boolean;
  /** False when the live instances that probed it all fail to reach it (reach.ts); absent when not known. */
  reachable?: boolean;
}

/** The fields of a stored status reading that matter here (spec PrinterStatus). */
export interface HoldStatus {
  state?: unknown;
  message?: unknown;
  media?: unknown;
}

export interface HoldJob {
  /** The label's canonical stock name. */
  stock: string;
  /** Whether the job needs the red/black roll (default: from its stock, jobNeedsRed). */
  red?: boolean;
}

interface Media {
  description?: unknown;
  stocks?: unknown;
  red?: unknown;
}

/** The stocks the roll a printer reports fits (empty: it does not tell). */
export function loadedStocks(status: HoldStatus | null | undefined): string[] {
  const media = (status?.media ?? null) as Media | null;
  return Array.isArray(media?.stocks) ? (media.stocks as unknown[]).filter((s): s is string => typeof s === 'string') : [];
}

export function holdReason(printer: HoldPrinter, status: HoldStatus | null | undefined, job: HoldJob): string | null {
  // Before its status: no instance reaching it, no instance can read that status either.
  if (printer.reachable === false) return `No Labelmaker instance can reach ${printer.title}.`;
  const state = status?.state;
  if (state === 'offline') return `${printer.title} is not answering.`;
  if (state === 'attention') return typeof status?.message === 'string' && status.message ? status.message : `${printer.title} needs attention.`;
  const media = (status?.media ?? null) as Media | null;
  const loaded = loadedStocks(status);
  if (printer.stocks.length > 0 && !printer.stocks.includes(job.stock)) {
    return `${printer.title} has ${printer.stocks.map(stockWords).join(', ')} loaded; this label needs ${stockWords(job.stock)}.`;
  }
  if (loaded.length > 0 && !loaded.includes(job.stock)) {
    const what = typeof media?.description === 'string' && media.description ? media.description : loaded.map(stockWords).join(', ');
    return `${printer.title} has ${what} loaded; this label needs ${stockWords(job.stock)}.`;
  }
  // Every job on the red/black stock is sent in two-colour mode (colours.ts): a printer without that roll would print it black, or refuse it.
  if ((job.red ?? jobNeedsRed(job.stock)) && (!printer.red || media?.red === false)) return `${printer.title} cannot print red; this label needs the red/black roll (DK-22251).`;
  return null;
}
