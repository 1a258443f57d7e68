/**
 * The agent's status poller: every interval, each of its printers not being sent a job is
 * asked how it is (readPrinterStatus: bounded, never throws), and the reading is reported
 * to the service (reportAgentPrinterStatus), which stores it and releases or holds jobs as
 * its own poller's readings do. A report the service cannot take now waits for the next round.
 */
import type { Logger } from 'pino';
import type { PrinterDrivers } from '../printer-drivers.js';
import { unknownStatus } from '../status/compose.js';
import { readPrinterStatus } from '../status/index.js';
import type { PrinterStatus } from '../status/types.js';
import type { AgentApi, AgentPrinter } from './service-api.js';

export interface StatusReporterOptions {
  api: Pick<AgentApi, 'reportStatus'>;
  drivers: PrinterDrivers;
  printers(): readonly AgentPrinter[];
  isBusy(name: string): boolean;
  intervalMs: number;
  logger: Logger;
}

export interface StatusReporter {
  /** A round now (the printers changed). */
  reportNow(): void;
  stop(): Promise<void>;
}

export function startStatusReporter({ api, drivers, printers, isBusy, intervalMs, logger }: StatusReporterOptions): StatusReporter {
  const stopping = new AbortController();
  let round: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function reportOne(p: AgentPrinter): Promise<void> {
    if (isBusy(p.name)) return; // a printer being sent a job is not asked now (a Zebra serves one connection)
    let status: PrinterStatus;
    try {
      status = await readPrinterStatus(drivers.driverFor(p), stopping.signal);
    } catch (err) {
      status = unknownStatus((err as Error).message); // a URI no driver takes
    }
    if (stopping.signal.aborted) return;
    try {
      await api.reportStatus(p.name, status);
    } catch (err) {
      logger.warn({ printer: p.name, error: (err as Error).message }, 'printer status could not be reported; the next round tries again');
    }
  }

  const run = () => {
    round ??= Promise.all(printers().map(reportOne))
      .then(() => undefined)
      .finally(() => {
        round = undefined;
      });
    return round;
  };
  const tick = () => {
    if (stopping.signal.aborted) return;
    void run().then(() => {
      if (stopping.signal.aborted) return;
      timer = setTimeout(tick, intervalMs);
      timer.unref();
    });
  };
  tick();

  return {
    reportNow: () => void run(),
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await round;
    },
  };
}
