/**
 * Printer status (issue 31): what each driver's printer says about itself, bounded in
 * time. The poller and the API (wave 2) call readPrinterStatus; they never call a
 * driver's status() directly, so a hanging printer costs at most `timeoutMs`.
 */
import type { PrinterDriver } from '../drivers/types.js';
import { offlineStatus, unknownStatus } from './compose.js';
import type { PrinterStatus } from './types.js';

export type { PrinterMedia, PrinterState, PrinterStatus } from './types.js';
export { STATUS_REASONS, type StatusReason } from './compose.js';

/** Long enough for a slow SNMP agent's retry or a Zebra's silence plus ~HQES; short enough for a page that shows it. */
export const STATUS_TIMEOUT_MS = 5000;

const CANNOT_TELL: Record<PrinterDriver['kind'], string> = {
  directory: 'a folder printer cannot report its state',
  command: 'a print command cannot report the printer\'s state',
  ipp: 'this IPP driver cannot report the printer\'s state',
  zpl: 'this ZPL driver cannot report the printer\'s state',
  'brother-ql': 'this Brother QL driver cannot report the printer\'s state',
  // usblp answers LPGETSTATUS (paper out, selected, error) only through an ioctl Node cannot make.
  device: 'a printer on a local device cannot report its state here',
};

/**
 * The printer's status, never "ready" without its word for it: 'unknown' when the driver
 * cannot ask, 'offline' when no answer comes within `timeoutMs` (or before `signal` fires).
 * Never rejects.
 */
export async function readPrinterStatus(driver: PrinterDriver, signal?: AbortSignal, timeoutMs = STATUS_TIMEOUT_MS): Promise<PrinterStatus> {
  if (!driver.status) return unknownStatus(CANNOT_TELL[driver.kind]);
  const bound = AbortSignal.timeout(timeoutMs);
  const both = signal ? AbortSignal.any([signal, bound]) : bound;
  let onAbort: (() => void) | undefined;
  // A driver honours its signal, but one that does not must not hold the caller: the race ends it.
  const gaveUp = new Promise<PrinterStatus>((resolve) => {
    onAbort = () => resolve(offlineStatus(`${driver.target} did not answer within ${timeoutMs} ms`));
    if (both.aborted) onAbort();
    else both.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([driver.status(both).catch((e: unknown) => unknownStatus(`${driver.target}: ${(e as Error).message}`)), gaveUp]);
  } finally {
    if (onAbort) both.removeEventListener('abort', onAbort);
  }
}
