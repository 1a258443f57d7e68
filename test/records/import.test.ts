/**
 * Import against real databases: every behaviour runs on a SQLite file and on the
 * PostgreSQL server (its own schema), since the set-wise checks and the write are SQL
 * that each dialect runs its own way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importRecords, MAX_LISTED, type ImportFormat } from '../../src/records/import/import.js';
import type { ImportSession } from '../../src/records/types.js';
import { openPostgresStore } from '../../src/records/postgres/store.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { RecordInput, Store } from '../../src/records/types.js';
import pg from 'pg';
import { IN_CI, PG_TEST_URL, PG_TEST_URL_SAFE, createTestSchema, postgresReachable } from './pg-test-db.js';

const HEADER = 'kind,id,name,description,parent_id,asset_id';
const csv = (...lines: string[]) => [HEADER, ...lines].join('\r\n');
const loc = (id: string, parentId: string | null = null): RecordInput => ({ kind: 'location', id, name: id.toUpperCase(), description: '', parentId, assetId: null });
const item = (id: string, assetId: number | null, parentId: string | null = null): RecordInput => ({ kind: 'item', id, name: id.toUpperCase(), description: '', parentId, assetId });

interface Harness {
  store: Store;
  /** PostgreSQL: the test schema. */
  schema?: string;
  /** A second store on the same database (another process would do the same). */
  another(): Promise<Store>;
  destroy(): Promise<void>;
}

