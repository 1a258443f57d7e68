/**
 * SQLite writes off the event loop, measured in one run, over the same records, on
 * the same machine in the same minutes:
 * - writer thread: the service as it runs (writes on the writer thread, group commit);
 * - event loop: the same code with its writes on the event loop (the writer's 'inline'
 *   mode, group commit too), which isolates where the write runs;
 * - before (with `--baseline <git revision>`): the service of that revision, checked out
 *   into a temporary folder and run as it was (one transaction and fsync per write, on
 *   the event loop).
 * All commit with synchronous=FULL. Rounds alternate the variants, so drift on a shared
 * machine hits all of them, and the table shows the median of the rounds.
 *
 * First the store alone (see storeLevel): jobs/s and the main thread's busy time per
 * job. Then the service, in phases, each a closed loop of C keep-alive connections for D seconds against a
 * server in its own process (the load generator does not share its event loop):
 * - prints: every request is `?print=true` (render, then store the job: a committed,
 *   fsynced write), while the print worker delivers jobs to a folder;
 * - mixed: half the requests print, half only read labels;
 * - reads while printing: one request in four prints.
 * Besides requests/s and latencies: how many jobs the print worker delivered during
 * the phase (it shares the process, and on the event loop it falls behind under load),
 * the server's CPU time per request (all threads, delivery included, from /proc), and
 * for this revision the main thread's event-loop utilisation and delay. Each phase
 * starts with the print queue delivered.
 *
 * Run: npm run bench:store-writes [-- seconds [connections [rounds]]] [--baseline <rev>] [--store-only]
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FIXTURES } from '../test/helpers/server.js';

const args = process.argv.slice(2);
const baselineAt = args.indexOf('--baseline');
const BASELINE = baselineAt >= 0 ? args.splice(baselineAt, 2)[1] : undefined;
const storeOnlyAt = args.indexOf('--store-only');
const STORE_ONLY = storeOnlyAt >= 0 && args.splice(storeOnlyAt, 1).length > 0;
const SECONDS = Number(args[0] ?? 6);
const CONNECTIONS = Number(args[1] ?? 16);
const ROUNDS = Number(args[2] ?? 3);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const READS = ['/v1/labelmaker/location/bin-12', '/v1/labelmaker/assets/000-001', '/v1/labelmaker/item/tape-measure', '/v1/labelmaker/location/garage'];

type Mode = 'before' | 'inline' | 'thread';
const LABEL: Record<Mode, string> = { before: `before (${BASELINE ?? ''})`, inline: 'event loop', thread: 'writer thread' };

interface Result {
  rps: number;
  printRps: number;
  /** Jobs the print worker delivered during the phase (files in the folder printer). */
  deliveredPerS: number;
  /** Server CPU (all threads) per request, ms. */
  cpuMsPerRequest: number;
  /** Main thread event-loop utilisation (0..1) and delay p99 in ms; NaN for the baseline. */
  elu: number;
  loopDelayP99: number;
  readP50: number;
  readP99: number;
  printP50: number;
  printP99: number;
  errors: number;
}

interface Variant {
  mode: Mode;
  /** The tree whose code runs. */
  root: string;
  db: string;
  token: string;
}

interface Server {
  child: ChildProcess;
  url: string;
  spool: string;
  /** This revision's bench server answers 'stats' on IPC; the baseline runs its own entry point. */
  ipc: boolean;
}

/**
 * The store alone, in this process: print jobs submitted back to back by 1 or 16
 * callers, on the event loop (inline) or the writer thread. Besides jobs/s, the main
 * thread's busy time per job (event-loop utilisation): what each accepted job costs the
 * thread that serves requests. With one caller, inline is exactly the old path: one
 * transaction and one fsync per job, on the event loop.
 */
