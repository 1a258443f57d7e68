/** The typed example client (openapi-fetch + generated types) against the real server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLabelmakerClient, LabelmakerError } from '../../src/client.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { PUBLIC_BASE, type TestServer } from '../helpers/server.js';
import { createToken } from '../../src/commands.js';
import { startContractServer } from './targets.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startContractServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe('typed client', () => {
  it('writes records: create, read with its ETag, replace, a stale ETag refused, delete; and a bulk sync', async () => {
    const { token } = await createToken(srv.store, 'client-writer', ['labels:read', 'records:write']);
    const client = createLabelmakerClient({ baseUrl: srv.url, token });
    const created = await client.putRecord('items', 'client-wrench', { name: 'Wrench', parentId: 'shelf-3', assetId: '000-500' }, { create: true });
    expect(created.record).toMatchObject({ kind: 'item', id: 'client-wrench', assetId: '000-500' });
    const read = await client.record('items', 'client-wrench');
    expect(read.etag).toBe(created.etag);
    const replaced = await client.putRecord('items', 'client-wrench', { name: 'Torque wrench', parentId: 'shelf-3' }, { ifMatch: read.etag! });
    expect(replaced.record).toMatchObject({ name: 'Torque wrench', assetId: null });
    const stale = await client.deleteRecord('items', 'client-wrench', read.etag!).catch((e: unknown) => e);
    expect((stale as LabelmakerError).problem).toMatchObject({ status: 412, type: '/problems/precondition-failed' });
    await client.deleteRecord('items', 'client-wrench', replaced.etag!);
    const invalid = await client.putRecord('items', 'client-x', { name: 'X', parentId: 'nowhere' }, { create: true }).catch((e: unknown) => e);
    expect((invalid as LabelmakerError).problem).toMatchObject({ status: 422, type: '/problems/invalid-records', errors: [expect.stringMatching(/^row 1: parent_id/)] });

    const lines = '{"kind":"location","id":"client-box","name":"Box"}\n{"kind":"item","id":"client-a","name":"A","parentId":"client-box"}\n';
    expect(await client.upsertRecords(lines, { idempotencyKey: 'client-sync' })).toEqual({ records: 2, written: 2, unchanged: 0 });
    expect(await client.upsertRecords(lines, { idempotencyKey: 'client-sync' })).toEqual({ records: 2, written: 2, unchanged: 0 });
    expect(await client.upsertRecords([{ kind: 'item', id: 'client-a', name: 'A', parentId: 'client-box' }])).toEqual({ records: 1, written: 0, unchanged: 1 });
  });

  it('fetches a label as PNG bytes, with its ETag', async () => {
    const client = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read });
    const label = await client.label('assets', '1', { template: 'zebra-2x1-300dpi' });
    expect(readPngHeader(Buffer.from(label.png))).toMatchObject({ width: 600, height: 300 });
    expect(label.etag).toMatch(/^"/);
    const codes = await decodeBarcodes(Buffer.from(label.png));
    expect(codes.map((c) => c.text)).toContain(`${PUBLIC_BASE}/a/000-001`);
  });

  it('lists the label stocks (listStocks); a token without labels:read gets a LabelmakerError', async () => {
    const stocks = await createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read }).stocks();
    expect(stocks.find((s) => s.name === 'brother-ql-62x29')).toMatchObject({ dpi: 300, partNumbers: ['brother-dk-11209'], printable: { widthDots: 696, lengthDots: 271 } });
    const err = await createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.printOnly }).stocks().catch((e: unknown) => e);
    expect((err as LabelmakerError).problem).toMatchObject({ status: 403, type: '/problems/insufficient-scope' });
  });

  it('lists the custom fields (listFields) and finds records by one (listRecords field, fieldFrom, fieldTo)', async () => {
    const client = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read });
    const fields = await client.fields();
    expect(fields.find((f) => f.name === 'best_before')).toEqual({ name: 'best_before', title: 'Best before', type: 'date' });
    await srv.store.records.upsertMany([{ kind: 'item', id: 'yoghurt', name: 'Yoghurt', description: '', parentId: null, assetId: null, fields: { best_before: '2026-12-01', quantity: 4 } }]);
    const page = await client.records({ field: 'best_before', fieldTo: '2026-12-31' });
    expect(page.records.map((r) => [r.id, r.fields])).toEqual([['yoghurt', { best_before: '2026-12-01', quantity: 4 }]]);
    const err = await client.records({ field: 'quantity', fieldFrom: 'many' }).catch((e: unknown) => e);
    expect((err as LabelmakerError).problem).toMatchObject({ status: 400, detail: expect.stringContaining('quantity is a number field') });
  });

  it('turns problems into LabelmakerError with the problem body', async () => {
    const client = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read });
    const err = await client.label('location', 'nowhere').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabelmakerError);
    expect((err as LabelmakerError).problem).toMatchObject({ status: 404, type: '/problems/not-found' });
  });

  it('prints with an idempotency key and follows the job', async () => {
    const client = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.print });
    const first = await client.label('item', 'tape-measure', { print: true, idempotencyKey: 'client-test-1' });
    const again = await client.label('item', 'tape-measure', { print: true, idempotencyKey: 'client-test-1' });
    expect(first.printJob).toMatch(/^\/v1\/labelmaker\/print-jobs\//);
    expect(again.printJob).toBe(first.printJob);
    const job = await client.printJob(first.printJob!.split('/').pop()!);
    expect(['queued', 'printing', 'printed']).toContain(job.state);

    // The job is in the token's list, newest first; a job that has not failed cannot be retried.
    const page = await client.printJobs({ limit: 200 });
    expect(page.jobs.map((j) => j.id)).toContain(job.id);
    const err = await client.retryPrintJob(job.id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LabelmakerError);
    expect((err as LabelmakerError).problem).toMatchObject({ status: 409, type: '/problems/job-not-failed' });
    // A job no longer waiting (it printed, or is being sent) cannot be cancelled.
    await expect.poll(async () => (await client.printJob(job.id)).state).toBe('printed');
    const refused = await client.cancelPrintJob(job.id).catch((e: unknown) => e);
    expect((refused as LabelmakerError).problem).toMatchObject({ status: 409, type: '/problems/job-not-cancellable' });
  });

  it('registers, reads, changes and deletes a webhook; the secret only at creation; redelivers an event', async () => {
    const hooks = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.hooks });
    const created = await hooks.createWebhook({ url: 'http://127.0.0.1:9/client-test', eventTypes: ['print_job.failed'], description: 'client test' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const { webhook, etag } = await hooks.webhook(created.id);
    expect(webhook).toEqual({ id: created.id, url: 'http://127.0.0.1:9/client-test', description: 'client test', eventTypes: ['print_job.failed'], enabled: true, createdAt: created.createdAt, updatedAt: created.updatedAt });
    expect((await hooks.webhooks()).find((w) => w.id === created.id)).not.toHaveProperty('secret');
    const changed = await hooks.updateWebhook(created.id, { enabled: false }, etag!);
    expect(changed.enabled).toBe(false);
    const stale = await hooks.updateWebhook(created.id, { enabled: true }, etag!).catch((e: unknown) => e);
    expect((stale as LabelmakerError).problem).toMatchObject({ status: 412 });
    await srv.store.events.append([{ type: 'print_job.failed', subject: { kind: 'print_job', id: 'x' }, data: {} }]);
    const eventId = await srv.store.events.latest();
    const again = await hooks.redeliverWebhookEvent(created.id, eventId);
    expect(again).toMatchObject({ eventId, state: 'pending', attempts: 0 });
    expect((await hooks.webhookDeliveries(created.id, 5)).map((d) => d.id)).toContain(again.id);
    await hooks.deleteWebhook(created.id);
    const gone = await hooks.webhook(created.id).catch((e: unknown) => e);
    expect((gone as LabelmakerError).problem).toMatchObject({ status: 404 });
  });

  it('defines, reads, replaces and deletes a printer; a stale ETag is a 412 LabelmakerError', async () => {
    const admin = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.admin });
    const { printer, etag } = await admin.putPrinter('client-test', { title: 'Client test', deviceUri: 'file:///tmp/lm-client-test', stocks: ['zebra-4x6-203dpi'] }, { create: true });
    expect(printer).toMatchObject({ name: 'client-test', deviceUri: 'file:///tmp/lm-client-test', source: 'api', default: false });
    expect((await admin.printer('client-test')).etag).toBe(etag);
    const stale = await admin.putPrinter('client-test', { title: 'Again', deviceUri: 'file:///tmp/x' }, { ifMatch: '"stale"' }).catch((e: unknown) => e);
    expect((stale as LabelmakerError).problem).toMatchObject({ status: 412, type: '/problems/precondition-failed' });
    const replaced = await admin.putPrinter('client-test', { title: 'Again', deviceUri: 'file:///tmp/x' }, { ifMatch: etag! });
    expect(replaced.printer.title).toBe('Again');
    // A print token sees the printers, not their addresses.
    const printers = await createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.print }).printers();
    expect(printers.map((p) => p.name)).toEqual(['client-test', 'default']);
    expect(printers.some((p) => 'deviceUri' in p)).toBe(false);
    // A folder printer cannot tell its state: read now, it says unknown, never ready.
    const refreshed = await createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.print }).refreshPrinterStatus('client-test');
    expect(refreshed.status).toMatchObject({ state: 'unknown', reasons: [], media: null });
    expect(refreshed).not.toHaveProperty('deviceUri');
    const missing = await admin.refreshPrinterStatus('nobody').catch((e: unknown) => e);
    expect((missing as LabelmakerError).problem).toMatchObject({ status: 404 });
    await admin.deletePrinter('client-test', replaced.etag!);
    expect((await admin.printers()).map((p) => p.name)).toEqual(['default']);
  });

  it('creates, lists, reads and deletes a print rule; an unknown template is a 422 LabelmakerError', async () => {
    const admin = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.admin });
    const rule = await admin.createPrintRule({ name: 'Client rule', locationId: 'garage', kinds: ['item', 'location'], triggers: ['moved'], template: 'zebra-2x1-203dpi' });
    expect(rule).toMatchObject({ name: 'Client rule', locationId: 'garage', kinds: ['item', 'location'], triggers: ['moved'], template: 'zebra-2x1-203dpi', printer: null });
    const reader = createLabelmakerClient({ baseUrl: srv.url, token: srv.tokens.read });
    expect(await reader.printRule(rule.id)).toEqual(rule);
    expect((await reader.printRules()).map((r) => r.id)).toContain(rule.id);
    const bad = await admin.createPrintRule({ name: 'Bad', locationId: 'garage', kinds: ['item'], triggers: ['created'], template: 'no-such-template' }).catch((e: unknown) => e);
    expect((bad as LabelmakerError).problem).toMatchObject({ status: 422, type: '/problems/invalid-print-rule' });
    const denied = await reader.deletePrintRule(rule.id).catch((e: unknown) => e);
    expect((denied as LabelmakerError).problem).toMatchObject({ status: 403 });
    await admin.deletePrintRule(rule.id);
    expect((await reader.printRules()).map((r) => r.id)).not.toContain(rule.id);
  });
});
