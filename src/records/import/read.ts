/**
 * Streaming readers for import files: bytes in, one raw row at a time out, in bounded
 * memory whatever the file's size. CSV goes through csv-parse, JSON through
 * @streamparser/json; both see the bytes as read, so a record larger than
 * LIMITS.maxRecordBytes stops the read before it is buffered whole.
 *
 * Row numbers: JSON counts array elements from 1. CSV counts like a spreadsheet:
 * the header is row 1, the first record row 2, blank lines count, a newline inside a
 * quoted field does not.
 */
import { Readable } from 'node:stream';
import { isUtf8 } from 'node:buffer';
import { CsvError, parse, type Info } from 'csv-parse';
import { JSONParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { COLUMNS, LIMITS, REQUIRED_COLUMNS, columnName, type Column, type RawRow } from './rules.js';
import { printable } from '../text-rules.js';

/** `ndjson`: JSON lines (application/x-ndjson), one record object per line; row N is line N. */
import type { ImportFormat } from '../types.js';

export type { ImportFormat };

/** Where readers report what they can't turn into a row. */
export interface ReadSink {
  /** A problem at `row` (0: the file as a whole). `fatal`: reading stopped there. */
  problem(row: number, message: string, fatal?: boolean): void;
}

export async function* readRows(source: AsyncIterable<Uint8Array>, format: ImportFormat, sink: ReadSink): AsyncGenerator<RawRow> {
  const iterator = source[Symbol.asyncIterator]();
  try {
    // The first bytes tell the encoding: a UTF-16/32 file (Windows "Unicode" export)
    // would otherwise read as NULs and garbage; a UTF-8 byte order mark is dropped.
    let head = new Uint8Array(0);
    let done = false;
    while (head.length < 3 && !done) {
      const next = await iterator.next();
      if (next.done) done = true;
      else head = Buffer.concat([head, next.value]);
    }
    if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
      sink.problem(0, 'the file is UTF-16 encoded (its byte order mark says so): save it as UTF-8', true);
      return;
    }
    if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) head = head.subarray(3);
    // Parsers get at most PIECE bytes at a time, whatever the source's chunks: a parser
    // turns one piece into rows all at once, and rows alive together are what grows
    // V8's young generation (with 256 KiB pieces, a million-row import used 120 MB more).
    const rest = async function* (): AsyncGenerator<Uint8Array> {
      let chunk: Uint8Array | undefined = head;
      while (chunk) {
        for (let at = 0; at < chunk.length; at += PIECE) yield chunk.subarray(at, at + PIECE);
        const next: IteratorResult<Uint8Array> | undefined = done ? undefined : await iterator.next();
        chunk = next && !next.done ? next.value : undefined;
        if (!chunk) done = true;
      }
    };
    yield* format === 'csv' ? readCsv(rest(), sink) : format === 'ndjson' ? readNdjson(rest(), sink) : readJson(rest(), sink);
  } finally {
    await iterator.return?.();
  }
}

/** Bytes handed to a parser at once. */
const PIECE = 16 * 1024;

/** A Map, not an object literal: keys come from the file (`__proto__`, `constructor`). */
const JSON_ALIASES = new Map<string, Column>([['parentId', 'parent_id'], ['assetId', 'asset_id']]);
/** Export-only fields a JSON file may carry; the import sets its own update time. */
const JSON_IGNORED = new Set(['updatedAt', 'updated_at']);
const isColumn = (name: string): name is Column => (COLUMNS as readonly string[]).includes(name);
/** A CSV column of a custom field: `field.` and the field's name (checked against the catalogue by checkRow). */
const FIELD_COLUMN = /^field\.([a-z][a-z0-9_]{0,39})$/;
type HeaderName = Column | { field: string };
const utf8Problem = 'is not valid UTF-8: save the file as UTF-8';