async function storeLevel(dir: string): Promise<void> {
  const { openSqliteStore } = await import('../src/records/sqlite/store.js');
  const png = readFileSync(join(ROOT, 'test/fixtures/labels/brother-ql-62x29-asset.png'));
  let n = 0;
  const job = () => ({
    id: randomUUID(),
    printer: 'file:///bench',
    template: 'brother-ql-62x29',
    title: `job ${++n}`,
    fields: { kind: 'asset', id: 'x' },
    tokenId: 'bench',
    idempotencyKey: null,
    maxAttempts: 5,
    png,
  });
  const rows: string[][] = [['callers', 'writes', 'jobs/s', 'main thread busy per job (ms)']];
  const seen = new Map<string, { rate: number[]; busy: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const writes of ['inline', 'thread'] as const) {
      const store = openSqliteStore(join(dir, `store-level-${writes}-${round}.db`), { writes });
      await store.printJobs.submit(job(), '2000-01-01T00:00:00.000Z'); // the writer is up
      for (const callers of [1, 16]) {
        let done = 0;
        const elu0 = performance.eventLoopUtilization();
        const until = performance.now() + 1500;
        await Promise.all(
          Array.from({ length: callers }, async () => {
            while (performance.now() < until) {
              await store.printJobs.submit(job(), '2000-01-01T00:00:00.000Z');
              done++;
            }
          }),
        );
        const elu = performance.eventLoopUtilization(elu0);
        const key = `${callers}|${writes}`;
        const entry = seen.get(key) ?? { rate: [], busy: [] };
        entry.rate.push(done / (elu.idle + elu.active) * 1000);
        entry.busy.push(elu.active / done);
        seen.set(key, entry);
      }
      await store.close();
    }
  }
  for (const callers of [1, 16]) {
    for (const writes of ['inline', 'thread'] as const) {
      const e = seen.get(`${callers}|${writes}`)!;
      rows.push([String(callers), writes === 'inline' ? 'event loop' : 'writer thread', median(e.rate).toFixed(0), median(e.busy).toFixed(3)]);
    }
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  console.log(`\nThe store alone: print jobs submitted by 1 or 16 callers (median of ${ROUNDS} rounds; synchronous=FULL)\n`);
  for (const r of rows) console.log(r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  '));
  for (const callers of [1, 16]) {
    const a = seen.get(`${callers}|inline`)!;
    const b = seen.get(`${callers}|thread`)!;
    console.log(
      `  ${callers} caller(s): writer thread / event loop: jobs/s x${(median(b.rate) / median(a.rate)).toFixed(2)}, main thread busy per job x${(median(b.busy) / median(a.busy)).toFixed(2)}`,
    );
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-writes-'));
  try {
    await storeLevel(dir);
    if (STORE_ONLY) return;
    const variants: Variant[] = [];
    if (BASELINE) {
      const tree = join(dir, 'baseline');
      mkdirSync(tree);
      execSync(`git -C ${JSON.stringify(ROOT)} archive ${JSON.stringify(BASELINE)} | tar -x -C ${JSON.stringify(tree)}`, { stdio: ['ignore', 'ignore', 'inherit'] });
      symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
      variants.push({ mode: 'before', root: tree, ...(await seed(tree, join(dir, 'before.db'), { inline: false })) });
    }
    const current = await seed(ROOT, join(dir, 'labelmaker.db'), { inline: true });
    variants.push({ mode: 'inline', root: ROOT, ...current }, { mode: 'thread', root: ROOT, ...current });

    const phases: { name: string; printShare: number }[] = [
      { name: 'prints', printShare: 1 },
      { name: 'mixed (1/2 print)', printShare: 0.5 },
      { name: 'reads while printing (1/4 print)', printShare: 0.25 },
    ];
    const results = new Map<string, Result[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of variants) {
        const server = await startServer(v, join(dir, `spool-${v.mode}-${round}`));
        try {
          await run(server, v.token, 0.5, 1); // warm-up: first renders, connections, JIT
          await drain(server.spool); // start each phase with the queue delivered
          for (const phase of phases) {
            const r = await run(server, v.token, phase.printShare, SECONDS);
            await drain(server.spool);
            const key = `${phase.name}|${v.mode}`;
            results.set(key, [...(results.get(key) ?? []), r]);
            process.stderr.write(`round ${round + 1} ${LABEL[v.mode].padEnd(13)} ${phase.name}: ${r.rps.toFixed(0)} req/s, ${r.cpuMsPerRequest.toFixed(2)} CPU ms/req\n`);
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
      for (const { mode } of variants) {
        const k = `${phase.name}|${mode}`;
        rows.push([
          phase.name,
          LABEL[mode],
          med(k, (r) => r.rps).toFixed(0),
          med(k, (r) => r.printRps).toFixed(0),
          med(k, (r) => r.deliveredPerS).toFixed(0),
          med(k, (r) => r.cpuMsPerRequest).toFixed(2),
          mode === 'before' ? '-' : `${(med(k, (r) => r.elu) * 100).toFixed(0)}%`,
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
    console.log(
      `\nSQLite writes (${CONNECTIONS} connections, ${SECONDS} s per phase, median of ${ROUNDS} alternating rounds; machine shared; latencies in ms)\n`,
    );
    for (const r of rows) console.log(r.map((v, c) => (c < 2 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  '));
    const ratios = (over: Mode) => {
      console.log(`\nratios, writer thread / ${LABEL[over]} (median of rounds):`);
      for (const phase of phases) {
        const ratio = (f: (r: Result) => number) => (med(`${phase.name}|thread`, f) / med(`${phase.name}|${over}`, f)).toFixed(2);
        console.log(
          `  ${phase.name.padEnd(widths[0]!)}  req/s x${ratio((r) => r.rps)}  delivered/s x${ratio((r) => r.deliveredPerS)}  CPU/req x${ratio((r) => r.cpuMsPerRequest)}` +
            (over === 'before' ? '' : `  loop delay p99 x${ratio((r) => r.loopDelayP99)}`) +
            (phase.printShare < 1 ? `  read p99 x${ratio((r) => r.readP99)}` : '') +
            `  print p99 x${ratio((r) => r.printP99)}`,
        );
      }
    };
    if (BASELINE) ratios('before');
    ratios('inline');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Records and a token in a new database, written by the tree's own code (its schema, its API). */
async function seed(root: string, db: string, { inline }: { inline: boolean }): Promise<{ db: string; token: string }> {
  const { openStore } = await import(pathToFileURL(join(root, 'src/records/index.ts')).href);
  const { createToken } = await import(pathToFileURL(join(root, 'src/commands.ts')).href);
  const store = await openStore(`sqlite:${db}`, inline ? { writes: 'inline' } : undefined);
  await store.records.upsertMany(FIXTURES);
  const { token } = await createToken(store, 'bench', ['labels:read', 'labels:print']);
  await store.close();
  return { db, token };
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

/** CPU time of a process and all its threads so far, in ms (Linux /proc). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100)
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startServer(v: Variant, spool: string): Promise<Server> {
  const port = await freePort();
  const ipc = v.mode !== 'before';
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite:${v.db}`,
    PRINTER_URI: pathToFileURL(spool).href,
    RATE_LIMIT_PER_MINUTE: '1000000',
    PRINT_QUOTA_PER_MINUTE: '1000000000',
    PUBLIC_BASE_URL: 'https://inventory.example.test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    BENCH_WRITES: v.mode,
  };
  const entry = ipc ? 'scripts/bench-store-server.ts' : 'src/main.ts';
  const child = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: v.root, env, stdio: ['ignore', 'ignore', 'inherit', ...(ipc ? (['ipc'] as const) : [])] });
  const url = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 60_000; ; ) {
    if (child.exitCode !== null) throw new Error(`bench server (${v.mode}) exited with ${child.exitCode}`);
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > until) throw new Error(`bench server (${v.mode}) did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url, spool, ipc };
}

interface LoopStats {
  elu: number;
  delayP99Ms: number;
}

function loopStats(server: Server): Promise<LoopStats> {
  if (!server.ipc) return Promise.resolve({ elu: Number.NaN, delayP99Ms: Number.NaN });
  return new Promise((resolve) => {
    server.child.once('message', (m) => resolve(m as LoopStats));
    server.child.send('stats');
  });
}

/** A closed loop: each connection sends its next request when the last one is answered. */
async function run(server: Server, token: string, printShare: number, seconds: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(server.url);
  const reads: number[] = [];
  const prints: number[] = [];
  let errors = 0;
  const one = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const req = request({ agent, hostname, port, path, headers: { Authorization: `Bearer ${token}`, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', () => resolve(0));
      req.end();
    });
  let until = 0;
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
  await loopStats(server); // start counting
  const deliveredBefore = delivered(server.spool);
  const cpuBefore = cpuMsOf(server.child.pid!);
  const started = performance.now();
  until = started + seconds * 1000;
  await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  const cpuMs = cpuMsOf(server.child.pid!) - cpuBefore;
  const loop = await loopStats(server);
  const deliveredDuring = delivered(server.spool) - deliveredBefore;
  agent.destroy();
  const requests = reads.length + prints.length;
  return {
    rps: requests / elapsed,
    printRps: prints.length / elapsed,
    deliveredPerS: deliveredDuring / elapsed,
    cpuMsPerRequest: cpuMs / requests,
    elu: loop.elu,
    loopDelayP99: loop.delayP99Ms,
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
