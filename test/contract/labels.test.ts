/**
 * Contract tests: the real server (real SQLite file, real HTTP) against the spec.
 * Every operation and every documented error: status, content type, headers,
 * problem bodies validated by the spec's own Problem schema, PNGs decoded and
 * their codes scanned back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { PUBLIC_BASE, startTestServer, type TestServer } from '../helpers/server.js';
import { API_SCOPES, INTEGRATION_SCOPES } from '../../src/records/index.js';
import { documentedResponse, headerErrors, problemErrors, spec } from '../helpers/spec.js';
import { OPERATIONS } from './suite.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.stop();
});

const ACCEPT = 'image/png, application/problem+json';

async function get(path: string, opts: { token?: string | null; headers?: Record<string, string>; method?: string } = {}) {
  const headers: Record<string, string> = { Accept: ACCEPT, ...opts.headers };
  const token = opts.token === undefined ? srv.tokens.read : opts.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(srv.url + path, { method: opts.method ?? 'GET', headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { res, body };
}

/** Status documented for the operation, content type as documented, documented headers present. */
function expectDocumented(operationId: string, res: Response) {
  const doc = documentedResponse(operationId, res.status);
  expect(doc, `${operationId} does not document status ${res.status}`).toBeDefined();
  const type = res.headers.get('content-type')?.split(';')[0];
  if (doc.content) expect(Object.keys(doc.content)).toContain(type);
  for (const name of Object.keys(doc.headers ?? {})) {
    // Conditional headers: CORS only for allowed origins (CORS test), Print-Job only with print=true (printing tests),
    // Label-Warnings only when the label differs from what was asked (tested below).
    if (name === 'Access-Control-Allow-Origin' || name === 'Print-Job' || name === 'Print-Printer' || name === 'Label-Warnings') continue;
    expect(res.headers.get(name), `${operationId} ${res.status}: header ${name}`).not.toBeNull();
  }
}

function expectProblem(operationId: string, res: Response, body: Buffer, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = JSON.parse(body.toString('utf8'));
  expect(problemErrors(problem)).toBeUndefined();
  expect(problem.status).toBe(status);
  expect(problem.type).toBe(`/problems/${type}`);
  expect(problem.detail).toEqual(expect.any(String));
  expectDocumented(operationId, res);
  return problem;
}

const OPS = [
  { operationId: 'getLocationLabel', path: '/v1/labelmaker/location/shelf-3', url: `${PUBLIC_BASE}/location/shelf-3`, missing: '/v1/labelmaker/location/nowhere' },
  { operationId: 'getItemLabel', path: '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f', url: `${PUBLIC_BASE}/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f`, missing: '/v1/labelmaker/item/no-such-item' },
  { operationId: 'getAssetLabel', path: '/v1/labelmaker/assets/000-001', url: `${PUBLIC_BASE}/a/000-001`, missing: '/v1/labelmaker/assets/000-999' },
] as const;

