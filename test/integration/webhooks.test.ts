/**
 * Webhooks end to end with a real receiver in its own process (test/helpers/webhook-receiver.ts)
 * over loopback, which fails (500), hangs (no answer: the sender's time-out) and comes back:
 * every event is delivered, every signature verifies, the event id is the same in the header and
 * the body and tells repeats apart. On SQLite (one server) and on PostgreSQL with two server
 * processes sharing the deliveries, one of them killed with SIGKILL on the way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openPostgresStore } from '../../src/records/postgres/store.js';
import type { Store } from '../../src/records/types.js';
import { createTestSchema } from '../records/pg-test-db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { killHard, startService, type Service } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Short back-off and time-outs, so failing, hanging and coming back take seconds. */
const FAST = { WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '400', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CONNECT_TIMEOUT_MS: '500', WEBHOOK_MAX_ATTEMPTS: '100' };
const TYPES = ['record.created', 'record.changed', 'record.deleted', 'print_job.printed', 'print_job.failed', 'print_job.held'];

interface Receiver {
  url: string;
  child: ChildProcess;
  control(body: { mode?: 'ok' | 'fail' | 'hang'; secret?: string }): Promise<void>;
  received(): Promise<{ eventId: string; bodyId: number; type: string; valid: boolean; mode: string }[]>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => {});
});

async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/webhook-receiver.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(async () => void child.kill('SIGKILL'));
  const [line] = (await Promise.race([once(child.stdout!, 'data'), new Promise((_, reject) => setTimeout(() => reject(new Error('receiver did not start')), 30_000))])) as [Buffer];
  const port = /listening (\d+)/.exec(line.toString())![1];
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    child,
    control: async (body) => void (await fetch(`${url}/_control`, { method: 'POST', body: JSON.stringify(body) })),
    received: async () => (await fetch(`${url}/_received`)).json() as never,
  };
}

async function register(base: string, token: string, receiver: Receiver): Promise<string> {
  const res = await fetch(`${base}/v1/labelmaker/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: `${receiver.url}/hook`, eventTypes: TYPES, description: 'trial receiver' }),
  });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { id: string; secret: string };
  await receiver.control({ secret: created.secret });
  return created.id;
}

const deliveries = async (base: string, token: string, id: string) =>
  ((await (await fetch(`${base}/v1/labelmaker/webhooks/${id}/deliveries?limit=100`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
    deliveries: { eventId: number; state: string; attempts: number; lastStatus: number | null; lastError: string | null; nextAttemptAt: string | null }[];
  }).deliveries;

const append = (store: Store, n: number, from: number) =>
  store.events.append(Array.from({ length: n }, (_, i) => ({ type: 'record.created' as const, subject: { kind: 'item', id: `trial-${from + i}` }, data: { record: { id: `trial-${from + i}` } } })));

/** Fails, hangs, comes back; answers the event ids the server holds after `since`. */
async function trial(opts: { base: () => string; token: string; store: Store; receiver: Receiver; hookId: string; midway?: () => Promise<void> }): Promise<void> {
  const { token, store, receiver, hookId } = opts;
  const since = await store.events.latest();
  await receiver.control({ mode: 'fail' });
  await append(store, 10, 0);
  await expect.poll(async () => (await deliveries(opts.base(), token, hookId)).filter((d) => d.attempts >= 2 && d.lastStatus === 500).length, { timeout: 30_000, interval: 200 }).toBe(10);
  const pending = (await deliveries(opts.base(), token, hookId))[0]!;
  expect(pending).toMatchObject({ lastError: 'answered 500' });

  await receiver.control({ mode: 'hang' });
  await append(store, 10, 10);
  await expect.poll(async () => (await deliveries(opts.base(), token, hookId)).filter((d) => d.lastError?.startsWith('no answer within 1000 ms')).length, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(10);
  await opts.midway?.();

  await receiver.control({ mode: 'ok' });
  await append(store, 10, 20);
  const expected = (await store.events.after(since, 1000)).map((e) => e.id);
  expect(expected).toHaveLength(30);
  await expect.poll(async () => (await deliveries(opts.base(), token, hookId)).filter((d) => d.state === 'delivered').length, { timeout: 60_000, interval: 250 }).toBe(30);

  const got = await receiver.received();
  expect(got.every((r) => r.valid)).toBe(true);
  expect(got.every((r) => r.eventId === String(r.bodyId))).toBe(true);
  const answered = got.filter((r) => r.mode === 'ok');
  expect(new Set(answered.map((r) => r.bodyId))).toEqual(new Set(expected)); // every event, told apart by its id
  expect(got.some((r) => r.mode === 'fail') && got.some((r) => r.mode === 'hang')).toBe(true);

  // Manual redelivery: the same event, with the same id, once more.
  const res = await fetch(`${opts.base()}/v1/labelmaker/webhooks/${hookId}/deliveries`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ eventId: expected[0] }),
  });
  expect(res.status).toBe(202);
  await expect.poll(async () => (await receiver.received()).filter((r) => r.mode === 'ok' && r.bodyId === expected[0]).length, { timeout: 20_000 }).toBe(2);
}

describe('webhooks with a real receiver', () => {
  it('SQLite: fails, hangs and comes back; every event delivered, signed, with its id', async () => {
    const receiver = await startReceiver();
    const srv: TestServer = await startTestServer(FAST);
    cleanups.push(() => srv.stop());
    const hookId = await register(srv.url, srv.tokens.hooks, receiver);
    await trial({ base: () => srv.url, token: srv.tokens.hooks, store: srv.store, receiver, hookId });
  });

  it('PostgreSQL, two server processes (one killed on the way): every event delivered, signed, with its id', async () => {
    const receiver = await startReceiver();
    const schema = await createTestSchema();
    cleanups.push(() => schema.drop());
    const store = await openPostgresStore(schema.url);
    cleanups.push(() => store.close());
    const { token } = await createToken(store, 'hooks', ['webhooks:admin']);
    const env = { DATABASE_URL: schema.url, PUBLIC_BASE_URL: 'https://inventory.example.test', RENDER_THREADS: '0', ...FAST };
    const services: Service[] = await Promise.all([startService(env, { startMs: 60_000 }), startService(env, { startMs: 60_000 })]);
    cleanups.push(async () => {
      for (const s of services) if (s.child.exitCode === null && s.child.signalCode === null) await killHard(s.child);
    });
    let base = services[0]!.url;
    const hookId = await register(base, token, receiver);
    await trial({
      base: () => base,
      token,
      store,
      receiver,
      hookId,
      // The first process dies mid-way (SIGKILL): its leases lapse, the second sends its deliveries.
      midway: async () => {
        await killHard(services[0]!.child);
        base = services[1]!.url;
      },
    });
  });
});
