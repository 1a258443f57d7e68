/**
 * Delivery over the printer fleet (issue 31): one loop claims, for the printers idle on
 * this instance, the oldest due job of any of them (one claim, not one per printer), and
 * hands it to that printer's delivery, which runs beside the others. At most one job is in
 * delivery per printer; a slow or dead printer holds only its own jobs (each attempt has
 * its time-out), never another's. Every exactly-once rule is the worker's (worker.ts
 * deliverer: in-doubt checks, possible duplicates, leases, retries).
 *
 * Jobs name printers, not URIs: the driver comes from the shared PrinterDrivers by the
 * printer's current URI at each claim, so a URI change orphans nothing. Jobs naming no
 * known printer (stored before the fleet) are the default printer's.
 *
 * Instances sharing a database may sit at different sites: with a Reach (reach.ts), only
 * jobs of printers this instance reached at its last probe are claimed (a printer not
 * probed yet at its URI is probed first), so an instance never spends the attempts of
 * jobs it cannot deliver. A printer that no live instance reaches is claimed by none: its
 * jobs wait, held (holds.ts), until one reaches it.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { countStoreError } from '../metrics.js';
import type { ClaimedPrintJob, PrinterStore, PrintJobStore, SavedPrinter } from '../records/types.js';
import type { PrinterDrivers } from './printer-drivers.js';
import { notReached, type Reach } from './reach.js';
import { deliverer, drainDeliveries, type Delivery, type WorkerHealth } from './worker.js';

export interface DispatcherOptions {
  jobs: PrintJobStore;
  printers: Pick<PrinterStore, 'list'>;
  /** Shared with the status poller: a driver remembers what it learnt of its printer. */
  drivers: PrinterDrivers;
  logger: Logger;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** Longest sleep between looks at the store (other instances may add jobs; printers may change). */
  pollMs?: number;
  random?: () => number;
  /** The printer when the fleet is empty (PRINTER_URI's, when the configuration could not be stored). */
  fallback?: { name: string; deviceUri: string };
  /** Which printers this instance reaches; without it (printers not polled) every printer's jobs are claimed. */
  reach?: Reach;
}

export interface PrintDispatcher {
  /** Look for work now (a job was submitted, a hold released, a printer changed). */
  nudge(): void;
  /** Stops claiming; lets deliveries in progress finish for up to graceMs, then cancels them (back to the queue). */
  stop(graceMs?: number): Promise<void>;
  health(): WorkerHealth;
  /** Printers with a job in delivery now (tests, metrics). */
  busy(): string[];
}

