/**
 * The printer status poller (issue 31): every interval, each printer of the fleet is
 * asked how it is (readPrinterStatus: bounded in time, never throws) and the answer is
 * stored, where every instance and the API read it. Instances share the work through
 * the store: a printer read (or being read) by another instance within half an
 * interval is skipped, and of two instances asking at once only one takes it
 * (PrinterStore.claimStatusRead). Rounds never overlap; printers are read a few at a
 * time, so one that hangs costs one slot for the status time-out, not the round.
 *
 * With a Reach (reach.ts), each round first probes every printer from this instance
 * (each instance probes for itself), and only an instance that reaches a printer takes
 * its status read, unless none does (then one reads it, to store it offline).
 */
import type { PrinterStore, SavedPrinter } from '../records/types.js';
import type { PrinterDrivers } from './printer-drivers.js';
import type { Reach } from './reach.js';
import { unknownStatus } from './status/compose.js';
import { readPrinterStatus, STATUS_TIMEOUT_MS } from './status/index.js';
import type { PrinterStatus } from './status/types.js';

/** PRINTER_STATUS_INTERVAL_S's default: a roll change shows within half a minute, at almost no cost (docs/performance.md). */
export const DEFAULT_STATUS_INTERVAL_MS = 30_000;

export interface PollerLogger {
  debug(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export interface StatusPollerOptions {
  printers: PrinterStore;
  /** Shared with the dispatcher: a driver remembers what it learnt about its printer. */
  drivers: PrinterDrivers;
  intervalMs: number;
  /** A printer being sent a job is not asked now (a Zebra serves one connection at a time). */
  isBusy?(name: string): boolean;
  /** Called once the reading is stored, when its state, reasons or media differ from the stored one before. */
  onStatusChange?(name: string, status: PrinterStatus): void | Promise<void>;
  logger: PollerLogger;
  /** How long one printer may take to answer (default STATUS_TIMEOUT_MS, at most a quarter of the interval). */
  timeoutMs?: number;
  /** The clock, for the store's times. */
  now?: () => Date;
  /** This instance's reach: probed every round, before the status read. */
  reach?: Reach;
}

export interface StatusPoller {
  /** Runs a round now (after the one under way, if any) and resolves when it is done. */
  pollNow(): Promise<void>;
  /**
   * Reads one printer now, past another instance's recent reading: an instance that has just
   * found it reaches the printer replaces an "offline" stored by one that does not.
   */
  readNow(printer: SavedPrinter): Promise<void>;
  /** Stops the timer, gives up reads under way, and waits for the round to end. */
  stop(): Promise<void>;
}

/** Whether two readings differ in what people and the hold rule act on (not the message's words or the time). */
export function statusChanged(before: Pick<PrinterStatus, 'state' | 'reasons' | 'media'> | null | undefined, after: PrinterStatus): boolean {
  if (!before) return true;
  return before.state !== after.state || JSON.stringify(before.reasons) !== JSON.stringify(after.reasons) || JSON.stringify(before.media ?? null) !== JSON.stringify(after.media ?? null);
}

/**
 * How many printers are read at once: enough that a round fits in the interval even if
 * every printer hangs until its time-out, at least 4 and at most 32 (the sockets a round holds).
 */
export function readConcurrency(printers: number, timeoutMs: number, intervalMs: number): number {
  return Math.min(32, Math.max(4, Math.ceil((printers * timeoutMs) / (intervalMs * 0.8))));
}

export function startStatusPoller(opts: StatusPollerOptions): StatusPoller {
  const { printers, drivers, intervalMs, logger } = opts;
  const now = opts.now ?? (() => new Date());
  const timeoutMs = Math.max(100, Math.min(opts.timeoutMs ?? STATUS_TIMEOUT_MS, Math.floor(intervalMs / 4)));
  const stopping = new AbortController();
  let round: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  /** `now`: read it even if another instance read it within half an interval (that instance may not reach it). */
  async function readOne(p: SavedPrinter, now_ = false): Promise<void> {
    if (stopping.signal.aborted || opts.isBusy?.(p.name)) return;
    // Reads are for instances that reach the printer; when none does (as the store answered this
    // instance's probe just now, not the round's older list), any may: it stores it offline.
    // (readNow comes from a probe's own answer: probing again here would wait on itself.)
    if (opts.reach && !now_ && !(await opts.reach.probe(p)) && opts.reach.anyoneReaches(p.name) !== false) return;
    if (stopping.signal.aborted) return;
    const before = p.status as PrinterStatus | null;
    const at = now();
    const freshFor = now_ ? 0 : intervalMs / 2;
    // Another instance's reading (or its read under way) younger than half an interval stands.
    if (before?.checkedAt && at.getTime() - Date.parse(before.checkedAt) < freshFor) return;
    if (!(await printers.claimStatusRead(p.name, at.toISOString(), new Date(at.getTime() - freshFor).toISOString()))) return;
    let status: PrinterStatus;
    try {
      status = await readPrinterStatus(drivers.driverFor(p), stopping.signal, timeoutMs);
    } catch (err) {
      // driverFor throws only for a URI no driver takes (stored before a driver was removed).
      status = unknownStatus((err as Error).message);
    }
    if (stopping.signal.aborted) return; // "did not answer" because we stopped asking is not the printer's state
    if (!(await printers.saveStatus(p.name, status))) return; // deleted meanwhile, or a newer reading is stored
    if (statusChanged(before, status)) {
      logger.debug({ printer: p.name, state: status.state, reasons: status.reasons }, `printer ${p.name}: ${status.message}`);
      try {
        await opts.onStatusChange?.(p.name, status);
      } catch (err) {
        logger.error({ err, printer: p.name }, 'reacting to a printer status change failed');
      }
    }
  }

  async function runRound(): Promise<void> {
    // A printer bound to an agent is read by the agent, which reports its status (reportAgentPrinterStatus).
    const fleet = (await printers.list()).filter((p) => !p.agent);
    drivers.keepOnly(new Set(fleet.map((p) => p.name)));
    opts.reach?.keepOnly(new Set(fleet.map((p) => p.name)));
    const pending = [...fleet];
    const limit = readConcurrency(fleet.length, timeoutMs, intervalMs);
    const lane = async () => {
      for (let p = pending.shift(); p; p = pending.shift()) {
        try {
          await readOne(p);
        } catch (err) {
          // The store refused (down, read-only): the next round tries again.
          logger.warn({ err, printer: p.name }, 'printer status could not be stored; the next round tries again');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, fleet.length) }, lane));
  }

  function startRound(): Promise<void> {
    round = runRound()
      .catch((err: unknown) => logger.warn({ err }, 'printer status round failed (the printers could not be listed); the next round tries again'))
      .finally(() => {
        round = undefined;
      });
    return round;
  }

  /** A round now; with one under way (it may have listed the fleet before a change), one more right after it. */
  let again: Promise<void> | undefined;
  function pollNow(): Promise<void> {
    if (stopped) return round ?? Promise.resolve();
    if (!round) return startRound();
    again ??= round.then(() => {
      again = undefined;
      return stopped ? undefined : (round ?? startRound());
    });
    return again;
  }

  // First round at once; then one every interval, never two at a time.
  const tick = () => {
    if (stopped) return;
    const started = Date.now();
    void pollNow().then(() => {
      if (stopped) return;
      // The next round starts an interval after this one started, or at once if this one took longer.
      timer = setTimeout(tick, Math.max(0, intervalMs - (Date.now() - started)));
      timer.unref();
    });
  };
  tick();

  return {
    pollNow,
    async readNow(p) {
      if (!p.agent && !stopped) await readOne(p, true);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      stopping.abort();
      await round;
    },
  };
}
