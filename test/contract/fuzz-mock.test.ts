/**
 * The same request fuzzer against the mock: it validates requests with the server's
 * own router, so it too must answer every generated request as the spec documents,
 * with no 5xx. Fewer requests than against the server: Prism is slower.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '../../scripts/mock.js';
import { fuzz, summary } from '../fuzz/request-fuzzer.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const COUNT = Number(process.env.FUZZ_MOCK_COUNT ?? 2000);

let mock: RunningMock;
beforeAll(async () => {
  mock = await startMock();
});
afterAll(async () => {
  await mock?.close();
});

describe('request fuzzer against the mock', () => {
  it(`${COUNT} generated requests (seed ${SEED}): no 5xx, nothing undocumented`, { timeout: 600_000 }, async () => {
    const report = await fuzz({ baseUrl: mock.url, token: 'any-token', seed: SEED, count: COUNT });
    console.log(`fuzz (mock, seed ${SEED}):\n${summary(report)}`);
    expect(report.requests).toBe(COUNT);
    expect(report.serverErrors.slice(0, 10)).toEqual([]);
    expect(report.undocumented.slice(0, 10)).toEqual([]);
    expect(report.transportErrors.slice(0, 10)).toEqual([]);
  });
});
