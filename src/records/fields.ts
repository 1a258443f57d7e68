/**
 * Custom record fields (issue 32): the deployment's field catalogue (FIELDS_FILE, read at
 * start) and the ONE check of a record's field values against it. The CLI import calls
 * checkFieldValues for every row; the API's record writes call the same function, so both
 * paths accept and refuse exactly the same values. Pure: no I/O, no store.
 */

export type FieldType = 'text' | 'number' | 'date' | 'url';
export const FIELD_TYPES: readonly FieldType[] = ['text', 'number', 'date', 'url'];

export interface FieldDefinition {
  /** Safe identifier: what records, templates (`{best_before}`) and searches (`field.best_before`) name it by. */
  name: string;
  /** What people read (the studio's designer). */
  title: string;
  type: FieldType;
  /** number: smallest and largest value; date: earliest and latest ISO date (YYYY-MM-DD). */
  min?: number | string;
  max?: number | string;
  /** text and url: most characters (at most FIELD_LIMITS.maxTextLength). */
  maxLength?: number;
}

/** The deployment's catalogue and where it came from (FIELDS_FILE; undefined: no file, no fields). */
export interface FieldCatalogue {
  fields: readonly FieldDefinition[];
  file: string | undefined;
}

/** A stored value: text, url and date (YYYY-MM-DD) as strings, number as a number. */
export type FieldValue = string | number;
export type FieldValues = Record<string, FieldValue>;

export const FIELD_LIMITS = {
  /** A field's name: a lower-case identifier, so it is safe in a placeholder, a query parameter and JSON. */
  namePattern: /^[a-z][a-z0-9_]{0,39}$/,
  maxFields: 50,
  maxTitleLength: 80,
  /** Longest text or url value (characters); a field may set a smaller maxLength. */
  maxTextLength: 500,
} as const;

/** Names a field may not take: the placeholders a template line already has. */
export const RESERVED_FIELD_NAMES: readonly string[] = ['name', 'id', 'kind', 'path', 'description', 'assetid', 'assetdigits', 'url'];

export class FieldError extends Error {
  constructor(
    /** The field at fault (a catalogue entry or a record's value), or undefined for the whole. */
    readonly field: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'FieldError';
  }
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date in YYYY-MM-DD form (2026-02-30 is not one). */
export function isIsoDate(text: string): boolean {
  const m = ISO_DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === text;
}

function isHttpUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text)) return false;
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Controls (line breaks included), lone surrogates and noncharacters: never in a field value. */
function hasBadCharacters(text: string): boolean {
  return /[\p{Cc}\p{Cs}\u2028\u2029\uFDD0-\uFDEF\uFFFE\uFFFF]/u.test(text);
}

/**
 * A catalogue as written (FIELDS_FILE's `fields` list), checked: throws a FieldError
 * naming the entry and what is wrong with it.
 */
