/**
 * Print rules at work: the outbox consumer `print-rules` (consumer.ts) reads record events
 * in order, finds the rules each fires (rule-match.ts), draws each label through the label
 * service (the rule's template; routed to the rule's printer, or by the fleet's routing rule
 * from the record's location) and stores the jobs with the consumer's cursor move in ONE
 * transaction (store.printRules.fire). Each job's idempotency key is
 * print-rule:<rule id>:<event id> under the rule's token, so a (rule, event) never has two
 * jobs: a crash before the commit stores neither the jobs nor the cursor move (the batch is
 * read again, by this instance or another); an instance that lost its lease writes nothing.
 *
 * A (rule, event) that cannot print is skipped with a warning, never retried forever: the
 * record is gone by now, the rule's template or printer was deleted, or the server has no
 * printer. Anything else (the store down) fails the step; the batch is read again later.
 */
import { ProblemError } from '../errors.js';
import type { LabelService } from '../api/label-service.js';
import type { ConsumerLease, NewPrintJob, OutboxEvent, PrintRule, Store } from '../records/types.js';
import { EventConsumer, type ConsumerLog } from './consumer.js';
import { locationChain, recordEventFacts, ruleJobKey, ruleMatches } from './rule-match.js';

export const PRINT_RULES_CONSUMER = 'print-rules';

export interface PrintRulesOptions {
  store: Pick<Store, 'events' | 'consumers' | 'printRules' | 'records'>;
  labels: Pick<LabelService, 'label' | 'preparePrint'>;
  /** Wakes the print worker once jobs were stored. */
  wakeWorker: () => void;
  log?: ConsumerLog & { info(fields: Record<string, unknown>, msg: string): void };
  owner?: string;
  leaseMs?: number;
  pollMs?: number;
  /** Events per batch (each may draw a label per matching rule): default 20. */
  batchSize?: number;
}

/** The jobs a batch of events makes, drawn and routed, not stored. */
export async function jobsFor(events: readonly OutboxEvent[], rules: readonly PrintRule[], { store, labels, log }: Pick<PrintRulesOptions, 'store' | 'labels' | 'log'>): Promise<NewPrintJob[]> {
  if (rules.length === 0) return [];
  const parents = new Map<string, string | null | undefined>();
  const parentOf = async (id: string) => {
    if (!parents.has(id)) parents.set(id, (await store.records.getLocation(id))?.parentId);
    return parents.get(id);
  };
  const jobs: NewPrintJob[] = [];
  for (const event of events) {
    const facts = recordEventFacts(event);
    if (!facts) continue;
    const chains = {
      now: await locationChain(facts.parentId, parentOf),
      before: facts.trigger === 'moved' ? await locationChain(facts.previousParentId, parentOf) : [],
    };
    for (const rule of rules) {
      // A rule acts on what happens after it was made.
      if (rule.createdAt > event.occurredAt || !ruleMatches(rule, facts, chains)) continue;
      try {
        const drawn = await labels.label({ find: { kind: facts.kind, id: facts.id }, template: rule.template });
        jobs.push(
          await labels.preparePrint({
            png: drawn.png,
            template: drawn.template,
            title: `${facts.kind} label: ${drawn.record.name}`,
            fields: { kind: facts.kind, id: facts.id },
            tokenId: rule.tokenId,
            idempotencyKey: ruleJobKey(rule.id, event.id),
            printer: rule.printer ?? undefined,
            placedBy: { kind: facts.kind, id: facts.id },
          }),
        );
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        log?.warn({ rule: rule.id, event: event.id, problem: err.problem, err: err.message }, 'print rule: this event cannot print; skipped');
      }
    }
  }
  return jobs;
}

/** The print-rules consumer of this instance (start() it; stop() gives its lease up). */
export function printRulesConsumer(options: PrintRulesOptions): EventConsumer {
  const { store, wakeWorker } = options;
  return new EventConsumer({
    store,
    name: PRINT_RULES_CONSUMER,
    owner: options.owner,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    batchSize: options.batchSize ?? 20,
    // Rules act on what happens after the first start, not on the history before them.
    start: 'latest',
    log: options.log,
    async handle(events: OutboxEvent[], lease: ConsumerLease, leaseMs: number) {
      const jobs = await jobsFor(events, await store.printRules.list(), options);
      const { advanced, created } = await store.printRules.fire(lease, leaseMs, jobs);
      if (created > 0) wakeWorker();
      if (jobs.length > 0) options.log?.info({ owner: lease.owner, events: events.length, jobs: jobs.length, created, advanced, cursor: advanced ? lease.to : lease.from }, 'print rules fired');
      return advanced;
    },
  });
}
