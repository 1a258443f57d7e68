/**
 * The printer fleet from the client's side of the wire (issue 31, printers as data), on a
 * real server over a real SQLite file and a real PostgreSQL schema: who sees what (a print
 * token sees printers but never their device URIs, printers:admin sees them, labels:read
 * alone gets a 403), conditional writes with ETags, the checks that name the field (422),
 * the configuration's printer `default` (PRINTER_URI) read-only, exactly one default, a
 * printer with waiting jobs kept, and a status reading shown as the spec says.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { documentedResponse, headerErrors, problemErrors, schemaErrors } from '../helpers/spec.js';
import { createTestSchema, type TestSchema } from '../records/pg-test-db.js';

const PRINTERS = '/v1/labelmaker/printers';
const SPOOL = 'file:///tmp/lm-printers-api-spool';
const body = (extra: Record<string, unknown> = {}) => ({ title: 'Workbench QL-820', deviceUri: 'socket://192.0.2.20:9100?lang=brother-ql&model=QL-820NWB', model: 'QL-820NWB', stocks: ['brother-ql-62x29', 'brother-ql-62'], ...extra });

interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One call; every answer is checked against what the spec documents for the operation and status. */
async function call(srv: TestServer, operationId: string, method: string, path: string, token: string | null, opts: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json', ...opts.headers };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(srv.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  const doc = documentedResponse(operationId, res.status);
  expect(doc, `${operationId} does not document ${res.status}: ${text}`).toBeDefined();
  const type = res.headers.get('content-type');
  if (type === 'application/problem+json') expect(problemErrors(json), text).toBeUndefined();
  else if (json !== undefined) expect(schemaErrors(doc.content['application/json'].schema, json), text).toBeUndefined();
  for (const [name, spec] of Object.entries<Record<string, unknown>>(doc.headers ?? {})) {
    if (name === 'Access-Control-Allow-Origin') continue;
    const value = res.headers.get(name);
    expect(value, `${operationId} ${res.status}: header ${name}`).not.toBeNull();
    expect(headerErrors(spec, value!)).toBeUndefined();
  }
  return { status: res.status, headers: res.headers, json };
}

