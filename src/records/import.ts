/**
 * Bulk import of records from JSON or CSV. Every row is validated and every problem
 * reported (with its row number) before anything is written; one bad row means
 * nothing is imported.
 *
 * Row numbers: JSON counts array elements from 1. CSV counts like a spreadsheet:
 * the header is row 1, the first record row 2, blank lines count, a newline inside a
 * quoted field does not.
 */
import { formatAssetId, isAssetId, parseAssetId } from './asset-id.js';
import { parseCsv } from './csv.js';
import type { RecordInput, Store } from './types.js';

export type ImportFormat = 'json' | 'csv';

const COLUMNS = ['kind', 'id', 'name', 'description', 'parent_id', 'asset_id'] as const;
type Column = (typeof COLUMNS)[number];
const REQUIRED: readonly Column[] = ['kind', 'id', 'name'];
/** JSON also takes the contract's camelCase names, and tolerates export-only fields. */
const JSON_ALIASES: Record<string, Column> = { parentId: 'parent_id', assetId: 'asset_id' };
const JSON_IGNORED = new Set(['updatedAt', 'updated_at']);

const ID = /^[A-Za-z0-9._~-]{1,64}$/;
const MAX_NAME_LENGTH = 200;

type RawRow = { row: number; values: Partial<Record<Column, unknown>> };
type Row = { row: number; record: RecordInput };

interface Validation {
  rows: Row[];
  errors: string[];
  /** Parent ids not defined in the file, with the rows that use them: the store must know them. */
  externalParents: Map<string, number[]>;
}

/** Parses and validates; `records` is empty whenever `errors` is not. Parents outside the file are not checked here. */
export function parseRecords(text: string, format: ImportFormat): { records: RecordInput[]; errors: string[] } {
  const { rows, errors } = validate(text, format);
  return { records: errors.length > 0 ? [] : rows.map((r) => r.record), errors };
}

/** Validates against the file and the store, then writes all records in one transaction, or none. */
export async function importRecords(store: Store, text: string, format: ImportFormat): Promise<{ imported: number; errors: string[] }> {
  const { rows, errors, externalParents } = validate(text, format);
  await Promise.all([
    ...[...externalParents].map(async ([parentId, usedIn]) => {
      if (await store.records.getLocation(parentId)) return;
      for (const row of usedIn) errors.push(`row ${row}: parent_id '${parentId}' is not a location in the file or the store`);
    }),
    ...rows.map(async ({ row, record }) => {
      if (record.assetId === null) return;
      const holder = await store.records.getItemByAssetId(record.assetId);
      if (holder && holder.id !== record.id) errors.push(`row ${row}: asset_id ${formatAssetId(record.assetId)} already belongs to item '${holder.id}'`);
    }),
  ]);
  if (errors.length > 0) return { imported: 0, errors: byRow(errors) };
  await store.records.upsertMany(rows.map((r) => r.record));
  return { imported: rows.length, errors: [] };
}

function validate(text: string, format: ImportFormat): Validation {
  const { raw, errors } = format === 'csv' ? csvRows(text) : jsonRows(text);
  const rows: Row[] = [];
  for (const r of raw) {
    const record = validateRow(r, errors);
    if (record) rows.push({ row: r.row, record });
  }
  const externalParents = checkAcrossRows(rows, errors);
  return { rows, errors: byRow(errors), externalParents };
}

function csvRows(text: string): { raw: RawRow[]; errors: string[] } {
  const { rows, errors } = parseCsv(text);
  const [header, ...data] = rows;
  if (!header) return { raw: [], errors: [...errors, `empty file: expected a header row (${COLUMNS.join(',')})`] };
  const names = header.fields.map((f) => f.trim().toLowerCase());
  names.forEach((n, i) => {
    if (!(COLUMNS as readonly string[]).includes(n)) errors.push(`row ${header.row}: unknown column '${n}' (expected ${COLUMNS.join(',')})`);
    else if (names.indexOf(n) !== i) errors.push(`row ${header.row}: duplicate column '${n}'`);
  });
  for (const c of REQUIRED) if (!names.includes(c)) errors.push(`row ${header.row}: missing column '${c}'`);
  if (errors.length > 0) return { raw: [], errors };
  const raw: RawRow[] = [];
  for (const { row, fields } of data) {
    if (fields.length !== names.length) errors.push(`row ${row}: expected ${names.length} fields, found ${fields.length}`);
    else raw.push({ row, values: Object.fromEntries(names.map((n, i) => [n, fields[i]])) });
  }
  return { raw, errors };
}

