/** Assembles printing from configuration: the driver, the durable queue and its worker. */
import type { Logger } from 'pino';
import type { PrintingConfig } from '../config.js';
import type { PrintJobStore } from '../records/types.js';
import { driverFromUri } from './device-uri.js';
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
export { jobNeedsRed } from './colours.js';
export type { WorkerHealth } from './worker.js';
export { readPrinterStatus, STATUS_REASONS, STATUS_TIMEOUT_MS, type PrinterMedia, type PrinterState, type PrinterStatus, type StatusReason } from './status/index.js';

export interface Printing {
  queue: PrintQueue;
  /** Whether this instance's print worker is alive and making progress (readiness). */
  workerHealth(): WorkerHealth;
  /** Lets the delivery in progress finish (up to graceMs), then stops the worker. */
  stop(graceMs?: number): Promise<void>;
}

export function startPrinting(config: PrintingConfig, jobs: PrintJobStore, logger: Logger): Printing {
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
  logger.info({ printer: driver.target, driver: driver.kind }, 'printing enabled');
  return {
    queue,
    workerHealth: () => worker.health(),
    async stop(graceMs) {
      await Promise.all([worker.stop(graceMs), upkeep.stop()]);
    },
  };
}
