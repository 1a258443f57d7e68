/**
 * Fault injection with real processes, SQLite: the service as users run it (src/main.ts
 * in its own process) under a steady mixed load of label reads, prints and /healthz
 * checks, while the test makes its database file refuse writes (chattr +i: EPERM on
 * every write, as a read-only or failing disk), deletes it, or holds its write lock
 * from another process, at random moments.
 *
 * Every answer is lined up with the fault windows (test/helpers/fault-trials.ts). What
 * must hold at every moment:
 * - nothing answers 500 (or fails to answer): a fault is a 503 with Retry-After;
 * - label reads keep working whenever the database can still be read;
 * - no print is accepted while writes are refused, and a 503 for a print happens only
 *   around a fault;
 * - /healthz tells the truth: degraded with the right state inside a fault (once the
 *   service had a moment to notice), ok outside;
 * - nothing accepted is lost: every print job that got a 200 is printed in the end
 *   (for a deleted database, after the operator's `labelmaker restore`).
 * The figures of each scenario are printed (faults, requests, 503s, lost jobs, health
 * checks judged and how many were wrong).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { restoreSqliteDatabase } from '../../src/records/sqlite/restore.js';
import { BASE_ENV, between, emptyVerdict, expectTruth, faultWindow, judge, merge, now, report, sleep, type Verdict, type Window } from '../helpers/fault-trials.js';
import { chattrUnavailable, freezeSqlite, skipLoudly, thawSqlite } from '../helpers/faults.js';
import { startLoad, waitPrinted } from '../helpers/load.js';
import { FIXTURES } from '../helpers/server.js';
import { exited, killAllServices, runCli, startService, type Service } from '../helpers/service.js';

const dirs: string[] = [];
afterEach(() => {
  killAllServices();
});
afterAll(() => {
  for (const d of dirs) {
    try {
      thawSqlite(join(d, 'labelmaker.db'));
    } catch {
      // not frozen
    }
    rmSync(d, { recursive: true, force: true });
  }
});

/** A SQLite database with the fixtures and a token, and the service's environment for it. */
async function seedSqlite(): Promise<{ dir: string; path: string; token: string; fresh: string[]; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-store-faults-'));
  dirs.push(dir);
  const path = join(dir, 'labelmaker.db');
  const store = await openStore(`sqlite:${path}`, { writes: 'inline' });
  await store.records.upsertMany(FIXTURES);
  const { token } = await createToken(store, 'load', ['labels:read', 'labels:print']);
  const fresh: string[] = [];
  for (let i = 0; i < 8; i++) fresh.push((await createToken(store, `fresh-${i}`, ['labels:read'])).token);
  await store.close();
  return { dir, path, token, fresh, env: { ...BASE_ENV, DATABASE_URL: `sqlite:${path}`, PRINTER_URI: pathToFileURL(join(dir, 'spool')).href } };
}

async function stopGracefully(svc: Service): Promise<void> {
  const done = exited(svc.child);
  svc.child.kill('SIGTERM');
  await done;
}

const chattrWhy = chattrUnavailable();

