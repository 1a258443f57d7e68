/**
 * The SQLite statements for records, tokens and the store's own bookkeeping, as
 * plain synchronous functions over one connection. The store runs the reads on
 * its connection on the main thread and the writes on the writer's connection
 * (writer.ts), so both prepare them from here.
 */
import type Database from 'better-sqlite3';
import { isoTimestamp, recordValues, toRecord, toTokenInfo, type RecordRow, type TokenRow } from '../rows.js';
import { formatScopes } from '../tokens.js';
import { SQLITE } from '../sql/dialect.js';
import { BUMP_REVISION, CONTENT_REV, RECORD_COLUMNS, RECORD_UPSERT_CONFLICT, TOKEN_COLUMNS, locationPathSql } from '../sql/records.js';
import { calibrationSql, putParams, toCalibration, type CalibrationRow } from '../sql/calibrations.js';
import { deleteTemplate, putTemplate, templateSql, toSavedTemplate, type TemplateRow } from '../sql/templates.js';
import { deletePrinter, getPrinter, listPrinters, pendingJobs, putPrinter, savePrinterStatus, claimPrinterStatusRead, savePrinterReach, type Runner } from '../sql/printers.js';
import { appendEvents, eventsAfter, latestEventId, pruneEvents } from '../sql/events.js';
import { SYNC_BY_KEY_SQL, toRecordSync } from '../sql/record-syncs.js';
import { settleStaleLabels, unannouncedStaleLabels } from '../sql/label-stale.js';
import { claimDeliveries, createWebhook, deleteWebhook, fanOut, getWebhook, listDeliveries, listWebhooks, nextDeliveryAt, recordAttempt, redeliver, updateWebhook } from '../sql/webhooks.js';
import { acquireConsumer, advanceConsumer, getConsumer, releaseConsumer, renewConsumer } from '../sql/consumers.js';
import { createPrintRule, deletePrintRule, firePrintRules, getPrintRule, listPrintRules } from '../sql/print-rules.js';
import type { ConsumerLease, StaleVerdicts, NewWebhook, WebhookChange, NewPrintJob, PrintRule, NewEvent, InventoryRecord, PlacedRecord, PrinterSettings, PrinterStatusReading, RecordInput, RecordKey, RecordKind, SavedTemplate, Scope, SheetCalibration, TokenInfo } from '../types.js';

