import { describe, expect, it } from 'vitest';
import { readRows, Utf8Scanner, type ImportFormat } from '../../src/records/import/read.js';
import type { RawRow } from '../../src/records/import/rules.js';

/** Reads `input` as a file arriving in `chunk`-byte pieces; rows and reported problems. */
async function read(input: string | Uint8Array, format: ImportFormat, chunk = 64 * 1024) {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.from(input);
  async function* source() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  const problems: string[] = [];
  const rows: RawRow[] = [];
  const sink = { problem: (row: number, message: string, fatal?: boolean) => problems.push(`${row}: ${message}${fatal ? ' [stop]' : ''}`) };
  for await (const row of readRows(source(), format, sink)) rows.push(row);
  return { rows, problems };
}

const HEADER = 'kind,id,name,description,parent_id,asset_id';

describe('CSV', () => {
  it('reads quoted fields, commas, doubled quotes and newlines inside quotes', async () => {
    const { rows, problems } = await read(`${HEADER}\r\nitem,drill,"Drill, ""18 V""","line one\nline two",garage,000-007\r\n`, 'csv');
    expect(problems).toEqual([]);
    expect(rows).toEqual([{ row: 2, values: { kind: 'item', id: 'drill', name: 'Drill, "18 V"', description: 'line one\nline two', parent_id: 'garage', asset_id: '000-007' } }]);
  });

  it('numbers rows like a spreadsheet: blank lines count, newlines in quotes do not', async () => {
    const { rows } = await read('name,kind,id\n"two\nlines",item,a\n\nfour,item,b\r\n\r\nsix,item,c', 'csv');
    expect(rows.map((r) => [r.row, r.values.name])).toEqual([[2, 'two\nlines'], [4, 'four'], [6, 'six']]);
  });

  it('takes LF, CRLF and CR line ends mixed in one file, whatever the chunking', async () => {
    const text = `${HEADER}\r\nitem,a,A,,,\nitem,b,B,,,\ritem,c,C,,,\r\n`;
    for (const chunk of [1, 2, 3, 7, 1024]) {
      const { rows, problems } = await read(text, 'csv', chunk);
      expect(problems).toEqual([]);
      expect(rows.map((r) => [r.row, r.values.id])).toEqual([[2, 'a'], [3, 'b'], [4, 'c']]);
    }
  });

  it('strips a UTF-8 byte order mark and matches header names case-insensitively', async () => {
    const { rows, problems } = await read('\uFEFFKind, ID ,Name\nlocation,home,Home', 'csv');
    expect(problems).toEqual([]);
    expect(rows[0]!.values).toEqual({ kind: 'location', id: 'home', name: 'Home' });
  });

  it('reports a short or long row and reads on', async () => {
    const { rows, problems } = await read(`${HEADER}\nitem,a,A\nitem,b,B,,,,extra\nitem,c,C,,,\n`, 'csv');
    expect(problems).toEqual(['2: expected 6 fields, found 3', '3: expected 6 fields, found 7']);
    expect(rows.map((r) => r.values.id)).toEqual(['c']);
  });

  it('stops at broken quoting, naming the row', async () => {
    expect((await read(`${HEADER}\nitem,a,A,,,\n"open`, 'csv')).problems).toEqual(['3: unterminated quoted field; nothing after it was read [stop]']);
    expect((await read(`${HEADER}\nitem,"a"b,A,,,\nitem,c,C,,,`, 'csv')).problems).toEqual(['2: unexpected text after a closing quote; nothing after it was read [stop]']);
  });

  it('stops at a record over 64 KiB before buffering it whole', async () => {
    const huge = `${HEADER}\nitem,a,A,,,\nitem,b,B,"${'x'.repeat(10_000_000)}",,\nitem,c,C,,,\n`;
    const { rows, problems } = await read(huge, 'csv');
    expect(problems).toEqual(['3: record is larger than 64 KiB; nothing after it was read [stop]']);
    expect(rows.map((r) => r.values.id)).not.toContain('c');
  });

  it('reports invalid UTF-8 per field, with its row, and reads on', async () => {
    const latin1 = Buffer.concat([Buffer.from(`${HEADER}\nitem,a,Caf`), Buffer.from([0xe9]), Buffer.from(',,,\nitem,b,B,'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from(',,\nitem,c,\uFFFD real,,,\n')]);
    const { rows, problems } = await read(latin1, 'csv');
    expect(problems).toEqual([]);
    expect(rows.map((r) => [r.row, r.problems])).toEqual([
      [2, [{ column: 'name', message: 'name is not valid UTF-8: save the file as UTF-8' }]],
      [3, [{ column: 'description', message: 'description is not valid UTF-8: save the file as UTF-8' }]], // an encoded surrogate (CESU-8)
      [4, undefined], // a real U+FFFD is a character like any other
    ]);
  });

  it('refuses UTF-16 files and bad headers outright', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${HEADER}\n`, 'utf16le')]);
    expect((await read(utf16, 'csv')).problems).toEqual(['0: the file is UTF-16 encoded (its byte order mark says so): save it as UTF-8 [stop]']);
    expect((await read('kind,id,nam\u001b[2J,id\nitem,a,b,c', 'csv')).problems).toEqual([
      "1: unknown column 'nam\\u{1b}[2J' (expected kind,id,name,description,parent_id,asset_id, or field.NAME for a custom field) [stop]",
      "1: duplicate column 'id' [stop]",
      "1: missing column 'name' [stop]",
    ]);
    expect((await read('', 'csv')).problems).toEqual(['0: empty file: expected a header row (kind,id,name,description,parent_id,asset_id) [stop]']);
    expect((await read('\n\n', 'csv')).problems).toEqual(['0: empty file: expected a header row (kind,id,name,description,parent_id,asset_id) [stop]']);
  });
});

describe('JSON', () => {
  const rec = { kind: 'item', id: 'i1', name: 'Κατσαβίδι', parentId: null, assetId: 1 };

  it('reads an array or {"records": [...]}, with camelCase or snake_case keys, in any chunking', async () => {
    const expected = [{ row: 1, values: { kind: 'item', id: 'i1', name: 'Κατσαβίδι', parent_id: null, asset_id: 1 } }];
    for (const chunk of [1, 3, 1024]) {
      expect(await read(JSON.stringify([rec]), 'json', chunk)).toEqual({ rows: expected, problems: [] });
      expect(await read(`\uFEFF ${JSON.stringify({ exportedAt: 'x', records: [rec], version: 2 })}\n`, 'json', chunk)).toEqual({ rows: expected, problems: [] });
    }
    const snake = { kind: 'item', id: 'i1', name: 'x', parent_id: 'p', asset_id: '000-001', updatedAt: '2024-01-01T00:00:00Z' };
    expect((await read(JSON.stringify([snake]), 'json')).rows[0]!.values).toEqual({ kind: 'item', id: 'i1', name: 'x', parent_id: 'p', asset_id: '000-001' });
  });

  it('numbers elements from 1 and reports non-objects and unknown fields', async () => {
    const { rows, problems } = await read(JSON.stringify([rec, 'nope', { ...rec, colour: 'red', size: 1, 'a\u001bb': 2, more: 3 }]).replace(']', ',{"__proto__":{"kind":"x"},"constructor":1,"name":"n"}]'), 'json');
    expect(problems).toEqual(['2: expected an object']);
    expect(rows.map((r) => [r.row, r.problems?.map((p) => p.message)])).toEqual([
      [1, undefined],
      [3, ["unknown fields 'colour', 'size', 'a\\u{1b}b' and 1 more"]],
      [4, ["unknown fields '__proto__', 'constructor'"]],
    ]);
    expect(rows[2]!.values).toEqual({ name: 'n' });
    expect(({} as Record<string, unknown>).kind).toBeUndefined();
  });

  it('reports malformed documents', async () => {
    const list = 'expected a JSON array of records or an object {"records": [...]}';
    expect((await read('{"records": 1}', 'json')).problems).toEqual([`0: ${list} [stop]`]);
    expect((await read('{"items": []}', 'json')).problems).toEqual([`0: ${list} [stop]`]);
    expect((await read('"text"', 'json')).problems).toEqual([`0: ${list} [stop]`]);
    expect((await read('  ', 'json')).problems).toEqual([`0: empty file: ${list} [stop]`]);
    const cut = await read('[{"kind":"item"},{"kind":', 'json');
    expect(cut.rows).toHaveLength(1);
    expect(cut.problems).toHaveLength(1);
    expect(cut.problems[0]).toMatch(/^2: invalid JSON \(.*\) \[stop\]$/);
    expect((await read('[{}] [2]', 'json')).problems).toEqual([expect.stringMatching(/^0: invalid JSON \(.*\) \[stop\]$/)]);
  });

  it('reports invalid UTF-8 with the element it is in, and reads on', async () => {
    const bytes = Buffer.concat([Buffer.from('[{"name":"ok"},{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"},{"name":"b'), Buffer.from([0xc0, 0xaf]), Buffer.from('"},{"name":"fine"}]')]);
    for (const chunk of [1, 5, 1024]) {
      const { rows, problems } = await read(bytes, 'json', chunk);
      expect(problems).toEqual(['2: the record is not valid UTF-8: save the file as UTF-8 (byte 28)', '3: the record is not valid UTF-8: save the file as UTF-8 (byte 42)']);
      expect(rows.map((r) => r.values.name)).toEqual(['ok', 'Caf\uFFFD', 'b\uFFFD\uFFFD', 'fine']);
    }
  });

  it('stops at an element over 64 KiB, or a value nested past it, before buffering it whole', async () => {
    const big = `[{"name":"a"},{"name":"${'x'.repeat(5_000_000)}"},{"name":"c"}]`;
    expect((await read(big, 'json')).problems).toEqual(['2: record is larger than 64 KiB [stop]']);
    expect((await read(`[${'['.repeat(200_000)}`, 'json')).problems).toEqual(['1: record is larger than 64 KiB [stop]']);
    expect((await read(`{"meta":"${'x'.repeat(100_000)}","records":[]}`, 'json')).problems).toEqual(['0: a JSON value outside the records is larger than 64 KiB [stop]']);
  });
});

describe('Utf8Scanner', () => {
  it('agrees with the WHATWG decoder on random bytes, whatever the chunking', () => {
    let seed = 42;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) & 0xff;
    const interesting = [0x41, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xa0, 0x90, 0x8f];
    for (let trial = 0; trial < 300; trial++) {
      const bytes = Uint8Array.from({ length: 1 + (random() % 40) }, () => interesting[random() % interesting.length]!);
      const chunk = 1 + (random() % 5);
      const out: number[] = [];
      let invalid = 0;
      const scanner = new Utf8Scanner();
      scanner.onBytes = (b) => out.push(...b);
      scanner.onInvalid = () => invalid++;
      for (let i = 0; i < bytes.length; i += chunk) scanner.push(bytes.subarray(i, i + chunk));
      scanner.end();
      const decoded = new TextDecoder('utf-8').decode(bytes);
      expect(Buffer.from(out).toString('utf8'), Buffer.from(bytes).toString('hex')).toBe(decoded);
      expect(invalid > 0).toBe(decoded.includes('\uFFFD'));
    }
  });
});
