/**
 * `labelmaker restore <file>`: puts a backup or a rescue copy back in place of a lost
 * SQLite database, safely. A plain `cp` is not safe when the lost database left its
 * `-wal` file behind: SQLite would replay those pages into the restored file.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { LATEST_VERSION } from '../migrations.js';
import { writeMarker } from './file.js';

export class RestoreError extends Error {}

export interface RestoreResult {
  records: number;
  tokens: number;
  /** Jobs accepted but not yet printed, which the worker delivers after the next start. */
  pendingJobs: number;
  movedAside: string[];
}

export function restoreSqliteDatabase(source: string, path: string): RestoreResult {
  if (existsSync(path)) {
    throw new RestoreError(`a database already exists at ${path}; stop Labelmaker and move it aside first if you mean to replace it`);
  }
  const counts = inspect(source);
  mkdirSync(dirname(path), { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:.]/g, '');
  const movedAside: string[] = [];
  for (const leftover of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (!existsSync(leftover)) continue;
    renameSync(leftover, `${leftover}.orphaned-${stamp}`);
    movedAside.push(`${leftover}.orphaned-${stamp}`);
  }
  // Copy next to the target, then rename: the database appears whole or not at all.
  const partial = `${path}.restoring-${stamp}`;
  try {
    copyFileSync(source, partial);
    releaseLeases(partial);
    renameSync(partial, path);
  } finally {
    rmSync(partial, { force: true });
  }
  writeMarker(path, `Restored from ${source} at ${new Date().toISOString()}.`);
  return { ...counts, movedAside };
}

/**
 * Jobs that were being printed when the database was lost hold leases of a process that
 * is gone (restore runs with Labelmaker stopped): make them due at once instead of after
 * their lease. Their earlier attempt may have printed; the worker's retry rules apply.
 */
function releaseLeases(file: string): void {
  const db = new Database(file);
  try {
    const hasJobs = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'print_jobs'`).get();
    if (hasJobs) db.prepare(`UPDATE print_jobs SET lease_expires_at = ? WHERE state = 'printing'`).run(new Date().toISOString());
  } finally {
    db.close();
  }
}

/** Opens the source read-only and checks it is a sound Labelmaker database this build can use. */
function inspect(source: string): Omit<RestoreResult, 'movedAside'> {
  if (!existsSync(source)) throw new RestoreError(`no such file: ${source}`);
  let db: Database.Database;
  try {
    db = new Database(source, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new RestoreError(`${source} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new RestoreError(`${source} is damaged (quick_check: ${String(check)})`);
    const hasMigrations = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
    if (!hasMigrations) throw new RestoreError(`${source} is not a Labelmaker database (it has no schema_migrations table)`);
    const version = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
    if (version > LATEST_VERSION) throw new RestoreError(`${source} was written by a newer Labelmaker (schema version ${version}); upgrade first`);
    const count = (table: string) =>
      db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table)
        ? (db.prepare(`SELECT COUNT(*) AS n FROM ${table}${table === 'print_jobs' ? ` WHERE state IN ('queued', 'printing')` : ''}`).get() as { n: number }).n
        : 0;
    return { records: count('records'), tokens: count('api_tokens'), pendingJobs: count('print_jobs') };
  } catch (err) {
    if (err instanceof RestoreError) throw err;
    throw new RestoreError(`${source} cannot be read: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
