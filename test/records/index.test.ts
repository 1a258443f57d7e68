import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/records/index.js';

describe('openStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lm-open-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a plain path', (d: string) => join(d, 'plain', 'x.db')],
    ['sqlite:<absolute path>', (d: string) => `sqlite:${join(d, 'abs', 'x.db')}`],
  ])('opens SQLite for %s, creating the file', async (_, url) => {
    const target = url(dir);
    const store = await openStore(target);
    await store.records.upsertMany([{ kind: 'location', id: 'l', name: 'L', description: '', parentId: null, assetId: null }]);
    await store.close();
    expect(existsSync(target.replace(/^sqlite:/, ''))).toBe(true);
    const again = await openStore(target);
    expect(await again.records.count()).toBe(1);
    await again.close();
  });

  it('opens SQLite for a relative sqlite: path', async () => {
    const rel = relative(process.cwd(), join(dir, 'data', 'rel.db'));
    expect(isAbsolute(rel)).toBe(false);
    const store = await openStore(`sqlite:${rel}`);
    await store.close();
    expect(existsSync(join(dir, 'data', 'rel.db'))).toBe(true);
  });

  it.each([':memory:', 'sqlite::memory:'])('opens an in-memory SQLite store for %s', async (url) => {
    const store = await openStore(url);
    expect(await store.records.count()).toBe(0);
    await store.close();
    expect(existsSync(url)).toBe(false);
  });

  it('routes postgres:// and postgresql:// to PostgreSQL', async () => {
    // Port 1 refuses connections: a PostgreSQL connection error proves the routing.
    await expect(openStore('postgres://postgres@127.0.0.1:1/none')).rejects.toThrow(/ECONNREFUSED/);
    await expect(openStore('postgresql://postgres@127.0.0.1:1/none')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('rejects other schemes without echoing credentials, and empty paths', async () => {
    const err = await openStore('mysql://root:hunter2@db/x').catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/unsupported store URL scheme 'mysql:'/);
    expect((err as Error).message).not.toContain('hunter2');
    await expect(openStore('')).rejects.toThrow(/empty SQLite path/);
    await expect(openStore('sqlite:')).rejects.toThrow(/empty SQLite path/);
  });
});
