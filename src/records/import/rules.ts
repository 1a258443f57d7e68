/**
 * The rules every imported row must follow, checked one row at a time. Rules that
 * need other rows or the store (duplicates, parents, cycles, asset ids in use) are
 * checked set-wise in checks.ts.
 */
import { MAX_ASSET_ID, formatAssetId, isAssetId, parseAssetId } from '../asset-id.js';
import { checkFieldValues, FieldError, type FieldDefinition, type FieldValues } from '../fields.js';
import { isRecordKind, RECORD_KIND_FACTS } from '../kinds.js';
import { MAX_LOCATION_DEPTH } from '../rows.js';
import { characterCount, quoted, textProblem } from '../text-rules.js';
import type { RecordKind, StagedRow } from '../types.js';

export const COLUMNS = ['kind', 'id', 'name', 'description', 'parent_id', 'asset_id'] as const;
export type Column = (typeof COLUMNS)[number];
export const REQUIRED_COLUMNS: readonly Column[] = ['kind', 'id', 'name'];

/** Every bound an import enforces, in one place: docs/operations.md and the CLI quote these. */
export const LIMITS = {
  /** Ids (and parent ids): characters that are safe in a URL path, a file name and a log. */
  idPattern: /^[A-Za-z0-9._~-]{1,64}$/,
  maxIdLength: 64,
  maxNameLength: 200,
  /** Descriptions never reach a label, but every label read loads the record: keep rows small. */
  maxDescriptionLength: 1000,
  /** One CSV record or one JSON array element, in bytes as read (quotes and escapes included). */
  maxRecordBytes: 64 * 1024,
  maxLocationDepth: MAX_LOCATION_DEPTH,
  maxAssetId: MAX_ASSET_ID,
} as const;

/** The rules in words, for docs/operations.md, `labelmaker --help` and a failed import. */
export const RULES_TEXT = [
  'kind: location or item',
  `id, parent_id: 1-${LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ ~ - (parent_id names a location in the file or the database)`,
  `name: 1-${LIMITS.maxNameLength} characters, one line, at least one visible character`,
  `description: at most ${LIMITS.maxDescriptionLength} characters; line breaks and tabs allowed`,
  `asset_id (items only): 000-001 form or a number, 1 to ${formatAssetId(MAX_ASSET_ID)}, unique`,
  'text: UTF-8, no control characters (NUL, ESC, ...), no lone surrogates or noncharacters',
  `locations nest at most ${LIMITS.maxLocationDepth} levels deep and never in a cycle`,
  'custom fields: CSV columns field.NAME, JSON "fields": {"NAME": value}; NAME declared in FIELDS_FILE; number, date (YYYY-MM-DD), url (http/https) or text (one line)',
  `one record (a CSV line or a JSON element) at most ${LIMITS.maxRecordBytes / 1024} KiB`,
];

/** A row as read from the file: raw values, plus problems the reader found (bad UTF-8, unknown fields). */
export interface RawRow {
  row: number;
  values: Partial<Record<Column, unknown>>;
  /** Custom field values as read (CSV `field.NAME` columns, JSON `fields`), checked by checkFieldValues. */
  fields?: unknown;
  /** Problems already found, by column when one column is at fault (its other checks are skipped). */
  problems?: { column?: Column; message: string }[];
}

export interface RowVerdict {
  /**
   * What to stage: present whenever kind and id are valid, even if other fields are
   * not, so other rows' parent and duplicate checks still see this row (one bad name
   * must not also make every child report a missing parent). Invalid fields are staged
   * empty; a file with any problem is never written.
   */
  staged?: StagedRow;
  problems: string[];
}

