/**
 * Hostile PNG uploads (issue 28), sent to the service as users run it (its own
 * process, a folder printer) through both image operations: printImage with a
 * bearer token and Homebox's print command with an integration key. Each attack
 * gets a clear 4xx problem while a second client probes /healthz and the
 * service's memory is read (test/helpers/stall-probe.ts): /healthz p99 under
 * 50 ms, RSS growth under 100 MB. Then the legitimate heavy request, a 20
 * megapixel 16-bit picture, is printed without stalling /healthz, and four at
 * once from one credential: the two over the bound get a 429 with Retry-After.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { chunk, gray16Png, grayPng, IEND, ihdr, png, rows, zeroStream } from '../helpers/hostile-png.js';
import { killAllServices, startService, type Service } from '../helpers/service.js';
import { problemErrors } from '../helpers/spec.js';
import { mainThreadCpuMs, probeStalls, type StallReport } from '../helpers/stall-probe.js';
import { HEAVY_RETRY_AFTER_SECONDS } from '../../src/api/heavy-work.js';

/**
 * /healthz p99 the request may cost, over what the machine's other load costs: the
 * same probe on the idle service just before. On a quiet machine idle p99 is a few
 * ms and this is the bar (50 ms); with eight test suites sharing this 2-core
 * machine (load average 18-20), idle p99 alone measured 30-820 ms from one second to
 * the next. So each measurement is tried up to TRIALS times: a stall the request
 * causes shows in every trial, the machine's noise does not. The main thread's CPU
 * time during the request is asserted too (MAIN_THREAD_CPU_MS, beyond answering the
 * probe: 0-80 ms measured, in 10 ms ticks, under that load), which the machine's load
 * changes far less. Before the fix the 1 GiB bomb took the event loop for seconds.
 */
const P99_MS = 50;
const TRIALS = 5;
const MAIN_THREAD_CPU_MS = 200;
const RSS_GROWTH_MB = 100;

