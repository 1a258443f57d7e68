import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importRecords, parseRecords } from '../../src/records/import.js';
import { openSqliteStore } from '../../src/records/sqlite-store.js';
import type { Store } from '../../src/records/types.js';

const HEADER = 'kind,id,name,description,parent_id,asset_id';
const csv = (...lines: string[]) => [HEADER, ...lines].join('\r\n');

describe('parseRecords: CSV', () => {
  it('reads records, quoting and BOM included', () => {
    const text = '\uFEFF' + csv('location,garage,Garage,,,', 'item,drill,"Drill, ""18 V""","line one\nline two",garage,000-007');
    const { records, errors } = parseRecords(text, 'csv');
    expect(errors).toEqual([]);
    expect(records).toEqual([
      { kind: 'location', id: 'garage', name: 'Garage', description: '', parentId: null, assetId: null },
      { kind: 'item', id: 'drill', name: 'Drill, "18 V"', description: 'line one\nline two', parentId: 'garage', assetId: 7 },
    ]);
  });

  it('accepts columns in any order and without the optional ones', () => {
    const { records, errors } = parseRecords('Name,ID,Kind\nHome,home,location\n', 'csv');
    expect(errors).toEqual([]);
    expect(records).toEqual([{ kind: 'location', id: 'home', name: 'Home', description: '', parentId: null, assetId: null }]);
  });

  it('accepts every asset id form', () => {
    const { records, errors } = parseRecords(csv('item,a,A,,,000-001', 'item,b,B,,,000002', 'item,c,C,,,3', 'item,d,D,,,001-234-567'), 'csv');
    expect(errors).toEqual([]);
    expect(records.map((r) => r.assetId)).toEqual([1, 2, 3, 1_234_567]);
  });

  it('reports every bad row with its spreadsheet row number and returns no records', () => {
    const text = csv(
      'location,home,Home,,,', //                                    row 2: fine
      'item,ok,Fine item,,home,1', //                               row 3: fine
      'item,bad-asset,Widget,,home,12a', //                          row 4
      'item,no-name,  ,,home,', //                                   row 5
      'location,has-asset,Shelf,,home,5', //                         row 6
      'bin,b1,Bin,,,', //                                            row 7
      'item,has space,Thing,,,', //                                  row 8
      `item,long,${'x'.repeat(201)},,,`, //                          row 9
      'item,ok,Duplicate id,,,', //                                  row 10
      'item,dup-asset,Same asset,,,000-001', //                      row 11
      'item,too-few,fields', //                                      row 12
    );
    const { records, errors } = parseRecords(text, 'csv');
    expect(records).toEqual([]);
    expect(errors).toEqual([
      'row 4: asset_id must be a positive integer or 000-001 form',
      'row 5: name is required',
      'row 6: asset_id is only allowed on items',
      "row 7: unknown kind 'bin' (expected location or item)",
      "row 8: id 'has space' must be 1-64 characters of A-Z a-z 0-9 . _ ~ -",
      'row 9: name is longer than 200 characters (201)',
      "row 10: duplicate item id 'ok' (also row 3)",
      'row 11: duplicate asset_id 000-001 (also row 3)',
      'row 12: expected 6 fields, found 3',
    ]);
  });

  it('counts rows past multi-line fields like a spreadsheet does', () => {
    const { errors } = parseRecords(csv('item,a,"Two\nlines",,,', 'bin,b,B,,,'), 'csv');
    expect(errors).toEqual(["row 3: unknown kind 'bin' (expected location or item)"]);
  });

  it('measures names in characters, not UTF-16 units', () => {
    const ok = parseRecords(csv(`item,astral,${'𝒳'.repeat(200)},,,`), 'csv'); // 400 UTF-16 units
    expect(ok.errors).toEqual([]);
    expect(parseRecords(csv(`item,cjk,${'電'.repeat(201)},,,`), 'csv').errors).toEqual(['row 2: name is longer than 200 characters (201)']);
  });

  it('rejects unknown, duplicate and missing columns', () => {
    expect(parseRecords('kind,id,nam,parentid\nitem,a,b,c', 'csv').errors).toEqual([
      "row 1: unknown column 'nam' (expected kind,id,name,description,parent_id,asset_id)",
      "row 1: unknown column 'parentid' (expected kind,id,name,description,parent_id,asset_id)",
      "row 1: missing column 'name'",
    ]);
    expect(parseRecords('kind,id,name,id\n', 'csv').errors).toEqual(["row 1: duplicate column 'id'"]);
    expect(parseRecords('', 'csv').errors).toEqual(['empty file: expected a header row (kind,id,name,description,parent_id,asset_id)']);
  });

  it('rejects parent cycles and self-parents within the file', () => {
    const { errors } = parseRecords(csv('location,a,A,,b,', 'location,b,B,,a,', 'location,c,C,,c,', 'location,d,D,,a,'), 'csv');
    expect(errors).toEqual([
      "row 2: location 'a' is its own ancestor (parent_id cycle)",
      "row 3: location 'b' is its own ancestor (parent_id cycle)",
      'row 4: a location cannot be its own parent',
    ]);
  });
});

