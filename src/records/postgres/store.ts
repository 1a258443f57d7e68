/**
 * PostgreSQL store (pg Pool), for several Labelmaker instances sharing one database.
 * The schema comes from the connection's search_path, so a URL such as
 * `postgres://host/db?options=-c%20search_path%3Dlabelmaker` selects it.
 */
import pg from 'pg';
import { isConnectionCut, isStalePlan, storeFaultOf, unreadable } from '../errors.js';
import { WriteHealth } from '../health.js';
import { LastUseRecorder } from '../last-use.js';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, migrationSql, pendingMigrations, type Migration } from '../migrations.js';
import { isoTimestamp, recordValues, toRecord, toTokenInfo, type RecordRow, type RecordValues, type TokenRow } from '../rows.js';
import { formatScopes } from '../tokens.js';
import { postgresPrintJobs } from './print-jobs.js';
import { postgresImports } from './import-session.js';
import { postgresRecordSearch } from './search.js';
import { POSTGRES } from '../sql/dialect.js';
import { BUMP_REVISION, CONTENT_REV, RECORD_COLUMNS, RECORD_UPSERT_CONFLICT, TOKEN_COLUMNS, locationChainSql, locationPathSql } from '../sql/records.js';
import { calibrationSql, putParams, toCalibration, type CalibrationRow } from '../sql/calibrations.js';
import { deleteTemplate, putTemplate, templateSql, toSavedTemplate, type TemplateRow } from '../sql/templates.js';
import { deletePrinter, getPrinter, listPrinters, pendingJobs, putPrinter, savePrinterStatus, claimPrinterStatusRead, savePrinterReach, type Runner } from '../sql/printers.js';
import { appendEvents, eventsAfter, latestEventId, pruneEvents } from '../sql/events.js';
import { inTransaction } from './transaction.js';
import { SYNC_BY_KEY_SQL, toRecordSync } from '../sql/record-syncs.js';
import { settleStaleLabels, unannouncedStaleLabels } from '../sql/label-stale.js';
import { claimDeliveries, createWebhook, deleteWebhook, fanOut, getWebhook, listDeliveries, listWebhooks, nextDeliveryAt, recordAttempt, redeliver, updateWebhook } from '../sql/webhooks.js';
import { createPrintRule, deletePrintRule, firePrintRules, getPrintRule, listPrintRules } from '../sql/print-rules.js';
import { acquireConsumer, advanceConsumer, getConsumer, releaseConsumer, renewConsumer } from '../sql/consumers.js';
import type { WebhookStore, PrintRuleStore, ConsumerStore, EventStore, PrinterStore, PrintJobStore, RecordStore, Store, StoreLogger, StoreOptions, SheetCalibrationStore, TemplateStore, TokenStore } from '../types.js';

/** Tables the service reads and writes: a revoked privilege on any of them shows in its health. */
const WRITTEN_TABLES = ['records', 'api_tokens', 'print_jobs', 'store_meta', 'records_revision', 'label_templates', 'sheet_calibrations', 'printers', 'printer_status', 'printed_labels', 'events', 'record_syncs', 'event_consumers', 'webhooks', 'webhook_deliveries', 'print_rules'];

/**
 * Changes to the fleet queue on this transaction-scoped lock (per schema, as the migrations'):
 * two instances moving the default printer at once would otherwise each clear the flag they
 * saw and both set theirs (the unique index would fail one). Status readings do not take it.
 */
const FLEET_LOCK = `SELECT pg_advisory_xact_lock(hashtext('labelmaker:printers:' || COALESCE(current_schema(), '')))`;

/** Rows per upsert statement: bounds the size of one parameter array, not the transaction. */
const UPSERT_CHUNK = 1000;

