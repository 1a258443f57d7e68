/** Assembles printing from configuration: the fleet's drivers, the durable queue and its dispatcher. */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { PrintingConfig } from '../config.js';
import { DEFAULT_PRINTER } from './fleet.js';
import type { PrinterStore, PrintJobStore, SavedPrinter } from '../records/types.js';
import { reevaluateHolds as reevaluate } from './assign.js';
import { startPrintDispatcher } from './dispatcher.js';
import { DEFAULT_STATUS_INTERVAL_MS, startStatusPoller } from './poller.js';
import { printerDrivers, type PrinterDrivers } from './printer-drivers.js';
import { printerReach } from './reach.js';
import { createPrintQueue } from './queue.js';
import { startQueueUpkeep } from './upkeep.js';
import type { PrintQueue } from './types.js';
import type { WorkerHealth } from './worker.js';

export { IDEMPOTENCY_WINDOW_MS, IdempotencyMismatchError, JobNotCancellableError, JobNotFailedError, JobNotMovableError } from './queue.js';
export { adviseFleet, assignPrinter, heldOn, type Assignment, type FleetAdvice } from './assign.js';
export { choosePrinter, PrintingNotConfiguredError, takesStock, UnknownPrinterError, type RoutablePrinter, type RouteRequest } from './routing.js';
export { holdReason, type HoldJob, type HoldPrinter, type HoldStatus } from './holds.js';
export { printerDrivers, type PrinterDrivers } from './printer-drivers.js';
export type { PrintBatchRequest, PrintQueue, PrintRequest } from './types.js';
export { shownPrinter } from './printer-name.js';
export { deviceUriProblem, redactUri } from './device-uri.js';
export { DEFAULT_PRINTER, InvalidPrinterError, PRINTER_NAME, PrinterFromConfigError, PrinterHasJobsError, printerProblems, settingsProblems, stockProblem, type PrinterChecks, type PrinterProblem } from './fleet.js';
export { applyConfiguredPrinters, configuredPrinters, type FleetConfig, type PrinterSchemaCheck } from './fleet-config.js';
export { jobNeedsRed } from './colours.js';
export type { WorkerHealth } from './worker.js';
export { DEFAULT_STATUS_INTERVAL_MS, startStatusPoller, statusChanged, type StatusPoller, type StatusPollerOptions } from './poller.js';
export { unknownStatus as unknownPrinterStatus } from './status/compose.js';
export { readPrinterStatus, STATUS_REASONS, STATUS_TIMEOUT_MS, type PrinterMedia, type PrinterState, type PrinterStatus, type StatusReason } from './status/index.js';

export interface Printing {
  queue: PrintQueue;
  /** The drivers, one per printer: the status poller must use these (a driver remembers its printer). */
  drivers: PrinterDrivers;
  /** Probes this instance's reach of the printer, looks again at the holds of its queued jobs (after a new status reading or settings) and wakes delivery. */
  reevaluateHolds(printerName: string): Promise<number>;
  /** Whether this instance's print dispatcher is alive and making progress (readiness; no one printer's state). */
  workerHealth(): WorkerHealth;
  /** Reads every printer's status now (the fleet changed: the configuration was applied); resolves when stored. */
  pollStatusNow(): Promise<void>;
  /** Lets the deliveries in progress finish (up to graceMs), then stops the dispatcher and the status poller. */
  stop(graceMs?: number): Promise<void>;
}

/** reevaluateHolds over the stores, for callers without a Printing. */
export async function reevaluateHolds(stores: { printers: Pick<PrinterStore, 'get'>; jobs: Pick<PrintJobStore, 'queuedStocks' | 'setHeld'> }, printerName: string): Promise<number> {
  return reevaluate(stores, printerName);
}

