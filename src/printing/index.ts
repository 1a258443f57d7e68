/** Assembles printing from configuration: the driver, the durable queue and its worker. */
import type { Logger } from 'pino';
import type { PrintingConfig } from '../config.js';
import type { PrintJobStore } from '../records/types.js';
import { driverFromUri } from './device-uri.js';
import { createPrintQueue } from './queue.js';
import type { PrintQueue } from './types.js';
import { startPrintWorker } from './worker.js';

export interface Printing {
  queue: PrintQueue;
  /** Lets the delivery in progress finish, then stops the worker. */
  stop(): Promise<void>;
}

export function startPrinting(config: PrintingConfig, jobs: PrintJobStore, logger: Logger): Printing {
  const driver = driverFromUri(config.printerUri, { commandArgv: config.commandArgv, timeoutMs: config.timeoutMs });
  const worker = startPrintWorker({
    jobs,
    driver,
    logger: logger.child({ component: 'print-worker' }),
    timeoutMs: config.timeoutMs,
    retryBaseMs: config.retryBaseMs,
    retryMaxMs: config.retryMaxMs,
  });
  const queue = createPrintQueue({ jobs, printer: driver.target, maxAttempts: config.maxAttempts, onSubmit: () => worker.nudge() });
  logger.info({ printer: driver.target, driver: driver.kind }, 'printing enabled');
  return { queue, stop: () => worker.stop() };
}
