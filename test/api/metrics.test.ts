/**
 * GET /metrics: Prometheus text on its own listener (METRICS_LISTEN), never on the
 * API's port. Scraped before and after a known sequence of requests, the counters
 * move by exactly that much. Real server, real SQLite file, real folder printer.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer | undefined;
afterEach(async () => {
  await srv?.stop();
  srv = undefined;
});

type Samples = Map<string, number>;

/** Prometheus text -> `name{a="x",b="y"}` (labels sorted) -> value. */
async function scrape(url: string): Promise<Samples> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples: Samples = new Map();
  for (const line of (await res.text()).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`).sort();
    samples.set(`${m[1]}{${labels.join(',')}}`, Number(m[3]));
  }
  return samples;
}

function key(name: string, labels: Record<string, string>): string {
  return `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).sort().join(',')}}`;
}

function delta(before: Samples, after: Samples, name: string, labels: Record<string, string>): number {
  const k = key(name, labels);
  return (after.get(k) ?? 0) - (before.get(k) ?? 0);
}

const waitFor = async (what: () => boolean, ms = 15_000) => {
  for (const until = Date.now() + ms; !what() && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
  expect(what()).toBe(true);
};

describe('METRICS_LISTEN', () => {
  it('is off by default, and /metrics is never served on the API port', async () => {
    srv = await startTestServer();
    expect(srv.metricsUrl).toBeUndefined();
    const res = await fetch(`${srv.url}/metrics`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });

  it('takes host:port and refuses anything else at start-up', () => {
    expect(loadConfig({ METRICS_LISTEN: '127.0.0.1:9464' }).metricsListen).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(loadConfig({ METRICS_LISTEN: '[::1]:0' }).metricsListen).toEqual({ host: '::1', port: 0 });
    for (const bad of ['9464', 'localhost', 'http://127.0.0.1:9464', '127.0.0.1:99999']) {
      expect(() => loadConfig({ METRICS_LISTEN: bad })).toThrow(ConfigError);
    }
  });
});

describe('GET /metrics after a known sequence of requests', () => {
  it('counts requests by operation and status, renders by stock, cache lookups, print outcomes and the queue', async () => {
    const spool = mkdtempSync(join(tmpdir(), 'lm-metrics-spool-'));
    srv = await startTestServer({ METRICS_LISTEN: '127.0.0.1:0', PRINTER_URI: pathToFileURL(spool).href });
    expect(srv.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const auth = { Authorization: `Bearer ${srv.tokens.print}` };
    const before = await scrape(srv.metricsUrl!);

    for (let i = 0; i < 3; i++) expect((await fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: auth })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await fetch(`${srv.url}/v1/labelmaker/item/no-such-item`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${srv.url}/v1/labelmaker/location/garage`)).status).toBe(401);
    expect((await fetch(`${srv.url}/v1/labelmaker/location/garage?template=dymo-30252`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${srv.url}/no/such/path`)).status).toBe(404);
    const printed = await fetch(`${srv.url}/v1/labelmaker/item/tape-measure?print=true`, { headers: auth });
    expect(printed.status).toBe(200);
    await waitFor(() => readdirSync(spool).some((f) => f.endsWith('.png')));
    // The worker counts the attempt right after the printer took it, and marks the job printed just after
    // that: on a busy machine a scrape can fall between the two (the job still counted as printing).
    let after = await scrape(srv.metricsUrl!);
    const settled = () =>
      delta(before, after, 'labelmaker_print_job_attempts_total', { driver: 'directory', outcome: 'printed' }) >= 1 &&
      after.get(key('labelmaker_print_queue_jobs', { state: 'printing' })) === 0 &&
      after.get(key('labelmaker_print_queue_jobs', { state: 'queued' })) === 0;
    for (let i = 0; i < 100 && !settled(); i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape(srv.metricsUrl!);
    }

    const requests = (operation: string, status: number) => delta(before, after, 'labelmaker_http_requests_total', { operation, status: String(status) });
    expect(requests('getAssetLabel', 200)).toBe(3);
    expect(requests('getItemLabel', 404)).toBe(2);
    expect(requests('getLocationLabel', 401)).toBe(1);
    expect(requests('getLocationLabel', 200)).toBe(1);
    expect(requests('getHealth', 200)).toBe(1);
    expect(requests('none', 404)).toBe(1);
    expect(requests('getItemLabel', 200)).toBe(1);
    // Scrapes are not API requests: nothing else moved.
    const allRequests = [...after.keys()].filter((k) => k.startsWith('labelmaker_http_requests_total{')).reduce((sum, k) => sum + (after.get(k)! - (before.get(k) ?? 0)), 0);
    expect(allRequests).toBe(10);
    expect(delta(before, after, 'labelmaker_http_request_duration_seconds_count', { operation: 'getAssetLabel' })).toBe(3);
    expect(delta(before, after, 'labelmaker_http_request_duration_seconds_bucket', { operation: 'getAssetLabel', le: '+Inf' })).toBe(3);

    // Renders by stock: the asset label once (then twice from the cache) and the printed item on the default stock, one location label on DYMO 30252.
    expect(delta(before, after, 'labelmaker_render_duration_seconds_count', { stock: 'brother-ql-62x29' })).toBe(2);
    expect(delta(before, after, 'labelmaker_render_duration_seconds_count', { stock: 'dymo-30252' })).toBe(1);

    expect(delta(before, after, 'labelmaker_render_cache_requests_total', { result: 'hit' })).toBe(2);
    expect(delta(before, after, 'labelmaker_render_cache_requests_total', { result: 'miss' })).toBe(3);

    expect(delta(before, after, 'labelmaker_print_job_attempts_total', { driver: 'directory', outcome: 'printed' })).toBe(1);
    expect(delta(before, after, 'labelmaker_printer_errors_total', { driver: 'directory' })).toBe(0);
    expect(after.get(key('labelmaker_print_queue_jobs', { state: 'queued' }))).toBe(0);
    expect(after.get(key('labelmaker_print_queue_jobs', { state: 'printing' }))).toBe(0);
    // Process metrics come along under prom-client's conventional names (standard dashboards query them), none renamed.
    expect(after.get('process_resident_memory_bytes{}')).toBeGreaterThan(0);
    expect(after.get('nodejs_heap_size_used_bytes{}')).toBeGreaterThan(0);
    expect([...after.keys()].filter((k) => /^labelmaker_(process|nodejs)_/.test(k))).toEqual([]);
    // The release it runs, as an info gauge.
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(after.get(key('labelmaker_build_info', { version, nodejs: process.versions.node }))).toBe(1);
  });

  it('counts printer errors and retries by driver, the queue depth, and store errors', async () => {
    // A printer command that fails; retries are far apart, so the job waits queued. (A printer that is not
    // answering would not be tried at all: its status reads offline and the job is held, test/integration/printer-fleet.)
    srv = await startTestServer({ METRICS_LISTEN: '127.0.0.1:0', PRINTER_URI: 'command:', PRINTER_COMMAND: '["false"]', PRINT_RETRY_BASE_MS: '600000' });
    const before = await scrape(srv.metricsUrl!);
    expect((await fetch(`${srv.url}/v1/labelmaker/item/tape-measure?print=true`, { headers: { Authorization: `Bearer ${srv.tokens.print}` } })).status).toBe(200);
    let after = before;
    for (let i = 0; i < 200 && delta(before, after, 'labelmaker_print_job_attempts_total', { driver: 'command', outcome: 'retry' }) < 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scrape(srv.metricsUrl!);
    }
    expect(delta(before, after, 'labelmaker_printer_errors_total', { driver: 'command' })).toBe(1);
    expect(delta(before, after, 'labelmaker_print_job_attempts_total', { driver: 'command', outcome: 'retry' })).toBe(1);
    expect(after.get(key('labelmaker_print_queue_jobs', { state: 'queued' }))).toBe(1);

    // The database goes away: the label request is a 503, counted as a store error.
    await srv.store.close();
    expect((await fetch(`${srv.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${srv.tokens.read}` } })).status).toBe(503);
    const closed = await scrape(srv.metricsUrl!);
    expect(delta(after, closed, 'labelmaker_store_errors_total', { source: 'request' })).toBe(1);
  });
});
