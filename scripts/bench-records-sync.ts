/**
 * Bulk record writes over HTTP (upsertRecords) against the CLI import of the same file,
 * measured in the same run: for each store and size, one fresh database gets the file
 * through `labelmaker import` (the baseline, a process of its own), another through a
 * real server process (`node dist/main.js`) with one POST of the same bytes, streamed.
 * Prints wall time and peak RSS (VmHWM) of the CLI and of the server, and their ratios.
 *
 * What the sync costs everyone else: a separate client (this process; the server is
 * another) asks GET /healthz every HEALTH_EVERY_MS, first for IDLE_MS with nothing else
 * running, then all the while the sync runs; p50, p99 and max latency of both, and
 * busy/idle ratios. /healthz reads the store and, every two seconds, probes a write.
 *
 *   npm run bench:records-sync
 *   npm run bench:records-sync -- --sizes 100000 --stores sqlite
 *   npm run bench:records-sync -- --server-root /tmp/other-checkout   (its dist/main.js serves: a before/after in the same conditions)
 *   npm run bench:records-sync -- --no-cli   (no CLI baseline: only the server's figures)
 *
 * PostgreSQL: LABELMAKER_BENCH_PG_URL, else LABELMAKER_TEST_PG_URL, else the local test
 * database (scripts/lib/bench-schema.ts); each database is a schema of its own, dropped after.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { SITE_CSV, writeInventory } from './lib/import-data.js';
import { benchSchema } from './lib/bench-schema.js';
import { freePort, peakRss, runCli } from './lib/bench-process.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'server-root': { type: 'string' },
    'no-cli': { type: 'boolean', default: false },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const STORES = args.stores.split(',') as ('sqlite' | 'postgres')[];
const ROOT = new URL('..', import.meta.url).pathname;
/** The server's build: this checkout's (as the CLI's), or another's (--server-root). */
const SERVER_ROOT = args['server-root'] ?? ROOT;
const SERVER_ENTRY = join(SERVER_ROOT, 'dist', 'main.js');
/** How long /healthz is asked with nothing else running, and how often it is asked. */
const IDLE_MS = 3_000;
const HEALTH_EVERY_MS = 50;

interface Latency {
  p50: number;
  p99: number;
  max: number;
  n: number;
  /** Answers other than 200, and dropped connections. */
  failures?: number;
}

function latencyOf(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN, n: sorted.length };
}

/** Asks GET url every HEALTH_EVERY_MS (one at a time) until stopped; the latencies, ms. */
function pollHealth(url: string): { stop(): Promise<Latency> } {
  // The answers' failures are counted (Latency.failures), never thrown.
  const samples: number[] = [];
  let failures = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      // A connection the server dropped (say, a keep-alive that timed out while it stalled) counts as its time, and as a failure.
      const ok = await fetch(`${url}/healthz`).then(
        async (res) => (await res.arrayBuffer(), res.status === 200),
        () => false,
      );
      samples.push(performance.now() - started);
      if (!ok) failures++;
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { ...latencyOf(samples), failures };
    },
  };
}

const cli = (argv: string[], env: Record<string, string>) => runCli(ROOT, argv, env);