export function startPrintDispatcher(opts: DispatcherOptions): PrintDispatcher {
  const { jobs, printers, drivers, logger, timeoutMs, retryBaseMs, retryMaxMs, pollMs = 5_000, random = Math.random, fallback, reach } = opts;
  const owner = `dispatcher-${randomUUID()}`;
  const leaseMs = timeoutMs + 5_000;
  let stopped = false;
  let nudged = false;
  let wake: (() => void) | undefined;
  let lastTurnAt = Date.now();
  let storeFailing = false;
  let exited = false;
  const stallAfterMs = pollMs + 10_000;
  /** Deliveries in progress, by printer name. */
  const delivering = new Map<string, Delivery>();
  let fleet: SavedPrinter[] = [];
  const deliver = deliverer({
    jobs, logger, owner, timeoutMs, retryBaseMs, retryMaxMs, random, stopped: () => stopped,
    notReached: reach && notReached,
    // Another instance reaches it: this one stops claiming its jobs, and the attempt is given back.
    unreached: reach && (async (name, why) => {
      const printer = fleet.find((p) => p.name === name);
      return printer ? (await reach.lost(printer, why)) > 0 : false;
    }),
  });

  /**
   * Whether this instance takes the printer's jobs now: it reached the printer at its last
   * probe (unknown: probed first), or the store knows nothing of its reach (the fallback
   * printer, not stored; the store refusing writes): then as before reach, every instance.
   */
  const takes = (p: SavedPrinter): boolean => {
    if (!reach) return true;
    const reached = reach.reaches(p);
    if (reached === undefined) {
      void reach.probe(p).then(nudge);
      return false;
    }
    return reached || p.reach === undefined;
  };

  /** Whether the claim read another address for the printer than the fleet this instance holds (null: none stored, as the fallback's). */
  const movedSinceRead = (p: SavedPrinter, job: ClaimedPrintJob): boolean => typeof job.printerUri === 'string' && job.printerUri !== p.deviceUri;

  const nudge = () => {
    nudged = true;
    wake?.();
  };
  const sleep = (ms: number) => {
    if (nudged || stopped) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    return new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, Math.max(0, ms));
    }).finally(() => {
      clearTimeout(timer);
      wake = undefined;
    });
  };

  let fleetReadAt = 0;
  const readFleet = async () => {
    if (!nudged && Date.now() - fleetReadAt < pollMs) return;
    const stored = await printers.list();
    // A printer bound to an agent is the agent's to deliver to (agent/), never this instance's.
    fleet = stored.length === 0 && fallback ? [fallbackPrinter(fallback)] : stored.filter((p) => !p.agent);
    fleetReadAt = Date.now();
    drivers.keepOnly(new Set(fleet.map((p) => p.name)));
    reach?.keepOnly(new Set(fleet.map((p) => p.name)));
  };

  /** The fallback as a fleet of one: the default, taking every job (they name no stored printer). */
  const fallbackPrinter = (f: { name: string; deviceUri: string }): SavedPrinter => ({
    name: f.name, title: f.name, deviceUri: f.deviceUri, model: null, locationId: null, stocks: [], red: false, isDefault: true,
    source: 'config', etag: '', createdAt: '', updatedAt: '', status: null,
  });

  function start(printer: SavedPrinter, job: Parameters<typeof deliver>[0]): void {
    const log = logger.child({ printer: printer.name });
    const entry: Delivery = { done: Promise.resolve() };
    entry.done = (async () => {
      try {
        const driver = drivers.driverFor(printer);
        await deliver(job, driver, printer, (c) => (entry.controller = c));
      } catch (err) {
        // The store failed while recording the outcome: the lease runs out and the job is retried, in doubt.
        countStoreError('print-queue');
        log.error({ err, job: job.id }, 'print dispatcher: delivery could not be recorded; the job returns when its lease ends');
      } finally {
        delivering.delete(printer.name);
        nudge(); // the printer is idle again: its next job may be due
      }
    })();
    delivering.set(printer.name, entry);
  }

  const loop = (async () => {
    while (!stopped) {
      lastTurnAt = Date.now();
      try {
        await readFleet();
        nudged = false;
        const idle = fleet.filter((p) => !delivering.has(p.name) && takes(p));
        const byName = new Map(fleet.map((p) => [p.name, p]));
        const fallback = fleet.find((p) => p.isDefault);
        let job = idle.length > 0 ? await jobs.claim(owner, leaseMs, idle.map((p) => p.name)) : undefined;
        if (!job && fallback && idle.includes(fallback)) job = await jobs.claim(owner, leaseMs, undefined, true);
        storeFailing = false;
        if (job) {
          const printer = byName.get(job.printer) ?? fallback!;
          if (movedSinceRead(printer, job)) {
            // Moved by another instance since this one read the fleet: never print at the old
            // address. The claim goes back unspent, due now, and the fleet is read again (this
            // instance may not reach the new address; takes() decides, probing it first).
            await jobs.markRetry(job.id, owner, null, new Date().toISOString(), { notSent: true });
            logger.info({ job: job.id, printer: printer.name }, 'the printer moved since the fleet was read; the job goes back to the queue');
            nudged = true;
            continue;
          }
          start(printer, job);
          continue;
        }
        const wakeAt = await jobs.nextWakeAt();
        const untilDue = wakeAt ? Date.parse(wakeAt) - Date.now() : pollMs;
        await sleep(Math.min(pollMs, Math.max(untilDue, 10)));
      } catch (err) {
        if (stopped) break;
        storeFailing = true;
        countStoreError('print-queue');
        logger.error({ err }, 'print dispatcher: store error; retrying');
        await sleep(pollMs);
      }
    }
  })().finally(() => {
    exited = true;
  });

  return {
    nudge,
    busy: () => [...delivering.keys()],
    health() {
      if (exited || stopped) return { ok: false, detail: 'The print worker has stopped.' };
      if (storeFailing) return { ok: false, detail: 'The print worker cannot reach the print queue in the database.' };
      if (Date.now() - lastTurnAt > stallAfterMs) return { ok: false, detail: `The print worker has made no progress for over ${Math.round(stallAfterMs / 1000)} seconds.` };
      return { ok: true };
    },
    async stop(graceMs = 5_000) {
      stopped = true;
      wake?.();
      await loop;
      await drainDeliveries(delivering.values(), graceMs, 'the service is shutting down');
    },
  };
}
