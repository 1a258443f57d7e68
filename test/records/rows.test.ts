import { describe, expect, it } from 'vitest';
import { LAST_USED_RESOLUTION_MS, isoTimestamp, lastUseToRecord, recordValues, toTokenInfo } from '../../src/records/rows.js';

describe('lastUseToRecord', () => {
  const now = Date.parse('2025-06-01T12:00:00.000Z');
  it('records a first use and uses older than the resolution', () => {
    expect(lastUseToRecord(null, now)).toEqual({ now: '2025-06-01T12:00:00.000Z', cutoff: '2025-06-01T11:59:00.000Z' });
    expect(lastUseToRecord(new Date(now - LAST_USED_RESOLUTION_MS - 1).toISOString(), now)).toBeDefined();
  });
  it('skips uses within the resolution', () => {
    expect(lastUseToRecord(new Date(now - LAST_USED_RESOLUTION_MS).toISOString(), now)).toBeUndefined();
    expect(lastUseToRecord(new Date(now - 1).toISOString(), now)).toBeUndefined();
  });
});

describe('recordValues', () => {
  it('keeps the last of duplicate keys and normalises timestamps', () => {
    const base = { description: '', parentId: null, assetId: null } as const;
    const rows = recordValues(
      [
        { ...base, kind: 'item', id: 'a', name: 'first' },
        { ...base, kind: 'location', id: 'a', name: 'loc' },
        { ...base, kind: 'item', id: 'a', name: 'second', updatedAt: '2024-01-01T01:00:00+01:00' },
      ],
      'NOW',
    );
    expect(rows).toEqual([
      ['location', 'a', 'loc', '', null, null, 'NOW', null],
      ['item', 'a', 'second', '', null, null, '2024-01-01T00:00:00.000Z', null],
    ]);
  });
  it('rejects unparseable timestamps', () => {
    expect(() => isoTimestamp('yesterday-ish')).toThrow(/invalid timestamp/);
  });
});

describe('toTokenInfo', () => {
  it('drops scopes this build does not know instead of failing', () => {
    const info = toTokenInfo({ id: 'abcdefgh', name: 'n', scopes: 'labels:print admin:all labels:read', created_at: 'c', last_used_at: null, revoked_at: null });
    expect(info.scopes).toEqual(['labels:read', 'labels:print']);
  });
});
