/**
 * The data layer's contract. Every store (SQLite today, PostgreSQL for scale-out)
 * implements these interfaces; nothing above src/records knows which one it talks to.
 * All methods are async so a networked store fits without changing callers.
 * Every other module of src/records may import this one, so it imports none of
 * them that would import it back (madge --circular finds none).
 */
import type { components } from '../../generated/openapi.js';
import type { FieldDefinition, FieldValues } from './fields.js';
import type { StoreHealth } from './health.js';
import type { DialectName } from './sql/dialect.js';

export type { StoreHealth };

import type { LabelKind, RecordKind } from './kinds.js';

export type { RecordKind };

export interface InventoryRecord {
  kind: RecordKind;
  /** Location or item identifier (a UUID or a slug), unique per kind. */
  id: string;
  name: string;
  /** Empty string when there is none. */
  description: string;
  /** Id of the parent location; null for a top-level location or an unplaced item. */
  parentId: string | null;
  /** Asset number (items only; `000-001` is asset 1). Unique across items. */
  assetId: number | null;
  /** ISO 8601 UTC timestamp of the last change. */
  updatedAt: string;
  /** Custom field values (fields.ts), checked against the field catalogue; absent when it has none. */
  fields?: FieldValues;
}

/** How a label names its record: a location or an item by id, or an item by asset id. */
export type RecordKey = { kind: RecordKind; id: string } | { assetId: number };

/** A record with the names of the locations it sits in, top first ([] when it has no parent). */
export interface PlacedRecord {
  record: InventoryRecord;
  path: string[];
}

/** A record to insert or replace; updatedAt defaults to now. */
export type RecordInput = Omit<InventoryRecord, 'updatedAt'> & { updatedAt?: string };

export interface RecordStore {
  getLocation(id: string): Promise<InventoryRecord | undefined>;
  getItem(id: string): Promise<InventoryRecord | undefined>;
  getItemByAssetId(assetId: number): Promise<InventoryRecord | undefined>;
  /** Names from the top-level location down to `locationId` inclusive; [] if unknown. */
  locationPath(locationId: string): Promise<string[]>;
  /**
   * The record and its path (locationPath of its parent) read together: one statement,
   * one round trip on PostgreSQL, one snapshot on both stores. What a label needs.
   */
  getWithPath(key: RecordKey): Promise<PlacedRecord | undefined>;
  /** Inserts or replaces all records in one transaction: all land or none do. */
  upsertMany(records: RecordInput[]): Promise<void>;
  count(): Promise<number>;
  /**
   * The records revision (bumped by every write of records): read before a record that is
   * printed, it tells later whether the record changed since (LabelShown.revision).
   */
  revision(): Promise<number>;
  /**
   * A value that changes whenever any record may have changed (in this process or
   * another), cheaper than a lookup; absent where the store cannot tell (PostgreSQL).
   * Lets a reader keep what it looked up until the next change (label-records.ts).
   */
  changeStamp?(): number;
  /**
   * The bulk write (upsertRecords) kept under this token's Idempotency-Key, unless it is older
   * than `since` (expired: the key may be used again). A read; the key is taken inside the
   * write's own transaction (ImportSession.takeSyncKey).
   */
  syncByKey(tokenId: string, key: string, since: string): Promise<RecordSync | undefined>;
}

/** A bulk write's answer as it was given, kept under its Idempotency-Key (record_syncs, sql/record-syncs.ts). */
export interface RecordSync {
  /** Digest of the request's body: a replay must bring the same one. */
  requestHash: string;
  /** The answer's JSON (BulkResult in the spec). */
  response: string;
}

/** The Idempotency-Key a bulk write is taken under, per token; a key older than `since` has expired and may be used again. */
export interface RecordSyncKey {
  tokenId: string;
  key: string;
  requestHash: string;
  since: string;
}

export type Scope = 'labels:read' | 'labels:print' | 'templates:write' | 'printers:admin' | 'printers:agent' | 'records:write' | 'webhooks:admin' | 'integrations:render' | 'integrations:print';
/**
 * The scopes of ordinary API tokens (Authorization header); the demo token has all but `printers:agent` (DEMO_SCOPES).
 * `printers:admin` defines the printers (and sees their device URIs), `records:write` creates,
 * replaces and deletes records, `webhooks:admin` registers webhooks (URLs the service POSTs
 * events to): `tokens create` gives them only when --scopes names them.
 */
export const API_SCOPES: readonly Scope[] = ['labels:read', 'labels:print', 'templates:write', 'printers:admin', 'printers:agent', 'records:write', 'webhooks:admin'];
/**
 * The demo token's scopes: every API scope but `printers:agent`, which is a `labelmaker agent`'s
 * alone (its token is named as the agent it acts for). It has `records:write`: the demo's
 * records are sample data in a throw-away store, and the write operations are then tried out
 * like every other one (docs' try-it-out, check:portman).
 */
