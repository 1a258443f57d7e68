/**
 * SQLite writes off the event loop: the service with its writes on the writer thread
 * (as it runs) against the same service with its writes on the event loop (the
 * writer's 'inline' mode, the way every write ran before), in one run, over the same
 * database, on the same machine in the same minutes. Both commit with group commit and
 * synchronous=FULL, so the comparison isolates where the write runs. Rounds alternate
 * (inline, thread, inline, thread, ...) so drift on a shared machine hits both, and the
 * table shows the median of the rounds.
 *
 * Phases, each a closed loop of C keep-alive connections for D seconds against a
 * server in its own process (so the load generator does not share its event loop):
 * - prints: every request is `?print=true` (render, then store the job: a committed,
 *   fsynced write), while the print worker delivers jobs to a folder;
 * - mixed: half the requests print, half only read labels;
 * - reads while printing: one request in four prints.
 * Besides requests/s and latencies: how many jobs the print worker delivered during
 * the phase (it shares the process, and on the event loop it falls behind under load),
 * the main thread's event-loop utilisation and delay, and the server's CPU time per
 * request (all threads, delivery included). Each phase starts with the queue drained.
 *
 * Run: npm run bench:store-writes [-- seconds [connections [rounds]]]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createToken } from '../src/commands.js';
import { openStore } from '../src/records/index.js';
import { FIXTURES } from '../test/helpers/server.js';

const SECONDS = Number(process.argv[2] ?? 6);
const CONNECTIONS = Number(process.argv[3] ?? 16);
const ROUNDS = Number(process.argv[4] ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const READS = ['/v1/labelmaker/location/bin-12', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage'];

type Mode = 'inline' | 'thread';
interface Result {
  rps: number;
  /** Jobs the print worker delivered during the phase (files in the folder printer). */
  deliveredPerS: number;
  /** Server CPU (all threads) per request, ms. */
  cpuMsPerRequest: number;
  /** Main thread event-loop utilisation, 0..1, and event-loop delay p99 in ms. */
  elu: number;
  loopDelayP99: number;
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
    const results = new Map<string, Result[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['inline', 'thread'] as Mode[]) {
        const server = await startServer(mode, db, join(dir, `spool-${mode}-${round}`));
        try {
          await run(server, token, 0.5, 1); // warm-up: first renders, connections, JIT
          await drain(server.spool); // start each phase with the queue delivered
          for (const phase of phases) {
            const r = await run(server, token, phase.printShare, SECONDS);
            await drain(server.spool);
            const key = `${phase.name}|${mode}`;
            results.set(key, [...(results.get(key) ?? []), r]);
            process.stderr.write(`round ${round + 1} ${mode.padEnd(6)} ${phase.name}: ${r.rps.toFixed(0)} req/s, ${r.cpuMsPerRequest.toFixed(2)} CPU ms/req\n`);
          }
        } finally {
          server.child.kill('SIGTERM');
          await new Promise((resolve) => server.child.once('exit', resolve));
        }
      }
    }
    const med = (key: string, f: (r: Result) => number) => median(results.get(key)!.map(f));

    const rows = [['phase', 'writes', 'req/s', 'prints/s', 'delivered/s', 'CPU ms/req', 'loop busy', 'loop delay p99', 'read p50', 'read p99', 'print p50', 'print p99', 'errors']];
    for (const phase of phases) {
      for (const mode of ['inline', 'thread'] as Mode[]) {
        const k = `${phase.name}|${mode}`;
        rows.push([
          phase.name,
          mode === 'inline' ? 'event loop' : 'writer thread',
          med(k, (r) => r.rps).toFixed(0),
          med(k, (r) => r.printRps).toFixed(0),
          med(k, (r) => r.deliveredPerS).toFixed(0),
          med(k, (r) => r.cpuMsPerRequest).toFixed(2),
          `${(med(k, (r) => r.elu) * 100).toFixed(0)}%`,
          fmt(med(k, (r) => r.loopDelayP99)),
          fmt(med(k, (r) => r.readP50)),
          fmt(med(k, (r) => r.readP99)),
          fmt(med(k, (r) => r.printP50)),
          fmt(med(k, (r) => r.printP99)),
          String(results.get(k)!.reduce((n, r) => n + r.errors, 0)),
        ]);
      }
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    console.log(`\nSQLite writes: writer thread vs event loop (${CONNECTIONS} connections, ${SECONDS} s per phase, median of ${ROUNDS} alternating rounds; machine shared; latencies in ms)\n`);
    for (const r of rows) console.log(r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  '));
    console.log('\nratios, writer thread / event loop (median of rounds):');
    for (const phase of phases) {
      const ratio = (f: (r: Result) => number) => (med(`${phase.name}|thread`, f) / med(`${phase.name}|inline`, f)).toFixed(2);
      console.log(
        `  ${phase.name.padEnd(widths[0]!)}  req/s x${ratio((r) => r.rps)}  delivered/s x${ratio((r) => r.deliveredPerS)}  CPU/req x${ratio((r) => r.cpuMsPerRequest)}  loop delay p99 x${ratio((r) => r.loopDelayP99)}` +
          (phase.printShare < 1 ? `  read p99 x${ratio((r) => r.readP99)}` : '') +
          `  print p99 x${ratio((r) => r.printP99)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : '-');

/** Files in the folder printer's spool (one per delivered job). */
const delivered = (spool: string) => (existsSync(spool) ? readdirSync(spool).filter((f) => f.endsWith('.png')).length : 0);

/** Waits until the print worker has caught up (no new deliveries for a second). */
async function drain(spool: string): Promise<void> {
  for (let last = -1, now = delivered(spool); now !== last; last = now, now = delivered(spool)) await new Promise((resolve) => setTimeout(resolve, 1000));
}

async function startServer(mode: Mode, db: string, spool: string): Promise<{ child: ChildProcess; url: string; spool: string }> {
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
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
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
  return { child, url, spool };
}

interface ServerStats {
  cpuMs: number;
  elu: number;
  delayP99Ms: number;
}

function stats(child: ChildProcess): Promise<ServerStats> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as ServerStats));
    child.send('stats');
  });
}

/** A closed loop: each connection sends its next request when the last one is answered. */
async function run(server: { child: ChildProcess; url: string; spool: string }, token: string, printShare: number, seconds: number): Promise<Result> {
  const url = server.url;
  const deliveredBefore = delivered(server.spool);
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
  await stats(server.child); // start counting
  const started = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  const server_ = await stats(server.child);
  const deliveredDuring = delivered(server.spool) - deliveredBefore;
  agent.destroy();
  const requests = reads.length + prints.length;
  return {
    rps: requests / elapsed,
    deliveredPerS: deliveredDuring / elapsed,
    cpuMsPerRequest: server_.cpuMs / requests,
    elu: server_.elu,
    loopDelayP99: server_.delayP99Ms,
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
