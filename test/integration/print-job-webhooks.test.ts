/**
 * print_job.printed, print_job.failed and print_job.held webhooks from real jobs (issue 32), on
 * a real SQLite file and on PostgreSQL: the service in its own process (src/main.ts) with three
 * printers from PRINTERS_FILE (a folder, a Zebra socket on a closed loopback port, and a folder
 * printer loaded with a 4x6 roll), a webhook registered through the API to a receiver in its own
 * process (test/helpers/webhook-receiver.ts). Each job's event arrives signed as docs/webhooks.md
 * says (checked here over the raw body as a receiver does), naming the job, with the payload the
 * docs list, under the event id the delivery list shows.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { createTestSchema } from '../records/pg-test-db.js';
import { killHard, startService, type Service } from '../helpers/service.js';
import { refusedPort } from '../helpers/tcp-sink.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fields of `data.job` in every print_job event (docs/webhooks.md, "Event types and payloads"). */
const JOB_FIELDS = ['id', 'state', 'printer', 'template', 'title', 'attempts', 'maxAttempts', 'lastError', 'heldReason', 'batchId', 'inDoubt', 'possibleDuplicate', 'createdAt', 'updatedAt', 'printedAt'];

interface Received {
  eventId: string;
  bodyId: number;
  type: string;
  eventType: string;
  deliveryId: string;
  valid: boolean;
  timestamp: string;
  signature: string;
  raw: string;
  subject: { kind: string; id: string };
  data: { job: Record<string, unknown> };
}

