/**
 * Import sessions on PostgreSQL: the bulk load path. One connection, one transaction:
 * rows stream into a temporary table with COPY (pg-copy-streams), the checks run
 * set-wise over it, and the write is one INSERT ... SELECT; a problem, an error or a
 * lost connection rolls everything back. Readers never wait (MVCC), so the
 * transaction may be long; a transaction-scoped advisory lock makes concurrent
 * imports of one schema take turns, so each one's checks see the others' writes.
 */
import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { fieldsColumn } from '../fields.js';
import { readRevision } from '../import/checks.js';
import { POSTGRES } from '../sql/dialect.js';
import { takeSyncKey } from '../sql/record-syncs.js';
import type { ImportSession, RecordImports, StagedRow } from '../types.js';

/**
 * Statement and client time-out for import statements. The service's pool bounds
 * statements at 15 s, which a million-row INSERT ... SELECT can exceed; an import
 * is a batch job, so it gets longer, still bounded.
 */
const IMPORT_STATEMENT_TIMEOUT_MS = 30 * 60_000;
/** A rollback that takes longer means a stuck connection: it is dropped instead. */
const ROLLBACK_TIMEOUT_MS = 10_000;
/** Characters of COPY text sent at once. */
const COPY_CHUNK = 256 * 1024;

export function postgresImports(pool: pg.Pool): RecordImports {
  return { begin: async (options) => openSession(await pool.connect(), options?.onWait) };
}