describe('the spec', () => {
  // The operations themselves come from the spec (suite.ts OPERATIONS); what is checked here is the rule each one's security follows.
  it.each(OPERATIONS)('$operationId declares its security and scopes, by the rule its path follows', ({ path, op }) => {
    const scopes: string[] = op['x-required-scopes'];
    expect(Array.isArray(op.security)).toBe(true);
    expect(Array.isArray(scopes)).toBe(true);
    if (op.security.length > 0) {
      // An API token: the labelmaker API, its scopes from the API's own.
      expect(path).toMatch(/^\/v1\/labelmaker\//);
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      for (const scope of scopes) expect(API_SCOPES).toContain(scope);
    } else if (op['x-key-in-path']) {
      // An integration key in the path (`security: []` in OpenAPI terms: no header), integration scopes only.
      expect(path).toMatch(/^\/v1\/integrations\//);
      expect(op['x-key-in-path']).toBe('key');
      expect(scopes.length).toBeGreaterThan(0);
      for (const scope of scopes) expect(INTEGRATION_SCOPES).toContain(scope);
    } else {
      // Public: the operations endpoints, outside the API.
      expect(path).not.toMatch(/^\/v1\//);
      expect(scopes).toEqual([]);
    }
  });

  it('has every kind of operation: public ones, ones behind an API token, ones behind an integration key', () => {
    expect(OPERATIONS.filter(({ op }) => op.security.length === 0 && !op['x-key-in-path']).length).toBeGreaterThan(0);
    expect(OPERATIONS.filter(({ op }) => op.security.length > 0).length).toBeGreaterThan(0);
    expect(OPERATIONS.filter(({ op }) => op['x-key-in-path']).length).toBeGreaterThan(0);
  });
});

describe.each(OPS)('$operationId', ({ operationId, path, url, missing }) => {
  it('returns a PNG label whose QR code scans to the record URL', async () => {
    const { res, body } = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expectDocumented(operationId, res);
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('print-job')).toBeNull();
    const header = readPngHeader(body);
    const stock = getStock(srv.config.defaultTemplateName);
    expect([header.width, header.height]).toEqual([stock.widthDots, stock.lengthDots]);
    const codes = await decodeBarcodes(body);
    expect(codes.filter((c) => c.format === 'QRCode').map((c) => c.text)).toEqual([url]);
    if (operationId === 'getAssetLabel') {
      // The asset barcode where its 4-dot bars fit across the print head; else left out by the standard design's rule, which is no warning.
      const bars = codes.filter((c) => c.format === 'Code128').map((c) => c.text);
      if (bars.length > 0) expect(bars).toEqual(['000001']);
      else expect(res.headers.get('label-warnings')).toBeNull();
    }
  });

  it('treats print=false and an omitted print the same, and honours If-None-Match', async () => {
    const a = await get(path);
    const b = await get(`${path}?print=false`);
    expect(b.res.status).toBe(200);
    expect(b.body.equals(a.body)).toBe(true);
    const etag = a.res.headers.get('etag')!;
    const c = await get(path, { headers: { 'If-None-Match': etag } });
    expect(c.res.status).toBe(304);
    expect(c.body.length).toBe(0);
    expect(c.res.headers.get('etag')).toBe(etag);
    expectDocumented(operationId, c.res);
    const d = await get(path, { headers: { 'If-None-Match': '"something-else"' } });
    expect(d.res.status).toBe(200);
  });

  it('renders the requested template at its exact size', async () => {
    const { res, body } = await get(`${path}?template=zebra-2x1-203dpi`);
    expect(res.status).toBe(200);
    expect(readPngHeader(body)).toMatchObject({ width: 406, height: 203 });
  });

  it('400: invalid parameters', async () => {
    for (const bad of [`${path}?print=maybe`, `${path}?template=a4-sheet`]) {
      const { res, body } = await get(bad);
      expectProblem(operationId, res, body, 400, 'invalid-request');
    }
    const badId = operationId === 'getAssetLabel' ? '/v1/labelmaker/assets/12a' : path.replace(/[^/]+$/, 'bad%20id');
    const { res, body } = await get(badId);
    const problem = expectProblem(operationId, res, body, 400, 'invalid-request');
    expect(problem.detail).toMatch(/id/);
    const tooLong = await get(path.replace(/[^/]+$/, '1'.repeat(65)));
    expectProblem(operationId, tooLong.res, tooLong.body, 400, 'invalid-request');
  });

  it('401: missing, malformed, unknown and revoked tokens', async () => {
    const none = await get(path, { token: null });
    expectProblem(operationId, none.res, none.body, 401, 'unauthorized');
    expect(none.res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    for (const token of ['not-a-token', `lm_aaaaaaaa_${'A'.repeat(43)}`, srv.tokens.revoked]) {
      const { res, body } = await get(path, { token });
      expectProblem(operationId, res, body, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    }
    const basic = await get(path, { token: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expectProblem(operationId, basic.res, basic.body, 401, 'unauthorized');
  });

  it('401 comes before validation: no details for anonymous callers', async () => {
    const { res, body } = await get(`${path}?print=maybe`, { token: null });
    expectProblem(operationId, res, body, 401, 'unauthorized');
  });

  it('403: print needs labels:print, labels need labels:read', async () => {
    const printing = await get(`${path}?print=true`);
    const problem = expectProblem(operationId, printing.res, printing.body, 403, 'insufficient-scope');
    expect(problem.detail).toContain('labels:print');
    const printOnly = await get(path, { token: srv.tokens.printOnly });
    expectProblem(operationId, printOnly.res, printOnly.body, 403, 'insufficient-scope');
  });

  it('404: unknown record, never an empty label', async () => {
    const { res, body } = await get(missing);
    expectProblem(operationId, res, body, 404, 'not-found');
  });

  it('406: a client that accepts neither PNG nor problem+json', async () => {
    const { res, body } = await get(path, { headers: { Accept: 'application/json' } });
    expectProblem(operationId, res, body, 406, 'not-acceptable');
  });

  it('501: print=true when no printer is configured creates no job', async () => {
    const { res, body } = await get(`${path}?print=true`, { token: srv.tokens.print });
    expectProblem(operationId, res, body, 501, 'printing-not-configured');
    expect(res.headers.get('print-job')).toBeNull();
  });
});

describe('asset ids', () => {
  it('000-001, 000001 and 1 name the same asset', async () => {
    const bodies = await Promise.all(['000-001', '000001', '1'].map((id) => get(`/v1/labelmaker/assets/${id}`)));
    for (const { res } of bodies) expect(res.status).toBe(200);
    expect(bodies[1]!.body.equals(bodies[0]!.body)).toBe(true);
    expect(bodies[2]!.body.equals(bodies[0]!.body)).toBe(true);
  });

  it('asset 0 is a 404 and over 12 digits a 400', async () => {
    const zero = await get('/v1/labelmaker/assets/000-000');
    expectProblem('getAssetLabel', zero.res, zero.body, 404, 'not-found');
    const huge = await get('/v1/labelmaker/assets/1234567890123');
    expectProblem('getAssetLabel', huge.res, huge.body, 400, 'invalid-request');
  });

  it('an item in a non-Latin script gets its own label', async () => {
    const { res, body } = await get('/v1/labelmaker/assets/42?template=brother-ql-62x100');
    expect(res.status).toBe(200);
    const codes = await decodeBarcodes(body);
    expect(codes.map((c) => c.text).sort()).toEqual([`${PUBLIC_BASE}/a/000-042`, '000042'].sort());
  });
});

describe('routes outside the spec', () => {
  it('404 problem for an unknown path, 405 for a wrong method', async () => {
    const unknown = await get('/v1/labelmaker/shelf/1');
    expect(unknown.res.status).toBe(404);
    expect(unknown.res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problemErrors(JSON.parse(unknown.body.toString()))).toBeUndefined();
    const post = await get('/v1/labelmaker/item/loose-item', { method: 'POST' });
    expect(post.res.status).toBe(405);
    expect(post.res.headers.get('allow')).toBe('GET, HEAD');
    const post2 = await get('/v1/labelmaker/templates/asset-tags', { method: 'POST' });
    expect(post2.res.status).toBe(405);
    expect(post2.res.headers.get('allow')).toBe('GET, HEAD, PUT, DELETE');
    expect(problemErrors(JSON.parse(post.body.toString()))).toBeUndefined();
  });

  it('serves the spec and a health check', async () => {
    const yaml = await fetch(`${srv.url}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(await yaml.text()).toContain('operationId: getAssetLabel');
    const health = await fetch(`${srv.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toMatchObject({ status: 'ok', store: { state: 'ok', reads: true, writes: true } });
  });
});

describe('label stock, print jobs and headers', () => {
  it('every built-in template name is a valid, documented template value', async () => {
    const { BUILT_IN_TEMPLATE_NAMES } = await import('../../src/labels/index.js');
    const schema = spec.components.schemas.Template;
    for (const name of BUILT_IN_TEMPLATE_NAMES) {
      expect(name).toMatch(new RegExp(schema.pattern));
      expect(name.length).toBeLessThanOrEqual(schema.maxLength);
      expect(schema.description, name).toContain(`\`${name}\``);
    }
  });

  it('a 12-digit asset id prints as Code 128 set C where it fits, and as the title with its QR code on 2 x 1 in stock', async () => {
    await srv.store.records.upsertMany([{ kind: 'item', id: 'big-asset', name: 'Big', description: '', parentId: null, assetId: 999_999_999_999 }]);
    const large = await get('/v1/labelmaker/assets/999-999-999-999?template=brother-ql-62x100');
    expect(large.res.status).toBe(200);
    expect((await decodeBarcodes(large.body)).map((c) => c.text)).toContain('999999999999');
    const { res, body } = await get('/v1/labelmaker/assets/999-999-999-999?template=zebra-2x1-203dpi');
    expect(res.status).toBe(200);
    expect((await decodeBarcodes(body)).map((c) => c.text)).toEqual([`${PUBLIC_BASE}/a/999-999-999-999`]);
    expect(res.headers.get('label-warnings')).toBeNull();
  });

  it('400, not 500, when the record\'s 2D code does not fit the chosen stock (a 64-character id on 17 mm tape)', async () => {
    const id = 'Garage-Shelf-3.Bin-12.Drawer-4.Left-Tray.M3-Screws-and-Nuts.2026';
    await srv.store.records.upsertMany([{ kind: 'item', id, name: 'Screws', description: '', parentId: null, assetId: null }]);
    const { res, body } = await get(`/v1/labelmaker/item/${id}?template=brother-ql-17x54`);
    const problem = expectProblem('getItemLabel', res, body, 400, 'invalid-request');
    expect(problem.detail).toBe('the DataMatrix does not fit brother-ql-17x54; choose a larger template.');
    expect((await get(`/v1/labelmaker/item/${id}?template=brother-ql-62x29`)).res.status).toBe(200);
  });

  it('a character no bundled font has is named in the documented Label-Warnings header', async () => {
    const id = 'x'.repeat(64);
    await srv.store.records.upsertMany([{ kind: 'item', id, name: 'Box 𐐷', description: '', parentId: null, assetId: null }]);
    const ok = await get(`/v1/labelmaker/item/${id}?template=brother-ql-62x29`);
    expect(ok.res.status).toBe(200);
    expect(ok.res.headers.get('label-warnings')).toBe('missing-glyphs=U+10437');
  });

  it('a name shortened to fit is said in Label-Warnings (text-shortened), a name printed whole is not', async () => {
    await srv.store.records.upsertMany([{ kind: 'item', id: 'long-name', name: 'Heavy-duty cordless hammer drill with two batteries', description: '', parentId: 'shelf-3', assetId: null }]);
    const doc = documentedResponse('getItemLabel', 200).headers['Label-Warnings'];
    // 23 mm square: "Heavy-…" at 7 pt; on 62 x 100 mm the whole name fits.
    const cut = await get('/v1/labelmaker/item/long-name?template=brother-ql-23x23');
    expect(cut.res.status).toBe(200);
    expect(cut.res.headers.get('label-warnings')).toBe('text-shortened');
    expect(headerErrors(doc, cut.res.headers.get('label-warnings')!)).toBeUndefined();
    const whole = await get('/v1/labelmaker/item/long-name?template=brother-ql-62x100');
    expect(whole.res.headers.get('label-warnings')).toBeNull();
  });

  it('400 for a malformed Idempotency-Key', async () => {
    for (const key of ['has space', 'x'.repeat(256)]) {
      const { res, body } = await get('/v1/labelmaker/item/loose-item?print=true', { token: srv.tokens.print, headers: { 'Idempotency-Key': key } });
      expectProblem('getItemLabel', res, body, 400, 'invalid-request');
    }
  });
});