export const DEMO_SCOPES: readonly Scope[] = API_SCOPES.filter((s) => s !== 'printers:agent');
/**
 * The scopes of integration keys: credentials that travel in a URL path (Homebox and
 * Grocy cannot send headers). A key holds only these, and they are accepted only on the
 * integration operations, so a leaked key can draw or print labels and nothing else.
 */
export const INTEGRATION_SCOPES: readonly Scope[] = ['integrations:render', 'integrations:print'];
export const ALL_SCOPES: readonly Scope[] = [...API_SCOPES, ...INTEGRATION_SCOPES];

export interface TokenInfo {
  /** Public, non-secret id (also the token's visible prefix); used to list and revoke. */
  id: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface TokenStore {
  /** Stores a token by its hash. The plaintext is never stored. */
  insert(token: { id: string; name: string; scopes: Scope[]; hash: string }): Promise<TokenInfo>;
  /** The active (not revoked) token with this hash, if any; records the use. */
  findActiveByHash(hash: string): Promise<TokenInfo | undefined>;
  list(): Promise<TokenInfo[]>;
  /** Revokes by id; false if no active token has that id. */
  revoke(id: string): Promise<boolean>;
  count(): Promise<number>;
}

export type PrintJobState = 'queued' | 'printing' | 'printed' | 'failed';

export interface PrintJob {
  id: string;
  state: PrintJobState;
  /** The printer it goes to, as safe to show (no credentials). */
  printer: string;
  template: string;
  title: string;
  /** Label fields (kind, id, name, assetId, url) for drivers that use them. */
  fields: Record<string, string>;
  tokenId: string;
  idempotencyKey: string | null;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  /** When the next delivery attempt is due (queued jobs). */
  nextAttemptAt: string;
  printedAt: string | null;
  /** An earlier attempt may have reached the printer: the next one is a redelivery (checked with the printer, or flagged). */
  inDoubt: boolean;
  /** Sent again after such an attempt to a printer that could not tell whether it already had it: it may have printed twice. */
  possibleDuplicate: boolean;
  /** When a person last put it back in the queue after it failed (retryPrintJob); null if never. */
  retriedAt: string | null;
  /** The batch it was submitted in (submitBatch); null for a job submitted on its own. */
  batchId: string | null;
  /** When its token cancelled it before it was sent (cancelQueued); its state is then 'failed'. Null if never. */
  cancelledAt: string | null;
  /**
   * Why no printer can print it now, in plain words (the wrong roll, offline, paused): a held
   * job stays queued and is never claimed until the reason clears. Null when it is not held.
   */
  heldReason: string | null;
}

/** What an attempt leaves on its job besides the state. */
export interface AttemptMarks {
  /** Whether the next attempt is a redelivery (default: unchanged). */
  inDoubt?: boolean;
  /** Set (never cleared) when this attempt may have printed the label a second time. */
  possibleDuplicate?: boolean;
  /**
   * markRetry only: the attempt sent nothing because this instance could not reach the
   * printer (issue 31), so it is given back: another instance that reaches it takes the job.
   */
  notSent?: boolean;
}

/**
 * What a job's label shows, remembered when it prints (printed_labels): the record, a
 * fingerprint of its rendered content, the template and its version, and the records
 * revision read before the record was (sql/label-state.ts). Absent for labels of no record of ours.
 */
export interface LabelShown {
  kind: RecordKind;
  id: string;
  fingerprint: string;
  template: string;
  /** The saved template's ETag value; '' for a built-in template. */
  templateVersion: string;
  revision: number;
}

/** Why a printed label is stale (more than one may hold). */
export type StaleReason = 'recordChanged' | 'locationChanged' | 'templateChanged' | 'recordDeleted';

/** A printed label stale by revision and not announced yet (EventStore.unannouncedStale). */
export interface StaleLabel extends PrintedLabel {
  reasons: StaleReason[];
}

/** What the label-staleness consumer found about a page of stale labels (EventStore.settleStale). */
export interface StaleVerdicts {
  /** Labels that would look the same now: compared at this records revision and template version. */
  current: { kind: RecordKind; id: string; jobId: string; revision: number; templateVersion: string }[];
  /** Labels that would look different now (or whose record or template is gone): announced. */
  stale: StaleLabel[];
}

/** A record's last printed label (printedLabel). */
export interface PrintedLabel extends LabelShown {
  jobId: string;
  stock: string;
  printer: string;
  printedAt: string;
}

export type NewPrintJob = Pick<PrintJob, 'id' | 'printer' | 'template' | 'title' | 'fields' | 'tokenId' | 'idempotencyKey' | 'maxAttempts'> & {
  png: Buffer;
  /** What its label shows, when it is a label of one of our records. */
  label?: LabelShown | null;
  /** Held from the start (holds.ts); null or absent when it can print. */
  heldReason?: string | null;
};

/** Queued jobs of one printer and stock (reevaluateHolds looks at each stock once). */
export interface QueuedStock {
  template: string;
  jobs: number;
}

/** Pending jobs of one printer in one state (metrics): how many, how many held, and the oldest's creation time. */
export interface PrinterQueueCount {
  printer: string;
  state: 'queued' | 'printing';
  jobs: number;
  held: number;
  oldestCreatedAt: string;
}

/** Many jobs accepted together (createPrintBatch): one key, one transaction. */
export interface PrintBatch {
  id: string;
  tokenId: string;
  idempotencyKey: string | null;
  /** Digest of the request that made it: a replayed key must carry the same request. */
  requestHash: string;
  printer: string;
  template: string;
  createdAt: string;
  /** Its jobs' ids, in the order they print. */
  jobIds: string[];
  /** Its jobs by state (queued and printing are pending), and how many of the failed ones were cancelled. */
  counts: Record<PrintJobState, number> & { cancelled: number };
}

export type NewPrintBatch = Pick<PrintBatch, 'id' | 'tokenId' | 'idempotencyKey' | 'requestHash' | 'printer' | 'template'>;

/**
 * A job claimed by a worker, with the document to deliver and, from the store's claim, the
 * device URI its printer had at that moment (jobs naming no stored printer: the default's;
 * null with no stored printer; absent where the claim did not come from a store, as an
 * agent's). A worker whose view of the fleet names another address gives the job back
 * rather than print it at an address the printer has left.
 */
export type ClaimedPrintJob = PrintJob & { png: Buffer; printerUri?: string | null };

/**
 * The durable print queue. Workers claim jobs under a lease: a worker that dies
 * mid-delivery loses its lease, and the job becomes claimable again when it expires.
 * Completion calls name the lease owner, so a worker whose lease expired cannot
 * overwrite the outcome of the worker that took over.
 */
export interface PrintJobStore {
  /**
   * Stores a new job, unless the same token already submitted the same idempotency
   * key at or after `keySince`: then returns that job and stores nothing.
   */
  submit(job: NewPrintJob, keySince: string): Promise<{ job: PrintJob; created: boolean }>;
  get(id: string): Promise<PrintJob | undefined>;
  /**
   * Stores a batch and all its jobs in one transaction (all or none), unless the same
   * token already submitted the same idempotency key at or after `keySince`: then
   * returns that batch and stores nothing. Jobs are claimed in the order given.
   */
  submitBatch(batch: NewPrintBatch, jobs: NewPrintJob[], keySince: string): Promise<{ batch: PrintBatch; created: boolean }>;
  getBatch(id: string): Promise<PrintBatch | undefined>;
  /** One token's jobs, newest first (created_at, then id, both descending), a page at a time. */
  list(query: PrintJobQuery): Promise<PrintJobPage>;
  /**
   * Puts a failed job whose document is still stored back in the queue: attempts from 0,
   * due now, `retriedAt` set, held for `heldReason` (null: not held; the hold rule's answer
   * for its printer now), its last error and marks kept. Undefined (nothing changed)
   * when the job is not failed, has no document, or does not exist.
   */
  requeueFailed(id: string, heldReason: string | null): Promise<PrintJob | undefined>;
  /**
   * Cancels the token's job if it is queued (waiting, or waiting to retry): it becomes
   * 'failed' with `cancelledAt` set and its document dropped, in one statement, so no
   * worker can claim it afterwards. A job a worker holds ('printing') is never touched.
   * Undefined (nothing changed) when the job is not queued, not the token's, or does not exist.
   */
  cancelQueued(id: string, tokenId: string): Promise<PrintJob | undefined>;
  /**
   * Claims the oldest due job (queued, not held, and due; or printing with an expired lease)
   * of the printers named (any printer when undefined). `orphans` also takes jobs naming no
   * known printer (stored before the fleet): the default printer's dispatcher asks for them.
   */
  claim(owner: string, leaseMs: number, printers?: readonly string[], orphans?: boolean): Promise<ClaimedPrintJob | undefined>;
  /** A printer's queued jobs by stock (held or not), for reevaluateHolds. */
  queuedStocks(printer: string): Promise<QueuedStock[]>;
  /** Sets (or clears, null) the held reason of a printer's queued jobs of one stock; returns how many changed. */
  setHeld(printer: string, template: string, reason: string | null): Promise<number>;
  /**
   * Moves the token's queued job (held or not) to another printer with its new held reason.
   * Undefined (nothing changed) when it is not queued, not the token's, or does not exist.
   */
  moveQueued(id: string, tokenId: string, printer: string, heldReason: string | null): Promise<PrintJob | undefined>;
  /** Pending jobs by printer and state (metrics). */
  pendingByPrinter(): Promise<PrinterQueueCount[]>;
  /** Final: the document (PNG) is dropped, the job's record kept until purged. */
  markPrinted(id: string, owner: string, marks?: AttemptMarks): Promise<boolean>;
  /** Back to queued, due again at `nextAttemptAt`; a null error keeps the job's last one (a claim given back unspent). */
  markRetry(id: string, owner: string, error: string | null, nextAttemptAt: string, marks?: AttemptMarks): Promise<boolean>;
  /** Final unless a person retries it (requeueFailed): the job keeps its document until purged. */
  markFailed(id: string, owner: string, error: string, marks?: AttemptMarks): Promise<boolean>;
  /** Earliest time a job may become claimable (due time or lease expiry); undefined if none pending. */
  nextWakeAt(): Promise<string | undefined>;
  /** A record's last printed label (markPrinted remembers it), undefined when none of its labels printed. */
  printedLabel(kind: RecordKind, id: string): Promise<PrintedLabel | undefined>;
  /** Jobs waiting or being delivered, by state (the queue's depth, for metrics; reads the pending index only). */
  pendingCounts(): Promise<{ queued: number; printing: number }>;
  /** Deletes up to `limit` printed or failed jobs last updated before `before`; returns how many. */
  purgeFinished(before: string, limit: number): Promise<number>;
  /**
   * Reclaims what finished and purged jobs leave behind, so claims do not walk past it
   * (PostgreSQL: VACUUM print_jobs, with ANALYZE when asked; SQLite updates in place: nothing to do).
   */
  tidy(opts: { analyze: boolean }): Promise<void>;
}

/**
 * The print-job methods that only read. Every other one is a write (PrintJobWrite): SQLite
 * runs it on its writer (sqlite/writes.ts), and both stores count it towards write health.
 */
export type PrintJobRead = 'get' | 'getBatch' | 'list' | 'nextWakeAt' | 'printedLabel' | 'pendingCounts' | 'queuedStocks' | 'pendingByPrinter';
export type PrintJobWrite = Exclude<keyof PrintJobStore, PrintJobRead>;

/** Filters of listPrintJobs: one token's jobs, optionally in one state or one batch. */
export interface PrintJobQuery {
  tokenId: string;
  state?: PrintJobState;
  batchId?: string;
  /** Jobs per page, 1..200. */
  limit: number;
  /** Where the previous page ended (PrintJobPage.next). */
  after?: PrintJobSortKey;
}

/** Jobs sort newest first by (createdAt, id). */
export interface PrintJobSortKey {
  createdAt: string;
  id: string;
}

export interface PrintJobPage {
  jobs: PrintJob[];
  /** Sort key to continue after; undefined on the last page. */
  next?: PrintJobSortKey;
}

/** A saved label template as stored: its design as JSON text, its 1-bit logo, and its ETag. */
export interface SavedTemplate {
  name: string;
  /** The design as the API shows it, without the logo's picture (JSON text). */
  design: string;
  /** The logo at the stock's dots: PNG scanlines (filter byte + packed bits, 1 = white). */
  logo: { width: number; height: number; rows: Buffer } | null;
  /** Strong ETag value (quotes included); a new one on every write. */
  etag: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Saved templates. Writes are conditional, checked in the same statement that
 * writes, so two editors never overwrite each other: a create succeeds only if
 * the name is free, a replace or delete only at the ETag the editor read.
 */
export interface TemplateStore {
  /** All saved templates, by name. */
  list(): Promise<SavedTemplate[]>;
  get(name: string): Promise<SavedTemplate | undefined>;
  count(): Promise<number>;
  /** Creates (`ifEtag` null: only if the name is free) or replaces (only if its ETag is `ifEtag`); false when that does not hold. */
  put(template: SavedTemplate, ifEtag: string | null): Promise<boolean>;
  /** Deletes the template if its ETag is `ifEtag`; false otherwise. */
  delete(name: string, ifEtag: string): Promise<boolean>;
}

/** A printer's offset on a sheet product, saved (putSheetCalibration) and applied to its sheets that ask for none. */
export interface SheetCalibration {
  /** The sheet product's name (avery-l7160, ...). */
  sheet: string;
  /** Millimetres right (x) and down (y) that everything printed moves, -5 to 5. */
  offsetXMm: number;
  offsetYMm: number;
  updatedAt: string;
}

/** Saved sheet calibrations, one per sheet product; a save replaces the product's last one. */
export interface SheetCalibrationStore {
  get(sheet: string): Promise<SheetCalibration | undefined>;
  /** Creates or replaces the product's calibration. */
  put(calibration: SheetCalibration): Promise<void>;
  /** False when the product had none. */
  delete(sheet: string): Promise<boolean>;
}

/** Where a printer was defined: the configuration file (or PRINTER_URI), or the API (putPrinter). */
export type PrinterSource = 'config' | 'api';

/** A printer as it is defined: what putPrinter and the configuration file give. */
export interface PrinterSettings {
  /** A slug, `^[a-z0-9][a-z0-9-]{0,39}$`: what jobs name it by. */
  name: string;
  title: string;
  /** CUPS-style device URI; may carry credentials (user:password@): shown to printers:admin only, never logged. */
  deviceUri: string;
  /** Free text ("QL-820NWB"), null when unknown. */
  model: string | null;
  /** The location record it stands in, or null. */
  locationId: string | null;
  /** Canonical stock names it has loaded or can print; empty: any. */
  stocks: string[];
  /** Whether it prints red (a two-colour roll). */
  red: boolean;
  /**
   * The fallback printer. There is exactly one whenever any printer exists: true here moves
   * it to this printer; false never takes it away (another printer's true, or a delete, moves it).
   */
  isDefault: boolean;
  source: PrinterSource;
  /**
   * The `labelmaker agent` that reaches the printer (same pattern as printer names), or
   * null/absent when the service does: the service then neither delivers its jobs nor reads its status.
   */
  agent?: string | null;
}

/** What a printer last said about itself (the PrinterStatus of the spec, as its poller wrote it). */
export interface PrinterStatusReading {
  /** ISO time of the reading: a reading older than the stored one is not kept. */
  checkedAt: string;
  [field: string]: unknown;
}

/** A printer as stored: its settings, their ETag, and its last status reading. */
export interface SavedPrinter extends PrinterSettings {
  /** Strong ETag of the settings (quotes included); a new one on every change of them, never on a status reading. */
  etag: string;
  createdAt: string;
  updatedAt: string;
  /** Null until the printer's status was read. */
  status: PrinterStatusReading | null;
  /** Which live instances reach it (migration 17); absent until one probed it. */
  reach?: PrinterReach;
}

/** Of the live instances that probed a printer at its current URI, how many reach it. */
export interface PrinterReach {
  probed: number;
  reaching: number;
}

/** Why a printer delete changed nothing, or that it did. */
export type PrinterDeletion = 'deleted' | 'missing' | 'changed' | 'has-jobs';

/**
 * The printer fleet, shared by every instance on the database. Writes are checked in the
 * transaction that makes them: a create only where the name is free, a replace or delete
 * only at the ETag given, and the default printer moves in the same transaction.
 */
export interface PrinterStore {
  /** Every printer, by name. */
  list(): Promise<SavedPrinter[]>;
  get(name: string): Promise<SavedPrinter | undefined>;
  /**
   * Creates or replaces a printer: `ifEtag` null creates only (the name must be free), a string
   * replaces only at that ETag, undefined does either (the configuration file, an unconditional
   * PUT). Creation keeps createdAt; the status reading stays. Returns the printer as saved, or
   * undefined when the condition did not hold (nothing changed).
   */
  put(printer: PrinterSettings, ifEtag?: string | null): Promise<SavedPrinter | undefined>;
  /**
   * Deletes a printer at `ifEtag` (any ETag when undefined), unless jobs wait for it
   * (pendingJobs): then nothing changes. If it was the default, the oldest remaining
   * printer becomes the default.
   */
  delete(name: string, ifEtag?: string): Promise<PrinterDeletion>;
  /**
   * Jobs queued or being sent for the printer. For `default`, also jobs that name no
   * known printer: jobs stored before the fleet carry PRINTER_NAME's name and belong to it.
   */
  pendingJobs(name: string): Promise<number>;
  /** Stores a status reading; false (nothing stored) when no printer has the name or a newer reading is stored. */
  saveStatus(name: string, status: PrinterStatusReading): Promise<boolean>;
  /**
   * Takes the printer for a status read at `at` (ISO) unless it was read or taken at or after
   * `staleBefore` (by any instance): true for exactly one of several instances asking at once,
   * false when another has it, its reading is fresh, or no printer has the name.
   */
  claimStatusRead(name: string, at: string, staleBefore: string): Promise<boolean>;
  /**
   * Stores whether `instance` reached the printer at `deviceUri` at `at` (ISO), and drops the
   * rows of instances that have not reported since `staleBefore`. Returns how many live
   * instances reach it, or undefined (nothing stored) when no printer has that name and URI.
   */
  saveReach(name: string, deviceUri: string, instance: string, reachable: boolean, at: string, staleBefore: string): Promise<number | undefined>;
}

// --- The outbox (migration 18; sql/events.ts documents the API) ---

/** Event types so far; later ones (webhooks, print rules) add theirs here. */
export type EventType = 'record.created' | 'record.changed' | 'record.deleted' | PrintJobEventType | 'label.stale' | TemplateEventType;
/** A saved template replaced or deleted (sql/templates.ts); outbox only, not a webhook event type (docs/webhooks.md). */
export type TemplateEventType = 'template.changed' | 'template.deleted';
/** A print job's state change, appended in the transaction of that change (sql/print-jobs.ts printJobEvent). */
export type PrintJobEventType = 'print_job.printed' | 'print_job.failed' | 'print_job.held';

/** What an event is about: a record (kind location or item), or another kind of thing later. */
export interface EventSubject {
  kind: string;
  id: string;
}

export interface NewEvent {
  type: EventType;
  subject: EventSubject;
  /** JSON-serialisable details (record events: { record, previous? }). */
  data: unknown;
}

/** An event as stored: ids increase in commit order, so the last id read is a cursor. */
export interface OutboxEvent {
  id: number;
  type: string;
  subject: EventSubject;
  /** ISO 8601 UTC. */
  occurredAt: string;
  data: unknown;
}

export interface EventStore {
  /** Events with an id above `cursor` (0: from the start), oldest first, at most `limit` (1..1000). */
  after(cursor: number, limit: number): Promise<OutboxEvent[]>;
  /** The newest event's id, 0 when there is none. */
  latest(): Promise<number>;
  /** Appends in a transaction of its own; events that belong to a write go in its transaction (appendEvents). */
  append(events: NewEvent[]): Promise<void>;
  /**
   * The label-staleness consumer's page (sql/label-stale.ts): at most `limit` (1..1000)
   * printed labels stale by revision (a superset of those that would look different) and not
   * announced yet, in key order. A read.
   */
  unannouncedStale(limit: number): Promise<StaleLabel[]>;
  /**
   * Its commit, one transaction: checks the lease, advances the labels that would look the
   * same (out of the stale set), appends label.stale for the others not announced yet and
   * marks them, and, when `done`, moves the cursor to lease.to. held: false when the lease
   * was lost (nothing written).
   */
  settleStale(lease: ConsumerLease, leaseMs: number, verdicts: StaleVerdicts, done: boolean): Promise<{ held: boolean; announced: number }>;
  /**
   * Retention (sql/events.ts pruneEvents): deletes at most `limit` finished webhook deliveries
   * last updated before `before` (ISO), at most `limit` events from before it that every
   * consumer has passed and no remaining delivery names, and at most `limit` bulk-write
   * Idempotency-Keys (record_syncs) taken before it. Call again while any count is `limit`.
   */
  prune(before: string, limit: number): Promise<PruneCounts>;
}

// --- Outbox consumers (migration 21; sql/consumers.ts documents the SQL, src/events/consumer.ts the loop) ---

/** What a consumer's batch may commit: its cursor moves from `from` to `to` under `owner`'s lease. */
/** What one retention batch (EventStore.prune) deleted. */
export interface PruneCounts {
  events: number;
  deliveries: number;
  /** Bulk-write Idempotency-Keys (record_syncs), long expired: the window is 24 hours, retention at least a day. */
  syncs: number;
}

export interface ConsumerLease {
  name: string;
  owner: string;
  from: number;
  to: number;
}

export interface ConsumerState {
  name: string;
  cursor: number;
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
  updatedAt: string;
}

export interface ConsumerStore {
  /** Takes (or renews) the named consumer's lease for `owner`; its cursor, or undefined while another owner holds it. A new consumer starts at 0 ('beginning') or the newest event ('latest'). */
  acquire(name: string, owner: string, leaseMs: number, start: 'beginning' | 'latest'): Promise<number | undefined>;
  /** Moves the cursor (compare and set on lease.from, under the lease) with no writes of its own; false when the lease or the cursor was lost. */
  advance(lease: ConsumerLease, leaseMs: number): Promise<boolean>;
  renew(name: string, owner: string, leaseMs: number): Promise<boolean>;
  release(name: string, owner: string): Promise<boolean>;
  get(name: string): Promise<ConsumerState | undefined>;
}

// --- Webhooks (migration 21; sql/webhooks.ts, src/events/webhooks.ts) ---

type WebhookSchemas = components['schemas'];

/** A registered webhook as the API shows it (generated from spec/openapi.yaml), with its ETag. */
export type Webhook = WebhookSchemas['Webhook'] & { etag: string };

/** A webhook to store: the API's fields, its id and the secret that signs its deliveries (kept to sign, never shown again after its creation). */
export type NewWebhook = Pick<WebhookSchemas['WebhookCreated'], 'id' | 'url' | 'description' | 'eventTypes' | 'enabled' | 'secret'>;

export type WebhookChange = WebhookSchemas['WebhookChange'];

export type WebhookDeliveryState = WebhookSchemas['WebhookDelivery']['state'];

/** A delivery as the API shows it, with the webhook it belongs to. */
export type WebhookDelivery = WebhookSchemas['WebhookDelivery'] & { webhookId: string };

/** A delivery claimed under a lease, with what sending it needs. */
export interface ClaimedDelivery extends WebhookDelivery {
  url: string;
  secret: string;
  event: OutboxEvent;
}

export interface WebhookStore {
  create(w: NewWebhook): Promise<Webhook>;
  list(): Promise<Webhook[]>;
  get(id: string): Promise<Webhook | undefined>;
  update(id: string, change: WebhookChange, ifEtag: string | null): Promise<Webhook | 'missing' | 'changed'>;
  delete(id: string): Promise<boolean>;
  /** The webhook consumer's batch: moves its cursor and inserts the deliveries in one transaction (false: lease lost, nothing written). */
  fanOut(lease: ConsumerLease, leaseMs: number, events: { id: number; type: string }[]): Promise<boolean>;
  claim(owner: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]>;
  record(id: number, owner: string, outcome: { state: 'delivered' | 'pending' | 'failed'; status: number | null; error: string | null; nextAttemptAt?: string }): Promise<boolean>;
  deliveries(webhookId: string, limit: number): Promise<WebhookDelivery[]>;
  redeliver(webhookId: string, eventId: number): Promise<WebhookDelivery | undefined>;
  nextDueAt(): Promise<string | undefined>;
}

// --- Print rules (migration 22; sql/print-rules.ts, src/events/print-rules.ts) ---

/** What a rule fires on: a record created under its location, or moved under it. */
export type PrintRuleTrigger = 'created' | 'moved';

export interface PrintRuleInput {
  name: string;
  /** The location whose subtree the rule watches (the location itself and everything under it). */
  locationId: string;
  /** Which records: items, locations or both. */
  kinds: ('item' | 'location')[];
  triggers: PrintRuleTrigger[];
  /** The template the label is drawn with. */
  template: string;
  /** The printer it goes to; null: the fleet's routing rule chooses. */
  printer: string | null;
}

export interface PrintRule extends PrintRuleInput {
  id: string;
  /** The token that made it: its jobs are stored under this token id. */
  tokenId: string;
  createdAt: string;
}

export interface PrintRuleStore {
  list(): Promise<PrintRule[]>;
  get(id: string): Promise<PrintRule | undefined>;
  create(rule: PrintRule): Promise<PrintRule>;
  /** False when there was no such rule. */
  delete(id: string): Promise<boolean>;
  /**
   * One transaction: moves the consumer's cursor (advanceConsumer, compare and set under
   * its lease) and stores the jobs, each under its idempotency key (a key already stored
   * is skipped). Nothing is written when the cursor did not move (advanced: false).
   */
  fire(lease: ConsumerLease, leaseMs: number, jobs: NewPrintJob[]): Promise<{ advanced: boolean; created: number }>;
}

export interface Store {
  records: RecordStore;
  /** Webhooks and their deliveries (migration 21). */
  webhooks: WebhookStore;
  /** Named readers of the outbox, their cursors and leases (migration 21). */
  consumers: ConsumerStore;
  /** The transactional outbox (migration 18). */
  events: EventStore;
  /** Print rules (migration 22). */
  printRules: PrintRuleStore;
  /** Saved label templates. */
  templates: TemplateStore;
  /** Saved sheet calibrations. */
  calibrations: SheetCalibrationStore;
  /** The printer fleet (issue 31). */
  printers: PrinterStore;
  tokens: TokenStore;
  printJobs: PrintJobStore;
  /** Searching and browsing records (listRecords). */
  search: RecordSearch;
  /** Bulk imports: staged, checked set-wise, written in one transaction (see import/import.ts). */
  imports: RecordImports;
  /** Cheap read probe. Throws when the store cannot be read. */
  ping(): Promise<void>;
  /**
   * Whether reads and writes work right now (see health.ts): cheap, and never
   * throws. Writes refused for any reason (read-only, full disk, a deleted
   * database file, another process's lock) show here as `degraded`.
   */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}

// --- Bulk imports (import/import.ts) ---

/** A row as staged for the set-wise checks and the write: a record and where it is in the file. */
export type StagedRow = Omit<InventoryRecord, 'updatedAt'> & { row: number };

/**
 * One import's connection and staging tables, as a store's dialect provides them
 * (sqlite/import-session.ts, postgres/import-session.ts); the checks and the write
 * that run over them are written once, in import/checks.ts.
 */
export interface ImportSession {
  readonly dialect: DialectName;
  /** Adds rows to import_rows (called in batches, in file order). */
  stage(rows: readonly StagedRow[]): Promise<void>;
  /** All rows are staged: index them for the checks. */
  staged(): Promise<void>;
  /** Fresh planner statistics for a staging table that just filled (PostgreSQL never analyzes temp tables itself). */
  analyze(table: 'import_tree'): Promise<void>;
  /** A statement with `?` placeholders; the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Runs the checks against one consistent view of the database and returns the
   * records revision that view had (SQLite: a read transaction; PostgreSQL: the
   * import's transaction, which holds the import lock).
   */
  snapshot(fn: () => Promise<void>): Promise<number>;
  /**
   * The write transaction: runs `fn` and commits, unless the records revision is no
   * longer `revision` (another import committed since the checks): then nothing is
   * written and it answers 'stale'. Resolves with how long the write lock was held.
   */
  write(revision: number, fn: () => Promise<void>): Promise<{ outcome: 'written' | 'stale'; lockMs: number }>;
  /**
   * Inside write(): takes the Idempotency-Key with the write, storing `response` under it,
   * unless the key already holds an unexpired answer: then that one (and nothing is stored).
   */
  takeSyncKey(key: RecordSyncKey, response: string): Promise<RecordSync | undefined>;
  /** Drops the staging tables (PostgreSQL: ends the transaction if still open). */
  close(): Promise<void>;
}

/** How a store hands out import sessions; one import at a time per session. */
export interface RecordImports {
  /** `onWait`: called if the session must first wait for another import to finish. */
  begin(options?: { onWait?: () => void }): Promise<ImportSession>;
  /**
   * Imports a whole file on a thread and connection of its own, where the store needs one
   * to keep its event loop free (SQLite on a file: better-sqlite3 is synchronous). Absent
   * elsewhere: importFile (import/import.ts) then runs the import in this thread.
   */
  importFile?(job: ImportFileJob): Promise<ImportResult>;
}

export type ImportFormat = 'json' | 'csv' | 'ndjson';

/** A file to import in full (the API's spooled bulk write): everything in it is plain data, as a thread receives it. */
export interface ImportFileJob {
  file: string;
  format: ImportFormat;
  /** The deployment's field catalogue (FIELDS_FILE): what custom field values a row may carry. */
  fields?: readonly FieldDefinition[];
  /** Taken with the write (ImportSession.takeSyncKey); a key that already holds an answer comes back as `replayed`, nothing written. */
  syncKey?: RecordSyncKey;
}

export interface ImportResult {
  /** Records in the file (all of them were written or found unchanged); 0 when there were problems. */
  imported: number;
  /** Records inserted or changed; the rest were already stored as in the file. */
  written: number;
  /** The first MAX_LISTED problems, by row: `row N: ...`, or file-level messages first. */
  errors: string[];
  /** How many problems there are in all. */
  problemCount: number;
  /** How long the write held the database's write lock, in milliseconds. */
  lockMs?: number;
  /** The answer already kept under the job's syncKey (another request took the key first): nothing was written. */
  replayed?: RecordSync;
}

// --- Finding records (the records API: listRecords) ---

/** Filters of a record search, combined with AND; all optional but `limit`. */
export interface RecordQuery {
  /** Name contains this text, ignoring case. */
  text?: string;
  /** The records that have labels of this kind (`asset`: items that have an asset id). */
  kind?: LabelKind;
  /** Records directly inside this location (with `descendants`, anywhere below it). */
  parentId?: string;
  descendants?: boolean;
  /** Records without a parent: top-level locations and unplaced items. */
  topLevel?: boolean;
  /** Asset-id range, inclusive (items only). */
  assetIdFrom?: number;
  assetIdTo?: number;
  /**
   * One custom field's value (fields.ts): exactly `value`, or within from..to (inclusive),
   * compared as numbers (`number` fields) or as text (dates are ISO, so text order is date order).
   */
  field?: { name: string; numeric: boolean; value?: string | number; from?: string | number; to?: string | number };
  /** Records whose last printed label is out of date, or that have no printed label (sql/label-state.ts). */
  labels?: 'stale' | 'neverPrinted';
  /** Records per page, 1..200. */
  limit: number;
  /** Sort key of the last record of the previous page (from RecordPage.next). */
  after?: RecordSortKey;
}

/**
 * Where a page ends. Records sort by (name, kind, id) in code-point order, or by asset
 * id when the query is about assets (kind `asset` or an asset-id bound).
 */
export type RecordSortKey = { by: 'name'; name: string; kind: RecordKind; id: string } | { by: 'asset'; assetId: number };

/** A record as a search returns it: with its location path and, for locations, how many records are inside. */
export interface FoundRecord extends InventoryRecord {
  /** Names of the locations above it, top first. */
  path: string[];
  /** Ids of the locations in `path`, in the same order. */
  pathIds: string[];
  /** Records directly inside (locations); 0 for items. */
  childCount: number;
}

export interface RecordPage {
  records: FoundRecord[];
  /** Sort key to continue after; undefined on the last page. */
  next?: RecordSortKey;
}

export interface RecordSearch {
  find(query: RecordQuery): Promise<RecordPage>;
}

/** Where a store reports what happens to it (pino's logger fits). */
export interface StoreLogger {
  info(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  error(fields: object, msg: string): void;
}

export interface StoreOptions {
  logger?: StoreLogger;
  /**
   * SQLite: 'first-start' (default) creates a database only where none has been;
   * 'init' also replaces a lost one (the operator's explicit `labelmaker init`).
   */
  create?: 'first-start' | 'init';
  /**
   * SQLite: 'thread' (default for files) writes on a worker thread so the event loop
   * never waits for a disk sync or a lock; 'inline' writes on the calling thread
   * (the CLI, which has no requests to keep waiting).
   */
  writes?: 'thread' | 'inline';
}
