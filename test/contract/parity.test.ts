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

const ACCEPT = 'image/png, application/pdf, application/json, application/problem+json';

interface Probe {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** No Authorization header. */
  anonymous?: boolean;
  /** Sent over a raw socket: fetch() would refuse or normalise it. */
  raw?: boolean;
  /** A request body: a string is sent as is (with the probe's headers); anything else as JSON. */
  body?: unknown;
  /** A body of another media type. */
  rawBody?: { type: string; data: string };
  /** The status both must give (checked as well as equality). */
  status: number;
}

const T = '/v1/labelmaker/templates';
const JSON_TYPE = { 'Content-Type': 'application/json' };
const CREATE = { ...JSON_TYPE, 'If-None-Match': '*' };
const VALID = JSON.stringify({ stock: 'brother-ql-62x29' });
const SHEETS = '/v1/labelmaker/sheets';
const CALIBRATIONS = '/v1/labelmaker/sheet-calibrations';
const PRINTERS = '/v1/labelmaker/printers';
/** A valid printer body; `extra` members override. */
const printer = (extra: Record<string, unknown>) => ({ title: 'Parity printer', deviceUri: 'file:///tmp/lm-parity-printer', stocks: ['brother-ql-62x29'], ...extra });
const HB = '/v1/integrations/homebox';
/** A well-shaped integration key (the server refuses it as unknown only after the checks probed here). */
const KEY = `lm_abcdefgh_${'A'.repeat(43)}`;
const BATCHES = '/v1/labelmaker/print-jobs';
const batch = (body: Record<string, unknown>) => ({ selection: { records: [{ kind: 'item', id: 'tape-measure' }] }, ...body });
const PREVIEW = '/v1/labelmaker/template-previews';
/** A design on a record the server has (the mock draws any record); `design` members override the defaults. */
const preview = (design: Record<string, unknown>) => ({ design: { stock: 'brother-ql-62x29', lines: [{ field: 'name' }, { field: 'custom', text: '{kind} {id}' }], ...design }, record: { kind: 'item', id: 'tape-measure' } });
const sheet = (body: Record<string, unknown>) => ({ sheet: 'avery-l7160', selection: { records: [{ kind: 'location', id: 'shelf-3' }] }, ...body });

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
  { name: 'stocks: a percent-escape that is not UTF-8', path: '/v1/labelmaker/stocks?x=%FF', status: 400 },
  { name: 'stocks: unknown query parameter (cache-buster)', path: '/v1/labelmaker/stocks?_=1700000000', status: 200 },
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
  { name: 'sheets: a valid request', method: 'POST', path: SHEETS, body: sheet({}), status: 200 },
  { name: 'sheets: unknown sheet product', method: 'POST', path: SHEETS, body: sheet({ sheet: 'avery-l9999' }), status: 400 },
  { name: 'sheets: unknown member', method: 'POST', path: SHEETS, body: sheet({ colour: 'red' }), status: 400 },
  { name: 'sheets: copies 0', method: 'POST', path: SHEETS, body: sheet({ copies: 0 }), status: 400 },
  { name: 'sheets: startAt 0', method: 'POST', path: SHEETS, body: sheet({ startAt: 0 }), status: 400 },
  { name: 'sheets: empty record list', method: 'POST', path: SHEETS, body: sheet({ selection: { records: [] } }), status: 400 },
  { name: 'sheets: two kinds of selection at once', method: 'POST', path: SHEETS, body: sheet({ selection: { location: 'garage', assetIdFrom: '1', assetIdTo: '2' } }), status: 400 },
  { name: 'sheets: more than 1000 records', method: 'POST', path: SHEETS, body: sheet({ selection: { records: Array.from({ length: 1001 }, () => ({ kind: 'location', id: 'shelf-3' })) } }), status: 400 },
  { name: 'sheets: an invalid record id', method: 'POST', path: SHEETS, body: sheet({ selection: { records: [{ kind: 'item', id: 'a b' }] } }), status: 400 },
  { name: 'sheets: unknown template', method: 'POST', path: SHEETS, body: sheet({ template: 'a4-sheet' }), status: 400 },
  { name: 'sheets: no body', method: 'POST', path: SHEETS, status: 400 },
  { name: 'sheets: malformed JSON', method: 'POST', path: SHEETS, rawBody: { type: 'application/json', data: '{"sheet": ' }, status: 400 },
  { name: 'sheets: a JSON array', method: 'POST', path: SHEETS, rawBody: { type: 'application/json', data: '[]' }, status: 400 },
  { name: 'sheets: form-encoded body', method: 'POST', path: SHEETS, rawBody: { type: 'application/x-www-form-urlencoded', data: 'sheet=avery-l7160' }, status: 415 },
  { name: 'sheets: body over 600 KiB', method: 'POST', path: SHEETS, rawBody: { type: 'application/json', data: JSON.stringify(sheet({ pad: 'x'.repeat(700 * 1024) })) }, status: 413 },
  { name: 'sheets: no credentials', method: 'POST', path: SHEETS, body: sheet({}), anonymous: true, status: 401 },
  { name: 'sheets: Accept image/png only', method: 'POST', path: SHEETS, body: sheet({}), headers: { Accept: 'image/png' }, status: 406 },
  { name: 'sheets: GET', path: SHEETS, status: 405 },
  { name: 'sheets: offsetXMm over 5 mm', method: 'POST', path: SHEETS, body: sheet({ offsetXMm: 5.5 }), status: 400 },
  // Printers: the checks that need no database give the same answer on both (the name, the body's schema, the device URI, the stocks).
  { name: 'printer: a name that is not a slug', path: `${PRINTERS}/Workbench`, status: 400 },
  { name: 'printer: an unknown member', method: 'PUT', path: `${PRINTERS}/parity-a`, body: printer({ colour: 'red' }), status: 400 },
  { name: 'printer: no device URI', method: 'PUT', path: `${PRINTERS}/parity-a`, body: { title: 'A' }, status: 400 },
  { name: 'printer: If-Match and If-None-Match together', method: 'PUT', path: `${PRINTERS}/parity-a`, body: printer({}), headers: { 'If-Match': '"x"', 'If-None-Match': '*' }, status: 400 },
  { name: 'printer: a device URI no driver takes (socket: without lang)', method: 'PUT', path: `${PRINTERS}/parity-a`, body: printer({ deviceUri: 'socket://192.0.2.20:9100' }), status: 422 },
  { name: 'printer: a stock alias instead of its name', method: 'PUT', path: `${PRINTERS}/parity-a`, body: printer({ stocks: ['brother-dk-11209'] }), status: 422 },
  { name: 'printer: an unknown stock', method: 'PUT', path: `${PRINTERS}/parity-a`, body: printer({ stocks: ['a4-sheet'] }), status: 422 },
  { name: 'printer: text body', method: 'PUT', path: `${PRINTERS}/parity-a`, rawBody: { type: 'text/plain', data: '{}' }, status: 415 },
  { name: 'printer: POST', method: 'POST', path: `${PRINTERS}/parity-a`, body: printer({}), status: 405 },
  { name: 'printers: no credentials', path: PRINTERS, anonymous: true, status: 401 },
  { name: 'calibration: unknown sheet product', path: `${CALIBRATIONS}/avery-9999`, status: 400 },
  { name: 'calibration: offset over 5 mm', method: 'PUT', path: `${CALIBRATIONS}/avery-l7160`, body: { offsetXMm: 0, offsetYMm: -5.5 }, status: 400 },
  { name: 'calibration: a missing offset', method: 'PUT', path: `${CALIBRATIONS}/avery-l7160`, body: { offsetXMm: 1 }, status: 400 },
  { name: 'calibration: unknown member', method: 'PUT', path: `${CALIBRATIONS}/avery-l7160`, body: { offsetXMm: 1, offsetYMm: 1, printer: 'office' }, status: 400 },
  { name: 'calibration: text body', method: 'PUT', path: `${CALIBRATIONS}/avery-l7160`, rawBody: { type: 'text/plain', data: '{}' }, status: 415 },
  { name: 'calibration: POST', method: 'POST', path: `${CALIBRATIONS}/avery-l7160`, body: { offsetXMm: 1, offsetYMm: 1 }, status: 405 },
  { name: 'batch: unknown member (startAt belongs to sheets)', method: 'POST', path: BATCHES, body: batch({ startAt: 2 }), status: 400 },
  { name: 'batch: copies over 1000', method: 'POST', path: BATCHES, body: batch({ copies: 1001 }), status: 400 },
  { name: 'batch: no selection', method: 'POST', path: BATCHES, body: { copies: 1 }, status: 400 },
  { name: 'batch: an Idempotency-Key with a space', method: 'POST', path: BATCHES, body: batch({}), headers: { 'Idempotency-Key': 'has space' }, status: 400 },
  { name: 'batch: text body', method: 'POST', path: BATCHES, rawBody: { type: 'text/plain', data: '{}' }, status: 415 },
  { name: 'batch: no credentials', method: 'POST', path: BATCHES, body: batch({}), anonymous: true, status: 401 },
  { name: 'batch: Accept image/png only', method: 'POST', path: BATCHES, body: batch({}), headers: { Accept: 'image/png' }, status: 406 },
  { name: 'batch: DELETE on print-jobs', method: 'DELETE', path: BATCHES, status: 405 },
  { name: 'batch status: invalid id', path: `${BATCHES}/batches/not-a-uuid`, status: 400 },
  { name: 'jobs: unknown state', path: `${BATCHES}?state=lost`, status: 400 },
  { name: 'jobs: state given twice', path: `${BATCHES}?state=failed&state=printed`, status: 400 },
  { name: 'jobs: limit=0', path: `${BATCHES}?limit=0`, status: 400 },
  { name: 'jobs: limit over 200', path: `${BATCHES}?limit=201`, status: 400 },
  { name: 'jobs: batch not a UUID', path: `${BATCHES}?batch=last`, status: 400 },
  { name: 'jobs: malformed cursor', path: `${BATCHES}?cursor=a%20b`, status: 400 },
  { name: 'jobs: no credentials', path: BATCHES, anonymous: true, status: 401 },
  { name: 'jobs: Accept image/png only', path: BATCHES, headers: { Accept: 'image/png' }, status: 406 },
  { name: 'jobs: unknown query parameter (cache-buster)', path: `${BATCHES}?state=failed&_=1700000000`, status: 200 },
  { name: 'jobs: HEAD', method: 'HEAD', path: `${BATCHES}?state=failed`, status: 200 },
  { name: 'retry: invalid job id', method: 'POST', path: `${BATCHES}/not-a-uuid/retry`, status: 400 },
  { name: 'retry: GET', path: `${BATCHES}/00000000-0000-4000-8000-000000000000/retry`, status: 405 },
  { name: 'retry: no credentials', method: 'POST', path: `${BATCHES}/00000000-0000-4000-8000-000000000000/retry`, anonymous: true, status: 401 },
  { name: 'retry: Accept image/png only', method: 'POST', path: `${BATCHES}/00000000-0000-4000-8000-000000000000/retry`, headers: { Accept: 'image/png' }, status: 406 },
  { name: 'retry: on a batch (a concrete path, not a job id)', method: 'POST', path: `${BATCHES}/batches/retry`, status: 400 },
  { name: 'batch status: POST', method: 'POST', path: `${BATCHES}/batches/00000000-0000-4000-8000-000000000000`, status: 405 },
  // Integrations: the key travels in the path; a malformed one is a 401 on both (the mock checks its shape only).
  { name: 'homebox: malformed key', path: `${HB}/not-a-key/labels/brother-ql-62x29?TitleText=x&URL=%2Fitem%2F1`, anonymous: true, status: 401 },
  { name: 'homebox: template name that breaks the pattern', path: `${HB}/${KEY}/labels/Bad_Name!?TitleText=x`, anonymous: true, status: 400 },
  { name: 'homebox: Width not a number', path: `${HB}/${KEY}/labels/brother-ql-62x29?Width=wide`, anonymous: true, status: 400 },
  { name: 'homebox: POST on a label', method: 'POST', path: `${HB}/${KEY}/labels/brother-ql-62x29`, anonymous: true, status: 405 },
  { name: 'homebox print: JSON body', method: 'POST', path: `${HB}/${KEY}/print-jobs/brother-ql-62x29`, anonymous: true, rawBody: { type: 'application/json', data: '{}' }, status: 415 },
  { name: 'homebox print: image over 4 MiB', method: 'POST', path: `${HB}/${KEY}/print-jobs/brother-ql-62x29`, anonymous: true, rawBody: { type: 'image/png', data: 'x'.repeat(4 * 1024 * 1024 + 1) }, status: 413 },
  { name: 'grocy: malformed key', method: 'POST', path: `/v1/integrations/grocy/x/brother-ql-62x29`, anonymous: true, body: { grocycode: 'grcy:p:1' }, status: 401 },
  { name: 'grocy: text body', method: 'POST', path: `/v1/integrations/grocy/${KEY}/brother-ql-62x29`, anonymous: true, rawBody: { type: 'text/plain', data: 'grcy:p:1' }, status: 415 },
  { name: 'grocy: body over 4 MiB', method: 'POST', path: `/v1/integrations/grocy/${KEY}/brother-ql-62x29`, anonymous: true, rawBody: { type: 'application/json', data: JSON.stringify({ grocycode: 'grcy:p:1', pad: 'x'.repeat(4 * 1024 * 1024) }) }, status: 413 },
  { name: 'grocy: JSON nested too deeply', method: 'POST', path: `/v1/integrations/grocy/${KEY}/brother-ql-62x29`, anonymous: true, rawBody: { type: 'application/json', data: `{"grocycode":"grcy:p:1","d":${'['.repeat(100)}${']'.repeat(100)}}` }, status: 400 },
  { name: 'preview: a valid design on a record', method: 'POST', path: PREVIEW, body: preview({}), status: 200 },
  { name: 'preview: an unknown member in the design', method: 'POST', path: PREVIEW, body: preview({ colour: 'red' }), status: 400 },
  { name: 'preview: no record', method: 'POST', path: PREVIEW, body: { design: { stock: 'brother-ql-62x29' } }, status: 400 },
  { name: 'preview: a record id with a space', method: 'POST', path: PREVIEW, body: { ...preview({}), record: { kind: 'item', id: 'a b' } }, status: 400 },
  { name: 'preview: text on a line that is not custom (422 naming /design/lines/0/text)', method: 'POST', path: PREVIEW, body: preview({ lines: [{ field: 'name', text: 'x' }] }), status: 422 },
  { name: 'preview: textPt.min above max', method: 'POST', path: PREVIEW, body: preview({ textPt: { min: 30, max: 10 } }), status: 422 },
  { name: 'preview: an unknown stock', method: 'POST', path: PREVIEW, body: preview({ stock: 'avery-5160' }), status: 422 },
  { name: 'preview: an SVG logo with an external image', method: 'POST', path: PREVIEW, body: preview({ logo: { image: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="http://x/y.png"/></svg>').toString('base64'), heightMm: 5 } }), status: 422 },
  { name: 'preview: a logo that is not base64', method: 'POST', path: PREVIEW, body: preview({ logo: { image: 'iVBO*w0KGgo=', heightMm: 5 } }), status: 400 },
  { name: 'preview: a logo in base64 with its padding in the middle', method: 'POST', path: PREVIEW, body: preview({ logo: { image: 'iVBO=w0KGgo=', heightMm: 5 } }), status: 400 },
  { name: 'preview: a logo that is neither PNG nor SVG', method: 'POST', path: PREVIEW, body: preview({ logo: { image: Buffer.from('GIF89a-not-an-image').toString('base64'), heightMm: 5 } }), status: 422 },
  { name: 'preview: form-encoded body', method: 'POST', path: PREVIEW, rawBody: { type: 'application/x-www-form-urlencoded', data: 'design=x' }, status: 415 },
  { name: 'preview: no credentials', method: 'POST', path: PREVIEW, body: preview({}), anonymous: true, status: 401 },
  { name: 'preview: GET', path: PREVIEW, status: 405 },
  { name: 'printImage: GET (a concrete path, not a print job id)', path: '/v1/labelmaker/print-jobs/images', status: 405 },
  { name: 'printImage: JSON body', method: 'POST', path: '/v1/labelmaker/print-jobs/images', rawBody: { type: 'application/json', data: '{}' }, status: 415 },
  { name: 'printImage: no token', method: 'POST', path: '/v1/labelmaker/print-jobs/images', anonymous: true, rawBody: { type: 'image/png', data: 'x' }, status: 401 },
];

async function send(base: string, token: string, p: Probe): Promise<{ status: number; type: string | undefined; problemType?: string; body: string }> {
  const headers: Record<string, string> = { Accept: ACCEPT, ...(p.anonymous ? {} : { Authorization: `Bearer ${token}` }), ...p.headers };
  if (p.raw) {
    const head = [`${p.method ?? 'GET'} ${p.path} HTTP/1.1`, `Host: ${new URL(base).host}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');
    const res = await rawRequest(base, head);
    return summarize(res.status, res.headers['content-type'], res.body.toString('utf8'));
  }
  let body: string | undefined;
  if (typeof p.body === 'string') body = p.body;
  else if (p.body !== undefined) {
    body = JSON.stringify(p.body);
    headers['Content-Type'] = 'application/json';
  } else if (p.rawBody) {
    body = p.rawBody.data;
    headers['Content-Type'] = p.rawBody.type;
  }
  const res = await fetch(base + p.path, { method: p.method ?? 'GET', headers, body });
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
