/**
 * Which print rules an outbox event fires (pure: the location chains are read by the caller).
 *
 *   created under L: a record.created of a record of the rule's kinds whose location chain
 *                    (its parent, that parent's parent, ... ; never the record itself)
 *                    includes L: L's direct children and everything deeper.
 *   moved under L:   a record.changed whose parentId changed, where the new chain includes L
 *                    and the previous one did not (a move within L's subtree is not a move
 *                    "under L"; a move out of it neither).
 *
 * Other events (record.deleted, a change that kept the parent, other kinds of subject) fire nothing.
 */
import type { OutboxEvent, PrintRule, PrintRuleTrigger } from '../records/types.js';

/** What a record event says, as far as rules care. */
export interface RecordEventFacts {
  trigger: PrintRuleTrigger;
  kind: 'item' | 'location';
  id: string;
  /** The record's parent now (as the event carries it). */
  parentId: string | null;
  /** For a move: the parent before. */
  previousParentId: string | null;
}

interface EventRecord {
  kind?: unknown;
  id?: unknown;
  parentId?: unknown;
}

const parentOf = (r: EventRecord): string | null => (typeof r.parentId === 'string' ? r.parentId : null);

/** The facts of a record.created or a moving record.changed; undefined for any other event. */
export function recordEventFacts(event: OutboxEvent): RecordEventFacts | undefined {
  if (event.type !== 'record.created' && event.type !== 'record.changed') return undefined;
  const data = (event.data ?? {}) as { record?: EventRecord; previous?: EventRecord };
  const record = data.record;
  if (!record || (record.kind !== 'item' && record.kind !== 'location') || typeof record.id !== 'string') return undefined;
  const parentId = parentOf(record);
  if (event.type === 'record.created') return { trigger: 'created', kind: record.kind, id: record.id, parentId, previousParentId: null };
  if (!data.previous) return undefined;
  const previousParentId = parentOf(data.previous);
  if (previousParentId === parentId) return undefined;
  return { trigger: 'moved', kind: record.kind, id: record.id, parentId, previousParentId };
}

/** Location chains (nearest first) of the parents an event names: `now` from parentId, `before` from previousParentId. */
export interface EventChains {
  now: readonly string[];
  before: readonly string[];
}

export function ruleMatches(rule: Pick<PrintRule, 'kinds' | 'triggers' | 'locationId'>, facts: RecordEventFacts, chains: EventChains): boolean {
  if (!rule.kinds.includes(facts.kind) || !rule.triggers.includes(facts.trigger)) return false;
  if (!chains.now.includes(rule.locationId)) return false;
  return facts.trigger === 'created' || !chains.before.includes(rule.locationId);
}

/** The locations from `parentId` up (nearest first), through `parentOf`; a cycle, a dangling parent or 64 levels end it. */
export async function locationChain(parentId: string | null, parentOfLocation: (id: string) => Promise<string | null | undefined>): Promise<string[]> {
  const chain: string[] = [];
  let next = parentId;
  while (next !== null && !chain.includes(next) && chain.length < 64) {
    chain.push(next);
    next = (await parentOfLocation(next)) ?? null;
  }
  return chain;
}

/** The idempotency key of a rule's job for an event: one job per (rule, event). */
export function ruleJobKey(ruleId: string, eventId: number): string {
  return `print-rule:${ruleId}:${eventId}`;
}
