/**
 * A durable reader of the outbox (sql/events.ts): a named consumer (webhook fan-out,
 * print rules) that acts on every event once, in order, across instances and crashes.
 *
 * One instance at a time holds the consumer's lease (table event_consumers, migration 21);
 * the others wait for it to lapse. The holder reads the events after the stored cursor in
 * batches and hands each batch to `handle` with a ConsumerLease {name, owner, from, to}.
 * The handler commits its own writes AND the cursor move in ONE transaction, by calling
 * advanceConsumer(tx, lease, leaseMs) first inside that transaction and writing nothing
 * when it answers false (sql/consumers.ts); a handler with no writes of its own calls
 * store.consumers.advance(lease, leaseMs). It answers whether the cursor moved.
 *
 *   - a crash (or any error) before the commit: the cursor did not move; the batch is read
 *     again by whoever holds the lease next. Nothing is lost.
 *   - an instance that lost its lease (a pause longer than the lease) cannot move the
 *     cursor (compare and set on `from` under its owner name), so it cannot act twice.
 *   - after an error the loop forgets its cursor and re-reads it with the lease, so an
 *     answer lost after a commit does not make it act on a batch again.
 */
import { randomUUID } from 'node:crypto';
import type { ConsumerLease, OutboxEvent, Store } from '../records/types.js';

export interface ConsumerLog {
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface EventConsumerOptions {
  store: Pick<Store, 'events' | 'consumers'>;
  /** The consumer's durable name (a-z, 0-9, ':._-'; at most 64). */
  name: string;
  /**
   * Acts on one batch (oldest first) and commits the cursor move with its own writes
   * (see above). Answers whether the cursor moved (false: the lease was lost).
   */
  handle(events: OutboxEvent[], lease: ConsumerLease, leaseMs: number): Promise<boolean>;
  /** This instance's name in leases (default: a random one per consumer object). */
  owner?: string;
  /** How long a lease lasts without renewal (default 15 s); the loop renews it well before. */
  leaseMs?: number;
  /** Events per batch (1..1000, default 100). */
  batchSize?: number;
  /** How often an idle consumer looks for new events (default 500 ms); wake() looks at once. */
  pollMs?: number;
  /** Where a consumer seen for the first time starts (default 'latest': no history). */
  start?: 'beginning' | 'latest';
  log?: ConsumerLog;
}

export class EventConsumer {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly pollMs: number;
  /** The cursor while this instance holds the lease; undefined when it does not (or after an error). */
  private cursor: number | undefined;
  private renewedAt = 0;
  private running = false;
  private loop: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(private readonly options: EventConsumerOptions) {
    this.owner = options.owner ?? `${options.name}:${randomUUID()}`;
    this.leaseMs = options.leaseMs ?? 15_000;
    this.batchSize = Math.max(1, Math.min(1000, Math.trunc(options.batchSize ?? 100)));
    this.pollMs = options.pollMs ?? 500;
  }

  /** Whether this instance held the lease at its last step. */
  get holdsLease(): boolean {
    return this.cursor !== undefined;
  }

  /**
   * One step: takes or keeps the lease, reads one batch after the cursor and hands it over.
   * Answers how many events were handled (0: nothing new, or another instance holds the lease).
   */
  async step(): Promise<number> {
    const { store, name } = this.options;
    const now = Date.now();
    if (this.cursor === undefined || now - this.renewedAt > this.leaseMs / 3) {
      const cursor = await store.consumers.acquire(name, this.owner, this.leaseMs, this.options.start ?? 'latest');
      this.renewedAt = now;
      this.cursor = cursor;
      if (cursor === undefined) return 0;
    }
    const from = this.cursor;
    if (from === undefined) return 0;
    const events = await store.events.after(from, this.batchSize);
    if (events.length === 0) return 0;
    const lease: ConsumerLease = { name, owner: this.owner, from, to: events.at(-1)!.id };
    const moved = await this.options.handle(events, lease, this.leaseMs);
    if (!moved) {
      this.cursor = undefined; // lost the lease (or the cursor moved under us): take it again, re-read
      return 0;
    }
    this.cursor = lease.to;
    this.renewedAt = now; // advancing renews the lease
    return events.length;
  }

  /** Runs steps until stop(): straight on while batches are full, then every pollMs or on wake(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      let failures = 0;
      while (this.running) {
        let handled = 0;
        try {
          handled = await this.step();
          failures = 0;
        } catch (err) {
          this.cursor = undefined;
          failures++;
          this.options.log?.warn({ err, consumer: this.options.name }, 'event consumer: a step failed; retrying');
        }
        if (!this.running) break;
        if (handled >= this.batchSize) continue;
        const wait = failures > 0 ? Math.min(30_000, this.pollMs * 2 ** Math.min(failures, 6)) : this.pollMs;
        await this.sleep(wait);
      }
    })();
  }

  /** Looks for new events now (an instance that just appended some). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops the loop after its current step and gives the lease up, so another instance takes over at once. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    if (this.cursor !== undefined) {
      this.cursor = undefined;
      await this.options.store.consumers.release(this.options.name, this.owner).catch(() => false);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.wakeUp = () => {
        clearTimeout(this.timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      this.timer = setTimeout(() => this.wakeUp?.(), ms);
      this.timer.unref?.();
    });
  }
}
