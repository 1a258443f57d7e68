/**
 * Homebox as a client: its external label service GET and its print command,
 * replayed byte for byte as Homebox sends them (test/homebox-grocy/replay.ts),
 * against the real server printing into a folder.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { getStock } from '../../src/labels/index.js';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';
import { PUBLIC_BASE, startTestServer, type TestServer } from '../helpers/server.js';
import { dots, inkBox } from '../labels/ink.js';
import { homeboxGet, homeboxQuery } from './replay.js';

/** PNGs to look at (git-ignored); a fresh clone has no out/ yet. */
const OUT = join(process.cwd(), 'out');
mkdirSync(OUT, { recursive: true });

let srv: TestServer;
let key: string;
let keyId: string;
let renderOnly: string;
let spool: string;
const logLines: string[] = [];
const ITEM = '6f1c2a9e-4b3d-4c5e-8f7a-1b2c3d4e5f60';
const LOCATION = '80cb3e71-fb14-40fb-981c-e86eaa33bea1';

/** Homebox's settings as docs/integrations/homebox.env gives them (the README shows the same lines). */
const HOMEBOX_ENV = Object.fromEntries(
  readFileSync(join(process.cwd(), 'docs/integrations/homebox.env'), 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
/** The documented setting, pointed at this test's server and key. */
const documented = (name: string, k: string) => HOMEBOX_ENV[name]!.replaceAll('http://labelmaker:8080', srv.url).replaceAll('<KEY>', k);

beforeAll(async () => {
  spool = mkdtempSync(join(tmpdir(), 'lm-homebox-spool-'));
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) });
  srv = await startTestServer({ PRINTER_URI: pathToFileURL(spool).href, ACCESS_LOG: 'all' }, logger);
  const created = await createToken(srv.store, 'homebox', ['integrations:render', 'integrations:print']);
  key = created.token;
  keyId = created.info.id;
  renderOnly = (await createToken(srv.store, 'homebox-view', ['integrations:render'])).token;
});
afterAll(async () => {
  await srv?.stop();
  rmSync(spool, { recursive: true, force: true });
});

const labelPath = (k: string, template = 'brother-ql-62x29') => `/v1/integrations/homebox/${k}/labels/${template}`;

async function codes(png: Buffer) {
  return (await decodeBarcodes(png)).map((c) => `${c.format}:${c.text}`).sort();
}

