/**
 * `labelmaker backup <file>`: a consistent copy of a SQLite database, taken while the
 * service runs and writes, through SQLite's online backup API (better-sqlite3's
 * backup()): the copy is the database as of one commit, never a torn mix of two, and
 * writers are not stopped. A plain `cp` of a database in WAL mode is neither.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';

export class BackupError extends Error {}

export interface BackupResult {
  records: number;
  tokens: number;
  schemaVersion: number;
  bytes: number;
}

export async function backupSqliteDatabase(path: string, target: string): Promise<BackupResult> {
  if (!existsSync(path)) throw new BackupError(`no database at ${path}`);
  if (existsSync(target)) throw new BackupError(`${target} already exists; name a new file (a backup never overwrites one)`);
  const source = new Database(path, { readonly: true, fileMustExist: true });
  // Written beside the target, then renamed: a backup file is whole or absent.
  const partial = `${target}.partial-${process.pid}`;
  try {
    source.pragma('busy_timeout = 10000'); // a checkpoint or a migration holding a lock: wait, do not fail
    // All remaining pages in one step, under one read transaction: a step-wise copy restarts
    // whenever another connection commits between steps, which a busy service always does.
    await source.backup(partial, { progress: () => 0x7fffffff });
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    source.close();
  }
  let result: BackupResult;
  const copy = new Database(partial);
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`the copy failed SQLite's check (${String(check)}); it was not kept`);
    // One file, no -wal beside it: a backup is moved and copied as it is.
    copy.pragma('journal_mode = DELETE');
    const count = (table: string) => (copy.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    result = {
      records: count('records'),
      tokens: count('api_tokens'),
      schemaVersion: (copy.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v,
      bytes: (copy.pragma('page_count', { simple: true }) as number) * (copy.pragma('page_size', { simple: true }) as number),
    };
  } catch (err) {
    copy.close();
    rmSync(partial, { force: true });
    throw err;
  }
  copy.close();
  renameSync(partial, target);
  return result;
}
