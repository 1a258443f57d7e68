/**
 * Webhooks and their deliveries (migration 21) for both dialects, over a Runner (SQLite:
 * the writer's connection in its transaction; PostgreSQL: one transaction).
 *
 * fanOut is the webhook consumer's batch (src/events/consumer.ts): it first moves the
 * consumer's cursor (advanceConsumer, compare and set under the lease) and only then
 * inserts one delivery per (enabled webhook, event of a type it wants, newer than the
 * webhook), in that one transaction: every event is fanned out once.
 *
 * Deliveries are claimed as print jobs are: 'pending' and due, or 'delivering' with a
 * lapsed lease (an instance died mid-send: sent again, at least once), of an enabled webhook
 * (a disabled one is sent nothing: its deliveries wait until it is enabled), under a lease on
 * the database's clock; PostgreSQL skips rows another instance is claiming. Only the
 * lease's owner records the outcome.
 */
import type { ClaimedDelivery, NewWebhook, Webhook, WebhookChange, WebhookDelivery, WebhookDeliveryState, ConsumerLease } from '../types.js';
import { advanceConsumer, dbNow } from './consumers.js';
import { toEvent } from './events.js';
import type { Runner } from './printers.js';
import { randomBytes } from 'node:crypto';

export const WEBHOOK_CONSUMER = 'webhooks';
/** Errors are stored for people to read; keep them bounded. */
const MAX_ERROR = 500;

interface WebhookRow {
  id: string;
  url: string;
  description: string;
  event_types: string;
  enabled: number | string;
  since_event_id: number | string;
  etag: string;
  created_at: string;
  updated_at: string;
  secret?: string;
}

const WEBHOOK_COLUMNS = 'id, url, description, event_types, enabled, since_event_id, etag, created_at, updated_at';

