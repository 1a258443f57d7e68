/**
 * The stores under real faults, from the store's side: a database that refuses writes
 * (SQLite: an immutable file; PostgreSQL: a read-only session, a revoked privilege), a
 * deleted or replaced SQLite file, another process holding SQLite's write lock, and a
 * PostgreSQL server that goes away. In every case reads keep working where the database
 * can still be read, writes fail as "unavailable" (a 503, never a 500), the token check
 * never fails, and health() says what is going on, then recovers by itself.
 * test/integration/store-faults-{sqlite,postgres}.test.ts do the same through the real service under load.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { isStalePlan, isStoreUnavailable, storeFaultOf, unavailableDetail } from '../../src/records/errors.js';
import { PROBE_AFTER_MS } from '../../src/records/health.js';
import { openPostgresStore } from '../../src/records/postgres/store.js';
import { DatabaseMissingError } from '../../src/records/sqlite/file.js';
import { restoreSqliteDatabase } from '../../src/records/sqlite/restore.js';
import { openSqliteStore } from '../../src/records/sqlite/store.js';
import { WRITE_BUSY_TIMEOUT_MS } from '../../src/records/sqlite/writer.js';
import { hashToken } from '../../src/records/tokens.js';
import type { NewPrintJob, Store } from '../../src/records/types.js';
import { FIXTURES } from '../helpers/server.js';
import { chattrUnavailable, createFaultRole, skipLoudly, freezeSqlite, startPgProxy, thawSqlite, type FaultRole, type TcpProxy } from '../helpers/faults.js';
import { PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from './pg-test-db.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LONG_AGO = '2000-01-01T00:00:00.000Z';
let seq = 0;
const job = (tokenId = 'tok'): NewPrintJob => ({
  id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
  printer: 'file:///tmp/x',
  template: 'brother-ql-62x29',
  title: 'label',
  fields: { kind: 'item', id: 'x' },
  tokenId,
  idempotencyKey: null,
  maxAttempts: 3,
  png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]),
});

/** Resolves with the rejection (or fails the test if it fulfils). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected the write to fail');
    },
    (err: unknown) => err,
  );
}

/** Health after the last write outcome has aged, so it probes. */
async function probedHealth(store: Store) {
  await sleep(PROBE_AFTER_MS + 150);
  return store.health();
}

/** Everything the store can still read, and the token check, works; with how long the token check took. */
async function expectReadsWork(store: Store, token: string): Promise<void> {
  const started = performance.now();
  expect(await store.tokens.findActiveByHash(hashToken(token))).toBeDefined();
  // Never the ~2 s of a write lock wait (generous for a busy CI machine).
  expect(performance.now() - started).toBeLessThan(1000);
  expect((await store.records.getLocation('garage'))?.name).toBe('Garage');
  expect(await store.records.locationPath('bin-12')).toEqual(['Garage', 'Shelf 3', 'Bin 12']);
  expect((await store.records.getWithPath({ kind: 'location', id: 'bin-12' }))?.path).toEqual(['Garage', 'Shelf 3']);
}

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
  for (const d of dirs.splice(0)) {
    try {
      thawSqlite(join(d, 'db', 'labelmaker.db'));
    } catch {
      // not frozen
    }
    rmSync(d, { recursive: true, force: true });
  }
});

async function sqliteStore(): Promise<{ store: Store; path: string; dir: string; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-faults-'));
  dirs.push(dir);
  const path = join(dir, 'db', 'labelmaker.db');
  const store = openSqliteStore(path);
  stores.push(store);
  await store.records.upsertMany(FIXTURES);
  const { token } = await createToken(store, 'faults', ['labels:read', 'labels:print']);
  return { store, path, dir, token };
}

