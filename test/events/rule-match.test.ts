import { describe, expect, it } from 'vitest';
import { locationChain, recordEventFacts, ruleJobKey, ruleMatches } from '../../src/events/rule-match.js';
import type { OutboxEvent } from '../../src/records/types.js';

const event = (type: string, record: object, previous?: object, id = 7): OutboxEvent =>
  ({ id, type, subject: { kind: 'item', id: 'x' }, occurredAt: '2026-01-01T00:00:00.000Z', data: previous ? { record, previous } : { record } }) as OutboxEvent;
const item = (parentId: string | null) => ({ kind: 'item', id: 'drill', name: 'Drill', parentId });
// shed > shelf > bin; garage elsewhere
const parents: Record<string, string | null> = { shed: null, shelf: 'shed', bin: 'shelf', garage: null };
const chain = (id: string | null) => locationChain(id, async (l) => parents[l]);
const rule = (over = {}) => ({ kinds: ['item' as const], triggers: ['created' as const, 'moved' as const], locationId: 'shed', ...over });

async function fires(r: ReturnType<typeof rule>, e: OutboxEvent): Promise<boolean> {
  const facts = recordEventFacts(e);
  if (!facts) return false;
  return ruleMatches(r, facts, { now: await chain(facts.parentId), before: await chain(facts.previousParentId) });
}

describe('print rule matching', () => {
  it('a record created under the location, at any depth, fires; elsewhere, at no location or the location itself does not', async () => {
    expect(await fires(rule(), event('record.created', item('shed')))).toBe(true);
    expect(await fires(rule(), event('record.created', item('bin')))).toBe(true);
    expect(await fires(rule(), event('record.created', item('garage')))).toBe(false);
    expect(await fires(rule(), event('record.created', item(null)))).toBe(false);
    expect(await fires(rule({ kinds: ['location'] }), event('record.created', { kind: 'location', id: 'shed', parentId: null }))).toBe(false);
    expect(await fires(rule({ kinds: ['location'] }), event('record.created', { kind: 'location', id: 'shelf2', parentId: 'shed' }))).toBe(true);
  });

  it('a move fires only when the parent chain comes to include the location', async () => {
    expect(await fires(rule(), event('record.changed', item('bin'), item('garage')))).toBe(true);
    expect(await fires(rule(), event('record.changed', item('bin'), item(null)))).toBe(true);
    expect(await fires(rule(), event('record.changed', item('bin'), item('shelf')))).toBe(false); // within the subtree
    expect(await fires(rule(), event('record.changed', item('garage'), item('bin')))).toBe(false); // out of it
    expect(await fires(rule(), event('record.changed', { ...item('bin'), name: 'Big drill' }, item('bin')))).toBe(false); // not moved
  });

  it('kinds and triggers select; other events fire nothing', async () => {
    expect(await fires(rule({ triggers: ['moved'] }), event('record.created', item('bin')))).toBe(false);
    expect(await fires(rule({ triggers: ['created'] }), event('record.changed', item('bin'), item('garage')))).toBe(false);
    expect(await fires(rule({ kinds: ['location'] }), event('record.created', item('bin')))).toBe(false);
    expect(await fires(rule({ kinds: ['item', 'location'] }), event('record.created', { kind: 'location', id: 'l', parentId: 'bin' }))).toBe(true);
    expect(await fires(rule(), event('record.deleted', item('bin')))).toBe(false);
    expect(recordEventFacts(event('record.created', { kind: 'item' }))).toBeUndefined();
    expect(recordEventFacts({ ...event('record.created', item('bin')), data: null })).toBeUndefined();
  });

  it('a chain ends at a cycle or a dangling parent; a job key names the rule and the event', async () => {
    expect(await locationChain('a', async (l) => ({ a: 'b', b: 'a' })[l])).toEqual(['a', 'b']);
    expect(await locationChain('bin', async (l) => (l === 'bin' ? 'gone' : undefined))).toEqual(['bin', 'gone']);
    expect(await chain('bin')).toEqual(['bin', 'shelf', 'shed']);
    expect(ruleJobKey('r1', 42)).toBe('print-rule:r1:42');
  });
});
