/**
 * Requests at the edges, against the service in its own process (its real log
 * stream): slow clients are cut at the documented time-out with a 408 problem, and
 * no credential sent in any form reaches the log.
 */
import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { killAllServices, startService, type Service } from '../helpers/service.js';
import { rawRequest } from '../helpers/raw-http.js';
import { problemErrors } from '../helpers/spec.js';

const TIMEOUT_MS = 2000;
let dir: string;
let svc: Service;
let token: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-requests-'));
  const url = `sqlite:${join(dir, 'db.sqlite')}`;
  const store = await openStore(url);
  token = (await createToken(store, 'logs', ['labels:read'])).token;
  await store.close();
  // Every answer logged (ACCESS_LOG=all), so the credential checks below see every URL.
  svc = await startService({ DATABASE_URL: url, REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'debug', ACCESS_LOG: 'all' });
}, 60_000);
afterAll(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

describe('slow clients', () => {
  it('a client that drips its headers forever is cut at the time-out with a 408 problem', async () => {
    const { port } = new URL(svc.url);
    const started = Date.now();
    const res = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1');
      let out = '';
      const drip = setInterval(() => socket.write('X-Slow: a\r\n'), 200);
      socket.on('connect', () => socket.write('GET /v1/labelmaker/records HTTP/1.1\r\nHost: x\r\n'));
      socket.on('data', (c) => (out += c.toString()));
      socket.on('close', () => {
        clearInterval(drip);
        resolve(out);
      });
      socket.on('error', () => undefined);
    });
    const elapsed = Date.now() - started;
    expect(res).toMatch(/^HTTP\/1\.1 408 /);
    const body = JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4));
    expect(problemErrors(body)).toBeUndefined();
    expect(body.type).toBe('/problems/request-timeout');
    // Cut at the time-out (Node checks once a second), not 30+ s later.
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 2500);
  });

  it('a client that connects and sends nothing is cut at the time-out too', async () => {
    const res = await rawRequest(svc.url, '', { complete: false, timeoutMs: TIMEOUT_MS + 5000 }).catch((e: Error) => e);
    // Either the 408 problem or a plain close: the connection never outlives the time-out.
    if (!(res instanceof Error)) expect(res.status).toBe(408);
    else expect(res.message).not.toMatch(/no complete response within/);
  });
});

describe('credentials never reach the log', () => {
  it('masks tokens in the query string and in paths; never logs the Authorization header', async () => {
    const secret = /^lm_[^_]+_(.+)$/.exec(token)![1]!; // the secret itself may contain '_'
    const h = { Authorization: `Bearer ${token}` };
    await fetch(`${svc.url}/v1/labelmaker/records?access_token=${token}`);
    await fetch(`${svc.url}/v1/labelmaker/records?api_key=${secret}&q=x`, { headers: h });
    await fetch(`${svc.url}/v1/labelmaker/item/${token}`, { headers: h });
    await fetch(`${svc.url}/v1/labelmaker/records?access_token=%ZZ${secret}`);
    const unauthorized = await fetch(`${svc.url}/v1/labelmaker/records?access_token=${token}`);
    expect((await unauthorized.json()).detail).toMatch(/not accepted in the query string/);
    await new Promise((r) => setTimeout(r, 300));
    const logs = svc.output();
    expect(logs).toContain('"url":"/v1/labelmaker/records?access_token=***"');
    expect(logs).toContain('api_key=***&q=x');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(token);
    expect(logs).not.toMatch(/authorization/i);
  });
});