const chattrWhy = chattrUnavailable();
if (chattrWhy) {
  skipLoudly('SQLite read-only fault tests', chattrWhy);
} else {
  describe('SQLite: the database refuses writes (immutable file: EPERM on every write)', () => {
    it('reads and the token check keep working, writes fail as unavailable, health says read-only, and all recover', async () => {
      const { store, path, token } = await sqliteStore();
      expect(await store.health()).toMatchObject({ status: 'ok', state: 'ok', reads: true, writes: true });
      freezeSqlite(path);
      try {
        await expectReadsWork(store, token);
        const err = await rejection(store.printJobs.submit(job(), LONG_AGO));
        expect(isStoreUnavailable(err)).toBe(true);
        expect(storeFaultOf(err)?.state).toBe('read-only');
        expect(await store.health()).toMatchObject({ status: 'degraded', state: 'read-only', reads: true, writes: false });
        // Still read-only when asked again after the probe interval (the probe write fails too).
        expect(await probedHealth(store)).toMatchObject({ status: 'degraded', state: 'read-only' });
        await expectReadsWork(store, token);
      } finally {
        thawSqlite(path);
      }
      // Nobody restarts anything: the next probe finds writes work again.
      expect(await probedHealth(store)).toMatchObject({ status: 'ok', state: 'ok', writes: true });
      const { created } = await store.printJobs.submit(job(), LONG_AGO);
      expect(created).toBe(true);
    });

    it('an idle store finds out by itself: health probes with a real write', async () => {
      const { store, path } = await sqliteStore();
      await sleep(PROBE_AFTER_MS + 150);
      freezeSqlite(path);
      try {
        expect(await store.health()).toMatchObject({ status: 'degraded', state: 'read-only', writes: false });
      } finally {
        thawSqlite(path);
      }
    });
  });
}

describe('SQLite: the database file is deleted or replaced while in use', () => {
  it('stops writes, keeps reads, saves a rescue copy of everything committed; a restart refuses, restore brings it all back', async () => {
    const { store, path, dir, token } = await sqliteStore();
    const accepted = await store.printJobs.submit(job(), LONG_AGO);
    rmSync(path);
    expect(await store.health()).toMatchObject({ status: 'degraded', state: 'missing', reads: true, writes: false });
    const err = await rejection(store.printJobs.submit(job(), LONG_AGO));
    expect(isStoreUnavailable(err)).toBe(true);
    expect(storeFaultOf(err)?.state).toBe('missing');
    await expectReadsWork(store, token);
    expect(existsSync(path)).toBe(false); // nothing recreated it

    const rescues = () => readdirSync(join(dir, 'db')).filter((f) => f.startsWith('labelmaker.db.rescued-'));
    expect(rescues()).toHaveLength(1); // saved when the write found the file gone
    const rescue = join(dir, 'db', rescues()[0]!);
    await store.close();

    expect(() => openSqliteStore(path)).toThrow(DatabaseMissingError);
    expect(() => openSqliteStore(path)).toThrow(/labelmaker restore .*rescued-/);
    expect(existsSync(path)).toBe(false);

    expect(restoreSqliteDatabase(rescue, path)).toMatchObject({ records: FIXTURES.length, tokens: 1, pendingJobs: 1 });
    const back = openSqliteStore(path);
    stores.push(back);
    expect(await back.tokens.findActiveByHash(hashToken(token))).toBeDefined();
    expect((await back.printJobs.claim('w', 60_000))?.id).toBe(accepted.job.id);
    expect(await back.health()).toMatchObject({ status: 'ok' });
  });

  it('notices a deletion within about a second with nothing written, and saves the rescue copy then', async () => {
    const { store, dir } = await sqliteStore();
    rmSync(join(dir, 'db'), { recursive: true }); // the whole folder, marker included
    await sleep(1500);
    const files = readdirSync(join(dir, 'db'));
    expect(files.some((f) => f.startsWith('labelmaker.db.rescued-'))).toBe(true);
    expect(files).toContain('labelmaker.db.marker'); // so a restart refuses, though the folder had gone
    expect(files).not.toContain('labelmaker.db');
    expect(await store.health()).toMatchObject({ state: 'missing' });
  });

  it('a file replaced under it (say, a backup copied over) stops writes too: they would go to the old file', async () => {
    const { store, path, dir } = await sqliteStore();
    const copy = join(dir, 'copy.db');
    copyFileSync(path, copy);
    renameSync(copy, path);
    const health = await store.health();
    expect(health).toMatchObject({ status: 'degraded', state: 'missing' });
    expect(health.detail).toMatch(/replaced/);
    expect(storeFaultOf(await rejection(store.records.upsertMany(FIXTURES)))?.state).toBe('missing');
  });
});

