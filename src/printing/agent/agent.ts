/**
 * `labelmaker agent` (issue 31): beside printers the service cannot reach (behind a NAT, on
 * USB), it connects out to the service, claims its printers' jobs (claimAgentJob, a long
 * poll), delivers each with the service's own deliverer (worker.ts: in-doubt checks with
 * the printer, possible duplicates, retries) through the same drivers, and reports each
 * outcome under the claim's lease. At most one job per printer is in delivery; a slow
 * printer holds only its own jobs. The service being down only pauses it: claims back
 * off and try again, reports are sent until taken.
 */
import type { Logger } from 'pino';
import type { ClaimedPrintJob } from '../../records/types.js';
import type { PrinterDrivers } from '../printer-drivers.js';
import { deliverer, drainDeliveries, type Delivery } from '../worker.js';
import { remoteJobs } from './remote-jobs.js';
import { ServiceRefusedError, type AgentApi, type AgentJob, type AgentPrinter } from './service-api.js';
import { startStatusReporter } from './status-reporter.js';

export interface AgentOptions {
  api: AgentApi;
  drivers: PrinterDrivers;
  logger: Logger;
  /** One delivery attempt's time-out. */
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How often the printers' status is read and reported (0: never). */
  statusIntervalMs: number;
  /** How often the list of printers is read again. */
  printersRefreshMs?: number;
  /** A claim's long poll. */
  waitSeconds?: number;
  /** Longest pause before trying an unreachable service again. */
  maxBackoffMs?: number;
}

export interface RunningAgent {
  /** Stops claiming; lets deliveries finish for up to graceMs, then cuts them off (they go back to the queue). */
  stop(graceMs?: number): Promise<void>;
}

export function startAgent(opts: AgentOptions): RunningAgent {
  const { api, drivers, logger, timeoutMs, retryBaseMs, retryMaxMs, statusIntervalMs, printersRefreshMs = 30_000, waitSeconds = 5, maxBackoffMs = 15_000 } = opts;
  // The lease outlives the attempt's time-out and an in-doubt check, as the dispatcher's does.
  const leaseSeconds = Math.min(600, Math.max(10, Math.ceil((2 * timeoutMs + 10_000) / 1000)));
  let stopped = false;
  let wake: (() => void) | undefined;
  const delivering = new Map<string, Delivery>();
  let printers: AgentPrinter[] = [];
  let printersReadAt = 0;
  const jobs = remoteJobs({ api, logger, stopped: () => stopped });
  const deliver = deliverer({ jobs, logger, owner: 'agent', timeoutMs, retryBaseMs, retryMaxMs, random: Math.random, stopped: () => stopped });
  const reporter = statusIntervalMs > 0 ? startStatusReporter({ api, drivers, printers: () => printers, isBusy: (n) => delivering.has(n), intervalMs: statusIntervalMs, logger }) : undefined;

  const sleep = (ms: number) =>
    stopped
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            wake = undefined;
            resolve();
          }
          wake = done;
        });

  function start(printer: AgentPrinter, claimed: AgentJob): void {
    jobs.leased(claimed.id, claimed.lease);
    const job: ClaimedPrintJob = {
      ...claimed,
      state: 'printing',
      tokenId: '',
      idempotencyKey: null,
      updatedAt: claimed.createdAt,
      nextAttemptAt: claimed.createdAt,
      printedAt: null,
      possibleDuplicate: false,
      retriedAt: null,
      batchId: null,
      cancelledAt: null,
      heldReason: null,
      fields: Object.fromEntries(Object.entries(claimed.fields).filter((e): e is [string, string] => typeof e[1] === 'string')),
      png: Buffer.from(claimed.png, 'base64'),
    };
    const entry: Delivery = { done: Promise.resolve() };
    entry.done = (async () => {
      try {
        await deliver(job, drivers.driverFor(printer), printer, (c) => (entry.controller = c));
      } catch (err) {
        // The outcome could not be reported (shutting down, or refused): the lease runs out and the job comes back in doubt.
        logger.error({ err, job: job.id, printer: printer.name }, 'agent: the outcome could not be reported; the job returns when its lease ends');
      } finally {
        delivering.delete(printer.name);
        wake?.();
      }
    })();
    delivering.set(printer.name, entry);
  }

  const loop = (async () => {
    let failures = 0;
    while (!stopped) {
      try {
        if (printers.length === 0 || Date.now() - printersReadAt >= printersRefreshMs) {
          const before = JSON.stringify(printers);
          printers = await api.printers();
          printersReadAt = Date.now();
          drivers.keepOnly(new Set(printers.map((p) => p.name)));
          if (JSON.stringify(printers) !== before) {
            logger.info({ printers: printers.map((p) => p.name) }, 'agent: printers');
            reporter?.reportNow();
          }
        }
        const idle = printers.filter((p) => !delivering.has(p.name));
        if (idle.length === 0) {
          await sleep(printers.length === 0 ? Math.min(printersRefreshMs, 5_000) : 1_000);
          continue;
        }
        // A long poll only while no printer is busy: one that finishes must not wait out a poll for the others.
        const busy = delivering.size > 0;
        const job = await api.claim(idle.map((p) => p.name), busy ? 0 : waitSeconds, leaseSeconds);
        failures = 0;
        if (job) {
          const printer = idle.find((p) => p.name === job.printer);
          if (printer) start(printer, job);
          else logger.warn({ job: job.id, printer: job.printer }, 'agent: claimed a job for a printer it does not know; its lease runs out');
        } else if (busy) {
          await sleep(1_000); // woken as soon as a delivery ends
        }
      } catch (err) {
        if (stopped) break;
        failures++;
        const pause = Math.min(maxBackoffMs, 500 * 2 ** Math.min(failures, 10));
        const refused = err instanceof ServiceRefusedError;
        logger[refused ? 'error' : 'warn']({ error: (err as Error).message, retryInMs: pause }, refused ? 'agent: the service refused (check the token and the agent name)' : 'agent: the service cannot be reached; trying again');
        await sleep(pause);
      }
    }
  })();

  return {
    async stop(graceMs = 5_000) {
      stopped = true;
      wake?.();
      await loop;
      await drainDeliveries(delivering.values(), graceMs, 'the agent is shutting down');
      await reporter?.stop();
    },
  };
}