export function sqliteRecords(db: Database.Database) {
  const q = {
    get: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = ? AND id = ?`),
    byAsset: db.prepare(`SELECT ${RECORD_COLUMNS} FROM records WHERE kind = 'item' AND asset_id = ?`),
    path: db.prepare(locationPathSql(SQLITE)),
    upsert: db.prepare(`INSERT INTO records (${RECORD_COLUMNS}, content_rev) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${CONTENT_REV}) ${RECORD_UPSERT_CONFLICT}`),
    bump: db.prepare(BUMP_REVISION),
    count: db.prepare('SELECT COUNT(*) AS n FROM records'),
    revision: db.prepare('SELECT revision FROM records_revision').pluck(),
    syncByKey: db.prepare(SYNC_BY_KEY_SQL),
  };
  const upsertAll = db.transaction((rows: ReturnType<typeof recordValues>) => {
    q.bump.run();
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
    revision: () => Number(q.revision.get()),
    syncByKey: (tokenId: string, key: string, since: string) => {
      const row = q.syncByKey.get(tokenId, key, since) as Parameters<typeof toRecordSync>[0] | undefined;
      return row && toRecordSync(row);
    },
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

/** The outbox (migration 18): reads on the main thread's connection, appends on the writer's (in its transaction). */
export function sqliteEvents(db: Database.Database) {
  const q: Runner = {
    dialect: SQLITE,
    all: async <R>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as R[],
    run: async (sql, params = []) => db.prepare(sql).run(...params).changes,
  };
  return {
    after: (cursor: number, limit: number) => eventsAfter(q, cursor, limit),
    latest: () => latestEventId(q),
    append: (events: NewEvent[]) => appendEvents(q, events),
    unannouncedStale: (limit: number) => unannouncedStaleLabels(q, limit),
    settleStale: (lease: ConsumerLease, leaseMs: number, verdicts: StaleVerdicts, done: boolean) => settleStaleLabels(q, lease, leaseMs, verdicts, done),
    prune: (before: string, limit: number) => pruneEvents(q, before, limit),
  };
}

/** Outbox consumers (migration 21): reads on the main thread's connection, the rest on the writer's. */
export function sqliteConsumers(db: Database.Database) {
  const q: Runner = {
    dialect: SQLITE,
    all: async <R>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as R[],
    run: async (sql, params = []) => db.prepare(sql).run(...params).changes,
  };
  return {
    runner: q,
    acquire: (name: string, owner: string, leaseMs: number, start: 'beginning' | 'latest') => acquireConsumer(q, name, owner, leaseMs, start),
    advance: (lease: ConsumerLease, leaseMs: number) => advanceConsumer(q, lease, leaseMs),
    renew: (name: string, owner: string, leaseMs: number) => renewConsumer(q, name, owner, leaseMs),
    release: (name: string, owner: string) => releaseConsumer(q, name, owner),
    get: (name: string) => getConsumer(q, name),
  };
}

/** Webhooks and deliveries (migration 21): reads on the main thread's connection, the rest on the writer's. */
export function sqliteWebhooks(db: Database.Database) {
  const q: Runner = {
    dialect: SQLITE,
    all: async <R>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as R[],
    run: async (sql, params = []) => db.prepare(sql).run(...params).changes,
  };
  return {
    create: (w: NewWebhook) => createWebhook(q, w),
    list: () => listWebhooks(q),
    get: (id: string) => getWebhook(q, id),
    update: (id: string, change: WebhookChange, ifEtag: string | null) => updateWebhook(q, id, change, ifEtag),
    delete: (id: string) => deleteWebhook(q, id),
    fanOut: (lease: ConsumerLease, leaseMs: number, events: { id: number; type: string }[]) => fanOut(q, lease, leaseMs, events),
    claim: (owner: string, leaseMs: number, limit: number) => claimDeliveries(q, owner, leaseMs, limit),
    record: (id: number, owner: string, outcome: Parameters<typeof recordAttempt>[3]) => recordAttempt(q, id, owner, outcome),
    deliveries: (webhookId: string, limit: number) => listDeliveries(q, webhookId, limit),
    redeliver: (webhookId: string, eventId: number) => redeliver(q, webhookId, eventId),
    nextDueAt: () => nextDeliveryAt(q),
  };
}

/** Print rules (migration 22): reads on the main thread's connection, writes (and a firing) on the writer's, in its transaction. */
export function sqlitePrintRules(db: Database.Database) {
  const q: Runner = {
    dialect: SQLITE,
    all: async <R>(sql: string, params: readonly unknown[] = []) => db.prepare(sql).all(...params) as R[],
    run: async (sql, params = []) => db.prepare(sql).run(...params).changes,
  };
  return {
    list: () => listPrintRules(q),
    get: (id: string) => getPrintRule(q, id),
    create: (rule: PrintRule) => createPrintRule(q, rule),
    delete: (id: string) => deletePrintRule(q, id),
    fire: (lease: ConsumerLease, leaseMs: number, jobs: NewPrintJob[]) => firePrintRules(q, lease, leaseMs, jobs),
  };
}

/** Saved label templates (migration 7); put and delete run on the writer. */
export function sqliteTemplates(db: Database.Database) {
  const sql = templateSql(SQLITE);
  const q = {
    list: db.prepare(sql.list),
    get: db.prepare(sql.get),
    count: db.prepare(sql.count),
  };
  const w: Runner = {
    dialect: SQLITE,
    all: async <R>(text: string, params: readonly unknown[] = []) => db.prepare(text).all(...params) as R[],
    run: async (text, params = []) => db.prepare(text).run(...params).changes,
  };
  return {
    list: () => (q.list.all() as TemplateRow[]).map(toSavedTemplate),
    get: (name: string) => {
      const row = q.get.get(name) as TemplateRow | undefined;
      return row && toSavedTemplate(row);
    },
    count: () => (q.count.get() as { n: number }).n,
    put: (t: SavedTemplate, ifEtag: string | null) => putTemplate(w, t, ifEtag),
    delete: (name: string, ifEtag: string) => deleteTemplate(w, name, ifEtag),
  };
}

/** Saved sheet calibrations (migration 13); put and delete run on the writer. */
export function sqliteCalibrations(db: Database.Database) {
  const sql = calibrationSql(SQLITE);
  const q = {
    get: db.prepare(sql.get),
    put: db.prepare(sql.put),
    delete: db.prepare(sql.delete),
  };
  return {
    get: (sheet: string) => {
      const row = q.get.get(sheet) as CalibrationRow | undefined;
      return row && toCalibration(row);
    },
    put: (c: SheetCalibration) => {
      q.put.run(putParams(c));
    },
    delete: (sheet: string) => q.delete.run(sheet).changes > 0,
  };
}

/**
 * The printer fleet (migration 14): the shared steps (../sql/printers.ts) over this
 * connection. Reads on the main thread's; put, delete and saveStatus on the writer's,
 * inside its transaction (one at a time: a write's check and its change see the same data).
 */
export function sqlitePrinters(db: Database.Database) {
  const statements = new Map<string, Database.Statement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const q: Runner = {
    dialect: SQLITE,
    all: async <R>(sql: string, params: readonly unknown[] = []) => prepared(sql).all(...params) as R[],
    run: async (sql, params = []) => prepared(sql).run(...params).changes,
  };
  return {
    list: () => listPrinters(q),
    get: (name: string) => getPrinter(q, name),
    pendingJobs: (name: string) => pendingJobs(q, name),
    put: (printer: PrinterSettings, ifEtag?: string | null) => putPrinter(q, printer, ifEtag),
    delete: (name: string, ifEtag?: string) => deletePrinter(q, name, ifEtag),
    saveStatus: (name: string, status: PrinterStatusReading) => savePrinterStatus(q, name, status),
    claimStatusRead: (name: string, at: string, staleBefore: string) => claimPrinterStatusRead(q, name, at, staleBefore),
    saveReach: (name: string, uri: string, instance: string, reachable: boolean, at: string, staleBefore: string) => savePrinterReach(q, name, uri, instance, reachable, at, staleBefore),
  };
}