/** One row's own checks. */
export function checkRow({ row, values, fields: rawFields, problems: readerProblems = [] }: RawRow, catalogue: readonly FieldDefinition[] = []): RowVerdict {
  const problems = readerProblems.map((p) => p.message);
  const reported = new Set(readerProblems.flatMap((p) => (p.column ? [p.column] : []))); // no follow-up errors for these
  const fail = (column: Column, message: string) => {
    reported.add(column);
    problems.push(message);
  };
  const text = (column: Column): string | undefined => {
    if (reported.has(column)) return undefined;
    const v = values[column];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    fail(column, `${column} must be a string`);
    return undefined;
  };
  const missing = (column: Column) => {
    if (!reported.has(column)) fail(column, `${column} is required`);
  };

  const kindText = text('kind')?.trim() ?? '';
  let kind: RecordKind | undefined;
  if (kindText === '') missing('kind');
  else if (isRecordKind(kindText)) kind = kindText;
  else fail('kind', `unknown kind ${quoted(kindText, 20)} (expected location or item)`);

  const idText = text('id')?.trim() ?? '';
  let id: string | undefined;
  if (idText === '') missing('id');
  else if (LIMITS.idPattern.test(idText)) id = idText;
  else fail('id', `id ${quoted(idText, LIMITS.maxIdLength)} must be 1-${LIMITS.maxIdLength} characters of A-Z a-z 0-9 . _ ~ -`);

  let name = text('name')?.trim() ?? '';
  if (name === '') missing('name');
  else {
    const length = characterCount(name);
    const problem = textProblem(name, false);
    if (length > LIMITS.maxNameLength) fail('name', `name is longer than ${LIMITS.maxNameLength} characters (${length})`);
    else if (problem) fail('name', `name ${problem}: ${quoted(name, 40)}`);
  }
  if (reported.has('name')) name = '';

  let description = text('description') ?? '';
  const descriptionLength = characterCount(description);
  if (descriptionLength > LIMITS.maxDescriptionLength) fail('description', `description is longer than ${LIMITS.maxDescriptionLength} characters (${descriptionLength})`);
  else {
    const problem = textProblem(description, true);
    if (problem) fail('description', `description ${problem}: ${quoted(description, 40)}`);
  }
  if (reported.has('description')) description = '';

  let parentId = text('parent_id')?.trim() || null;
  if (parentId !== null && !LIMITS.idPattern.test(parentId)) {
    fail('parent_id', `parent_id ${quoted(parentId, LIMITS.maxIdLength)} is not a valid id`);
    parentId = null;
  } else if (parentId !== null && kind && RECORD_KIND_FACTS[kind].holdsRecords && parentId === id) {
    fail('parent_id', 'a location cannot be its own parent');
    parentId = null;
  }

  let assetId = reported.has('asset_id') ? null : assetIdOf(values.asset_id);
  if (assetId === undefined) {
    fail('asset_id', `asset_id ${describeValue(values.asset_id)} must be a positive integer up to ${formatAssetId(MAX_ASSET_ID)} or 000-001 form`);
    assetId = null;
  } else if (assetId !== null && kind && !RECORD_KIND_FACTS[kind].assetIds) {
    fail('asset_id', 'asset_id is only allowed on items');
    assetId = null;
  }

  // The one check of field values (fields.ts), as the API's record writes make it.
  let fields: FieldValues = {};
  try {
    fields = checkFieldValues(rawFields, catalogue);
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    problems.push(err.message);
  }
  const withFields = Object.keys(fields).length > 0 ? { fields } : {};
  const staged = kind && id ? { row, kind, id, name, description, parentId, assetId, ...withFields } : undefined;
  return { staged, problems };
}

/** null when absent, undefined when invalid. JSON may give a number, CSV always gives text. */
function assetIdOf(value: unknown): number | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return isAssetId(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  return value.trim() === '' ? null : parseAssetId(value);
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return quoted(value, 20);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? '(an array)' : `(${value === null ? 'null' : typeof value})`;
}

/** A header or field name from the file, safe to print. */
export function columnName(name: string): string {
  return quoted(name, 40);
}