export function startPrinting(
  config: PrintingConfig,
  stores: { printJobs: PrintJobStore; printers: PrinterStore },
  logger: Logger,
  drivers: PrinterDrivers = printerDrivers({ commandArgv: config.commandArgv }),
  /** PRINTER_STATUS_INTERVAL_S, in ms. */
  statusIntervalMs = DEFAULT_STATUS_INTERVAL_MS,
): Printing {
  const jobs = stores.printJobs;
  let holdsOf = async (_printerName: string): Promise<number> => 0;
  let readNow = async (_printer: SavedPrinter): Promise<void> => {};
  // Which printers this instance reaches (instances at several sites may share the database), probed
  // each status interval; not polled (PRINTER_STATUS_INTERVAL_S=0, printers that sleep): not probed either.
  const reach = statusIntervalMs > 0 ? printerReach({
    printers: stores.printers,
    instance: `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`,
    maxAgeMs: statusIntervalMs,
    commandArgv: config.commandArgv,
    onChange: async (name) => {
      // Reached now (by this instance or another): the stored reading may be the "offline" of an
      // instance that does not reach it; this one, if it reaches, reads it afresh.
      const printer = await stores.printers.get(name);
      if (printer && reach?.reaches(printer)) await readNow(printer);
      await holdsOf(name);
    },
    logger: logger.child({ component: 'printer-reach' }),
  }) : undefined;
  // Each attempt's time-out (and cancellation at shutdown) is the dispatcher's.
  const dispatcher = startPrintDispatcher({
    reach,
    jobs,
    printers: stores.printers,
    drivers,
    logger: logger.child({ component: 'print-dispatcher' }),
    timeoutMs: config.timeoutMs,
    retryBaseMs: config.retryBaseMs,
    retryMaxMs: config.retryMaxMs,
    // PRINTER_URI's printer, when the fleet could not be stored (a database refusing writes at start).
    fallback: config.printerUri === undefined ? undefined : { name: DEFAULT_PRINTER, deviceUri: config.printerUri },
  });
  // Jobs name their printer by name, not by its device URI: clients with a print token need not know where it is.
  const queue = createPrintQueue({ jobs, printers: stores.printers, printer: DEFAULT_PRINTER, maxAttempts: config.maxAttempts, onSubmit: () => dispatcher.nudge() });
  const upkeep = startQueueUpkeep({ jobs, retentionMs: config.retentionDays * 86_400_000, logger: logger.child({ component: 'print-upkeep' }) });
  holdsOf = async (printerName: string): Promise<number> => {
    const changed = await reevaluate({ printers: stores.printers, jobs }, printerName);
    if (changed > 0) dispatcher.nudge();
    return changed;
  };
  // The poller shares the dispatcher's drivers (a driver remembers its printer), leaves a printer
  // alone while a job is being sent to it, and a changed reading holds or releases its jobs.
  // PRINTER_STATUS_INTERVAL_S=0: no polling (printers that sleep); statuses are read only when asked.
  const poller = statusIntervalMs > 0 ? startStatusPoller({
    printers: stores.printers,
    drivers,
    intervalMs: statusIntervalMs,
    isBusy: (name) => dispatcher.busy().includes(name),
    reach,
    onStatusChange: async (name) => {
      await holdsOf(name);
    },
    logger: logger.child({ component: 'printer-status' }),
  }) : undefined;
  if (poller) readNow = (printer) => poller.readNow(printer);
  logger.info('printing enabled');
  return {
    queue,
    drivers,
    // From outside (a printer's settings changed, its status was refreshed): this instance's reach is probed first,
    // so a printer back on the network is released now, not at the next round.
    reevaluateHolds: async (printerName) => {
      const printer = reach && (await stores.printers.get(printerName));
      if (printer) await reach.probe(printer);
      return holdsOf(printerName);
    },
    workerHealth: () => dispatcher.health(),
    pollStatusNow: () => poller?.pollNow() ?? Promise.resolve(),
    async stop(graceMs) {
      await Promise.all([dispatcher.stop(graceMs), upkeep.stop(), poller?.stop()]);
    },
  };
}
