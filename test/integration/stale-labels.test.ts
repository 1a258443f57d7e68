/**
 * Which labels are out of date (issue 32), from the client's side: a real server, a real
 * SQLite file, the folder printer and the records import. A label is remembered when its
 * job prints; a re-imported record whose label would look different is `stale`, a renamed
 * location makes the labels below it stale, and a reprint (a batch of the stale selection)
 * takes them out. Sheets and batches take the same selection. A change the label does not show
 * (a description) leaves it current once the label-staleness consumer has compared it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../src/records/import/import.js';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { resolve, schemaErrors } from '../helpers/spec.js';

let srv: TestServer;
let spool: string;
beforeAll(async () => {
  spool = mkdtempSync(join(tmpdir(), 'lm-stale-spool-'));
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50' });
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  rmSync(spool, { recursive: true, force: true });
});

const auth = () => ({ Authorization: `Bearer ${srv.tokens.print}`, Connection: 'close' });
const records = async (query: string) => {
  const res = await fetch(`${srv.url}/v1/labelmaker/records?${query}`, { headers: auth() });
  expect(res.status).toBe(200);
  const page = (await res.json()) as { records: { kind: string; id: string }[] };
  expect(schemaErrors(resolve('#/components/schemas/RecordPage'), page)).toBeUndefined();
  return page.records.map((r) => `${r.kind}/${r.id}`).sort();
};
const printBatch = async (selection: unknown) => {
  const res = await fetch(`${srv.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ selection }) });
  return res;
};
/** Prints the selection as a batch and waits until every job has printed. */
const printAll = async (selection: unknown) => {
  const res = await printBatch(selection);
  expect(res.status).toBe(201);
  const location = res.headers.get('location')!;
  const until = Date.now() + 60_000;
  for (;;) {
    const status = (await (await fetch(`${srv.url}${location}`, { headers: auth() })).json()) as { pending: number; printed: number; total: number };
    if (status.pending === 0) return status;
    if (Date.now() > until) throw new Error(`batch still pending: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};
const reimport = async (changes: Record<string, Partial<(typeof FIXTURES)[number]>>) => {
  const rows = FIXTURES.map((r) => ({ ...r, ...changes[r.id] }));
  const result = await importRecords(srv.store, JSON.stringify({ records: rows }), 'json');
  expect(result.errors).toEqual([]);
};
const DRILL = 'item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';

describe('stale and never-printed labels', () => {
  it('follows prints, re-imports, a parent rename and reprints', async () => {
    const all = FIXTURES.map((r) => `${r.kind}/${r.id}`).sort();
    expect(await records('labels=neverPrinted')).toEqual(all);
    expect(await records('labels=stale')).toEqual([]);
    // Nothing is stale yet: a batch of the stale selection has nothing to print.
    const none = await printBatch({ labels: 'stale' });
    expect(none.status).toBe(400);
    expect(((await none.json()) as { detail: string }).detail).toMatch(/no printed label is out of date/);

    // Print every record's label once (each its own kind's label).
    expect(await printAll({ labels: 'neverPrinted' })).toMatchObject({ printed: all.length, total: all.length });
    expect(await records('labels=neverPrinted')).toEqual([]);
    expect(await records('labels=stale')).toEqual([]);
    const remembered = await srv.store.printJobs.printedLabel('item', '9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f');
    expect(remembered).toMatchObject({ template: expect.any(String), templateVersion: '', fingerprint: expect.stringMatching(/^c1:item:[\w-]{27}$/) });

    // Re-importing the same file changes nothing a label shows.
    await reimport({});
    expect(await records('labels=stale')).toEqual([]);

    // A changed name: that record's label is stale, nothing else.
    await reimport({ 'tape-measure': { name: 'Tape measure 5 m' } });
    expect(await records('labels=stale')).toEqual(['item/tape-measure']);

    // The top location renamed: every label below it shows another path.
    await reimport({ 'tape-measure': { name: 'Tape measure 5 m' }, garage: { name: 'Workshop' } });
    expect(await records('labels=stale')).toEqual(['item/tape-measure', DRILL, 'location/bin-12', 'location/garage', 'location/shelf-3'].sort());
    expect(await records('labels=stale&kind=item')).toEqual(['item/tape-measure', DRILL].sort());
    expect(await records('labels=stale&parent=shelf-3&descendants=true')).toEqual(['item/tape-measure', DRILL, 'location/bin-12'].sort());

    // Reprint the stale items only: the locations stay stale.
    expect(await printAll({ labels: 'stale', kind: 'item' })).toMatchObject({ printed: 2 });
    expect(await records('labels=stale')).toEqual(['location/bin-12', 'location/garage', 'location/shelf-3']);
    // A single label printed through the label operation counts too.
    const one = await fetch(`${srv.url}/v1/labelmaker/location/garage?print=true`, { headers: auth() });
    expect(one.status).toBe(200);
    const until = Date.now() + 30_000;
    while ((await records('labels=stale')).includes('location/garage') && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    expect(await records('labels=stale')).toEqual(['location/bin-12', 'location/shelf-3']);
    // The rest, as a sheet would take them: the same selection.
    const sheet = await fetch(`${srv.url}/v1/labelmaker/sheets`, { method: 'POST', headers: { ...auth(), 'Content-Type': 'application/json' }, body: JSON.stringify({ sheet: 'avery-l7160', selection: { labels: 'stale' } }) });
    expect(sheet.status).toBe(200);
    expect(sheet.headers.get('content-type')).toMatch(/application\/pdf/);
    expect(await printAll({ labels: 'stale' })).toMatchObject({ printed: 2 });
    expect(await records('labels=stale')).toEqual([]);

    // A new description, which the built-in template does not print: stale by revision until the
    // label-staleness consumer has compared the label it would print now, then current again
    // (the same printed label, compared at a later revision).
    const drillLabel = await srv.store.printJobs.printedLabel('item', DRILL.slice(5));
    await reimport({ 'tape-measure': { name: 'Tape measure 5 m' }, garage: { name: 'Workshop' }, [DRILL.slice(5)]: { description: '18 V, two batteries' } });
    await expect.poll(() => records('labels=stale'), { timeout: 30_000, interval: 100 }).toEqual([]);
    const compared = await srv.store.printJobs.printedLabel('item', DRILL.slice(5));
    expect(compared).toMatchObject({ jobId: drillLabel!.jobId, fingerprint: drillLabel!.fingerprint });
    expect(compared!.revision).toBeGreaterThan(drillLabel!.revision);
  }, 180_000);

  it('refuses includeSelf with labels, and an unknown state', async () => {
    const both = await printBatch({ location: 'garage', kind: 'location', includeSelf: true, labels: 'stale' });
    expect(both.status).toBe(400);
    const bad = await fetch(`${srv.url}/v1/labelmaker/records?labels=old`, { headers: auth() });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });
});
