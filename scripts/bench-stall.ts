/**
 * What the heaviest legitimate requests cost everyone else (issue 28): the built
 * service runs as its own process on SQLite (demo data plus 1000 items with asset
 * ids, a folder printer in a temp dir), and each heavy request runs alone while a
 * second client asks /healthz back to back (test/helpers/stall-probe.ts):
 *   - a 1000-label print batch on zebra-4x6-300dpi (the spec's limit), and then the
 *     folder printer printing its 1000 jobs;
 *   - a 1000-label sheet (Avery L7160, 48 pages);
 *   - a 20-megapixel 16-bit RGBA PNG (the spec's limit) to printImage;
 *   - a template preview with the largest logo allowed (a 4096 x 4096 16-bit PNG under 384 KiB).
 * Per request: its status and duration, /healthz p50/p99/max and the service's RSS at
 * the start and its peak, against the probe with the service idle in the same run,
 * and whether p99 is under 50 ms (the target). "busy p99/max": the service main
 * thread's CPU time during each /healthz wait, the part of a stall its own event loop
 * caused; on a machine shared with other work, latency also counts waiting for a core.
 *
 *   npm run bench:stall [-- --only batch,sheet --source --cpu-prof DIR]
 *
 * --source runs src/ through tsx instead of dist/ (no build); --cpu-prof DIR writes V8
 * CPU profiles of every thread there on exit (scripts/cpu-profile-summary.ts reads them).
 * The service's settings (RENDER_THREADS, ...) pass through from the environment.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { createToken } from '../src/commands.js';
import { DEMO_LOCATIONS } from '../src/records/demo.js';
import { demoRecords, openStore } from '../src/records/index.js';
import { probeStalls, type StallReport } from '../test/helpers/stall-probe.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    source: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'idle-seconds': { type: 'string', default: '3' },
  },
});
const LABELS = 1000;
const FIRST_ASSET = 70_000;
const P99_TARGET_MS = 50;
const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- PNGs at the limits ----
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/** A 16-bit RGBA PNG of black and white squares (compresses to a few hundred KB at any size). */
function checkerPng(width: number, height: number, square: number): Buffer {
  const rowBytes = 1 + width * 8;
  const rows = [0, 1].map((phase) => {
    const row = Buffer.alloc(rowBytes); // filter 0, then pixels
    for (let x = 0; x < width; x++) {
      const v = (Math.floor(x / square) + phase) % 2 ? 0xff : 0;
      row.fill(v, 1 + x * 8, 1 + x * 8 + 6); // R, G, B (16 bits each)
      row.fill(0xff, 1 + x * 8 + 6, 1 + x * 8 + 8); // opaque
    }
    return row;
  });
  const raw = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) rows[Math.floor(y / square) % 2]!.copy(raw, y * rowBytes);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([16, 6, 0, 0, 0], 8); // 16-bit, RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', ihdr), pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND', Buffer.alloc(0))]);
}

// ---- the service ----
async function seed(databaseUrl: string): Promise<string> {
  const store = await openStore(databaseUrl, { writes: 'inline' });
  try {
    await store.records.upsertMany(demoRecords());
    await store.records.upsertMany(
      Array.from({ length: LABELS }, (_, i) => ({ kind: 'item' as const, id: `stall-${i}`, name: `Stall bench crate ${i} of spare parts`, description: 'Shelf B, top', parentId: DEMO_LOCATIONS.shelf3, assetId: FIRST_ASSET + i })),
    );
    return (await createToken(store, 'bench-stall', ['labels:read', 'labels:print'])).token;
  } finally {
    await store.close();
  }
}

/** Node's flags and environment defaults of `npm start` (package.json), so the bench measures what is deployed. */
function startCommand(): { flags: string[]; env: Record<string, string> } {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string).split(/\s+/);
  return {
    flags: start.filter((a) => a.startsWith('--')),
    env: Object.fromEntries(start.flatMap((a) => {
      const m = /^(\w+)=\$\{\1:-(.*)\}$/.exec(a);
      return m ? [[m[1]!, m[2]!]] : [];
    })),
  };
}

async function startService(dir: string, databaseUrl: string, spool: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const { flags, env } = startCommand();
  const out = openSync(join(dir, 'service.log'), 'a');
  const prof = opts['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', opts['cpu-prof']] : [];
  const entry = opts.source ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : [join(ROOT, 'dist/main.js')];
  const child = spawn(process.execPath, [...flags, ...prof, ...entry], {
    cwd: ROOT,
    env: {
      ...env,
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      PRINTER_URI: pathToFileURL(spool).href,
      RATE_LIMIT_PER_MINUTE: '1000000',
      // The batch prints 1000 labels; the image print after it would find the quota spent.
      PRINT_QUOTA_PER_MINUTE: '1000000',
      // Figures, not time-outs, on a slow machine: a 503 at 30 s would hide the stall measured.
      REQUEST_TIMEOUT_MS: process.env.REQUEST_TIMEOUT_MS ?? '300000',
      PUBLIC_BASE_URL: 'https://inventory.example.test',
    },
    stdio: ['ignore', 'pipe', out],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /"url":"(http:\/\/[^"]+)".*labelmaker listening/.exec(text);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}; see ${join(dir, 'service.log')}:\n${text.slice(-2000)}`)));
  });
  child.stdout!.resume();
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    },
  };
}

