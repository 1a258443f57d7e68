/**
 * Throughput by instance count: 1, 2 and 3 instances of the built service
 * (`node dist/main.js`, real processes) over one PostgreSQL database, behind the
 * round-robin front (scripts/lib/round-robin.ts), under a closed-loop load of label
 * requests (a mix of stocks and records, as the scale-out test sends). A benchmark
 * figure, not a test: prints requests/s, p50/p99 and the ratio to one instance,
 * measured in the same run. Growth is bounded by the machine's cores (the front and
 * the load generator share them).
 *
 *   npm run bench:scale
 *   npm run bench:scale -- --instances 1,2 --seconds 5 --connections 32
 *
 * PostgreSQL: LABELMAKER_BENCH_PG_URL, else LABELMAKER_TEST_PG_URL, else the local test database (scripts/lib/bench-schema.ts);
 * each run uses its own schema and drops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createToken } from '../src/commands.js';
import { openStore } from '../src/records/index.js';
import { startRoundRobin } from './lib/round-robin.js';
import { benchSchema } from './lib/bench-schema.js';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '1,2,3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
  },
});
const COUNTS = args.instances.split(',').map(Number);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const ROOT = new URL('..', import.meta.url).pathname;
const ENTRY = join(ROOT, 'dist', 'main.js');

const RECORDS = [
  { kind: 'location' as const, id: 'garage', name: 'Garage', description: '', parentId: null, assetId: null },
  { kind: 'location' as const, id: 'shelf-3', name: 'Shelf 3', description: '', parentId: 'garage', assetId: null },
  { kind: 'item' as const, id: 'drill', name: 'Cordless drill', description: '18 V', parentId: 'shelf-3', assetId: 1 },
  { kind: 'item' as const, id: 'tape', name: 'Tape measure 5 m', description: '', parentId: 'shelf-3', assetId: 42 },
];
const PATHS = [
  '/v1/labelmaker/assets/000-001',
  '/v1/labelmaker/item/tape',
  '/v1/labelmaker/location/shelf-3',
  '/v1/labelmaker/location/garage?template=dymo-30252',
  '/v1/labelmaker/item/drill?template=brother-ql-29',
  '/v1/labelmaker/records?q=drill',
];

function startInstance(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [ENTRY], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${out}`)), 30_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"url":"(http:\/\/[^"]+)".*labelmaker listening/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        out = ''; // the log stream keeps flowing; keep nothing
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, url: m[1] });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => reject(new Error(`instance exited with ${code}:\n${out}`)));
  });
}

/** CONNECTIONS clients, each sending its next request when the last one answered, for SECONDS. */
async function closedLoop(url: string, token: string): Promise<{ rps: number; p50: number; p99: number; errors: number; statuses: Map<number, number> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  const statuses = new Map<number, number>(); // non-200 answers by status (0: no answer)
  let n = 0;
  const one = (path: string) =>
    new Promise<number>((resolve) => {
      const req = request({ host: hostname, port, path, agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
  const until = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        const status = await one(PATHS[n++ % PATHS.length]!);
        latencies.push(performance.now() - t);
        if (status !== 200) {
          errors++;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { rps: latencies.length / elapsed, p50: q(0.5), p99: q(0.99), errors, statuses };
}

async function main(): Promise<void> {
  if (!existsSync(ENTRY)) throw new Error('dist/main.js is missing: run `npm run build` first (npm run bench:scale does)');
  const schema = await benchSchema();
  const url = schema.url;
  const rows: { instances: number; rps: number; p50: number; p99: number; errors: number; statuses: Map<number, number> }[] = [];
  try {
    const store = await openStore(url);
    await store.records.upsertMany(RECORDS);
    const { token } = await createToken(store, 'bench', ['labels:read']);
    await store.close();
    for (const count of COUNTS) {
      process.stderr.write(`${count} instance(s): starting… `);
      const env = { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '1000000', TRUST_PROXY: 'loopback', LOG_LEVEL: 'info', PUBLIC_BASE_URL: 'https://inventory.example.com' };
      const instances = await Promise.all(Array.from({ length: count }, () => startInstance(env)));
      const front = await startRoundRobin(instances.map((i) => i.url));
      try {
        process.stderr.write('warming up… ');
        await closedLoopFor(front.url, token, 2);
        process.stderr.write('measuring…\n');
        rows.push({ instances: count, ...(await closedLoop(front.url, token)) });
      } finally {
        await front.close();
        for (const i of instances) i.child.kill('SIGTERM');
        await Promise.all(instances.map((i) => new Promise((r) => (i.child.exitCode !== null ? r(null) : i.child.once('exit', r)))));
      }
    }
  } finally {
    await schema.drop();
  }
  const base = rows[0]!;
  console.log(`\nThroughput by instance count, ${new Date().toISOString()}: built service over one PostgreSQL database behind a round-robin`);
  console.log(`loopback front; ${CONNECTIONS} connections, ${SECONDS} s each; label requests on 5 stocks plus a record search; ${availableParallelism()} cores, load average ${loadavg()[0]!.toFixed(1)} (shared machine)\n`);
  const head = ['instances', 'requests/s', 'vs 1 instance', 'p50 ms', 'p99 ms', 'non-200'];
  const lines = rows.map((r) => [String(r.instances), r.rps.toFixed(0), `${(r.rps / base.rps).toFixed(2)}x`, r.p50.toFixed(1), r.p99.toFixed(1), r.errors ? `${r.errors} (${[...r.statuses].map(([code, count]) => `${code || 'no answer'}: ${count}`).join(', ')})` : '0']);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log([fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n'));
}

/** A short unmeasured run: connections opened, code paths warm, caches full. */
async function closedLoopFor(url: string, token: string, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) await fetch(url + PATHS[Math.floor(Math.random() * PATHS.length)]!, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
