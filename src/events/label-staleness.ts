/**
 * label.stale events (issue 32; docs/webhooks.md): the outbox consumer `label-staleness`
 * (consumer.ts) reads events in order; after a batch with a record change or deletion, or a
 * saved template's change or deletion (sql/templates.ts), it announces the
 * printed labels that are stale now and were not announced yet, each ONCE, in pages that
 * commit with their marks, the last page with the cursor move (sql/label-stale.ts). A label
 * is announced again only after it is reprinted and goes stale again.
 * */
import type { ConsumerLease, OutboxEvent, Store } from '../records/types.js';
import { EventConsumer, type ConsumerLog } from './consumer.js';

export const LABEL_STALENESS_CONSUMER = 'label-staleness';

/** Events after which labels may have gone stale (a rename, a move, a new description, a deleted record, an edited or deleted template). */
const CHANGES = new Set(['record.changed', 'record.deleted', 'template.changed', 'template.deleted']);

export interface LabelStalenessOptions {
  store: Pick<Store, 'events' | 'consumers'>;
  /** Wakes the webhook fan-out once events were appended. */
  wake?: () => void;
  log?: ConsumerLog;
  owner?: string;
  leaseMs?: number;
  pollMs?: number;
  /** label.stale events appended per transaction (default 500). */
  pageSize?: number;
}

export function labelStalenessConsumer(options: LabelStalenessOptions): EventConsumer {
  const { store } = options;
  const pageSize = options.pageSize ?? 500;
  return new EventConsumer({
    store,
    name: LABEL_STALENESS_CONSUMER,
    owner: options.owner,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    batchSize: 200,
    start: 'latest',
    log: options.log,
    async handle(events: OutboxEvent[], lease: ConsumerLease, leaseMs: number) {
      if (!events.some((e) => CHANGES.has(e.type))) return store.consumers.advance(lease, leaseMs);
      let announced = 0;
      for (;;) {
        const page = await store.events.announceStale(lease, leaseMs, pageSize);
        announced += page.announced;
        if (announced > 0 && page.announced > 0) options.wake?.();
        if (!page.held) return false;
        if (page.done) return true;
      }
    },
  });
}
