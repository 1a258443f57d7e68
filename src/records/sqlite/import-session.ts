/**
 * Import sessions on SQLite. Everything before the write happens outside the
 * database's write lock, so the service's own writes (print jobs, token use) never
 * wait for a large file to be read and checked:
 * - rows are staged in TEMP tables: the temp database is private to this connection
 *   and spills to a temporary file, so staging takes no lock on the database file and
 *   its memory stays bounded;
 * - the checks run in a read transaction (WAL: readers never block the writer);
 * - only the write (one INSERT ... SELECT in key order) holds the lock, in a
 *   BEGIN IMMEDIATE transaction that first re-reads the records revision.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { fieldsColumn } from '../fields.js';
import { readRevision } from '../import/checks.js';
import { takeSyncKey } from '../sql/record-syncs.js';
import type { ImportFileJob, ImportResult, ImportSession, RecordImports, StagedRow } from '../types.js';
import { deserializeError, threadEntry, type SerializedError } from './writer.js';

const STAGING_TABLES = ['import_staging', 'import_rows', 'import_problems', 'import_tree', 'import_asset_moves', 'import_unchanged'];

/**
 * Page cache for the write (KiB), instead of the connection's usual 16 MB: a large
 * import's index updates then hit memory rather than re-reading pages, which keeps
 * the write lock short. Restored after the write.
 */
const WRITE_CACHE_KIB = 64 * 1024;

/** How long the write waits for the database's write lock (another writer) before giving up. */
const WRITE_LOCK_WAIT_MS = 60_000;

/** `onWritten`: after each committed write (the store's change stamp counts them). */
export function sqliteImports(db: Database.Database, onWritten: () => void = () => {}): RecordImports {
  // The staging tables are per connection: sessions on one connection take turns.
  let turn: Promise<void> = Promise.resolve();
  let active = false;
  return {
    begin: async (options) => {
      let release!: () => void;
      const previous = turn;
      turn = new Promise<void>((resolve) => (release = resolve));
      if (active) options?.onWait?.();
      await previous;
      active = true;
      try {
        return openSession(db, onWritten, () => {
          active = false;
          release();
        });
      } catch (err) {
        active = false;
        release();
        throw err;
      }
    },
  };
}

/** What an import thread (import-thread.ts) answers, once. */
export type ImportThreadMessage = { ok: true; result: ImportResult } | { ok: false; error: SerializedError };

/**
 * Whole-file imports (RecordImports.importFile) each on a thread of its own, over its own
 * connection to the database at `path`: the event loop of the thread that asked stays
 * free. Imports on other connections take turns at the write (the records revision,
 * import/import.ts), as a CLI import in another process does. `close` stops the ones
 * still running: their transactions never commit, so nothing of them is written.
 */
export function sqliteImportThreads(path: string): { importFile: (job: ImportFileJob) => Promise<ImportResult>; close: () => Promise<void> } {
  const running = new Set<Worker>();
  return {
    importFile: (job) =>
      new Promise<ImportResult>((resolve, reject) => {
        const { url, execArgv } = threadEntry('import-thread');
        const worker = new Worker(url, { workerData: { path, job }, execArgv });
        running.add(worker);
        let answered = false;
        worker.once('message', (m: ImportThreadMessage) => {
          answered = true;
          if (m.ok) resolve(m.result);
          else reject(deserializeError(m.error));
        });
        worker.once('error', (err) => {
          answered = true;
          reject(err);
        });
        worker.once('exit', (code) => {
          running.delete(worker);
          if (!answered) reject(new Error(`the import thread stopped (exit code ${code}); nothing was written`));
        });
      }),
    close: async () => {
      await Promise.all([...running].map((w) => w.terminate()));
    },
  };
}

