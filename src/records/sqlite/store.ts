/**
 * SQLite store (better-sqlite3). Reads run synchronously on the calling (main)
 * thread's connection: point lookups take microseconds and, in WAL mode, never wait
 * for a writer. Writes go to the writer (writer.ts), on a worker thread in the
 * service, so a disk sync or another process's write lock never stalls a request.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { storeFaultOf, unreadable } from '../errors.js';
import { WriteHealth } from '../health.js';
import { LastUseRecorder } from '../last-use.js';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, migrationSql, pendingMigrations, type Migration } from '../migrations.js';
import { isoTimestamp, toTokenInfo } from '../rows.js';
import { sqlitePrintJobs } from './print-jobs.js';
import { sqliteImports, sqliteImportThreads } from './import-session.js';
import { sqliteRecordSearch } from './search.js';
import { identityChange, identityOf, markerPath, missingFault, prepareDatabasePath, writeMarker } from './file.js';
import { sqliteCalibrations, sqliteConsumers, sqliteWebhooks, sqliteEvents, sqliteMeta, sqlitePrinters, sqlitePrintRules, sqliteRecords, sqliteTemplates, sqliteTokens } from './queries.js';
import { WriteSession, inlineWriter, threadWriter, type SqliteWriter, type WriterEvent } from './writer.js';
import type { WriteArgs, WriteMethod, WriteTarget } from './writes.js';
import type { WebhookStore, PrintRuleStore, ConsumerStore, EventStore, PrinterStore, PrintJobStore, RecordStore, Store, StoreLogger, StoreOptions, SheetCalibrationStore, TemplateStore, TokenStore } from '../types.js';

/** A read that finds the database locked (WAL recovery, another process's exclusive lock) retries after a pause, never blocking. */
const READ_RETRIES = 12;

/**
 * Applies pending migrations in one IMMEDIATE transaction: the write lock is taken
 * up front, so two processes opening the same file serialize instead of both
 * reading version N and then failing to upgrade their locks. Nothing pending: no
 * write at all, so a read-only database still opens (for reads).
 */
export function migrateSqlite(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const version = () => (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
  if (hasTable && pendingMigrations(version(), migrations).length === 0) return [];
  db.exec(SCHEMA_MIGRATIONS_DDL);
  const apply = db.transaction(() => {
    const pending = pendingMigrations(version(), migrations);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of pending) {
      db.exec(migrationSql(m, 'sqlite'));
      record.run(m.version, m.name, isoTimestamp(new Date()));
    }
    return pending.map((m) => m.version);
  });
  return apply.immediate();
}

/**
 * Before migrations change an existing database, a copy of it as it was (VACUUM INTO: one
 * consistent file, written beside the database), named in a log line: an upgrade that goes
 * wrong, or a downgrade, has the old database to go back to (`labelmaker restore`).
 */
function backupBeforeMigrating(db: Database.Database, path: string, log: StoreLogger | undefined): void {
  const hasTable = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).get();
  if (!hasTable) return; // a new database: nothing to keep
  const from = (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v;
  const pending = pendingMigrations(from, MIGRATIONS);
  // Only a migration that changes a SQLite file calls for a copy (some are PostgreSQL's alone).
  if (from === 0 || !pending.some((m) => migrationSql(m, 'sqlite').trim() !== '')) return;
  const to = pending.at(-1)!.version;
  const copy = `${path}.before-migration-${to}-${new Date().toISOString().replace(/[-:.]/g, '')}`;
  db.prepare('VACUUM INTO ?').run(copy);
  log?.warn({ path, backup: copy, fromVersion: from, toVersion: to }, `backed up the database before migrating it from schema version ${from} to ${to}: ${copy} (to go back: stop Labelmaker, move the database aside, labelmaker restore ${copy})`);
}