function send(url: string, method: string, token: string, body: Buffer, type: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': type, 'Content-Length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---- the run ----
interface Row {
  what: string;
  status: string;
  ms: number;
  report: StallReport;
}
const rows: Row[] = [];
const wanted = (name: string) => !opts.only || opts.only.split(',').some((n) => name.includes(n));

const dir = mkdtempSync(join(tmpdir(), 'lm-bench-stall-'));
const spool = join(dir, 'printed');
const databaseUrl = `sqlite:${join(dir, 'labelmaker.db')}`;
if (!opts.source) {
  log('building dist/ if stale');
  await new Promise<void>((resolve, reject) => spawn(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], { stdio: 'inherit' }).once('exit', (c) => (c === 0 ? resolve() : reject(new Error('build failed')))));
}
log('seeding');
const token = await seed(databaseUrl);
log('making the PNGs at the limits');
const photo = checkerPng(5472, 3648, 96); // 19.96 megapixels
const logo = checkerPng(4096, 4096, 512);
const service = await startService(dir, databaseUrl, spool);
log(`service at ${service.url} (pid ${service.pid}); ${opts.source ? 'src/ through tsx' : 'dist/'}`);
try {
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));
  const api = (path: string) => `${service.url}/v1/labelmaker${path}`;
  const everyAsset = { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + LABELS - 1) };
  // Warm-up: every render thread loads its fonts; the first sheet and label of a kind are slower.
  await send(api('/sheets'), 'POST', token, json({ sheet: 'avery-l7160', selection: { assetIdFrom: String(FIRST_ASSET), assetIdTo: String(FIRST_ASSET + 41) } }), 'application/json');
  await sleep(500);

  const measure = async (what: string, run: () => Promise<{ status: number; body: Buffer } | string>) => {
    const probe = probeStalls(service.url, service.pid);
    await sleep(200);
    const t0 = performance.now();
    const r = await run();
    const ms = performance.now() - t0;
    const report = await probe.stop();
    const status = typeof r === 'string' ? r : r.status < 300 ? String(r.status) : `${r.status} ${r.body.toString('utf8').slice(0, 300)}`;
    rows.push({ what, status, ms, report });
    log(`${what}: ${status}, ${ms.toFixed(0)} ms, /healthz p99 ${report.p99Ms.toFixed(1)} ms, max ${report.maxMs.toFixed(1)} ms, main thread busy p99 ${report.busyP99Ms.toFixed(1)} ms, max ${report.busyMaxMs.toFixed(1)} ms, RSS ${report.rssStartMb.toFixed(0)} -> ${report.rssPeakMb.toFixed(0)} MB`);
  };

  await measure('idle (baseline)', async () => {
    await sleep(Number(opts['idle-seconds']) * 1000);
    return 'idle';
  });
  if (wanted('batch')) {
    await measure(`print batch, ${LABELS} labels, zebra-4x6-300dpi`, () => send(api('/print-jobs'), 'POST', token, json({ selection: everyAsset, template: 'zebra-4x6-300dpi' }), 'application/json'));
    const printed = () => readdirSync(spool).filter((f) => f.endsWith('.png')).length;
    await measure(`folder printer printing the batch's ${LABELS} jobs`, async () => {
      const until = Date.now() + 600_000;
      while (printed() < LABELS && Date.now() < until) await sleep(200);
      return `${printed()} printed`;
    });
  }
  if (wanted('sheet')) {
    await measure(`sheet, ${LABELS} labels, avery-l7160`, () => send(api('/sheets'), 'POST', token, json({ sheet: 'avery-l7160', selection: everyAsset }), 'application/json'));
  }
  if (wanted('image')) {
    await measure(`printImage, 20 MP 16-bit RGBA PNG (${(photo.length / 1024).toFixed(0)} KiB)`, () => send(api('/print-jobs/images?template=zebra-4x6-300dpi'), 'POST', token, photo, 'image/png'));
  }
  if (wanted('preview')) {
    const design = { stock: 'zebra-4x6-300dpi', lines: [{ field: 'name' }], codes: ['qr'], logo: { image: logo.toString('base64'), heightMm: 40 } };
    await measure(`preview, 4096 x 4096 16-bit logo (${(logo.length / 1024).toFixed(0)} KiB)`, () => send(api('/template-previews'), 'POST', token, json({ design, record: { kind: 'asset', id: String(FIRST_ASSET) } }), 'application/json'));
  }
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}

const idle = rows[0]!.report;
console.log(`\n/healthz while each request runs alone (probe: back-to-back GETs, 10 ms apart); idle p50 ${idle.p50Ms.toFixed(1)} ms, p99 ${idle.p99Ms.toFixed(1)} ms\n`);
const cols = ['request'.padEnd(56), 'status'.padEnd(12), 'ms'.padStart(7), 'n'.padStart(5), 'p50'.padStart(7), 'p99'.padStart(7), 'max'.padStart(7), 'busy p99'.padStart(9), 'busy max'.padStart(9), 'RSS start'.padStart(10), 'RSS peak'.padStart(9), `p99<${P99_TARGET_MS}`.padStart(7)];
console.log(cols.join(' '));
for (const { what, status, ms, report: r } of rows) {
  console.log([
    what.padEnd(56), status.slice(0, 12).padEnd(12), ms.toFixed(0).padStart(7), String(r.samples).padStart(5), r.p50Ms.toFixed(1).padStart(7), r.p99Ms.toFixed(1).padStart(7), r.maxMs.toFixed(1).padStart(7),
    r.busyP99Ms.toFixed(1).padStart(9), r.busyMaxMs.toFixed(1).padStart(9),
    r.rssStartMb.toFixed(0).padStart(10), r.rssPeakMb.toFixed(0).padStart(9), (r.p99Ms < P99_TARGET_MS ? 'yes' : 'NO').padStart(7),
  ].join(' '));
}
for (const { what, status } of rows) if (status.length > 12) console.log(`\n${what}: ${status}`);