async function openSession(client: pg.PoolClient, onWait?: () => void): Promise<ImportSession> {
  const query = <T extends pg.QueryResultRow>(sql: string, params: readonly unknown[] = [], timeoutMs = IMPORT_STATEMENT_TIMEOUT_MS) => {
    // pg honours a per-query `query_timeout` (its types do not list it).
    const config: pg.QueryConfig & { query_timeout: number } = { text: POSTGRES.placeholders(sql), values: [...params], query_timeout: timeoutMs };
    return client.query<T>(config);
  };
  let open = true; // the transaction
  let closed = false;
  let broken = false;
  let copy: ReturnType<typeof copyFrom> | undefined;
  let copyFailed: Promise<never> = new Promise(() => {});
  let copyError: Error | undefined;
  // A connection lost while the client is checked out emits 'error' on it; unheard, that
  // would end the process. The query in flight rejects on its own.
  const onClientError = () => (broken = true);
  client.on('error', onClientError);

  try {
    await query('BEGIN');
    await query(`SET LOCAL statement_timeout = ${IMPORT_STATEMENT_TIMEOUT_MS}`);
    await query(`SET LOCAL application_name = 'labelmaker import'`); // what operators see in pg_stat_activity
    const lock = `hashtext('labelmaker:import:' || COALESCE(current_schema(), ''))`;
    if (!(await query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${lock}) AS ok`)).rows[0]!.ok) {
      onWait?.();
      await query(`SELECT pg_advisory_xact_lock(${lock})`);
    }
    await query(`
      CREATE TEMP TABLE import_rows (
        row_no INTEGER NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL,
        description TEXT NOT NULL, parent_id TEXT, asset_id BIGINT, fields TEXT
      ) ON COMMIT DROP;
      CREATE TEMP TABLE import_problems (row_no INTEGER NOT NULL, code TEXT NOT NULL, kind TEXT, ref TEXT, asset_id BIGINT, other_row INTEGER) ON COMMIT DROP;
      CREATE TEMP TABLE import_tree (id TEXT NOT NULL PRIMARY KEY, parent_id TEXT, row_no INTEGER, gen INTEGER NOT NULL, depth INTEGER) ON COMMIT DROP;
      CREATE INDEX ON import_tree (parent_id);
      CREATE INDEX ON import_tree (gen);
      CREATE INDEX ON import_tree (depth);
      CREATE TEMP TABLE import_asset_moves (id TEXT NOT NULL PRIMARY KEY) ON COMMIT DROP;
      CREATE TEMP TABLE import_unchanged (row_no INTEGER NOT NULL PRIMARY KEY) ON COMMIT DROP;
    `);
    const stream = copyFrom('COPY import_rows (row_no, kind, id, name, description, parent_id, asset_id, fields) FROM STDIN');
    // pg reads the client-side time-out from the query object as it is submitted: without
    // this, the pool's 15 s would cut a COPY that streams a large file for longer.
    Object.assign(stream, { query_timeout: IMPORT_STATEMENT_TIMEOUT_MS });
    copy = client.query(stream);
    // A failed COPY (a lost connection, an error from the server) never calls back the
    // write in flight: every wait on the stream also waits on this.
    copyFailed = new Promise<never>((_, reject) => {
      copy!.once('error', (err) => {
        broken = true;
        copyError = err;
        reject(err);
      });
    });
    copyFailed.catch(() => {}); // observed by whoever is waiting, if anyone
  } catch (err) {
    await query('ROLLBACK').catch(() => {});
    client.off('error', onClientError);
    client.release(true);
    throw err;
  }

  let pending = '';
  // Waits until the chunk is handed to the socket: memory holds one chunk at a time.
  const send = async () => {
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    if (copyError) throw copyError; // the stream is dead: writing to it would only fail obscurely
    await Promise.race([new Promise<void>((resolve, reject) => copy!.write(chunk, (err) => (err ? reject(err) : resolve()))), copyFailed]);
  };

  const session: ImportSession = {
    dialect: 'postgres',
    stage: async (rows) => {
      for (const r of rows) {
        pending += `${r.row}\t${r.kind}\t${r.id}\t${copyText(r.name)}\t${copyText(r.description)}\t${r.parentId ?? '\\N'}\t${r.assetId ?? '\\N'}\t${fieldsCopy(r.fields)}\n`;
      }
      if (pending.length >= COPY_CHUNK) await send();
    },
    staged: async () => {
      await send();
      if (copyError) throw copyError;
      copy!.end();
      await Promise.race([finished(copy!), copyFailed]);
      await query('CREATE INDEX ON import_rows (kind, id)');
      await query('CREATE INDEX ON import_rows (asset_id) WHERE asset_id IS NOT NULL');
      await query('ANALYZE import_rows');
    },
    analyze: async (table) => {
      await query(`ANALYZE ${table}`);
    },
    takeSyncKey: (key, response) => takeSyncKey(session, key, response),
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
    all: async <T>(sql: string, params?: readonly unknown[]) => (await query(sql, params)).rows as T[],
    // The transaction holds the import lock from its start: what the checks see cannot change under them.
    snapshot: async (fn) => {
      await fn();
      return readRevision(session);
    },
    write: async (revision, fn) => {
      const started = performance.now();
      if ((await readRevision(session)) !== revision) return { outcome: 'stale', lockMs: 0 };
      await fn();
      await query('COMMIT');
      open = false;
      return { outcome: 'written', lockMs: performance.now() - started };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        if (!broken && copy && !copy.writableFinished) {
          copy.destroy(); // sends CopyFail: the server ends the COPY, and answers
          const ended = await Promise.race([finished(copy).then(() => true, () => true), sleep(ROLLBACK_TIMEOUT_MS, false, { ref: false })]);
          if (!ended) broken = true;
        }
        // A broken connection is not rolled back but dropped: the server then aborts the transaction.
        if (open && !broken) await query('ROLLBACK', [], ROLLBACK_TIMEOUT_MS).then(() => (open = false), () => (broken = true));
      } finally {
        client.off('error', onClientError);
        client.release(broken || open ? true : undefined); // a connection in an unknown state is not reused
      }
    },
  };
  return session;
}

/** A record's field values as a COPY column: their JSON, escaped, or NULL. */
function fieldsCopy(fields: StagedRow['fields']): string {
  const json = fieldsColumn(fields);
  return json === null ? '\\N' : copyText(json);
}

/** COPY text format: backslash escapes for the characters that delimit fields and rows. */
function copyText(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