describe('SQLite under faults, through the real service', () => {
  if (chattrWhy) {
    skipLoudly('the read-only SQLite fault trials', chattrWhy);
  } else {
    it('the database refuses writes at random moments under load (6 windows): reads go on, prints get 503, /healthz tells, nothing is lost', async () => {
      const { path, token, env } = await seedSqlite();
      const svc = await startService(env);
      const load = startLoad({ url: svc.url, token, printPauseMs: 20 });
      const windows: Window[] = [];
      try {
        for (let i = 0; i < 6; i++) {
          await sleep(between(300, 1200));
          windows.push(await faultWindow('read-only', () => freezeSqlite(path), between(300, 1500), () => thawSqlite(path)));
        }
        await sleep(800);
      } finally {
        thawSqlite(path);
      }
      const v = judge(await load.stop(), windows, { detectMs: 500, recoverMs: 500 });
      const lost = await waitPrinted(svc.url, token, v.accepted);
      report('SQLite read-only', windows.length, v, lost);
      expect(v.acceptedDuringFault.length + v.unavailable503).toBeGreaterThan(0); // the faults were felt
      // Enough checks were judged to mean something; how many depends on how busy the machine is.
      expect(v.healthChecked).toBeGreaterThan(20);
      expectTruth(v, lost, svc);
    }, 120_000);
  }

  it('the database file is deleted at a random moment under load (4 trials, two at a time): writes stop, reads go on, /healthz tells; a restart refuses; restore, and every accepted job prints', async () => {
    const trial = async (n: number): Promise<{ v: Verdict; lost: string[] }> => {
      const { dir, path, token, env } = await seedSqlite();
      const svc = await startService(env);
      const load = startLoad({ url: svc.url, token, printPauseMs: 10 });
      await sleep(between(300, 1500));
      const w = await faultWindow('missing', () => rmSync(path), 1300, () => {});
      const samples = await load.stop();
      const v = judge(samples, [{ ...w, until: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY }], { detectMs: 300, recoverMs: 0 });
      expect(existsSync(path)).toBe(false); // nothing put an empty database there
      await stopGracefully(svc);

      const rescue = readdirSync(dir).find((f) => f.startsWith('labelmaker.db.rescued-'));
      expect(rescue, readdirSync(dir).join(', ')).toBeDefined();
      if (n === 0) {
        // The operator restarts without restoring: refused, and told what to do; then restores with the command.
        const refused = await startService(env).then(
          () => undefined,
          (err: Error) => err.message,
        );
        expect(refused).toMatch(/is missing, but .*labelmaker restore/s);
        expect(existsSync(path)).toBe(false);
        const restored = await runCli(['restore', join(dir, rescue!)], env);
        expect(restored.code, restored.stderr).toBe(0);
        expect(restored.stdout).toMatch(/restored .* print job\(s\) still to print/);
      } else {
        restoreSqliteDatabase(join(dir, rescue!), path); // what the command does, without another process start
      }
      const again = await startService(env);
      const lost = await waitPrinted(again.url, token, v.accepted);
      await stopGracefully(again);
      return { v, lost };
    };
    const TRIALS = 4;
    const results = [...(await Promise.all([trial(0), trial(1)])), ...(await Promise.all([trial(2), trial(3)]))];
    const total = results.reduce((t, r) => merge(t, r.v), emptyVerdict());
    const lost = results.flatMap((r) => r.lost);
    report('SQLite deleted', TRIALS, total, lost);
    expect(total.unavailable503).toBeGreaterThan(0);
    expectTruth(total, lost);
  }, 180_000);

  it('another process holding the write lock (an import) never stalls requests; prints wait at most ~2 s, then 503', async () => {
    const { path, token, fresh, env } = await seedSqlite();
    const svc = await startService(env);
    // Warm up (first renders, connections), then hold SQLite's write lock from another process for 3 s.
    for (let i = 0; i < 5; i++) await fetch(`${svc.url}/v1/labelmaker/location/garage`, { headers: { Authorization: `Bearer ${token}` } });
    const holder = spawn(process.execPath, ['-e', HOLD_LOCK, path, '3000'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
    const lockedAt = now();
    const load = startLoad({ url: svc.url, token, readers: 2, printers: 1 });
    // Tokens used for the first time: each schedules a last-use write, which must not hold its request.
    const freshReads: number[] = [];
    for (const t of fresh) {
      const started = now();
      const res = await fetch(`${svc.url}/v1/labelmaker/item/tape-measure`, { headers: { Authorization: `Bearer ${t}` } });
      expect(res.status).toBe(200);
      freshReads.push(now() - started);
      await sleep(100);
    }
    await exited(holder);
    const releasedAt = now();
    await sleep(500);
    const samples = await load.stop();
    const reads = samples.filter((s) => s.kind === 'read' && s.start >= lockedAt && s.end <= releasedAt);
    const readMs = reads.map((s) => s.end - s.start).sort((a, b) => a - b);
    // The lock ends 3 s after it was taken (its holder's exit is seen later on a busy machine): a print must
    // start early enough that, after its render, the lock still has more than the writer's 2 s wait to run.
    const prints = samples.filter((s) => s.kind === 'print' && s.start >= lockedAt && s.start <= Math.min(releasedAt - 2500, lockedAt + 500));
    console.log(
      `[store-faults] SQLite write lock held 3 s by another process: ${reads.length} reads, p50 ${readMs[Math.floor(readMs.length / 2)]?.toFixed(1)} ms, ` +
        `max ${readMs.at(-1)?.toFixed(1)} ms; first uses of ${fresh.length} tokens: max ${Math.max(...freshReads).toFixed(1)} ms; ` +
        `prints during the lock: ${prints.map((s) => `${s.status} in ${(s.end - s.start).toFixed(0)} ms`).join(', ')}`,
    );
    expect(reads.length).toBeGreaterThan(20);
    expect(reads.every((s) => s.status === 200)).toBe(true);
    // Had they waited for the lock, reads would take the writer's lock wait (2 s) or the rest of the
    // 3 s hold; half the hold leaves room for a busy CI machine without letting a wait through.
    expect(readMs.at(-1)!).toBeLessThan(1500);
    expect(Math.max(...freshReads)).toBeLessThan(1500);
    expect(prints.length).toBeGreaterThan(0);
    for (const p of prints) {
      // Bounded either way: refused (503) while the lock holds, or accepted only once it has ended
      // (the writer may first finish a batch that waited its 2 s); never held past ~4 s.
      if (p.status !== 503) expect([p.status, p.end >= lockedAt + 2900]).toEqual([200, true]);
      expect(p.end - p.start).toBeLessThan(4000);
    }
    // /healthz says what the store last saw: from the first print refused for the lock until the lock
    // ends, 'locked'. (Found in CI: a print that started late waited out the lock and was accepted, so
    // the store never saw it, and an answer after lockedAt + 2.5 s rightly said 'ok'.)
    const refusedAt = Math.min(...samples.filter((s) => s.kind === 'print' && s.status === 503 && s.start >= lockedAt).map((s) => s.end));
    const lockEnds = Math.min(releasedAt, lockedAt + 2900); // the holder's 3 s count from just before lockedAt
    const healthWhileSeen = samples.filter((s) => s.kind === 'health' && s.start >= refusedAt && s.end <= lockEnds);
    expect(healthWhileSeen.map((s) => s.info).filter((i) => i !== 'locked'), `health answers after the refusal at ${refusedAt - lockedAt} ms`).toEqual([]);
    // Once the lock is gone, prints go through again.
    const after = await fetch(`${svc.url}/v1/labelmaker/location/garage?print=true`, { headers: { Authorization: `Bearer ${token}` } });
    expect(after.status).toBe(200);
  }, 60_000);
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Holds SQLite's write lock (BEGIN IMMEDIATE, then writing) for argv[2] ms, like a long import; prints once it has it. */
const HOLD_LOCK = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 5000');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
const until = Date.now() + Number(process.argv[2]);
const insert = db.prepare("INSERT INTO records (kind, id, name, description, parent_id, asset_id, updated_at) VALUES ('location', ?, 'imported', '', NULL, NULL, ?) ON CONFLICT DO NOTHING");
let i = 0;
while (Date.now() < until) insert.run('import-' + (i++ % 1000), new Date().toISOString());
db.exec('COMMIT');
db.close();
`;
