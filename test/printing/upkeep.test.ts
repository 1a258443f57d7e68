/**
 * Upkeep: retention of finished print jobs against a real SQLite store: jobs past the
 * retention period are deleted, everything else stays; the setting is validated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startQueueUpkeep, type Upkeep } from '../../src/printing/upkeep.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import type { NewPrintJob, Store } from '../../src/records/types.js';

let dir: string | undefined;
let store: Store | undefined;
let upkeep: Upkeep | undefined;
afterEach(async () => {
  await upkeep?.stop();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = store = upkeep = undefined;
});

const DAY = 86_400_000;
const job = (id: string): NewPrintJob => ({
  id, printer: 'file:///tmp/x', template: 'brother-ql-62x29', title: id, fields: {}, tokenId: 't', idempotencyKey: null, maxAttempts: 3, png: Buffer.alloc(2000, 1),
});

describe('print job retention', () => {
  it('deletes printed and failed jobs last updated before the retention period, and nothing else', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lm-retention-'));
    const file = join(dir, 'db.sqlite');
    store = openSqliteStore(file);
    const ids = ['old-printed', 'old-failed', 'new-printed', 'old-queued', ...Array.from({ length: 25 }, (_, i) => `bulk-${i}`)];
    for (const id of ids) await store.printJobs.submit(job(id), '2000-01-01T00:00:00.000Z');
    const finish = async (id: string, how: 'printed' | 'failed') => {
      const claimed = await store!.printJobs.claim('w', 60_000);
      expect(claimed?.id).toBe(id);
      if (how === 'printed') await store!.printJobs.markPrinted(id, 'w');
      else await store!.printJobs.markFailed(id, 'w', 'gave up');
    };
    await finish('old-printed', 'printed');
    await finish('old-failed', 'failed');
    await finish('new-printed', 'printed');
    // Backdate: 8 days ago for the "old" ones (and a queued job that old must stay: it is not finished).
    const raw = new Database(file);
    const eightDaysAgo = new Date(Date.now() - 8 * DAY).toISOString();
    raw.prepare(`UPDATE print_jobs SET updated_at = ? WHERE id LIKE 'old-%' OR id LIKE 'bulk-%'`).run(eightDaysAgo);
    raw.prepare(`UPDATE print_jobs SET state = 'printed', png = x'' WHERE id LIKE 'bulk-%'`).run();

    upkeep = startQueueUpkeep({ jobs: store.printJobs, retentionMs: 7 * DAY, logger: pino({ level: 'silent' }), batchSize: 10 });
    await upkeep.purgeNow(); // the first purge runs at start; this waits for it (or runs another)
    const left = raw.prepare('SELECT id FROM print_jobs ORDER BY id').all() as { id: string }[];
    raw.close();
    expect(left.map((r) => r.id)).toEqual(['new-printed', 'old-queued']);
    expect(await upkeep.purgeNow()).toBe(0);
  });

  it('PRINT_JOB_RETENTION_DAYS defaults to 7 and is at least 1 (the idempotency window)', () => {
    const base = { PRINTER_URI: 'file:///tmp/labels' };
    expect(loadConfig(base).printing?.retentionDays).toBe(7);
    expect(loadConfig({ ...base, PRINT_JOB_RETENTION_DAYS: '30' }).printing?.retentionDays).toBe(30);
    expect(() => loadConfig({ ...base, PRINT_JOB_RETENTION_DAYS: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PRINT_JOB_RETENTION_DAYS: '0.5' })).toThrow(/PRINT_JOB_RETENTION_DAYS must be an integer from 1 to 3650/);
  });
});
