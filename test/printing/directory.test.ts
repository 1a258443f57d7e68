import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { safeFileName } from '../../src/printing/drivers/directory.js';
import { never } from './fixtures.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'labels-dir-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const FINAL = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+\.png$/;
const doc = (png: Buffer, title: string) => ({ png, template: 'brother-ql-62x29', title, fields: {} });

describe('directory driver', () => {
  it('creates the folder and writes the PNG under a timestamped, safe name', async () => {
    const dir = join(base, 'spool', 'labels');
    const driver = driverFromUri(pathToFileURL(dir).href);
    expect(driver.kind).toBe('directory');
    const png = randomBytes(1000);
    await driver.print(doc(png, '../../etc/passwd Crème brûlée; rm -rf / 📦'), never());
    const names = await readdir(dir);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(FINAL);
    expect(names[0]).toContain('-etc-passwd-Creme-brulee-rm-rf.png');
    expect(await readFile(join(dir, names[0]!))).toEqual(png);
  });

  it('never overwrites: the same title in the same millisecond gives two files', async () => {
    const driver = driverFromUri(pathToFileURL(base).href);
    await Promise.all(Array.from({ length: 20 }, (_, i) => driver.print(doc(Buffer.from([i]), 'same'), never())));
    const names = (await readdir(base)).sort();
    expect(names).toHaveLength(20);
    const bytes = await Promise.all(names.map(async (n) => (await readFile(join(base, n)))[0]));
    expect(new Set(bytes).size).toBe(20);
  });

  it('no partial file is ever visible under a final name, and no temp file is left', async () => {
    const driver = driverFromUri(pathToFileURL(base).href);
    const size = 8 * 1024 * 1024;
    const pngs = Array.from({ length: 6 }, () => randomBytes(size));
    let running = true;
    let checked = 0;
    const watcher = (async () => {
      while (running) {
        for (const n of await readdir(base)) {
          if (!FINAL.test(n)) continue;
          const data = await readFile(join(base, n));
          expect(data.length).toBe(size);
          checked++;
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (const png of pngs) await driver.print(doc(png, 'big'), never());
    running = false;
    await watcher;
    expect(checked).toBeGreaterThan(0);
    const names = await readdir(base);
    expect(names.filter((n) => !FINAL.test(n))).toEqual([]);
    expect(names).toHaveLength(6);
  });

  it('safeFileName keeps names short and plain', () => {
    expect(safeFileName('')).toBe('label');
    expect(safeFileName('....')).toBe('label');
    expect(safeFileName('item label: Cordless drill')).toBe('item-label-Cordless-drill');
    expect(safeFileName('x'.repeat(500))).toHaveLength(80);
    expect(safeFileName('a/b\\c\0d')).toBe('a-b-c-d');
  });

  it('an aborted signal writes nothing', async () => {
    const driver = driverFromUri(pathToFileURL(base).href);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(driver.print(doc(Buffer.from('x'), 't'), ac.signal)).rejects.toThrow(/stop/);
    expect(await readdir(base)).toEqual([]);
  });
});