describe('SQLite: another process holds the write lock (a long import)', () => {
  it('a write waits at most the busy time-out, off the main thread; reads and the event loop never wait', async () => {
    const { store, path, token } = await sqliteStore();
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE');
    let worstGap = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 5);
    try {
      const started = performance.now();
      const write = rejection(store.printJobs.submit(job(), LONG_AGO));
      // A never-used token: its first use schedules a last-use write, which waits on the lock in the background.
      const fresh = await createToken(store, 'fresh', ['labels:read']).catch(() => undefined);
      expect(fresh).toBeUndefined(); // creating a token is a write: it is locked out too
      for (let i = 0; i < 20; i++) {
        await expectReadsWork(store, token);
        await sleep(50);
      }
      const err = await write;
      const waited = performance.now() - started;
      expect(storeFaultOf(err)?.state).toBe('locked');
      expect(waited).toBeGreaterThanOrEqual(WRITE_BUSY_TIMEOUT_MS - 100);
      expect(waited).toBeLessThan(WRITE_BUSY_TIMEOUT_MS + 3000);
      expect(await store.health()).toMatchObject({ status: 'degraded', state: 'locked', reads: true, writes: false });
    } finally {
      clearInterval(ticker);
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(worstGap).toBeLessThan(1000); // the event loop kept turning (with writes on it, it stalls for the whole ~2 s wait)
    expect((await store.printJobs.submit(job(), LONG_AGO)).created).toBe(true);
    expect(await store.health()).toMatchObject({ status: 'ok' });
  });
});

describe('SQLite: first start, and a lost database', () => {
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'lm-first-'));
    dirs.push(dir);
    return join(dir, 'db', 'labelmaker.db');
  };

  it('a first start on an empty path creates the database and its marker, and says so', async () => {
    const path = fresh();
    const warnings: string[] = [];
    const store = openSqliteStore(path, { logger: { info: () => {}, warn: (_f, m) => warnings.push(m), error: () => {} } });
    stores.push(store);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(`${path}.marker`)).toBe(true);
    expect(warnings.join('\n')).toMatch(/created a new, empty one \(first start\)/);
  });

  it.each([
    ['its marker', (p: string) => writeFileSync(`${p}.marker`, 'x')],
    ['its -wal file', (p: string) => writeFileSync(`${p}-wal`, 'x')],
    ['a rescue copy', (p: string) => writeFileSync(`${p}.rescued-20260101T000000000Z`, 'x')],
  ])('refuses to create an empty database where %s shows one was', async (_what, leave) => {
    const path = fresh();
    openSqliteStore(path).close();
    await sleep(0);
    rmSync(path);
    rmSync(`${path}.marker`);
    leave(path);
    expect(() => openSqliteStore(path)).toThrow(/is missing, but .* show/);
    expect(() => openSqliteStore(path)).toThrow(/labelmaker init/);
    expect(existsSync(path)).toBe(false);
  });

  it('init starts over with an empty database on purpose, moving the lost one\'s WAL aside', async () => {
    const path = fresh();
    const first = openSqliteStore(path);
    await first.records.upsertMany(FIXTURES);
    await first.close();
    rmSync(path);
    writeFileSync(`${path}-wal`, 'stale pages of the lost database');
    const store = openSqliteStore(path, { create: 'init' });
    stores.push(store);
    expect(await store.records.count()).toBe(0);
    expect(readdirSync(join(path, '..')).some((f) => f.startsWith('labelmaker.db-wal.orphaned-'))).toBe(true);
  });

  it('restore refuses to overwrite a database that exists, and files that are not Labelmaker databases', async () => {
    const path = fresh();
    openSqliteStore(path).close();
    await sleep(0);
    const other = join(path, '..', 'other.db');
    new Database(other).exec('CREATE TABLE t (x)');
    expect(() => restoreSqliteDatabase(other, path)).toThrow(/already exists/);
    rmSync(path);
    expect(() => restoreSqliteDatabase(other, path)).toThrow(/not a Labelmaker database/);
    writeFileSync(other, 'not a database at all, just some text that is long enough'.repeat(100));
    expect(() => restoreSqliteDatabase(other, path)).toThrow(/cannot be|damaged|not a database/);
    expect(existsSync(path)).toBe(false);
  });
});

