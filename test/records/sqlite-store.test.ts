import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { Store } from '../../src/records/types.js';
import { storeContract, type StoreHarness } from './store-contract.js';

async function sqliteHarness(): Promise<StoreHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-records-'));
  const path = join(dir, 'nested', 'data', 'labelmaker.db'); // parent folders don't exist yet
  const opened: Store[] = [openSqliteStore(path)];
  return {
    store: opened[0]!,
    reopen: async () => {
      const s = openSqliteStore(path);
      opened.push(s);
      return s;
    },
    query: async (sql) => {
      const db = new Database(path);
      try {
        const stmt = db.prepare(sql);
        return stmt.reader ? (stmt.all() as Record<string, unknown>[]) : (stmt.run(), []);
      } finally {
        db.close();
      }
    },
    destroy: async () => {
      for (const s of opened) await s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

storeContract('SQLite store (temp file)', sqliteHarness);

describe('SQLite store specifics', () => {
  it('creates missing parent folders and uses WAL', async () => {
    const h = await sqliteHarness();
    try {
      const [{ journal_mode }] = (await h.query('PRAGMA journal_mode')) as [{ journal_mode: string }];
      expect(journal_mode).toBe('wal');
    } finally {
      await h.destroy();
    }
  });

  it('writes arriving together commit together, and a failing one takes only itself back', async () => {
    const h = await sqliteHarness();
    try {
      const tokens = Array.from({ length: 40 }, (_, i) => ({ id: `tok${String(i).padStart(5, '0')}`, name: `t${i}`, scopes: ['labels:read' as const], hash: `hash-${i}` }));
      const duplicate = { ...tokens[7]!, id: 'dupl0000' }; // same hash as another token in the batch
      const outcomes = await Promise.allSettled([...tokens.slice(0, 20), duplicate, ...tokens.slice(20)].map((t) => h.store.tokens.insert(t)));
      expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
      expect(String((outcomes[20] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
      expect(await h.store.tokens.count()).toBe(40);
      expect(await h.store.health()).toMatchObject({ status: 'ok' }); // a constraint is not a store fault
    } finally {
      await h.destroy();
    }
  });

  it('works in memory', async () => {
    const store = openSqliteStore(':memory:');
    await store.records.upsertMany([{ kind: 'location', id: 'm', name: 'Memory', description: '', parentId: null, assetId: null }]);
    expect(await store.records.locationPath('m')).toEqual(['Memory']);
    await store.close();
  });

  it('refuses a newer database without changing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lm-records-'));
    const path = join(dir, 'x.db');
    const db = new Database(path);
    db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
             INSERT INTO schema_migrations VALUES (999, 'future', 'x')`);
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/newer release/);
    const check = new Database(path);
    const tables = check.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();
    check.close();
    expect(tables).toEqual(['schema_migrations']);
    rmSync(dir, { recursive: true, force: true });
  });
});