describe('Homebox external label service', () => {
  it('an item label with Homebox\'s absolute URL: 200 PNG on the real stock, QR scans to the URL, title and location drawn', async () => {
    const url = `https://homebox.example.com/item/${ITEM}`;
    // The documented HBOX_LABEL_MAKER_LABEL_SERVICE_URL: only its path survives (Homebox replaces the query).
    const service = new URL(documented('HBOX_LABEL_MAKER_LABEL_SERVICE_URL', key));
    expect(service.pathname).toBe(labelPath(key));
    const res = await homeboxGet(srv.url, service.pathname, homeboxQuery({ TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: url }));
    expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/png/);
    const stock = getStock('brother-ql-62x29');
    const header = readPngHeader(res.body);
    expect([header.width, header.height]).toEqual([stock.widthDots, stock.lengthDots]);
    expect(header.bitDepth).toBe(1);
    expect(await codes(res.body)).toEqual([`QRCode:${url}`]);
    // Ink stays on the label: nothing touches the outermost dots.
    const box = inkBox(dots(res.body))!;
    expect(box.x0).toBeGreaterThan(0);
    expect(box.y0).toBeGreaterThan(0);
    expect(box.x1).toBeLessThan(stock.widthDots);
    expect(box.y1).toBeLessThan(stock.lengthDots!);
    writeFileSync(join(OUT, 'homebox-item.png'), res.body);
    // Homebox gives up after 30 s; a first (uncached) label comes far sooner.
    expect(res.ms).toBeLessThan(5_000);
    console.log(`homebox GET (first render, item label, brother-ql-62x29): ${res.ms} ms`);
  });

  it('a relative URL (Homebox without its host name) gets PUBLIC_BASE_URL: the QR scans to an absolute URL', async () => {
    const res = await homeboxGet(srv.url, labelPath(key), homeboxQuery({ TitleText: 'Garage shelf', DescriptionText: 'Homebox Location', URL: `/location/${LOCATION}` }));
    expect(res.status).toBe(200);
    expect(await codes(res.body)).toEqual([`QRCode:${PUBLIC_BASE}/location/${LOCATION}`]);
    writeFileSync(join(OUT, 'homebox-location.png'), res.body);
  });

  it('an asset label: QR of /a/000-001 and the asset id as its title, on Homebox\'s own 526 x 200 stock (too short for a sturdy Code 128)', async () => {
    const res = await homeboxGet(
      srv.url,
      labelPath(key, 'homebox-526x200'),
      homeboxQuery({ TitleText: '000-001', DescriptionText: 'Cordless drill\nLocation: Garage', URL: '/a/000-001' }, 'Property of ACME'),
    );
    expect(res.status).toBe(200);
    const header = readPngHeader(res.body);
    expect([header.width, header.height]).toEqual([526, 200]);
    expect(await codes(res.body)).toEqual([`QRCode:${PUBLIC_BASE}/a/000-001`]);
    writeFileSync(join(OUT, 'homebox-asset.png'), res.body);
  });

  it("Homebox's AdditionalInformation (one line for the whole instance) is printed as the footer", async () => {
    const text = { TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: `/item/${ITEM}` };
    const plain = await homeboxGet(srv.url, labelPath(key), homeboxQuery(text));
    const footed = await homeboxGet(srv.url, labelPath(key), homeboxQuery(text, 'Property of ACME'));
    expect(footed.status).toBe(200);
    // The footer adds ink along the bottom of the label, below everything the plain label has.
    const a = inkBox(dots(plain.body))!;
    const b = inkBox(dots(footed.body))!;
    expect(b.y1).toBeGreaterThan(a.y1);
    expect(await codes(footed.body)).toEqual([`QRCode:${PUBLIC_BASE}/item/${ITEM}`]);
  });

  it('an AdditionalInformation over 500 characters (Homebox has no limit) is printed shortened with a warning, not refused', async () => {
    const text = { TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: `/item/${ITEM}` };
    const long = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' '); // 829 characters
    const plain = await homeboxGet(srv.url, labelPath(key), homeboxQuery(text));
    const res = await homeboxGet(srv.url, labelPath(key), homeboxQuery(text, long));
    expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
    expect(res.headers['label-warnings']).toBe('footer-shortened');
    // The footer: a full line of ink across the text column's bottom fifth (the plain label has only "Garage" there).
    const bottomRight = (png: Buffer) => {
      const d = dots(png);
      return (inkBox(d, Math.round(d.width * 0.4), Math.round(d.height * 0.8))?.x1 ?? 0) / d.width;
    };
    expect(bottomRight(plain.body)).toBeLessThan(0.7);
    expect(bottomRight(res.body)).toBeGreaterThan(0.85);
    expect(await codes(res.body)).toEqual([`QRCode:${PUBLIC_BASE}/item/${ITEM}`]);
    writeFileSync(join(OUT, 'homebox-long-footer.png'), res.body);
    const short = await homeboxGet(srv.url, labelPath(key), homeboxQuery(text, 'Property of ACME'));
    expect(short.headers['label-warnings']).toBeUndefined();
  });

  it('the same label again comes from the cache (time-to-response figure)', async () => {
    const q = homeboxQuery({ TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: `https://homebox.example.com/item/${ITEM}` });
    const times: number[] = [];
    for (let i = 0; i < 5; i++) times.push((await homeboxGet(srv.url, labelPath(key), q)).ms);
    times.sort((a, b) => a - b);
    console.log(`homebox GET (cached label): median ${times[2]} ms of 5`);
    expect(times[2]).toBeLessThan(1_000);
  });

  it('refuses what Homebox cannot turn into a label with a problem of the right status', async () => {
    const q = homeboxQuery({ TitleText: 'x', DescriptionText: '', URL: '/item/1' });
    const unknownTemplate = await homeboxGet(srv.url, labelPath(key, 'no-such-template'), q);
    expect(unknownTemplate.status).toBe(400);
    expect(unknownTemplate.headers['content-type']).toBe('application/problem+json');
    // The template is in the path here, and the problem says so.
    expect(JSON.parse(unknownTemplate.body.toString()).detail).toMatch(/^path parameter template: no template is named no-such-template/);
  });
});

describe('integration keys', () => {
  const q = homeboxQuery({ TitleText: 'Drill', DescriptionText: '', URL: '/item/abc' });

  it('a wrong, malformed or revoked key is a 401; the key never appears in the answer', async () => {
    const wrong = `lm_${keyId}_${'A'.repeat(43)}`;
    for (const k of [wrong, 'not-a-key']) {
      const res = await homeboxGet(srv.url, labelPath(k), q);
      expect(res.status).toBe(401);
      expect(res.body.toString()).not.toContain(k);
      expect(JSON.parse(res.body.toString()).instance).toContain('/v1/integrations/homebox/***/labels/');
    }
    const doomed = await createToken(srv.store, 'doomed', ['integrations:render']);
    expect((await homeboxGet(srv.url, labelPath(doomed.token), q)).status).toBe(200);
    // Revoked in the database, as `labelmaker tokens revoke` (another process) does: refused within TOKEN_CACHE_MS (1 s).
    await srv.store.tokens.revoke(doomed.info.id);
    await new Promise((r) => setTimeout(r, srv.config.tokenCacheMs + 100));
    expect((await homeboxGet(srv.url, labelPath(doomed.token), q)).status).toBe(401);
  });

  it('an ordinary API token cannot be used as a key, and a key opens nothing else', async () => {
    expect((await homeboxGet(srv.url, labelPath(srv.tokens.print), q)).status).toBe(403);
    for (const path of ['/v1/labelmaker/item/tape-measure', '/v1/labelmaker/records', '/v1/labelmaker/templates', '/v1/labelmaker/session']) {
      const res = await fetch(srv.url + path, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status, path).toBe(403);
    }
    const printImage = await fetch(`${srv.url}/v1/labelmaker/print-jobs/images`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'image/png' }, body: new Uint8Array((await homeboxGet(srv.url, labelPath(key), q)).body) });
    expect(printImage.status).toBe(403);
  });

  it('each key has its own request budget (not its address\'s, which every key on one Homebox would share)', async () => {
    const fresh = (await createToken(srv.store, 'budget', ['integrations:render'])).token;
    const first = await homeboxGet(srv.url, labelPath(fresh), q);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe(String(Number(first.headers['ratelimit-limit']) - 1));
    const second = await homeboxGet(srv.url, labelPath(fresh), q);
    expect(second.headers['ratelimit-remaining']).toBe(String(Number(first.headers['ratelimit-limit']) - 2));
  });

  it('a render-only key cannot print', async () => {
    const png = (await homeboxGet(srv.url, labelPath(key), q)).body; // a label this key may draw
    const res = await fetch(`${srv.url}/v1/integrations/homebox/${renderOnly}/print-jobs/brother-ql-62x29`, { method: 'POST', headers: { 'Content-Type': 'image/png' }, body: new Uint8Array(png) });
    expect(res.status).toBe(403);
  });
});

