/**
 * createPrintBatch from the client's side: a real server, a real SQLite file and
 * the folder printer. 500 labels in one request are accepted at once, each printed
 * once; the same Idempotency-Key returns the same batch and prints nothing more.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { resolve, schemaErrors } from '../helpers/spec.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const servers: TestServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const post = (srv: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${srv.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { Authorization: `Bearer ${srv.tokens.print}`, 'Content-Type': 'application/json', Connection: 'close', ...headers }, body: JSON.stringify(body) });

describe('createPrintBatch', () => {
  it('500 labels in one request: one batch, every label printed once; a replayed key prints nothing more', async () => {
    const spool = mkdtempSync(join(tmpdir(), 'lm-batch-spool-'));
    dirs.push(spool);
    // 500 labels, then 1000 under a reused key within the minute: over the default print quota (1000), which is not this test's subject.
    const srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50', PRINT_QUOTA_PER_MINUTE: '100000' });
    servers.push(srv);
    await srv.store.records.upsertMany(Array.from({ length: 500 }, (_, i) => ({ kind: 'item' as const, id: `box-${i}`, name: `Box ${i}`, description: '', parentId: 'garage', assetId: 1000 + i })));
    const body = { selection: { assetIdFrom: '1000', assetIdTo: '1499' }, template: 'zebra-2x1-203dpi' };
    const res = await post(srv, body, { 'Idempotency-Key': 'boxes' });
    expect(res.status).toBe(201);
    const batch = (await res.json()) as { id: string; total: number; jobs: string[] };
    expect(batch.total).toBe(500);
    expect(new Set(batch.jobs).size).toBe(500);
    expect(res.headers.get('location')).toBe(`/v1/labelmaker/print-jobs/batches/${batch.id}`);

    const until = Date.now() + 180_000;
    let status: { state: string; printed: number; pending: number; failed: number };
    do {
      await new Promise((r) => setTimeout(r, 500));
      status = await (await fetch(`${srv.url}${res.headers.get('location')}`, { headers: { Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' } })).json();
    } while (status.pending > 0 && Date.now() < until);
    expect(status).toMatchObject({ state: 'printed', printed: 500, pending: 0, failed: 0 });

    const printed = readdirSync(spool).filter((f) => f.endsWith('.png')).map((f) => f.match(UUID)!.at(-1)!);
    expect(printed.sort()).toEqual([...batch.jobs].sort());

    const again = await post(srv, body, { 'Idempotency-Key': 'boxes' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(batch.id);
    const other = await post(srv, { ...body, copies: 2 }, { 'Idempotency-Key': 'boxes' });
    expect(other.status).toBe(422);
    await new Promise((r) => setTimeout(r, 500));
    expect(readdirSync(spool).filter((f) => f.endsWith('.png'))).toHaveLength(500);
  }, 240_000);

  it("each of a batch's jobs names its batch and its record, in the order selected", async () => {
    const spool = mkdtempSync(join(tmpdir(), 'lm-batch-spool-'));
    dirs.push(spool);
    const srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href });
    servers.push(srv);
    const records = [
      { kind: 'location', id: 'garage' },
      { kind: 'asset', id: '1' }, // the item 9b1e4c2d-…'s asset, named as printed: 000-001
      { kind: 'item', id: 'loose-item' },
    ];
    const res = await post(srv, { selection: { records } });
    expect(res.status).toBe(201);
    const batch = (await res.json()) as { id: string; jobs: string[] };
    const expected = [records[0], { kind: 'asset', id: '000-001' }, records[2]];
    for (const [i, jobId] of batch.jobs.entries()) {
      const job = await (await fetch(`${srv.url}/v1/labelmaker/print-jobs/${jobId}`, { headers: { Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' } })).json();
      expect(schemaErrors(resolve('#/components/schemas/PrintJob'), job)).toBeUndefined();
      expect(job).toMatchObject({ id: jobId, batchId: batch.id, record: expected[i] });
    }
    const page = (await (await fetch(`${srv.url}/v1/labelmaker/print-jobs?batch=${batch.id}`, { headers: { Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' } })).json()) as { jobs: { batchId: string; record: unknown }[] };
    expect(page.jobs.map((j) => [j.batchId, j.record])).toEqual(expected.map((r) => [batch.id, r]).reverse());
  });

  it('the answer says which labels carry warnings, by job and record (labelWarnings), as Label-Warnings does for one label', async () => {
    const spool = mkdtempSync(join(tmpdir(), 'lm-batch-spool-'));
    dirs.push(spool);
    const srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href });
    servers.push(srv);
    await srv.store.records.upsertMany([
      { kind: 'item', id: 'long-name', name: 'Heavy-duty cordless hammer drill with two batteries', description: '', parentId: 'garage', assetId: null },
      { kind: 'item', id: 'deseret', name: 'Box \u{10437}', description: '', parentId: 'garage', assetId: null },
    ]);
    const records = [{ kind: 'location', id: 'shelf-3' }, { kind: 'item', id: 'long-name' }, { kind: 'item', id: 'deseret' }];
    const body = { selection: { records }, copies: 2, template: 'brother-ql-23x23' };
    const res = await post(srv, body, { 'Idempotency-Key': 'warned' });
    expect(res.status).toBe(201);
    const batch = (await res.json()) as { id: string; jobs: string[]; labelWarnings: unknown[] };
    expect(schemaErrors(resolve('#/components/schemas/PrintBatch'), batch)).toBeUndefined();
    // Jobs 0-1 print Shelf 3 (whole), 2-3 the long name ("Heavy-…" on 23 mm), 4-5 the Deseret letter as a box.
    const [, , long1, long2, box1, box2] = batch.jobs;
    expect(batch.labelWarnings).toEqual([
      { job: long1, record: records[1], warnings: ['text-shortened'] },
      { job: long2, record: records[1], warnings: ['text-shortened'] },
      { job: box1, record: records[2], warnings: ['missing-glyphs'], missingGlyphs: ['U+10437'] },
      { job: box2, record: records[2], warnings: ['missing-glyphs'], missingGlyphs: ['U+10437'] },
    ]);
    // The same as each label says on its own.
    const single = await fetch(`${srv.url}/v1/labelmaker/item/long-name?template=brother-ql-23x23`, { headers: { Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' } });
    expect(single.headers.get('label-warnings')).toBe('text-shortened');
    // A replay answers the same; the batch's status alone does not repeat them.
    const again = await post(srv, body, { 'Idempotency-Key': 'warned' });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { labelWarnings: unknown[] }).labelWarnings).toEqual(batch.labelWarnings);
    const status = await (await fetch(`${srv.url}${res.headers.get('location')}`, { headers: { Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' } })).json();
    expect(status).not.toHaveProperty('labelWarnings');
    // No warnings: an empty list.
    const clean = await post(srv, { selection: { records: [records[0]] } });
    expect(((await clean.json()) as { labelWarnings: unknown[] }).labelWarnings).toEqual([]);
  });

  it('without a printer: 501, nothing created', async () => {
    const srv = await startTestServer();
    servers.push(srv);
    const res = await post(srv, { selection: { records: [{ kind: 'item', id: 'tape-measure' }] } });
    expect(res.status).toBe(501);
    expect(((await res.json()) as { type: string }).type).toBe('/problems/printing-not-configured');
  });
});
