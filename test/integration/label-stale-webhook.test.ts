/**
 * The label.stale webhook event (issue 32) from the user's side, on a real SQLite file and on
 * PostgreSQL: a label printed on the folder printer, a webhook to a real receiver in its own
 * process; a changed record sends exactly one label.stale for its label, a second change none,
 * a reprint and a rename of the location above it one more (reason locationChanged). A saved
 * template edited sends one at once for each label printed with it (templateChanged, no record
 * change needed), and a deleted record one for its label (recordDeleted). A change the label
 * does not show (a description, a custom field its template never names) makes no label stale
 * once the consumer has run, and sends nothing; a change it shows does, once.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { LABEL_STALENESS_CONSUMER } from '../../src/events/label-staleness.js';
import { WEBHOOK_CONSUMER_NAME } from '../../src/events/webhooks.js';
import { createTestSchema } from '../records/pg-test-db.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const dialects = [
  ['SQLite file', async () => ({ env: {}, drop: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { env: { DATABASE_URL: schema.url }, drop: () => schema.drop() };
    },
  ],
] as const;

interface Received {
  bodyId: number;
  type: string;
  valid: boolean;
  subject: { kind: string; id: string };
  data: { printed: { jobId: string; template: string; stock: string; printer: string; printedAt: string }; reasons: string[] };
}

describe.each(dialects)('label.stale webhook (%s)', (_name, database) => {
  let srv: TestServer;
  let drop: () => Promise<void> = async () => {};
  let spool: string;
  let token: string;
  let receiverUrl: string;
  let stopReceiver: () => void = () => {};

  beforeAll(async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/webhook-receiver.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    stopReceiver = () => void child.kill('SIGKILL');
    const [line] = (await once(child.stdout!, 'data')) as [Buffer];
    receiverUrl = `http://127.0.0.1:${/listening (\d+)/.exec(line.toString())![1]}`;
    const db = await database();
    drop = db.drop;
    spool = mkdtempSync(join(tmpdir(), 'lm-stale-hook-spool-'));
    const fieldsFile = join(spool, 'fields.yaml'); // the folder printer spools *.prn files beside it
    writeFileSync(fieldsFile, 'fields:\n  - { name: serial, title: Serial number, type: text }\n');
    srv = await startTestServer({ ...db.env, FIELDS_FILE: fieldsFile, PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '400' });
    token = (await createToken(srv.store, 'stale-hooks', ['labels:read', 'labels:print', 'records:write', 'webhooks:admin', 'templates:write'])).token;
  }, 120_000);
  afterAll(async () => {
    await srv?.stop();
    await drop();
    stopReceiver();
    if (spool) rmSync(spool, { recursive: true, force: true });
  });

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${srv.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, Connection: 'close', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const received = async () => ((await (await fetch(`${receiverUrl}/_received`)).json()) as Received[]).filter((r) => r.type === 'label.stale');
  /** Prints the record's label and waits until it is remembered as printed; answers its job id. */
  const print = async (kind: 'item' | 'location', id: string, before?: string, template?: string) => {
    expect((await call('GET', `/v1/labelmaker/${kind}/${id}?print=true${template ? `&template=${template}` : ''}`)).status).toBe(200);
    let jobId: string | undefined;
    await expect.poll(async () => (jobId = (await srv.store.printJobs.printedLabel(kind, id))?.jobId) !== undefined && jobId !== before, { timeout: 30_000, interval: 100 }).toBe(true);
    return jobId!;
  };
  const put = async (path: string, body: Record<string, unknown>) => {
    const got = await call('GET', path);
    expect(got.status).toBe(200);
    const res = await call('PUT', path, { 'If-Match': got.headers.get('etag')! }, body);
    expect(res.status).toBe(200);
  };
  /** Waits until both the label-staleness consumer and the webhook fan-out have read every event so far. */
  const settled = async () => {
    const latest = await srv.store.events.latest();
    for (const name of [LABEL_STALENESS_CONSUMER, WEBHOOK_CONSUMER_NAME]) {
      await expect.poll(async () => (await srv.store.consumers.get(name))?.cursor ?? -1, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(latest);
    }
    const last = await srv.store.events.latest(); // label.stale events appended meanwhile
    await expect.poll(async () => (await srv.store.consumers.get(WEBHOOK_CONSUMER_NAME))?.cursor ?? -1, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(last);
  };

  it('sends one label.stale per printed label going stale, again only after a reprint', async () => {
    const res = await call('POST', '/v1/labelmaker/webhooks', {}, { url: `${receiverUrl}/hook`, eventTypes: ['label.stale'], description: 'stale labels' });
    expect(res.status).toBe(201);
    const hook = (await res.json()) as { secret: string };
    await fetch(`${receiverUrl}/_control`, { method: 'POST', body: JSON.stringify({ secret: hook.secret }) });

    const first = await print('item', 'tape-measure');
    await settled();
    expect(await received()).toEqual([]);

    // The record changes: exactly one label.stale, about what the label showed and why.
    await put('/v1/labelmaker/records/items/tape-measure', { name: 'Tape measure 5 m', parentId: 'shelf-3', assetId: '42' });
    await expect.poll(async () => (await received()).length, { timeout: 30_000, interval: 100 }).toBe(1);
    const [one] = await received();
    expect(one).toMatchObject({ valid: true, subject: { kind: 'item', id: 'tape-measure' }, data: { printed: { jobId: first, stock: expect.any(String), printer: expect.any(String), template: expect.any(String), printedAt: expect.any(String) }, reasons: ['recordChanged'] } });

    // A second change: the label was already announced stale; nothing more.
    await put('/v1/labelmaker/records/items/tape-measure', { name: 'Tape measure 8 m', parentId: 'shelf-3', assetId: '42' });
    await settled();
    expect(await received()).toHaveLength(1);

    // Reprinted, then the location above it renamed: one more, for the new label.
    const second = await print('item', 'tape-measure', first);
    expect(second).not.toBe(first);
    await put('/v1/labelmaker/records/locations/shelf-3', { name: 'Shelf three', parentId: 'garage', assetId: null });
    await expect.poll(async () => (await received()).length, { timeout: 30_000, interval: 100 }).toBe(2);
    await settled();
    const all = await received();
    expect(all).toHaveLength(2);
    expect(all[1]).toMatchObject({ valid: true, subject: { kind: 'item', id: 'tape-measure' }, data: { printed: { jobId: second }, reasons: ['locationChanged'] } });
    expect(new Set(all.map((r) => r.bodyId)).size).toBe(2);
  }, 180_000);

  it('a saved template edited: label.stale at once for each label printed with it (templateChanged); a deleted record: one for its label (recordDeleted)', async () => {
    const before = (await received()).length;
    const design = { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'path' }], codes: ['qr'], footer: '' };
    const created = await call('PUT', '/v1/labelmaker/templates/stale-tags', { 'If-None-Match': '*' }, design);
    expect(created.status).toBe(201);
    const drill = await print('item', 'loose-item', undefined, 'stale-tags');
    const hall = await print('location', 'bin-12', undefined, 'stale-tags');
    await settled();
    expect(await received()).toHaveLength(before);

    // No record changes: the template's edit alone announces both labels.
    const edited = await call('PUT', '/v1/labelmaker/templates/stale-tags', { 'If-Match': created.headers.get('etag')! }, { ...design, footer: 'ACME' });
    expect(edited.status).toBe(200);
    await expect.poll(async () => (await received()).length, { timeout: 30_000, interval: 100 }).toBe(before + 2);
    const templated = (await received()).slice(before);
    expect(templated.map((r) => [r.subject.id, r.data.printed.jobId, r.data.reasons, r.valid]).sort()).toEqual([
      ['bin-12', hall, ['templateChanged'], true],
      ['loose-item', drill, ['templateChanged'], true],
    ]);

    // A record deleted: its printed label announced once more, recordDeleted alone.
    const reprinted = await print('item', 'loose-item', drill);
    expect((await call('DELETE', '/v1/labelmaker/records/items/loose-item', { 'If-Match': '*' })).status).toBe(204);
    await expect.poll(async () => (await received()).length, { timeout: 30_000, interval: 100 }).toBe(before + 3);
    await settled();
    const all = await received();
    expect(all).toHaveLength(before + 3);
    expect(all.at(-1)).toMatchObject({ valid: true, subject: { kind: 'item', id: 'loose-item' }, data: { printed: { jobId: reprinted }, reasons: ['recordDeleted'] } });
  }, 180_000);
  it('a change the label does not show makes no label stale and sends nothing; one it shows does, once', async () => {
    const before = (await received()).length;
    const stale = async () => {
      const res = await call('GET', '/v1/labelmaker/records?labels=stale&limit=200');
      expect(res.status).toBe(200);
      return ((await res.json()) as { records: { kind: string; id: string }[] }).records.map((r) => `${r.kind}/${r.id}`).sort();
    };
    const DRILL = '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';
    const drillRecord = { name: 'Cordless drill', parentId: 'bin-12', assetId: '000-001' };
    // A saved template showing the serial number (not the description); the built-in one shows neither.
    const serialTags = { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'SN {serial}' }], codes: ['qr'] };
    expect((await call('PUT', '/v1/labelmaker/templates/serial-tags', { 'If-None-Match': '*' }, serialTags)).status).toBe(201);
    const tape = await print('item', 'tape-measure', await srv.store.printJobs.printedLabel('item', 'tape-measure').then((l) => l?.jobId), 'serial-tags');
    // The drill's asset label (built-in template: name, path, QR code, asset id).
    expect((await call('GET', '/v1/labelmaker/assets/000-001?print=true')).status).toBe(200);
    let drill: string | undefined;
    await expect.poll(async () => (drill = (await srv.store.printJobs.printedLabel('item', DRILL))?.jobId), { timeout: 30_000, interval: 100 }).toBeDefined();
    await settled();
    const baseline = await stale();
    expect(baseline).not.toContain(`item/${DRILL}`);

    // Changes neither label shows: descriptions (the drill's, and its location's: on the path of
    // its label is only the name), a custom field only the other template names.
    await put('/v1/labelmaker/records/locations/bin-12', { name: 'Bin 12', parentId: 'shelf-3', assetId: null, description: 'Small parts and screws' });
    await put(`/v1/labelmaker/records/items/${DRILL}`, { ...drillRecord, description: '18 V, two batteries', fields: { serial: 'D-1' } });
    await put('/v1/labelmaker/records/items/tape-measure', { name: 'Tape measure 8 m', parentId: 'shelf-3', assetId: '42', description: 'Blue case' });
    await settled();
    expect(await stale()).toEqual(baseline);
    expect(await received()).toHaveLength(before);
    expect(await srv.store.printJobs.printedLabel('item', DRILL)).toMatchObject({ jobId: drill });

    // Changes they show: the serial number on the tape's label, the drill's name: each announced once.
    await put('/v1/labelmaker/records/items/tape-measure', { name: 'Tape measure 8 m', parentId: 'shelf-3', assetId: '42', description: 'Blue case', fields: { serial: 'T-7' } });
    await put(`/v1/labelmaker/records/items/${DRILL}`, { ...drillRecord, name: 'Cordless drill 18 V', description: '18 V, two batteries', fields: { serial: 'D-1' } });
    await expect.poll(async () => (await received()).length, { timeout: 30_000, interval: 100 }).toBe(before + 2);
    await settled();
    const announced = (await received()).slice(before);
    expect(announced.map((r) => [r.subject.id, r.data.printed.jobId, r.data.reasons, r.valid]).sort()).toEqual([
      [DRILL, drill, ['recordChanged'], true],
      ['tape-measure', tape, ['recordChanged'], true],
    ]);
    expect(await stale()).toEqual([...baseline, `item/${DRILL}`, 'item/tape-measure'].sort());
    // One more change to an announced label: nothing more.
    await put('/v1/labelmaker/records/items/tape-measure', { name: 'Tape measure 8 m', parentId: 'shelf-3', assetId: '42', description: 'Red case', fields: { serial: 'T-7' } });
    await settled();
    expect(await received()).toHaveLength(before + 2);
  }, 180_000);
});
