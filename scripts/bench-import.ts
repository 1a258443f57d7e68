/**
 * Import and lookup scaling on both stores: imports 10k, 100k and 1M generated records
 * with the real CLI (`node dist/main.js import`, a process of its own, as users run
 * it) into a fresh SQLite file and a fresh PostgreSQL schema, then measures point
 * lookups (getItem, getItemByAssetId, locationPath) per second against that store.
 *
 * Prints one table; ratios compare each size with the smallest one of the same store,
 * measured in the same run (the machine is shared: absolute figures drift, ratios less).
 *
 *   npm run bench:import
 *   npm run bench:import -- --sizes 10000,100000 --stores sqlite --lookup-ms 1000
 *   npm run bench:lookup        # lookups only: one import per size, no re-import (--lookups-only)
 *
 * PostgreSQL: LABELMAKER_BENCH_PG_URL, else LABELMAKER_TEST_PG_URL, else the local test database (scripts/lib/bench-schema.ts);
 * each run uses its own schema and drops it.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/records/index.js';
import { SITE_CSV, inventory, writeInventory, type GeneratedInventory } from './lib/import-data.js';
import { benchSchema } from './lib/bench-schema.js';
import { runCli } from './lib/bench-process.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    stores: { type: 'string', default: 'sqlite,postgres' },
    'lookup-ms': { type: 'string', default: '1500' },
    'lookups-only': { type: 'boolean', default: false },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const STORES = args.stores.split(',') as ('sqlite' | 'postgres')[];
const LOOKUP_MS = Number(args['lookup-ms']);
const ROOT = new URL('..', import.meta.url).pathname;
const ENTRY = join(ROOT, 'dist', 'main.js');

interface Row {
  store: string;
  records: number;
  importS: number;
  peakRssMb: number;
  lockS: number;
  reimportS: number;
  reimportLockS: number;
  smallImportMs: number;
  getItem: number;
  byAsset: number;
  path: number;
}

/** Runs the CLI of this checkout; wall time, peak RSS (VmHWM, polled) and what it printed. */
const cli = (argv: string[], env: Record<string, string>) => runCli(ROOT, argv, env);

/** Calls `op` back to back for LOOKUP_MS (a warm-up, then two rounds, the better one counts); calls per second. */
async function rate(op: (i: number) => Promise<unknown>): Promise<number> {
  let best = 0;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    let n = 0;
    while (performance.now() - started < LOOKUP_MS) {
      for (let k = 0; k < 50; k++) await op(n++);
    }
    if (round > 0) best = Math.max(best, n / ((performance.now() - started) / 1000));
  }
  return best;
}

async function lookups(url: string, inv: GeneratedInventory): Promise<Pick<Row, 'getItem' | 'byAsset' | 'path'>> {
  const store = await openStore(url);
  try {
    // A fixed pseudo-random walk over the records, so every size and store asks alike.
    const pick = (i: number, n: number) => Number((BigInt(i) * 2654435761n) % BigInt(n));
    const deepest = Math.max(0, inv.locations - 1);
    const check = async <T>(value: Promise<T | undefined>, what: string) => {
      if ((await value) === undefined) throw new Error(`lookup found nothing: ${what}`);
    };
    await check(store.records.getItem(inv.itemId(0)), 'item 0');
    const getItem = await rate((i) => store.records.getItem(inv.itemId(pick(i, inv.items))));
    const byAsset = await rate((i) => store.records.getItemByAssetId(inv.assetIdOf(pick(i, inv.items) & ~1)!));
    const path = await rate((i) => store.records.locationPath(inv.locationId(deepest - pick(i, Math.min(inv.locations, 1000)))));
    return { getItem, byAsset, path };
  } finally {
    await store.close();
  }
}