function jsonRows(text: string): { raw: RawRow[]; errors: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { raw: [], errors: [`invalid JSON: ${(err as Error).message}`] };
  }
  const list = Array.isArray(doc) ? doc : isObject(doc) && Array.isArray(doc.records) ? doc.records : undefined;
  if (!list) return { raw: [], errors: ['expected a JSON array of records or an object {"records": [...]}'] };
  const raw: RawRow[] = [];
  const errors: string[] = [];
  list.forEach((item: unknown, i) => {
    const row = i + 1;
    if (!isObject(item)) {
      errors.push(`row ${row}: expected an object`);
      return;
    }
    const values: RawRow['values'] = {};
    for (const [key, value] of Object.entries(item)) {
      const column = JSON_ALIASES[key] ?? key;
      if ((COLUMNS as readonly string[]).includes(column)) values[column as Column] = value;
      else if (!JSON_IGNORED.has(key)) errors.push(`row ${row}: unknown field '${key}'`);
    }
    raw.push({ row, values });
  });
  return { raw, errors };
}

/** One row's own checks; pushes its errors and returns the record only if it has none. */
function validateRow({ row, values }: RawRow, errors: string[]): RecordInput | undefined {
  const before = errors.length;
  const fail = (message: string) => errors.push(`row ${row}: ${message}`);
  const wrongType = new Set<Column>(); // reported once; no follow-up "is required"
  const text = (column: Column): string | undefined => {
    const v = values[column];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    fail(`${column} must be a string`);
    wrongType.add(column);
    return undefined;
  };
  const missing = (column: Column) => {
    if (!wrongType.has(column)) fail(`${column} is required`);
  };

  const kind = text('kind')?.trim() ?? '';
  if (kind === '') missing('kind');
  else if (kind !== 'location' && kind !== 'item') fail(`unknown kind '${kind}' (expected location or item)`);

  const id = text('id')?.trim() ?? '';
  if (id === '') missing('id');
  else if (!ID.test(id)) fail(`id '${id}' must be 1-64 characters of A-Z a-z 0-9 . _ ~ -`);

  const name = text('name')?.trim() ?? '';
  const nameLength = [...name].length; // code points, not UTF-16 units: '電動ドリル' is 5
  if (name === '') missing('name');
  else if (nameLength > MAX_NAME_LENGTH) fail(`name is longer than ${MAX_NAME_LENGTH} characters (${nameLength})`);

  const description = text('description') ?? '';

  const parentId = text('parent_id')?.trim() || null;
  if (parentId !== null && !ID.test(parentId)) fail(`parent_id '${parentId}' is not a valid id`);
  else if (parentId !== null && kind === 'location' && parentId === id) fail('a location cannot be its own parent');

  const assetId = assetIdOf(values.asset_id);
  if (assetId === undefined) fail('asset_id must be a positive integer or 000-001 form');
  else if (assetId !== null && kind === 'location') fail('asset_id is only allowed on items');

  if (errors.length > before) return undefined;
  return { kind: kind as RecordInput['kind'], id, name, description, parentId, assetId: assetId ?? null };
}

/** null when absent, undefined when invalid. JSON may give a number, CSV always gives text. */
function assetIdOf(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return isAssetId(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  return value.trim() === '' ? null : parseAssetId(value);
}

/** Duplicates, parents and cycles within the file; returns parents the store must supply. */
function checkAcrossRows(rows: Row[], errors: string[]): Map<string, number[]> {
  const seen = new Map<string, number>();
  const assets = new Map<number, number>();
  const locations = new Map<string, Row>();
  for (const { row, record } of rows) {
    const key = `${record.kind} ${record.id}`;
    const first = seen.get(key);
    if (first !== undefined) errors.push(`row ${row}: duplicate ${record.kind} id '${record.id}' (also row ${first})`);
    else seen.set(key, row);
    if (record.assetId !== null) {
      const other = assets.get(record.assetId);
      if (other !== undefined) errors.push(`row ${row}: duplicate asset_id ${formatAssetId(record.assetId)} (also row ${other})`);
      else assets.set(record.assetId, row);
    }
    if (record.kind === 'location' && !locations.has(record.id)) locations.set(record.id, { row, record });
  }

  const external = new Map<string, number[]>();
  for (const { row, record } of rows) {
    if (record.parentId === null || locations.has(record.parentId)) continue;
    external.set(record.parentId, [...(external.get(record.parentId) ?? []), row]);
  }

  // A location that is its own ancestor has no top level: its label path would loop.
  for (const [id, { row }] of locations) {
    let current = locations.get(id)?.record.parentId ?? null;
    for (let depth = 0; current !== null && depth <= locations.size; depth++) {
      if (current === id) {
        errors.push(`row ${row}: location '${id}' is its own ancestor (parent_id cycle)`);
        break;
      }
      current = locations.get(current)?.record.parentId ?? null;
    }
  }
  return external;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** File-level errors first, then by row number; stable within a row. */
function byRow(errors: string[]): string[] {
  return [...errors].sort(compareByRow);
}

function compareByRow(a: string, b: string): number {
  const row = (s: string) => Number(/^row (\d+):/.exec(s)?.[1] ?? 0);
  return row(a) - row(b);
}
