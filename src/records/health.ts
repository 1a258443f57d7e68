/**
 * The store's health as /healthz reports it, built the same way for both stores:
 * - reads: a real read answered just now;
 * - writes: the outcome of the latest write (a request's, the print worker's, a
 *   token's last-use bookkeeping, or a probe), kept until a later write says
 *   otherwise. When that outcome is older than PROBE_AFTER_MS, health() asks the
 *   store for a fresh probe first, so an idle service still tells the truth;
 * - the store's own checks (SQLite: is the file still the one we opened).
 * A failed write is never guessed at: only a write shows whether writes work.
 */
import { countStoreError } from '../metrics.js';
import { storeFaultOf, type StoreFault, type StoreState } from './errors.js';

export interface StoreHealth {
  /** ok: reads and writes work; degraded: reads work, writes are refused; unavailable: reads fail too. */
  status: 'ok' | 'degraded' | 'unavailable';
  state: StoreState;
  reads: boolean;
  writes: boolean;
  /** What is wrong, safe to show to anyone (no paths, no SQL). Absent when ok. */
  detail?: string;
  /** When the current state began (ISO 8601). */
  since: string;
}

/** A write outcome older than this is refreshed by a probe before health() answers. */
export const PROBE_AFTER_MS = 2_000;
/** health() waits at most this long for a probe. */
export const PROBE_DEADLINE_MS = 1_000;

export interface HealthChecks {
  /** A real, cheap read; throws when reads fail. */
  read(): Promise<void>;
  /** A real write (or, where the database can say so without writing, an equivalent check); throws its error. */
  probeWrite(): Promise<void>;
  /** A fault the store knows of without writing (SQLite: its file is gone), if any. */
  knownFault?(): StoreFault | undefined;
}

/** Tracks write outcomes and answers health(). One per open store. */
export class WriteHealth {
  private fault: StoreFault | undefined;
  private since = new Date().toISOString();
  private lastOutcomeAt = 0;
  private probing: Promise<void> | undefined;
  private readFailedSince: string | undefined;

  constructor(
    private readonly checks: HealthChecks,
    /** Told when the write state changes (for logs). */
    private readonly onChange: (fault: StoreFault | undefined, cause?: unknown) => void = () => {},
    /**
     * Whether one write that worked proves writes work. True for SQLite (one file, one
     * lock: all writes share their fate). False for PostgreSQL, where a revoke can hit one
     * table and pooled sessions can differ: there only a probe, which checks every table
     * and the session, clears a fault.
     */
    private readonly anyWriteClears = true,
  ) {}

  /** Records a write that committed. */
  succeeded(): void {
    if (this.fault && !this.anyWriteClears) return;
    this.lastOutcomeAt = Date.now();
    this.set(undefined);
  }

  /** Records a failed write; errors that are not write faults (a constraint, a bug) change nothing. */
  failed(err: unknown): void {
    const fault = storeFaultOf(err);
    if (!fault) return;
    countStoreError('write');
    this.lastOutcomeAt = Date.now();
    this.set(fault, err);
  }

  /** Wraps a write: its outcome feeds the health. */
  async track<T>(write: Promise<T>): Promise<T> {
    try {
      const value = await write;
      this.succeeded();
      return value;
    } catch (err) {
      this.failed(err);
      throw err;
    }
  }

  /** The write fault known right now (no probing), for refusing writes up front. */
  current(): StoreFault | undefined {
    return this.checks.knownFault?.() ?? this.fault;
  }

  async health(): Promise<StoreHealth> {
    try {
      await this.checks.read();
      this.readFailedSince = undefined;
    } catch {
      this.readFailedSince ??= new Date().toISOString();
      return { status: 'unavailable', state: 'unreachable', reads: false, writes: false, detail: 'The record store is unreachable.', since: this.readFailedSince };
    }
    const known = this.checks.knownFault?.();
    if (known) {
      this.set(known);
    } else if (Date.now() - this.lastOutcomeAt > PROBE_AFTER_MS) {
      await this.probe();
    }
    const fault = this.checks.knownFault?.() ?? this.fault;
    if (!fault) return { status: 'ok', state: 'ok', reads: true, writes: true, since: this.since };
    return { status: 'degraded', state: fault.state, reads: true, writes: false, detail: fault.detail, since: this.since };
  }

  /**
   * One probe at a time; callers arriving meanwhile share it AND its deadline, so a probe held
   * up (SQLite: another connection's long write transaction, such as a million-record sync)
   * costs /healthz one deadline per probe, not one per request while it waits.
   */
  private probe(): Promise<void> {
    if (!this.probing) {
      const probing = this.checks.probeWrite().then(
        () => {
          this.lastOutcomeAt = Date.now();
          this.set(undefined);
        },
        (err: unknown) => this.failed(err),
      );
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, PROBE_DEADLINE_MS);
        timer.unref();
      });
      this.probing = Promise.race([probing, deadline]).finally(() => clearTimeout(timer));
      void probing.finally(() => {
        this.probing = undefined;
      });
    }
    return this.probing;
  }

  private set(fault: StoreFault | undefined, cause?: unknown): void {
    if (fault?.state === this.fault?.state && fault?.detail === this.fault?.detail) return;
    this.fault = fault;
    this.since = new Date().toISOString();
    this.onChange(fault, cause);
  }
}