function openSession(db: Database.Database, onWritten: () => void, onClose: () => void): ImportSession {
  dropStaging(db);
  // Rows are appended in file order (cheap), then copied into import_rows in key
  // order by SQLite's external sort (see staged()): the checks find rows by key, and
  // the write, under the lock, reads them sequentially in the records' key order.
  db.exec(`
    CREATE TEMP TABLE import_staging (
      row_no INTEGER NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
      description TEXT NOT NULL, parent_id TEXT, asset_id INTEGER, fields TEXT
    );
    CREATE TEMP TABLE import_problems (row_no INTEGER NOT NULL, code TEXT NOT NULL, kind TEXT, ref TEXT, asset_id INTEGER, other_row INTEGER);
    CREATE TEMP TABLE import_tree (id TEXT NOT NULL PRIMARY KEY, parent_id TEXT, row_no INTEGER, gen INTEGER NOT NULL, depth INTEGER);
    CREATE INDEX temp.import_tree_parent ON import_tree (parent_id);
    CREATE INDEX temp.import_tree_gen ON import_tree (gen);
    CREATE INDEX temp.import_tree_depth ON import_tree (depth);
    CREATE TEMP TABLE import_asset_moves (id TEXT NOT NULL PRIMARY KEY);
    CREATE TEMP TABLE import_unchanged (row_no INTEGER NOT NULL PRIMARY KEY);
  `);
  const insert = db.prepare('INSERT INTO temp.import_staging (row_no, kind, id, name, description, parent_id, asset_id, fields) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  // One transaction per batch: it writes only the temp database, so it takes no lock on the file.
  const stageBatch = db.transaction((rows: readonly StagedRow[]) => {
    for (const r of rows) insert.run(r.row, r.kind, r.id, r.name, r.description, r.parentId, r.assetId, fieldsColumn(r.fields));
  });
  let closed = false;
  // Statistics let the planner drive each check from the side that is smaller: without
  // them it may scan the whole records table to check a ten-row file. Sampled
  // (analysis_limit), so they cost milliseconds even for a million rows.
  const analyze = (table: string) => {
    const limit = db.pragma('analysis_limit', { simple: true }) as number;
    db.pragma('analysis_limit = 1000');
    try {
      db.exec(`ANALYZE temp.${table}`);
    } finally {
      db.pragma(`analysis_limit = ${limit}`);
    }
  };

  const session: ImportSession = {
    dialect: 'sqlite',
    stage: async (rows) => {
      stageBatch(rows);
    },
    staged: async () => {
      db.exec(`
        CREATE TEMP TABLE import_rows (
          row_no INTEGER NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
          description TEXT NOT NULL, parent_id TEXT, asset_id INTEGER, fields TEXT,
          PRIMARY KEY (kind, id, row_no)
        ) WITHOUT ROWID;
        INSERT INTO import_rows SELECT * FROM import_staging ORDER BY kind, id, row_no;
        DROP TABLE import_staging;
        CREATE INDEX temp.import_rows_asset ON import_rows (asset_id) WHERE asset_id IS NOT NULL;
      `);
      analyze('import_rows');
    },
    analyze: async (table) => analyze(table),
    takeSyncKey: (key, response) => takeSyncKey(session, key, response),
    run: async (sql, params = []) => db.prepare(sql).run(...params).changes,
    all: async <T>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as T[],
    snapshot: async (fn) => {
      db.exec('BEGIN');
      try {
        const revision = await readRevision(session); // the first read fixes the snapshot
        await fn();
        db.exec('COMMIT');
        return revision;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    },
    write: async (revision, fn) => {
      const cacheSize = db.pragma('cache_size', { simple: true }) as number;
      db.pragma(`cache_size = -${WRITE_CACHE_KIB}`);
      try {
        await beginImmediate(db);
        const locked = performance.now();
        if ((await readRevision(session)) !== revision) {
          db.exec('ROLLBACK');
          return { outcome: 'stale', lockMs: performance.now() - locked };
        }
        await fn();
        db.exec('COMMIT');
        onWritten();
        return { outcome: 'written', lockMs: performance.now() - locked };
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      } finally {
        db.pragma(`cache_size = ${cacheSize}`);
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        if (db.open) {
          if (db.inTransaction) db.exec('ROLLBACK');
          dropStaging(db);
        }
      } finally {
        onClose();
      }
    },
  };
  return session;
}

/** Takes the write lock, waiting out other writers (each try waits busy_timeout) up to WRITE_LOCK_WAIT_MS. */
async function beginImmediate(db: Database.Database): Promise<void> {
  const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

function dropStaging(db: Database.Database): void {
  for (const table of STAGING_TABLES) db.exec(`DROP TABLE IF EXISTS temp.${table}`);
}
