/**
 * The `labelmaker` command as users run it (bin/labelmaker, from any folder, through a
 * symlink on PATH): --help, --version, backup of a SQLite database while the service
 * writes to it and its restore, the backup a migration takes, a config file with secrets
 * in files, the data folder that does not follow the working directory, and the
 * PostgreSQL route (pg_dump, pg_restore) once against the local server.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrationSql } from '../../src/records/migrations.js';
import { migrateSqlite } from '../../src/records/sqlite/store.js';
import { BIN, exited, killAllServices, startService } from '../helpers/service.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const PG_ADMIN_URL = process.env.LABELMAKER_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The system's PATH, without the project's Node or node_modules/.bin: what a user's shell has. */
const USER_PATH = (process.env.PATH ?? '').split(':').filter((p) => !p.includes('/scripts/runtime/') && !p.includes('node_modules')).join(':');

async function labelmaker(args: string[], env: Record<string, string> = {}, cwd = tmpdir(), command = BIN): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(command, args, { cwd, env: { ...process.env, PATH: USER_PATH, ...env }, timeout: 240_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let dir: string;
beforeAll(async () => {
  // The first run compiles dist/ when a source changed (as after a pull): once, before the timed tests.
  expect((await labelmaker(['--version'])).code).toBe(0);
}, 300_000);
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lm-command-'));
});
afterEach(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

describe('the labelmaker command', () => {
  it('answers --version and --help from any folder, through a symlink on PATH, with the system Node first', async () => {
    const onPath = join(dir, 'bin');
    mkdirSync(onPath);
    symlinkSync(BIN, join(onPath, 'labelmaker'));
    const version = await labelmaker(['--version'], { PATH: `${onPath}:${USER_PATH}` }, dir, 'labelmaker');
    expect(version).toMatchObject({ code: 0, stdout: `labelmaker ${VERSION}\n` });
    const help = await labelmaker(['--help'], {}, dir);
    expect(help.code).toBe(0);
    for (const command of ['serve', 'init', 'backup <file>', 'restore <file>', 'import <file', 'tokens create', 'agent', '--version', '--config FILE']) expect(help.stdout).toContain(command);
    const wrong = await labelmaker(['frobnicate'], { DATABASE_URL: `sqlite:${join(dir, 'x.db')}` }, dir);
    expect(wrong.code).toBe(2);
    expect(existsSync(join(dir, 'x.db'))).toBe(false);
  });

  it('serve on every interface: the banner names an address a browser opens (not 0.0.0.0) and the command, not npm; log lines carry the service and version', async () => {
    const svc = await startService({ DATABASE_URL: `sqlite:${join(dir, 'lm.db')}`, HOST: '0.0.0.0', DEMO: 'true', PRINTER_URI: `file://${join(dir, 'spool')}` }, { bin: ['serve'], cwd: dir, startMs: 240_000 });
    expect(svc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await new Promise((r) => setTimeout(r, 300)); // the banner follows the listening line
    expect(svc.stderr()).not.toContain('0.0.0.0');
    expect(svc.output()).not.toContain('npm run');
    const studio = /The label studio \(paste the token to sign in\): (http:\/\/localhost:\d+\/)\n/.exec(svc.stderr())?.[1];
    expect(studio).toBeDefined();
    const line = JSON.parse(svc.stdout().split('\n').find((l) => l.includes('labelmaker listening'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ service: 'labelmaker', version: VERSION, listen: expect.stringMatching(/^0\.0\.0\.0:\d+$/) });
    expect((await fetch(`${svc.url}/livez`)).status).toBe(200);
    expect(await (await fetch(`${svc.url}/healthz`)).json()).toMatchObject({ status: 'ok', version: VERSION });
    svc.child.kill('SIGTERM');
    expect((await exited(svc.child)).code).toBe(0);
  });
});

describe('backup and restore (SQLite)', () => {
  it('backup copies the database consistently while the service prints, and restore brings the copy back', { timeout: 300_000 }, async () => {
    const db = join(dir, 'data', 'labelmaker.db');
    const env = { DATABASE_URL: `sqlite:${db}`, DEMO: 'true', PRINTER_URI: `file://${join(dir, 'spool')}`, RATE_LIMIT_PER_MINUTE: '1000000', PRINT_QUOTA_PER_MINUTE: '1000000' };
    const svc = await startService(env, { bin: ['serve'], cwd: dir, startMs: 240_000 });
    await new Promise((r) => setTimeout(r, 300));
    const token = /\s(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})\s/.exec(svc.stderr())![1]!;
    const jobs = () => (new Database(db, { readonly: true }).prepare('SELECT COUNT(*) FROM print_jobs').pluck().get() as number);

    // Writes all along: print jobs, four at a time, until the backups are done.
    let writing = true;
    let printed = 0;
    const writers = Array.from({ length: 4 }, async () => {
      while (writing) {
        const res = await fetch(`${svc.url}/v1/labelmaker/assets/000-001?print=true`, { method: 'GET', headers: { Authorization: `Bearer ${token}` } });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        printed++;
      }
    });
    while (printed < 20) await new Promise((r) => setTimeout(r, 20));
    const copies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = jobs();
      const copy = join(dir, `backup-${i}.db`);
      const out = await labelmaker(['backup', copy], env, dir);
      expect(out, out.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining(`backed up ${db} to ${copy}:`) });
      const after = jobs();
      const c = new Database(copy, { readonly: true });
      expect(c.pragma('integrity_check', { simple: true })).toBe('ok');
      const inCopy = c.prepare('SELECT COUNT(*) FROM print_jobs').pluck().get() as number;
      expect(inCopy).toBeGreaterThanOrEqual(before);
      expect(inCopy).toBeLessThanOrEqual(after);
      c.close();
      expect(existsSync(`${copy}-wal`)).toBe(false);
      copies.push(copy);
    }
    writing = false;
    await Promise.all(writers);
    expect(printed).toBeGreaterThan(20);
    // A backup never overwrites a file.
    expect(await labelmaker(['backup', copies[0]!], env, dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('already exists') });
    svc.child.kill('SIGTERM');
    await exited(svc.child);

    // The database is lost; the last backup goes back, and the service runs on it with the demo token.
    rmSync(join(dir, 'data'), { recursive: true });
    const restored = await labelmaker(['restore', copies[2]!], env, dir);
    expect(restored, restored.stderr).toMatchObject({ code: 0, stdout: expect.stringContaining(`restored ${db} from ${copies[2]}`) });
    const again = await startService({ DATABASE_URL: `sqlite:${db}` }, { bin: ['serve'], cwd: dir, startMs: 240_000 });
    const res = await fetch(`${again.url}/v1/labelmaker/assets/000-001`, { headers: { Authorization: `Bearer ${token}` } });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/png']);
  });

  it('backup of a PostgreSQL URL or a missing database says what to do instead', async () => {
    const pgOut = await labelmaker(['backup', join(dir, 'x.db')], { DATABASE_URL: 'postgres://postgres:secret-pw@127.0.0.1:5432/none' }, dir);
    expect(pgOut).toMatchObject({ code: 2, stderr: expect.stringContaining('pg_dump') });
    expect(pgOut.stderr).not.toContain('secret-pw');
    expect(await labelmaker(['backup', join(dir, 'x.db')], { DATABASE_URL: `sqlite:${join(dir, 'none.db')}` }, dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('no database at') });
  });

  it('a migration of an existing SQLite file takes a backup first and says where', { timeout: 120_000 }, async () => {
    const db = join(dir, 'old.db');
    const old = new Database(db);
    old.pragma('journal_mode = WAL');
    // A database of the release before the last migration that changes a SQLite file (later ones may be PostgreSQL's alone).
    const lastForSqlite = Math.max(...MIGRATIONS.map((m, i) => (migrationSql(m, 'sqlite').trim() !== '' ? i : -1)));
    migrateSqlite(old, MIGRATIONS.slice(0, lastForSqlite));
    old.close();
    const before = MIGRATIONS[lastForSqlite - 1]!.version;
    const out = await labelmaker(['tokens', 'list'], { DATABASE_URL: `sqlite:${db}` }, dir);
    expect(out, out.stderr).toMatchObject({ code: 0, stdout: 'no tokens\n' });
    const backup = readdirSync(dir).find((f) => f.startsWith(`old.db.before-migration-${MIGRATIONS.at(-1)!.version}-`));
    expect(backup).toBeDefined();
    expect(out.stderr).toContain(`backed up the database before migrating it from schema version ${before} to ${MIGRATIONS.at(-1)!.version}: ${join(dir, backup!)}`);
    const copy = new Database(join(dir, backup!), { readonly: true });
    expect(copy.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(before);
    copy.close();
    // Up to date: no second backup.
    expect((await labelmaker(['tokens', 'list'], { DATABASE_URL: `sqlite:${db}` }, dir)).stderr).not.toContain('backed up');
    expect(readdirSync(dir).filter((f) => f.includes('.before-migration-'))).toHaveLength(1);

    // Migrations that change nothing in a SQLite file (PostgreSQL's alone) are recorded without a copy.
    const pgOnly = MIGRATIONS.slice(lastForSqlite + 1);
    if (pgOnly.length > 0) {
      const db2 = join(dir, 'pg-only.db');
      const atLast = new Database(db2);
      migrateSqlite(atLast, MIGRATIONS.slice(0, lastForSqlite + 1));
      atLast.close();
      const quiet = await labelmaker(['tokens', 'list'], { DATABASE_URL: `sqlite:${db2}` }, dir);
      expect(quiet, quiet.stderr).toMatchObject({ code: 0 });
      expect(quiet.stderr).not.toContain('backed up');
      expect(readdirSync(dir).filter((f) => f.startsWith('pg-only.db.before-migration-'))).toEqual([]);
      const migrated = new Database(db2, { readonly: true });
      expect(migrated.prepare('SELECT MAX(version) FROM schema_migrations').pluck().get()).toBe(MIGRATIONS.at(-1)!.version);
      migrated.close();
    }
  });
});

describe('configuration', () => {
  it('a config file (--config or LABELMAKER_CONFIG) with the database URL in a secret file; the environment wins; secrets are not logged', { timeout: 300_000 }, async () => {
    const etc = join(dir, 'etc');
    mkdirSync(etc);
    writeFileSync(join(etc, 'db-url'), `sqlite:${join(dir, 'from-secret.db')}\n`, { mode: 0o600 });
    writeFileSync(join(etc, 'printer-uri'), `${pathToFileURL(join(dir, 'printed'))}\n`, { mode: 0o600 });
    writeFileSync(join(etc, 'labelmaker.env'), ['# Labelmaker', 'DATABASE_URL_FILE=db-url', 'PRINTER_URI_FILE=printer-uri', 'PORT=0', 'export LABEL_FOOTER="If found, call 555"', 'LOG_LEVEL=info # comment', ''].join('\n'));
    const created = await labelmaker(['--config', join(etc, 'labelmaker.env'), 'tokens', 'create', '--name', 'me', '--scopes', 'labels:print,printers:admin'], {}, dir);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(existsSync(join(dir, 'from-secret.db'))).toBe(true);
    // The same file through LABELMAKER_CONFIG; DATABASE_URL in the environment as well as its _FILE is refused.
    expect((await labelmaker(['tokens', 'list'], { LABELMAKER_CONFIG: join(etc, 'labelmaker.env') }, dir)).stdout).toContain(' me');
    const both = await labelmaker(['tokens', 'list'], { LABELMAKER_CONFIG: join(etc, 'labelmaker.env'), DATABASE_URL: 'sqlite:elsewhere.db' }, dir);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('set DATABASE_URL or DATABASE_URL_FILE, not both') });
    // An environment variable beats the file's line.
    expect(await labelmaker(['tokens', 'list'], { LABELMAKER_CONFIG: join(etc, 'labelmaker.env'), PORT: 'x' }, dir)).toMatchObject({ code: 2, stderr: expect.stringContaining("PORT must be an integer from 0 to 65535; got 'x'") });
    // A bad line names the file and the line, not the value.
    writeFileSync(join(etc, 'bad.env'), 'DATABASE_URL=postgres://u:hunter2@db/x\nthis is not a setting hunter2\n');
    const bad = await labelmaker(['tokens', 'list', '--config', join(etc, 'bad.env')], {}, dir);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining(`config file ${join(etc, 'bad.env')}, line 2: expected NAME=value`) });
    expect(bad.stderr).not.toContain('hunter2');
    // A name that is not a setting (a typo) stops the start, naming the file, the line and the name; PRINTER_URI and its _FILE clash as the others do.
    writeFileSync(join(etc, 'typo.env'), 'PORT=0\nPRINTER_URL=ipp://printer/ipp/print\n');
    for (const run of [['tokens', 'list', '--config', join(etc, 'typo.env')], ['serve', '--config', join(etc, 'typo.env')]]) {
      const typo = await labelmaker(run, {}, dir);
      expect(typo).toMatchObject({ code: 2, stderr: expect.stringContaining(`config file ${join(etc, 'typo.env')}, line 2: PRINTER_URL is not a setting`) });
    }
    const printerBoth = await labelmaker(['tokens', 'list'], { LABELMAKER_CONFIG: join(etc, 'labelmaker.env'), PRINTER_URI: 'file:///tmp' }, dir);
    expect(printerBoth).toMatchObject({ code: 2, stderr: expect.stringContaining('set PRINTER_URI or PRINTER_URI_FILE, not both') });

    // The service reads the same file: its database is the secret file's.
    const svc = await startService({ LABELMAKER_CONFIG: join(etc, 'labelmaker.env') }, { bin: ['serve'], cwd: dir, startMs: 240_000 });
    expect(svc.output()).toContain(`"database":"sqlite:${join(dir, 'from-secret.db')}"`);
    // Its default printer is PRINTER_URI_FILE's.
    const token = /\b(lm_\S+)/.exec(created.stdout)?.[1] ?? '';
    const printers = await fetch(`${svc.url}/v1/labelmaker/printers`, { headers: { authorization: `Bearer ${token}` } });
    expect(printers.status).toBe(200);
    expect(JSON.stringify(await printers.json())).toContain(pathToFileURL(join(dir, 'printed')).href);
  });

  it('the agent reads its token from LABELMAKER_AGENT_TOKEN_FILE (a config file may name it)', { timeout: 120_000 }, async () => {
    const agentArgs = ['agent', '--service', 'http://127.0.0.1:9', '--name', 'shed'];
    expect(await labelmaker(agentArgs, {}, dir)).toMatchObject({ code: 2, stderr: expect.stringContaining('agent needs its token') });
    writeFileSync(join(dir, 'agent-token'), 'lm_abcdefgh_not-a-real-token-but-long-enough-for-this-test-xx\n', { mode: 0o600 });
    writeFileSync(join(dir, 'agent.env'), 'LABELMAKER_AGENT_TOKEN_FILE=agent-token\n');
    const child = spawn(BIN, ['--config', join(dir, 'agent.env'), ...agentArgs], { cwd: dir, env: { ...process.env, PATH: USER_PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    for (let i = 0; i < 600 && !out.includes('labelmaker agent started') && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain('labelmaker agent started');
    expect(out).not.toContain('not-a-real-token');
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });

  it('the demo prints into the data folder of the installation or DATA_DIR, not the working directory', { timeout: 300_000 }, async () => {
    const data = join(dir, 'state');
    const cwd = join(dir, 'elsewhere');
    mkdirSync(cwd, { mode: 0o500 }); // not writable, as / or /app for a service user
    const svc = await startService({ DATA_DIR: data, DEMO: 'true' }, { bin: ['serve'], cwd, startMs: 240_000 });
    await new Promise((r) => setTimeout(r, 300));
    const token = /\s(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})\s/.exec(svc.stderr())![1]!;
    expect(svc.stderr()).toContain(`the demo printer writes PNGs to file://${join(data, 'printed-labels')}`);
    const res = await fetch(`${svc.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    for (let i = 0; i < 100 && !(existsSync(join(data, 'printed-labels')) && readdirSync(join(data, 'printed-labels')).some((f) => f.endsWith('.png'))); i++) await new Promise((r) => setTimeout(r, 100));
    expect(readdirSync(join(data, 'printed-labels')).some((f) => f.endsWith('.png'))).toBe(true);
    expect(existsSync(join(data, 'labelmaker.db'))).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('PostgreSQL: pg_dump and pg_restore, as docs/operations.md says', () => {
  const name = `lm_ship_${process.pid}_${Date.now() % 100000}`;
  const admin = new URL(PG_ADMIN_URL);
  const urlOf = (db: string) => {
    const u = new URL(PG_ADMIN_URL);
    u.pathname = `/${db}`;
    return u.toString();
  };
  const psql = (sql: string) => promisify(execFile)('psql', [PG_ADMIN_URL, '-v', 'ON_ERROR_STOP=1', '-qAtc', sql]);
  beforeAll(async () => {
    await psql(`CREATE DATABASE ${name}`);
    await psql(`CREATE DATABASE ${name}_restored`);
  });
  afterAll(async () => {
    await psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await psql(`DROP DATABASE IF EXISTS ${name}_restored WITH (FORCE)`);
  });

  it('a dump of a Labelmaker database restores into an empty one that the command and the service use', { timeout: 300_000 }, async () => {
    expect(admin.protocol).toBe('postgres:');
    const created = await labelmaker(['tokens', 'create', '--name', 'pg-me', '--scopes', 'labels:read'], { DATABASE_URL: urlOf(name) }, dir);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const token = /\s(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})\s/.exec(created.stdout)![1]!;
    const dump = join(dir, 'labelmaker.dump');
    await promisify(execFile)('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, urlOf(name)]);
    await promisify(execFile)('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${urlOf(`${name}_restored`)}`, dump]);
    expect((await labelmaker(['tokens', 'list'], { DATABASE_URL: urlOf(`${name}_restored`) }, dir)).stdout).toContain('pg-me');
    const svc = await startService({ DATABASE_URL: urlOf(`${name}_restored`) }, { bin: ['serve'], cwd: dir, startMs: 240_000 });
    const res = await fetch(`${svc.url}/v1/labelmaker/records?q=x`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
  });
});