async function* readCsv(source: AsyncIterable<Uint8Array>, sink: ReadSink): AsyncGenerator<RawRow> {
  const parser = parse({
    encoding: null, // fields as bytes: invalid UTF-8 is found per field, with its row
    info: true,
    skip_empty_lines: true,
    relax_column_count: true, // a short row is reported per row, not as the end of the read
    record_delimiter: ['\r\n', '\n', '\r'], // mixed line ends, as files edited on several systems have
    max_record_size: LIMITS.maxRecordBytes,
  });
  const input = Readable.from(source);
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  let names: HeaderName[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Buffer[]; info: Info }>) {
      const row = info.records + info.empty_lines;
      if (!names) {
        names = csvHeader(record, row, sink);
        if (!names) return;
        continue;
      }
      if (record.length !== names.length) {
        sink.problem(row, `expected ${names.length} fields, found ${record.length}`);
        continue;
      }
      const values: RawRow['values'] = {};
      const fields: Record<string, string> = {};
      const problems: NonNullable<RawRow['problems']> = [];
      for (let i = 0; i < names.length; i++) {
        const column = names[i]!;
        const field = record[i]!;
        const text = field.toString('utf8');
        if (typeof column === 'object') {
          if (text.includes('\uFFFD') && !isUtf8(field)) problems.push({ message: `field.${column.field} ${utf8Problem}` });
          else fields[column.field] = text;
          continue;
        }
        // Decoding never fails: it substitutes U+FFFD, which is also a legitimate character.
        if (text.includes('\uFFFD') && !isUtf8(field)) problems.push({ column, message: `${column} ${utf8Problem}` });
        values[column] = text;
      }
      const withFields = Object.keys(fields).length > 0 ? { fields } : {};
      yield problems.length > 0 ? { row, values, ...withFields, problems } : { row, values, ...withFields };
    }
    if (!names) sink.problem(0, `empty file: expected a header row (${COLUMNS.join(',')})`, true);
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const at = err as CsvError & { records?: number; empty_lines?: number };
    sink.problem((at.records ?? 0) + (at.empty_lines ?? 0) + 1, `${csvSyntax(err)}; nothing after it was read`, true);
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/** Column names from the header row, or undefined (and the problems reported) if unusable. */
function csvHeader(record: Buffer[], row: number, sink: ReadSink): HeaderName[] | undefined {
  const given = record.map((f) => f.toString('utf8').trim());
  const names = given.map((n) => n.toLowerCase());
  let usable = true;
  const fail = (message: string) => {
    usable = false;
    sink.problem(row, message, true);
  };
  names.forEach((n, i) => {
    if (!isUtf8(record[i]!)) fail(`column name ${i + 1} ${utf8Problem}`);
    else if (!isColumn(n) && !FIELD_COLUMN.test(n)) fail(`unknown column ${columnName(given[i]!)} (expected ${COLUMNS.join(',')}, or field.NAME for a custom field)`);
    else if (names.indexOf(n) !== i) fail(`duplicate column '${n}'`);
  });
  for (const c of REQUIRED_COLUMNS) if (!names.includes(c)) fail(`missing column '${c}'`);
  return usable ? names.map((n) => (isColumn(n) ? n : { field: FIELD_COLUMN.exec(n)![1]! })) : undefined;
}

function csvSyntax(err: CsvError): string {
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'unterminated quoted field';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'unexpected text after a closing quote';
    case 'CSV_MAX_RECORD_SIZE':
      return `record is larger than ${LIMITS.maxRecordBytes / 1024} KiB`;
    default:
      return `CSV syntax error (${err.code})`;
  }
}

const NOT_A_LIST = 'expected a JSON array of records or an object {"records": [...]}';

/**
 * JSON: a top-level array of records, or an object whose `records` member is one.
 * Elements are emitted as they complete and dropped from the parser's tree
 * (keepStack: false), so memory holds one element at a time. Other top-level
 * members are skipped (and bounded in size like a record).
 */
