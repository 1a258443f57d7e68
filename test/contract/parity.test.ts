/**
 * The mock answers like the server: the same invalid, malformed, unauthenticated
 * and out-of-spec requests go to both, and their status, media type and problem
 * `type` must match. (Valid requests differ only in data: the mock's examples
 * against the server's records; the contract suite covers those.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import type { TestServer } from '../helpers/server.js';
import { rawRequest } from '../helpers/raw-http.js';
import { problemErrors } from '../helpers/spec.js';
import { startContractServer } from './targets.js';
import { createToken } from '../../src/commands.js';
import { ALL_SCOPES } from '../../src/records/index.js';

let srv: TestServer;
let mock: RunningMock;
/** Every scope, so a probe is refused for what it sends, not for the token. */
let token: string;
beforeAll(async () => {
  [srv, mock] = await Promise.all([startContractServer(), startMock()]);
  token = (await createToken(srv.store, 'parity', [...ALL_SCOPES])).token;
});
afterAll(async () => {
  await Promise.all([mock?.close(), srv?.stop()]);
});

const ACCEPT = 'image/png, application/json, application/problem+json';

interface Probe {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** No Authorization header. */
  anonymous?: boolean;
  /** Sent over a raw socket: fetch() would refuse or normalise it. */
  raw?: boolean;
  /** The status both must give (checked as well as equality). */
  status: number;
  body?: string;
}

const T = '/v1/labelmaker/templates';
const JSON_TYPE = { 'Content-Type': 'application/json' };
const CREATE = { ...JSON_TYPE, 'If-None-Match': '*' };
const VALID = JSON.stringify({ stock: 'brother-ql-62x29' });
const svgLogo = (svg: string) => JSON.stringify({ stock: 'brother-ql-62x29', logo: { image: Buffer.from(svg).toString('base64'), heightMm: 5 } });