async function sqliteHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-import-'));
  const path = join(dir, 'labelmaker.db');
  const opened = [openSqliteStore(path)];
  return {
    store: opened[0]!,
    another: async () => {
      opened.push(openSqliteStore(path));
      return opened.at(-1)!;
    },
    destroy: async () => {
      for (const s of opened) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresHarness(): Promise<Harness> {
  const schema = await createTestSchema();
  const opened = [await openPostgresStore(schema.url)];
  return {
    store: opened[0]!,
    schema: schema.name,
    another: async () => {
      opened.push(await openPostgresStore(schema.url));
      return opened.at(-1)!;
    },
    destroy: async () => {
      for (const s of opened) await s.close();
      await schema.drop();
    },
  };
}

/** Counts the SQL statements an import runs (staging batches aside). */
function countingStatements(store: Store): { store: Store; count: () => number } {
  let statements = 0;
  const counted: Store = {
    ...store,
    imports: {
      begin: async (options) => {
        const session = await store.imports.begin(options);
        const wrapped: ImportSession = {
          ...session,
          run: (sql, params) => {
            statements++;
            return session.run(sql, params);
          },
          all: (sql, params) => {
            statements++;
            return session.all(sql, params);
          },
        };
        return wrapped;
      },
    },
  };
  return { store: counted, count: () => statements };
}

function importContract(name: string, factory: () => Promise<Harness>): void {
  describe(`import into ${name}`, () => {
    let h: Harness;
    let store: Store;
    const run = (text: string, format: ImportFormat = 'csv') => importRecords(store, text, format);
    beforeEach(async () => {
      h = await factory();
      store = h.store;
    });
    afterEach(async () => {
      await h.destroy();
    });

    it('imports everything, children before parents; a re-import writes only what changed', async () => {
      const file = csv('item,i,Item,,shelf,000-009', 'location,shelf,Shelf,,room,', 'location,room,Room,,,');
      expect(await run(file)).toMatchObject({ imported: 3, written: 3, errors: [], problemCount: 0 });
      expect(await store.records.locationPath('shelf')).toEqual(['Room', 'Shelf']);
      expect((await store.records.getItemByAssetId(9))?.id).toBe('i');
      const before = await store.records.getItem('i');

      expect(await run(file)).toMatchObject({ imported: 3, written: 0 });
      expect(await store.records.getItem('i')).toEqual(before); // updated_at untouched
      expect(await run(csv('item,i,Item renamed,,shelf,000-009', 'location,shelf,Shelf,,room,'))).toMatchObject({ imported: 2, written: 1 });
      expect((await store.records.getItem('i'))?.name).toBe('Item renamed');
    });

    it('accepts parents already in the database and rejects unknown ones', async () => {
      await store.records.upsertMany([loc('known'), item('not-a-location', null)]);
      const result = await run(csv('item,a,A,,known,', 'item,b,B,,ghost,', 'item,c,C,,ghost,', 'item,d,D,,not-a-location,'));
      expect(result).toMatchObject({ imported: 0, problemCount: 3 });
      expect(result.errors).toEqual([
        "row 3: parent_id 'ghost' is not a location in the file or the database",
        "row 4: parent_id 'ghost' is not a location in the file or the database",
        "row 5: parent_id 'not-a-location' is not a location in the file or the database",
      ]);
      expect(await store.records.getItem('a')).toBeUndefined();
    });

    it('writes nothing when any row is bad, wherever it is', async () => {
      const rows = Array.from({ length: 3000 }, (_, i) => `item,i${i},Item ${i},,,${i + 1}`);
      rows[2999] = 'item,last,Last,,,-4';
      const result = await run(csv(...rows));
      expect(result).toMatchObject({ imported: 0, problemCount: 1 });
      expect(result.errors).toEqual(["row 3001: asset_id '-4' must be a positive integer up to 999-999-999-999 or 000-001 form"]);
      expect(await store.records.count()).toBe(0);
    });

    it('rejects asset ids that items in the database keep; lets items swap and hand them on', async () => {
      await store.records.upsertMany([item('owner', 5), item('a', 1), item('b', 2), item('old', 3)]);
      expect(await run(csv('item,owner,Owner renamed,,,000-005'))).toMatchObject({ imported: 1, errors: [] });
      expect((await run(csv('item,other,Other,,,5'))).errors).toEqual(["row 2: asset_id 000-005 already belongs to item 'owner' in the database"]);
      // a and b swap their asset ids; 'old' gives 3 to a new item and takes none itself.
      expect(await run(csv('item,a,A,,,2', 'item,b,B,,,1', 'item,new,New,,,3', 'item,old,Old,,,'))).toMatchObject({ imported: 4, errors: [] });
      expect([await store.records.getItemByAssetId(1), await store.records.getItemByAssetId(2), await store.records.getItemByAssetId(3)].map((r) => r?.id)).toEqual(['b', 'a', 'new']);
      expect((await store.records.getItem('old'))?.assetId).toBeNull();
    });

    it('rejects parent cycles that run through locations already in the database', async () => {
      // In the database: top > mid > low. The file hangs top under low: a cycle of three,
      // only one of them in the file.
      await store.records.upsertMany([loc('top'), loc('mid', 'top'), loc('low', 'mid')]);
      const result = await run(csv('location,top,Top,,low,', 'location,under,Under,,top,', 'location,a,A,,b,', 'location,b,B,,a,'));
      expect(result.errors).toEqual([
        "row 2: location 'top' is its own ancestor (parent_id cycle: top → low (in the database) → mid (in the database) → top)",
        "row 3: location 'under' hangs under a parent_id cycle (through 'top')",
        "row 4: location 'a' is its own ancestor (parent_id cycle: a → b → a)",
        "row 5: location 'b' is its own ancestor (parent_id cycle: b → a → b)",
      ]);
      expect((await store.records.getLocation('top'))?.parentId).toBeNull();
      // Moving a location under a sibling is no cycle.
      expect(await run(csv('location,low,Low,,top,', 'location,mid,Mid,,low,'))).toMatchObject({ imported: 2, errors: [] });
      expect(await store.records.locationPath('mid')).toEqual(['TOP', 'Low', 'Mid']);
    });

    it('rejects locations nested deeper than 32 levels, counting their ancestors in the database', async () => {
      const chain = Array.from({ length: 20 }, (_, i) => loc(`d${i}`, i === 0 ? null : `d${i - 1}`));
      await store.records.upsertMany(chain);
      const rows = Array.from({ length: 13 }, (_, i) => `location,f${i},F${i},,${i === 0 ? 'd19' : `f${i - 1}`},`);
      const deep = await run(csv(...rows));
      expect(deep.errors).toEqual(["row 14: location 'f12' is nested more than 32 levels deep"]);
      expect(await run(csv(...rows.slice(0, 12)))).toMatchObject({ imported: 12, errors: [] }); // 32 levels exactly
      expect(await store.records.locationPath('f11')).toHaveLength(32);
    });

    it('lets a location and an item share an id, and rejects duplicates within a kind', async () => {
      expect(await run(csv('location,x,X place,,,', 'item,x,X thing,,x,'))).toMatchObject({ imported: 2, errors: [] });
      expect((await run(csv('item,y,Y,,,7', 'location,z,Z,,,', 'item,y,Y again,,,8', 'location,z,Z again,,,'))).errors).toEqual([
        "row 4: duplicate item id 'y' (also row 2)",
        "row 5: duplicate location id 'z' (also row 3)",
      ]);
    });

    it('rejects hostile text with its row number, and never stores it', async () => {
      const json = JSON.stringify([
        { kind: 'item', id: 'nul', name: 'A\u0000B' },
        { kind: 'item', id: 'esc', name: 'Red \u001b[31m alert' },
        { kind: 'item', id: 'half', name: 'Broken \ud83d pair' },
        { kind: 'item', id: 'blank', name: '\u200b\u200d\u2800' },
        { kind: 'item', id: 'long', name: 'ok', description: 'd'.repeat(1001) },
        { kind: 'item', id: 'evil\u001b]0;x\u0007', name: 'Bad id' },
        { kind: 'location\u001b[2J', id: 'k', name: 'Bad kind' },
        { kind: 'item', id: 'fine', name: 'Fine', description: 'two\nlines\tand a tab' },
      ]);
      const result = await run(json, 'json');
      expect(result.errors).toEqual([
        "row 1: name contains U+0000, a control character: 'A\\u{0}B'",
        "row 2: name contains U+001B, a control character: 'Red \\u{1b}[31m alert'",
        "row 3: name contains U+D83D, a lone surrogate (half of a character): 'Broken \\u{d83d} pair'",
        "row 4: name has no visible character: '\\u{200b}\\u{200d}\u2800'",
        'row 5: description is longer than 1000 characters (1001)',
        "row 6: id 'evil\\u{1b}]0;x\\u{7}' must be 1-64 characters of A-Z a-z 0-9 . _ ~ -",
        "row 7: unknown kind 'location\\u{1b}[2J' (expected location or item)",
      ]);
      expect(result.errors.join('\n')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(await store.records.count()).toBe(0);
    });

    it('lists the first problems by row and counts the rest', async () => {
      const rows = Array.from({ length: 5000 }, (_, i) => `item,i${i},,,,`);
      const result = await run(csv(...rows));
      expect(result.problemCount).toBe(5000);
      expect(result.errors).toHaveLength(MAX_LISTED);
      expect(result.errors[0]).toBe('row 2: name is required');
      expect(result.errors.at(-1)).toBe(`row ${MAX_LISTED + 1}: name is required`);
    });

    it('runs as many statements for 5,000 rows as for 100: checks and write are set-wise', async () => {
      const file = (n: number) => csv(...Array.from({ length: n }, (_, i) => (i % 10 === 0 ? `location,l${i},L,,${i ? 'l0' : ''},` : `item,i${i},Item,,l${i - (i % 10)},${i}`)));
      const small = countingStatements(store);
      expect(await importRecords(small.store, file(100), 'csv')).toMatchObject({ imported: 100, errors: [] });
      const large = countingStatements(await h.another());
      expect(await importRecords(large.store, file(5000), 'csv')).toMatchObject({ imported: 5000, errors: [] });
      expect(large.count()).toBe(small.count());
    });

    it('serializes concurrent imports: of two claiming one asset id, one lands and the other says why', async () => {
      const other = await h.another();
      const [a, b] = await Promise.all([importRecords(store, csv('item,a,A,,,7'), 'csv'), importRecords(other, csv('item,b,B,,,7'), 'csv')]);
      const landed = [a, b].filter((r) => r.imported === 1);
      const refused = [a, b].filter((r) => r.imported === 0);
      expect(landed).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.errors[0]).toMatch(/^row 2: asset_id 000-007 already belongs to item '[ab]' in the database$/);
      expect(await store.records.count()).toBe(1);
    });

    it('stops cleanly on a broken file and imports the next one', async () => {
      expect((await run(`${HEADER}\nitem,a,A,,,\n"open`)).errors).toEqual(['row 3: unterminated quoted field; nothing after it was read']);
      expect((await run('[{"kind":"item","id":"a","name":"A"},', 'json')).errors[0]).toMatch(/^row 2: invalid JSON/);
      expect(await run(csv('item,a,A,,,'))).toMatchObject({ imported: 1, errors: [] });
      expect(await store.records.count()).toBe(1);
    });
  });
}

importContract('SQLite (file)', sqliteHarness);

const unreachable = await postgresReachable();
if (unreachable === undefined) {
  importContract('PostgreSQL', postgresHarness);

  describe('import into PostgreSQL: the bulk path under trouble', () => {
    let h: Harness;
    beforeEach(async () => {
      h = await postgresHarness();
    });
    afterEach(async () => {
      await h.destroy();
    });

    /** A file arriving slowly: `rows` rows, `pauseMs` after the first half (a slow pipe, a slow disk). */
    async function* trickle(rows: number, pauseMs: number, midway: () => Promise<void> = async () => {}): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`${HEADER}\n`);
      for (let i = 0; i < rows; i++) {
        yield Buffer.from(`item,i${i},Item ${i},,,${i + 1}\n`);
        if (i === Math.floor(rows / 2)) {
          await midway();
          await new Promise((r) => setTimeout(r, pauseMs));
        }
      }
    }

    it('keeps streaming a file for longer than the pool statement time-out (15 s)', async () => {
      const result = await importRecords(h.store, trickle(2000, 16_000), 'csv');
      expect(result).toMatchObject({ imported: 2000, errors: [] });
      expect(await h.store.records.count()).toBe(2000);
    }, 60_000);

    it('fails at once and writes nothing when the connection is lost mid-import; the store works on', async () => {
      const admin = new pg.Client({ connectionString: PG_TEST_URL });
      await admin.connect();
      // The import's backend holds its schema's import lock (an advisory lock on hashtext of the key).
      const kill = async () => {
        const { rows } = await admin.query(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objid = (hashtext('labelmaker:import:' || $1)::bigint & 4294967295)::oid`,
          [h.schema],
        );
        expect(rows).toHaveLength(1);
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      };
      try {
        const started = Date.now();
        await expect(importRecords(h.store, trickle(5000, 200, kill), 'csv')).rejects.toThrow(/terminat|Connection/i);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(await h.store.records.count()).toBe(0);
        expect(await importRecords(h.store, csv('item,a,A,,,'), 'csv')).toMatchObject({ imported: 1, errors: [] });
      } finally {
        await admin.end();
      }
    });
  });
} else if (IN_CI) {
  it('PostgreSQL must be reachable in CI', () => {
    throw new Error(`PostgreSQL import tests cannot run: ${PG_TEST_URL_SAFE} unreachable (${unreachable}). CI must not skip them.`);
  });
} else {
  console.warn(`\n!! SKIPPING PostgreSQL import tests: ${PG_TEST_URL_SAFE} is unreachable (${unreachable}). In CI this fails instead.\n`);
  describe.skip('import into PostgreSQL (unreachable)', () => {
    it('import contract', () => {});
  });
}

describe('import into SQLite: query plans', () => {
  it('never walks the whole records table: a small file into a large database costs what the file costs', async () => {
    const h = await sqliteHarness();
    try {
      const big = Array.from({ length: 3000 }, (_, i) => (i % 30 === 0 ? loc(`l${i}`) : item(`i${i}`, i + 1, `l${i - (i % 30)}`)));
      await h.store.records.upsertMany(big);
      const plans: { sql: string; plan: string }[] = [];
      const session = h.store.imports;
      const explaining: Store = {
        ...h.store,
        imports: {
          begin: async (options) => {
            const s = await session.begin(options);
            const explain = async (sql: string, params?: readonly unknown[]) => {
              if (!/^\s*(SELECT|INSERT|UPDATE|WITH)/i.test(sql) || /records_revision/.test(sql)) return;
              const rows = await s.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
              plans.push(...rows.map((r) => ({ sql, plan: r.detail })));
            };
            return { ...s, run: async (sql, params) => (await explain(sql, params), s.run(sql, params)), all: async <T>(sql: string, params?: readonly unknown[]) => (await explain(sql, params), s.all<T>(sql, params)) };
          },
        },
      };
      const file = csv('location,new-shelf,Shelf,,l30,', 'item,n1,N1,,new-shelf,9001', 'item,i31,Moved,,new-shelf,32', 'item,n2,N2,,l60,');
      expect(await importRecords(explaining, file, 'csv')).toMatchObject({ imported: 4, errors: [] });
      const onRecords = plans.filter((p) => /\b(records|sqlite_autoindex_records_\d)\b/.test(p.plan));
      expect(onRecords.length).toBeGreaterThan(0);
      // Every use of the records table is a lookup by key (kind and id; or the asset id, where
      // the statement joins on a non-null one), never a scan, a range over one kind, or a
      // lookup of NULLs through the asset_id or parent_id index.
      for (const { sql, plan } of onRecords) {
        const byAsset = /h\.asset_id = r\.asset_id/.test(sql) ? '|asset_id=\\?' : '';
        expect(plan, `${plan}\n${sql}`).toMatch(new RegExp(`^SEARCH \\w+ (EXISTS )?USING (COVERING )?INDEX sqlite_autoindex_records_\\d \\((kind=\\? AND id=\\?${byAsset})\\)( LEFT-JOIN)?$`));
      }
    } finally {
      await h.destroy();
    }
  });
});

describe('row rules (CSV and JSON)', () => {
  let store: Store;
  beforeEach(() => {
    store = openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });
  const errors = async (text: string, format: ImportFormat = 'csv') => (await importRecords(store, text, format)).errors;

  it('reads quoting and BOMs, and every asset id form', async () => {
    const text = '\uFEFF' + csv('location,garage,Garage,,,', 'item,drill,"Drill, ""18 V""","line one\nline two",garage,000-007', 'item,b,B,,,000002', 'item,c,C,,,3', 'item,d,D,,,001-234-567');
    expect(await importRecords(store, text, 'csv')).toMatchObject({ imported: 5, errors: [] });
    expect(await store.records.getItem('drill')).toMatchObject({ name: 'Drill, "18 V"', description: 'line one\nline two', parentId: 'garage', assetId: 7 });
    expect((await store.records.getItemByAssetId(1_234_567))?.id).toBe('d');
    expect(await importRecords(store, 'Name,ID,Kind\nHome,home,location\n', 'csv')).toMatchObject({ imported: 1, errors: [] });
  });

  it('reports every bad row with its spreadsheet row number', async () => {
    expect(
      await errors(
        csv(
          'location,home,Home,,,', //                         row 2: fine
          'item,ok,Fine item,,home,1', //                    row 3: fine
          'item,bad-asset,Widget,,home,12a', //               row 4
          'item,no-name,  ,,home,', //                        row 5
          'location,has-asset,Shelf,,home,5', //              row 6
          'bin,b1,Bin,,,', //                                 row 7
          'item,has space,Thing,,,', //                       row 8
          `item,long,${'x'.repeat(201)},,,`, //               row 9
          'item,ok,Duplicate id,,,', //                       row 10
          'item,dup-asset,Same asset,,,000-001', //           row 11
          'item,too-few,fields', //                           row 12
          'location,self,Self,,self,', //                     row 13
          'item,"two\nlines",X,,,', //                        row 14: one row, however many lines
          'item,p,P,,bad parent,', //                         row 15
        ),
      ),
    ).toEqual([
      "row 4: asset_id '12a' must be a positive integer up to 999-999-999-999 or 000-001 form",
      'row 5: name is required',
      'row 6: asset_id is only allowed on items',
      "row 7: unknown kind 'bin' (expected location or item)",
      "row 8: id 'has space' must be 1-64 characters of A-Z a-z 0-9 . _ ~ -",
      'row 9: name is longer than 200 characters (201)',
      "row 10: duplicate item id 'ok' (also row 3)",
      'row 11: duplicate asset_id 000-001 (also row 3)',
      'row 12: expected 6 fields, found 3',
      'row 13: a location cannot be its own parent',
      "row 14: id 'two\\u{a}lines' must be 1-64 characters of A-Z a-z 0-9 . _ ~ -",
      "row 15: parent_id 'bad parent' is not a valid id",
    ]);
  });

  it('measures names in characters, not UTF-16 units', async () => {
    expect(await errors(csv(`item,astral,${'𝒳'.repeat(200)},,,`))).toEqual([]);
    expect(await errors(csv(`item,cjk,${'電'.repeat(201)},,,`))).toEqual(['row 2: name is longer than 200 characters (201)']);
  });

  it('one bad location does not also make its children report a missing parent', async () => {
    expect(await errors(csv('location,shelf,\u0001,,,', 'item,a,A,,shelf,', 'item,b,B,,shelf,'))).toEqual(["row 2: name contains U+0001, a control character: '\\u{1}'"]);
  });

  it('reports JSON rows by 1-based position', async () => {
    const rec = { kind: 'item', id: 'i1', name: 'Κατσαβίδι', description: '', parentId: null, assetId: 1 };
    const rows = [rec, 'nope', { ...rec, id: 'i2', assetId: 0 }, { ...rec, id: 'i3', assetId: 3, name: 7, colour: 'red' }, { ...rec, id: 'i4', assetId: 1.5 }, { ...rec, id: 'i5', assetId: [5] }];
    expect(await errors(JSON.stringify(rows), 'json')).toEqual([
      'row 2: expected an object',
      'row 3: asset_id 0 must be a positive integer up to 999-999-999-999 or 000-001 form',
      "row 4: unknown field 'colour'",
      'row 4: name must be a string',
      'row 5: asset_id 1.5 must be a positive integer up to 999-999-999-999 or 000-001 form',
      'row 6: asset_id (an array) must be a positive integer up to 999-999-999-999 or 000-001 form',
    ]);
    expect(await importRecords(store, JSON.stringify({ records: [rec] }), 'json')).toMatchObject({ imported: 1, errors: [] });
  });
});
