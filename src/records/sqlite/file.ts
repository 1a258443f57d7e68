/**
 * The SQLite database as a file an operator can delete, replace or lose.
 *
 * - A marker file beside the database (`<db>.marker`) records that a database lives
 *   at this path. A database that is missing while its marker, its `-wal` file or a
 *   rescue copy is still there was lost, not never created: opening refuses to put an
 *   empty database in its place (DatabaseMissingError says what to do). A first start
 *   on an empty path creates the database and says so.
 * - SQLite keeps writing into a database file that was deleted while open (Linux keeps
 *   the inode alive for open descriptors), and after a restart all of it is gone. The
 *   store compares the path's inode with the one it opened before every write and
 *   once a second; when they differ, writes stop and the last state is saved beside
 *   the path (`<db>.rescued-<time>`) while the process can still read it.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreNotWritableError, type StoreFault } from '../errors.js';

export interface FileIdentity {
  dev: number;
  ino: number;
}

export function identityOf(path: string): FileIdentity | undefined {
  try {
    const { dev, ino } = statSync(path);
    return { dev, ino };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** How the path differs from the file we opened, if it does. */
export function identityChange(path: string, opened: FileIdentity): 'deleted' | 'replaced' | undefined {
  let now: FileIdentity | undefined;
  try {
    now = identityOf(path);
  } catch {
    return undefined; // can't tell (e.g. EACCES on the folder): that is not evidence of a loss
  }
  if (!now) return 'deleted';
  return now.dev === opened.dev && now.ino === opened.ino ? undefined : 'replaced';
}

export function missingFault(change: 'deleted' | 'replaced'): StoreFault {
  return {
    state: 'missing',
    detail:
      change === 'deleted'
        ? 'The database file was deleted while the service was running; writes are stopped until an operator restores it.'
        : 'The database file was replaced while the service was running; writes are stopped until the service is restarted on the new file.',
  };
}

export function notWritable(fault: StoreFault): StoreNotWritableError {
  return new StoreNotWritableError(fault.state, fault.detail);
}

export const markerPath = (path: string) => `${path}.marker`;
const RESCUE_INFIX = '.rescued-';

/** Files that show a database has lived at this path (used when the database itself is missing). */
export function evidenceOfPriorUse(path: string): string[] {
  const found = [markerPath(path), `${path}-wal`, `${path}-journal`].filter((p) => existsSync(p));
  try {
    const prefix = basename(path) + RESCUE_INFIX;
    found.push(...readdirSync(dirname(path)).filter((f) => f.startsWith(prefix)).sort().map((f) => join(dirname(path), f)));
  } catch {
    // no folder: nothing was there
  }
  return found;
}

export class DatabaseMissingError extends Error {
  constructor(
    readonly path: string,
    readonly evidence: string[],
  ) {
    const rescues = evidence.filter((e) => e.includes(RESCUE_INFIX));
    super(
      [
        `the SQLite database ${path} is missing, but ${evidence.map((e) => basename(e)).join(', ')} show${evidence.length === 1 ? 's' : ''} that one was there.`,
        'Labelmaker does not create an empty database in place of a lost one.',
        `  To restore it: stop every Labelmaker process using it, run \`labelmaker restore ${rescues.at(-1) ?? '<your backup>'}\`${rescues.length > 0 ? ' (the rescue copy saved when it was lost; or a backup)' : ''}, and start again.`,
        '  To start over with an empty database on purpose: run `labelmaker init` with the same DATABASE_URL, then start.',
      ].join('\n'),
    );
    this.name = 'DatabaseMissingError';
  }
}

/**
 * Run before opening: refuses a lost database, or prepares the path for a new one.
 * `init` (the operator asked for a new database) moves a lost database's leftover
 * -wal/-shm aside, since SQLite would replay them into the new file.
 */
export function prepareDatabasePath(path: string, mode: 'first-start' | 'init'): { created: boolean; movedAside: string[] } {
  if (existsSync(path)) return { created: false, movedAside: [] };
  const evidence = evidenceOfPriorUse(path);
  if (evidence.length > 0 && mode !== 'init') throw new DatabaseMissingError(path, evidence);
  mkdirSync(dirname(path), { recursive: true });
  const movedAside: string[] = [];
  for (const leftover of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (!existsSync(leftover)) continue;
    const aside = `${leftover}.orphaned-${stamp()}`;
    renameSync(leftover, aside);
    movedAside.push(aside);
  }
  return { created: true, movedAside };
}

/** Writes (or rewrites) the marker; best effort: a read-only folder must not stop reads. */
export function writeMarker(path: string, note = ''): boolean {
  try {
    writeFileSync(
      markerPath(path),
      [
        `A Labelmaker SQLite database lives at ${basename(path)} (marker written ${new Date().toISOString()}).`,
        'While this file is here, Labelmaker refuses to start with that database missing, instead of',
        'creating an empty one in its place. Keep it next to the database; see docs/operations.md.',
        note,
      ]
        .filter(Boolean)
        .join('\n') + '\n',
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Saves what the open connection still sees of a deleted or replaced database to
 * `<path>.rescued-<time>` (recreating its folder if that went too), and leaves a
 * marker so a restart refuses to start on an empty database. Returns the copy's path.
 */
export function rescueCopy(db: Database.Database, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  const target = `${path}${RESCUE_INFIX}${stamp()}`;
  db.prepare('VACUUM INTO ?').run(target);
  writeMarker(path, `The database was lost while in use; its last state was saved to ${basename(target)}.`);
  return target;
}

/** 20261121T101530123Z: sortable, and safe in a file name. */
function stamp(): string {
  return new Date().toISOString().replace(/[-:.]/g, '');
}
