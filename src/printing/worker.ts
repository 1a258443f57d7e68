/**
 * Delivers queued jobs: claim under a lease, print with a time-out, record the
 * outcome. Failed attempts retry with exponential back-off and jitter until the
 * job's attempts run out; then the job is failed with its last error kept.
 * Several workers (in one or many instances) can share a store: claims never overlap.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ClaimedPrintJob, PrintJobStore } from '../records/types.js';
import { PermanentPrintError, type PrinterDriver } from './drivers/types.js';

export interface WorkerOptions {
  jobs: PrintJobStore;
  driver: PrinterDriver;
  logger: Logger;
  /** Upper bound for one delivery attempt. */
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Longest sleep between looks at the store (other instances may add jobs). */
  pollMs?: number;
  /** For tests: the jitter source. */
  random?: () => number;
}

export interface PrintWorker {
  /** Look for work now (called when a job was just submitted). */
  nudge(): void;
  /** Finishes the delivery in progress, then stops. */
  stop(): Promise<void>;
}

/** Exponential back-off with jitter: base * 2^(attempt-1), capped, times a factor in [0.5, 1.5). */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.5 + random()));
}

export function startPrintWorker(opts: WorkerOptions): PrintWorker {
  const { jobs, driver, logger, timeoutMs, retryBaseMs, retryMaxMs, pollMs = 5_000, random = Math.random } = opts;
  const owner = `worker-${randomUUID()}`;
  // The lease outlives the delivery time-out, so no other worker takes over a job still being sent.
  const leaseMs = timeoutMs + 5_000;
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, Math.max(0, ms));
    }).finally(() => {
      clearTimeout(timer);
      wake = undefined;
    });

  async function deliver(job: ClaimedPrintJob): Promise<void> {
    const log = logger.child({ job: job.id, attempt: job.attempts, printer: driver.target });
    try {
      await driver.print({ png: job.png, template: job.template, title: job.title, fields: job.fields }, AbortSignal.timeout(timeoutMs));
      await jobs.markPrinted(job.id, owner);
      log.info('printed');
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof PermanentPrintError || job.attempts >= job.maxAttempts) {
        await jobs.markFailed(job.id, owner, message);
        log.error({ error: message }, 'print job failed');
      } else {
        const next = new Date(Date.now() + retryDelayMs(job.attempts, retryBaseMs, retryMaxMs, random)).toISOString();
        await jobs.markRetry(job.id, owner, message, next);
        log.warn({ error: message, next }, 'print attempt failed; will retry');
      }
    }
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        const job = await jobs.claim(owner, leaseMs);
        if (job) {
          await deliver(job);
          continue;
        }
        const wakeAt = await jobs.nextWakeAt();
        const untilDue = wakeAt ? Date.parse(wakeAt) - Date.now() : pollMs;
        await sleep(Math.min(pollMs, Math.max(untilDue, 10)));
      } catch (err) {
        if (stopped) break;
        logger.error({ err }, 'print worker: store error; retrying');
        await sleep(pollMs);
      }
    }
  })();

  return {
    nudge: () => wake?.(),
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