describe.each([
  ['SQLite', async () => ({ srv: await startTestServer({ PRINTER_URI: SPOOL, PRINTER_NAME: 'Front desk' }), schema: undefined as TestSchema | undefined })],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema();
      return { srv: await startTestServer({ DATABASE_URL: schema.url, PRINTER_URI: SPOOL, PRINTER_NAME: 'Front desk' }), schema };
    },
  ],
])('printers on %s', (_store, start) => {
  let srv: TestServer;
  let schema: TestSchema | undefined;
  beforeAll(async () => {
    ({ srv, schema } = await start());
  });
  afterAll(async () => {
    await srv?.stop();
    await schema?.drop();
  });
  const fresh = () => `${PRINTERS}/t-${randomUUID().slice(0, 8)}`;
  const put = (path: string, b: unknown, headers: Record<string, string> = {}, token = srv.tokens.admin) => call(srv, 'putPrinter', 'PUT', path, token, { body: b, headers });
  const list = async (token = srv.tokens.print) => {
    const res = await call(srv, 'listPrinters', 'GET', PRINTERS, token);
    expect(res.status).toBe(200);
    return res.json.printers as Record<string, unknown>[];
  };

  it("PRINTER_URI is the printer `default`, from the configuration; a print token sees it without its device URI, printers:admin with it, labels:read not at all", async () => {
    const listed = await list();
    // The status poller reads it at start: a folder cannot tell, so unknown (or not read yet).
    for (const p of listed) if (p.status) expect(p.status).toMatchObject({ state: 'unknown', reasons: [], media: null });
    const seen = listed.map(({ status: _status, ...p }) => p);
    expect(seen).toEqual([
      { name: 'default', title: 'Front desk', model: null, locationId: null, stocks: [], red: false, default: true, source: 'config', createdAt: expect.any(String), updatedAt: expect.any(String) },
    ]);
    expect((await list(srv.tokens.admin))[0]).toMatchObject({ name: 'default', deviceUri: SPOOL });
    const one = await call(srv, 'getPrinter', 'GET', `${PRINTERS}/default`, srv.tokens.print);
    expect(one.status).toBe(200);
    expect(one.json).not.toHaveProperty('deviceUri');
    expect(one.headers.get('cache-control')).toBe('no-store');
    expect((await call(srv, 'getPrinter', 'GET', `${PRINTERS}/default`, srv.tokens.admin)).json.deviceUri).toBe(SPOOL);
    for (const [op, method, path] of [['listPrinters', 'GET', PRINTERS], ['getPrinter', 'GET', `${PRINTERS}/default`]] as const) {
      const refused = await call(srv, op, method, path, srv.tokens.read);
      expect([refused.status, refused.json.type]).toEqual([403, '/problems/insufficient-scope']);
      expect(refused.json.detail).toContain('labels:print');
    }
    // Changing printers needs printers:admin, which neither a print token nor a template editor has.
    for (const token of [srv.tokens.print, srv.tokens.editor]) {
      const refused = await put(fresh(), body(), {}, token);
      expect([refused.status, refused.json.detail]).toEqual([403, "This request needs the scope 'printers:admin'."]);
      expect((await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/default`, token)).status).toBe(403);
    }
    // The configuration's printers are read-only here, even for an admin.
    for (const res of [await put(`${PRINTERS}/default`, body()), await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/default`, srv.tokens.admin)]) {
      expect([res.status, res.json.type]).toEqual([409, '/problems/printer-from-config']);
    }
  });

  it('creates only with If-None-Match: *, replaces only at the ETag read, deletes only at it; every change a new ETag', async () => {
    const path = fresh();
    const created = await put(path, body({ locationId: 'shelf-3', red: true }), { 'If-None-Match': '*' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(path);
    expect(created.json).toMatchObject({ title: 'Workbench QL-820', deviceUri: body().deviceUri, model: 'QL-820NWB', locationId: 'shelf-3', stocks: ['brother-ql-62x29', 'brother-ql-62'], red: true, default: false, source: 'api' });
    const etag = created.headers.get('etag')!;
    const read = await call(srv, 'getPrinter', 'GET', path, srv.tokens.print);
    expect(read.headers.get('etag')).toBe(etag);
    expect(read.json).toEqual({ ...created.json, deviceUri: undefined });

    const taken = await put(path, body(), { 'If-None-Match': '*' });
    expect([taken.status, taken.json.type]).toEqual([412, '/problems/precondition-failed']);
    const stale = await put(path, body({ title: 'Stale' }), { 'If-Match': '"stale"' });
    expect([stale.status, stale.json.detail]).toEqual([412, `The printer ${path.split('/').pop()} changed since your If-Match (its ETag is now ${etag}); read it again and reapply your change.`]);
    const both = await put(path, body(), { 'If-Match': etag, 'If-None-Match': '*' });
    expect(both.status).toBe(400);
    const replaced = await put(path, body({ title: 'Bench' }), { 'If-Match': etag });
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ title: 'Bench', locationId: null, red: false, createdAt: created.json.createdAt });
    const etag2 = replaced.headers.get('etag')!;
    expect(etag2).not.toBe(etag);
    // No condition: the last writer wins (an admin's tool, curl).
    const again = await put(path, body({ title: 'Bench 2' }));
    expect(again.status).toBe(200);
    const etag3 = again.headers.get('etag')!;

    expect((await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin, { headers: { 'If-Match': etag2 } })).status).toBe(412);
    expect((await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin, { headers: { 'If-Match': etag3 } })).status).toBe(204);
    expect((await call(srv, 'getPrinter', 'GET', path, srv.tokens.print)).status).toBe(404);
    expect((await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin)).status).toBe(404);
    const gone = await put(path, body(), { 'If-Match': etag3 });
    expect([gone.status, gone.json.detail]).toEqual([412, `No printer named ${path.split('/').pop()} exists (it may have been deleted); create it with If-None-Match: *.`]);
    // Without a condition it is created anew.
    expect((await put(path, body())).status).toBe(201);
    expect((await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin)).status).toBe(204);
  });

  it('refuses what no driver, location or stock answers to with a 422 naming the field; malformed requests with a 400', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ deviceUri: 'socket://192.0.2.20:9100' }, '/deviceUri: invalid printer URI "socket://192.0.2.20:9100": add ?lang=zpl or ?lang=brother-ql (got none)'],
      [{ deviceUri: 'ipp://admin:hunter2@192.0.2.30' }, ''], // valid: checked below
      [{ deviceUri: 'command:' }, '/deviceUri: invalid printer URI "command:": command: needs an argument vector'],
      [{ deviceUri: 'socket://192.0.2.20:9100?lang=brother-ql&model=QL-9' }, '/deviceUri: invalid printer URI'],
      [{ deviceUri: 'gopher://printer' }, '/deviceUri: invalid printer URI "gopher://printer": unsupported scheme gopher:'],
      [{ locationId: 'nowhere' }, '/locationId: no location has the id nowhere.'],
      [{ locationId: 'tape-measure' }, '/locationId: no location has the id tape-measure.'], // an item, not a location
      [{ stocks: ['brother-ql-62', 'brother-dk-11209'] }, '/stocks/1: brother-dk-11209 is not a canonical stock name (it is an alias of brother-ql-62x29); use brother-ql-62x29.'],
      [{ stocks: ['a4-sheet'] }, '/stocks/0: no label stock is named a4-sheet; the stocks are brother-ql-62x29, brother-ql-62x100, '],
    ];
    for (const [extra, detail] of cases) {
      const path = fresh();
      const res = await put(path, body(extra));
      if (!detail) {
        expect(res.status).toBe(201);
        // The password is the admin's to see; never anyone else's.
        expect(res.json.deviceUri).toBe('ipp://admin:hunter2@192.0.2.30');
        expect(JSON.stringify(await list())).not.toContain('hunter2');
        await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin);
        continue;
      }
      expect([res.status, res.json.type], JSON.stringify(extra)).toEqual([422, '/problems/invalid-printer']);
      expect(res.json.detail).toContain(detail);
      expect((await call(srv, 'getPrinter', 'GET', path, srv.tokens.admin)).status).toBe(404); // nothing saved
    }
    const bad: [string, unknown, RegExp][] = [
      [`${PRINTERS}/Workbench`, body(), /^path parameter name: /],
      [`${PRINTERS}/${'a'.repeat(41)}`, body(), /^path parameter name: /],
      [fresh(), body({ colour: 'red' }), /^body \/: must NOT have additional properties \(colour\)/],
      [fresh(), { title: 'No URI' }, /^body \/: must have required property 'deviceUri'/],
      [fresh(), body({ title: ' ' }), /^body \/title: /],
      [fresh(), body({ stocks: ['brother-ql-62', 'brother-ql-62'] }), /^body \/stocks: /],
    ];
    for (const [path, b, detail] of bad) {
      const res = await put(path, b);
      expect([res.status, res.json.type]).toEqual([400, '/problems/invalid-request']);
      expect(res.json.detail).toMatch(detail);
    }
  });

  it('exactly one default: default: true moves it (in one step), false keeps it, a delete hands it to the oldest printer left', async () => {
    const defaults = async () => (await list()).filter((p) => p.default).map((p) => p.name);
    expect(await defaults()).toEqual(['default']);
    const a = `d-${randomUUID().slice(0, 6)}`;
    const b = `e-${randomUUID().slice(0, 6)}`;
    expect((await put(`${PRINTERS}/${a}`, body({ default: true }))).json.default).toBe(true);
    expect(await defaults()).toEqual([a]);
    expect((await put(`${PRINTERS}/${b}`, body())).json.default).toBe(false);
    // false on the default printer leaves it the default: there is always one.
    expect((await put(`${PRINTERS}/${a}`, body({ default: false }))).json.default).toBe(true);
    expect((await put(`${PRINTERS}/${b}`, body({ default: true }))).json.default).toBe(true);
    expect(await defaults()).toEqual([b]);
    // The default goes: the oldest printer left (PRINTER_URI's, made at start) takes it.
    expect((await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/${b}`, srv.tokens.admin)).status).toBe(204);
    expect(await defaults()).toEqual(['default']);
    await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/${a}`, srv.tokens.admin);
  });

  it('a printer that jobs wait for is kept (409 printer-has-jobs); once they are done it can go', async () => {
    const name = `jobs-${randomUUID().slice(0, 6)}`;
    await put(`${PRINTERS}/${name}`, body());
    // A job for it, held by this test as a worker holds one. The server's worker (PRINTER_URI's printer) may
    // take a job stored this way first: then it is printed, and the test tries with another.
    let held: string | undefined;
    for (let tries = 0; tries < 5 && !held; tries++) {
      const id = randomUUID();
      await srv.store.printJobs.submit({ id, printer: name, template: 'brother-ql-62x29', title: 'held', fields: {}, tokenId: 'test', idempotencyKey: null, maxAttempts: 1, png: Buffer.from('x') }, '2000-01-01T00:00:00.000Z');
      const claimed = await srv.store.printJobs.claim('printers-test', 60_000);
      if (claimed?.id === id) held = id;
      else if (claimed) await srv.store.printJobs.markRetry(claimed.id, 'printers-test', 'handed back', new Date().toISOString());
    }
    expect(held).toBeDefined();
    const refused = await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/${name}`, srv.tokens.admin);
    expect([refused.status, refused.json.type, refused.json.detail]).toEqual([409, '/problems/printer-has-jobs', `1 print job still waits for ${name}: let it print or cancel it first.`]);
    expect((await call(srv, 'getPrinter', 'GET', `${PRINTERS}/${name}`, srv.tokens.print)).status).toBe(200);
    await srv.store.printJobs.markPrinted(held!, 'printers-test');
    expect((await call(srv, 'deletePrinter', 'DELETE', `${PRINTERS}/${name}`, srv.tokens.admin)).status).toBe(204);
  });

  it("shows a printer's last status reading (written by the poller) as the spec's PrinterStatus, without changing its ETag", async () => {
    const path = fresh();
    const name = path.split('/').pop()!;
    const etag = (await put(path, body())).headers.get('etag');
    const reading = {
      state: 'attention',
      reasons: ['media-empty'],
      message: 'Out of labels (62 mm roll, DK-22205).',
      media: { description: '62mm continuous', widthMm: 62, lengthMm: 0, red: false, stocks: ['brother-ql-62'] },
      checkedAt: new Date().toISOString(),
    };
    expect(await srv.store.printers.saveStatus(name, reading)).toBe(true);
    const read = await call(srv, 'getPrinter', 'GET', path, srv.tokens.print);
    expect(read.json.status).toEqual(reading);
    expect(read.headers.get('etag')).toBe(etag);
    expect((await list()).find((p) => p.name === name)?.status).toEqual(reading);
    await call(srv, 'deletePrinter', 'DELETE', path, srv.tokens.admin);
  });
});
