/**
 * kill -9 with a fleet (issue 31): jobs in flight for three printers at once (a folder,
 * ippeveprinter, a raw ZPL socket), and at random moments a server process is killed with
 * SIGKILL and started again. On SQLite, the one server process over a real file (the jobs wait
 * in the file until it is back); over PostgreSQL, three server processes sharing one database,
 * the others serving and taking over the killed one's leases. Then, per printer: every accepted job printed exactly once where
 * it was routed, or visibly failed; a label printed twice only where the printer cannot be
 * asked (raw TCP) and then flagged possibleDuplicate on its job. 0 lost, 0 silent duplicates.
 *
 * As in print-fault-injection.test.ts, half the kills come at a random time, half just after
 * a printer received something (a job printed, perhaps not yet recorded).
 * PRINT_FLEET_CRASH_TRIALS sets the number of kills per database (default 12; a start takes seconds, and the next kill waits
 * for two instances up, or for the one on SQLite).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, killHard, startService, type Service } from '../helpers/service.js';
import { startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { IN_CI, PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from '../records/pg-test-db.js';

const TRIALS = Number(process.env.PRINT_FLEET_CRASH_TRIALS ?? 12);
const INSTANCES = 3;
const BURST = 8;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const PNG_END = Buffer.from('49454e44ae426082', 'hex'); // the IEND chunk: a PNG that arrived whole
const FINAL = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+\.png$/; // the folder's finished files
const LABELS = ['/v1/labelmaker/location/garage', '/v1/labelmaker/location/bin-12', '/v1/labelmaker/assets/000-042', '/v1/labelmaker/item/loose-item'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!;

interface Printer {
  name: string;
  template: string;
  /** Whether the printer can be asked about an earlier attempt (else a second print must be flagged). */
  canBeAsked: boolean;
  /** The job id of every label it printed, once per print. */
  prints(): Promise<string[]>;
  /** Cheap count of what reached it so far (to aim a kill just after a delivery). */
  activity(): Promise<number>;
}

const unreachable = await postgresReachable();
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  killAllServices();
  for (const c of cleanups.splice(0).reverse()) await Promise.resolve(c()).catch(() => {});
});

/** A database for the trials: its DATABASE_URL and how many jobs are still to be delivered. */
interface Backend {
  url: string;
  pending(): Promise<number>;
}

/** SQLite: one server process on a real file (killed and started again: the jobs wait in the file). */
async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-fleet-faults-db-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'labelmaker.db');
  return {
    url: `sqlite:${file}`,
    async pending() {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare("SELECT COUNT(*) AS n FROM print_jobs WHERE state IN ('queued', 'printing')").get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
  };
}

/** PostgreSQL: a throwaway schema that several instances share. */
async function postgresBackend(): Promise<Backend> {
  const schema: TestSchema = await createTestSchema();
  cleanups.push(() => schema.drop());
  return {
    url: schema.url,
    async pending() {
      const [{ n }] = (await schema.query("SELECT COUNT(*)::int AS n FROM print_jobs WHERE state IN ('queued', 'printing')")) as [{ n: number }];
      return n;
    },
  };
}

