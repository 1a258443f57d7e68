/**
 * Credentials smuggled past the log redaction, against the service in its own
 * process (its real log stream, every answer logged): an integration key behind an
 * encoded slash, a token inside a search, a token sent as the request id (on a label and
 * elsewhere). No secret may reach the log or come back as the id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { killAllServices, startService, type Service } from '../helpers/service.js';

let dir: string;
let svc: Service;
let token: string;
let key: string;
const secretOf = (t: string) => /^lm_[^_]+_(.+)$/.exec(t)![1]!;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-redaction-'));
  const url = `sqlite:${join(dir, 'db.sqlite')}`;
  const store = await openStore(url);
  token = (await createToken(store, 'reader', ['labels:read'])).token;
  key = (await createToken(store, 'homebox', ['integrations:render'])).token;
  await store.records.upsertMany([{ kind: 'location', id: 'garage', name: 'Garage', description: '', parentId: null, assetId: null }]);
  await store.close();
  svc = await startService({ DATABASE_URL: url, ACCESS_LOG: 'all', LOG_LEVEL: 'debug', RENDER_THREADS: '0' });
}, 60_000);
afterAll(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

const auth = () => ({ Authorization: `Bearer ${token}` });
const settle = () => new Promise((r) => setTimeout(r, 300)); // the log is written asynchronously

describe('credentials that try to slip past the log redaction', () => {
  it('an integration key behind an encoded slash (homebox%2F<key>) is masked', async () => {
    const res = await fetch(`${svc.url}/v1/integrations/homebox%2F${key}/labels/x`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const body = await res.text();
    expect(body).not.toContain(secretOf(key));
    await settle();
    expect(svc.output()).toContain('/v1/integrations/');
    expect(svc.output()).not.toContain(secretOf(key));
  });

  it('a token inside a search (?q=), in any spelling, is masked', async () => {
    const spellings = [`x${token}`, `Bearer%20${token}`, token.replaceAll('_', '%5F'), `%22${token}%22`];
    for (const q of spellings) {
      const res = await fetch(`${svc.url}/v1/labelmaker/records?q=${q}`, { headers: auth() });
      await res.arrayBuffer();
    }
    await settle();
    expect(svc.output()).toContain('/v1/labelmaker/records?q=');
    expect(svc.output()).not.toContain(secretOf(token));
  });

  it('a token sent as X-Request-Id is not kept as the id, on a label request and elsewhere', async () => {
    for (const path of ['/v1/labelmaker/records', '/v1/labelmaker/location/garage', '/v1/labelmaker/location/nowhere']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { ...auth(), 'X-Request-Id': token } });
      await res.arrayBuffer();
      expect(res.headers.get('x-request-id')).not.toContain(secretOf(token));
    }
    // An ordinary id is still kept.
    const res = await fetch(`${svc.url}/v1/labelmaker/records`, { headers: { ...auth(), 'X-Request-Id': 'trace-42' } });
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    await settle();
    expect(svc.output()).toContain('"reqId":"trace-42"');
    expect(svc.output()).not.toContain(secretOf(token));
  });
});
