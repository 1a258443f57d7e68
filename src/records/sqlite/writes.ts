/**
 * Every write of the SQLite store, by target and method: what the writer (writer.ts)
 * runs on its own connection, on its thread or inline. Its type, Writes, is the one
 * contract between the store that asks for a write (store.ts) and the writer that
 * runs it, so the compiler checks each write's name, arguments and result.
 */
import type Database from 'better-sqlite3';
import type { PrintJobStore, PrintJobWrite } from '../types.js';
import { sqlitePrintJobs } from './print-jobs.js';
import { sqliteCalibrations, sqliteConsumers, sqliteWebhooks, sqliteEvents, sqliteMeta, sqlitePrinters, sqlitePrintRules, sqliteRecords, sqliteTemplates, sqliteTokens } from './queries.js';

/** The writes, prepared on the writer's connection. */
export function sqliteWrites(db: Database.Database) {
  const records = sqliteRecords(db);
  const tokens = sqliteTokens(db);
  const meta = sqliteMeta(db);
  const templates = sqliteTemplates(db);
  const calibrations = sqliteCalibrations(db);
  const printers = sqlitePrinters(db);
  const jobs = sqlitePrintJobs(db);
  const events = sqliteEvents(db);
  const consumers = sqliteConsumers(db);
  const webhooks = sqliteWebhooks(db);
  const rules = sqlitePrintRules(db);
  const printJobs: Pick<PrintJobStore, PrintJobWrite> = {
    submit: jobs.submit,
    submitBatch: jobs.submitBatch,
    requeueFailed: jobs.requeueFailed,
    cancelQueued: jobs.cancelQueued,
    claim: jobs.claim,
    setHeld: jobs.setHeld,
    moveQueued: jobs.moveQueued,
    markPrinted: jobs.markPrinted,
    markRetry: jobs.markRetry,
    markFailed: jobs.markFailed,
    purgeFinished: jobs.purgeFinished,
    tidy: jobs.tidy,
  };
  return {
    records: { upsertMany: records.upsertMany },
    tokens: { insert: tokens.insert, touch: tokens.touch, revoke: tokens.revoke },
    printJobs,
    meta: { probe: meta.probe },
    events: { append: events.append, settleStale: events.settleStale, prune: events.prune },
    webhooks: { create: webhooks.create, update: webhooks.update, delete: webhooks.delete, fanOut: webhooks.fanOut, claim: webhooks.claim, record: webhooks.record, redeliver: webhooks.redeliver },
    consumers: { acquire: consumers.acquire, advance: consumers.advance, renew: consumers.renew, release: consumers.release },
    printRules: { create: rules.create, delete: rules.delete, fire: rules.fire },
    templates: { put: templates.put, delete: templates.delete },
    calibrations: { put: calibrations.put, delete: calibrations.delete },
    printers: { put: printers.put, delete: printers.delete, saveStatus: printers.saveStatus, claimStatusRead: printers.claimStatusRead, saveReach: printers.saveReach },
  };
}

export type Writes = ReturnType<typeof sqliteWrites>;
export type WriteTarget = keyof Writes;
export type WriteMethod<T extends WriteTarget> = keyof Writes[T] & string;
/** A write's arguments and (resolved) result, as its method in Writes declares them. */
export type WriteArgs<T extends WriteTarget, M extends WriteMethod<T>> = Writes[T][M] extends (...args: infer A extends unknown[]) => unknown ? A : never;
export type WriteResult<T extends WriteTarget, M extends WriteMethod<T>> = Writes[T][M] extends (...args: never[]) => infer R ? Awaited<R> : never;