export function openSqliteStore(path: string, options: StoreOptions = {}): Store {
  const inMemory = path === ':memory:' || path === '';
  const log = options.logger;
  const prepared = inMemory ? { created: false, movedAside: [] } : prepareDatabasePath(path, options.create ?? 'first-start');
  const db = new Database(path);
  let writer: SqliteWriter | undefined;
  try {
    db.pragma('journal_mode = WAL'); // readers don't block the writer (no-op in memory)
    // FULL: a committed print job survives power loss, as the API promises.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON'); // off by default in SQLite; enforce any foreign key a migration declares
    db.pragma('busy_timeout = 5000'); // start-up may wait for another process's migration
    if (!inMemory) backupBeforeMigrating(db, path, log);
    migrateSqlite(db);
    // From here on this thread only reads, and never blocks on a lock (see read()).
    db.pragma('busy_timeout = 0');

    const opened = inMemory ? undefined : identityOf(path);
    if (!inMemory) {
      if (prepared.created) {
        log?.warn({ path }, 'no database at this path yet: created a new, empty one (first start)');
        for (const aside of prepared.movedAside) log?.warn({ path: aside }, "moved a lost database's leftover file aside");
      }
      if (!existsSync(markerPath(path)) && writeMarker(path)) log?.info({ marker: markerPath(path) }, 'wrote the database marker');
    }
    const onEvent = (e: WriterEvent) => log?.[e.level](e.fields ?? {}, e.msg);
    if (inMemory) {
      writer = inlineWriter(new WriteSession(db, { path }, onEvent));
    } else if (options.writes === 'inline') {
      writer = inlineWriter(WriteSession.open({ path, opened }, onEvent));
    } else {
      writer = threadWriter({ path, opened }, onEvent);
    }
    // Whole-file imports (the API's bulk write) on threads of their own, as the writes: on a
    // file only (an in-memory database has one connection), and not for the CLI (no event loop to keep free).
    const threads = inMemory || options.writes === 'inline' ? undefined : sqliteImportThreads(path);
    return createStore(db, writer, { path, opened, log }, threads);
  } catch (err) {
    void writer?.close();
    db.close();
    throw err;
  }
}

