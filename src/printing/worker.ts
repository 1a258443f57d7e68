/**
 * Delivers one claimed job (the dispatcher's, dispatcher.ts, and the agent's, agent/):
 * print with a time-out, record the outcome under the claim's lease. Failed attempts
 * retry with exponential back-off and jitter until the job's attempts run out; then
 * the job is failed with its last error kept.
 *
 * Exactly once, or saying so: an attempt that may have reached the printer without
 * its outcome being recorded (the worker died mid-delivery, or the attempt failed
 * after the data was sent) leaves the job in doubt. Before its redelivery the driver
 * asks the printer whether it already has the job (folder: the job's file; IPP:
 * Get-Jobs by job name); where the printer cannot tell (raw sockets, commands), the
 * redelivery is recorded on the job as a possible duplicate, never silently.
 */
import type { Logger } from 'pino';
import type { AttemptMarks, ClaimedPrintJob, PrintJobStore } from '../records/types.js';
import { countPrintAttempt, countPrinterError, countPrinterOutcome } from '../metrics.js';
import { PermanentPrintError, UncertainDeliveryError, type PrintDocument, type PrinterDriver } from './drivers/types.js';
import { shownError } from './printer-name.js';

export interface WorkerHealth {
  ok: boolean;
  /** What is wrong, safe to show; absent when ok. */
  detail?: string;
}

/** Exponential back-off with jitter: base * 2^(attempt-1), capped, times a factor in [0.5, 1.5). */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random()));
}

const sleepMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface DeliveryOptions {
  /** Where outcomes are recorded: the store, or the service over HTTP (agent/remote-jobs.ts). */
  jobs: Pick<PrintJobStore, 'markPrinted' | 'markRetry' | 'markFailed'>;
  logger: Logger;
  /** The lease owner claims were made as. */
  owner: string;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  random: () => number;
  /** Whether the service is shutting down (an attempt cut off then goes back to the queue, due at once). */
  stopped: () => boolean;
  /** Whether a failure means this instance could not reach the printer: nothing was sent (reach.ts notReached). */
  notReached?: (failure: unknown) => boolean;
  /**
   * Told of such a failure (this instance stops claiming the printer's jobs); true when another
   * live instance reaches the printer: the attempt is given back and the job is due at once, for it.
   * False (no instance reaches it): the attempt counts, as any failure's.
   */
  unreached?: (printer: string, why: string) => Promise<boolean>;
}

/** One claimed job's delivery to its printer (driver), by every exactly-once rule; `inFlight` is told the attempt's controller. */
/** Deliveries in progress: each may be aborted, and is done when its outcome is recorded. */
export interface Delivery {
  controller?: AbortController;
  done: Promise<void>;
}

/** Lets deliveries in progress finish for up to graceMs, then aborts them (their jobs go back to the queue). */
export async function drainDeliveries(deliveries: Iterable<Delivery>, graceMs: number, why: string): Promise<void> {
  const all = [...deliveries];
  const grace = setTimeout(() => {
    for (const d of all) d.controller?.abort(new Error(why));
  }, graceMs);
  await Promise.all(all.map((d) => d.done));
  clearTimeout(grace);
}

export type Deliver = (job: ClaimedPrintJob, driver: PrinterDriver, printer: { name: string; title: string }, inFlight: (controller: AbortController | undefined) => void) => Promise<void>;

