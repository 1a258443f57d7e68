/**
 * Heavy requests cost their sender, not everyone else: the service runs as its own
 * process (test/helpers/service.ts) and, while the largest sheet and the largest print
 * batch the limits allow are made, a second client's /healthz stays fast
 * (test/helpers/stall-probe.ts) and the service's memory bounded. One token cannot hold
 * more heavy requests in flight than its bound (429), while another token gets through.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { pdfPageCount } from '../helpers/pdf.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, startService, type Service } from '../helpers/service.js';
import { probeStalls, type StallReport } from '../helpers/stall-probe.js';

/** The spec's limit: at most 1000 labels per sheet or batch, copies included. */
const LABELS = 1000;
const FIRST_ASSET = 5000;
/**
 * The target for /healthz p99 while a heavy request runs. Two measures of it
 * (test/helpers/stall-probe.ts): the service main thread's CPU time during each probe
 * (what its own event loop did; asserted always), and the probe's latency, which on a
 * machine shared with other work also counts waiting for a core (the idle service
 * measured 70-170 ms p99 on the 2-core development machine under the other test runs):
 * asserted when the idle probe shows a quiet machine. Before the drawing left the event
 * loop, a 1000-label sheet stalled /healthz 5.4 s and a batch 2 s, which both catch.
 */
const P99_TARGET_MS = 50;
/** The idle probe's p99 below which the machine counts as quiet enough for latency to be the service's own. */
const QUIET_P99_MS = 25;
let quiet = true;
const RSS_GROWTH_LIMIT_MB = 100;
const HEAVY_PER_TOKEN = 2;

