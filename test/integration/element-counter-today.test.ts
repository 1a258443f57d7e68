/**
 * An element design's `{counter}` and `{today}` (issue 34) from the client's side: the real
 * server over a real SQLite file with the folder printer and an injected clock. A sheet PDF
 * numbers its labels 1 to 5 (its text read with pdftotext); a batch prints each label with its
 * own number (the printed PNGs compared with single labels); a label naming `{today}` gets a
 * new ETag the next day, one that does not keeps its ETag and its cached label.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMonoPng, getDot } from '../../src/labels/mono-png.js';
import { loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const TEMPLATES = '/v1/labelmaker/templates';
const PNG = { Accept: 'image/png, application/problem+json' };
let srv: TestServer;
let spool: string;
let clock = new Date('2026-11-28T10:00:00Z');
beforeAll(async () => {
  spool = mkdtempSync(join(tmpdir(), 'lm-counter-spool-'));
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50' }, undefined, { now: () => clock });
}, 240_000);
afterAll(async () => {
  await srv?.stop();
  rmSync(spool, { recursive: true, force: true });
});

async function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; token?: string } = {}) {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json', Authorization: `Bearer ${opts.token ?? srv.tokens.editor}`, Connection: 'close', ...opts.headers };
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(srv.url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const json = /json/.test(type) && body.length ? JSON.parse(body.toString('utf8')) : undefined;
  return { status: res.status, headers: res.headers, json, body };
}

const save = async (name: string, design: unknown) => {
  const res = await call('PUT', `${TEMPLATES}/${name}`, { body: design, headers: { 'If-None-Match': '*' } });
  // 412: saved by an earlier test of this file (each test may run alone).
  expect([201, 412], res.body.toString()).toContain(res.status);
};

/** Dark dots of a PNG label. */
const ink = (png: Buffer) => {
  const bm = decodeMonoPng(png);
  let n = 0;
  for (let y = 0; y < bm.height; y++) for (let x = 0; x < bm.width; x++) if (getDot(bm, x, y)) n++;
  return n;
};

const NUMBERED = {
  stock: 'brother-ql-62x29',
  footer: '',
  elements: [{ type: 'text', box: { x: 1, y: 1, width: 56, height: 20 }, text: 'No. {counter}', pt: { min: 10, max: 30 } }],
};