async function* readJson(source: AsyncIterable<Uint8Array>, sink: ReadSink): AsyncGenerator<RawRow> {
  let parser: JSONParser | undefined;
  let emitted = 0; // elements seen so far; the one being read is row emitted + 1
  let sinceLast = 0; // bytes written since the last element completed
  let inList = false;
  let sawList = false;
  let failed = false;
  let badUtf8Row = -1;
  const ready: RawRow[] = [];
  const utf8 = new Utf8Scanner();

  const fatal = (message: string) => {
    if (failed) return;
    failed = true;
    sink.problem(inList ? emitted + 1 : 0, message, true);
  };
  const start = (firstByte: number) => {
    const object = firstByte === 0x7b; // '{'
    if (!object && firstByte !== 0x5b) return fatal(NOT_A_LIST); // '['
    parser = new JSONParser({ paths: [object ? '$.records.*' : '$.*'], keepStack: false });
    parser.onValue = ({ value }) => {
      emitted++;
      sinceLast = 0;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) ready.push(jsonRow(emitted, value));
      else sink.problem(emitted, 'expected an object');
    };
    parser.onError = (err) => fatal(`invalid JSON (${printable(err.message, 160)})`);
    parser.onToken = object ? recordsMemberTracker((state) => {
      if (state === 'not-a-list') fatal(NOT_A_LIST);
      inList = state === 'in';
      if (inList) sawList = true;
    }) : arrayTracker((inside) => {
      inList = inside;
      sawList = true;
    });
  };
  const write = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length && !failed; at += PIECE) {
      let piece = bytes.subarray(at, at + PIECE);
      if (!parser) {
        const first = piece.findIndex((b) => !JSON_WHITESPACE.has(b));
        if (first < 0) continue;
        piece = piece.subarray(first);
        start(piece[0]!);
        if (failed) return;
      }
      parser!.write(piece);
      sinceLast += piece.length;
      if (sinceLast > LIMITS.maxRecordBytes) fatal(inList ? `record is larger than ${LIMITS.maxRecordBytes / 1024} KiB` : `a JSON value outside the records is larger than ${LIMITS.maxRecordBytes / 1024} KiB`);
    }
  };
  utf8.onBytes = write;
  utf8.onInvalid = (offset) => {
    const row = inList ? emitted + 1 : 0;
    if (row !== badUtf8Row) sink.problem(row, `${row === 0 ? 'the file' : 'the record'} ${utf8Problem} (byte ${offset + 1})`);
    badUtf8Row = row;
  };

  for await (const chunk of source) {
    utf8.push(chunk);
    yield* ready.splice(0);
    if (failed) return;
  }
  utf8.end();
  if (!failed && parser && !parser.isEnded) parser.end();
  yield* ready.splice(0);
  if (failed) return;
  if (!parser) sink.problem(0, `empty file: ${NOT_A_LIST}`, true);
  else if (!sawList) sink.problem(0, NOT_A_LIST, true);
}

/**
 * JSON lines: each line one record object (blank lines are skipped but counted), split
 * on LF as the bytes arrive; a line longer than LIMITS.maxRecordBytes stops the read
 * before it is held whole. Bad UTF-8 is reported per line.
 */
async function* readNdjson(source: AsyncIterable<Uint8Array>, sink: ReadSink): AsyncGenerator<RawRow> {
  let carry: Buffer[] = [];
  let carried = 0;
  let line = 0;
  const parseLine = (bytes: Buffer): RawRow | undefined => {
    line++;
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return undefined;
    if (!isUtf8(bytes)) {
      sink.problem(line, `the record ${utf8Problem}`);
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      sink.problem(line, `invalid JSON (${printable((err as Error).message, 160)})`);
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      sink.problem(line, 'expected an object');
      return undefined;
    }
    return jsonRow(line, value);
  };
  for await (const chunk of source) {
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let nl = data.indexOf(0x0a);
    while (nl >= 0) {
      const piece = data.subarray(0, nl);
      const bytes = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece;
      carry = [];
      carried = 0;
      if (bytes.length > LIMITS.maxRecordBytes) return sink.problem(line + 1, `record is larger than ${LIMITS.maxRecordBytes / 1024} KiB`, true);
      const row = parseLine(bytes);
      if (row) yield row;
      data = data.subarray(nl + 1);
      nl = data.indexOf(0x0a);
    }
    if (data.length > 0) {
      carried += data.length;
      if (carried > LIMITS.maxRecordBytes) return sink.problem(line + 1, `record is larger than ${LIMITS.maxRecordBytes / 1024} KiB`, true);
      carry.push(Buffer.from(data)); // a copy: the source may reuse its buffer
    }
  }
  if (carried > 0) {
    const row = parseLine(Buffer.concat(carry));
    if (row) yield row;
  }
}

const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Follows a top-level array: reports when the parser is inside it. */
function arrayTracker(onChange: (inside: boolean) => void): (token: ParsedTokenInfo) => void {
  let depth = 0;
  return ({ token }) => {
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      if (++depth === 1) onChange(true);
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      if (--depth === 0) onChange(false);
    }
  };
}

