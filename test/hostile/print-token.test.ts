/**
 * What a token with `labels:print` alone can learn and do, from the client's side
 * (a real server, SQLite and the folder printer): no record through a print batch,
 * and nothing of where the printer is from its jobs.
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

describe('print jobs show the printer by name, not its address', () => {
  it("a job, the token's job list and a batch name the printer without its URI", async () => {
    const label = await call('/v1/labelmaker/item/tape-measure?print=true', srv.tokens.print);
    expect(label.status).toBe(200);
    const jobUrl = label.headers.get('print-job');
    const batch = await call('/v1/labelmaker/print-jobs', srv.tokens.print, { selection: { records: [{ kind: 'item', id: 'tape-measure' }] } });
    expect(batch.status).toBe(201);
    const bodies = [await batch.text(), await (await call('/v1/labelmaker/print-jobs', srv.tokens.print)).text()];
    if (jobUrl) bodies.push(await (await call(jobUrl, srv.tokens.print)).text());
    for (const text of bodies) {
      expect(text).not.toContain('file:');
      expect(text).not.toContain(spool);
      expect(JSON.parse(text).printer ?? JSON.parse(text).jobs[0].printer).toBe('folder');
    }
    expect(bodies).toHaveLength(3);
  });
});
