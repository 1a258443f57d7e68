/**
 * Versioned schema migrations, shared by both stores. Append only: never edit or
 * reorder an entry that has shipped; add a new version instead. Each store applies
 * the pending ones in a single transaction and records them in `schema_migrations`.
 *
 * Portable choices, so one SQL text fits SQLite and PostgreSQL:
 * - timestamps are TEXT holding `Date#toISOString()` output (fixed width, UTC), so
 *   both stores return identical strings and text order is time order;
 * - asset_id is BIGINT (12-digit asset ids overflow PostgreSQL's 32-bit INTEGER;
 *   SQLite treats BIGINT as its 64-bit INTEGER);
 * - parent_id has no foreign key: the key is (kind, id) and a composite FK would
 *   need an extra constant parent_kind column. Parents are checked on import, and
 *   locationPath tolerates dangling or cyclic parents.
 */
import type { DialectName } from './sql/dialect.js';

export interface Migration {
  version: number;
  name: string;
  /** One statement list for both dialects, or one per dialect. */
  sql: string | Record<DialectName, string>;
}

const PRINT_RULES_DDL = `
        CREATE TABLE print_rules (
          id          TEXT    NOT NULL PRIMARY KEY,
          name        TEXT    NOT NULL,
          location_id TEXT    NOT NULL,
          kinds       TEXT    NOT NULL,
          triggers    TEXT    NOT NULL,
          template    TEXT    NOT NULL,
          printer     TEXT    NULL,
          token_id    TEXT    NOT NULL,
          created_at  TEXT    NOT NULL
        );
`;