const pgWhy = await postgresReachable();
if (pgWhy !== undefined) {
  skipLoudly('PostgreSQL fault tests', `${PG_TEST_URL_SAFE} unreachable (${pgWhy})`);
} else {
  describe('PostgreSQL: a server that refuses writes or goes away', () => {
    let schema: TestSchema;
    let role: FaultRole;
    let proxy: TcpProxy;
    let store: Store;
    let token: string;
    beforeAll(async () => {
      schema = await createTestSchema();
      const admin = await openPostgresStore(schema.url); // migrates as the owner
      await admin.records.upsertMany(FIXTURES);
      token = (await createToken(admin, 'pg-faults', ['labels:read', 'labels:print'])).token;
      await admin.close();
      role = await createFaultRole(schema);
      proxy = await startPgProxy();
      store = await openPostgresStore(proxy.via(role.url));
    });
    afterAll(async () => {
      await store?.close();
      await proxy?.close();
      await role?.drop();
      await schema?.drop();
    });

    it('read-only sessions (default_transaction_read_only): reads work, writes fail as unavailable, health says read-only, then recovers', async () => {
      expect(await store.health()).toMatchObject({ status: 'ok' });
      await role.setReadOnly(true);
      try {
        await sleep(100); // the pool notices its cut sessions and reconnects, read-only now
        await expectReadsWork(store, token);
        const err = await rejection(store.printJobs.submit(job(), LONG_AGO));
        expect(isStoreUnavailable(err)).toBe(true);
        expect(storeFaultOf(err)?.state).toBe('read-only');
        expect(await probedHealth(store)).toMatchObject({ status: 'degraded', state: 'read-only', reads: true, writes: false });
      } finally {
        await role.setReadOnly(false);
      }
      await sleep(100);
      expect(await probedHealth(store)).toMatchObject({ status: 'ok', writes: true });
      expect((await store.printJobs.submit(job(), LONG_AGO)).created).toBe(true);
    });

    it('a privilege revoked on one table shows as degraded although other writes succeed', async () => {
      await role.revoke('print_jobs');
      try {
        const err = await rejection(store.printJobs.submit(job(), LONG_AGO));
        expect(storeFaultOf(err)?.state).toBe('read-only');
        await createToken(store, 'still-writable', ['labels:read']); // api_tokens is still writable...
        expect(await probedHealth(store)).toMatchObject({ status: 'degraded', state: 'read-only' }); // ...but health tells the truth
        await expectReadsWork(store, token);
      } finally {
        await role.grant('print_jobs');
      }
      expect(await probedHealth(store)).toMatchObject({ status: 'ok' });
    });

    it('a revoked SELECT is an outage, not "read-only": unavailable, without claiming that labels still work', async () => {
      await role.revoke('records', 'SELECT');
      try {
        const err = await rejection(store.records.getLocation('garage'));
        expect(isStoreUnavailable(err)).toBe(true);
        expect(unavailableDetail(err)).not.toMatch(/still work/);
        expect(await store.health()).toMatchObject({ status: 'unavailable', reads: false });
      } finally {
        await role.grant('records', 'SELECT');
      }
      expect(await store.health()).toMatchObject({ status: 'ok' });
    });

    it('a server that goes away: reads and writes fail as unavailable, health says unavailable, then recovers', async () => {
      await proxy.cut();
      try {
        expect(isStoreUnavailable(await rejection(store.records.getLocation('garage')))).toBe(true);
        expect(isStoreUnavailable(await rejection(store.printJobs.submit(job(), LONG_AGO)))).toBe(true);
        expect(await store.health()).toMatchObject({ status: 'unavailable', state: 'unreachable', reads: false, writes: false });
      } finally {
        await proxy.restore();
      }
      expect(await probedHealth(store)).toMatchObject({ status: 'ok' });
      await expectReadsWork(store, token);
    });

    it('a read that times out is not retried: it fails once, as unavailable, and the pool keeps its other connections', async () => {
      // A statement time-out means a live server and a slow query (here: a table locked by
      // another session). Retrying would double the wait and replace healthy connections.
      const url = new URL(schema.url);
      url.searchParams.set('statement_timeout', '1000'); // the URL's setting wins over the store's 10 s
      url.searchParams.set('application_name', 'lm_timeout_test');
      const slow = await openPostgresStore(url.toString());
      const locker = new pg.Client({ connectionString: schema.url });
      await locker.connect();
      const sessions = async () =>
        (await schema.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'lm_timeout_test' ORDER BY pid")).map((r) => r.pid);
      try {
        await Promise.all(Array.from({ length: 4 }, () => slow.records.getLocation('garage')));
        const before = await sessions();
        expect(before.length).toBeGreaterThanOrEqual(2);
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE records IN ACCESS EXCLUSIVE MODE');
        const started = performance.now();
        const err = await rejection(slow.records.getLocation('garage'));
        const ms = performance.now() - started;
        expect(isStoreUnavailable(err), String(err)).toBe(true);
        expect((err as { code?: string }).code).toBe('57014');
        expect(ms, 'one statement time-out, not two').toBeLessThan(1900);
        await locker.query('ROLLBACK');
        // pg's pool drops the connection whose query failed; the others stay, and none is opened.
        const after = await sessions();
        expect(after.filter((pid) => !before.includes(pid)), 'sessions opened').toEqual([]);
        expect(before.filter((pid) => !after.includes(pid)).length, 'sessions closed').toBeLessThanOrEqual(1);
        expect((await slow.records.getLocation('garage'))?.name).toBe('Garage');
      } finally {
        await locker.query('ROLLBACK').catch(() => {});
        await locker.end();
        await slow.close();
      }
    });

    it('sessions cut together before the pool hears of it: a read that meets a dead connection is retried on a new one, never another dead one', async () => {
      // Several idle connections in the pool (concurrent reads each take one).
      // A label's read too: on PostgreSQL a named statement, prepared on each of those connections.
      await Promise.all(Array.from({ length: 4 }, () => store.records.getLocation('garage')));
      await Promise.all(Array.from({ length: 4 }, () => store.records.getWithPath({ kind: 'location', id: 'bin-12' })));
      proxy.silence(); // the pool will not hear that their sessions end...
      await role.terminateSessions(); // ...as after a failover or an operator's pg_terminate_backend
      // One read at a time: the first connection it meets is dead, and so is every other idle one.
      for (let i = 0; i < 3; i++) expect((await store.records.getLocation('garage'))?.name).toBe('Garage');
      await role.terminateSessions(); // the new connections too: the label's statement is prepared again on the next
      expect((await store.records.getWithPath({ kind: 'location', id: 'bin-12' }))?.record.name).toBe('Bin 12');
      await expectReadsWork(store, token);
      expect(await store.health()).toMatchObject({ reads: true });
    });
  });
}

if (pgWhy === undefined) {
  describe('PostgreSQL: the schema changes under prepared statements (another instance migrated)', () => {
    it("a label's read keeps working when a column it returns changes type: each connection prepares its statement again", async () => {
      // getWithPath is a named statement that every pooled connection prepares once. When a
      // newer instance alters a column the statement returns, PostgreSQL refuses the old
      // plan on each of those connections ("cached plan must not change result type") until
      // the statement is prepared again: before, every such connection failed every label read.
      const schema = await createTestSchema();
      const store = await openPostgresStore(schema.url);
      const other = new pg.Client({ connectionString: schema.url });
      await other.connect();
      try {
        await store.records.upsertMany(FIXTURES);
        const read = async () => {
          const [bin, tape] = await Promise.all([store.records.getWithPath({ kind: 'location', id: 'bin-12' }), store.records.getWithPath({ assetId: 42 })]);
          expect(bin?.record.name).toBe('Bin 12');
          expect(bin?.path).toEqual(['Garage', 'Shelf 3']);
          expect(tape?.record.name).toBe('Рулетка 5 m');
        };
        await Promise.all(Array.from({ length: 4 }, read)); // both statements prepared on several connections
        for (const type of ['varchar(500)', 'text']) {
          await other.query(`ALTER TABLE records ALTER COLUMN name TYPE ${type}`);
          await Promise.all(Array.from({ length: 4 }, read));
          for (let i = 0; i < 6; i++) await read();
        }
      } finally {
        await other.end();
        await store.close();
        await schema.drop();
      }
    });
  });
}

describe('isStalePlan: which PostgreSQL errors mean a prepared statement to prepare again', () => {
  const pgError = (fields: { code: string; message: string; routine?: string }) => Object.assign(new Error(fields.message), fields);
  it('knows the error by the server function that raises it, in any language, or by its English message', () => {
    expect(isStalePlan(pgError({ code: '0A000', message: 'cached plan must not change result type', routine: 'RevalidateCachedQuery' }))).toBe(true);
    expect(isStalePlan(pgError({ code: '0A000', message: 'gespeicherter Plan darf den Ergebnistyp nicht ändern', routine: 'RevalidateCachedQuery' }))).toBe(true);
    expect(isStalePlan(pgError({ code: '0A000', message: 'cached plan must not change result type' }))).toBe(true);
  });
  it('not other refusals of the same class, nor other errors', () => {
    expect(isStalePlan(pgError({ code: '0A000', message: 'FOR UPDATE is not allowed with aggregate functions', routine: 'CheckSelectLocking' }))).toBe(false);
    expect(isStalePlan(pgError({ code: '57014', message: 'canceling statement due to statement timeout', routine: 'ProcessInterrupts' }))).toBe(false);
    expect(isStalePlan({ code: '0A000', routine: 'RevalidateCachedQuery' })).toBe(false); // not an Error
  });
});
