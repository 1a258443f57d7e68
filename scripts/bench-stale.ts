/**
 * The `stale` selection at scale (issue 32): 1M records (one location per 50, in an
 * 8-ary tree) with 100k printed labels (every 10th record), then a location two levels
 * down renamed and 1,000 items renamed through the store's own upsert (what an import
 * does), on SQLite and PostgreSQL. Times, against a baseline measured in the same run on
 * the same data (the plain records search, the same page size and page count):
 * - the first page (200) of `labels=stale`, as listRecords and the studio ask for it;
 * - every stale record, page by page (what a stale selection up to its bound reads, and more);
 * - the first page of `labels=neverPrinted`.
 *
 *   npm run bench:stale [-- --records 1000000 --printed 100000 --runs 5 --only sqlite|postgres --explain]
 *
 * PostgreSQL: scripts/lib/bench-schema.ts (LABELMAKER_BENCH_PG_URL, else the tests'
 * database); the run uses its own schema and drops it. SQLite: a temporary file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../src/records/index.js';
import type { RecordQuery, Store } from '../src/records/types.js';
import { benchSchema } from './lib/bench-schema.js';
import { POSTGRES, SQLITE } from '../src/records/sql/dialect.js';
import { searchSql } from '../src/records/sql/search.js';

const { values: args } = parseArgs({
  options: { records: { type: 'string', default: '1000000' }, printed: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' }, only: { type: 'string' }, explain: { type: 'boolean', default: false } },
});
const RECORDS = Number(args.records);
const PRINTED = Number(args.printed);
const RUNS = Number(args.runs);
const LOCATIONS = Math.max(8, Math.round(RECORDS / 50));
const ITEMS = RECORDS - LOCATIONS;
const EVERY = Math.max(1, Math.floor(RECORDS / PRINTED));

/** The inventory and its printed labels, as SQL for one dialect (`seq(n)`: the rows 0..n-1 as `i`). */
function fillSql(seq: (n: number) => string, div: (a: string, b: number) => string): string[] {
  return [
    `INSERT INTO records (kind, id, name, description, parent_id, asset_id, updated_at, content_rev)
       SELECT 'location', 'L' || i, 'Shelf ' || i, '', CASE WHEN i < 8 THEN NULL ELSE 'L' || (${div('i', 8)} - 1) END, NULL, '2026-11-28T00:00:00.000Z', 0 FROM ${seq(LOCATIONS)}`,
    `INSERT INTO records (kind, id, name, description, parent_id, asset_id, updated_at, content_rev)
       SELECT 'item', 'I' || i, 'Item ' || i, '', 'L' || (i % ${LOCATIONS}), CASE WHEN i % 2 = 0 THEN ${div('i', 2)} + 1 ELSE NULL END, '2026-11-28T00:00:00.000Z', 0 FROM ${seq(ITEMS)}`,
    'UPDATE records_revision SET revision = 1',
    // Every EVERY-th record's label printed at revision 1 (locations first, then items).
    `INSERT INTO printed_labels (kind, record_id, job_id, fingerprint, template, template_version, stock, printer, revision, printed_at)
       SELECT 'location', 'L' || i, 'job-L' || i, 'fp', 'brother-ql-62x29', '', 'brother-ql-62x29', 'folder', 1, '2026-11-28T00:00:00.000Z' FROM ${seq(LOCATIONS)} WHERE i % ${EVERY} = 0`,
    `INSERT INTO printed_labels (kind, record_id, job_id, fingerprint, template, template_version, stock, printer, revision, printed_at)
       SELECT 'item', 'I' || i, 'job-I' || i, 'fp', 'brother-ql-62x29', '', 'brother-ql-62x29', 'folder', 1, '2026-11-28T00:00:00.000Z' FROM ${seq(ITEMS)} WHERE i % ${EVERY} = 0`,
  ];
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** Pages through a query; returns how many records it read. */
async function pageAll(store: Store, query: Omit<RecordQuery, 'limit' | 'after'>, maxRecords = Infinity): Promise<number> {
  let n = 0;
  let after: RecordQuery['after'];
  do {
    const page = await store.search.find({ ...query, limit: 200, after });
    n += page.records.length;
    after = page.next;
  } while (after && n < maxRecords);
  return n;
}

async function measure(name: string, store: Store): Promise<void> {
  // The changes, through the store's upsert (a revision bump and content_rev, as an import writes).
  const renamed = 'L8'; // two levels down: about 1/64 of the tree below it
  await store.records.upsertMany([{ kind: 'location', id: renamed, name: 'Shelf 8, renamed', description: '', parentId: 'L0', assetId: null }]);
  const items = Array.from({ length: 1000 }, (_, k) => {
    const i = (k * 7919) % ITEMS;
    return { kind: 'item' as const, id: `I${i}`, name: `Item ${i}, renamed`, description: '', parentId: `L${i % LOCATIONS}`, assetId: i % 2 === 0 ? i / 2 + 1 : null };
  });
  await store.records.upsertMany(items);

  const stale = await pageAll(store, { labels: 'stale' });
  const firstStale = await median(() => store.search.find({ labels: 'stale', limit: 200 }));
  const firstPlain = await median(() => store.search.find({ limit: 200 }));
  const allStale = await median(() => pageAll(store, { labels: 'stale' }));
  const samePlain = await median(() => pageAll(store, {}, stale));
  const firstNever = await median(() => store.search.find({ labels: 'neverPrinted', limit: 200 }));
  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`\n${name}: ${RECORDS.toLocaleString('en')} records (${LOCATIONS.toLocaleString('en')} locations), ${PRINTED.toLocaleString('en')} printed labels, ${stale.toLocaleString('en')} stale; median of ${RUNS}`);
  console.log(`  stale, first page of 200:         ${f(firstStale)}   plain search, first page: ${f(firstPlain)}   ratio ${(firstStale / firstPlain).toFixed(1)}x`);
  console.log(`  stale, all ${stale} (pages of 200): ${f(allStale)}   plain search, as many records: ${f(samePlain)}   ratio ${(allStale / samePlain).toFixed(1)}x`);
  console.log(`  neverPrinted, first page of 200:  ${f(firstNever)}   ratio to plain first page ${(firstNever / firstPlain).toFixed(1)}x`);
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-stale-'));
  try {
    const url = `sqlite:${join(dir, 'stale.db')}`;
    (await openStore(url)).close(); // migrated
    const db = new Database(join(dir, 'stale.db'));
    const t = performance.now();
    const seq = (n: number) => `(WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${n - 1}) SELECT i FROM s)`;
    db.transaction(() => {
      for (const sql of fillSql(seq, (a, b) => `(${a} / ${b})`)) db.exec(sql);
    })();
    db.exec('ANALYZE');
    db.close();
    console.log(`SQLite: filled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const store = await openStore(url);
    try {
      await measure('SQLite', store);
      if (args.explain) {
        const x = new Database(join(dir, 'stale.db'), { readonly: true });
        for (const labels of ['neverPrinted', 'stale'] as const) {
          const { sql, params } = searchSql({ labels, limit: 200 }, SQLITE);
          console.log(`EXPLAIN QUERY PLAN, ${labels}:\n${(x.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => `  ${r.detail}`).join('\n')}`);
        }
        x.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function postgres(): Promise<void> {
  const schema = await benchSchema();
  try {
    (await openStore(schema.url)).close();
    const client = new pg.Client({ connectionString: schema.url });
    await client.connect();
    const t = performance.now();
    const seq = (n: number) => `generate_series(0, ${n - 1}) AS s(i)`;
    for (const sql of fillSql(seq, (a, b) => `(${a} / ${b})`)) await client.query(sql);
    await client.query('VACUUM ANALYZE records');
    await client.query('VACUUM ANALYZE printed_labels');
    await client.end();
    console.log(`PostgreSQL: filled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const store = await openStore(schema.url);
    try {
      await measure('PostgreSQL', store);
      if (args.explain) {
        const c = new pg.Client({ connectionString: schema.url });
        await c.connect();
        const { sql, params } = searchSql({ labels: 'stale', limit: 200 }, POSTGRES);
        await c.query('SET jit = off');
        console.log((await c.query(`EXPLAIN ANALYZE ${sql}`, params)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
        await c.end();
      }
    } finally {
      await store.close();
    }
  } finally {
    await schema.drop();
  }
}

if (args.only !== 'postgres') await sqlite();
if (args.only !== 'sqlite') await postgres();
