/**
 * A whole-file import on a thread of its own (import-session.ts sqliteImportThreads): its
 * own connection to the database, its own staging tables, and the import's one path
 * (import/import.ts importRecords). better-sqlite3 is synchronous: reading, checking and
 * writing a million rows holds its thread for many seconds, which must not be the thread
 * that answers requests.
 */
import { createReadStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { importRecords } from '../import/import.js';
import type { ImportFileJob } from '../types.js';
import { sqliteImports } from './import-session.js';
import { serializeError, WRITE_BUSY_TIMEOUT_MS } from './writer.js';
import type { ImportThreadMessage } from './import-session.js';

const { path, job } = workerData as { path: string; job: ImportFileJob };
const send = (m: ImportThreadMessage) => parentPort!.postMessage(m);

let db: Database.Database | undefined;
try {
  db = new Database(path, { fileMustExist: true });
  db.pragma(`busy_timeout = ${WRITE_BUSY_TIMEOUT_MS}`); // this thread may wait: nobody else runs on it
  db.pragma('synchronous = FULL'); // as the store's writer: a written sync survives power loss
  db.pragma('foreign_keys = ON');
  const result = await importRecords({ imports: sqliteImports(db) }, createReadStream(job.file), job.format, { fields: job.fields, syncKey: job.syncKey });
  send({ ok: true, result });
} catch (err) {
  send({ ok: false, error: serializeError(err) });
} finally {
  db?.close();
}
