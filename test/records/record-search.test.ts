/**
 * Record search (the store side of listRecords) on both stores, with the same data
 * and the same expectations, and the two stores' pages compared with each other:
 * a client paging through either sees the same records in the same order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/records/postgres/store.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { FoundRecord, RecordInput, RecordQuery, Store } from '../../src/records/types.js';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from './pg-test-db.js';

const loc = (id: string, name: string, parentId: string | null = null): RecordInput => ({ kind: 'location', id, name, description: '', parentId, assetId: null });
const item = (id: string, name: string, parentId: string | null, assetId: number | null = null): RecordInput => ({ kind: 'item', id, name, description: `about ${name}`, parentId, assetId });

const DATA: RecordInput[] = [
  loc('home', 'Home'),
  loc('garage', 'Garage', 'home'),
  loc('shelf-3', 'Shelf 3', 'garage'),
  loc('bin-12', 'Bin 12', 'shelf-3'),
  loc('office', 'office', 'home'),
  loc('workshop', 'Workshop'),
  // A parent cycle: the walk below must end.
  loc('loop-a', 'Loop A', 'loop-b'),
  loc('loop-b', 'Loop B', 'loop-a'),
  item('drill', 'Cordless Drill', 'bin-12', 1),
  item('drill-2', 'Дрель', 'shelf-3', 2),
  item('screwdriver', 'Κατσαβίδι', 'bin-12', 3),
  item('tape', 'tape measure', 'garage', 40),
  item('saw', 'Saw', 'workshop', 7),
  item('loose', 'Unplaced thing', null, null),
  item('printer', 'Label printer', 'office', 1000),
  item('in-loop', 'Lost in a loop', 'loop-a', null),
];

const ids = (records: FoundRecord[]) => records.map((r) => r.id);

async function all(store: Store, query: Omit<RecordQuery, 'limit' | 'after'>, limit = 2): Promise<FoundRecord[]> {
  const out: FoundRecord[] = [];
  let after: RecordQuery['after'];
  for (let page = 0; page < 100; page++) {
    const res = await store.search.find({ ...query, limit, after });
    expect(res.records.length).toBeLessThanOrEqual(limit);
    out.push(...res.records);
    if (!res.next) return out;
    after = res.next;
  }
  throw new Error('more than 100 pages');
}

function searchContract(name: string, open: () => Promise<{ store: Store; destroy(): Promise<void> }>) {
  describe(name, () => {
    let store: Store;
    let destroy: () => Promise<void>;
    beforeAll(async () => {
      ({ store, destroy } = await open());
      await store.records.upsertMany(DATA);
    });
    afterAll(async () => {
      await destroy?.();
    });

    it('lists everything in code-point order of name, then kind and id, page by page without gaps or repeats', async () => {
      const records = await all(store, {}, 3);
      expect(records.length).toBe(DATA.length);
      expect(new Set(ids(records)).size).toBe(DATA.length);
      const names = records.map((r) => r.name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      // Upper-case sorts before lower-case in code-point order: 'Workshop' < 'office'.
      expect(names.indexOf('Workshop')).toBeLessThan(names.indexOf('office'));
    });

    it('finds names containing the text, ignoring case, in any script', async () => {
      expect(ids(await all(store, { text: 'drill' }))).toEqual(['drill']);
      expect(ids(await all(store, { text: 'ДРЕЛЬ' }))).toEqual(['drill-2']);
      expect(ids(await all(store, { text: 'κατσ' }))).toEqual(['screwdriver']);
      expect(ids(await all(store, { text: 'SHELF' }))).toEqual(['shelf-3']);
      expect(ids(await all(store, { text: '%' }))).toEqual([]); // no LIKE wildcards
      expect(ids(await all(store, { text: '_' }))).toEqual([]);
    });

    it('filters by kind; assets are items with an asset id, in asset-id order', async () => {
      expect((await all(store, { kind: 'location' })).every((r) => r.kind === 'location')).toBe(true);
      expect((await all(store, { kind: 'location' })).length).toBe(8);
      expect((await all(store, { kind: 'item' })).length).toBe(8);
      const assets = await all(store, { kind: 'asset' });
      expect(assets.map((r) => r.assetId)).toEqual([1, 2, 3, 7, 40, 1000]);
    });

    it('selects asset-id ranges (inclusive) across pages', async () => {
      expect((await all(store, { assetIdFrom: 2, assetIdTo: 40 })).map((r) => r.assetId)).toEqual([2, 3, 7, 40]);
      expect((await all(store, { assetIdFrom: 41 })).map((r) => r.assetId)).toEqual([1000]);
      expect((await all(store, { assetIdFrom: 3, assetIdTo: 3 })).map((r) => r.id)).toEqual(['screwdriver']);
    });

    it('lists the records directly inside a location, or everything below it', async () => {
      expect(ids(await all(store, { parentId: 'garage' })).sort()).toEqual(['shelf-3', 'tape']);
      expect(ids(await all(store, { parentId: 'garage', descendants: true })).sort()).toEqual(['bin-12', 'drill', 'drill-2', 'screwdriver', 'shelf-3', 'tape']);
      expect(ids(await all(store, { parentId: 'bin-12', kind: 'item', descendants: true })).sort()).toEqual(['drill', 'screwdriver']);
      expect(ids(await all(store, { parentId: 'nowhere', descendants: true }))).toEqual([]);
    });

    it('ends the walk below a location that sits in a parent cycle', async () => {
      expect(ids(await all(store, { parentId: 'loop-a', descendants: true })).sort()).toEqual(['in-loop', 'loop-b']);
    });

    it('lists top-level records: the root of the location tree and unplaced items', async () => {
      expect(ids(await all(store, { topLevel: true })).sort()).toEqual(['home', 'loose', 'workshop']);
    });

    it('gives each record its location path (names and ids) and, for locations, how many records are inside', async () => {
      const [drill] = await all(store, { text: 'cordless' });
      expect(drill).toMatchObject({ kind: 'item', path: ['Home', 'Garage', 'Shelf 3', 'Bin 12'], pathIds: ['home', 'garage', 'shelf-3', 'bin-12'], childCount: 0, assetId: 1, parentId: 'bin-12' });
      const [shelf] = await all(store, { text: 'shelf 3' });
      expect(shelf).toMatchObject({ kind: 'location', path: ['Home', 'Garage'], pathIds: ['home', 'garage'], childCount: 2 });
      const [home] = await all(store, { text: 'home' });
      expect(home).toMatchObject({ path: [], pathIds: [], childCount: 2 });
      // A parent cycle: the walk goes round once, names and ids in step.
      const [lost] = await all(store, { text: 'lost in a loop' });
      expect(lost!.pathIds).toHaveLength(lost!.path.length);
      expect(lost!.path.map((name) => name.replace('Loop ', 'loop-').toLowerCase())).toEqual(lost!.pathIds);
    });

    it('combines filters with AND', async () => {
      expect(ids(await all(store, { parentId: 'home', descendants: true, text: 'r', kind: 'item' })).sort()).toEqual(['drill', 'printer', 'tape']);
    });
  });
}

const sqliteDirs: string[] = [];
searchContract('SQLite record search', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-search-'));
  sqliteDirs.push(dir);
  const store = openSqliteStore(join(dir, 'labelmaker.db'));
  return {
    store,
    destroy: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const unreachable = await postgresReachable();
if (unreachable === undefined) {
  searchContract('PostgreSQL record search', async () => {
    const schema: TestSchema = await createTestSchema();
    const store = await openPostgresStore(schema.url);
    return {
      store,
      destroy: async () => {
        await store.close();
        await schema.drop();
      },
    };
  });

  describe('both stores page alike', () => {
    it('return the same pages, record for record, for the same queries', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lm-search-'));
      const schema = await createTestSchema();
      const sqlite = openSqliteStore(join(dir, 'labelmaker.db'));
      const postgres = await openPostgresStore(schema.url);
      try {
        const stamped = DATA.map((r) => ({ ...r, updatedAt: '2026-11-21T10:15:30.123Z' }));
        await sqlite.records.upsertMany(stamped);
        await postgres.records.upsertMany(stamped);
        for (const query of [{}, { kind: 'asset' as const }, { text: 'o' }, { parentId: 'home', descendants: true }, { topLevel: true }]) {
          for (const limit of [1, 3, 50]) {
            let after: RecordQuery['after'];
            do {
              const [a, b] = await Promise.all([sqlite.search.find({ ...query, limit, after }), postgres.search.find({ ...query, limit, after })]);
              expect(b).toEqual(a);
              after = a.next;
            } while (after);
          }
        }
      } finally {
        await sqlite.close();
        await postgres.close();
        await schema.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
} else if (IN_CI) {
  it('PostgreSQL must be reachable in CI', () => {
    throw new Error(`PostgreSQL record search tests cannot run: ${PG_TEST_URL_SAFE} unreachable (${unreachable}). CI must not skip them.`);
  });
} else {
  console.warn(`\n!! SKIPPING PostgreSQL record search tests: ${PG_TEST_URL_SAFE} is unreachable (${unreachable}). In CI this fails instead.\n`);
  describe.skip('PostgreSQL record search (PostgreSQL unreachable)', () => {
    it('record search', () => {});
  });
}