describe('printing from Homebox (HBOX_LABEL_MAKER_PRINT_COMMAND)', () => {
  it('the README command, run as Homebox runs it (template filled in, split on spaces, no shell), queues the PNG and it prints once', async () => {
    const fetched = await homeboxGet(srv.url, labelPath(key), homeboxQuery({ TitleText: 'Cordless drill', DescriptionText: '\nLocation: Garage', URL: `https://homebox.example.com/item/${ITEM}` }));
    const dir = mkdtempSync(join(tmpdir(), 'homebox-label-'));
    const file = join(dir, 'label-1234.png');
    writeFileSync(file, fetched.body);
    // As Homebox runs it: the Go template filled in, split on white space (strings.Fields), no shell.
    const argv = documented('HBOX_LABEL_MAKER_PRINT_COMMAND', key).replace('{{.FileName}}', file).trim().split(/\s+/);
    expect(argv[0]).toBe('wget');
    const before = readdirSync(spool).length;
    const { stdout } = await promisify(execFile)(argv[0]!, argv.slice(1), { timeout: 20_000 });
    rmSync(dir, { recursive: true, force: true });
    const job = JSON.parse(stdout) as { id: string; state: string; template: string };
    expect(job.template).toBe('brother-ql-62x29');
    // The worker delivers it to the folder printer.
    const deadline = Date.now() + 10_000;
    let printed: string[] = [];
    while (Date.now() < deadline) {
      printed = readdirSync(spool).filter((n) => n.includes(job.id));
      if (printed.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(printed).toHaveLength(1);
    expect(readdirSync(spool).length).toBe(before + 1);
    const doc = readFileSync(join(spool, printed[0]!));
    // Already at the stock's dots: printed exactly as drawn.
    expect(await codes(doc)).toEqual([`QRCode:https://homebox.example.com/item/${ITEM}`]);
    expect(doc.equals(fetched.body) || readPngHeader(doc).width === 696).toBe(true);
  });
});

describe("the spec's print command (printHomeboxLabel's description)", () => {
  it('run as written, as Homebox runs it (split on spaces, no shell), queues the PNG', async () => {
    const spec = readFileSync(join(process.cwd(), 'spec/openapi.yaml'), 'utf8');
    const op = spec.slice(spec.indexOf('operationId: printHomeboxLabel'));
    const command = /^\s*`(wget [^`]+)`$/m.exec(op.slice(0, op.indexOf('tags:')))![1]!;
    const fetched = await homeboxGet(srv.url, labelPath(key), homeboxQuery({ TitleText: 'Spec drill', DescriptionText: '', URL: `/item/${ITEM}` }));
    const dir = mkdtempSync(join(tmpdir(), 'homebox-label-'));
    const file = join(dir, 'label-1.png');
    writeFileSync(file, fetched.body);
    const argv = command.replaceAll('https://labels.example.com', srv.url).replace('<KEY>', key).replace('{{.FileName}}', file).split(/\s+/);
    try {
      const { stdout } = await promisify(execFile)(argv[0]!, argv.slice(1), { timeout: 20_000 });
      expect((JSON.parse(stdout) as { template: string }).template).toBe('brother-ql-62x29');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('logs', () => {
  it('no log line holds an integration key (or its secret)', () => {
    expect(logLines.length).toBeGreaterThan(5);
    const secret = key.slice(12);
    const leaks = logLines.filter((l) => l.includes(secret) || l.includes(renderOnly.slice(12)) || l.includes('not-a-key'));
    expect(leaks).toEqual([]);
    expect(logLines.some((l) => l.includes('/v1/integrations/homebox/***/labels/'))).toBe(true);
  });
});
