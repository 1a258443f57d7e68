/**
 * What a token with `labels:print` alone can learn and do, from the client's side
 * (a real server, SQLite and the folder printer): no record through a print batch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { problemErrors } from '../helpers/spec.js';

let srv: TestServer;
let spool: string;
beforeAll(async () => {
  spool = mkdtempSync(join(tmpdir(), 'lm-print-token-'));
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50' });
});
afterAll(async () => {
  await srv?.stop();
  rmSync(spool, { recursive: true, force: true });
});

const call = (path: string, token: string, body?: unknown) =>
  fetch(`${srv.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('a print-only token', () => {
  it('gets 403 on createPrintBatch: no location tree, no probing ids through the 422 list', async () => {
    for (const selection of [{ location: 'garage', descendants: true }, { records: [{ kind: 'item', id: 'guessed-id' }] }]) {
      const res = await call('/v1/labelmaker/print-jobs', srv.tokens.printOnly, { selection });
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(problemErrors(body)).toBeUndefined();
      expect(body.type).toBe('/problems/insufficient-scope');
      expect(JSON.stringify(body)).not.toMatch(/guessed-id|Cordless/);
    }
    // Nothing was queued for it either.
    const jobs = await (await call('/v1/labelmaker/print-jobs', srv.tokens.printOnly)).json();
    expect(jobs.jobs).toEqual([]);
  });

  it('a token with labels:read and labels:print still prints a location tree', async () => {
    const res = await call('/v1/labelmaker/print-jobs', srv.tokens.print, { selection: { location: 'garage', descendants: true } });
    expect(res.status).toBe(201);
  });
});