/**
 * Applies pending migrations in one transaction holding a transaction-scoped
 * advisory lock: instances starting together queue here instead of racing on
 * CREATE TABLE, and the lock can't leak because COMMIT/ROLLBACK releases it.
 * The key is per schema, so unrelated schemas in one database don't wait on each other.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('labelmaker:migrations:' || COALESCE(current_schema(), '')))`);
    await client.query(SCHEMA_MIGRATIONS_DDL);
    const { rows } = await client.query<{ v: number }>('SELECT COALESCE(MAX(version), 0)::int AS v FROM schema_migrations');
    const pending = pendingMigrations(rows[0]!.v, migrations);
    for (const m of pending) {
      await client.query(migrationSql(m, 'postgres')); // no parameters: simple protocol allows several statements
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, isoTimestamp(new Date())]);
    }
    return pending.map((m) => m.version);
  });
}

export async function openPostgresStore(url: string, options: StoreOptions = {}): Promise<Store> {
  // Bounded waits: an unreachable or stuck database becomes an error (a 503), never a hung request.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 5_000, statement_timeout: 10_000, query_timeout: 15_000 });
  // An idle client that loses its connection emits 'error'; unhandled, that would crash
  // the process. The pool drops that client, and ping() reports lasting outages.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    connectedAt.set(client, performance.now());
    // A checked-out client (a transaction between its queries) that loses its connection
    // emits 'error' too, where the pool's listener does not reach: its next query rejects instead.
    client.on('error', () => {});
  });
  try {
    await migratePostgres(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return createStore(pool, options.logger);
}

/**
 * When each pooled connection was made: a read retried after its session was cut must
 * not land on another connection from before the cut. Sessions are cut together (a
 * restarted server, an operator's pg_terminate_backend, a failover), and the pool hears
 * of each dead idle connection only when that connection's own news arrives, which on
 * a busy machine or through a proxy can be well after the first one failed.
 */
const connectedAt = new WeakMap<pg.PoolClient, number>();

/**
 * A pooled connection made after `since`; older ones the pool hands out are closed on
 * the way (each turn removes one, so at most `max` of them stand in the way).
 */
async function connectionSince(pool: pg.Pool, since: number): Promise<pg.PoolClient> {
  for (let turn = 0; ; turn++) {
    const client = await pool.connect();
    if ((connectedAt.get(client) ?? -Infinity) >= since || turn >= pool.options.max) return client;
    client.release(true); // destroys it: it predates the cut and may be just as dead
  }
}

/**
 * A read, retried once when its connection was cut (a restarted server, a terminated
 * session: isConnectionCut) or holds a stale prepared statement (isStalePlan), on a
 * connection made since: a read is safe to repeat. Writes are not retried here: a
 * write whose connection died may or may not have committed.
 */
async function readQuery<R extends pg.QueryResultRow>(pool: pg.Pool, sql: string, params: unknown[], name?: string): Promise<pg.QueryResult<R>> {
  const query = { text: sql, values: params, name };
  const asReadError = (err: unknown) => (storeFaultOf(err) ? unreadable(err) : err); // e.g. a revoked SELECT: not "read-only"
  try {
    return await pool.query<R>(query);
  } catch (err) {
    const stalePlan = isStalePlan(err);
    if (storeFaultOf(err) || !(stalePlan || isConnectionCut(err))) throw asReadError(err);
    const failedAt = performance.now();
    if (!stalePlan) await new Promise((resolve) => setTimeout(resolve, 50)); // a restarting server
    let client: pg.PoolClient;
    try {
      client = await connectionSince(pool, failedAt);
    } catch (again) {
      throw asReadError(again);
    }
    try {
      const result = await client.query<R>(query);
      client.release();
      return result;
    } catch (again) {
      client.release(again as Error); // a failed connection leaves the pool
      throw asReadError(again);
    }
  }
}

/** The record and the walk from its parent (../sql/records.ts) in one statement (getWithPath). */
const withPathSql = (where: string) => `WITH RECURSIVE target AS (SELECT ${RECORD_COLUMNS} FROM records WHERE ${where}),
  ${locationChainSql(POSTGRES, `SELECT r.id, r.name, r.parent_id, 1, '/' || r.id || '/' FROM target t JOIN records r ON r.kind = 'location' AND r.id = t.parent_id`)}
  SELECT t.*, ARRAY(SELECT name FROM chain ORDER BY depth DESC) AS path FROM target t`;

/**
 * getWithPath's statements, named: each connection prepares them once and PostgreSQL
 * then reuses their plan (a generic one after its first five runs). A label is the
 * hottest read, and planning this recursive statement costs about 5 times running it
 * (EXPLAIN ANALYZE, 20k records: 1.0 ms planning, 0.2 ms execution). Their result
 * columns are named (target), so a column added to records leaves the plans valid.
 * A pooler between the service and PostgreSQL must keep protocol-level prepared
 * statements (PgBouncer in transaction mode: 1.21 or later, max_prepared_statements set).
 */
const WITH_PATH = {
  byId: { name: 'labelmaker_with_path_by_id', text: withPathSql('kind = $1 AND id = $2') },
  byAssetId: { name: 'labelmaker_with_path_by_asset_id', text: withPathSql(`kind = 'item' AND asset_id = $1`) },
};

const locationPath = locationPathSql(POSTGRES);