const RECORD_SYNCS_DDL = `
        CREATE TABLE record_syncs (
          token_id        TEXT NOT NULL,
          idempotency_key TEXT NOT NULL,
          request_hash    TEXT NOT NULL,
          response        TEXT NOT NULL,
          created_at      TEXT NOT NULL,
          PRIMARY KEY (token_id, idempotency_key)
        );`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records',
    sql: `
      CREATE TABLE records (
        kind        TEXT   NOT NULL CHECK (kind IN ('location', 'item')),
        id          TEXT   NOT NULL,
        name        TEXT   NOT NULL,
        description TEXT   NOT NULL DEFAULT '',
        parent_id   TEXT   NULL,
        asset_id    BIGINT NULL UNIQUE CHECK (asset_id > 0),
        updated_at  TEXT   NOT NULL,
        PRIMARY KEY (kind, id),
        CHECK (asset_id IS NULL OR kind = 'item')
      );
      CREATE INDEX records_parent_idx ON records (parent_id);
    `,
  },
  {
    version: 2,
    name: 'api_tokens',
    sql: `
      CREATE TABLE api_tokens (
        id           TEXT NOT NULL PRIMARY KEY,
        name         TEXT NOT NULL,
        scopes       TEXT NOT NULL,
        hash         TEXT NOT NULL UNIQUE,
        created_at   TEXT NOT NULL,
        last_used_at TEXT NULL,
        revoked_at   TEXT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'print_jobs',
    // The PNG is stored with the job: a job accepted is deliverable after any restart.
    sql: {
      sqlite: printJobsDdl('BLOB'),
      postgres: printJobsDdl('BYTEA'),
    },
  },
  {
    version: 4,
    name: 'print_jobs_exactly_once_and_retention',
    // in_doubt: an earlier attempt may have reached the printer (the next one is a
    //   redelivery: checked with the printer, or flagged);
    // possible_duplicate: a redelivery went to a printer that could not tell (shown in getPrintJob).
    // The claim scans a partial index over pending jobs only, so its cost does not grow
    // with the history; finished jobs have their own index for the retention purge.
    sql: `
      ALTER TABLE print_jobs ADD COLUMN in_doubt INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE print_jobs ADD COLUMN possible_duplicate INTEGER NOT NULL DEFAULT 0;
      DROP INDEX print_jobs_due_idx;
      CREATE INDEX print_jobs_pending_idx ON print_jobs (next_attempt_at, created_at) WHERE state IN ('queued', 'printing');
      CREATE INDEX print_jobs_finished_idx ON print_jobs (updated_at) WHERE state IN ('printed', 'failed');
    `,
  },
  {
    version: 5,
    name: 'records_revision',
    // One counter, bumped by every import's write transaction. An import checks its
    // rows against the database outside the write lock (SQLite: so the server's writes
    // never wait for the checks), then re-reads the counter under the lock: unchanged
    // means no other import wrote in between, so the checks still hold.
    sql: `
      CREATE TABLE records_revision (
        id       INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
        revision BIGINT  NOT NULL
      );
      INSERT INTO records_revision (id, revision) VALUES (1, 0);
    `,
  },
  {
    version: 6,
    name: 'store_meta',
    // The store's own small facts; its 'write_probe' row is what health checks write
    // to learn whether the database takes writes, without touching real data.
    sql: `
      CREATE TABLE store_meta (
        key   TEXT NOT NULL PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 7,
    name: 'label_templates',
    // A saved label design: its JSON as the API shows it, its logo already turned into
    // 1-bit scanlines at the stock's dots (converted once, on save), and the ETag that
    // conditional writes compare against.
    sql: {
      sqlite: labelTemplatesDdl('BLOB'),
      postgres: labelTemplatesDdl('BYTEA'),
    },
  },
  {
    version: 8,
    name: 'print_batches',
    // A batch is many jobs accepted in one transaction under one idempotency key
    // (per token, like a single job's); request_hash tells a replay of the same
    // request from a reuse of its key for another. Jobs point at their batch.
    sql: `
      CREATE TABLE print_batches (
        id              TEXT    NOT NULL PRIMARY KEY,
        token_id        TEXT    NOT NULL,
        idempotency_key TEXT    NULL,
        request_hash    TEXT    NOT NULL,
        printer         TEXT    NOT NULL,
        template        TEXT    NOT NULL,
        job_count       INTEGER NOT NULL,
        created_at      TEXT    NOT NULL,
        UNIQUE (token_id, idempotency_key)
      );
      ALTER TABLE print_jobs ADD COLUMN batch_id TEXT NULL;
      CREATE INDEX print_jobs_batch_idx ON print_jobs (batch_id) WHERE batch_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'rate_limits',
    // Request budgets shared by every instance on the database (src/api/rate-limit.ts,
    // rate-limiter-flexible's PostgreSQL table layout; expire is epoch milliseconds).
    // SQLite serves one instance, which counts in memory: the table stays empty there.
    sql: `
      CREATE TABLE rate_limits (
        key    VARCHAR(255) NOT NULL PRIMARY KEY,
        points INTEGER      NOT NULL DEFAULT 0,
        expire BIGINT
      );
    `,
  },
  {
    version: 11,
    name: 'print_jobs_by_token',
    // listPrintJobs pages through one token's jobs newest first: the index holds that order
    // (read backwards), so a page costs its own rows whatever else the table holds.
    // retried_at: when a person put a failed job back in the queue (retryPrintJob), which
    // tells a repeated retry (answered with the job as it is) from a job never failed.
    sql: `
      ALTER TABLE print_jobs ADD COLUMN retried_at TEXT NULL;
      CREATE INDEX print_jobs_token_idx ON print_jobs (token_id, created_at, id);
    `,
  },
  {
    version: 12,
    name: 'print_jobs_cancelled',
    // cancelled_at: when the job's token cancelled it before it was sent (cancelPrintJob). A
    // cancelled job is a finished job, stored as 'failed' (the API's states are a closed list:
    // a new one would break clients) without its document, so it can never be claimed or retried.
    sql: `
      ALTER TABLE print_jobs ADD COLUMN cancelled_at TEXT NULL;
    `,
  },
  {
    version: 13,
    name: 'sheet_calibrations',
    // A printer's offset measured on a sheet product's calibration page, saved once and applied
    // to that product's sheets that ask for no offset of their own (createSheet). DOUBLE PRECISION
    // is PostgreSQL's 8-byte float and SQLite's REAL: the millimetres come back as they were saved.
    sql: `
      CREATE TABLE sheet_calibrations (
        sheet       TEXT             NOT NULL PRIMARY KEY,
        offset_x_mm DOUBLE PRECISION NOT NULL CHECK (offset_x_mm BETWEEN -5 AND 5),
        offset_y_mm DOUBLE PRECISION NOT NULL CHECK (offset_y_mm BETWEEN -5 AND 5),
        updated_at  TEXT             NOT NULL
      );
    `,
  },
  {
    version: 14,
    name: 'printers',
    // The printer fleet (issue 31): each printer's settings, from the configuration file or
    // the API (source), with the ETag conditional writes compare against. stocks is a JSON
    // array of stock names. The partial unique index holds "one default printer at most" in
    // the database itself; the stores keep "at least one" (sql/printers.ts). A printer's
    // last status reading has its own table: the poller writes it often, from any instance,
    // without touching (or locking) the settings row, and it goes with its printer.
    sql: `
      CREATE TABLE printers (
        name        TEXT    NOT NULL PRIMARY KEY,
        title       TEXT    NOT NULL,
        device_uri  TEXT    NOT NULL,
        model       TEXT    NULL,
        location_id TEXT    NULL,
        stocks      TEXT    NOT NULL DEFAULT '[]',
        red         INTEGER NOT NULL DEFAULT 0 CHECK (red IN (0, 1)),
        is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
        source      TEXT    NOT NULL CHECK (source IN ('config', 'api')),
        etag        TEXT    NOT NULL,
        created_at  TEXT    NOT NULL,
        updated_at  TEXT    NOT NULL
      );
      CREATE UNIQUE INDEX printers_one_default ON printers (is_default) WHERE is_default = 1;
      CREATE TABLE printer_status (
        name       TEXT NOT NULL PRIMARY KEY REFERENCES printers (name) ON DELETE CASCADE,
        status     TEXT NOT NULL,
        checked_at TEXT NOT NULL
      );
    `,
  },
  {
    version: 15,
    name: 'print_jobs_held',
    // held_reason: why no printer can print the job now (the wrong roll, offline, paused), in
    // plain words; a held job stays 'queued' (a new state would break clients) and is never
    // claimed until its printer's status or settings clear the reason (reevaluateHolds).
    // The claim names the printers idle on its instance: this index seeks each one's due
    // jobs directly, so 100 printers and 100k finished jobs cost a claim what one does.
    sql: `
      ALTER TABLE print_jobs ADD COLUMN held_reason TEXT NULL;
      CREATE INDEX print_jobs_printer_due_idx ON print_jobs (printer, next_attempt_at, created_at) WHERE state IN ('queued', 'printing');
    `,
  },
  {
    version: 16,
    name: 'printers_agent',
    // agent: the `labelmaker agent` that reaches the printer (behind a NAT, on USB), or NULL
    // when the service does. The service's dispatchers and status poller leave an agent's
    // printers to it; the agent claims their jobs and reports their status over the API.
    sql: `
      ALTER TABLE printers ADD COLUMN agent TEXT NULL;
    `,
  },
  {
    version: 17,
    name: 'printer_reach',
    // Which instance can reach which printer (issue 31): each instance probes every printer
    // (a TCP connect, a writable folder, a command present) and keeps one row per printer
    // here, so its dispatcher claims only jobs it can deliver and the hold rule knows a
    // printer no live instance reaches. Rows of an instance that stopped reporting age out
    // (deleted by the probes of the others); a printer's URI change drops its rows.
    sql: `
      CREATE TABLE printer_reach (
        name       TEXT    NOT NULL REFERENCES printers (name) ON DELETE CASCADE,
        instance   TEXT    NOT NULL,
        reachable  INTEGER NOT NULL CHECK (reachable IN (0, 1)),
        checked_at TEXT    NOT NULL,
        PRIMARY KEY (name, instance)
      );
    `,
  },
  {
    version: 18,
    name: 'events',
    // The transactional outbox (issue 32, sql/events.ts): every record write appends what it
    // did in its own transaction; webhooks and print rules read after a cursor. Ids only grow
    // (AUTOINCREMENT / IDENTITY never reuse one) and are drawn in commit order. record_syncs:
    // what a bulk records write under an Idempotency-Key answered, per token, so a replay of
    // the same request gets the same answer and a reuse of its key for another request a 422.
    sql: {
      sqlite: `
        CREATE TABLE events (
          id           INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
          type         TEXT    NOT NULL,
          subject_kind TEXT    NOT NULL,
          subject_id   TEXT    NOT NULL,
          occurred_at  TEXT    NOT NULL,
          data         TEXT    NOT NULL
        );
        ${RECORD_SYNCS_DDL}
      `,
      postgres: `
        CREATE TABLE events (
          id           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          type         TEXT    NOT NULL,
          subject_kind TEXT    NOT NULL,
          subject_id   TEXT    NOT NULL,
          occurred_at  TEXT    NOT NULL,
          data         TEXT    NOT NULL
        );
        ${RECORD_SYNCS_DDL}
      `,
    },
  },
  {
    version: 19,
    name: 'record_fields',
    // A record's custom field values (issue 32, src/records/fields.ts): JSON text of name ->
    // value, checked against the deployment's field catalogue when written; NULL for none.
    // JSON text rather than a table of values: a label reads its record in one row, and
    // both databases read a value out of it for the records search (SqlDialect.fieldText).
    sql: `
      ALTER TABLE records ADD COLUMN fields TEXT NULL;
    `,
  },
  {
    version: 20,
    name: 'printed_labels',
    // Which labels are out of date (issue 32). content_rev: the records revision of the last
    // write that changed what a record's label shows (name, description, parent, asset id;
    // import/checks.ts mergeStaged), never bumped by a write that changes nothing. A job
    // carries what its label showed (label_*: the record, a fingerprint of the rendered
    // content, the template's name and version, and the records revision read before the
    // record was), and printed_labels keeps the last printed one per record, written in the
    // same statement as the job's printed state. A label is stale when its record, or a
    // location above it (a rename moves every path below it: no row below is rewritten),
    // changed after its revision, or its template's version is no longer the printed one
    // (sql/label-state.ts). The partial index walks the location tree without its items.
    sql: `
      ALTER TABLE records ADD COLUMN content_rev BIGINT NOT NULL DEFAULT 0;
      CREATE INDEX records_location_parent_idx ON records (parent_id, id) WHERE kind = 'location';
      ALTER TABLE print_jobs ADD COLUMN label_kind TEXT NULL;
      ALTER TABLE print_jobs ADD COLUMN label_id TEXT NULL;
      ALTER TABLE print_jobs ADD COLUMN label_fingerprint TEXT NULL;
      ALTER TABLE print_jobs ADD COLUMN label_template TEXT NULL;
      ALTER TABLE print_jobs ADD COLUMN label_template_version TEXT NULL;
      ALTER TABLE print_jobs ADD COLUMN label_revision BIGINT NULL;
      CREATE TABLE printed_labels (
        kind             TEXT   NOT NULL CHECK (kind IN ('location', 'item')),
        record_id        TEXT   NOT NULL,
        job_id           TEXT   NOT NULL,
        fingerprint      TEXT   NOT NULL,
        template         TEXT   NOT NULL,
        template_version TEXT   NOT NULL,
        stock            TEXT   NOT NULL,
        printer          TEXT   NOT NULL,
        revision         BIGINT NOT NULL,
        printed_at       TEXT   NOT NULL,
        PRIMARY KEY (kind, record_id)
      );
    `,
  },
  {
    version: 21,
    name: 'event_consumers_webhooks',
    // Readers of the outbox (issue 32). event_consumers: one row per named consumer
    // (src/events/consumer.ts): its cursor (the last event id it acted on) and the lease
    // of the one instance that reads for it; the cursor moves in the same transaction as
    // the consumer's own writes (sql/consumers.ts). webhooks: endpoints registered through
    // the API, with the secret that signs their deliveries (kept to sign, never shown
    // again); since_event_id: the newest event when it was registered (it gets what comes
    // after). webhook_deliveries: one row per (webhook, event) to send, claimed under a
    // lease as print jobs are; a redelivery is a new row for the same event.
    sql: {
      sqlite: `
        CREATE TABLE event_consumers (
          name             TEXT    NOT NULL PRIMARY KEY,
          cursor           INTEGER NOT NULL DEFAULT 0,
          lease_owner      TEXT,
          lease_expires_at TEXT,
          updated_at       TEXT    NOT NULL
        );
        CREATE TABLE webhooks (
          id             TEXT    NOT NULL PRIMARY KEY,
          url            TEXT    NOT NULL,
          description    TEXT    NOT NULL DEFAULT '',
          event_types    TEXT    NOT NULL,
          secret         TEXT    NOT NULL,
          enabled        INTEGER NOT NULL DEFAULT 1,
          since_event_id INTEGER NOT NULL DEFAULT 0,
          etag           TEXT    NOT NULL,
          created_at     TEXT    NOT NULL,
          updated_at     TEXT    NOT NULL
        );
        CREATE TABLE webhook_deliveries (
          id               INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
          webhook_id       TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
          event_id         INTEGER NOT NULL,
          state            TEXT    NOT NULL,
          attempts         INTEGER NOT NULL DEFAULT 0,
          next_attempt_at  TEXT    NOT NULL,
          lease_owner      TEXT,
          lease_expires_at TEXT,
          last_status      INTEGER,
          last_error       TEXT,
          created_at       TEXT    NOT NULL,
          updated_at       TEXT    NOT NULL,
          delivered_at     TEXT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
        CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
      `,
      postgres: `
        CREATE TABLE event_consumers (
          name             TEXT    NOT NULL PRIMARY KEY,
          cursor           BIGINT  NOT NULL DEFAULT 0,
          lease_owner      TEXT,
          lease_expires_at TEXT,
          updated_at       TEXT    NOT NULL
        );
        CREATE TABLE webhooks (
          id             TEXT    NOT NULL PRIMARY KEY,
          url            TEXT    NOT NULL,
          description    TEXT    NOT NULL DEFAULT '',
          event_types    TEXT    NOT NULL,
          secret         TEXT    NOT NULL,
          enabled        INTEGER NOT NULL DEFAULT 1,
          since_event_id BIGINT  NOT NULL DEFAULT 0,
          etag           TEXT    NOT NULL,
          created_at     TEXT    NOT NULL,
          updated_at     TEXT    NOT NULL
        );
        CREATE TABLE webhook_deliveries (
          id               BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          webhook_id       TEXT    NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
          event_id         BIGINT  NOT NULL,
          state            TEXT    NOT NULL,
          attempts         INTEGER NOT NULL DEFAULT 0,
          next_attempt_at  TEXT    NOT NULL,
          lease_owner      TEXT,
          lease_expires_at TEXT,
          last_status      INTEGER,
          last_error       TEXT,
          created_at       TEXT    NOT NULL,
          updated_at       TEXT    NOT NULL,
          delivered_at     TEXT
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
        CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, id);
      `,
    },
  },
  {
    version: 22,
    name: 'print_rules',
    // Print rules (issue 32, sql/print-rules.ts): "when an item is created under (or moved
    // under) this location, print it with this template (on this printer)". The rule's jobs
    // are stored under its creator's token id with the idempotency key
    // print-rule:<rule id>:<event id>, in the same transaction as the print-rules consumer's
    // cursor move (event_consumers), so each (rule, event) prints once.
    sql: {
      sqlite: PRINT_RULES_DDL,
      postgres: PRINT_RULES_DDL,
    },
  },
  {
    version: 23,
    name: 'label_stale_announced',
    // label.stale events (issue 32, sql/label-stale.ts): the job id of the printed label whose
    // going stale was announced. A reprint writes a new job_id, so the new label is announced
    // again when it goes stale; NULL (or another job's id): not announced.
    sql: `
      ALTER TABLE printed_labels ADD COLUMN stale_job_id TEXT NULL;
    `,
  },
  {
    version: 24,
    name: 'webhook_deliveries_event_records_name',
    // Events retention (sql/events.ts pruneEvents): an event is deleted only when no delivery
    // names it; webhook_deliveries_event answers that per event instead of scanning every
    // delivery. SQLite only: records_name_idx, the records search's order (sql/search.ts:
    // name, kind, id; SQLite compares them bytewise already), so a page is read in order and
    // stops at its limit instead of sorting every record; what made labels=neverPrinted slow,
    // a probe of printed_labels for every record before the sort, then stops after about a
    // page too (bench:stale, docs/performance.md). PostgreSQL sorts with a hash anti-join
    // and is left as it was.
    sql: {
      sqlite: `
        CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
        CREATE INDEX records_name_idx ON records (name, kind, id);
      `,
      postgres: `
        CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
      `,
    },
  },
  {
    version: 25,
    name: 'records_name_idx_postgres',
    // The records search's order on PostgreSQL (sql/search.ts: name, kind, id, each COLLATE "C"
    // so both stores sort bytewise): without an index in that order and collation, the first
    // page sorted every record (1.3 s at 1,000,000 records, bench:stale). SQLite has had
    // records_name_idx since 24; nothing changes there (and no copy is taken before it).
    // Building it holds record writes for its duration (seconds per million records).
    sql: {
      sqlite: '',
      postgres: `
        CREATE INDEX records_name_idx ON records (name COLLATE "C", kind COLLATE "C", id COLLATE "C");
      `,
    },
  },
];

function labelTemplatesDdl(blob: string): string {
  return `
      CREATE TABLE label_templates (
        name        TEXT    NOT NULL PRIMARY KEY,
        design      TEXT    NOT NULL,
        logo_width  INTEGER NULL,
        logo_height INTEGER NULL,
        logo_rows   ${blob} NULL,
        etag        TEXT    NOT NULL,
        created_at  TEXT    NOT NULL,
        updated_at  TEXT    NOT NULL
      );
    `;
}

function printJobsDdl(blob: string): string {
  return `
      CREATE TABLE print_jobs (
        id               TEXT    NOT NULL PRIMARY KEY,
        state            TEXT    NOT NULL CHECK (state IN ('queued', 'printing', 'printed', 'failed')),
        printer          TEXT    NOT NULL,
        template         TEXT    NOT NULL,
        title            TEXT    NOT NULL,
        fields           TEXT    NOT NULL,
        png              ${blob} NOT NULL,
        token_id         TEXT    NOT NULL,
        idempotency_key  TEXT    NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        max_attempts     INTEGER NOT NULL,
        last_error       TEXT    NULL,
        created_at       TEXT    NOT NULL,
        updated_at       TEXT    NOT NULL,
        next_attempt_at  TEXT    NOT NULL,
        printed_at       TEXT    NULL,
        lease_owner      TEXT    NULL,
        lease_expires_at TEXT    NULL,
        UNIQUE (token_id, idempotency_key)
      );
      CREATE INDEX print_jobs_due_idx ON print_jobs (state, next_attempt_at);
    `;
}

/** Created outside the migration list: it is where the list's progress is kept. */
export const SCHEMA_MIGRATIONS_DDL = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at TEXT    NOT NULL
  )`;

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

export function migrationSql(m: Migration, dialect: DialectName): string {
  return typeof m.sql === 'string' ? m.sql : m.sql[dialect];
}

/**
 * Migrations still to apply on a database at `currentVersion` (0 = empty).
 * A database newer than this code is refused: running old code against a newer
 * schema risks silently writing data the newer code no longer expects.
 */
export function pendingMigrations(currentVersion: number, migrations: readonly Migration[] = MIGRATIONS): Migration[] {
  const latest = Math.max(0, ...migrations.map((m) => m.version));
  if (currentVersion > latest) {
    throw new Error(
      `database schema is at version ${currentVersion}, but this Labelmaker build only knows migrations up to ` +
        `version ${latest}: the database was migrated by a newer release. Upgrade Labelmaker or point it at another database.`,
    );
  }
  return [...migrations].sort((a, b) => a.version - b.version).filter((m) => m.version > currentVersion);
}
