/**
 * The outbox consumer loop (src/events/consumer.ts) over real stores: two instances of one
 * named consumer (two stores over one SQLite file, two pools over one PostgreSQL schema)
 * handle every event exactly once and in order, while events are appended and one instance
 * stops (giving up its lease) or fails mid-batch (its batch is read again, not lost).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventConsumer } from '../../src/events/consumer.js';
import { openPostgresStore } from '../../src/records/postgres/store.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { ConsumerLease, OutboxEvent, Store } from '../../src/records/types.js';
import { createTestSchema } from '../records/pg-test-db.js';

async function trial(stores: [Store, Store]): Promise<void> {
  const handled: number[] = [];
  let failOnce = true;
  const make = (store: Store, owner: string) =>
    new EventConsumer({
      store,
      name: 'trial',
      owner,
      start: 'beginning',
      batchSize: 7,
      pollMs: 10,
      leaseMs: 300,
      handle: async (events: OutboxEvent[], lease: ConsumerLease, leaseMs: number) => {
        if (owner === 'b' && failOnce && events.length > 3) {
          failOnce = false;
          throw new Error('crash before the commit');
        }
        const moved = await store.consumers.advance(lease, leaseMs);
        if (moved) handled.push(...events.map((e) => e.id));
        return moved;
      },
    });
  const a = make(stores[0], 'a');
  const b = make(stores[1], 'b');
  a.start();
  b.start();
  for (let i = 0; i < 20; i++) {
    await stores[i % 2]!.events.append(Array.from({ length: 5 }, (_, j) => ({ type: 'record.created' as const, subject: { kind: 'item', id: `i${i}-${j}` }, data: {} })));
    if (i === 10) await a.stop(); // gives up its lease: b takes over
  }
  const all = (await stores[0].events.after(0, 1000)).map((e) => e.id);
  expect(all).toHaveLength(100);
  const deadline = Date.now() + 20_000;
  while (handled.length < all.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await b.stop();
  expect(handled).toEqual(all); // each once, in order
  expect(failOnce).toBe(false);
  expect((await stores[0].consumers.get('trial'))!.cursor).toBe(all.at(-1));
}

describe('EventConsumer', () => {
  it('SQLite: two instances over one file handle every event once, in order', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lm-consumer-'));
    const path = join(dir, 'labelmaker.db');
    const stores: [Store, Store] = [openSqliteStore(path), openSqliteStore(path)];
    try {
      await trial(stores);
    } finally {
      for (const s of stores) await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: two instances over one schema handle every event once, in order', async () => {
    const schema = await createTestSchema();
    const stores: [Store, Store] = [await openPostgresStore(schema.url), await openPostgresStore(schema.url)];
    try {
      await trial(stores);
    } finally {
      for (const s of stores) await s.close();
      await schema.drop();
    }
  });
});
