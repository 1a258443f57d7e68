/**
 * Print rules (issue 32) from the user's side: rules made through the API, records written
 * by `labelmaker import` (its own process, appending record.created / record.changed to the
 * outbox), labels counted where they print (a folder printer).
 *
 *   - one real server over a real SQLite file: what fires and what does not (created under,
 *     at any depth; moved under; created elsewhere; renamed; a location for an items-only rule);
 *   - three server processes over PostgreSQL, with kill -9 at random moments (half of them
 *     the instance holding the print-rules lease, just after it fired): every (rule, event)
 *     printed exactly once. PRINT_RULES_CRASH_TRIALS sets the number of kills (default 6).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { importRecords, openStore } from '../../src/records/index.js';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.js';
import { killAllServices, killHard, runCli, startService, type Service } from '../helpers/service.js';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from '../records/pg-test-db.js';

const TRIALS = Number(process.env.PRINT_RULES_CRASH_TRIALS ?? 6);
const INSTANCES = 3;
const FINAL = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+\.png$/; // the folder printer's finished files
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const printed = (folder: string) => readdirSync(folder).filter((n) => FINAL.test(n));
const item = (id: string, name: string, parentId: string | null) => ({ kind: 'item', id, name, description: '', parentId, assetId: null });
const location = (id: string, name: string, parentId: string | null) => ({ kind: 'location', id, name, description: '', parentId, assetId: null });

async function waitFor<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)} after ${ms} ms`);
    await sleep(100);
  }
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  killAllServices();
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => {});
});

describe('print rules on one server over a SQLite file', () => {
  it('prints what a rule matches once, and nothing else; a rule naming nothing is a 422', { timeout: 120_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lm-rules-folder-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const srv: TestServer = await startTestServer({ PRINTER_URI: pathToFileURL(folder).href });
    cleanups.push(() => srv.stop());
    const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
      fetch(srv.url + path, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${init.token ?? srv.tokens.admin}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
    const rule = { name: 'Garage arrivals', locationId: 'garage', kinds: ['item'], triggers: ['created', 'moved'], template: 'brother-ql-62x29', printer: 'default' };

    // Refused at save: what it names must exist; making rules needs printers:admin.
    for (const [bad, says] of [
      [{ locationId: 'nowhere' }, 'No location has the id nowhere'],
      [{ locationId: 'tape-measure' }, 'No location has the id tape-measure'], // an item is no location
      [{ template: 'no-such-template' }, 'No template is named no-such-template'],
      [{ printer: 'no-such-printer' }, 'No printer is named no-such-printer'],
    ] as const) {
      const res = await api('/v1/labelmaker/print-rules', { method: 'POST', body: { ...rule, ...bad } });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { type: string; detail: string })).toMatchObject({ type: '/problems/invalid-print-rule', detail: expect.stringContaining(says) });
    }
    expect((await api('/v1/labelmaker/print-rules', { method: 'POST', body: rule, token: srv.tokens.print })).status).toBe(403);
    expect((await api('/v1/labelmaker/print-rules', { method: 'POST', body: { ...rule, triggers: [] } })).status).toBe(400);

    const made = await api('/v1/labelmaker/print-rules', { method: 'POST', body: rule });
    expect(made.status).toBe(201);
    const created = (await made.json()) as { id: string };
    expect(made.headers.get('location')).toBe(`/v1/labelmaker/print-rules/${created.id}`);
    // A rule for locations elsewhere: it must not fire on any of the writes below but one.
    const locRule = await api('/v1/labelmaker/print-rules', { method: 'POST', body: { ...rule, name: 'New shelves', locationId: 'garage', kinds: ['location'], triggers: ['created'] } });
    expect(locRule.status).toBe(201);
    expect(((await (await api('/v1/labelmaker/print-rules', { token: srv.tokens.read })).json()) as { rules: unknown[] }).rules).toHaveLength(2);

    const importFile = (name: string, rows: unknown[]) => {
      const file = join(folder, '..', `${name}-${process.pid}.json`);
      writeFileSync(file, JSON.stringify(rows));
      cleanups.push(() => rmSync(file, { force: true }));
      return file;
    };
    const run = async (rows: unknown[]) => {
      const r = await runCli(['import', importFile(`rules-${Date.now()}`, rows)], { DATABASE_URL: srv.config.databaseUrl });
      expect(r.code, r.stderr).toBe(0);
    };
    await run([
      item('drill', 'Drill', 'bin-12'), // created deep under the garage: prints
      item('kettle', 'Kettle', null), // created elsewhere: nothing
      location('shelf-4', 'Shelf 4', 'garage'), // a location: the location rule prints it, the item rule not
      { ...FIXTURES.find((r) => r.id === 'tape-measure')!, name: 'Tape measure' }, // renamed under the garage, not moved: nothing
      { ...FIXTURES.find((r) => r.id === 'loose-item')! , parentId: 'shelf-3' }, // moved in from no location: prints
    ]);
    await waitFor('labels printed', () => printed(folder).length, (n) => n >= 3);
    await run([item('drill', 'Drill', 'shelf-3')]); // moved within the garage: nothing
    await run([item('kettle', 'Kettle', 'garage')]); // moved in: prints
    await waitFor('labels printed', () => printed(folder).length, (n) => n >= 4);
    await sleep(1500); // anything more would have printed by now
    expect(printed(folder)).toHaveLength(4);

    // The jobs are the rule maker's, one per (rule, event), keyed by both.
    const jobs = await srv.store.printJobs.list({ tokenId: (await srv.store.tokens.list()).find((t) => t.name === 'printer-admin')!.id, limit: 100 });
    expect(jobs.jobs.map((j) => j.fields.id).sort()).toEqual(['drill', 'kettle', 'loose-item', 'shelf-4']);
    expect(jobs.jobs.every((j) => /^print-rule:[0-9a-f-]{36}:\d+$/.test(j.idempotencyKey ?? '') && j.state === 'printed')).toBe(true);
    expect(new Set(jobs.jobs.map((j) => j.idempotencyKey)).size).toBe(4);

    // Deleted: it prints nothing more.
    expect((await api(`/v1/labelmaker/print-rules/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/v1/labelmaker/print-rules/${created.id}`)).status).toBe(404);
    await run([item('saw', 'Saw', 'garage')]);
    const latest = await srv.store.events.latest();
    await waitFor('the rules consumer caught up', async () => (await srv.store.consumers.get('print-rules'))?.cursor ?? 0, (c) => c >= latest);
    await sleep(1000);
    expect(printed(folder)).toHaveLength(4);
  });
});

const unreachable = await postgresReachable();
if (unreachable === undefined) {
  describe(`print rules across ${INSTANCES} instances over PostgreSQL under kill -9 (${TRIALS} kills)`, () => {
    it('every (rule, event) printed exactly once', { timeout: 600_000 }, async () => {
      const schema: TestSchema = await createTestSchema();
      cleanups.push(() => schema.drop());
      const folder = mkdtempSync(join(tmpdir(), 'lm-rules-pg-'));
      cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
      const store = await openStore(schema.url);
      cleanups.push(() => store.close());
      await store.records.upsertMany(FIXTURES);
      const { token: admin } = await createToken(store, 'rules-admin', ['labels:read', 'labels:print', 'printers:admin']);
      const env = {
        DATABASE_URL: schema.url,
        RENDER_THREADS: '0',
        PRINTER_URI: pathToFileURL(folder).href, // the printer `default`
        PRINT_RETRY_BASE_MS: '50',
        PRINT_RETRY_MAX_MS: '200',
        PRINT_MAX_ATTEMPTS: '100',
        PRINT_TIMEOUT_MS: '1500',
        RATE_LIMIT_PER_MINUTE: '1000000',
      };
      const start = () => startService(env, { startMs: 120_000 });
      const live: Service[] = await Promise.all(Array.from({ length: INSTANCES }, start));
      const res = await fetch(`${live[0]!.url}/v1/labelmaker/print-rules`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Garage arrivals', locationId: 'garage', kinds: ['item'], triggers: ['created', 'moved'], template: 'brother-ql-62x29' }),
      });
      expect(res.status, await res.clone().text()).toBe(201);

      /** The service whose log says it fired with the lease the database names now. */
      const holder = async (): Promise<Service | undefined> => {
        const owner = (await store.consumers.get('print-rules'))?.leaseOwner;
        return owner ? live.find((s) => s.stdout().includes(`"owner":"${owner}"`)) : undefined;
      };

      let n = 0;
      let expected = 0;
      const restarts: Promise<void>[] = [];
      let holderKills = 0;
      for (let t = 0; t < TRIALS; t++) {
        // A burst of writes: items created under the garage (each prints), elsewhere (none), and moves in (each prints).
        const rows: unknown[] = [];
        for (let i = 0; i < 6; i++) {
          n++;
          const under = i % 3 !== 2;
          rows.push(item(`crash-${n}`, `Crash item ${n}`, under ? (i % 2 ? 'bin-12' : 'garage') : null));
          if (under) expected++;
        }
        await importRecords(store, JSON.stringify(rows), 'json');
        // Move the items created outside into the garage: each prints once more (moved).
        const outside = rows.filter((r) => (r as { parentId: string | null }).parentId === null).map((r) => ({ ...(r as object), parentId: 'shelf-3' }));
        const before = printed(folder).length;
        if (t % 2 === 0) await sleep(between(0, 800));
        else {
          // The riskiest moment: the holder has just stored jobs (perhaps not yet printed them).
          await waitFor('a print', () => printed(folder).length, (c) => c > before, 20_000).catch(() => undefined);
          await sleep(between(0, 20));
        }
        const target = t % 2 === 1 ? ((await holder()) ?? live[Math.floor(Math.random() * live.length)]!) : live[Math.floor(Math.random() * live.length)]!;
        if (target === (await holder())) holderKills++;
        live.splice(live.indexOf(target), 1);
        await killHard(target.child);
        restarts.push(start().then((svc) => void live.push(svc)));
        await importRecords(store, JSON.stringify(outside), 'json');
        expected += outside.length;
        while (live.length < 2) await sleep(50);
        await sleep(between(100, 600));
      }
      await Promise.all(restarts);

      // Drain: the consumer reads every event and every job prints (a killed holder's lease lapses in 15 s).
      const latest = await store.events.latest();
      await waitFor('the print-rules cursor', async () => (await store.consumers.get('print-rules'))?.cursor ?? 0, (c) => c >= latest, 180_000);
      await waitFor(
        'pending jobs',
        async () => Number(((await schema.query("SELECT COUNT(*)::int AS n FROM print_jobs WHERE state IN ('queued', 'printing')")) as [{ n: number }])[0].n),
        (p) => p === 0,
        120_000,
      );
      await sleep(500);

      const jobs = (await schema.query("SELECT id, idempotency_key, state, fields FROM print_jobs WHERE idempotency_key LIKE 'print-rule:%'")) as { id: string; idempotency_key: string; state: string; fields: string }[];
      const files = printed(folder);
      const perJob = new Map<string, number>();
      for (const f of files) perJob.set(UUID.exec(f)?.[0] ?? f, (perJob.get(UUID.exec(f)?.[0] ?? f) ?? 0) + 1);
      const figures = { kills: TRIALS, holderKills, expected, jobs: jobs.length, printed: files.length, duplicates: [...perJob.values()].filter((c) => c > 1).length, failed: jobs.filter((j) => j.state !== 'printed').length };
      console.info(`print rules kill -9 trials: ${JSON.stringify(figures)}`);
      expect(new Set(jobs.map((j) => j.idempotency_key)).size).toBe(jobs.length);
      expect(jobs).toHaveLength(expected);
      expect(files).toHaveLength(expected);
      expect(figures.duplicates).toBe(0);
      expect([...perJob.keys()].sort()).toEqual(jobs.map((j) => j.id).sort());
      for (const svc of live.splice(0)) await killHard(svc.child);
    });
  });
} else if (IN_CI) {
  describe('print rules across instances over PostgreSQL', () => {
    it('needs PostgreSQL in CI', () => {
      throw new Error(`PostgreSQL at ${PG_TEST_URL_SAFE} is unreachable (${unreachable}); CI must run these tests`);
    });
  });
} else {
  console.warn(`\n!!! SKIPPED: print rules kill -9 trials need PostgreSQL at ${PG_TEST_URL_SAFE} (${unreachable}).\n`);
  describe.skip('print rules across instances over PostgreSQL (PostgreSQL unreachable)', () => {
    it('skipped', () => {});
  });
}
