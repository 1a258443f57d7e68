/**
 * Time per label lookup (labelFor: the record and its location path, as a label
 * request asks the store) on PostgreSQL, with no HTTP and no rendering. Fills a fresh
 * schema with a generated inventory (scripts/lib/import-data.ts: locations in an 8-ary
 * tree under one site, half the items with asset ids), then looks up items, assets and
 * locations in a fixed pseudo-random order: one at a time (latency) and 4 at a time.
 *
 *   npm run bench:label-lookup [-- --records 20000 --ms 2000]
 *
 * PostgreSQL: scripts/lib/bench-schema.ts (LABELMAKER_BENCH_PG_URL, else the tests'
 * database); the run uses its own schema and drops it.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { labelRecords } from '../src/api/label-records.js';
import { openStore } from '../src/records/index.js';
import type { RecordInput } from '../src/records/types.js';
import { benchSchema } from './lib/bench-schema.js';
import { SITE_ID, inventory } from './lib/import-data.js';

const { values: args } = parseArgs({ options: { records: { type: 'string', default: '20000' }, ms: { type: 'string', default: '2000' } } });
const RECORDS = Number(args.records);
const MS = Number(args.ms);

const inv = inventory(RECORDS);
function records(): RecordInput[] {
  const out: RecordInput[] = [{ kind: 'location', id: SITE_ID, name: 'Main site', description: '', parentId: null, assetId: null }];
  for (let i = 0; i < inv.locations; i++) {
    const parentId = i < 8 ? SITE_ID : inv.locationId(Math.floor(i / 8) - 1);
    out.push({ kind: 'location', id: inv.locationId(i), name: `Shelf ${i}`, description: '', parentId, assetId: null });
  }
  for (let i = 0; i < inv.items; i++) {
    out.push({ kind: 'item', id: inv.itemId(i), name: `Item ${i}`, description: '', parentId: inv.locationId(i % inv.locations), assetId: inv.assetIdOf(i) });
  }
  return out;
}

const pick = (i: number, n: number) => Number((BigInt(i) * 2654435761n) % BigInt(n));
/** The i-th request: two items by id, one by asset id, one location, in turn. */
function request(i: number): ['item' | 'asset' | 'location', string] {
  const n = pick(i, inv.items);
  switch (i % 4) {
    case 2:
      return ['asset', String(inv.assetIdOf(n & ~1))];
    case 3:
      return ['location', inv.locationId(pick(i, inv.locations))];
    default:
      return ['item', inv.itemId(n)];
  }
}

/** Runs `lanes` callers back to back for MS (after a warm-up of MS / 2); µs per label and labels/s. */
async function measure(lanes: number, labelFor: ReturnType<typeof labelRecords>): Promise<{ usPerLabel: number; perSecond: number }> {
  let next = 0;
  const run = async (until: number) => {
    while (performance.now() < until) await labelFor(...request(next++));
  };
  await Promise.all(Array.from({ length: lanes }, () => run(performance.now() + MS / 2)));
  next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: lanes }, () => run(started + MS)));
  const seconds = (performance.now() - started) / 1000;
  return { usPerLabel: (seconds * 1e6 * lanes) / next, perSecond: next / seconds };
}

const schema = await benchSchema();
try {
  const store = await openStore(schema.url);
  try {
    await store.records.upsertMany(records());
    const analyze = new pg.Client({ connectionString: schema.url }); // planner statistics, as a settled database has
    await analyze.connect();
    await analyze.query('ANALYZE records').finally(() => analyze.end());
    const labelFor = labelRecords(store.records, 'https://inventory.example');
    const found = await labelFor('asset', String(inv.assetIdOf(0)));
    if (found.record.path.length < 2) throw new Error('the inventory should nest locations');
    for (const lanes of [1, 4]) {
      const { usPerLabel, perSecond } = await measure(lanes, labelFor);
      console.log(`postgres, ${RECORDS} records, ${lanes} at a time: ${usPerLabel.toFixed(0)} µs per label (per caller), ${perSecond.toFixed(0)} labels/s`);
    }
  } finally {
    await store.close();
  }
} finally {
  await schema.drop();
}
