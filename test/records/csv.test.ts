import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/records/csv.js';

const fields = (text: string) => parseCsv(text).rows.map((r) => r.fields);

describe('parseCsv', () => {
  it('reads plain records with LF or CRLF, with or without a final newline', () => {
    expect(fields('a,b\n1,2\n')).toEqual([['a', 'b'], ['1', '2']]);
    expect(fields('a,b\r\n1,2')).toEqual([['a', 'b'], ['1', '2']]);
    expect(fields('a,,\n')).toEqual([['a', '', '']]);
  });

  it('handles quotes, commas and newlines inside quoted fields', () => {
    expect(fields('"a,b","say ""hi""","line1\r\nline2",""\n')).toEqual([['a,b', 'say "hi"', 'line1\r\nline2', '']]);
  });

  it('strips a UTF-8 BOM', () => {
    expect(fields('\uFEFFkind,id\nitem,x')).toEqual([['kind', 'id'], ['item', 'x']]);
  });

  it('numbers records like spreadsheet rows', () => {
    const { rows } = parseCsv('h\n"two\nlines"\n\nfour\n');
    expect(rows.map((r) => [r.row, r.fields[0]])).toEqual([[1, 'h'], [2, 'two\nlines'], [4, 'four']]);
  });

  it('reports syntax errors with the row', () => {
    expect(parseCsv('h\nx\n"open').errors).toEqual(['row 3: unterminated quoted field']);
    expect(parseCsv('h\n"a"b,c').errors).toEqual(['row 2: unexpected text after a closing quote']);
  });
});