// Record ids that exist on the server, so a valid request is a 200 on both.
const PROBES: Probe[] = [
  { name: 'invalid location id', path: '/v1/labelmaker/location/bad%20id', status: 400 },
  { name: 'invalid item id (slash)', path: '/v1/labelmaker/item/a%2Fb', status: 400 },
  { name: 'invalid asset id', path: '/v1/labelmaker/assets/12a', status: 400 },
  { name: 'id over 64 characters', path: `/v1/labelmaker/item/${'x'.repeat(65)}`, status: 400 },
  { name: 'unknown template', path: '/v1/labelmaker/location/shelf-3?template=a4-sheet', status: 400 },
  { name: 'print=maybe', path: '/v1/labelmaker/item/tape-measure?print=maybe', status: 400 },
  { name: 'print given twice', path: '/v1/labelmaker/item/tape-measure?print=true&print=false', status: 400 },
  { name: 'invalid print-job id', path: '/v1/labelmaker/print-jobs/not-a-uuid', status: 400 },
  { name: 'records: limit=0', path: '/v1/labelmaker/records?limit=0', status: 400 },
  { name: 'records: limit=abc', path: '/v1/labelmaker/records?limit=abc', status: 400 },
  { name: 'records: unknown kind', path: '/v1/labelmaker/records?kind=bin', status: 400 },
  { name: 'records: malformed cursor', path: '/v1/labelmaker/records?cursor=a%20b', status: 400 },
  { name: 'records: control character in q', path: '/v1/labelmaker/records?q=%07', status: 400 },
  { name: 'unknown query parameter (cache-buster) on a label', path: '/v1/labelmaker/location/shelf-3?_=1700000000', status: 200 },
  { name: 'unknown query parameter on records', path: '/v1/labelmaker/records?utm_source=x&q=drill', status: 200 },
  { name: 'HEAD on a label', method: 'HEAD', path: '/v1/labelmaker/item/tape-measure', status: 200 },
  { name: 'HEAD on records', method: 'HEAD', path: '/v1/labelmaker/records', status: 200 },
  { name: 'HEAD with print=true (HEAD never prints)', method: 'HEAD', path: '/v1/labelmaker/item/tape-measure?print=true', status: 400 },
  { name: 'no credentials', path: '/v1/labelmaker/assets/000-001', anonymous: true, status: 401 },
  { name: 'no credentials but invalid too (401 first)', path: '/v1/labelmaker/assets/12a', anonymous: true, status: 401 },
  { name: 'token in the query string', path: '/v1/labelmaker/assets/000-001?access_token=lm_abcdefgh_x', anonymous: true, status: 401 },
  { name: 'Basic credentials', path: '/v1/labelmaker/assets/000-001', anonymous: true, headers: { Authorization: 'Basic dXNlcjpwYXNz' }, status: 401 },
  { name: 'unknown path', path: '/v1/labelmaker/shelf/1', status: 404 },
  { name: 'trailing slash', path: '/v1/labelmaker/item/tape-measure/', status: 404 },
  { name: 'POST on a label', method: 'POST', path: '/v1/labelmaker/item/tape-measure', status: 405 },
  { name: 'DELETE on records', method: 'DELETE', path: '/v1/labelmaker/records', status: 405 },
  { name: 'Accept: image/jpeg', path: '/v1/labelmaker/item/tape-measure', headers: { Accept: 'image/jpeg' }, status: 406 },
  { name: 'Accept: image/png on records', path: '/v1/labelmaker/records', headers: { Accept: 'image/png' }, status: 406 },
  { name: 'malformed percent-escape in the path (not UTF-8)', path: '/v1/labelmaker/item/%E2%82', raw: true, status: 400 },
  { name: 'lone % in the path', path: '/v1/labelmaker/item/%', raw: true, status: 400 },
  { name: 'malformed percent-escape in the query', path: '/v1/labelmaker/records?q=%ZZ', raw: true, status: 400 },
  { name: 'headers over 16 KiB', path: '/v1/labelmaker/records', headers: { 'X-Padding': 'x'.repeat(17 * 1024) }, status: 431 },
  { name: 'a header with a raw control character', path: '/v1/labelmaker/records', raw: true, headers: { 'X-Bad': 'a\u0001b' }, status: 400 },
  // Saved templates: everything the server refuses without looking at its database, the mock refuses alike.
  { name: 'template name with upper case', path: `${T}/Asset-Tags`, status: 400 },
  { name: 'template name over 64 characters', path: `${T}/${'t'.repeat(65)}`, status: 400 },
  { name: 'PUT without If-Match or If-None-Match', method: 'PUT', path: `${T}/shelf-tags`, headers: JSON_TYPE, body: VALID, status: 428 },
  { name: 'DELETE without If-Match', method: 'DELETE', path: `${T}/shelf-tags`, status: 428 },
  { name: 'PUT with If-Match and If-None-Match', method: 'PUT', path: `${T}/shelf-tags`, headers: { ...CREATE, 'If-Match': '"x"' }, body: VALID, status: 400 },
  { name: 'If-None-Match other than * on PUT', method: 'PUT', path: `${T}/shelf-tags`, headers: { ...JSON_TYPE, 'If-None-Match': '"x"' }, body: VALID, status: 400 },
  { name: 'PUT on a built-in template name', method: 'PUT', path: `${T}/brother-dk-11209`, headers: CREATE, body: VALID, status: 409 },
  { name: 'body not JSON', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: '{"stock":', status: 400 },
  { name: 'no body', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: '', status: 400 },
  { name: 'body not application/json', method: 'PUT', path: `${T}/shelf-tags`, headers: { 'Content-Type': 'text/plain', 'If-None-Match': '*' }, body: VALID, status: 415 },
  { name: 'body over 600 KiB', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', footer: 'x'.repeat(700 * 1024) }), status: 413 },
  { name: 'unknown member in the body', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', colour: 'red' }), status: 400 },
  { name: 'wrong type in the body', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', textPt: { min: '7', max: 36 } }), status: 400 },
  { name: 'too many lines', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', lines: Array(7).fill({ field: 'name' }) }), status: 400 },
  { name: 'logo not base64', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', logo: { image: '***', heightMm: 5 } }), status: 400 },
  { name: 'unknown stock', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'avery-5160' }), status: 422 },
  { name: 'custom line without text', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-62x29', lines: [{ field: 'custom' }] }), status: 422 },
  { name: 'min text size too large for the stock', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: JSON.stringify({ stock: 'brother-ql-17x54', textPt: { min: 40, max: 60 } }), status: 422 },
  { name: 'SVG logo with an external image', method: 'PUT', path: `${T}/shelf-tags`, headers: CREATE, body: svgLogo('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><image href="http://127.0.0.1:9/x.png"/></svg>'), status: 422 },
  { name: 'PUT by an anonymous client', method: 'PUT', path: `${T}/shelf-tags`, anonymous: true, headers: CREATE, body: VALID, status: 401 },
  { name: 'POST on a template', method: 'POST', path: `${T}/shelf-tags`, status: 405 },
  { name: 'PUT on the template list', method: 'PUT', path: T, headers: CREATE, body: VALID, status: 405 },
  { name: 'Accept: image/png on a template', path: `${T}/shelf-tags`, headers: { Accept: 'image/png' }, status: 406 },
];

async function send(base: string, token: string, p: Probe): Promise<{ status: number; type: string | undefined; problemType?: string; body: string }> {
  const headers: Record<string, string> = { Accept: ACCEPT, ...(p.anonymous ? {} : { Authorization: `Bearer ${token}` }), ...p.headers };
  if (p.raw) {
    const head = [`${p.method ?? 'GET'} ${p.path} HTTP/1.1`, `Host: ${new URL(base).host}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
    const res = await rawRequest(base, head);
    return summarize(res.status, res.headers['content-type'], res.body.toString('utf8'));
  }
  const res = await fetch(base + p.path, { method: p.method ?? 'GET', headers, body: p.body });
  return summarize(res.status, res.headers.get('content-type') ?? undefined, await res.text());
}

function summarize(status: number, contentType: string | undefined, body: string) {
  const type = contentType?.split(';')[0]?.trim();
  // HEAD answers carry the problem's headers without its body.
  if (type !== 'application/problem+json' || body === '') return { status, type, body: body.slice(0, 200) };
  const problem = JSON.parse(body);
  expect(problemErrors(problem), body).toBeUndefined();
  expect(problem.status).toBe(status);
  return { status, type, problemType: problem.type as string, body: body.slice(0, 200) };
}

describe('the mock answers invalid and malformed requests exactly as the server does', () => {
  it.each(PROBES)('$name', async (p) => {
    const [server, mocked] = await Promise.all([send(srv.url, token, p), send(mock.url, 'any-token-will-do', p)]);
    expect(server.status, server.body).toBe(p.status);
    expect({ status: mocked.status, type: mocked.type, problemType: mocked.problemType }, mocked.body).toEqual({
      status: server.status,
      type: server.type,
      problemType: server.problemType,
    });
  });

  it('a saved template name is accepted where template is, an unknown one refused, on both', async () => {
    // The server knows the template once saved; the mock knows the templates its examples show.
    const saved = await fetch(`${srv.url}${T}/asset-tags`, { method: 'PUT', headers: { Authorization: `Bearer ${srv.tokens.editor}`, ...CREATE }, body: VALID });
    expect(saved.status).toBe(201);
    for (const base of [srv.url, mock.url]) {
      const ok = await fetch(`${base}/v1/labelmaker/location/shelf-3?template=asset-tags`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Accept: ACCEPT } });
      expect(ok.status, base).toBe(200);
      const unknown = await fetch(`${base}/v1/labelmaker/location/shelf-3?template=no-such-design`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Accept: ACCEPT } });
      expect(unknown.status).toBe(400);
      expect((await unknown.json()).detail).toMatch(/^query parameter template: no template is named no-such-design/);
    }
  });

  it('names the field of the body that is wrong, on both', async () => {
    for (const base of [srv.url, mock.url]) {
      const res = await fetch(`${base}${T}/shelf-tags`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${srv.tokens.editor}`, Accept: ACCEPT, ...CREATE },
        body: JSON.stringify({ stock: 'brother-ql-62x29', lines: [{ field: 'title' }] }),
      });
      expect((await res.json()).detail, base).toMatch(/^body \/lines\/0\/field: /);
    }
  });

  it('names the parameter that is wrong, on both', async () => {
    for (const base of [srv.url, mock.url]) {
      const res = await fetch(`${base}/v1/labelmaker/location/shelf-3?template=a4-sheet`, { headers: { Authorization: `Bearer ${srv.tokens.read}`, Accept: ACCEPT } });
      expect((await res.json()).detail).toMatch(/query parameter template/);
    }
  });
});

describe('CORS from a page on any origin', () => {
  it('the mock answers a preflight from any origin with 204 and the headers a page needs', async () => {
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8081', 'null']) {
      const res = await fetch(`${mock.url}/v1/labelmaker/assets/000-001`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization, prefer' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('prefer');
    }
  });

  it('the mock never sends the spec example origin', async () => {
    const res = await fetch(`${mock.url}/v1/labelmaker/records`, { headers: { Authorization: 'Bearer x', Origin: 'http://localhost:3000' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toMatch(/ETag.*Print-Job.*RateLimit-Limit.*Retry-After/);
  });
});