async function benchStore(kind: 'sqlite' | 'postgres', dir: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of SIZES) {
    let url: string;
    let cleanup: () => Promise<void>;
    if (kind === 'sqlite') {
      const path = join(dir, `bench-${size}.db`);
      for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      url = `sqlite:${path}`;
      cleanup = async () => {
        for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
      };
    } else {
      const schema = await benchSchema();
      url = schema.url;
      cleanup = schema.drop;
    }
    try {
      const env = { DATABASE_URL: url };
      const file = join(dir, `inventory-${size}.csv`);
      const inv = existsSync(file) ? inventory(size) : await writeInventory(file, size); // generated once, used by both stores
      await cli(['import', join(dir, 'site.csv')], env); // every generated location hangs under this existing one
      process.stderr.write(`${kind} ${size}: importing… `);
      const first = await cli(['import', file], env);
      const lockS = Number(/held the database for ([\d.]+) s/.exec(first.stdout)?.[1] ?? NaN);
      process.stderr.write(`${first.seconds.toFixed(1)} s; `);
      let again = { seconds: NaN, stdout: '' };
      let small = { seconds: NaN };
      if (!args['lookups-only']) {
        process.stderr.write('re-importing… ');
        again = await cli(['import', file], env);
        if (!/: 0 new or changed/.test(again.stdout)) throw new Error(`re-import wrote something: ${again.stdout}`);
        small = await cli(['import', join(dir, 'small.csv')], env);
      }
      process.stderr.write('lookups…\n');
      const reimportLockS = Number(/held the database for ([\d.]+) s/.exec(again.stdout)?.[1] ?? NaN);
      rows.push({ store: kind, records: size, importS: first.seconds, peakRssMb: first.peakRssMb, lockS, reimportS: again.seconds, reimportLockS, smallImportMs: small.seconds * 1000, ...(await lookups(url, inv)) });
    } finally {
      await cleanup();
    }
  }
  return rows;
}

function table(rows: Row[]): string {
  const base = new Map<string, Row>();
  for (const r of rows) if (!base.has(r.store)) base.set(r.store, r);
  const x = (v: number, b: number) => `${(v / b).toFixed(2)}x`;
  const head = ['store', 'records', 'import s', 'µs/record (vs first)', 'peak RSS MB', 'write lock s', 're-import s (lock s)', '10-row import ms', 'getItem/s (vs first)', 'byAssetId/s (vs first)', 'locationPath/s (vs first)'];
  const lines = rows.map((r) => {
    const b = base.get(r.store)!;
    const perRecord = (r.importS * 1e6) / r.records;
    const basePerRecord = (b.importS * 1e6) / b.records;
    return [
      r.store,
      r.records.toLocaleString('en-US'),
      r.importS.toFixed(1),
      `${perRecord.toFixed(1)} (${x(perRecord, basePerRecord)})`,
      r.peakRssMb.toFixed(0),
      r.lockS.toFixed(2),
      `${r.reimportS.toFixed(1)} (${r.reimportLockS.toFixed(2)})`,
      r.smallImportMs.toFixed(0),
      `${Math.round(r.getItem).toLocaleString('en-US')} (${x(r.getItem, b.getItem)})`,
      `${Math.round(r.byAsset).toLocaleString('en-US')} (${x(r.byAsset, b.byAsset)})`,
      `${Math.round(r.path).toLocaleString('en-US')} (${x(r.path, b.path)})`,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

async function main(): Promise<void> {
  if (!existsSync(ENTRY)) throw new Error('dist/main.js is missing: run `npm run build` first (npm run bench:import does)');
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-import-'));
  try {
    writeFileSync(join(dir, 'site.csv'), SITE_CSV);
    const small = Array.from({ length: 10 }, (_, i) => `item,bench-small-${i},Small ${i},,,${900_000_000 + i}`);
    writeFileSync(join(dir, 'small.csv'), ['kind,id,name,description,parent_id,asset_id', ...small, ''].join('\n'));
    const rows: Row[] = [];
    for (const store of STORES) rows.push(...(await benchStore(store, dir)));
    console.log(`\nImport and lookups, ${new Date().toISOString()} (CLI: node dist/main.js import; lookups in-process, one at a time; shared machine)\n`);
    console.log(table(rows));
    console.log(
      '\nimport s: wall time of the CLI process for the whole file (rows under an existing parent); write lock s: how long the final' +
        '\nwrite transaction ran (SQLite: the database write lock; PostgreSQL: row locks only, readers never wait); re-import: the same' +
        '\nfile again (checked, nothing written); 10-row import: a small file into the store of that size.',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