const dialects = [
  ['SQLite file', async (dir: string) => ({ url: `sqlite:${join(dir, 'labelmaker.db')}`, drop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { url: schema.url, drop: () => schema.drop() };
    },
  ],
] as const;

describe.each(dialects)('print job webhooks from real jobs (%s)', (_name, database) => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-job-hooks-'));
  const spool = join(dir, 'folder');
  const shipping = join(dir, 'shipping');
  let service: Service | undefined;
  let stopReceiver = () => {};
  let drop = async () => {};
  let base: string;
  let receiverUrl: string;
  let token: string;
  let secret: string;
  let hookId: string;

  beforeAll(async () => {
    const receiver = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/webhook-receiver.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    stopReceiver = () => void receiver.kill('SIGKILL');
    const [line] = (await once(receiver.stdout!, 'data')) as [Buffer];
    receiverUrl = `http://127.0.0.1:${/listening (\d+)/.exec(line.toString())![1]}`;

    const db = await database(dir);
    drop = db.drop;
    const store = await openStore(db.url);
    try {
      await store.records.upsertMany([
        { kind: 'location', id: 'shelf', name: 'Shelf', description: '', parentId: null, assetId: null },
        { kind: 'item', id: 'drill', name: 'Cordless drill', description: '', parentId: 'shelf', assetId: 1 },
      ]);
      token = (await createToken(store, 'job-hooks', ['labels:read', 'labels:print', 'webhooks:admin'])).token;
    } finally {
      await store.close();
    }
    for (const folder of [spool, shipping]) mkdirSync(folder);
    const closed = await refusedPort();
    const printers = join(dir, 'printers.yaml');
    writeFileSync(printers, [
      'printers:',
      '  - name: folder',
      '    title: Folder',
      `    deviceUri: ${pathToFileURL(spool).href}`,
      '    default: true',
      '  - name: broken',
      '    title: Broken Zebra',
      `    deviceUri: socket://127.0.0.1:${closed}?lang=zpl`,
      '  - name: shipping',
      '    title: Shipping Zebra',
      `    deviceUri: ${pathToFileURL(shipping).href}`,
      '    stocks: [zebra-4x6-203dpi]',
      '',
    ].join('\n'));
    service = await startService({
      DATABASE_URL: db.url,
      PUBLIC_BASE_URL: 'https://inventory.example.test',
      RENDER_THREADS: '0',
      PRINTERS_FILE: printers,
      // Unpolled: a printer no instance reaches would hold its jobs (docs/printing.md, reach); here the broken one fails them.
      PRINTER_STATUS_INTERVAL_S: '0',
      PRINT_MAX_ATTEMPTS: '2',
      PRINT_RETRY_BASE_MS: '100',
      PRINT_RETRY_MAX_MS: '200',
      PRINT_TIMEOUT_MS: '2000',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '400',
    }, { startMs: 60_000 });
    base = service.url;

    const res = await call('POST', '/v1/labelmaker/webhooks', { url: `${receiverUrl}/hook`, eventTypes: ['print_job.printed', 'print_job.failed', 'print_job.held'], description: 'job events' });
    expect(res.status).toBe(201);
    ({ id: hookId, secret } = (await res.json()) as { id: string; secret: string });
    await fetch(`${receiverUrl}/_control`, { method: 'POST', body: JSON.stringify({ secret }) });
  }, 180_000);

  afterAll(async () => {
    if (service) await killHard(service.child);
    stopReceiver();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  function call(method: string, path: string, body?: unknown) {
    return fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** Prints the drill's label on `printer`; answers the job id from the Print-Job header. */
  async function print(printer: string): Promise<string> {
    const res = await call('GET', `/v1/labelmaker/item/drill?print=true&printer=${printer}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('print-printer')).toBe(printer);
    return res.headers.get('print-job')!.split('/').pop()!;
  }

  /** Waits for the receiver to have the one event of `type` about job `id`, and checks it as a receiver would. */
  async function eventFor(type: string, id: string): Promise<Received> {
    let got: Received[] = [];
    await expect
      .poll(async () => {
        got = ((await (await fetch(`${receiverUrl}/_received`)).json()) as Received[]).filter((r) => r.subject.id === id);
        return got.map((r) => r.type);
      }, { timeout: 30_000, interval: 100 })
      .toContain(type);
    const event = got.find((r) => r.type === type)!;
    // docs/webhooks.md: v1= and the hex HMAC-SHA256, keyed with the secret, of `${timestamp}.${raw body}`.
    expect(event.valid).toBe(true);
    expect(event.signature).toBe(`v1=${createHmac('sha256', secret).update(`${event.timestamp}.${event.raw}`).digest('hex')}`);
    expect(event.signature).not.toBe(`v1=${createHmac('sha256', 'whsec_someone-else').update(`${event.timestamp}.${event.raw}`).digest('hex')}`);
    expect(Math.abs(Date.now() / 1000 - Number(event.timestamp))).toBeLessThan(300);
    // The event id is the body's and the header's; the type too.
    expect(event.eventId).toBe(String(event.bodyId));
    expect(event.eventType).toBe(type);
    const body = JSON.parse(event.raw) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['data', 'id', 'occurredAt', 'subject', 'type']);
    expect(body.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(event.subject).toEqual({ kind: 'print_job', id });
    expect(Object.keys(event.data)).toEqual(['job']);
    expect(Object.keys(event.data.job).sort()).toEqual([...JOB_FIELDS].sort());
    // The delivery list shows the same event, delivered.
    await expect
      .poll(async () => ((await (await call('GET', `/v1/labelmaker/webhooks/${hookId}/deliveries?limit=100`)).json()) as { deliveries: { id: number; eventId: number; state: string }[] }).deliveries.find((d) => d.eventId === event.bodyId), { timeout: 10_000 })
      .toMatchObject({ id: Number(event.deliveryId), state: 'delivered' });
    return event;
  }

  const jobOf = async (id: string) => (await (await call('GET', `/v1/labelmaker/print-jobs/${id}`)).json()) as Record<string, unknown>;

  it('a job printed on the folder printer: print_job.printed naming it', async () => {
    const id = await print('folder');
    const event = await eventFor('print_job.printed', id);
    const job = await jobOf(id);
    expect(job).toMatchObject({ state: 'printed', printer: 'folder' });
    expect(event.data.job).toEqual({
      id, state: 'printed', printer: 'folder', template: job.template, title: 'item label: Cordless drill', attempts: 1, maxAttempts: 2, lastError: null, heldReason: null,
      batchId: null, inDoubt: false, possibleDuplicate: false, createdAt: job.createdAt, updatedAt: event.data.job.updatedAt, printedAt: job.printedAt,
    });
    expect(event.data.job.printedAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(readdirSync(spool).some((f) => f.endsWith(`-${id}.png`))).toBe(true);
  });

  it('a job its printer refuses: print_job.failed after the attempts, with the error', async () => {
    const id = await print('broken');
    const event = await eventFor('print_job.failed', id);
    const job = await jobOf(id);
    expect(job).toMatchObject({ state: 'failed', attempts: 2 });
    expect(event.data.job).toMatchObject({ id, state: 'failed', printer: 'broken', attempts: 2, maxAttempts: 2, heldReason: null, printedAt: null, lastError: job.lastError });
    expect(event.data.job.lastError).toMatch(/ECONNREFUSED|refused/i);
    // Failed once: no printed event for it, and one failed event.
    const all = ((await (await fetch(`${receiverUrl}/_received`)).json()) as Received[]).filter((r) => r.subject.id === id);
    expect(all.map((r) => r.type)).toEqual(['print_job.failed']);
  });

  it('a job on a printer with another roll loaded: print_job.held with the reason, and it is never sent', async () => {
    const id = await print('shipping');
    const event = await eventFor('print_job.held', id);
    const reason = 'Shipping Zebra has Zebra 4 × 6 in, 203 dpi loaded; this label needs Brother QL 62 × 29 mm die-cut (DK-11209).';
    expect(event.data.job).toMatchObject({ id, state: 'queued', printer: 'shipping', attempts: 0, heldReason: reason, lastError: null, printedAt: null });
    expect(await jobOf(id)).toMatchObject({ state: 'queued', heldReason: reason, attempts: 0 });
    expect(readdirSync(shipping)).toEqual([]); // nothing was written to that printer's folder
  });
});
