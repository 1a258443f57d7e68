/**
 * How the contract targets produce each documented answer of the record operations
 * (getRecord, putRecord, deleteRecord, upsertRecords): real conditions on the server,
 * each on records of its own so calls never meet; 408 and 431, and the mock, take the
 * spec's example request (suite.ts exampleCall). Kept apart from targets.ts, which calls in here.
 */
import { randomUUID } from 'node:crypto';
import { createToken } from '../../src/commands.js';
import type { TestServer } from '../helpers/server.js';
import type { Call } from './suite.js';

export const RECORD_WRITE_OPS = new Set(['getRecord', 'putRecord', 'deleteRecord', 'upsertRecords']);

const PATH = '/v1/labelmaker/records';
const BULK = `${PATH}/bulk`;
const writers = new WeakMap<TestServer, Promise<string>>();
/** A token with records:write on the contract server (its fixtures have none). */
const writerOf = (srv: TestServer) => {
  let token = writers.get(srv);
  if (!token) writers.set(srv, (token = createToken(srv.store, 'records-writer', ['labels:read', 'records:write']).then((t) => t.token)));
  return token;
};

/** A fresh item on the server, with its ETag. */
async function freshItem(srv: TestServer, token: string): Promise<{ path: string; etag: string }> {
  const path = `${PATH}/items/contract-${randomUUID()}`;
  const res = await fetch(srv.url + path, { method: 'PUT', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'If-None-Match': '*' }, body: JSON.stringify({ name: 'Contract item', parentId: 'shelf-3' }) });
  if (res.status !== 201) throw new Error(`could not create ${path}: ${res.status} ${await res.text()}`);
  return { path, etag: res.headers.get('etag')! };
}

export async function recordWriteCallOn(srv: TestServer, operationId: string, status: number): Promise<Call | undefined> {
  const token = await writerOf(srv);
  const put = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'PUT', token, body: { name: 'Contract item', parentId: 'shelf-3' }, ...extra });
  const del = (path: string, extra: Partial<Call> = {}): Call => ({ path, method: 'DELETE', token, ...extra });
  const bulk = (extra: Partial<Call> = {}): Call => ({ path: BULK, method: 'POST', token, body: [{ kind: 'item', id: `bulk-${randomUUID()}`, name: 'Bulk item', parentId: 'shelf-3' }], ...extra });
  const missing = `${PATH}/items/never-stored`;
  switch (operationId) {
    case 'getRecord':
      switch (status) {
        case 200: return { path: `${PATH}/locations/shelf-3` };
        case 400: return { path: `${PATH}/shelves/shelf-3` };
        case 401: return { path: missing, token: null };
        case 403: return { path: missing, token: srv.tokens.printOnly };
        case 404: return { path: missing };
        case 406: return { path: missing, headers: { Accept: 'image/png' } };
        default: return undefined;
      }
    case 'putRecord':
      switch (status) {
        case 200: {
          const item = await freshItem(srv, token);
          return put(item.path, { headers: { 'If-Match': item.etag }, body: { name: 'Contract item, renamed' } });
        }
        case 201: return put(`${PATH}/items/contract-${randomUUID()}`, { headers: { 'If-None-Match': '*' } });
        case 400: return put(missing, { headers: { 'If-None-Match': '*' }, body: { name: 'X', colour: 'red' } });
        case 401: return put(missing, { token: null, headers: { 'If-None-Match': '*' } });
        case 403: return put(missing, { token: srv.tokens.read, headers: { 'If-None-Match': '*' } });
        case 406: return put(missing, { headers: { 'If-None-Match': '*', Accept: 'image/png' } });
        case 412: return put(`${PATH}/locations/shelf-3`, { headers: { 'If-None-Match': '*' }, body: { name: 'Shelf 3', parentId: 'garage' } });
        case 413: return { path: missing, method: 'PUT', token, headers: { 'If-None-Match': '*' }, rawBody: { type: 'application/json', data: JSON.stringify({ name: 'X', description: 'x'.repeat(70 * 1024) }) } };
        case 415: return { path: missing, method: 'PUT', token, headers: { 'If-None-Match': '*' }, rawBody: { type: 'text/plain', data: '{"name":"X"}' } };
        case 422: return put(`${PATH}/items/contract-${randomUUID()}`, { headers: { 'If-None-Match': '*' }, body: { name: 'X', parentId: 'nowhere' } });
        case 428: return put(missing);
        default: return undefined;
      }
    case 'deleteRecord':
      switch (status) {
        case 204: {
          const item = await freshItem(srv, token);
          return del(item.path, { headers: { 'If-Match': item.etag } });
        }
        case 400: return del(`${PATH}/shelves/x`, { headers: { 'If-Match': '*' } });
        case 401: return del(missing, { token: null, headers: { 'If-Match': '*' } });
        case 403: return del(missing, { token: srv.tokens.read, headers: { 'If-Match': '*' } });
        case 404: return del(missing, { headers: { 'If-Match': '*' } });
        case 406: return del(missing, { headers: { 'If-Match': '*', Accept: 'image/png' } });
        case 409: return del(`${PATH}/locations/shelf-3`, { headers: { 'If-Match': '*' } });
        case 412: {
          const item = await freshItem(srv, token);
          return del(item.path, { headers: { 'If-Match': '"stale"' } });
        }
        case 428: return del(missing);
        default: return undefined;
      }
    case 'upsertRecords':
      switch (status) {
        case 200: return bulk({ rawBody: { type: 'application/x-ndjson', data: `{"kind":"item","id":"bulk-${randomUUID()}","name":"Bulk item"}\n` }, body: undefined });
        case 400: return bulk({ headers: { 'Idempotency-Key': 'not a key' } }); // spaces are not allowed
        case 401: return bulk({ token: null });
        case 403: return bulk({ token: srv.tokens.read });
        case 406: return bulk({ headers: { Accept: 'image/png' } });
        case 413: return bulk({ body: undefined, rawBody: { type: 'application/x-ndjson', data: '' }, declaredLength: 2 * 1024 * 1024 * 1024 }); // past the 1 GiB limit
        case 415: return bulk({ body: undefined, rawBody: { type: 'text/plain', data: '[]' } });
        case 422: return bulk({ body: [{ kind: 'item', id: 'x', name: 'X', parentId: 'nowhere' }] });
        default: return undefined;
      }
    default:
      return undefined;
  }
}