export function parseCatalogue(raw: unknown): FieldDefinition[] {
  if (!Array.isArray(raw)) throw new FieldError(undefined, 'fields must be a list');
  if (raw.length > FIELD_LIMITS.maxFields) throw new FieldError(undefined, `at most ${FIELD_LIMITS.maxFields} fields (${raw.length} given)`);
  const seen = new Set<string>();
  return raw.map((entry: unknown, i) => {
    const at = `fields[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new FieldError(undefined, `${at} must be an object`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !['name', 'title', 'type', 'min', 'max', 'maxLength'].includes(k));
    if (unknown.length > 0) throw new FieldError(undefined, `${at}: unknown key ${unknown[0]} (name, title, type, min, max, maxLength)`);
    const name = e.name;
    if (typeof name !== 'string' || !FIELD_LIMITS.namePattern.test(name)) {
      throw new FieldError(undefined, `${at}.name must be 1-40 characters of a-z 0-9 _, starting with a letter`);
    }
    const where = `field ${name}`;
    if (RESERVED_FIELD_NAMES.includes(name.toLowerCase())) throw new FieldError(name, `${where}: the name is a built-in placeholder (${RESERVED_FIELD_NAMES.join(', ')})`);
    if (seen.has(name)) throw new FieldError(name, `${where} is declared twice`);
    seen.add(name);
    const title = e.title ?? name;
    if (typeof title !== 'string' || title.trim() === '' || Array.from(title).length > FIELD_LIMITS.maxTitleLength || hasBadCharacters(title)) {
      throw new FieldError(name, `${where}: title must be 1-${FIELD_LIMITS.maxTitleLength} characters on one line`);
    }
    const type = e.type;
    if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) throw new FieldError(name, `${where}: type must be one of ${FIELD_TYPES.join(', ')}`);
    const def: FieldDefinition = { name, title: title.trim(), type: type as FieldType };
    for (const bound of ['min', 'max'] as const) {
      const v = e[bound];
      if (v === undefined) continue;
      if (type === 'number' && typeof v === 'number' && Number.isFinite(v)) def[bound] = v;
      else if (type === 'date' && typeof v === 'string' && isIsoDate(v)) def[bound] = v;
      else throw new FieldError(name, `${where}: ${bound} is only for number (a number) and date (YYYY-MM-DD) fields`);
    }
    if (def.min !== undefined && def.max !== undefined && def.min > def.max) throw new FieldError(name, `${where}: min is larger than max`);
    if (e.maxLength !== undefined) {
      const n = e.maxLength;
      if ((type !== 'text' && type !== 'url') || typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > FIELD_LIMITS.maxTextLength) {
        throw new FieldError(name, `${where}: maxLength is for text and url fields, 1 to ${FIELD_LIMITS.maxTextLength}`);
      }
      def.maxLength = n;
    }
    return def;
  });
}

/**
 * THE check of a record's field values (import and API write paths alike): `values` as
 * sent (an object of name -> value; null or '' leaves a field unset), checked against
 * the catalogue. Returns the values as stored (numbers from CSV text parsed, text trimmed),
 * or throws a FieldError naming the first field at fault. A number is a finite number (JSON
 * number, or decimal text from CSV), a date an ISO calendar date (YYYY-MM-DD), a url an
 * absolute http(s) URL; text is one line, no control characters.
 */
export function checkFieldValues(values: unknown, catalogue: readonly FieldDefinition[]): FieldValues {
  if (values === undefined || values === null) return {};
  if (typeof values !== 'object' || Array.isArray(values)) throw new FieldError(undefined, 'fields must be an object of field names and values');
  const byName = new Map(catalogue.map((f) => [f.name, f]));
  const out: FieldValues = {};
  for (const [name, raw] of Object.entries(values as Record<string, unknown>)) {
    const def = byName.get(name);
    if (!def) {
      const known = catalogue.length === 0 ? 'no fields are declared (FIELDS_FILE)' : `declared: ${catalogue.map((f) => f.name).join(', ')}`;
      throw new FieldError(name, `unknown field ${name.slice(0, 40)} (${known})`);
    }
    if (raw === null || raw === undefined || raw === '') continue;
    out[name] = checkValue(def, raw);
  }
  // One order whatever the input's: the stored JSON of equal values is equal text (an unchanged re-import writes nothing).
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

function checkValue(def: FieldDefinition, raw: unknown): FieldValue {
  const bad = (what: string) => new FieldError(def.name, `field ${def.name}: ${what}`);
  switch (def.type) {
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(n)) throw bad(`${shown(raw)} is not a number`);
      if (typeof def.min === 'number' && n < def.min) throw bad(`${n} is less than ${def.min}`);
      if (typeof def.max === 'number' && n > def.max) throw bad(`${n} is more than ${def.max}`);
      return n;
    }
    case 'date': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (!isIsoDate(text)) throw bad(`${shown(raw)} is not an ISO date (YYYY-MM-DD)`);
      if (typeof def.min === 'string' && text < def.min) throw bad(`${text} is before ${def.min}`);
      if (typeof def.max === 'string' && text > def.max) throw bad(`${text} is after ${def.max}`);
      return text;
    }
    case 'url':
    case 'text': {
      if (typeof raw !== 'string') throw bad(`${shown(raw)} is not text`);
      const text = raw.trim();
      const max = def.maxLength ?? FIELD_LIMITS.maxTextLength;
      const length = Array.from(text).length;
      if (length > max) throw bad(`longer than ${max} characters (${length})`);
      if (hasBadCharacters(text)) throw bad('has a line break or a control character');
      if (def.type === 'url' && !isHttpUrl(text)) throw bad(`${shown(text)} is not an http(s) URL`);
      return text;
    }
  }
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `'${Array.from(value).slice(0, 30).join('')}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : String(value);
}

/** Stored form of values: JSON text, or null for none (the records.fields column, migration 19). */
export function fieldsColumn(values: FieldValues | undefined): string | null {
  return values && Object.keys(values).length > 0 ? JSON.stringify(values) : null;
}

/** Values from the records.fields column. */
export function fieldsFromColumn(text: string | null | undefined): FieldValues {
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as FieldValues) : {};
  } catch {
    return {};
  }
}
