import { describe, expect, it } from 'vitest';
import { DEMO_LOCATIONS, demoRecords } from '../../src/records/demo.js';
import { importRecords } from '../../src/records/import/import.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('demoRecords', () => {
  const demo = demoRecords();

  it('is deterministic, with unique UUID ids', () => {
    expect(demoRecords()).toEqual(demo);
    for (const r of demo) expect(r.id).toMatch(UUID);
    expect(new Set(demo.map((r) => r.id)).size).toBe(demo.length);
  });

  it('numbers items 1..N and places them in demo locations', () => {
    const items = demo.filter((r) => r.kind === 'item');
    expect(items.map((r) => r.assetId)).toEqual(items.map((_, i) => i + 1));
    const locations = new Set(demo.filter((r) => r.kind === 'location').map((r) => r.id));
    for (const r of demo) if (r.parentId !== null) expect(locations.has(r.parentId)).toBe(true);
  });

  it.each([
    ['Greek', /\p{Script=Greek}/u],
    ['Cyrillic', /\p{Script=Cyrillic}/u],
    ['Arabic', /^\p{Script=Arabic}[\p{Script=Arabic} ]*$/u],
    ['Persian (ZWNJ)', /\p{Script=Arabic}\u200C\p{Script=Arabic}/u],
    ['Hebrew', /\p{Script=Hebrew}/u],
    ['Chinese', /^\p{Script=Han}+$/u],
    ['Japanese', /\p{Script=Katakana}/u],
    ['Korean', /\p{Script=Hangul}/u],
  ])('has a %s name', (_, script) => {
    expect(demo.some((r) => script.test(r.name))).toBe(true);
  });

  it('has one very long name that is still valid', () => {
    const longest = Math.max(...demo.map((r) => [...r.name].length));
    expect(longest).toBeGreaterThan(150);
    expect(longest).toBeLessThanOrEqual(200);
  });

  it('passes import validation and imports with its paths intact', async () => {
    const store = openSqliteStore(':memory:');
    try {
      expect(await importRecords(store, JSON.stringify({ records: demo }), 'json')).toMatchObject({ imported: demo.length, errors: [] });
      for (const r of demo) {
        const stored = r.kind === 'item' ? await store.records.getItem(r.id) : await store.records.getLocation(r.id);
        expect({ ...stored, updatedAt: undefined }).toEqual({ ...r, updatedAt: undefined });
      }
      expect(await store.records.locationPath(DEMO_LOCATIONS.pantry)).toEqual(['Home', 'Kitchen', 'Pantry']);
      expect((await store.records.getItemByAssetId(8))?.name).toBe('پیچ‌گوشتی');
    } finally {
      await store.close();
    }
  });
});