/** The delivery shared by the single-printer worker and the fleet's dispatcher (dispatcher.ts). */
export function deliverer({ jobs, logger, owner, timeoutMs, retryBaseMs, retryMaxMs, random, stopped, notReached, unreached }: DeliveryOptions): Deliver {
  /** The printer took the job: record it, retrying store hiccups (a retry would print it twice). */
  async function recordPrinted(job: ClaimedPrintJob, log: Logger, marks: AttemptMarks): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (!(await jobs.markPrinted(job.id, owner, marks))) log.warn('printed, but the lease had passed to another worker');
        else if (marks.possibleDuplicate) log.warn('printed again after an attempt that may have printed it; flagged as a possible duplicate');
        else log.info('printed');
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        log.warn({ err }, 'printed, but recording it failed; retrying');
        await sleepMs(200 * attempt);
      }
    }
  }

  return async function deliver(job, driver, { name: printerName, title }, setInFlight): Promise<void> {
    const log = logger.child({ job: job.id, attempt: job.attempts, printer: driver.target });
    if (job.attempts > job.maxAttempts) {
      // Its earlier attempts ended without an outcome (the worker died mid-delivery, every time).
      const why = job.lastError ?? `gave up after ${job.maxAttempts} attempts that never finished`;
      await jobs.markFailed(job.id, owner, job.inDoubt ? `${why}; an interrupted attempt may have printed it` : why);
      log.error('print job failed: attempts used up by interrupted deliveries');
      return;
    }
    const doc: PrintDocument = { jobId: job.id, createdAt: job.createdAt, png: job.png, stockName: job.template, title: job.title, fields: job.fields };
    const controller = new AbortController();
    setInFlight(controller);
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    // Whether an earlier attempt may have printed this job, as far as we still know.
    let inDoubt = job.inDoubt;
    let sent = false;
    let failure: unknown;
    try {
      if (inDoubt && driver.checkEarlierAttempt) {
        const earlier = await driver.checkEarlierAttempt(doc, controller.signal);
        log.info({ earlier }, 'redelivery: asked the printer about the earlier attempt');
        if (earlier === 'delivered') return await recordPrinted(job, log, {});
        if (earlier === 'not-delivered') inDoubt = false;
      }
      sent = true;
      await driver.print(doc, controller.signal);
    } catch (err) {
      failure = err ?? new Error('print failed');
    } finally {
      clearTimeout(timer);
      setInFlight(undefined);
    }
    // A redelivery the printer could not vouch for that may have reached it: possibly printed twice.
    const uncertain = failure instanceof UncertainDeliveryError;
    const possibleDuplicate = inDoubt && sent && (failure === undefined || uncertain);
    if (failure === undefined) {
      countPrintAttempt(driver.kind, 'printed');
      countPrinterOutcome(printerName, 'printed');
      return recordPrinted(job, log, { possibleDuplicate });
    }

    const marks: AttemptMarks = { inDoubt: inDoubt || uncertain, possibleDuplicate };
    const fullMessage = failure instanceof Error ? failure.message : String(failure);
    // Stored on the job, which print tokens read; the log lines below keep the whole message.
    // Named by its title, as people know it (PRINTER_NAME, or the kind of printer), never its address.
    const message = shownError(fullMessage, driver.target, title);
    if (stopped()) {
      // Cut off by shutdown, not by the printer: back to the queue, due at once.
      await jobs.markRetry(job.id, owner, message, new Date().toISOString(), marks);
      log.warn({ error: fullMessage }, 'print attempt interrupted by shutdown; requeued');
    } else if (!possibleDuplicate && !uncertain && notReached?.(failure) && (await unreached?.(printerName, fullMessage))) {
      await jobs.markRetry(job.id, owner, message, new Date().toISOString(), { ...marks, notSent: true });
      countPrintAttempt(driver.kind, 'retry');
      log.warn({ error: fullMessage }, 'printer not reachable from this instance; the job goes back to the queue, its attempt unspent');
    } else if (failure instanceof PermanentPrintError || job.attempts >= job.maxAttempts) {
      await jobs.markFailed(job.id, owner, message, marks);
      countPrinterError(driver.kind);
      countPrintAttempt(driver.kind, 'failed');
      countPrinterOutcome(printerName, 'failed');
      log.error({ error: fullMessage }, 'print job failed');
    } else {
      // After an uncertain attempt, come back soon: printers keep their job history for a limited time.
      const delay = retryDelayMs(uncertain ? 1 : job.attempts, retryBaseMs, retryMaxMs, random);
      const next = new Date(Date.now() + delay).toISOString();
      await jobs.markRetry(job.id, owner, message, next, marks);
      countPrinterError(driver.kind);
      countPrintAttempt(driver.kind, 'retry');
      countPrinterOutcome(printerName, 'retry');
      log.warn({ error: fullMessage, next, inDoubt: marks.inDoubt }, 'print attempt failed; will retry');
    }
  };
}