function createStore(pool: pg.Pool, log: StoreLogger | undefined): Store {
  const read = <R extends pg.QueryResultRow>(sql: string, params: unknown[] = [], name?: string) => readQuery<R>(pool, sql, params, name);
  const health = new WriteHealth(
    {
      read: async () => {
        // Every table requests read: a revoked SELECT on one of them is an outage for those requests.
        await read(`SELECT ${WRITTEN_TABLES.map((t) => `(SELECT 1 FROM ${t} LIMIT 1)`).join(', ')}`);
      },
      probeWrite: async () => {
        // The session's read-only setting and the table privileges say what a write would
        // meet (a revoke may hit one table only); the small write then proves the rest.
        const { rows } = await pool.query<{ read_only: boolean; may_write: boolean }>(
          `SELECT current_setting('transaction_read_only') = 'on' AS read_only,
                  ${WRITTEN_TABLES.map((t) => `has_table_privilege('${t}', 'INSERT, UPDATE')`).join(' AND ')} AS may_write`,
        );
        if (rows[0]?.read_only) throw Object.assign(new Error('the database session is read-only'), { code: '25006' });
        if (!rows[0]?.may_write) throw Object.assign(new Error('writes to the store tables are not permitted'), { code: '42501' });
        await pool.query(
          `INSERT INTO store_meta (key, value) VALUES ('write_probe', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [new Date().toISOString()],
        );
      },
    },
    (fault, cause) => {
      if (fault) log?.error({ state: fault.state, err: cause }, `store: writes refused (${fault.state})`);
      else log?.info({}, 'store: writes work again');
    },
    false,
  );
  const tracked = <T>(write: Promise<T>) => health.track(write);
  const lastUse = new LastUseRecorder((id, now, cutoff) =>
    tracked(pool.query('UPDATE api_tokens SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $3)', [now, id, cutoff])),
  );

  const one = async <R extends pg.QueryResultRow>(sql: string, params: unknown[], name?: string) => (await read<R>(sql, params, name)).rows[0];

  const getRecord = async (kind: string, id: string) => {
    const row = await one<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = $1 AND id = $2`, [kind, id]);
    return row && toRecord(row);
  };

  const countOf = async (table: 'records' | 'api_tokens') => Number((await one<{ n: string }>(`SELECT COUNT(*) AS n FROM ${table}`, []))!.n);

  const records: RecordStore = {
    getLocation: (id) => getRecord('location', id),
    getItem: (id) => getRecord('item', id),
    getItemByAssetId: async (assetId) => {
      const row = await one<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = 'item' AND asset_id = $1`, [assetId]);
      return row && toRecord(row);
    },
    locationPath: async (id) => {
      const { rows } = await read<{ name: string }>(locationPath, [id]);
      return rows.map((r) => r.name);
    },
    // A label's one round trip, as a named statement (WITH_PATH).
    getWithPath: async (key) => {
      const [statement, params] = 'assetId' in key ? [WITH_PATH.byAssetId, [key.assetId]] : [WITH_PATH.byId, [key.kind, key.id]];
      const row = await one<RecordRow & { path: string[] }>(statement.text, params, statement.name);
      return row && { record: toRecord(row), path: row.path };
    },
    // One statement per chunk via unnest(): a round trip per chunk, not per record.
    upsertMany: async (input) => {
      const rows = recordValues(input, isoTimestamp(new Date()));
      if (rows.length === 0) return;
      await tracked(inTransaction(pool, async (client) => {
        await client.query(BUMP_REVISION);
        for (let i = 0; i < rows.length; i += UPSERT_CHUNK) {
          const chunk = rows.slice(i, i + UPSERT_CHUNK);
          const columns = [0, 1, 2, 3, 4, 5, 6, 7].map((c) => chunk.map((row) => row[c as keyof RecordValues]));
          await client.query(
            `INSERT INTO records (${RECORD_COLUMNS}, content_rev)
             SELECT *, ${CONTENT_REV} FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[])
             ${RECORD_UPSERT_CONFLICT}`,
            columns,
          );
        }
      }));
    },
    count: () => countOf('records'),
    revision: async () => Number((await one<{ revision: string }>('SELECT revision FROM records_revision', []))!.revision),
    syncByKey: async (tokenId, key, since) => {
      const row = await one<Parameters<typeof toRecordSync>[0]>(POSTGRES.placeholders(SYNC_BY_KEY_SQL), [tokenId, key, since]);
      return row && toRecordSync(row);
    },
  };

  const tokens: TokenStore = {
    insert: async ({ id, name, scopes, hash }) => {
      const createdAt = isoTimestamp(new Date());
      const scopesText = formatScopes(scopes);
      await tracked(pool.query('INSERT INTO api_tokens (id, name, scopes, hash, created_at) VALUES ($1, $2, $3, $4, $5)', [id, name, scopesText, hash, createdAt]));
      return toTokenInfo({ id, name, scopes: scopesText, created_at: createdAt, last_used_at: null, revoked_at: null });
    },
    findActiveByHash: async (hash) => {
      const row = await one<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL`, [hash]);
      return row && toTokenInfo(lastUse.record(row));
    },
    list: async () => {
      await lastUse.flush();
      return (await read<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`)).rows.map(toTokenInfo);
    },
    revoke: async (id) => {
      const { rowCount } = await tracked(pool.query('UPDATE api_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [isoTimestamp(new Date()), id]));
      return (rowCount ?? 0) > 0;
    },
    count: () => countOf('api_tokens'),
  };

  const jobs = postgresPrintJobs(pool);
  // Writes (PrintJobWrite) count towards write health; reads (PrintJobRead) do not.
  const printJobs: PrintJobStore = {
    get: jobs.get,
    getBatch: jobs.getBatch,
    list: jobs.list,
    nextWakeAt: jobs.nextWakeAt,
    printedLabel: jobs.printedLabel,
    pendingCounts: jobs.pendingCounts,
    queuedStocks: jobs.queuedStocks,
    pendingByPrinter: jobs.pendingByPrinter,
    submit: (job, keySince) => tracked(jobs.submit(job, keySince)),
    submitBatch: (batch, batchJobs, keySince) => tracked(jobs.submitBatch(batch, batchJobs, keySince)),
    requeueFailed: (id, heldReason) => tracked(jobs.requeueFailed(id, heldReason)),
    cancelQueued: (id, tokenId) => tracked(jobs.cancelQueued(id, tokenId)),
    claim: (owner, leaseMs, printers, orphans) => tracked(jobs.claim(owner, leaseMs, printers, orphans)),
    setHeld: (printer, template, reason) => tracked(jobs.setHeld(printer, template, reason)),
    moveQueued: (id, tokenId, printer, heldReason) => tracked(jobs.moveQueued(id, tokenId, printer, heldReason)),
    markPrinted: (id, owner, marks) => tracked(jobs.markPrinted(id, owner, marks)),
    markRetry: (id, owner, error, nextAttemptAt, marks) => tracked(jobs.markRetry(id, owner, error, nextAttemptAt, marks)),
    markFailed: (id, owner, error, marks) => tracked(jobs.markFailed(id, owner, error, marks)),
    purgeFinished: (before, limit) => tracked(jobs.purgeFinished(before, limit)),
    tidy: (opts) => tracked(jobs.tidy(opts)),
  };

  const plain = (client: pg.PoolClient): Runner => ({
    dialect: POSTGRES,
    all: async <R>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, [...params])).rows as R[],
    run: async (sql, params = []) => (await client.query(sql, [...params])).rowCount ?? 0,
  });
  const templateQueries = templateSql(POSTGRES);
  const templates: TemplateStore = {
    list: async () => (await read<TemplateRow>(templateQueries.list)).rows.map(toSavedTemplate),
    get: async (name) => {
      const row = await one<TemplateRow>(templateQueries.get, [name]);
      return row && toSavedTemplate(row);
    },
    count: async () => Number((await one<{ n: string }>(templateQueries.count, []))!.n),
    put: (t, ifEtag) => tracked(inTransaction(pool, (client) => putTemplate(plain(client), t, ifEtag))),
    delete: (name, ifEtag) => tracked(inTransaction(pool, (client) => deleteTemplate(plain(client), name, ifEtag))),
  };

  const calibrationQueries = calibrationSql(POSTGRES);
  const calibrations: SheetCalibrationStore = {
    get: async (sheet) => {
      const row = await one<CalibrationRow>(calibrationQueries.get, [sheet]);
      return row && toCalibration(row);
    },
    put: async (c) => {
      await tracked(pool.query(calibrationQueries.put, putParams(c)));
    },
    delete: async (sheet) => {
      const { rowCount } = await tracked(pool.query(calibrationQueries.delete, [sheet]));
      return (rowCount ?? 0) > 0;
    },
  };

  // Reads retry a cut connection (readQuery); a fleet change is one transaction under FLEET_LOCK.
  const reads: Runner = { dialect: POSTGRES, all: async <R>(sql: string, params: readonly unknown[] = []) => (await read(sql, [...params])).rows as R[], run: () => Promise.reject(new Error('a read runner does not write')) };
  const fleetChange = <T>(fn: (q: Runner) => Promise<T>) =>
    tracked(
      inTransaction(pool, async (client) => {
        await client.query(FLEET_LOCK);
        return fn({
          dialect: POSTGRES,
          all: async <R>(sql: string, params: readonly unknown[] = []) => (await client.query(sql, [...params])).rows as R[],
          run: async (sql, params = []) => (await client.query(sql, [...params])).rowCount ?? 0,
        });
      }),
    );
  /** Single statements outside any transaction (status readings). */
  const onPool: Runner = { dialect: POSTGRES, all: async <R>(sql: string, params: readonly unknown[] = []) => (await pool.query(sql, [...params])).rows as R[], run: async (sql, params = []) => (await pool.query(sql, [...params])).rowCount ?? 0 };
  const printers: PrinterStore = {
    list: () => listPrinters(reads),
    get: (name) => getPrinter(reads, name),
    pendingJobs: (name) => pendingJobs(reads, name),
    put: (printer, ifEtag) => fleetChange((q) => putPrinter(q, printer, ifEtag)),
    delete: (name, ifEtag) => fleetChange((q) => deletePrinter(q, name, ifEtag)),
    saveStatus: (name, status) => tracked(savePrinterStatus(onPool, name, status)),
    claimStatusRead: (name, at, staleBefore) => tracked(claimPrinterStatusRead(onPool, name, at, staleBefore)),
    saveReach: (name, uri, instance, reachable, at, staleBefore) => tracked(savePrinterReach(onPool, name, uri, instance, reachable, at, staleBefore)),
  };

  const events: EventStore = {
    after: (cursor, limit) => eventsAfter(reads, cursor, limit),
    latest: () => latestEventId(reads),
    append: async (list) => {
      if (list.length === 0) return;
      await tracked(inTransaction(pool, (client) => appendEvents(plain(client), list)));
    },
    unannouncedStale: (limit) => unannouncedStaleLabels(reads, limit),
    settleStale: (lease, leaseMs, verdicts, done) => tracked(inTransaction(pool, (client) => settleStaleLabels(plain(client), lease, leaseMs, verdicts, done))),
    prune: (before, limit) => tracked(pruneEvents(onPool, before, limit)),
  };

  const consumers: ConsumerStore = {
    acquire: (name, owner, leaseMs, start) => tracked(acquireConsumer(onPool, name, owner, leaseMs, start)),
    advance: (lease, leaseMs) => tracked(advanceConsumer(onPool, lease, leaseMs)),
    renew: (name, owner, leaseMs) => tracked(renewConsumer(onPool, name, owner, leaseMs)),
    release: (name, owner) => tracked(releaseConsumer(onPool, name, owner)),
    get: (name) => getConsumer(reads, name),
  };

  const inTx = <T>(fn: (q: Runner) => Promise<T>) => tracked(inTransaction(pool, (client) => fn(plain(client))));
  const webhooks: WebhookStore = {
    create: (w) => tracked(createWebhook(onPool, w)),
    list: () => listWebhooks(reads),
    get: (id) => getWebhook(reads, id),
    update: (id, change, ifEtag) => inTx((q) => updateWebhook(q, id, change, ifEtag)),
    delete: (id) => inTx((q) => deleteWebhook(q, id)),
    fanOut: (lease, leaseMs, list) => inTx((q) => fanOut(q, lease, leaseMs, list)),
    claim: (owner, leaseMs, limit) => inTx((q) => claimDeliveries(q, owner, leaseMs, limit)),
    record: (id, owner, outcome) => tracked(recordAttempt(onPool, id, owner, outcome)),
    deliveries: (webhookId, limit) => listDeliveries(reads, webhookId, limit),
    redeliver: (webhookId, eventId) => tracked(redeliver(onPool, webhookId, eventId)),
    nextDueAt: () => nextDeliveryAt(reads),
  };
  const printRules: PrintRuleStore = {
    list: () => listPrintRules(reads),
    get: (id) => getPrintRule(reads, id),
    create: (rule) => tracked(createPrintRule(onPool, rule)),
    delete: (id) => tracked(deletePrintRule(onPool, id)),
    fire: (lease, leaseMs, jobs) => tracked(inTransaction(pool, (client) => firePrintRules(plain(client), lease, leaseMs, jobs))),
  };

  let closed = false;
  return {
    records,
    webhooks,
    consumers,
    printRules,
    events,
    templates,
    calibrations,
    printers,
    tokens,
    printJobs,
    search: postgresRecordSearch(pool),
    imports: postgresImports(pool),
    ping: async () => {
      await pool.query('SELECT 1');
    },
    health: () => health.health(),
    close: async () => {
      if (closed) return;
      closed = true;
      await lastUse.flush();
      await pool.end();
    },
  };
}
