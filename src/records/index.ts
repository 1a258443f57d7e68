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
export { ALL_SCOPES } from './types.js';
export { formatAssetId, parseAssetId } from './asset-id.js';
export { generateToken, hashToken, parseScopes, parseToken } from './tokens.js';
export { importRecords, parseRecords } from './import.js';
export { demoRecords } from './demo.js';

export { DatabaseMissingError } from './sqlite-file.js';
export { isStoreUnavailable, storeFaultOf, unavailableDetail } from './errors.js';

export async function openStore(url: string, options: StoreOptions = {}): Promise<Store> {
  // Drivers load lazily: a PostgreSQL deployment never loads the native SQLite addon.
  if (/^postgres(ql)?:\/\//i.test(url)) return (await import('./postgres-store.js')).openPostgresStore(url, options);
  if (/^sqlite:/i.test(url)) return openSqlite(url.slice('sqlite:'.length), options);
  // Name only the scheme: the rest of a URL may carry a password.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1];
  if (scheme) throw new Error(`unsupported store URL scheme '${scheme}:': use postgres://, postgresql://, sqlite: or a file path`);
  return openSqlite(url, options);
}

async function openSqlite(path: string, options: StoreOptions): Promise<Store> {
  if (path.trim() === '') throw new Error('empty SQLite path: use a file path or :memory:');
  return (await import('./sqlite-store.js')).openSqliteStore(path, options);
}
