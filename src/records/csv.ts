/**
 * Minimal RFC 4180 reader. Hand-written rather than a dependency because the whole
 * job is ~40 lines: comma separators, CRLF or LF record ends, double-quoted fields
 * that may contain commas, newlines and doubled quotes ("").
 */

export interface CsvResult {
  /**
   * Non-blank records with their 1-based record number, counted the way a spreadsheet
   * numbers rows: blank lines count, a newline inside quotes does not.
   */
  rows: { row: number; fields: string[] }[];
  /** Syntax errors; when present, rows may be incomplete. */
  errors: string[];
}

export function parseCsv(text: string): CsvResult {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text; // UTF-8 BOM from Excel & co.
  const rows: CsvResult['rows'] = [];
  const errors: string[] = [];
  let fields: string[] = [];
  let field = '';
  let row = 1;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A line with nothing on it is not a record (also covers the final newline).
    if (fields.length > 1 || fields[0] !== '') rows.push({ row, fields });
    row++;
    fields = [];
    field = '';
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"' && field === '') {
      for (i++; ; i++) {
        if (i >= src.length) return { rows, errors: [...errors, `row ${row}: unterminated quoted field`] };
        if (src[i] !== '"') field += src[i];
        else if (src[i + 1] === '"') field += src[i++];
        else break;
      }
      i++; // past the closing quote
      if (i < src.length && !',\r\n'.includes(src[i]!)) errors.push(`row ${row}: unexpected text after a closing quote`);
    } else if (c === ',') {
      fields.push(field);
      field = '';
      i++;
    } else if (c === '\n' || c === '\r') {
      endRecord();
      i += c === '\r' && src[i + 1] === '\n' ? 2 : 1;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || fields.length > 0) endRecord();
  return { rows, errors };
}