/** The trials: `instances` server processes over the backend's database, one killed at a time and started again. */
function killTrials(title: string, instances: number, open: () => Promise<Backend>): void {
  describe(title, () => {
    it('every accepted job printed once on its printer or visibly failed; second prints only flagged', { timeout: 420_000 }, async () => {
      const backend = await open();
      const spool = mkdtempSync(join(tmpdir(), 'lm-fleet-faults-'));
      cleanups.push(() => rmSync(spool, { recursive: true, force: true }));
      const ipp: IppEvePrinter = await startIppEvePrinter();
      cleanups.push(() => ipp.stop());
      const sink: TcpSink = await startTcpSink('accept');
      cleanups.push(() => sink.close());

      const store = await openStore(backend.url);
      await store.records.upsertMany(FIXTURES);
      const { token } = await createToken(store, 'faults', ['labels:read', 'labels:print']);
      const { token: admin } = await createToken(store, 'admin', ['labels:read', 'printers:admin']);
      await store.close();
      const env = {
        DATABASE_URL: backend.url,
        RENDER_THREADS: '0',
        PRINTER_URI: pathToFileURL(spool).href, // the printer `default`
        PRINTER_STATUS_INTERVAL_S: '0', // no status queries on the raw socket: it counts every byte as a print
        PRINT_RETRY_BASE_MS: '50',
        PRINT_RETRY_MAX_MS: '200',
        PRINT_MAX_ATTEMPTS: '100',
        PRINT_TIMEOUT_MS: '1500', // leases of jobs a killed instance held run out 6.5 s later
        RATE_LIMIT_PER_MINUTE: '1000000',
        PRINT_QUOTA_PER_MINUTE: '1000000000',
      };
      const start = () => startService(env, { startMs: 120_000 });

      const printers: Printer[] = [
        {
          name: 'default',
          template: 'brother-ql-62x29',
          canBeAsked: true,
          async prints() {
            const names = (await readdir(spool)).filter((n) => FINAL.test(n));
            for (const n of names) expect((await readFile(join(spool, n))).subarray(-8).equals(PNG_END), n).toBe(true);
            return names.map((n) => UUID.exec(n)?.[0] ?? `unnamed:${n}`);
          },
          activity: async () => (await readdir(spool)).length,
        },
        {
          name: 'ipp',
          template: 'brother-ql-62x29',
          canBeAsked: true,
          // A document cut off mid-upload (the kill) is aborted by the printer, not printed: count whole ones.
          prints: async () => (await ipp.documents()).filter((d) => d.data.subarray(-8).equals(PNG_END)).map((d) => UUID.exec(d.name)?.[0] ?? `unnamed:${d.name}`),
          activity: async () => (await readdir(ipp.spoolDir)).length,
        },
        {
          name: 'zpl',
          template: 'zebra-2x1-203dpi',
          canBeAsked: false,
          // A Zebra prints a format once it has all of it, up to ^XZ.
          prints: async () =>
            sink
              .received()
              .map((b) => b.toString('latin1'))
              .filter((zpl) => zpl.endsWith('^XZ'))
              .map((zpl) => /\^FXlabelmaker job ([0-9a-f-]{36})/.exec(zpl)?.[1] ?? 'no-job-id'),
          activity: async () => sink.received().length,
        },
      ];
      const activity = async () => (await Promise.all(printers.map((p) => p.activity()))).reduce((a, b) => a + b, 0);

      const live: Service[] = await Promise.all(Array.from({ length: instances }, start));
      const call = (svc: Service, path: string, init: RequestInit = {}, as = token) =>
        fetch(svc.url + path, { ...init, headers: { Authorization: `Bearer ${as}`, Accept: 'image/png, application/json, application/problem+json', ...init.headers } });
      for (const p of printers.slice(1)) {
        const deviceUri = p.name === 'ipp' ? ipp.uri : `socket://${sink.host}:${sink.port}?lang=zpl`;
        const res = await call(live[0]!, `/v1/labelmaker/printers/${p.name}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ title: p.name, deviceUri }) }, admin);
        expect(res.status, await res.text()).toBe(201);
      }

      /** Accepted job id -> the printer it was routed to (its Print-Printer header). */
      const accepted = new Map<string, string>();
      const restarts: Promise<void>[] = [];
      let kills = 0;
      for (let t = 0; t < TRIALS; t++) {
        const burst = Array.from({ length: BURST }, async () => {
          await sleep(between(0, 300));
          const p = pick(printers);
          try {
            const res = await call(pick(live), `${pick(LABELS)}?print=true&printer=${p.name}&template=${p.template}`);
            const link = res.headers.get('print-job');
            // Accepted: the job's address came back (it is stored before the answer starts).
            if (res.status === 200 && link) accepted.set(link.split('/').pop()!, res.headers.get('print-printer') ?? '?');
            await res.arrayBuffer();
          } catch {
            // Cut off by a kill: not accepted (the job may or may not have been stored).
          }
        });
        if (t % 2 === 0) await sleep(between(30, 500));
        else {
          // Aim at the riskiest moment: a printer has a label whose job may not be recorded yet.
          const wanted = (await activity()) + 1 + Math.floor(Math.random() * 3);
          const until = Date.now() + 1500;
          while ((await activity()) < wanted && Date.now() < until) await sleep(1);
          await sleep(between(0, 8));
        }
        // Kill one instance while another still serves (with one instance, none serves until it is back); it comes back in the background and rejoins.
        const victim = live.splice(Math.floor(Math.random() * live.length), 1)[0]!;
        await killHard(victim.child);
        kills++;
        restarts.push(start().then((svc) => void live.push(svc)));
        await Promise.allSettled(burst);
        // The next burst needs an instance to serve it while another is killed (a start takes seconds).
        while (live.length < Math.min(2, instances)) await sleep(50);
        await sleep(between(100, 500));
      }
      await Promise.all(restarts);
      expect(live).toHaveLength(instances);

      // Drain: the instances deliver everything still pending, including jobs whose lease a killed one held.
      const drainUntil = Date.now() + 120_000;
      for (;;) {
        const n = await backend.pending();
        if (n === 0) break;
        if (Date.now() > drainUntil) throw new Error(`${n} jobs still pending after 120 s`);
        await sleep(200);
      }
      await sleep(300); // a print still on its way to its printer

      const figures = [];
      const failures: string[] = [];
      for (const p of printers) {
        const count = new Map<string, number>();
        for (const id of await p.prints()) count.set(id, (count.get(id) ?? 0) + 1);
        const mine = [...accepted].filter(([, printer]) => printer === p.name).map(([id]) => id);
        const jobs = new Map<string, { state: string; possibleDuplicate: boolean; printer: string }>();
        for (const id of new Set([...mine, ...count.keys()])) {
          const res = await call(pick(live), `/v1/labelmaker/print-jobs/${id}`);
          expect(res.status, `job ${id}`).toBe(200);
          jobs.set(id, (await res.json()) as { state: string; possibleDuplicate: boolean; printer: string });
        }
        const failed = mine.filter((id) => jobs.get(id)?.state === 'failed');
        // Lost: accepted, not visibly failed, and not printed (or said to be printed without reaching the printer).
        const lost = mine.filter((id) => jobs.get(id)?.state !== 'failed' && (!count.has(id) || jobs.get(id)?.state !== 'printed'));
        const duplicates = [...count].filter(([, n]) => n > 1).map(([id]) => id);
        const silent = duplicates.filter((id) => p.canBeAsked || !jobs.get(id)?.possibleDuplicate);
        const elsewhere = [...count.keys()].filter((id) => jobs.get(id)?.printer !== p.name);
        figures.push({ printer: p.name, accepted: mine.length, printed: mine.filter((id) => count.has(id)).length, failed: failed.length, duplicates: duplicates.length, flagged: [...jobs.values()].filter((j) => j.possibleDuplicate).length, silentDuplicates: silent.length, lost: lost.length, wrongPrinter: elsewhere.length });
        if (lost.length) failures.push(`${p.name}: lost ${lost.join(', ')}`);
        if (silent.length) failures.push(`${p.name}: printed twice without a flag ${silent.join(', ')}`);
        if (elsewhere.length) failures.push(`${p.name}: printed jobs of another printer or of no accepted job ${elsewhere.join(', ')}`);
        expect(mine.length, `${p.name}: jobs got through between kills`).toBeGreaterThan(0);
      }
      console.info(`fleet kill -9 trials (${kills} kills, ${instances} instance(s), ${backend.url.startsWith('sqlite:') ? 'SQLite' : 'PostgreSQL'}): ${JSON.stringify(figures)}`);
      expect(failures).toEqual([]);
      for (const svc of live.splice(0)) await killHard(svc.child);
    });
  });
}

killTrials(`kill -9 of the server process over SQLite with three printers (${TRIALS} kills)`, 1, sqliteBackend);

if (unreachable === undefined) {
  killTrials(`kill -9 across ${INSTANCES} instances over PostgreSQL with three printers (${TRIALS} kills)`, INSTANCES, postgresBackend);
} else if (IN_CI) {
  describe('kill -9 across instances over PostgreSQL', () => {
    it('needs PostgreSQL in CI', () => {
      throw new Error(`PostgreSQL at ${PG_TEST_URL_SAFE} is unreachable (${unreachable}); CI must run these tests`);
    });
  });
} else {
  console.warn(`\n!!! SKIPPED: fleet kill -9 trials need PostgreSQL at ${PG_TEST_URL_SAFE} (${unreachable}).\n`);
  describe.skip('kill -9 across instances over PostgreSQL (PostgreSQL unreachable)', () => {
    it('skipped', () => {});
  });
}
