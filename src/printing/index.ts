/** Assembles printing from configuration: the driver, the durable queue and its worker. */
import type { Logger } from 'pino';
import type { PrintingConfig } from '../config.js';
import type { PrinterStore, PrintJobStore } from '../records/types.js';
import { driverFromUri } from './device-uri.js';
import { startStatusPoller, type StatusPoller } from './poller.js';
import type { PrinterDrivers } from './printer-drivers.js';
import type { PrinterStatus } from './status/types.js';
import { createPrintQueue } from './queue.js';
import { startQueueUpkeep } from './upkeep.js';
import type { PrintQueue } from './types.js';
import { startPrintWorker, type WorkerHealth } from './worker.js';

export { IdempotencyMismatchError, JobNotCancellableError, JobNotFailedError, PrintingNotConfiguredError } from './queue.js';
export type { PrintBatchRequest, PrintQueue, PrintRequest } from './types.js';
export { shownPrinter } from './printer-name.js';
export { deviceUriProblem, redactUri } from './device-uri.js';
export { DEFAULT_PRINTER, InvalidPrinterError, PRINTER_NAME, PrinterFromConfigError, PrinterHasJobsError, printerProblems, settingsProblems, stockProblem, type PrinterChecks, type PrinterProblem } from './fleet.js';
export { applyConfiguredPrinters, configuredPrinters, type FleetConfig, type PrinterSchemaCheck } from './fleet-config.js';
export type { WorkerHealth } from './worker.js';
export { printerDrivers, type PrinterDrivers } from './printer-drivers.js';
export { DEFAULT_STATUS_INTERVAL_MS, startStatusPoller, statusChanged, type StatusPoller, type StatusPollerOptions } from './poller.js';
export { unknownStatus as unknownPrinterStatus } from './status/compose.js';
export { readPrinterStatus, STATUS_REASONS, STATUS_TIMEOUT_MS, type PrinterMedia, type PrinterState, type PrinterStatus, type StatusReason } from './status/index.js';

export interface Printing {
  queue: PrintQueue;
  /** Whether this instance's print worker is alive and making progress (readiness). */
  workerHealth(): WorkerHealth;
  /** Reads every printer's status now (the fleet changed: the configuration was applied); resolves when stored. */
  pollStatusNow(): Promise<void>;
  /** Lets the delivery in progress finish (up to graceMs), then stops the worker and the status poller. */
  stop(graceMs?: number): Promise<void>;
}

/** The fleet's status polling: where printers are, their drivers (shared), how often, and who hears of a change. */
export interface FleetPolling {
  printers: PrinterStore;
  drivers: PrinterDrivers;
  /** PRINTER_STATUS_INTERVAL_S, in ms. */
  statusIntervalMs: number;
  /** A printer being sent a job is not asked now. Default: none is. */
  isBusy?(name: string): boolean;
  /** A printer's state, reasons or media changed (the lead connects reevaluateHolds here). Default: nothing. */
  onStatusChange?(name: string, status: PrinterStatus): void | Promise<void>;
}

export function startPrinting(config: PrintingConfig, jobs: PrintJobStore, logger: Logger, fleet?: FleetPolling): Printing {
  // The worker owns the time-out (and cancellation at shutdown) of each attempt.
  const driver = driverFromUri(config.printerUri, { commandArgv: config.commandArgv });
  const worker = startPrintWorker({
    jobs,
    driver,
    logger: logger.child({ component: 'print-worker' }),
    printerName: config.printerName,
    timeoutMs: config.timeoutMs,
    retryBaseMs: config.retryBaseMs,
    retryMaxMs: config.retryMaxMs,
  });
  // Jobs name their printer by name, not by its device URI: clients with a print token need not know where it is.
  const queue = createPrintQueue({ jobs, printer: config.printerName, maxAttempts: config.maxAttempts, onSubmit: () => worker.nudge() });
  const upkeep = startQueueUpkeep({ jobs, retentionMs: config.retentionDays * 86_400_000, logger: logger.child({ component: 'print-upkeep' }) });
  const poller: StatusPoller | undefined = fleet
    ? startStatusPoller({
        printers: fleet.printers,
        drivers: fleet.drivers,
        intervalMs: fleet.statusIntervalMs,
        isBusy: fleet.isBusy,
        onStatusChange: fleet.onStatusChange ?? (() => undefined),
        logger: logger.child({ component: 'printer-status' }),
      })
    : undefined;
  logger.info({ printer: driver.target, driver: driver.kind }, 'printing enabled');
  return {
    queue,
    workerHealth: () => worker.health(),
    pollStatusNow: () => poller?.pollNow() ?? Promise.resolve(),
    async stop(graceMs) {
      await Promise.all([worker.stop(graceMs), upkeep.stop(), poller?.stop()]);
    },
  };
}
