import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, MIGRATIONS, migrationSql, pendingMigrations, type Migration } from '../../src/records/migrations.js';
import { migrateSqlite } from '../../src/records/sqlite/store.js';

const tables = (db: Database.Database) => db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).pluck().all();

describe('migration list', () => {
  it('has unique, increasing versions and names', () => {
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions[0]).toBe(1);
    expect(LATEST_VERSION).toBe(versions.at(-1));
    for (const m of MIGRATIONS) expect(m.name).toMatch(/^[a-z0-9_]+$/);
  });

  it('stores print jobs as a BLOB in SQLite and BYTEA in PostgreSQL', () => {
    const m = MIGRATIONS.find((x) => x.name === 'print_jobs')!;
    expect(migrationSql(m, 'sqlite')).toMatch(/png\s+BLOB/);
    expect(migrationSql(m, 'postgres')).toMatch(/png\s+BYTEA/);
  });

  it('picks per-dialect SQL when given', () => {
    const m: Migration = { version: 9, name: 'x', sql: { sqlite: 'S', postgres: 'P' } };
    expect([migrationSql(m, 'sqlite'), migrationSql(m, 'postgres')]).toEqual(['S', 'P']);
  });

  it('computes pending migrations and refuses newer databases', () => {
    expect(pendingMigrations(0)).toEqual(MIGRATIONS);
    expect(pendingMigrations(1).map((m) => m.version)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
    expect(pendingMigrations(LATEST_VERSION)).toEqual([]);
    expect(() => pendingMigrations(LATEST_VERSION + 1)).toThrow(/newer release/);
  });
});

describe('migrateSqlite', () => {
  it('applies everything once, then nothing', () => {
    const db = new Database(':memory:');
    expect(migrateSqlite(db)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrateSqlite(db)).toEqual([]);
    expect(tables(db)).toEqual(['api_tokens', 'event_consumers', 'events', 'label_templates', 'print_batches', 'print_jobs', 'print_rules', 'printed_labels', 'printer_reach', 'printer_status', 'printers', 'rate_limits', 'record_syncs', 'records', 'records_revision', 'schema_migrations', 'sheet_calibrations', 'sqlite_sequence', 'store_meta', 'webhook_deliveries', 'webhooks']);
    db.close();
  });

  it('applies only what is new when the code gains a migration', () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    const next: Migration = { version: LATEST_VERSION + 1, name: 'extra', sql: 'CREATE TABLE extra (x INTEGER)' };
    expect(migrateSqlite(db, [...MIGRATIONS, next])).toEqual([next.version]);
    expect(db.prepare('SELECT name FROM schema_migrations ORDER BY version').pluck().all()).toEqual([...MIGRATIONS.map((m) => m.name), 'extra']);
    db.close();
  });

  it('rolls back all pending migrations when one fails', () => {
    const db = new Database(':memory:');
    const broken: Migration[] = [...MIGRATIONS, { version: 90, name: 'ok', sql: 'CREATE TABLE t90 (x INTEGER)' }, { version: 91, name: 'bad', sql: 'CREATE TABLE t91 (' }];
    expect(() => migrateSqlite(db, broken)).toThrow();
    expect(tables(db)).toEqual(['schema_migrations']);
    expect(db.prepare('SELECT COUNT(*) FROM schema_migrations').pluck().get()).toBe(0);
    db.close();
  });

  it('enforces the records constraints', () => {
    const db = new Database(':memory:');
    migrateSqlite(db);
    const insert = db.prepare('INSERT INTO records (kind, id, name, parent_id, asset_id, updated_at) VALUES (?, ?, ?, NULL, ?, ?)');
    const now = new Date().toISOString();
    insert.run('item', 'a', 'A', 1, now);
    expect(() => insert.run('item', 'b', 'B', 1, now)).toThrow(/UNIQUE/);
    expect(() => insert.run('item', 'c', 'C', 0, now)).toThrow(/CHECK/);
    expect(() => insert.run('location', 'd', 'D', 2, now)).toThrow(/CHECK/);
    expect(() => insert.run('bin', 'e', 'E', null, now)).toThrow(/CHECK/);
    expect(() => insert.run('item', 'a', 'dup', null, now)).toThrow(/UNIQUE|PRIMARY/);
    insert.run('location', 'a', 'same id, other kind', null, now);
    db.close();
  });
});