export function toWebhook(r: WebhookRow): Webhook {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    eventTypes: JSON.parse(r.event_types) as Webhook['eventTypes'], // written only from checked input (createWebhook, updateWebhook)
    enabled: Number(r.enabled) === 1,
    etag: r.etag,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface DeliveryRow {
  id: number | string;
  webhook_id: string;
  event_id: number | string;
  state: string;
  attempts: number | string;
  next_attempt_at: string;
  last_status: number | string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

const DELIVERY_COLUMNS = 'id, webhook_id, event_id, state, attempts, next_attempt_at, last_status, last_error, created_at, updated_at, delivered_at';

function toDelivery(r: DeliveryRow): WebhookDelivery {
  return {
    id: Number(r.id),
    webhookId: r.webhook_id,
    eventId: Number(r.event_id),
    state: r.state as WebhookDeliveryState,
    attempts: Number(r.attempts),
    nextAttemptAt: r.state === 'pending' || r.state === 'delivering' ? r.next_attempt_at : null,
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deliveredAt: r.delivered_at,
  };
}

const newEtag = () => `"${randomBytes(9).toString('base64url')}"`;

export async function createWebhook(q: Runner, w: NewWebhook): Promise<Webhook> {
  const d = q.dialect;
  const [row] = await q.all<WebhookRow>(
    d.placeholders(`INSERT INTO webhooks (id, url, description, event_types, secret, enabled, since_event_id, etag, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM events), ?, ${dbNow(d)}, ${dbNow(d)})
      RETURNING ${WEBHOOK_COLUMNS}`),
    [w.id, w.url, w.description, JSON.stringify(w.eventTypes), w.secret, w.enabled ? 1 : 0, newEtag()],
  );
  return toWebhook(row!);
}

export async function listWebhooks(q: Pick<Runner, 'all' | 'dialect'>): Promise<Webhook[]> {
  return (await q.all<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id`)).map(toWebhook);
}

export async function getWebhook(q: Pick<Runner, 'all' | 'dialect'>, id: string): Promise<Webhook | undefined> {
  const [row] = await q.all<WebhookRow>(q.dialect.placeholders(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`), [id]);
  return row && toWebhook(row);
}

/** Changes what is given, at `ifEtag` when given: the webhook, or why not. */
export async function updateWebhook(q: Runner, id: string, change: WebhookChange, ifEtag: string | null): Promise<Webhook | 'missing' | 'changed'> {
  const d = q.dialect;
  const [current] = await q.all<WebhookRow>(d.placeholders(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`), [id]);
  if (!current) return 'missing';
  if (ifEtag !== null && ifEtag !== current.etag) return 'changed';
  const [row] = await q.all<WebhookRow>(
    d.placeholders(`UPDATE webhooks SET url = ?, description = ?, event_types = ?, enabled = ?, etag = ?, updated_at = ${dbNow(d)}
      WHERE id = ? AND etag = ? RETURNING ${WEBHOOK_COLUMNS}`),
    [
      change.url ?? current.url,
      change.description ?? current.description,
      change.eventTypes ? JSON.stringify(change.eventTypes) : current.event_types,
      change.enabled === undefined ? Number(current.enabled) : change.enabled ? 1 : 0,
      newEtag(),
      id,
      current.etag,
    ],
  );
  return row ? toWebhook(row) : 'changed';
}

/** Deletes the webhook and its deliveries (ON DELETE CASCADE); whether it existed. */
export async function deleteWebhook(q: Runner, id: string): Promise<boolean> {
  await q.run(q.dialect.placeholders('DELETE FROM webhook_deliveries WHERE webhook_id = ?'), [id]);
  return (await q.run(q.dialect.placeholders('DELETE FROM webhooks WHERE id = ?'), [id])) === 1;
}

/** The webhook consumer's batch: cursor first (false: lease lost, nothing written), then the deliveries. */
export async function fanOut(q: Runner, lease: ConsumerLease, leaseMs: number, events: readonly { id: number; type: string }[]): Promise<boolean> {
  if (!(await advanceConsumer(q, lease, leaseMs))) return false;
  const hooks = (await q.all<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE enabled = 1`)).map((r) => ({ ...toWebhook(r), since: Number(r.since_event_id) }));
  if (hooks.length === 0) return true;
  const d = q.dialect;
  const insert = d.placeholders(`INSERT INTO webhook_deliveries (webhook_id, event_id, state, attempts, next_attempt_at, created_at, updated_at)
    VALUES (?, ?, 'pending', 0, ${dbNow(d)}, ${dbNow(d)}, ${dbNow(d)})`);
  for (const e of events) {
    for (const h of hooks) {
      if (e.id > h.since && (h.eventTypes as readonly string[]).includes(e.type)) await q.run(insert, [h.id, e.id]);
    }
  }
  return true;
}

/** Claims up to `limit` due deliveries for `owner`, with what sending them needs. */
export async function claimDeliveries(q: Runner, owner: string, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const d = q.dialect;
  const n = Math.max(1, Math.min(100, Math.trunc(limit)));
  const skip = d.name === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
  const claimed = await q.all<DeliveryRow>(
    d.placeholders(`UPDATE webhook_deliveries
        SET state = 'delivering', lease_owner = ?, lease_expires_at = ${dbNow(d, '?')}, attempts = attempts + 1, updated_at = ${dbNow(d)}
      WHERE id IN (SELECT id FROM webhook_deliveries
                    WHERE ((state = 'pending' AND next_attempt_at <= ${dbNow(d)}) OR (state = 'delivering' AND lease_expires_at <= ${dbNow(d)}))
                      AND webhook_id IN (SELECT id FROM webhooks WHERE enabled = 1)
                    ORDER BY next_attempt_at, id LIMIT ${n} ${skip})
      RETURNING ${DELIVERY_COLUMNS}`),
    [owner, Math.round(leaseMs)],
  );
  if (claimed.length === 0) return [];
  const out: ClaimedDelivery[] = [];
  for (const row of claimed) {
    const [hook] = await q.all<WebhookRow>(d.placeholders(`SELECT ${WEBHOOK_COLUMNS}, secret FROM webhooks WHERE id = ?`), [row.webhook_id]);
    const [event] = await q.all<Parameters<typeof toEvent>[0]>(d.placeholders('SELECT id, type, subject_kind, subject_id, occurred_at, data FROM events WHERE id = ?'), [row.event_id]);
    if (!hook || !event) continue;
    out.push({ ...toDelivery(row), url: hook.url, secret: hook.secret!, event: toEvent(event) });
  }
  return out.sort((a, b) => a.eventId - b.eventId || a.id - b.id);
}

/** Records an attempt's outcome, only under the claimer's lease: delivered, retried at nextAttemptAt, or failed for good. */
export async function recordAttempt(
  q: Runner,
  id: number,
  owner: string,
  outcome: { state: 'delivered' | 'pending' | 'failed'; status: number | null; error: string | null; nextAttemptAt?: string },
): Promise<boolean> {
  const d = q.dialect;
  const error = outcome.error === null ? null : outcome.error.length > MAX_ERROR ? `${outcome.error.slice(0, MAX_ERROR - 3)}...` : outcome.error;
  const n = await q.run(
    d.placeholders(`UPDATE webhook_deliveries
        SET state = ?, last_status = ?, last_error = ?, next_attempt_at = COALESCE(?, next_attempt_at), lease_owner = NULL, lease_expires_at = NULL,
            updated_at = ${dbNow(d)}, delivered_at = CASE WHEN ? = 'delivered' THEN ${dbNow(d)} ELSE delivered_at END
      WHERE id = ? AND lease_owner = ? AND state = 'delivering'`),
    [outcome.state, outcome.status, error, outcome.nextAttemptAt ?? null, outcome.state, id, owner],
  );
  return n === 1;
}

/** A webhook's deliveries, newest first. */
export async function listDeliveries(q: Pick<Runner, 'all' | 'dialect'>, webhookId: string, limit: number): Promise<WebhookDelivery[]> {
  const n = Math.max(1, Math.min(100, Math.trunc(limit)));
  return (await q.all<DeliveryRow>(q.dialect.placeholders(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ${n}`), [webhookId])).map(toDelivery);
}

/** A new delivery of an event to a webhook, due now (manual redelivery); undefined when either does not exist. */
export async function redeliver(q: Runner, webhookId: string, eventId: number): Promise<WebhookDelivery | undefined> {
  const d = q.dialect;
  const rows = await q.all<DeliveryRow>(
    d.placeholders(`INSERT INTO webhook_deliveries (webhook_id, event_id, state, attempts, next_attempt_at, created_at, updated_at)
      SELECT w.id, e.id, 'pending', 0, ${dbNow(d)}, ${dbNow(d)}, ${dbNow(d)} FROM webhooks w, events e WHERE w.id = ? AND e.id = ?
      RETURNING ${DELIVERY_COLUMNS}`),
    [webhookId, eventId],
  );
  return rows[0] && toDelivery(rows[0]);
}

/** When the next delivery is due (pending) or its lease lapses (delivering); undefined when none waits (a disabled webhook's do not count). */
export async function nextDeliveryAt(q: Pick<Runner, 'all' | 'dialect'>): Promise<string | undefined> {
  const [row] = await q.all<{ at: string | null }>(
    `SELECT MIN(CASE WHEN state = 'pending' THEN next_attempt_at ELSE lease_expires_at END) AS at FROM webhook_deliveries
      WHERE state IN ('pending', 'delivering') AND webhook_id IN (SELECT id FROM webhooks WHERE enabled = 1)`,
  );
  return row?.at ?? undefined;
}
