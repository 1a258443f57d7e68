/**
 * label.stale events (issue 32; docs/webhooks.md): the outbox consumer `label-staleness`
 * (consumer.ts) reads events in order; after a batch with a record change or deletion, or a
 * saved template's change or deletion (sql/templates.ts), it settles the printed labels that
 * are stale by revision (sql/label-state.ts, a cheap superset) and were not announced yet,
 * in pages (sql/label-stale.ts): each label whose record would now get a label that looks the
 * same (`fingerprintNow`, the fingerprint printing remembered: labels/fingerprint.ts) leaves
 * the stale set unannounced; each that would look different, or whose record or template is
 * gone, is announced ONCE. A page's writes commit with its events, the last page's with the
 * cursor move. A label is announced again only after it is reprinted and goes stale again.
 */
import type { ConsumerLease, OutboxEvent, RecordKind, StaleVerdicts, Store } from '../records/types.js';
import { EventConsumer, type ConsumerLog } from './consumer.js';

export const LABEL_STALENESS_CONSUMER = 'label-staleness';

/** Events after which labels may have gone stale (a rename, a move, a new description, a deleted record, an edited or deleted template). */
const CHANGES = new Set(['record.changed', 'record.deleted', 'template.changed', 'template.deleted']);

/**
 * What a printed label would show if printed now, with the template of its name as it is now,
 * and that template's version; undefined when its record or template is gone (the label
 * service's fingerprintNow, injected so this module needs no HTTP layer).
 */
export type FingerprintNow = (printed: { kind: RecordKind; id: string; template: string; fingerprint: string }) => Promise<{ fingerprint: string; templateVersion: string } | undefined>;

export interface LabelStalenessOptions {
  store: Pick<Store, 'events' | 'consumers'> & { records: Pick<Store['records'], 'revision'> };
  fingerprintNow: FingerprintNow;
  /** Wakes the webhook fan-out once events were appended. */
  wake?: () => void;
  log?: ConsumerLog;
  owner?: string;
  leaseMs?: number;
  pollMs?: number;
  /** Stale labels settled per transaction (default 500). */
  pageSize?: number;
}

export function labelStalenessConsumer(options: LabelStalenessOptions): EventConsumer {
  const { store, fingerprintNow } = options;
  const pageSize = Math.max(1, Math.min(1000, Math.trunc(options.pageSize ?? 500)));

  /** Which of a page's labels would look the same now, and which not. */
  const judge = async (page: Awaited<ReturnType<Store['events']['unannouncedStale']>>): Promise<StaleVerdicts> => {
    // Read before the records (as printing reads it): every change up to it is in what fingerprintNow reads.
    const revision = await store.records.revision();
    const verdicts: StaleVerdicts = { current: [], stale: [] };
    for (const label of page) {
      const now = label.reasons.includes('recordDeleted') ? undefined : await fingerprintNow({ kind: label.kind, id: label.id, template: label.template, fingerprint: label.fingerprint });
      if (now?.fingerprint === label.fingerprint) verdicts.current.push({ kind: label.kind, id: label.id, jobId: label.jobId, revision, templateVersion: now.templateVersion });
      else verdicts.stale.push(label);
    }
    return verdicts;
  };

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
      for (;;) {
        const page = await store.events.unannouncedStale(pageSize);
        // Fewer than a page: every label this batch's changes made stale is in it (they committed before it was read).
        const done = page.length < pageSize;
        const settled = await store.events.settleStale(lease, leaseMs, await judge(page), done);
        if (settled.announced > 0) options.wake?.();
        if (!settled.held) return false;
        if (done) return true;
      }
    },
  });
}
