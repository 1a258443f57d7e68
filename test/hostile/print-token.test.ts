/**
 * What a token with `labels:print` alone can learn and do, from the client's side
 * (a real server, SQLite and the folder printer): no record through a print batch,
 * nothing of where the printer is from its jobs; and no more labels per minute than
 * the print quota, whatever the print path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
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
      expect(JSON.parse(text).printer ?? JSON.parse(text).jobs[0].printer).toBe('default'); // PRINTER_URI's printer, by its name
    }
    expect(bodies).toHaveLength(3);
  });
});

describe('the print quota (PRINT_QUOTA_PER_MINUTE), apart from the request budget', () => {
  it('counts labels on every print path; past it prints get 429 with Retry-After while reads work', async () => {
    const quotaSpool = mkdtempSync(join(tmpdir(), 'lm-print-quota-'));
    const small = await startTestServer({ PRINTER_URI: pathToFileURL(quotaSpool).href, PRINT_QUOTA_PER_MINUTE: '3' });
    try {
      const send = (path: string, token: string, init: RequestInit = {}) =>
        fetch(`${small.url}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) } });
      const json = { 'Content-Type': 'application/json' };
      const t = small.tokens.print;
      expect((await send('/v1/labelmaker/item/tape-measure?print=true', t, { headers: { 'Idempotency-Key': 'once' } })).status).toBe(200);
      // A replay prints nothing and costs nothing.
      expect((await send('/v1/labelmaker/item/tape-measure?print=true', t, { headers: { 'Idempotency-Key': 'once' } })).status).toBe(200);
      const batch = { selection: { records: [{ kind: 'location', id: 'garage' }, { kind: 'asset', id: '000-001' }] } };
      expect((await send('/v1/labelmaker/print-jobs', t, { method: 'POST', headers: json, body: JSON.stringify(batch) })).status).toBe(201);

      // 3 labels printed: the quota is spent, on every print path.
      const refused = [
        await send('/v1/labelmaker/assets/000-001?print=true', t),
        await send('/v1/labelmaker/print-jobs', t, { method: 'POST', headers: json, body: JSON.stringify({ selection: { records: [{ kind: 'item', id: 'tape-measure' }] } }) }),
      ];
      for (const res of refused) {
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        const body = await res.json();
        expect(problemErrors(body)).toBeUndefined();
        expect(body.type).toBe('/problems/rate-limited');
        expect(body.detail).toMatch(/print quota of 3 labels per minute/i);
      }
      // Reads still work: the request budget is another count. The session says the quota, for clients that batch.
      expect((await send('/v1/labelmaker/assets/000-001', t)).status).toBe(200);
      expect(await (await send('/v1/labelmaker/session', t)).json()).toMatchObject({ printQuotaPerMinute: 3 });
      expect((await send('/v1/labelmaker/records?q=drill', t)).status).toBe(200);
      expect((await send('/v1/labelmaker/print-jobs', t)).status).toBe(200);
      // Another token has its own quota; a batch over the whole quota says so.
      const other = (await createToken(small.store, 'other printer', ['labels:read', 'labels:print'])).token;
      expect((await send('/v1/labelmaker/item/tape-measure?print=true', other)).status).toBe(200);
      const tooBig = await send('/v1/labelmaker/print-jobs', other, { method: 'POST', headers: json, body: JSON.stringify({ ...batch, copies: 3 }) });
      expect(tooBig.status).toBe(429);
      expect((await tooBig.json()).detail).toMatch(/6 labels are more than this server's print quota of 3/);
      // Nothing refused reached the printer: 3 jobs for the first token, 1 for the other.
      const jobs = await (await send('/v1/labelmaker/print-jobs', t)).json();
      expect(jobs.jobs).toHaveLength(3);
    } finally {
      await small.stop();
      rmSync(quotaSpool, { recursive: true, force: true });
    }
  });
});
