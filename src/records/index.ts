/**
 * Entry point of the data layer: picks the store from a URL so configuration is one
 * string (e.g. LABELMAKER_DB).
 *
 *   postgres://… | postgresql://…   → PostgreSQL
 *   sqlite:path/to.db | sqlite:/abs/to.db | sqlite::memory:  → SQLite
 *   a plain path (no `scheme://`)    → SQLite
 */
import type { Store, StoreOptions } from './types.js';

export type * from './types.js';
export { ALL_SCOPES, API_SCOPES, DEMO_SCOPES, INTEGRATION_SCOPES } from './types.js';
export { formatAssetId, parseAssetId } from './asset-id.js';
export { isLabelKind, isRecordKind, LABEL_KIND_FACTS, LABEL_KINDS, labelKindsOf, RECORD_KIND_FACTS, RECORD_KINDS, type LabelKind, type LabelKindFacts } from './kinds.js';
export { generateToken, hashToken, parseScopes, parseToken } from './tokens.js';
export { importFile, importRecords, LIMITS, MAX_LISTED, RULES_TEXT, type ImportFormat, type ImportProgress, type ImportResult } from './import/import.js';
export { checkSampleRecord, deleteRecord, InvalidRecordsError, putRecord, recordEtag, type RecordPrecondition } from './import/write.js';
export { demoRecords } from './demo.js';
export { printable, printableLines } from './text-rules.js';
export { isoTimestamp } from './rows.js';
export { checkFieldValues, FIELD_LIMITS, FIELD_TYPES, FieldError, parseCatalogue, type FieldCatalogue, type FieldDefinition, type FieldType, type FieldValue, type FieldValues } from './fields.js';

export { DatabaseMissingError } from './sqlite/file.js';
export { storeFaultOf, storeUnavailable, StoreUnavailableError } from './errors.js';

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  // Drivers load lazily: a PostgreSQL deployment never loads the native SQLite addon.
  const path = sqlitePathOf(url);
  if (path === undefined) return (await import('./postgres/store.js')).openPostgresStore(url, options);
  return (await import('./sqlite/store.js')).openSqliteStore(path, options);
}

/** The SQLite path a store URL names; undefined for PostgreSQL. Throws on anything else. */
export function sqlitePathOf(url: string): string | undefined {
  if (/^postgres(ql)?:\/\//i.test(url)) return undefined;
  const sqlite = /^sqlite:/i.test(url);
  // Name only the scheme: the rest of a URL may carry a password.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme && !sqlite) throw new Error(`unsupported store URL scheme '${scheme}:': use postgres://, postgresql://, sqlite: or a file path`);
  const path = sqlite ? url.slice('sqlite:'.length) : url;
  if (path.trim() === '') throw new Error('empty SQLite path: use a file path or :memory:');
  return path;
}
