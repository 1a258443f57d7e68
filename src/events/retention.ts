/**
 * Retention of the outbox (EVENTS_RETENTION_DAYS, docs/webhooks.md#retention): at start and
 * every hour, deletes finished webhook deliveries and events past the retention period, in
 * bounded batches (store.events.prune, sql/events.ts pruneEvents: never an event that a
 * consumer has not passed or a delivery still names), with a pause between batches so
 * requests get the write lock in between. Several instances may all run it: deleting the
 * same rows twice is harmless.
 */
import type { Logger } from 'pino';
import type { EventStore } from '../records/types.js';

export interface EventRetentionOptions {
  events: Pick<EventStore, 'prune'>;
  retentionMs: number;
  logger: Pick<Logger, 'info' | 'error'>;
  /** Time between runs (default one hour). */
  everyMs?: number;
  /** Rows deleted per statement (default 500). */
  batchSize?: number;
}

export interface EventRetention {
  /** Deletes everything past the retention period now; answers how many of each. */
  pruneNow(): Promise<{ events: number; deliveries: number }>;
  stop(): Promise<void>;
}

export function startEventRetention({ events, retentionMs, logger, everyMs = 3_600_000, batchSize = 500 }: EventRetentionOptions): EventRetention {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<{ events: number; deliveries: number }> | undefined;

  async function prune(): Promise<{ events: number; deliveries: number }> {
    const before = new Date(Date.now() - retentionMs).toISOString();
    const total = { events: 0, deliveries: 0 };
    while (!stopped) {
      const n = await events.prune(before, batchSize);
      total.events += n.events;
      total.deliveries += n.deliveries;
      if (n.events < batchSize && n.deliveries < batchSize) break;
      await new Promise((r) => setTimeout(r, 10)); // let requests in between batches
    }
    if (total.events + total.deliveries > 0) logger.info({ ...total, before }, 'pruned events and webhook deliveries past their retention');
    return total;
  }

  const pruneNow = () => (running ??= prune().finally(() => (running = undefined)));
  const tick = (): void => {
    void pruneNow()
      .catch((err: unknown) => logger.error({ err }, 'pruning events failed; will try again'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, everyMs).unref();
      });
  };
  tick();

  return {
    pruneNow,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
