/**
 * kill -9 of the service (src/main.ts in its own process) at random moments while
 * print batches are accepted and printed, in front of the folder printer. The client
 * does what a client should: a batch request cut off by the kill is sent again with
 * the same Idempotency-Key once the service is back. Then: every batch is whole
 * (all its jobs or none), one batch per key, every job of every batch printed exactly
 * once, nothing printed that is not a job of a batch.
 * BATCH_CRASH_TRIALS sets the number of kills (default 6).
 */
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, afterEach, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { between, sleep } from '../helpers/fault-trials.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, killHard, startService, type Service } from '../helpers/service.js';

const TRIALS = Number(process.env.BATCH_CRASH_TRIALS ?? 6);
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const BODY = JSON.stringify({
  selection: { records: [{ kind: 'location', id: 'garage' }, { kind: 'item', id: 'tape-measure' }, { kind: 'asset', id: '000-001' }, { kind: 'location', id: 'bin-12' }] },
  copies: 15,
  template: 'zebra-2x1-203dpi',
});

const dirs: string[] = [];
afterEach(() => killAllServices());
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function postBatch(svc: Service, token: string, key: string): Promise<string | undefined> {
  try {
    const res = await fetch(`${svc.url}/v1/labelmaker/print-jobs`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': key, Connection: 'close' }, body: BODY });
    const body = (await res.json()) as { id?: string };
    return res.status === 201 || res.status === 200 ? body.id : undefined;
  } catch {
    return undefined; // cut off by the kill
  }
}

it(`kill -9 during print batches (${TRIALS} trials, folder printer): whole batches, each job printed once`, { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lm-batch-faults-'));
  dirs.push(dir);
  const spool = join(dir, 'spool');
  const db = join(dir, 'labelmaker.db');
  const store = await openStore(`sqlite:${db}`);
  await store.records.upsertMany(FIXTURES);
  const { token } = await createToken(store, 'faults', ['labels:read', 'labels:print']);
  await store.close();
  const env = { DATABASE_URL: `sqlite:${db}`, PRINTER_URI: pathToFileURL(spool).href, PRINT_RETRY_BASE_MS: '50', PRINT_RETRY_MAX_MS: '200', PRINT_MAX_ATTEMPTS: '100', PRINT_TIMEOUT_MS: '1500' };

  const accepted = new Map<string, string>(); // key -> batch id
  let svc = await startService(env);
  for (let t = 0; t < TRIALS; t++) {
    const key = `trial-${t}`;
    const sent = postBatch(svc, token, key);
    // Kill while the batch is rendered or stored, or while earlier batches print.
    await sleep(between(0, 1200));
    await killHard(svc.child);
    const id = await sent;
    svc = await startService(env);
    // A request the kill cut off is sent again with its key: the same batch if it was stored, else a new one.
    accepted.set(key, id ?? (await postBatch(svc, token, key))!);
    expect(accepted.get(key), `batch for ${key}`).toBeTruthy();
  }

  const check = new Database(db, { readonly: true });
  try {
    const pending = check.prepare("SELECT COUNT(*) AS n FROM print_jobs WHERE state IN ('queued', 'printing')");
    const until = Date.now() + 180_000;
    while ((pending.get() as { n: number }).n > 0) {
      if (Date.now() > until) throw new Error('jobs still pending after 180 s');
      await sleep(250);
    }
    await sleep(300);
    const batches = check.prepare('SELECT b.id, b.idempotency_key AS key, b.job_count AS expected, COUNT(j.id) AS jobs FROM print_batches b LEFT JOIN print_jobs j ON j.batch_id = b.id GROUP BY b.id').all() as { id: string; key: string; expected: number; jobs: number }[];
    // Whole batches only, one per key, and each the one the client was given.
    for (const b of batches) expect(b.jobs, `batch ${b.id}`).toBe(b.expected);
    expect(batches.map((b) => b.key).sort()).toEqual([...accepted.keys()].sort());
    for (const b of batches) expect(accepted.get(b.key)).toBe(b.id);
    const jobs = check.prepare("SELECT id, state FROM print_jobs WHERE batch_id IS NOT NULL").all() as { id: string; state: string }[];
    expect(jobs.filter((j) => j.state !== 'printed')).toEqual([]);
    expect(jobs).toHaveLength(TRIALS * 60);
    const printed = readdirSync(spool).filter((f) => f.endsWith('.png')).map((f) => f.match(UUID)!.at(-1)!);
    const counts = new Map<string, number>();
    for (const id of printed) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1), 'printed twice').toEqual([]);
    expect(jobs.filter((j) => !counts.has(j.id)), 'not printed').toEqual([]);
    expect(printed.filter((id) => !jobs.some((j) => j.id === id)), 'printed but no job of a batch').toEqual([]);
    expect(readdirSync(spool).filter((f) => !f.endsWith('.png')), 'leftovers').toEqual([]);
    console.info(`batch kill -9 trials: ${JSON.stringify({ trials: TRIALS, batches: batches.length, jobs: jobs.length, printed: printed.length })}`);
  } finally {
    check.close();
  }
  await killHard(svc.child);
});
