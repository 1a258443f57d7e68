/**
 * The transactional outbox (migration 18, table `events`): what happened to the data,
 * appended in the same transaction as the write it describes, read in order by whoever
 * acts on it (webhooks, print rules). The whole API:
 *
 *   appendEvents(tx, events, occurredAt?)  inside a write transaction (a Runner over that
 *                                          transaction's connection): the events commit or
 *                                          roll back with the write.
 *   store.events.after(cursor, limit)      events with id > cursor, oldest first, at most
 *                                          `limit` (1..1000). Start at cursor 0; keep the
 *                                          last id read as the next cursor.
 *   store.events.append(events)            appends in a transaction of its own (an event
 *                                          that is not part of another write).
 *   store.events.latest()                  the newest id (0 when none): where a new reader
 *                                          that wants no history starts.
 *
 * Ids increase in commit order, so a reader that saw id N never later finds a new event
 * with a smaller id: SQLite has one writer at a time; on PostgreSQL every append first
 * takes a transaction-scoped advisory lock (EVENTS_LOCK) and holds it to commit, so a
 * sequence value is drawn only by the one transaction that will commit next.
 *   store.events.prune(before, limit)      retention (src/events/retention.ts): one bounded batch
                                          of finished webhook deliveries and of events, see
                                          pruneEvents below.
 *
 * Record events (record.created, record.changed, record.deleted) carry
 * `{ record: <the record as the API shows it>, previous?: <before a change> }`; a
 * record.deleted's `record` is the record as it was. record.changed is appended only
 * when a field actually changed.
 */
import type { Runner } from './printers.js';
import type { SqlDialect } from './dialect.js';
import type { EventSubject, NewEvent, OutboxEvent, PruneCounts } from '../types.js';

export const MAX_EVENTS_READ = 1000;

/** PostgreSQL: held from an append to its commit, so ids are drawn in commit order (per schema). */
export const EVENTS_LOCK = `SELECT pg_advisory_xact_lock(hashtext('labelmaker:events:' || COALESCE(current_schema(), '')))`;

const COLUMNS = 'id, type, subject_kind, subject_id, occurred_at, data';

interface EventRow {
  id: number | string;
  type: string;
  subject_kind: string;
  subject_id: string;
  occurred_at: string;
  data: string;
}

export function toEvent(row: EventRow): OutboxEvent {
  return {
    id: Number(row.id),
    type: row.type,
    subject: { kind: row.subject_kind, id: row.subject_id } as EventSubject,
    occurredAt: row.occurred_at,
    data: JSON.parse(row.data) as unknown,
  };
}

/** One event's INSERT with `?` placeholders, and its values: for a writer that inserts synchronously (SQLite's, in its transaction). */
export const EVENT_INSERT_SQL = 'INSERT INTO events (type, subject_kind, subject_id, occurred_at, data) VALUES (?, ?, ?, ?, ?)';
export function eventValues(e: NewEvent, occurredAt: string): unknown[] {
  return [e.type, e.subject.kind, e.subject.id, occurredAt, JSON.stringify(e.data ?? null)];
}

/** Takes the ordering lock where the dialect needs it; call before inserting events in a transaction. */
export async function lockEvents(q: Pick<Runner, 'run'> & { dialect: Pick<SqlDialect, 'name'> }): Promise<void> {
  if (q.dialect.name === 'postgres') await q.run(EVENTS_LOCK);
}

/** Appends events inside the caller's transaction; they commit with it. */
export async function appendEvents(q: Runner, events: readonly NewEvent[], occurredAt = new Date().toISOString()): Promise<void> {
  if (events.length === 0) return;
  await lockEvents(q);
  for (const e of events) {
    await q.run(
      q.dialect.placeholders(EVENT_INSERT_SQL),
      eventValues(e, occurredAt),
    );
  }
}

export async function eventsAfter(q: Pick<Runner, 'all' | 'dialect'>, cursor: number, limit: number): Promise<OutboxEvent[]> {
  if (!Number.isSafeInteger(cursor) || cursor < 0) throw new RangeError('cursor must be a non-negative integer');
  const n = Math.max(1, Math.min(MAX_EVENTS_READ, Math.trunc(limit)));
  const rows = await q.all<EventRow>(q.dialect.placeholders(`SELECT ${COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?`), [cursor, n]);
  return rows.map(toEvent);
}

export async function latestEventId(q: Pick<Runner, 'all' | 'dialect'>): Promise<number> {
  const [row] = await q.all<{ n: number | string | null }>('SELECT MAX(id) AS n FROM events');
  return Number(row?.n ?? 0);
}

/** A record as events carry it (the API's field names), from columns of `alias`; `updatedAt` may override updated_at. */
export function recordJson(d: SqlDialect, alias: string, updatedAt = `${alias}.updated_at`): string {
  return `${d.jsonObject(`'kind', ${alias}.kind, 'id', ${alias}.id, 'name', ${alias}.name, 'description', ${alias}.description, 'parentId', ${alias}.parent_id, 'assetId', ${alias}.asset_id, 'updatedAt', ${updatedAt}`)}`;
}

export const MAX_PRUNE_BATCH = 5000;

/**
 * Retention (EVENTS_RETENTION_DAYS, src/events/retention.ts): deletes at most `limit`
 * finished webhook deliveries (delivered, or failed for good) last updated before `before`
 * (ISO), then at most `limit` events that occurred before `before` AND that every consumer
 * has passed (id at or below the smallest cursor in event_consumers: the webhook fan-out,
 * print rules, label-staleness; none is passed while no consumer exists) AND that no
 * remaining delivery names (pending, being sent, or kept). So an event a consumer or a
 * delivery still needs is never deleted. Then at most `limit` bulk-write Idempotency-Keys
 * (record_syncs) taken before `before`: expired after 24 hours (IDEMPOTENCY_WINDOW_MS) and
 * retention is at least a day, so no live key goes; without this they were only released
 * when the same key came again, and the table grew with every sync. Each DELETE is one
 * statement: atomic on its own, and short (bounded) so it holds the write lock briefly.
 * Answers how many of each went; call again while any equals `limit`.
 */
export async function pruneEvents(q: Runner, before: string, limit: number): Promise<PruneCounts> {
  const n = Math.max(1, Math.min(MAX_PRUNE_BATCH, Math.trunc(limit)));
  const d = q.dialect;
  const deliveries = await q.run(
    d.placeholders(`DELETE FROM webhook_deliveries WHERE id IN (
        SELECT id FROM webhook_deliveries WHERE state IN ('delivered', 'failed') AND updated_at < ? ORDER BY id LIMIT ${n})`),
    [before],
  );
  const events = await q.run(
    d.placeholders(`DELETE FROM events WHERE id IN (
        SELECT e.id FROM events e
         WHERE e.id <= (SELECT COALESCE(MIN(c.cursor), 0) FROM event_consumers c)
           AND e.occurred_at < ?
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries w WHERE w.event_id = e.id)
         ORDER BY e.id LIMIT ${n})`),
    [before],
  );
  const syncs = await q.run(
    d.placeholders(`DELETE FROM record_syncs WHERE (token_id, idempotency_key) IN (
        SELECT token_id, idempotency_key FROM record_syncs WHERE created_at < ? ORDER BY created_at LIMIT ${n})`),
    [before],
  );
  return { events, deliveries, syncs };
}
