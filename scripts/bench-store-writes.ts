/**
 * SQLite writes off the event loop: the service with its writes on the writer thread
 * (as it runs) against the same service with its writes on the event loop (the
 * writer's 'inline' mode, which is how every write ran before), in one run, over the
 * same database, same machine, same minutes. Phases alternate (inline, thread,
 * inline, thread) so drift on a shared machine hits both; the table shows each
 * phase's best round, and the ratios thread / inline.
 *
 * Phases, each a closed loop of C keep-alive connections for D seconds against a
 * server in its own process (so the load generator does not share its event loop):
 * - prints: every request is `?print=true` (render, then store the job: a committed,
 *   fsynced write), while the print worker delivers jobs to a folder;
 * - mixed: half the requests print, half only read labels;
 * - reads-while-printing: the label reads' own latency while other connections print.
 *
 * Run: npm run bench:store-writes [-- seconds [connections]]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToken } from '../src/commands.js';
import { openStore } from '../src/records/index.js';
import { FIXTURES } from '../test/helpers/server.js';

const SECONDS = Number(process.argv[2] ?? 6);
const CONNECTIONS = Number(process.argv[3] ?? 16);
const ROUNDS = 2;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const READS = ['/v1/labelmaker/location/bin-12', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage'];

type Mode = 'inline' | 'thread';
interface Result {
  rps: number;
  printRps: number;
  readP50: number;
  readP99: number;
  printP50: number;
  printP99: number;
  errors: number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-writes-'));
  try {
    const db = join(dir, 'labelmaker.db');
    const store = await openStore(`sqlite:${db}`, { writes: 'inline' });
    await store.records.upsertMany(FIXTURES);
    const { token } = await createToken(store, 'bench', ['labels:read', 'labels:print']);
    await store.close();

    const phases: { name: string; printShare: number }[] = [
      { name: 'prints', printShare: 1 },
      { name: 'mixed (1/2 print)', printShare: 0.5 },
      { name: 'reads while printing (1/4 print)', printShare: 0.25 },
    ];
    const best = new Map<string, Result>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['inline', 'thread'] as Mode[]) {
        const server = await startServer(mode, db, join(dir, `spool-${mode}-${round}`));
        try {
          await run(server.url, token, 0.5, 1); // warm-up: first renders, connections, JIT
          for (const phase of phases) {
            const r = await run(server.url, token, phase.printShare, SECONDS);
            const key = `${phase.name}|${mode}`;
            const prev = best.get(key);
            if (!prev || r.rps > prev.rps) best.set(key, r);
            process.stderr.write(`round ${round + 1} ${mode.padEnd(6)} ${phase.name}: ${r.rps.toFixed(0)} req/s\n`);
          }
        } finally {
          server.child.kill('SIGTERM');
          await new Promise((resolve) => server.child.once('exit', resolve));
        }
      }
    }

    const rows = [['phase', 'writes', 'req/s', 'prints/s', 'read p50 ms', 'read p99 ms', 'print p50 ms', 'print p99 ms', 'errors']];
    for (const phase of phases) {
      for (const mode of ['inline', 'thread'] as Mode[]) {
        const r = best.get(`${phase.name}|${mode}`)!;
        rows.push([phase.name, mode === 'inline' ? 'event loop' : 'writer thread', r.rps.toFixed(0), r.printRps.toFixed(0), fmt(r.readP50), fmt(r.readP99), fmt(r.printP50), fmt(r.printP99), String(r.errors)]);
      }
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    console.log(`\nSQLite writes: writer thread vs event loop (${CONNECTIONS} connections, ${SECONDS} s per phase, best of ${ROUNDS} rounds; machine shared)\n`);
    for (const r of rows) console.log(r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  '));
    console.log('\nratios, writer thread / event loop:');
    for (const phase of phases) {
      const a = best.get(`${phase.name}|inline`)!;
      const b = best.get(`${phase.name}|thread`)!;
      console.log(
        `  ${phase.name.padEnd(widths[0]!)}  req/s x${(b.rps / a.rps).toFixed(2)}  prints/s x${(b.printRps / a.printRps).toFixed(2)}` +
          (phase.printShare < 1 ? `  read p99 x${(b.readP99 / a.readP99).toFixed(2)}` : '') +
          `  print p99 x${(b.printP99 / a.printP99).toFixed(2)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : '-');

async function startServer(mode: Mode, db: string, spool: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench-store-server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      BENCH_WRITES: mode,
      DATABASE_URL: `sqlite:${db}`,
      PRINTER_URI: pathToFileURL(spool).href,
      RATE_LIMIT_PER_MINUTE: '1000000',
      PUBLIC_BASE_URL: 'https://inventory.example.test',
      PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^listening (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { child, url };
}

/** A closed loop: each connection sends its next request when the last one is answered. */
async function run(url: string, token: string, printShare: number, seconds: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(url);
  const reads: number[] = [];
  const prints: number[] = [];
  let errors = 0;
  const until = performance.now() + seconds * 1000;
  const one = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const req = request({ agent, hostname, port, path, headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
  const worker = async (w: number) => {
    let credit = 0;
    for (let n = w; performance.now() < until; n++) {
      credit += printShare;
      const print = credit >= 1;
      if (print) credit -= 1;
      const path = READS[n % READS.length]!;
      const t = performance.now();
      const status = await one(print ? `${path}?print=true` : path, print ? { 'Idempotency-Key': randomUUID() } : {});
      const ms = performance.now() - t;
      if (status !== 200) errors++;
      (print ? prints : reads).push(ms);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    rps: (reads.length + prints.length) / elapsed,
    printRps: prints.length / elapsed,
    readP50: pct(reads, 0.5),
    readP99: pct(reads, 0.99),
    printP50: pct(prints, 0.5),
    printP99: pct(prints, 0.99),
    errors,
  };
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

await main();