let dir: string;
let spool: string;
let service: Service;
let tokens: { a: string; b: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-heavy-'));
  spool = join(dir, 'spool');
  mkdirSync(spool);
  const db = join(dir, 'labelmaker.db');
  const store = await openStore(`sqlite:${db}`, { writes: 'inline' });
  await store.records.upsertMany(FIXTURES);
  await store.records.upsertMany(
    Array.from({ length: LABELS }, (_, i) => ({ kind: 'item' as const, id: `crate-${i}`, name: `Crate ${i} of spare parts`, description: 'Shelf B', parentId: 'garage', assetId: FIRST_ASSET + i })),
  );
  tokens = {
    a: (await createToken(store, 'heavy-a', ['labels:read', 'labels:print'])).token,
    b: (await createToken(store, 'heavy-b', ['labels:read', 'labels:print'])).token,
  };
  await store.close();
  service = await startService({
    DATABASE_URL: `sqlite:${db}`,
    PRINTER_URI: pathToFileURL(spool).href,
    HEAVY_REQUESTS_PER_TOKEN: String(HEAVY_PER_TOKEN),
    RATE_LIMIT_PER_MINUTE: '100000',
    // A slow, shared CI machine may take longer than the default 30 s for 1000 labels; this test is about stalls.
    REQUEST_TIMEOUT_MS: '180000',
    ACCESS_LOG: 'errors',
  });
  // Warm up: the render threads load their fonts; the first label of each kind is slower.
  const warm = await post('/v1/labelmaker/sheets', { sheet: 'avery-l7160', selection: { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + 20) } }, tokens.b);
  expect(warm.status).toBe(200);
  // For the log: what the machine gives /healthz with the service idle.
  const { report } = await whileProbing(() => new Promise((r) => setTimeout(r, 3000)));
  quiet = report.p99Ms < QUIET_P99_MS;
  console.log(`idle: /healthz p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms, max ${report.maxMs.toFixed(1)} ms over ${report.samples} samples; main thread busy p99 ${report.busyP99Ms.toFixed(1)} ms${quiet ? '' : ' (a busy machine: latency is logged, not asserted)'}`);
}, 120_000);
afterAll(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

/** One request on a connection of its own (the probe's connection is not shared). */
function post(path: string, body: unknown, token: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(`${service.url}${path}`, { method: 'POST', agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': data.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

const everyAsset = { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + LABELS - 1) };

async function whileProbing<T>(run: () => Promise<T>): Promise<{ result: T; report: StallReport }> {
  const probe = probeStalls(service.url, service.child.pid!);
  await new Promise((r) => setTimeout(r, 200)); // a few samples before the request
  const result = await run();
  return { result, report: await probe.stop() };
}

function expectNoStall(what: string, report: StallReport): void {
  const summary = `${what}: /healthz p50 ${report.p50Ms.toFixed(1)} ms, p99 ${report.p99Ms.toFixed(1)} ms, max ${report.maxMs.toFixed(1)} ms over ${report.samples} samples; main thread busy p99 ${report.busyP99Ms.toFixed(1)} ms, max ${report.busyMaxMs.toFixed(1)} ms; RSS ${report.rssStartMb.toFixed(0)} -> ${report.rssPeakMb.toFixed(0)} MB`;
  console.log(summary);
  expect(report.samples, summary).toBeGreaterThan(20);
  expect(report.busyP99Ms, summary).toBeLessThan(P99_TARGET_MS);
  if (quiet) expect(report.p99Ms, summary).toBeLessThan(P99_TARGET_MS);
  expect(report.rssPeakMb - report.rssStartMb, summary).toBeLessThan(RSS_GROWTH_LIMIT_MB);
}

describe('heavy requests do not stall the service', () => {
  it(`a ${LABELS}-label sheet: /healthz p99 under ${P99_TARGET_MS} ms, RSS growth under ${RSS_GROWTH_LIMIT_MB} MB, every label on its page`, async () => {
    const { result: res, report } = await whileProbing(() => post('/v1/labelmaker/sheets', { sheet: 'avery-l7160', selection: everyAsset }, tokens.a));
    expect(res.status, res.body.toString('utf8', 0, 500)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(pdfPageCount(res.body)).toBe(Math.ceil(LABELS / 21)); // 21 labels per L7160 sheet
    expectNoStall(`${LABELS}-label sheet`, report);
  }, 120_000);

  it(`a ${LABELS}-label print batch: /healthz p99 under ${P99_TARGET_MS} ms, RSS growth under ${RSS_GROWTH_LIMIT_MB} MB, one job per label`, async () => {
    const { result: res, report } = await whileProbing(() => post('/v1/labelmaker/print-jobs', { selection: everyAsset }, tokens.a));
    expect(res.status, res.body.toString('utf8', 0, 500)).toBe(201);
    const batch = JSON.parse(res.body.toString('utf8')) as { total: number; jobs: string[] };
    expect(batch.total).toBe(LABELS);
    expect(new Set(batch.jobs).size).toBe(LABELS);
    expectNoStall(`${LABELS}-label batch`, report);
    // The folder printer receives every job (it prints in the background after the answer).
    const until = Date.now() + 120_000;
    while (readdirSync(spool).filter((f) => f.endsWith('.png')).length < LABELS && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
    expect(readdirSync(spool).filter((f) => f.endsWith('.png'))).toHaveLength(LABELS);
  }, 240_000);
});

describe('heavy requests per token', () => {
  it(`one token's heavy requests past ${HEAVY_PER_TOKEN} at once get a 429 with Retry-After; another token still gets through`, async () => {
    // 300 labels: seconds of drawing, long enough for all four to arrive while the first two run.
    const sheet = { sheet: 'avery-l7160', selection: { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + 299) } };
    const fromA = Array.from({ length: HEAVY_PER_TOKEN + 2 }, () => post('/v1/labelmaker/sheets', sheet, tokens.a));
    await new Promise((r) => setTimeout(r, 100));
    const fromB = await post('/v1/labelmaker/sheets', { sheet: 'avery-l7160', selection: { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + 41) } }, tokens.b);
    const answers = await Promise.all(fromA);
    expect(fromB.status).toBe(200);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(HEAVY_PER_TOKEN).fill(200), 429, 429]);
    for (const refused of answers.filter((a) => a.status === 429)) {
      expect(refused.headers['content-type']).toBe('application/problem+json');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(JSON.parse(refused.body.toString('utf8'))).toMatchObject({ type: '/problems/rate-limited', status: 429 });
    }
    // Once they finish, the token has its full bound again.
    const again = await Promise.all(Array.from({ length: HEAVY_PER_TOKEN }, () => post('/v1/labelmaker/sheets', { sheet: 'avery-l7160', selection: { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + 20) } }, tokens.a)));
    expect(again.map((a) => a.status)).toEqual(Array(HEAVY_PER_TOKEN).fill(200));
  }, 120_000);
});
