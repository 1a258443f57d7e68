/**
 * Outgoing webhooks (issue 32; docs/webhooks.md): at least once, from the outbox.
 *
 * Two loops per instance, both safe with several instances over PostgreSQL:
 *   - fan-out: the outbox consumer named 'webhooks' (consumer.ts; one instance at a time
 *     holds it) turns each batch of events into one delivery per (webhook, event it
 *     wants), in the transaction that moves its cursor (sql/webhooks.ts fanOut);
 *   - delivery: every instance claims due deliveries under a lease (as the print queue
 *     claims jobs) and POSTs them, at most `concurrency` at a time, each bounded by a
 *     connect and a total time-out. 2xx: delivered. Anything else (a status, a refused
 *     connection, a time-out): tried again after an exponential back-off with jitter,
 *     until maxAttempts, then failed (a person may redeliver it). An instance that dies
 *     mid-send leaves a lease that lapses: another sends it again (at least once; the
 *     receiver drops repeats by the event id).
 *
 * Each POST is signed: Labelmaker-Signature: v1=<hex HMAC-SHA256(secret, `${timestamp}.${body}`)>,
 * with the Unix time in Labelmaker-Timestamp (receivers refuse old ones against replays).
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { ClaimedDelivery, OutboxEvent, Store } from '../records/types.js';
import { EventConsumer, type ConsumerLog } from './consumer.js';

export const WEBHOOK_CONSUMER_NAME = 'webhooks';

/** Every event type a webhook may ask for (the outbox's; EventType in records/types.ts). */
export const WEBHOOK_EVENT_TYPES = ['record.created', 'record.changed', 'record.deleted', 'print_job.printed', 'print_job.failed', 'print_job.held', 'label.stale'] as const;

export interface WebhookOptions {
  /** Deliveries in flight per instance (default 8). */
  concurrency?: number;
  /** Time to connect (default 5 s) and for the whole request and answer (default 10 s). */
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** Back-off: the first retry after about baseMs (default 5 s), doubling to maxBackoffMs (default 1 h), with jitter. */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Attempts before a delivery fails for good (default 12: about a day with the defaults). */
  maxAttempts?: number;
  /** How often an idle instance looks for due deliveries and new events (default 500 ms). */
  pollMs?: number;
  owner?: string;
}

export interface WebhookLog extends ConsumerLog {
  info(fields: Record<string, unknown>, msg: string): void;
}

/** The signature header's value for a body sent at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The JSON body of an event's delivery. */
export function webhookBody(event: OutboxEvent): string {
  return JSON.stringify({ id: event.id, type: event.type, occurredAt: event.occurredAt, subject: event.subject, data: event.data });
}

/** The wait before attempt `attempts + 1`: baseMs · 2^(attempts−1), at most maxMs, a random half of it off (jitter). */
export function backoffMs(attempts: number, baseMs: number, maxMs: number, random = Math.random): number {
  const full = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, attempts - 1)));
  return Math.round(full / 2 + (random() * full) / 2);
}

interface Sent {
  status: number | null;
  error: string | null;
}

/** Answers read at most this much (then the connection is dropped): a receiver's body is not ours to keep. */
const MAX_ANSWER_BYTES = 64 * 1024;

function post(url: URL, headers: Record<string, string>, body: string, connectMs: number, totalMs: number, agents: { http: http.Agent; https: https.Agent }): Promise<Sent> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (sent: Sent) => {
      if (done) return;
      done = true;
      clearTimeout(total);
      clearTimeout(connect);
      resolve(sent);
    };
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, agent: url.protocol === 'https:' ? agents.https : agents.http });
    let connect: NodeJS.Timeout | undefined;
    const total = setTimeout(() => {
      req.destroy();
      finish({ status: null, error: `no answer within ${totalMs} ms` });
    }, totalMs);
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      connect = setTimeout(() => {
        req.destroy();
        finish({ status: null, error: `could not connect within ${connectMs} ms` });
      }, connectMs);
      socket.once('connect', () => clearTimeout(connect));
    });
    req.on('response', (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      res.on('end', () => finish({ status, error: ok ? null : `answered ${status}` }));
      res.on('close', () => finish({ status, error: ok ? null : `answered ${status}` }));
      res.on('error', () => finish({ status, error: ok ? null : `answered ${status}` }));
    });
    req.on('error', (err) => finish({ status: null, error: err.message }));
    req.end(body);
  });
}

export interface Webhooks {
  /** Looks for new events and due deliveries now. */
  wake(): void;
  stop(): Promise<void>;
}