describe('parseRecords: JSON', () => {
  const rec = { kind: 'item', id: 'i1', name: 'Κατσαβίδι', description: '', parentId: null, assetId: 1 };

  it('reads an array or {records: [...]}, snake_case or camelCase', () => {
    const expected = [{ kind: 'item', id: 'i1', name: 'Κατσαβίδι', description: '', parentId: null, assetId: 1 }];
    expect(parseRecords(JSON.stringify([rec]), 'json')).toEqual({ records: expected, errors: [] });
    expect(parseRecords(JSON.stringify({ records: [rec] }), 'json')).toEqual({ records: expected, errors: [] });
    const snake = { kind: 'item', id: 'i1', name: 'Κατσαβίδι', parent_id: '', asset_id: '000-001', updatedAt: '2024-01-01T00:00:00Z' };
    expect(parseRecords(JSON.stringify([snake]), 'json')).toEqual({ records: expected, errors: [] });
  });

  it('reports bad rows by 1-based position', () => {
    const rows = [rec, 'nope', { ...rec, id: 'i2', assetId: 0 }, { ...rec, id: 'i3', assetId: 3, name: 7, colour: 'red' }, { ...rec, id: 'i4', assetId: 1.5 }];
    expect(parseRecords(JSON.stringify(rows), 'json').errors).toEqual([
      'row 2: expected an object',
      'row 3: asset_id must be a positive integer or 000-001 form',
      "row 4: unknown field 'colour'",
      'row 4: name must be a string',
      'row 5: asset_id must be a positive integer or 000-001 form',
    ]);
  });

  it('reports malformed documents', () => {
    expect(parseRecords('{"records": 1}', 'json').errors).toEqual(['expected a JSON array of records or an object {"records": [...]}']);
    expect(parseRecords('[{', 'json').errors[0]).toMatch(/^invalid JSON: /);
  });
});

describe('importRecords', () => {
  let store: Store;
  beforeEach(() => {
    store = openSqliteStore(':memory:');
  });
  afterEach(async () => {
    await store.close();
  });

  it('imports everything, children before parents included', async () => {
    const result = await importRecords(store, csv('item,i,Item,,shelf,000-009', 'location,shelf,Shelf,,room,', 'location,room,Room,,,'), 'csv');
    expect(result).toEqual({ imported: 3, errors: [] });
    expect(await store.records.locationPath('shelf')).toEqual(['Room', 'Shelf']);
    expect((await store.records.getItemByAssetId(9))?.id).toBe('i');
  });

  it('accepts parents already in the store and rejects unknown ones', async () => {
    await store.records.upsertMany([{ kind: 'location', id: 'known', name: 'Known', description: '', parentId: null, assetId: null }]);
    await store.records.upsertMany([{ kind: 'item', id: 'not-a-location', name: 'Item', description: '', parentId: null, assetId: null }]);
    const result = await importRecords(store, csv('item,a,A,,known,', 'item,b,B,,ghost,', 'item,c,C,,ghost,', 'item,d,D,,not-a-location,'), 'csv');
    expect(result).toEqual({
      imported: 0,
      errors: [
        "row 3: parent_id 'ghost' is not a location in the file or the store",
        "row 4: parent_id 'ghost' is not a location in the file or the store",
        "row 5: parent_id 'not-a-location' is not a location in the file or the store",
      ],
    });
    expect(await store.records.getItem('a')).toBeUndefined();
  });

  it('imports nothing when any row is bad', async () => {
    const result = await importRecords(store, csv('location,l,L,,,', 'item,i,I,,l,1', 'item,j,J,,l,-4'), 'csv');
    expect(result.imported).toBe(0);
    expect(result.errors).toEqual(['row 4: asset_id must be a positive integer or 000-001 form']);
    expect(await store.records.count()).toBe(0);
  });

  it('rejects asset ids held by another item in the store, but allows re-importing the same item', async () => {
    await importRecords(store, csv('item,owner,Owner,,,5'), 'csv');
    expect(await importRecords(store, csv('item,owner,Owner renamed,,,000-005'), 'csv')).toEqual({ imported: 1, errors: [] });
    expect(await importRecords(store, csv('item,other,Other,,,5'), 'csv')).toEqual({ imported: 0, errors: ["row 2: asset_id 000-005 already belongs to item 'owner'"] });
    expect((await store.records.getItem('owner'))!.name).toBe('Owner renamed');
    expect(await store.records.count()).toBe(1);
  });
});