let dir: string;
let svc: Service;
let bearer: string;
let homeboxKey: string;
let renderKey: string;
/** 20 MP pictures printImage accepted (202): the bearer token's jobs besides its warm-up. */
let accepted = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-hostile-png-'));
  const db = `sqlite:${join(dir, 'db.sqlite')}`;
  const store = await openStore(db);
  bearer = (await createToken(store, 'hostile', ['labels:read', 'labels:print'])).token;
  homeboxKey = (await createToken(store, 'homebox', ['integrations:print'])).token;
  renderKey = (await createToken(store, 'homebox-render', ['integrations:render'])).token;
  await store.close();
  svc = await startService({ DATABASE_URL: db, PRINTER_URI: pathToFileURL(join(dir, 'spool')).href });
  // Warm up both routes and the render threads (compiled on first use), so the first attack is not measured against start-up.
  for (const route of ROUTES) expect((await post(route, grayPng(20, 20))).status).toBe(202);
  expect((await homeboxLabel('Warm-up')).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1000));
}, 120_000);
afterAll(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

type Route = 'printImage' | 'homebox';
const ROUTES: Route[] = ['printImage', 'homebox'];

function post(route: Route, body: Buffer): Promise<Response> {
  const [path, auth]: [string, Record<string, string>] =
    route === 'printImage'
      ? ['/v1/labelmaker/print-jobs/images?template=brother-ql-62x29', { Authorization: `Bearer ${bearer}` }]
      : [`/v1/integrations/homebox/${homeboxKey}/print-jobs/brother-ql-62x29`, {}];
  return fetch(svc.url + path, { method: 'POST', headers: { 'Content-Type': 'image/png', ...auth }, body: new Uint8Array(body) });
}

function homeboxLabel(title: string): Promise<Response> {
  return fetch(`${svc.url}/v1/integrations/homebox/${renderKey}/labels/brother-ql-62x29?TitleText=${encodeURIComponent(title)}&URL=%2Fitem%2F1`);
}

/**
 * Probes the idle service for a moment (the machine's own noise), then runs `request`
 * while probing, the probe running a moment before and after it (so work left behind counts too).
 */
async function probed<T>(request: () => Promise<T>): Promise<Probed<T>> {
  const pid = svc.child.pid!;
  const idleCpu0 = mainThreadCpuMs(pid);
  const quiet = probeStalls(svc.url, pid);
  await new Promise((r) => setTimeout(r, 800));
  const idle = await quiet.stop();
  // What answering one probe costs the main thread, to tell the request's own CPU from the probe's.
  const perAnswerMs = (mainThreadCpuMs(pid) - idleCpu0) / Math.max(1, idle.samples);
  const cpu0 = mainThreadCpuMs(pid);
  const probe = probeStalls(svc.url, pid);
  await new Promise((r) => setTimeout(r, 150));
  const result = await request();
  await new Promise((r) => setTimeout(r, 300));
  const report = await probe.stop();
  const cpuMs = Math.max(0, mainThreadCpuMs(pid) - cpu0 - report.samples * perAnswerMs);
  return { result, report, idle, cpuMs };
}

interface Probed<T> {
  result: T;
  report: StallReport;
  idle: StallReport;
  /** CPU the service's main thread spent while the request ran, less what answering the probe costs it when idle. */
  cpuMs: number;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

function summary({ report, idle, cpuMs }: Probed<unknown>, what: string): string {
  return `${what}: /healthz p50 ${ms(report.p50Ms)}, p99 ${ms(report.p99Ms)}, max ${ms(report.maxMs)} (${report.samples} answers; idle just before: p99 ${ms(idle.p99Ms)}); main thread CPU ${ms(cpuMs)}; RSS ${report.rssStartMb.toFixed(0)} -> ${report.rssPeakMb.toFixed(0)} MB`;
}

/**
 * Runs `request` (a fresh one each time) and checks what it cost everyone else, up to
 * TRIALS times until /healthz p99 is within the bar; `check` sees each answer. Memory
 * and the main thread's CPU must be within their bars in every trial.
 */
async function unstalled<T>(what: string, request: () => Promise<T>, check: (result: T) => Promise<void>): Promise<void> {
  const seen: string[] = [];
  for (let trial = 1; trial <= TRIALS; trial++) {
    const probe = await probed(request);
    await check(probe.result);
    const line = summary(probe, what);
    console.log(line);
    seen.push(line);
    const { report, idle, cpuMs } = probe;
    expect(report.samples, line).toBeGreaterThan(5);
    expect(report.rssPeakMb - report.rssStartMb, line).toBeLessThan(RSS_GROWTH_MB);
    expect(cpuMs, line).toBeLessThan(MAIN_THREAD_CPU_MS);
    if (report.p99Ms < P99_MS + idle.p99Ms) return;
  }
  expect.fail(`/healthz p99 over ${P99_MS} ms (more than the idle service's p99) in all ${TRIALS} trials:\n${seen.join('\n')}`);
}

async function expectProblem(res: Response, status: number, type: string, detail: RegExp): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const body = JSON.parse(text);
  expect(problemErrors(body)).toBeUndefined();
  expect(body.type).toBe(type);
  expect(body.detail).toMatch(detail);
}

const attacks: { name: string; body: () => Promise<Buffer> | Buffer; status: number; type: string; detail: RegExp }[] = [
  {
    // 1 GiB of zeros deflates to about 1 MiB: once accepted (202, printed) with RSS from 189 MB to 2.2 GB.
    name: 'a 1 x 1 PNG with 1 GiB of compressed zeros',
    body: async () => png(ihdr(1, 1), chunk('IDAT', await zeroStream(1 << 30)), IEND),
    status: 422,
    type: '/problems/invalid-image',
    detail: /inflates to more than the 2 bytes its 1 x 1 header declares/,
  },
  {
    // The old size check read the first IHDR, the decoder the last: 144 megapixels got through.
    name: 'a 1 x 1 IHDR followed by a 12000 x 12000 one',
    body: () => png(ihdr(1, 1), ihdr(12_000, 12_000, 1, 0), chunk('IDAT', deflateSync(rows(1500, 12_000))), IEND),
    status: 422,
    type: '/problems/invalid-image',
    detail: /more than one IHDR chunk/,
  },
  {
    name: 'IDAT after IEND',
    body: () => Buffer.concat([grayPng(20, 20), chunk('IDAT', deflateSync(Buffer.alloc(1 << 20)))]),
    status: 422,
    type: '/problems/invalid-image',
    detail: /IDAT chunk after IEND/,
  },
  {
    name: 'chunks out of order (IDATs split by another chunk)',
    body: () => png(ihdr(20, 20), chunk('IDAT', deflateSync(rows(20, 20)).subarray(0, 5)), chunk('tEXt', Buffer.from('k\0v')), chunk('IDAT', deflateSync(rows(20, 20)).subarray(5)), IEND),
    status: 422,
    type: '/problems/invalid-image',
    detail: /IDAT chunks are not consecutive/,
  },
  {
    name: 'a PNG cut off inside its image data',
    body: () => grayPng(400, 300).subarray(0, 300),
    status: 422,
    type: '/problems/invalid-image',
    detail: /truncated in its IDAT chunk/,
  },
  {
    name: 'a well-formed header declaring 100000 x 100000 pixels',
    body: () => png(ihdr(100_000, 100_000, 1, 0), chunk('IDAT', deflateSync(rows(1, 1))), IEND),
    status: 413,
    type: '/problems/payload-too-large',
    detail: /100000 x 100000 pixels; at most 20 megapixels/,
  },
  {
    // A legal size whose data goes on: 40 MB of rows are decoded (in a render thread, as they inflate), then the rest refused.
    name: 'a 20 megapixel 16-bit header with 1 GiB of compressed zeros',
    body: async () => png(ihdr(5000, 4000, 16, 0), chunk('IDAT', await zeroStream(1 << 30)), IEND),
    status: 422,
    type: '/problems/invalid-image',
    detail: /inflates to more than the 40004000 bytes its 5000 x 4000 header declares/,
  },
];

describe.each(ROUTES)('hostile PNGs through %s', (route) => {
  it.each(attacks)('$name: $status problem, /healthz unstalled, memory flat', async ({ name, body, status, type, detail }) => {
    const data = await body();
    expect(data.length).toBeLessThan(4 * 2 ** 20); // within the body limit: the image check has to catch it
    await unstalled(`${route}, ${name}`, () => post(route, data), (res) => expectProblem(res, status, type, detail));
  }, 300_000);
});

describe('the legitimate heavy request', () => {
  const picture = gray16Png(5000, 4000); // 20 megapixels, 16-bit: 40 MB of image data

  it.each(ROUTES)('a 20 megapixel 16-bit PNG through %s is printed (202) without stalling /healthz', async (route) => {
    await unstalled(`${route}, a 20 MP 16-bit picture`, () => post(route, picture), async (res) => {
      expect(res.status, await res.clone().text()).toBe(202);
      expect(((await res.json()) as { id: string }).id).toMatch(/^[0-9a-f-]{36}$/);
      if (route === 'printImage') accepted++;
    });
  }, 300_000);

  it('four at once from one token: two are decoded, two get a 429 with Retry-After; other clients do not wait', async () => {
    const four = async () => {
      const answeredAt: number[] = [];
      const answers = Array.from({ length: 4 }, () => post('printImage', picture).then((r) => (r.status === 202 && answeredAt.push(performance.now()), r)));
      // Meanwhile another client's label is drawn by the same render threads.
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      const label = await homeboxLabel(`Drill ${performance.now()}`); // never cached: drawn now
      const labelAt = performance.now();
      return { answers: await Promise.all(answers), label, labelMs: labelAt - t0, labelFirst: answeredAt.length === 0 };
    };
    await unstalled('four 20 MP pictures at once from one token', four, async ({ answers, label, labelMs, labelFirst }) => {
      expect(answers.map((r) => r.status).sort()).toEqual([202, 202, 429, 429]);
      accepted += 2;
      for (const res of answers.filter((r) => r.status === 429)) {
        expect(res.headers.get('retry-after')).toBe(String(HEAVY_RETRY_AFTER_SECONDS));
        await expectProblem(res, 429, '/problems/rate-limited', /already has 2 heavy requests .*image prints/);
      }
      expect(label.status).toBe(200);
      console.log(`a Homebox label drawn while two pictures decode: ${ms(labelMs)}`);
      // Interleaved with the decodes (rows are decoded between inflated chunks), not queued behind them:
      // answered before either picture is (the machine's load slows both alike), or within a second
      // when the pictures decode that fast (0.5 s each on a quiet machine).
      expect(labelFirst || labelMs < 1000, `a label drawn while two images decode (${ms(labelMs)}) came after a picture's 202`).toBe(true);
    });
    // Once those are done, the same token may send again.
    expect((await post('printImage', picture)).status).toBe(202);
    accepted++;
  }, 300_000);

  it('nothing was queued for any attack: the token\'s jobs are its accepted pictures only', async () => {
    const res = await fetch(`${svc.url}/v1/labelmaker/print-jobs?limit=200`, { headers: { Authorization: `Bearer ${bearer}` } });
    const page = (await res.json()) as { jobs: { title: string }[] };
    expect(page.jobs.map((j) => j.title)).toEqual([...Array(accepted).fill('image label (5000 x 4000 px)'), 'image label (20 x 20 px)']);
  });
});