export function startWebhooks(store: Pick<Store, 'events' | 'consumers' | 'webhooks'>, log: WebhookLog | undefined, options: WebhookOptions = {}): Webhooks {
  const concurrency = Math.max(1, Math.min(64, options.concurrency ?? 8));
  const connectMs = options.connectTimeoutMs ?? 5_000;
  const totalMs = options.totalTimeoutMs ?? 10_000;
  const baseMs = options.baseBackoffMs ?? 5_000;
  const maxBackoff = options.maxBackoffMs ?? 3_600_000;
  const maxAttempts = options.maxAttempts ?? 12;
  const pollMs = options.pollMs ?? 500;
  const owner = options.owner ?? `webhooks:${randomUUID()}`;
  // The lease outlasts the longest attempt, so a slow receiver's delivery is not claimed twice.
  const leaseMs = totalMs + connectMs + 10_000;
  const agents = { http: new http.Agent({ keepAlive: true, maxSockets: concurrency }), https: new https.Agent({ keepAlive: true, maxSockets: concurrency }) };

  let running = true;
  let wakeUp: (() => void) | undefined;
  const inFlight = new Set<Promise<void>>();

  const fanOut = new EventConsumer({
    store,
    name: WEBHOOK_CONSUMER_NAME,
    owner,
    pollMs,
    batchSize: 200,
    log,
    handle: async (events, lease, ms) => {
      const moved = await store.webhooks.fanOut(lease, ms, events.map((e) => ({ id: e.id, type: e.type })));
      if (moved) wakeUp?.();
      return moved;
    },
  });

  const deliver = async (d: ClaimedDelivery) => {
    const body = webhookBody(d.event);
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'Labelmaker-Webhooks/1',
      'Labelmaker-Event-Id': String(d.event.id),
      'Labelmaker-Event-Type': d.event.type,
      'Labelmaker-Delivery-Id': String(d.id),
      'Labelmaker-Timestamp': String(timestamp),
      'Labelmaker-Signature': signWebhook(d.secret, timestamp, body),
    };
    const sent = await post(new URL(d.url), headers, body, connectMs, totalMs, agents);
    const delivered = sent.error === null;
    const outcome = delivered
      ? { state: 'delivered' as const, status: sent.status, error: null }
      : d.attempts >= maxAttempts
        ? { state: 'failed' as const, status: sent.status, error: sent.error }
        : { state: 'pending' as const, status: sent.status, error: sent.error, nextAttemptAt: new Date(Date.now() + backoffMs(d.attempts, baseMs, maxBackoff)).toISOString() };
    // The URL is not logged (it may carry a token in its query); the webhook's id is.
    if (!delivered) log?.info({ webhook: d.webhookId, event: d.eventId, attempts: d.attempts, status: sent.status, error: sent.error }, `webhook delivery ${outcome.state === 'failed' ? 'failed for good' : 'will be retried'}`);
    await store.webhooks.record(d.id, owner, outcome);
  };

  const loop = (async () => {
    let failures = 0;
    while (running) {
      let wait = pollMs;
      try {
        const free = concurrency - inFlight.size;
        if (free > 0) {
          const due = await store.webhooks.nextDueAt();
          if (due !== undefined && Date.parse(due) <= Date.now() + 20) {
            const claimed = await store.webhooks.claim(owner, leaseMs, free);
            for (const d of claimed) {
              const p: Promise<void> = deliver(d)
                .catch((err: unknown) => log?.warn({ err, webhook: d.webhookId }, 'webhook delivery: its outcome could not be stored (its lease will lapse and it is sent again)'))
                .finally(() => {
                  inFlight.delete(p);
                  wakeUp?.();
                });
              inFlight.add(p);
            }
            if (claimed.length === free) wait = 0;
          } else if (due !== undefined) {
            wait = Math.max(0, Math.min(pollMs, Date.parse(due) - Date.now()));
          }
        }
        failures = 0;
      } catch (err) {
        failures++;
        wait = Math.min(30_000, pollMs * 2 ** Math.min(failures, 6));
        log?.warn({ err }, 'webhooks: could not claim deliveries; retrying');
      }
      if (!running) break;
      if (wait > 0 || inFlight.size >= concurrency) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            wakeUp = undefined;
            resolve();
          }, wait > 0 ? wait : pollMs);
          wakeUp = () => {
            clearTimeout(timer);
            wakeUp = undefined;
            resolve();
          };
        });
      }
    }
  })();

  fanOut.start();
  return {
    wake: () => {
      fanOut.wake();
      wakeUp?.();
    },
    stop: async () => {
      running = false;
      wakeUp?.();
      await fanOut.stop();
      await loop;
      await Promise.allSettled([...inFlight]);
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