/** Follows a top-level object's members: reports entering and leaving `records`, or that it is not an array. */
function recordsMemberTracker(onChange: (state: 'in' | 'out' | 'not-a-list') => void): (token: ParsedTokenInfo) => void {
  let depth = 0;
  let key: string | undefined;
  let valueNext = false;
  let inRecords = false;
  return ({ token, value }) => {
    if (depth === 1 && valueNext) {
      valueNext = false;
      if (key === 'records') {
        if (token !== TokenType.LEFT_BRACKET) return onChange('not-a-list');
        inRecords = true;
        onChange('in');
      }
    } else if (depth === 1 && token === TokenType.STRING) key = value as string;
    else if (depth === 1 && token === TokenType.COLON) valueNext = true;
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) depth++;
    else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) {
      depth--;
      if (depth === 1 && inRecords) {
        inRecords = false;
        onChange('out');
      }
    }
  };
}

function jsonRow(row: number, item: object): RawRow {
  const values: RawRow['values'] = {};
  const unknown: string[] = [];
  let fields: unknown;
  for (const [key, value] of Object.entries(item)) {
    const column = JSON_ALIASES.get(key) ?? key;
    if (isColumn(column)) values[column] = value;
    else if (key === 'fields') fields = value; // checked against the catalogue by checkRow
    else if (!JSON_IGNORED.has(key)) unknown.push(key);
  }
  if (unknown.length === 0) return fields === undefined ? { row, values } : { row, values, fields };
  const shown = unknown.slice(0, 3).map((k) => columnName(k)).join(', ');
  const more = unknown.length > 3 ? ` and ${unknown.length - 3} more` : '';
  return { row, values, ...(fields === undefined ? {} : { fields }), problems: [{ message: `unknown field${unknown.length > 1 ? 's' : ''} ${shown}${more}` }] };
}

const REPLACEMENT = Uint8Array.of(0xef, 0xbf, 0xbd);

/**
 * Passes bytes on, replacing invalid UTF-8 with U+FFFD and reporting each place (file
 * offset). Node's isUtf8 checks the common all-valid chunk natively; a sequence split
 * across chunks is carried over to the next one.
 */
export class Utf8Scanner {
  onBytes: (bytes: Uint8Array) => void = () => {};
  onInvalid: (offset: number) => void = () => {};
  private carry: Uint8Array = new Uint8Array(0);
  private offset = 0; // file offset of the first byte of `carry` / the next chunk

  push(chunk: Uint8Array): void {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const tail = incompleteTail(data);
    this.carry = Uint8Array.from(data.subarray(data.length - tail));
    this.pass(data.subarray(0, data.length - tail));
  }

  end(): void {
    // A sequence cut off by the end of the file: each of its ill-formed parts is replaced.
    const rest = this.carry;
    this.carry = new Uint8Array(0);
    this.pass(rest);
  }

  private pass(body: Uint8Array): void {
    if (isUtf8(body)) this.onBytes(body);
    else {
      let pos = 0;
      while (pos < body.length) {
        const bad = firstInvalid(body, pos);
        if (!bad) {
          this.onBytes(body.subarray(pos));
          break;
        }
        if (bad.at > pos) this.onBytes(body.subarray(pos, bad.at));
        this.onInvalid(this.offset + bad.at);
        this.onBytes(REPLACEMENT);
        pos = bad.at + bad.length;
      }
    }
    this.offset += body.length;
  }
}

/** How many trailing bytes are the start of a multi-byte sequence the next chunk may complete. */
function incompleteTail(b: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) return sequenceLength(byte) > back ? back : 0; // a lead byte
  }
  return 0;
}

function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/** The first ill-formed sequence at or after `from` (Unicode's well-formed UTF-8 table), or undefined. */
function firstInvalid(b: Uint8Array, from: number): { at: number; length: number } | undefined {
  for (let i = from; i < b.length; ) {
    const lead = b[i]!;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(lead);
    if (n === 1) return { at: i, length: 1 };
    // The second byte's range is narrower after E0, ED, F0 and F4 (no overlongs, surrogates or > U+10FFFF).
    const lo = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const hi = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < n; k++) {
      const c = b[i + k];
      const ok = c !== undefined && (k === 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xbf);
      if (!ok) return { at: i, length: k };
    }
    i += n;
  }
  return undefined;
}