describe('{counter}', () => {
  it("numbers a sheet's labels 1 to 5 in the order printed", async () => {
    await save('numbered', NUMBERED);
    const records = ['garage', 'shelf-3', 'bin-12'].map((id) => ({ kind: 'location', id })).concat(['9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f', 'tape-measure'].map((id) => ({ kind: 'item', id })));
    const res = await call('POST', '/v1/labelmaker/sheets', { token: srv.tokens.read, headers: { Accept: 'application/pdf, application/problem+json' }, body: { sheet: 'avery-l7160', template: 'numbered', selection: { records } } });
    expect(res.status, res.body.toString()).toBe(200);
    // -layout: the page's rows as printed (L7160: three labels a row, left to right).
    const text = execFileSync('pdftotext', ['-layout', '-', '-'], { input: res.body }).toString('utf8');
    const numbers = [...text.matchAll(/No\. (\d+)/g)].map((m) => Number(m[1]));
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
  });

  it('gives each label of a batch its own number; copies of a label share it', async () => {
    await save('numbered', NUMBERED);
    const records = ['garage', 'shelf-3', 'bin-12'].map((id) => ({ kind: 'location', id }));
    const res = await call('POST', '/v1/labelmaker/print-jobs', { token: srv.tokens.print, body: { selection: { records }, template: 'numbered', copies: 2 } });
    expect(res.status, res.body.toString()).toBe(201);
    const jobs = res.json.jobs as string[];
    expect(jobs).toHaveLength(6);
    const until = Date.now() + 60_000;
    let files: string[] = [];
    while (Date.now() < until) {
      files = readdirSync(spool).filter((f) => f.endsWith('.png'));
      if (files.length >= 6) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const printed = jobs.map((id) => readFileSync(join(spool, files.find((f) => f.includes(id))!)));
    // Copies alike, the three labels unlike one another (the design draws nothing but the number).
    expect(printed[1]!.equals(printed[0]!)).toBe(true);
    expect(printed[3]!.equals(printed[2]!)).toBe(true);
    expect(new Set([printed[0], printed[2], printed[4]].map((p) => p!.toString('base64'))).size).toBe(3);
    // The first is the label a single request draws (No. 1); the second is not its own single label (also No. 1).
    const single = async (id: string) => (await call('GET', `/v1/labelmaker/location/${id}?template=numbered`, { token: srv.tokens.read, headers: PNG })).body;
    expect((await single('garage')).equals(printed[0]!)).toBe(true);
    expect((await single('shelf-3')).equals(printed[2]!)).toBe(false);
    expect(ink(printed[0]!)).toBeGreaterThan(100);
  });
});

describe('{today}', () => {
  it("puts the day in the ETag of a design naming it, so the next day's label is drawn afresh; other labels keep theirs", async () => {
    await save('dated', { stock: 'brother-ql-62x29', footer: '', elements: [{ type: 'text', box: { x: 1, y: 1, width: 56, height: 20 }, text: 'Printed {today|date:iso}', pt: { min: 8, max: 20 } }] });
    await save('undated', { ...NUMBERED, elements: [{ type: 'text', box: { x: 1, y: 1, width: 56, height: 20 }, text: '{name}' }] });
    const get = (template: string, etag?: string) =>
      call('GET', `/v1/labelmaker/item/tape-measure?template=${template}`, { token: srv.tokens.read, headers: { ...PNG, ...(etag ? { 'If-None-Match': etag } : {}) } });
    clock = new Date('2026-11-28T23:59:00Z');
    const first = await get('dated');
    const plain = await get('undated');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect((await get('dated', etag)).status).toBe(304);
    const rendersBefore = srv.labels.stats().renders;

    clock = new Date('2026-11-29T00:01:00Z');
    const next = await get('dated', etag);
    expect(next.status).toBe(200);
    expect(next.headers.get('etag')).not.toBe(etag);
    expect(next.body.equals(first.body)).toBe(false);
    expect(srv.labels.stats().renders).toBe(rendersBefore + 1);
    // A design without {today}: the same ETag the next day, answered 304.
    expect((await get('undated', plain.headers.get('etag')!)).status).toBe(304);
    expect(srv.labels.stats().renders).toBe(rendersBefore + 1);
  });
});

describe('{today} in LABEL_TIME_ZONE', () => {
  it("is the day where the labels are printed: in Auckland, noon UTC on the 28th is already the 29th", async () => {
    const auckland = await startTestServer({ LABEL_TIME_ZONE: 'Pacific/Auckland' }, undefined, { now: () => clock });
    try {
      const dated = { stock: 'brother-ql-62x29', footer: '', elements: [{ type: 'text', box: { x: 1, y: 1, width: 56, height: 20 }, text: 'Printed {today|date:iso}', pt: { min: 8, max: 20 } }] };
      await save('dated', dated);
      const put = await fetch(`${auckland.url}${TEMPLATES}/dated`, { method: 'PUT', headers: { Authorization: `Bearer ${auckland.tokens.editor}`, 'Content-Type': 'application/json', 'If-None-Match': '*' }, body: JSON.stringify(dated) });
      expect(put.status).toBe(201);
      const label = async (server: TestServer, at: string) => {
        clock = new Date(at);
        const res = await fetch(`${server.url}/v1/labelmaker/item/tape-measure?template=dated`, { headers: { ...PNG, Authorization: `Bearer ${server.tokens.read}` } });
        expect(res.status).toBe(200);
        return Buffer.from(await res.arrayBuffer());
      };
      const inAuckland = await label(auckland, '2026-11-28T12:00:00Z'); // 01:00 on the 29th in Auckland (UTC+13)
      const utc29 = await label(srv, '2026-11-29T12:00:00Z');
      const utc28 = await label(srv, '2026-11-28T12:00:00Z');
      // The same label as UTC's on the 29th ("Printed 2026-11-29"), not as UTC's on the 28th.
      expect(inAuckland.equals(utc29)).toBe(true);
      expect(inAuckland.equals(utc28)).toBe(false);
      expect(ink(utc28)).toBeGreaterThan(500);
    } finally {
      await auckland.stop();
    }
  }, 240_000);

  it('refuses a time zone the platform does not know, at start, naming the setting', () => {
    expect(() => loadConfig({ LABEL_TIME_ZONE: 'Mars/Olympus' })).toThrow(/^LABEL_TIME_ZONE must be an IANA time zone .*got 'Mars\/Olympus'/);
    expect(loadConfig({ LABEL_TIME_ZONE: 'europe/berlin' }).labelTimeZone).toBe('Europe/Berlin');
    expect(loadConfig({}).labelTimeZone).toBe('UTC');
  });
});