async function startServerProcess(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: SERVER_ROOT,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: 'https://inventory.example.test', ACCESS_LOG: 'errors', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 1200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${stderr}`);
    try {
      if ((await fetch(`${url}/livez`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error(`the server did not start:\n${stderr}`);
}

interface Row {
  store: string;
  records: number;
  cliS: number;
  cliRssMb: number;
  httpS: number;
  serverIdleRssMb: number;
  serverPeakRssMb: number;
  idle: Latency;
  busy: Latency;
}

async function freshDatabase(kind: 'sqlite' | 'postgres', dir: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (kind === 'postgres') {
    const schema = await benchSchema();
    return { url: schema.url, drop: schema.drop };
  }
  const path = join(dir, `${name}.db`);
  const files = [path, `${path}-wal`, `${path}-shm`];
  for (const f of files) rmSync(f, { force: true });
  return { url: `sqlite:${path}`, drop: async () => files.forEach((f) => rmSync(f, { force: true })) };
}

async function benchOne(kind: 'sqlite' | 'postgres', size: number, dir: string): Promise<Row> {
  const file = join(dir, `inventory-${size}.json`);
  if (!existsSync(file)) await writeInventory(file, size, 'json');
  const site = join(dir, 'site.csv');

  // Baseline: the CLI import of the file (--no-cli: none; the /healthz figures have their own).
  let cliRun: Awaited<ReturnType<typeof cli>> = { seconds: NaN, peakRssMb: NaN, stdout: '' };
  process.stderr.write(`${kind} ${size}: `);
  if (!args['no-cli']) {
    const base = await freshDatabase(kind, dir, `cli-${size}`);
    try {
      await cli(['import', site], { DATABASE_URL: base.url });
      process.stderr.write('CLI import… ');
      cliRun = await cli(['import', file], { DATABASE_URL: base.url });
    } finally {
      await base.drop();
    }
  }

  // The same bytes through a server process, streamed in one POST.
  const db = await freshDatabase(kind, dir, `http-${size}`);
  try {
    await cli(['import', site], { DATABASE_URL: db.url });
    const created = await cli(['tokens', 'create', '--name', 'bench', '--scopes', 'records:write'], { DATABASE_URL: db.url });
    const token = /\b(lm_[A-Za-z0-9_-]+)/.exec(created.stdout)?.[1];
    if (!token) throw new Error(`no token in: ${created.stdout}`);
    const { url, child } = await startServerProcess({ DATABASE_URL: db.url });
    try {
      const idleStatus = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const serverIdleRssMb = Number(/VmRSS:\s+(\d+) kB/.exec(idleStatus)?.[1] ?? NaN) / 1024;
      process.stderr.write(`${cliRun.seconds.toFixed(1)} s; /healthz idle… `);
      await fetch(`${url}/healthz`); // the first answer is made while the server warms up
      const idlePoll = pollHealth(url);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idle = await idlePoll.stop();
      process.stderr.write(`HTTP… `);
      const rss = peakRss(child.pid!);
      const busyPoll = pollHealth(url);
      const started = performance.now();
      const res = await fetch(`${url}/v1/labelmaker/records/bulk`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': `bench-${size}` },
        body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
        duplex: 'half',
      } as RequestInit);
      const answer = (await res.json()) as { records?: number; written?: number };
      const httpS = (performance.now() - started) / 1000;
      const serverPeakRssMb = rss.stop();
      const busy = await busyPoll.stop();
      if (res.status !== 200 || answer.written !== size) throw new Error(`upsertRecords answered ${res.status}: ${JSON.stringify(answer).slice(0, 500)}`);
      process.stderr.write(`${httpS.toFixed(1)} s\n`);
      return { store: kind, records: size, cliS: cliRun.seconds, cliRssMb: cliRun.peakRssMb, httpS, serverIdleRssMb, serverPeakRssMb, idle, busy };
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  } finally {
    await db.drop();
  }
}

function markdown(head: string[], lines: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

function healthTable(rows: Row[]): string {
  const ms = (v: number) => v.toFixed(v < 10 ? 1 : 0);
  const cell = (l: Latency) => `${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}`;
  const ratio = (busy: number, idle: number) => `${(busy / idle).toFixed(1)}x`;
  return markdown(
    ['store', 'records', '/healthz idle ms p50 / p99 / max', 'during the sync', 'ratio p50 / p99 / max', 'asked idle / busy (failed)'],
    rows.map((r) => [r.store, r.records.toLocaleString('en-US'), cell(r.idle), cell(r.busy), `${ratio(r.busy.p50, r.idle.p50)} / ${ratio(r.busy.p99, r.idle.p99)} / ${ratio(r.busy.max, r.idle.max)}`, `${r.idle.n} / ${r.busy.n} (${(r.idle.failures ?? 0) + (r.busy.failures ?? 0)})`]),
  );
}

function table(rows: Row[]): string {
  const head = ['store', 'records', 'CLI import s', 'HTTP bulk s', 'time HTTP/CLI', 'CLI peak RSS MB', 'server RSS MB idle → peak', 'RSS server peak/CLI peak'];
  const lines = rows.map((r) => [
    r.store,
    r.records.toLocaleString('en-US'),
    r.cliS.toFixed(1),
    r.httpS.toFixed(1),
    `${(r.httpS / r.cliS).toFixed(2)}x`,
    r.cliRssMb.toFixed(0),
    `${r.serverIdleRssMb.toFixed(0)} → ${r.serverPeakRssMb.toFixed(0)}`,
    `${(r.serverPeakRssMb / r.cliRssMb).toFixed(2)}x`,
  ]);
  return markdown(head, lines);
}

const dir = mkdtempSync(join(tmpdir(), 'lm-bench-sync-'));
try {
  writeFileSync(join(dir, 'site.csv'), SITE_CSV);
  const rows: Row[] = [];
  for (const kind of STORES) for (const size of SIZES) rows.push(await benchOne(kind, size, dir));
  console.log(table(rows));
  console.log('\nThe HTTP bulk write (upsertRecords, one streamed POST of the same JSON file) against the CLI import of it, each into a fresh database, in this run.\n');
  console.log(healthTable(rows));
  console.log(`\nGET /healthz from a separate client, one at a time every ${HEALTH_EVERY_MS} ms: for ${IDLE_MS / 1000} s with nothing else running, then while the sync above ran.${SERVER_ROOT === ROOT ? '' : ` Server: ${SERVER_ENTRY}.`}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
