/**
 * Retention of the outbox (EVENTS_RETENTION_DAYS, docs/webhooks.md#retention): at start and
 * every hour, deletes finished webhook deliveries, events and bulk-write Idempotency-Keys past
 * the retention period, in bounded batches (store.events.prune, sql/events.ts pruneEvents:
 * never an event that a consumer has not passed or a delivery still names), with a pause between batches so
 * requests get the write lock in between. Several instances may all run it: deleting the
 * same rows twice is harmless.
 */
import type { Logger } from 'pino';
import type { EventStore, PruneCounts } from '../records/types.js';

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
  pruneNow(): Promise<PruneCounts>;
  stop(): Promise<void>;
}

export function startEventRetention({ events, retentionMs, logger, everyMs = 3_600_000, batchSize = 500 }: EventRetentionOptions): EventRetention {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<PruneCounts> | undefined;

  async function prune(): Promise<PruneCounts> {
    const before = new Date(Date.now() - retentionMs).toISOString();
    const total: PruneCounts = { events: 0, deliveries: 0, syncs: 0 };
    while (!stopped) {
      const n = await events.prune(before, batchSize);
      total.events += n.events;
      total.deliveries += n.deliveries;
      total.syncs += n.syncs;
      if (n.events < batchSize && n.deliveries < batchSize && n.syncs < batchSize) break;
      await new Promise((r) => setTimeout(r, 10)); // let requests in between batches
    }
    if (total.events + total.deliveries + total.syncs > 0) logger.info({ ...total, before }, 'pruned events, webhook deliveries and idempotency keys past their retention');
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
