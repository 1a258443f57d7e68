/**
 * Print-queue claim cost as finished jobs pile up, on both stores: the median and
 * p95 time of one claim with 0 finished jobs in the table and with 100k (kept
 * for the retention period), for the claim as shipped and, in the same run, for
 * 1.0.0's claim (its query and its (state, next_attempt_at) index) as the baseline.
 * The finished jobs keep a 600-byte document each, as 1.0.0 kept them (jobs
 * finished since migration 4 drop it, so this is the worse case for both).
 * The shipped claim is measured as the service keeps the table (its upkeep VACUUMs
 * it every minute on PostgreSQL) and, as a worst case, with all 100k jobs finished
 * since the last upkeep. Then the time to purge the 100k finished jobs.
 *
 * Each measured claim takes the one job just submitted (a short queue, as in
 * steady operation) and the job is then marked printed, outside the timing.
 * What is measured is the query, not the disk: each claim commits, and on a
 * shared machine a commit's fsync (1-10 ms, erratic) would drown it. So the
 * SQLite file lives on tmpfs (/dev/shm, where fsync is free) when there is one,
 * and the PostgreSQL sessions run with synchronous_commit=off.
 * PostgreSQL runs in a throwaway schema of LABELMAKER_TEST_PG_URL (default
 * postgres://postgres@127.0.0.1:5432/test);
 * it is skipped, loudly, when unreachable. Nothing is VACUUMed or ANALYZEd by hand:
 * the figures are what the server's own autovacuum setting gives.
 *
 * Then the fleet's claim (issue 31), with the finished jobs spread over 100 printers: naming
 * one printer, and naming all 100 (the dispatcher names the printers idle on its instance),
 * interleaved with a baseline of one printer and no finished jobs (see fleet()).
 *
 * Run: npm run bench:claim -- [finished=100000] [iterations=200] [--fleet-only]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../src/records/index.js';
import type { ClaimedPrintJob, NewPrintJob, Store } from '../src/records/types.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const FINISHED = Number(args[0] ?? 100_000);
const N = Number(args[1] ?? 200);
/** Only the fleet's claim (the 1.0.0 baseline's runs take most of the time). */
const FLEET_ONLY = process.argv.includes('--fleet-only');
const WARMUP = 20;
const PG_URL = process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const OWNER = 'bench-worker';
const LEASE_MS = 35_000;

/** What differs between the stores for the benchmark: raw SQL, and 1.0.0's claim. */
interface Raw {
  exec(sql: string): Promise<void>;
  fill(count: number): Promise<void>;
  claim10(): Promise<{ id: string } | undefined>;
  close(): Promise<void>;
}

const COLUMNS = 'id, state, printer, template, title, fields, png, token_id, idempotency_key, attempts, max_attempts, created_at, updated_at, next_attempt_at, printed_at';
/** The two updates every delivered job went through after its insert (claimed, printed): the row versions and index entries they leave. */
const CHURN = `
  UPDATE print_jobs SET state = 'printing', attempts = 1, lease_owner = 'gone', lease_expires_at = next_attempt_at WHERE id LIKE 'done-%';
  UPDATE print_jobs SET state = 'printed', printed_at = next_attempt_at, lease_owner = NULL, lease_expires_at = NULL WHERE id LIKE 'done-%';`;
const OLD_INDEX = 'CREATE INDEX print_jobs_due_idx ON print_jobs (state, next_attempt_at)';

function sqliteRaw(file: string): Raw {
  const db = new Database(file);
  // 1.0.0's claim, verbatim (without RETURNING's document, which the timing does not need).
  const claim = db.prepare(`
    UPDATE print_jobs
       SET state = 'printing', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1, updated_at = ?
     WHERE id = (SELECT id FROM print_jobs
                  WHERE (state = 'queued' AND next_attempt_at <= ?) OR (state = 'printing' AND lease_expires_at <= ?)
                  ORDER BY next_attempt_at, created_at LIMIT 1)
    RETURNING id, png`);
  return {
    exec: async (sql) => void db.exec(sql),
    fill: async (count) => {
      db.prepare(
        `WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?)
         INSERT INTO print_jobs (${COLUMNS})
         SELECT 'done-' || n, 'queued', 'file:///labels', 'brother-ql-62x29', 'item label: old', '{}', randomblob(600), 'bench', NULL, 0, 5, ts, ts, ts, NULL
           FROM (SELECT n, strftime('%Y-%m-%dT%H:%M:%f', '2026-01-01', '+' || n || ' seconds') || 'Z' AS ts FROM g)`,
      ).run(count);
      db.exec(CHURN);
    },
    claim10: async () => {
      const now = new Date();
      const t = now.toISOString();
      return claim.get(OWNER, new Date(now.getTime() + LEASE_MS).toISOString(), t, t, t) as { id: string } | undefined;
    },
    close: async () => void db.close(),
  };
}

