/**
 * The SQLite statements for records, tokens and the store's own bookkeeping, as
 * plain synchronous functions over one connection. The store runs the reads on
 * its connection on the main thread and the writes on the writer's connection
 * (sqlite-writer.ts), so both prepare them from here.
 */
import type Database from 'better-sqlite3';
import { MAX_LOCATION_DEPTH, isoTimestamp, recordValues, toRecord, toTokenInfo, type RecordRow, type TokenRow } from './rows.js';
import { formatScopes } from './tokens.js';
import { TEMPLATE_SQL, createParams, replaceParams, toSavedTemplate, type TemplateRow } from './templates-sql.js';
import type { InventoryRecord, PlacedRecord, RecordInput, RecordKey, RecordKind, SavedTemplate, Scope, TokenInfo } from './types.js';

const RECORD_COLUMNS = 'kind, id, name, description, parent_id, asset_id, updated_at';
const TOKEN_COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';

export function sqliteRecords(db: Database.Database) {
  const q = {
    get: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = ? AND id = ?`),
    byAsset: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = 'item' AND asset_id = ?`),
    // Walks up from the location; `seen` holds visited ids ('/' can't occur in an id)
    // so a parent cycle ends the walk, and depth caps absurdly deep chains.
    path: db.prepare(`
      WITH RECURSIVE chain (id, name, parent_id, depth, seen) AS (
        SELECT id, name, parent_id, 1, '/' || id || '/' FROM records WHERE kind = 'location' AND id = ?
        UNION ALL
        SELECT r.id, r.name, r.parent_id, c.depth + 1, c.seen || r.id || '/'
          FROM chain c JOIN records r ON r.kind = 'location' AND r.id = c.parent_id
         WHERE c.depth < ${MAX_LOCATION_DEPTH} AND instr(c.seen, '/' || r.id || '/') = 0
      )
      SELECT name FROM chain ORDER BY depth DESC`),
    upsert: db.prepare(`
      INSERT INTO records (${RECORD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (kind, id) DO UPDATE SET name = excluded.name, description = excluded.description,
        parent_id = excluded.parent_id, asset_id = excluded.asset_id, updated_at = excluded.updated_at`),
    count: db.prepare('SELECT COUNT(*) AS n FROM records'),
  };
  const upsertAll = db.transaction((rows: ReturnType<typeof recordValues>) => {
    for (const row of rows) q.upsert.run(row);
  });
  const one = (row: unknown) => (row ? toRecord(row as RecordRow) : undefined);
  const get = (kind: RecordKind, id: string): InventoryRecord | undefined => one(q.get.get(kind, id));
  const getItemByAssetId = (assetId: number) => one(q.byAsset.get(assetId));
  const locationPath = (id: string) => (q.path.all(id) as { name: string }[]).map((r) => r.name);
  // One read transaction: both statements see the same commit, and take the file's read lock once.
  const getWithPath = db.transaction((key: RecordKey): PlacedRecord | undefined => {
    const record = 'assetId' in key ? getItemByAssetId(key.assetId) : get(key.kind, key.id);
    return record && { record, path: record.parentId ? locationPath(record.parentId) : [] };
  });
  return {
    get,
    getItemByAssetId,
    locationPath,
    getWithPath,
    count: () => (q.count.get() as { n: number }).n,
    upsertMany: (input: RecordInput[]) => {
      upsertAll(recordValues(input, isoTimestamp(new Date())));
    },
  };
}

export function sqliteTokens(db: Database.Database) {
  const q = {
    insert: db.prepare('INSERT INTO api_tokens (id, name, scopes, hash, created_at) VALUES (?, ?, ?, ?, ?)'),
    activeByHash: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = ? AND revoked_at IS NULL`),
    touch: db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
    list: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`),
    revoke: db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    count: db.prepare('SELECT COUNT(*) AS n FROM api_tokens'),
  };
  return {
    insert: ({ id, name, scopes, hash }: { id: string; name: string; scopes: Scope[]; hash: string }): TokenInfo => {
      const createdAt = isoTimestamp(new Date());
      const scopesText = formatScopes(scopes);
      q.insert.run(id, name, scopesText, hash, createdAt);
      return toTokenInfo({ id, name, scopes: scopesText, created_at: createdAt, last_used_at: null, revoked_at: null });
    },
    /** The active token row with this hash; records nothing (see LastUseRecorder). */
    findActive: (hash: string) => q.activeByHash.get(hash) as TokenRow | undefined,
    touch: (id: string, now: string, cutoff: string) => q.touch.run(now, id, cutoff).changes > 0,
    list: () => (q.list.all() as TokenRow[]).map(toTokenInfo),
    revoke: (id: string) => q.revoke.run(isoTimestamp(new Date()), id).changes > 0,
    count: () => (q.count.get() as { n: number }).n,
  };
}

/** The store's own rows (migration 6): the write probe's heartbeat. */
export function sqliteMeta(db: Database.Database) {
  const q = {
    schemaVersion: db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations'),
    probe: db.prepare(`INSERT INTO store_meta (key, value) VALUES ('write_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
  };
  return {
    /** A real read of the database file (not just of the connection). */
    read: () => (q.schemaVersion.get() as { v: number }).v,
    /** A real write: one small row, committed like any other write. */
    probe: () => {
      q.probe.run(new Date().toISOString());
    },
  };
}

/** Saved label templates (migration 7); put and delete run on the writer. */
export function sqliteTemplates(db: Database.Database) {
  const q = {
    list: db.prepare(TEMPLATE_SQL.list),
    get: db.prepare(TEMPLATE_SQL.get),
    count: db.prepare(TEMPLATE_SQL.count),
    create: db.prepare(TEMPLATE_SQL.create),
    replace: db.prepare(TEMPLATE_SQL.replace),
    delete: db.prepare(TEMPLATE_SQL.delete),
  };
  return {
    list: () => (q.list.all() as TemplateRow[]).map(toSavedTemplate),
    get: (name: string) => {
      const row = q.get.get(name) as TemplateRow | undefined;
      return row && toSavedTemplate(row);
    },
    count: () => (q.count.get() as { n: number }).n,
    put: (t: SavedTemplate, ifEtag: string | null) => (ifEtag === null ? q.create.run(createParams(t)) : q.replace.run(replaceParams(t, ifEtag))).changes > 0,
    delete: (name: string, ifEtag: string) => q.delete.run(name, ifEtag).changes > 0,
  };
}
