/**
 * Real faults for the stores, injected from outside the process under test:
 * - a SQLite file that refuses writes: `chattr +i` (immutable) makes every write
 *   through an already open descriptor fail with EPERM, as a read-only remount or a
 *   failing disk does (needs root and a filesystem with inode flags, e.g. ext4);
 * - a PostgreSQL role that may not write (a read-only session default, or a revoked
 *   privilege), with its sessions cut so the pool reconnects under the new rule;
 * - a PostgreSQL server that goes away: a TCP proxy in front of it that can be cut.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, it } from 'vitest';
import { IN_CI, PG_TEST_URL, type TestSchema } from '../records/pg-test-db.js';

/** Why chattr cannot be used here, or undefined when it can. */
export function chattrUnavailable(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'lm-chattr-'));
  const file = join(dir, 'probe');
  writeFileSync(file, 'x');
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'pipe' });
    execFileSync('chattr', ['-i', file], { stdio: 'pipe' });
    return undefined;
  } catch (err) {
    return `chattr +i failed (${(err as Error).message.split('\n')[0]}); these fault tests need root and a filesystem with inode flags (ext4) under ${tmpdir()}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The database file and its WAL refuse writes (reads keep working). */
export function freezeSqlite(path: string): void {
  execFileSync('chattr', ['+i', ...[path, `${path}-wal`].filter((p) => existsSync(p))], { stdio: 'pipe' });
}

export function thawSqlite(path: string): void {
  const files = [path, `${path}-wal`].filter((p) => existsSync(p));
  if (files.length > 0) execFileSync('chattr', ['-i', ...files], { stdio: 'pipe' });
}

/** A login role with read/write access to one test schema, whose writes the test can take away. */
export interface FaultRole {
  name: string;
  /** PG_TEST_URL as this role, with search_path set to the schema. */
  url: string;
  /** New sessions start read-only (default_transaction_read_only); existing ones are cut. */
  setReadOnly(on: boolean): Promise<void>;
  revoke(table: string, privileges?: string): Promise<void>;
  grant(table: string, privileges?: string): Promise<void>;
  /** Cuts every session of this role (the server "goes away" for them). */
  terminateSessions(): Promise<void>;
  drop(): Promise<void>;
}

export async function createFaultRole(schema: TestSchema): Promise<FaultRole> {
  const name = `lm_fault_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_TEST_URL });
  await admin.connect();
  await admin.query(`CREATE ROLE ${name} LOGIN`);
  await admin.query(`GRANT USAGE, CREATE ON SCHEMA ${schema.name} TO ${name}`);
  await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema.name} TO ${name}`);
  const url = new URL(schema.url);
  url.username = name;
  url.password = '';
  const terminateSessions = async () => {
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND pid <> pg_backend_pid()`, [name]);
  };
  return {
    name,
    url: url.toString(),
    async setReadOnly(on) {
      await admin.query(`ALTER ROLE ${name} SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
      await terminateSessions();
    },
    async revoke(table, privileges = 'INSERT, UPDATE') {
      await admin.query(`REVOKE ${privileges} ON ${schema.name}.${table} FROM ${name}`);
    },
    async grant(table, privileges = 'INSERT, UPDATE') {
      await admin.query(`GRANT ${privileges} ON ${schema.name}.${table} TO ${name}`);
    },
    terminateSessions,
    async drop() {
      try {
        await terminateSessions();
        await admin.query(`DROP OWNED BY ${name}`);
        await admin.query(`DROP ROLE IF EXISTS ${name}`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** A TCP proxy to PostgreSQL: `cut()` drops every connection and refuses new ones until `restore()`. */
export interface TcpProxy {
  port: number;
  /** A PostgreSQL URL through the proxy (same user, database and options as `url`). */
  via(url: string): string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /**
   * The connections open now stop passing on anything the server says, its goodbye
   * included: the client is not told when the server ends them, and finds out only when
   * it next sends something (a reset), as after a crashed host or a failover. New
   * connections are not affected.
   */
  silence(): void;
  close(): Promise<void>;
}

export async function startPgProxy(): Promise<TcpProxy> {
  const target = new URL(PG_TEST_URL);
  const sockets = new Set<Socket>();
  const silencers = new Set<() => void>();
  let server: Server | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        sockets.add(client);
        sockets.add(upstream);
        let silent = false;
        const drop = () => {
          silencers.delete(silence);
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        const silence = () => {
          silent = true;
          upstream.unpipe(client);
          client.unpipe(upstream);
          client.once('data', drop).resume(); // its next request meets a dead connection (unpipe paused it)
        };
        silencers.add(silence);
        client.on('error', drop).on('close', drop);
        upstream.on('error', () => silent || drop()).on('close', () => silent || drop());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as { port: number }).port;
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.destroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    restore: listen,
    silence() {
      for (const silence of [...silencers]) silence();
    },
    close: stop,
  };
}

/**
 * Tests that cannot run here: in CI a failing test (CI must not skip them), elsewhere
 * a loud warning and a skipped suite (the strict reporter lists it).
 */
export function skipLoudly(what: string, why: string): void {
  if (IN_CI) {
    it(`${what} must run in CI`, () => {
      throw new Error(`${what} cannot run: ${why}. CI must not skip them.`);
    });
    return;
  }
  const line = '!'.repeat(78);
  console.warn(`\n${line}\n!! SKIPPING ${what}: ${why}\n!! In CI (env CI set) this fails instead.\n${line}\n`);
  describe.skip(what, () => {
    it('skipped', () => {});
  });
}