function createStore(
  db: Database.Database,
  writer: SqliteWriter,
  file: { path: string; opened: ReturnType<typeof identityOf>; log: StoreLogger | undefined },
  importThreads: ReturnType<typeof sqliteImportThreads> | undefined,
): Store {
  const records = sqliteRecords(db);
  // SQLite's data_version moves on every commit by another connection: the writer
  // thread's (all of this store's writes) or another process's (an import). Read once
  // per turn of the event loop: every request parsed in one turn shares it (under
  // load, many), and a commit shows from the next turn on. Each read is a statement
  // with its file-lock system calls, which under load cost as much as a lookup (profiled).
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let stamp: number | undefined;
  const readStamp = () => {
    setImmediate(() => (stamp = undefined));
    return dataVersion.get() as number;
  };
  let ownWrites = 0;
  const tokens = sqliteTokens(db);
  const meta = sqliteMeta(db);
  const jobs = sqlitePrintJobs(db);
  const savedTemplates = sqliteTemplates(db);
  const savedCalibrations = sqliteCalibrations(db);
  const fleet = sqlitePrinters(db);
  const outbox = sqliteEvents(db);
  const consumerReads = sqliteConsumers(db);
  const hookReads = sqliteWebhooks(db);
  const ruleReads = sqlitePrintRules(db);

  const health = new WriteHealth(
    {
      read: async () => {
        await read(() => meta.read());
      },
      probeWrite: async () => {
        await writer.call('meta', 'probe');
      },
      knownFault: () => {
        const change = file.opened && identityChange(file.path, file.opened);
        return change ? missingFault(change) : undefined;
      },
    },
    (fault, cause) => {
      if (fault) file.log?.error({ state: fault.state, err: cause }, `store: writes refused (${fault.state})`);
      else file.log?.info({}, 'store: writes work again');
    },
  );

  /** A write on the writer (writes.ts), counted towards write health. */
  const write = <T extends WriteTarget, M extends WriteMethod<T>>(target: T, method: M, ...args: WriteArgs<T, M>) => health.track(writer.call(target, method, ...args));
  const lastUse = new LastUseRecorder((id, now, cutoff) => write('tokens', 'touch', id, now, cutoff));

  const recordStore: RecordStore = {
    getLocation: (id) => read(() => records.get('location', id)),
    getItem: (id) => read(() => records.get('item', id)),
    getItemByAssetId: (assetId) => read(() => records.getItemByAssetId(assetId)),
    locationPath: (id) => read(() => records.locationPath(id)),
    getWithPath: (key) => read(() => records.getWithPath(key)),
    upsertMany: (input) => write('records', 'upsertMany', input),
    count: () => read(() => records.count()),
    revision: () => read(() => records.revision()),
    syncByKey: (tokenId, key, since) => read(() => records.syncByKey(tokenId, key, since)),
    // Plus this connection's own import-session writes (API record writes), which data_version does not count.
    changeStamp: () => (stamp ??= readStamp()) + ownWrites,
  };

  const tokenStore: TokenStore = {
    insert: (token) => write('tokens', 'insert', token),
    findActiveByHash: async (hash) => {
      const row = await read(() => tokens.findActive(hash));
      return row && toTokenInfo(lastUse.record(row));
    },
    list: async () => {
      await lastUse.flush();
      return read(() => tokens.list());
    },
    revoke: (id) => write('tokens', 'revoke', id),
    count: () => read(() => tokens.count()),
  };

  // Reads on this thread's connection, writes on the writer (PrintJobRead, PrintJobWrite).
  const printJobs: PrintJobStore = {
    get: (id) => read(() => jobs.get(id)),
    getBatch: (id) => read(() => jobs.getBatch(id)),
    list: (query) => read(() => jobs.list(query)),
    nextWakeAt: () => read(() => jobs.nextWakeAt()),
    printedLabel: (kind, id) => read(() => jobs.printedLabel(kind, id)),
    pendingCounts: () => read(() => jobs.pendingCounts()),
    queuedStocks: (printer) => read(() => jobs.queuedStocks(printer)),
    pendingByPrinter: () => read(() => jobs.pendingByPrinter()),
    submit: (job, keySince) => write('printJobs', 'submit', job, keySince),
    submitBatch: (batch, batchJobs, keySince) => write('printJobs', 'submitBatch', batch, batchJobs, keySince),
    requeueFailed: (id, heldReason) => write('printJobs', 'requeueFailed', id, heldReason),
    cancelQueued: (id, tokenId) => write('printJobs', 'cancelQueued', id, tokenId),
    claim: (owner, leaseMs, printers, orphans) => write('printJobs', 'claim', owner, leaseMs, printers, orphans),
    setHeld: (printer, template, reason) => write('printJobs', 'setHeld', printer, template, reason),
    moveQueued: (id, tokenId, printer, heldReason) => write('printJobs', 'moveQueued', id, tokenId, printer, heldReason),
    markPrinted: (id, owner, marks) => write('printJobs', 'markPrinted', id, owner, marks),
    markRetry: (id, owner, error, nextAttemptAt, marks) => write('printJobs', 'markRetry', id, owner, error, nextAttemptAt, marks),
    markFailed: (id, owner, error, marks) => write('printJobs', 'markFailed', id, owner, error, marks),
    purgeFinished: (before, limit) => write('printJobs', 'purgeFinished', before, limit),
    tidy: (opts) => write('printJobs', 'tidy', opts),
  };

  const templateStore: TemplateStore = {
    list: () => read(() => savedTemplates.list()),
    get: (name) => read(() => savedTemplates.get(name)),
    count: () => read(() => savedTemplates.count()),
    put: (t, ifEtag) => write('templates', 'put', t, ifEtag),
    delete: (name, ifEtag) => write('templates', 'delete', name, ifEtag),
  };

  const calibrationStore: SheetCalibrationStore = {
    get: (sheet) => read(() => savedCalibrations.get(sheet)),
    put: (c) => write('calibrations', 'put', c),
    delete: (sheet) => write('calibrations', 'delete', sheet),
  };

  const printerStore: PrinterStore = {
    list: () => read(() => fleet.list()),
    get: (name) => read(() => fleet.get(name)),
    pendingJobs: (name) => read(() => fleet.pendingJobs(name)),
    put: (printer, ifEtag) => write('printers', 'put', printer, ifEtag),
    delete: (name, ifEtag) => write('printers', 'delete', name, ifEtag),
    saveStatus: (name, status) => write('printers', 'saveStatus', name, status),
    claimStatusRead: (name, at, staleBefore) => write('printers', 'claimStatusRead', name, at, staleBefore),
    saveReach: (name, uri, instance, reachable, at, staleBefore) => write('printers', 'saveReach', name, uri, instance, reachable, at, staleBefore),
  };

  const eventStore: EventStore = {
    after: (cursor, limit) => read(() => outbox.after(cursor, limit)),
    latest: () => read(() => outbox.latest()),
    append: (events) => write('events', 'append', events),
    unannouncedStale: (limit) => read(() => outbox.unannouncedStale(limit)),
    settleStale: (lease, leaseMs, verdicts, done) => write('events', 'settleStale', lease, leaseMs, verdicts, done),
    prune: (before, limit) => write('events', 'prune', before, limit),
  };

  const consumerStore: ConsumerStore = {
    acquire: (name, owner, leaseMs, start) => write('consumers', 'acquire', name, owner, leaseMs, start),
    advance: (lease, leaseMs) => write('consumers', 'advance', lease, leaseMs),
    renew: (name, owner, leaseMs) => write('consumers', 'renew', name, owner, leaseMs),
    release: (name, owner) => write('consumers', 'release', name, owner),
    get: (name) => read(() => consumerReads.get(name)),
  };

  const webhookStore: WebhookStore = {
    create: (w) => write('webhooks', 'create', w),
    list: () => read(() => hookReads.list()),
    get: (id) => read(() => hookReads.get(id)),
    update: (id, change, ifEtag) => write('webhooks', 'update', id, change, ifEtag),
    delete: (id) => write('webhooks', 'delete', id),
    fanOut: (lease, leaseMs, events) => write('webhooks', 'fanOut', lease, leaseMs, events),
    claim: (owner, leaseMs, limit) => write('webhooks', 'claim', owner, leaseMs, limit),
    record: (id, owner, outcome) => write('webhooks', 'record', id, owner, outcome),
    deliveries: (webhookId, limit) => read(() => hookReads.deliveries(webhookId, limit)),
    redeliver: (webhookId, eventId) => write('webhooks', 'redeliver', webhookId, eventId),
    nextDueAt: () => read(() => hookReads.nextDueAt()),
  };

  const printRuleStore: PrintRuleStore = {
    list: () => read(() => ruleReads.list()),
    get: (id) => read(() => ruleReads.get(id)),
    create: (rule) => write('printRules', 'create', rule),
    delete: (id) => write('printRules', 'delete', id),
    fire: (lease, leaseMs, jobs) => write('printRules', 'fire', lease, leaseMs, jobs),
  };

  let closing: Promise<void> | undefined;
  return {
    records: recordStore,
    webhooks: webhookStore,
    consumers: consumerStore,
    printRules: printRuleStore,
    events: eventStore,
    templates: templateStore,
    calibrations: calibrationStore,
    printers: printerStore,
    tokens: tokenStore,
    printJobs,
    search: sqliteRecordSearch(db),
    imports: {
      ...sqliteImports(db, () => {
        ownWrites++;
        stamp = undefined;
      }),
      // Its commits are another connection's: data_version (the change stamp) counts them.
      ...(importThreads && { importFile: importThreads.importFile }),
    },
    ping: async () => {
      await read(() => meta.read());
    },
    health: () => health.health(),
    close: () =>
      (closing ??= (async () => {
        await lastUse.flush();
        await importThreads?.close();
        await writer.close();
        if (db.open) db.close();
      })()),
  };
}

/** Runs a read; SQLITE_BUSY (rare in WAL mode) is retried after a pause instead of blocking the event loop. */
async function read<T>(fn: () => T | Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const busy = typeof code === 'string' && code.startsWith('SQLITE_BUSY');
      if (!busy || attempt >= READ_RETRIES) throw storeFaultOf(err) ? unreadable(err) : err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, 5 * 2 ** attempt)));
    }
  }
}
