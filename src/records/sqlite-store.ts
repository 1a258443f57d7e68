/**
 * SQLite store (better-sqlite3). Calls are synchronous and fast; the async wrappers
 * only satisfy the shared contract.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, migrationSql, pendingMigrations, type Migration } from './migrations.js';
import { MAX_LOCATION_DEPTH, isoTimestamp, lastUseToRecord, recordValues, toRecord, toTokenInfo, type RecordRow, type TokenRow } from './rows.js';
import { formatScopes } from './tokens.js';
import { sqlitePrintJobs } from './print-jobs-sqlite.js';
import { sqliteRecordSearch } from './search-sqlite.js';
import type { RecordStore, Store, TokenStore } from './types.js';

const RECORD_COLUMNS = 'kind, id, name, description, parent_id, asset_id, updated_at';
const TOKEN_COLUMNS = 'id, name, scopes, created_at, last_used_at, revoked_at';

/**
 * Applies pending migrations in one IMMEDIATE transaction: the write lock is taken
 * up front, so two processes opening the same file serialize instead of both
 * reading version N and then failing to upgrade their locks.
 */
export function migrateSqlite(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(SCHEMA_MIGRATIONS_DDL);
  const apply = db.transaction(() => {
    const { v } = db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number };
    const pending = pendingMigrations(v, migrations);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of pending) {
      db.exec(migrationSql(m, 'sqlite'));
      record.run(m.version, m.name, isoTimestamp(new Date()));
    }
    return pending.map((m) => m.version);
  });
  return apply.immediate();
}

export function openSqliteStore(path: string): Store {
  const inMemory = path === ':memory:' || path === '';
  if (!inMemory) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL'); // readers don't block the writer (no-op in memory)
    // FULL: a committed print job survives power loss, as the API promises. Writes are
    // rare here (jobs, imports, a token's last use once a minute), so the fsyncs are cheap.
    db.pragma('synchronous = FULL');
    // Wait briefly for another process's write lock (a CLI import); better-sqlite3 blocks the
    // event loop meanwhile, so keep it short: past it, SQLITE_BUSY becomes a 503.
    db.pragma('busy_timeout = 1000');
    db.pragma('foreign_keys = ON'); // off by default in SQLite; enforce any foreign key a migration declares
    migrateSqlite(db);
    return createStore(db);
  } catch (err) {
    db.close();
    throw err;
  }
}

function createStore(db: Database.Database): Store {
  // Prepared once: better-sqlite3 statements are reusable and compiling is the costly part.
  const q = {
    ping: db.prepare('SELECT 1'),
    getRecord: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = ? AND id = ?`),
    getByAsset: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = 'item' AND asset_id = ?`),
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
    countRecords: db.prepare('SELECT COUNT(*) AS n FROM records'),
    insertToken: db.prepare('INSERT INTO api_tokens (id, name, scopes, hash, created_at) VALUES (?, ?, ?, ?, ?)'),
    activeByHash: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = ? AND revoked_at IS NULL`),
    touchToken: db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)'),
    listTokens: db.prepare(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`),
    revoke: db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    countTokens: db.prepare('SELECT COUNT(*) AS n FROM api_tokens'),
  };

  const upsertAll = db.transaction((rows: ReturnType<typeof recordValues>) => {
    for (const row of rows) q.upsert.run(row);
  });

  const getRecord = (kind: string, id: string) => {
    const row = q.getRecord.get(kind, id) as RecordRow | undefined;
    return row && toRecord(row);
  };

  const records: RecordStore = {
    getLocation: async (id) => getRecord('location', id),
    getItem: async (id) => getRecord('item', id),
    getItemByAssetId: async (assetId) => {
      const row = q.getByAsset.get(assetId) as RecordRow | undefined;
      return row && toRecord(row);
    },
    locationPath: async (id) => (q.path.all(id) as { name: string }[]).map((r) => r.name),
    upsertMany: async (input) => {
      upsertAll(recordValues(input, isoTimestamp(new Date())));
    },
    count: async () => (q.countRecords.get() as { n: number }).n,
  };

  const tokens: TokenStore = {
    insert: async ({ id, name, scopes, hash }) => {
      const createdAt = isoTimestamp(new Date());
      const scopesText = formatScopes(scopes);
      q.insertToken.run(id, name, scopesText, hash, createdAt);
      return toTokenInfo({ id, name, scopes: scopesText, created_at: createdAt, last_used_at: null, revoked_at: null });
    },
    findActiveByHash: async (hash) => {
      const row = q.activeByHash.get(hash) as TokenRow | undefined;
      if (!row) return undefined;
      const use = lastUseToRecord(row.last_used_at);
      if (use && q.touchToken.run(use.now, row.id, use.cutoff).changes > 0) row.last_used_at = use.now;
      return toTokenInfo(row);
    },
    list: async () => (q.listTokens.all() as TokenRow[]).map(toTokenInfo),
    revoke: async (id) => q.revoke.run(isoTimestamp(new Date()), id).changes > 0,
    count: async () => (q.countTokens.get() as { n: number }).n,
  };

  return {
    records,
    tokens,
    printJobs: sqlitePrintJobs(db),
    search: sqliteRecordSearch(db),
    ping: async () => {
      q.ping.get();
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}

