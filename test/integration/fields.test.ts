/**
 * Custom record fields from the client's side of the wire (issue 32): the real server with a
 * FIELDS_FILE over a real SQLite file and a real PostgreSQL schema, and the real CLI import.
 * The catalogue (listFields), values on records (listRecords) and the search by one field,
 * templates that show fields (refused when they name an unknown one), and the labels they draw.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { decodeMonoPng } from '../../src/labels/mono-png.js';
import { problemErrors, schemaErrors, spec } from '../helpers/spec.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runCli } from '../helpers/service.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';

const FIELDS_YAML = `# the deployment's custom fields
fields:
  - { name: best_before, title: Best before, type: date }
  - { name: purchased, title: Purchased, type: date }
  - { name: warranty_until, title: Warranty until, type: date }
  - { name: quantity, title: Quantity, type: number, min: 0 }
  - { name: serial, title: Serial number, type: text, maxLength: 32 }
  - { name: manual, title: Manual, type: url }
`;
const dir = mkdtempSync(join(tmpdir(), 'lm-fields-'));
const FIELDS_FILE = join(dir, 'fields.yaml');
writeFileSync(FIELDS_FILE, FIELDS_YAML);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const JSON_ACCEPT = 'application/json, application/problem+json';
const schemas = spec.components.schemas;

async function call(srv: TestServer, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Accept: JSON_ACCEPT, Authorization: `Bearer ${opts.token ?? srv.tokens.editor}`, ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(srv.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const json = /json/.test(type) && body.length ? JSON.parse(body.toString('utf8')) : undefined;
  if (/problem\+json/.test(type)) expect(problemErrors(json), body.toString()).toBeUndefined();
  return { status: res.status, headers: res.headers, json, body };
}

describe('FIELDS_FILE', () => {
  it('is read at start; a file that cannot be used stops the start naming the entry', () => {
    expect(loadConfig({ FIELDS_FILE }).fields.fields.map((f) => f.name)).toEqual(['best_before', 'purchased', 'warranty_until', 'quantity', 'serial', 'manual']);
    expect(loadConfig({}).fields).toEqual({ fields: [], file: undefined });
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'fields:\n  - { name: best_before, type: date }\n  - { name: best_before, type: text }\n');
    expect(() => loadConfig({ FIELDS_FILE: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ FIELDS_FILE: bad })).toThrow(/FIELDS_FILE .*bad\.yaml: field best_before is declared twice/);
    expect(() => loadConfig({ FIELDS_FILE: join(dir, 'missing.yaml') })).toThrow(/FIELDS_FILE .* cannot be read: ENOENT/);
  });
});

describe.each([
  ['SQLite', async () => ({ srv: await startTestServer({ FIELDS_FILE }), schema: undefined as TestSchema | undefined })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { srv: await startTestServer({ DATABASE_URL: schema.url, FIELDS_FILE }), schema };
    },
  ],
])('custom fields on %s', (_store, start) => {
  let srv: TestServer;
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    ({ srv, schema } = await start());
    // Through the import, as the CLI does it (the CLI's own run is below).
    const { importRecords } = await import('../../src/records/index.js');
    const csv = [
      'kind,id,name,parent_id,field.best_before,field.quantity,field.serial,field.warranty_until',
      'item,milk,Whole milk,shelf-3,2026-12-01,2,,',
      'item,rice,Rice,shelf-3,2027-06-30,10,,',
      'item,drill-2,Drill,,,,DF-331-88412,2028-03-14',
    ].join('\n');
    expect(await importRecords(srv.store, csv, 'csv', { fields: srv.config.fields.fields })).toMatchObject({ imported: 3, errors: [] });
  });
  afterAll(async () => {
    await srv?.stop();
    await schema?.drop();
  });

  it('listFields gives the catalogue, read-only, with an ETag for a 304; labels:read suffices', async () => {
    const res = await call(srv, 'GET', '/v1/labelmaker/fields', { token: srv.tokens.read });
    expect(res.status).toBe(200);
    expect(schemaErrors(schemas.FieldCatalogue, res.json)).toBeUndefined();
    expect(res.json).toMatchObject({ source: 'config', writable: false });
    expect(res.json.fields[3]).toEqual({ name: 'quantity', title: 'Quantity', type: 'number', min: 0 });
    const again = await call(srv, 'GET', '/v1/labelmaker/fields', { token: srv.tokens.read, headers: { 'If-None-Match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
    expect((await call(srv, 'GET', '/v1/labelmaker/fields', { token: srv.tokens.printOnly })).status).toBe(403);
  });

  it('records show their values; the search finds by a date range, a number, a text; bad filters are 400s naming what is wrong', async () => {
    const ids = async (query: string) => {
      const res = await call(srv, 'GET', `/v1/labelmaker/records?${query}`, { token: srv.tokens.read });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(schemaErrors(schemas.RecordPage, res.json)).toBeUndefined();
      return res.json.records.map((r: { id: string }) => r.id);
    };
    const all = (await call(srv, 'GET', '/v1/labelmaker/records?kind=item&limit=50', { token: srv.tokens.read })).json.records;
    expect(all.find((r: { id: string }) => r.id === 'milk').fields).toEqual({ best_before: '2026-12-01', quantity: 2 });
    expect(all.find((r: { id: string }) => r.id === 'tape-measure').fields).toEqual({});
    expect(await ids('field=best_before&fieldTo=2026-12-31')).toEqual(['milk']);
    // By name, as every search: Rice, Whole milk.
    expect(await ids('field=best_before&fieldFrom=2026-12-01')).toEqual(['rice', 'milk']);
    expect(await ids('field=quantity&fieldFrom=3')).toEqual(['rice']);
    expect(await ids('field=quantity&fieldValue=2')).toEqual(['milk']);
    expect(await ids('field=serial&fieldValue=DF-331-88412')).toEqual(['drill-2']);
    expect(await ids('field=best_before&fieldTo=2026-12-31&q=milk&parent=shelf-3')).toEqual(['milk']);
    const problem = async (query: string) => {
      const res = await call(srv, 'GET', `/v1/labelmaker/records?${query}`, { token: srv.tokens.read });
      expect(res.status).toBe(400);
      return res.json.detail as string;
    };
    expect(await problem('field=colour&fieldValue=red')).toMatch(/no custom field is named colour \(declared: best_before, /);
    expect(await problem('field=best_before&fieldTo=01.12.2026')).toBe("query parameter fieldTo: '01.12.2026' is not an ISO date (YYYY-MM-DD) (best_before is a date field).");
    expect(await problem('field=quantity&fieldFrom=lots')).toMatch(/quantity is a number field/);
    expect(await problem('fieldValue=2')).toMatch(/need field/);
    expect(await problem('field=quantity')).toMatch(/field needs fieldValue/);
    expect(await problem('field=quantity&fieldFrom=5&fieldTo=1')).toMatch(/fieldFrom is after fieldTo/);
  });

  it('a template naming an unknown field is refused when saved (422 naming it); one naming declared fields draws their values', async () => {
    const bad = await call(srv, 'PUT', '/v1/labelmaker/templates/pantry-bad', {
      headers: { 'If-None-Match': '*' },
      body: { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: 'Best before {best_befor|date:short}' }] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ type: '/problems/invalid-template' });
    expect(bad.json.detail).toMatch(/^\/lines\/1\/text: unknown placeholder \{best_befor\}/);
    expect((await call(srv, 'GET', '/v1/labelmaker/templates/pantry-bad')).status).toBe(404);

    const body = { stock: 'brother-ql-62x29', locale: 'de-DE', lines: [{ field: 'name' }, { field: 'custom', text: 'MHD {best_before|date:medium}' }, { field: 'custom', text: '{quantity|number} Stück' }] };
    const saved = await call(srv, 'PUT', '/v1/labelmaker/templates/pantry', { headers: { 'If-None-Match': '*' }, body });
    expect(saved.status, JSON.stringify(saved.json)).toBe(201);
    expect(schemaErrors(schemas.LabelTemplate, saved.json)).toBeUndefined();
    expect(saved.json).toMatchObject({ locale: 'de-DE', lines: body.lines });

    const label = await call(srv, 'GET', '/v1/labelmaker/item/milk?template=pantry', { headers: { Accept: 'image/png' } });
    expect(label.status).toBe(200);
    expect(label.headers.get('label-warnings')).toBeNull();
    // The same record without the values: its field lines are left out (not drawn as "{best_before}").
    await srv.store.records.upsertMany([{ kind: 'item', id: 'milk-none', name: 'Whole milk', description: '', parentId: 'shelf-3', assetId: null }]);
    const plain = await call(srv, 'GET', '/v1/labelmaker/item/milk-none?template=pantry', { headers: { Accept: 'image/png' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('label-warnings')).toBeNull();
    // (What each line says, and at what size, is measured in test/labels/fields.test.ts.)
    expect(label.body.equals(plain.body)).toBe(false);
    expect(decodeMonoPng(plain.body).width).toBe(decodeMonoPng(label.body).width);
    // A changed value is a changed label: its ETag moves.
    const before = label.headers.get('etag');
    await srv.store.records.upsertMany([{ kind: 'item', id: 'milk', name: 'Whole milk', description: '', parentId: 'shelf-3', assetId: null, fields: { best_before: '2026-12-02', quantity: 2 } }]);
    const after = await call(srv, 'GET', '/v1/labelmaker/item/milk?template=pantry', { headers: { Accept: 'image/png' } });
    expect(after.headers.get('etag')).not.toBe(before);
  });
});

describe('labelmaker import with FIELDS_FILE (the real CLI)', () => {
  it('imports field values, and refuses a file whose values break the catalogue, naming row and field', async () => {
    const db = join(dir, 'cli.db');
    const env = { DATABASE_URL: `sqlite:${db}`, FIELDS_FILE };
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify([{ kind: 'item', id: 'tea', name: 'Tea', fields: { best_before: '2027-01-31', quantity: 3, manual: 'https://example.com/tea' } }]));
    const ok = await runCli(['import', good], env);
    expect(ok.code, ok.stderr).toBe(0);
    const badFile = join(dir, 'bad.csv');
    writeFileSync(badFile, 'kind,id,name,field.best_before,field.manual\nitem,tea,Tea,2027-13-01,\nitem,cup,Cup,,javascript:alert(1)\n');
    const bad = await runCli(['import', badFile], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr + bad.stdout).toContain("row 2: field best_before: '2027-13-01' is not an ISO date (YYYY-MM-DD)");
    expect(bad.stderr + bad.stdout).toContain("row 3: field manual: 'javascript:alert(1)' is not an http(s) URL");
    const { openStore } = await import('../../src/records/index.js');
    const store = await openStore(`sqlite:${db}`);
    try {
      expect((await store.records.getItem('tea'))!.fields).toEqual({ best_before: '2027-01-31', manual: 'https://example.com/tea', quantity: 3 });
      expect(await store.records.getItem('cup')).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