function postgresRaw(url: string): Raw {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const now = (plus = '0') => `to_char((clock_timestamp() + (${plus}) * interval '1 millisecond') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return {
    exec: async (sql) => void (await pool.query(sql)),
    fill: async (count) => {
      await pool.query(
        `INSERT INTO print_jobs (${COLUMNS})
         SELECT 'done-' || g, 'queued', 'file:///labels', 'brother-ql-62x29', 'item label: old', '{}', decode(repeat(md5(g::text), 38), 'hex'), 'bench', NULL, 0, 5, ts, ts, ts, NULL
           FROM (SELECT g, to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ts
                   FROM generate_series(1, $1::int) g) s`,
        [count],
      );
      await pool.query(CHURN);
    },
    // 1.0.0's claim, verbatim: clock_timestamp() (volatile) and an OR over two states.
    claim10: async () =>
      (
        await pool.query<{ id: string }>(
          `UPDATE print_jobs
              SET state = 'printing', lease_owner = $1, lease_expires_at = ${now('$2::int')}, attempts = attempts + 1, updated_at = ${now()}
            WHERE id = (SELECT id FROM print_jobs
                         WHERE (state = 'queued' AND next_attempt_at <= ${now()}) OR (state = 'printing' AND lease_expires_at <= ${now()})
                         ORDER BY next_attempt_at, created_at
                         LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, png`,
          [OWNER, LEASE_MS],
        )
      ).rows[0],
    close: () => pool.end(),
  };
}

const job = (printer = 'file:///labels'): NewPrintJob => ({
  id: randomUUID(),
  printer,
  template: 'brother-ql-62x29',
  title: 'item label: bench',
  fields: { kind: 'item', id: 'bench' },
  tokenId: 'bench',
  idempotencyKey: null,
  maxAttempts: 5,
  png: randomBytes(600), // about a 62x29 label's 1-bit PNG
});

/** The fleet (issue 31): the dispatcher claims for the printers idle on its instance, by name. */
const PRINTERS = Array.from({ length: 100 }, (_, i) => `printer-${i}`);
const k = FINISHED >= 1000 ? `${FINISHED / 1000}k` : String(FINISHED);

/** Claim times in ms: submit one job (for printerOf()), time its claim, mark it printed; the first `warmup` are not kept. */
async function claimTimes(store: Store, claim: () => Promise<{ id: string } | undefined>, count: number, warmup: number, printerOf?: () => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    await store.printJobs.submit(job(printerOf?.()), '2000-01-01T00:00:00.000Z');
    const t0 = process.hrtime.bigint();
    const claimed = await claim();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!claimed) throw new Error('claim found no job');
    await store.printJobs.markPrinted(claimed.id, OWNER);
    if (i >= warmup) times.push(ms);
  }
  return times;
}

const summary = (times: number[]) => {
  const t = [...times].sort((a, b) => a - b);
  return { median: t[t.length >> 1]!, p95: t[Math.floor(t.length * 0.95)]! };
};

const measure = async (store: Store, claim: () => Promise<{ id: string } | undefined>) => summary(await claimTimes(store, claim, N, WARMUP));

interface Row {
  store: string;
  claim: string;
  at0: { median: number; p95: number };
  atN: { median: number; p95: number };
  purge?: string;
}

/**
 * One database: claim cost with 0 finished jobs, then with FINISHED (each went
 * queued -> printing -> printed, leaving the row versions a real job leaves), then
 * the retention purge. `legacy`: 1.0.0's index and claim query instead of ours.
 */
async function run(name: string, url: string, raw: () => Raw, legacy: boolean): Promise<Row[]> {
  const store = await openStore(url); // migrates: the raw connection comes after
  const sql = raw();
  try {
    if (legacy) {
      await sql.exec('DROP INDEX print_jobs_pending_idx');
      await sql.exec(OLD_INDEX);
    }
    const claim = legacy ? () => sql.claim10() : () => store.printJobs.claim(OWNER, LEASE_MS) as Promise<ClaimedPrintJob | undefined>;
    const at0 = await measure(store, claim);
    await sql.fill(FINISHED);
    const atN = await measure(store, claim);
    if (legacy) return [{ store: name, claim: '1.0.0 (baseline)', at0, atN }];
    // The service tidies the table every minute (VACUUM on PostgreSQL): measure as it keeps it.
    await store.printJobs.tidy({ analyze: false });
    const tidied = await measure(store, claim);
    const row: Row = { store: name, claim: 'as shipped', at0, atN: tidied };
    const worst: Row = { store: name, claim: `as shipped, all ${FINISHED} jobs within one upkeep interval`, at0, atN };
    {
      // The retention purge of everything finished, in the batches the service uses.
      const t0 = process.hrtime.bigint();
      let purged = 0;
      for (let n = -1; n !== 0; ) purged += n = await store.printJobs.purgeFinished(new Date(Date.now() + 60_000).toISOString(), 500);
      row.purge = `${name}: the retention purge deleted ${purged} finished jobs in ${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(2)} s`;
    }
    return [row, worst];
  } finally {
    await sql.close();
    await store.close();
  }
}

interface FleetRow {
  store: string;
  claim: string;
  times: { median: number; p95: number };
  /** This claim's median over the baseline's, block by block. */
  blockRatios: number[];
}

const BLOCKS = 10;

/**
 * The fleet's claim (issue 31), against a baseline in the same run, interleaved: two databases
 * side by side, one with no finished jobs and one with FINISHED spread over 100 printers. The
 * claims come in BLOCKS blocks, each block taking N/BLOCKS claims of each kind in turn (the
 * order rotating), so the machine's drift in load falls on all three alike: one printer named
 * on the empty database (the baseline), one printer named and all 100 named on the full one
 * (as the dispatcher names the printers idle on its instance; each job for the next printer).
 */
async function fleet(name: string, emptyUrl: string, fullUrl: string, rawFull: () => Raw): Promise<FleetRow[]> {
  const empty = await openStore(emptyUrl);
  const full = await openStore(fullUrl);
  const sql = rawFull();
  try {
    await sql.fill(FINISHED);
    await sql.exec(`UPDATE print_jobs SET printer = 'printer-' || (${name === 'sqlite' ? 'rowid' : 'abs(hashtext(id))'} % 100) WHERE state = 'printed'`);
    for (const store of [empty, full]) await store.printJobs.tidy({ analyze: true });
    let next = 0;
    const kinds = [
      { claim: '1 printer named, 0 finished (baseline)', store: empty, names: [PRINTERS[0]!], printerOf: () => PRINTERS[0]! },
      { claim: `1 printer named, ${k} finished`, store: full, names: [PRINTERS[0]!], printerOf: () => PRINTERS[0]! },
      { claim: `100 printers named, ${k} finished`, store: full, names: PRINTERS, printerOf: () => PRINTERS[next++ % PRINTERS.length]! },
    ];
    const blocks: number[][][] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const block: number[][] = kinds.map(() => []);
      for (let j = 0; j < kinds.length; j++) {
        const i = (b + j) % kinds.length;
        const { store, names, printerOf } = kinds[i]!;
        const claim = () => store.printJobs.claim(OWNER, LEASE_MS, names) as Promise<ClaimedPrintJob | undefined>;
        block[i] = await claimTimes(store, claim, Math.ceil(N / BLOCKS), b === 0 ? WARMUP : 2, printerOf);
      }
      blocks.push(block);
    }
    return kinds.map((kind, i) => ({
      store: name,
      claim: kind.claim,
      times: summary(blocks.flatMap((block) => block[i]!)),
      blockRatios: blocks.map((block) => summary(block[i]!).median / summary(block[0]!).median),
    }));
  } finally {
    await sql.close();
    await full.close();
    await empty.close();
  }
}

const fmt = (x: number) => x.toFixed(3);
const results: Row[] = [];
const fleetResults: FleetRow[] = [];
const notes: string[] = [];

const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'lm-bench-claim-'));
try {
  for (const legacy of FLEET_ONLY ? [] : [false, true]) {
    const file = join(dir, `bench-${legacy ? '1.0' : 'now'}.db`);
    results.push(...(await run('sqlite', `sqlite:${file}`, () => sqliteRaw(file), legacy)));
  }
  const [empty, full] = [join(dir, 'fleet-empty.db'), join(dir, 'fleet-full.db')];
  fleetResults.push(...(await fleet('sqlite', `sqlite:${empty}`, `sqlite:${full}`, () => sqliteRaw(full))));
  notes.push(`sqlite: file on ${dir.startsWith('/dev/shm') ? 'tmpfs (no fsync cost)' : 'disk (commit fsyncs included)'}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
let pgUp = true;
try {
  await admin.connect();
} catch (err) {
  pgUp = false;
  console.warn(`!! PostgreSQL at ${PG_URL.replace(/:[^:@/]*@/, ':***@')} unreachable (${(err as Error).message}): its figures are SKIPPED`);
}
if (pgUp) {
  try {
    const autovacuum = (await admin.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]?.autovacuum;
    notes.push(`postgres: synchronous_commit=off in the benchmark's sessions; the server's autovacuum is ${autovacuum}`);
    const schemas: string[] = [];
    const schemaUrl = async () => {
      const schema = `lm_bench_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      schemas.push(schema);
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema} -c synchronous_commit=off`);
      return url.toString();
    };
    try {
      for (const legacy of FLEET_ONLY ? [] : [false, true]) {
        const url = await schemaUrl();
        results.push(...(await run('postgres', url, () => postgresRaw(url), legacy)));
      }
      const [empty, full] = [await schemaUrl(), await schemaUrl()];
      fleetResults.push(...(await fleet('postgres', empty, full, () => postgresRaw(full))));
    } finally {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    }
  } finally {
    await admin.end();
  }
}

if (results.length > 0) console.log(`Claim cost, ms per claim (median / p95 of ${N}), with 0 and ${k} finished jobs in the table. Shared machine: read the ratios.`);
const table = [['store', 'claim', '0: median', '0: p95', `${k}: median`, `${k}: p95`, `${k} / 0 (median)`]];
for (const row of results) {
  table.push([row.store, row.claim, fmt(row.at0.median), fmt(row.at0.p95), fmt(row.atN.median), fmt(row.atN.p95), `${(row.atN.median / row.at0.median).toFixed(2)}x`]);
}
const widths = table[0]!.map((_, c) => Math.max(...table.map((r) => r[c]!.length)));
if (results.length > 0) for (const r of table) console.log(r.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
for (let i = 0; i + 2 < results.length; i += 3) {
  const now = results[i]!;
  const old = results[i + 2]!;
  console.log(`${now.store}: with ${k} finished jobs the claim as shipped takes ${(now.atN.median / old.atN.median).toFixed(3)}x the time of 1.0.0's`);
}
console.log(`The fleet's claim, interleaved in ${BLOCKS} blocks against the baseline: ms per claim (median / p95 of ${N}), ratio of medians, and the range of the ratio block by block.`);
const fleetTable = [['store', 'claim', 'median', 'p95', 'ratio', 'ratio by block']];
for (const row of fleetResults) {
  const sorted = [...row.blockRatios].sort((a, b) => a - b);
  const base = fleetResults.find((r) => r.store === row.store)!;
  fleetTable.push([row.store, row.claim, fmt(row.times.median), fmt(row.times.p95), `${(row.times.median / base.times.median).toFixed(2)}x`, `${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}x`]);
}
const fleetWidths = fleetTable[0]!.map((_, c) => Math.max(...fleetTable.map((r) => r[c]!.length)));
for (const r of fleetTable) console.log(r.map((cell, c) => cell.padEnd(fleetWidths[c]!)).join('  '));
for (const r of results) if (r.purge) console.log(r.purge);
for (const n of notes) console.log(n);
