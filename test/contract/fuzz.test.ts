/**
 * The spec-driven request fuzzer (test/fuzz/request-fuzzer.ts) against the real
 * server: 10,000 requests from a fixed seed, valid and invalid, over every
 * operation. No 5xx, no response the spec does not document, no request left
 * without an answer. FUZZ_SEED / FUZZ_COUNT override the seed and count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, type TestServer } from '../helpers/server.js';
import { fuzz, summary } from '../fuzz/request-fuzzer.js';
import { spec } from '../helpers/spec.js';
import { startTestServer } from '../helpers/server.js';
import { createToken } from '../../src/commands.js';
import { API_SCOPES, INTEGRATION_SCOPES } from '../../src/records/index.js';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({
    // Printing on (print=true is a 200, not the 501 of a server without a printer) and no rate limit or print quota in the way.
    PRINTER_URI: pathToFileURL(join(tmpdir(), `lm-fuzz-spool-${process.pid}-${Date.now()}`)).href,
    RATE_LIMIT_PER_MINUTE: '1000000',
    PRINT_QUOTA_PER_MINUTE: '1000000000',
  });
});
afterAll(async () => {
  await srv?.stop();
});

describe('request fuzzer against the server', () => {
  it(`${COUNT} generated requests (seed ${SEED}): no 5xx, nothing undocumented`, { timeout: 600_000 }, async () => {
    const token = (await createToken(srv.store, 'fuzzer', [...API_SCOPES])).token;
    const integrationKey = (await createToken(srv.store, 'fuzzer-key', [...INTEGRATION_SCOPES])).token;
    // Print jobs of the fuzzer's token to look at, list and retry (printed ones: a 409 to retry).
    const printJob: string[] = [];
    for (const id of ['tape-measure', 'loose-item']) {
      const res = await fetch(`${srv.url}/v1/labelmaker/item/${id}?print=true`, { headers: { Authorization: `Bearer ${token}` } });
      printJob.push(res.headers.get('print-job')!.split('/').pop()!);
    }
    const report = await fuzz({
      baseUrl: srv.url,
      token,
      seed: SEED,
      count: COUNT,
      known: {
        location: FIXTURES.filter((r) => r.kind === 'location').map((r) => r.id),
        item: FIXTURES.filter((r) => r.kind === 'item').map((r) => r.id),
        asset: FIXTURES.flatMap((r) => (r.assetId ? [String(r.assetId), `000-${String(r.assetId).padStart(3, '0')}`] : [])),
        template: ['fuzz-a', 'fuzz-b'],
        integrationKey: [integrationKey],
        printJob,
      },
    });
    console.log(`fuzz (server, seed ${SEED}):\n${summary(report)}`);
    expect(report.requests).toBe(COUNT);
    expect(report.serverErrors.slice(0, 10)).toEqual([]);
    expect(report.undocumented.slice(0, 10)).toEqual([]);
    expect(report.transportErrors.slice(0, 10)).toEqual([]);
    // It reached every operation, and both sides of the contract: successes and refusals.
    const operations = Object.values<Record<string, { operationId: string }>>(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    for (const op of operations) expect(report.operations[op] ?? 0, op).toBeGreaterThan(COUNT / (operations.length * 4));
    for (const status of [200, 304, 400, 401, 404, 405, 406, 431]) expect(report.statuses[status] ?? 0, `status ${status}`).toBeGreaterThan(0);
  });
});
