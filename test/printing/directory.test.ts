import { randomBytes, randomUUID } from 'node:crypto';
import { link, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { DirectoryDriver, labelFileName, safeFileName } from '../../src/printing/drivers/directory.js';
import { never } from './fixtures.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'labels-dir-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const FINAL = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+-[0-9a-f-]{36}\.png$/;
const CREATED = '2026-11-21T10:15:30.123Z';
const doc = (png: Buffer, title: string, jobId: string = randomUUID()) => ({ jobId, createdAt: CREATED, png, stockName: 'brother-ql-62x29', title, fields: {} });

describe('directory driver', () => {
  it('creates the folder and writes the PNG under a safe name: accepted-at, title, job id', async () => {
    const dir = join(base, 'spool', 'labels');
    const driver = driverFromUri(pathToFileURL(dir).href);
    expect(driver.kind).toBe('directory');
    const png = randomBytes(1000);
    const jobId = '3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30';
    await driver.print(doc(png, '../../etc/passwd Crème brûlée; rm -rf / 📦', jobId), never());
    const names = await readdir(dir);
    expect(names).toEqual([`20261121T101530.123Z-etc-passwd-Creme-brulee-rm-rf-${jobId}.png`]);
    expect(names[0]).toMatch(FINAL);
    expect(await readFile(join(dir, names[0]!))).toEqual(png);
  });

  it('a redelivery of the same job adds nothing and replaces nothing', async () => {
    const driver = new DirectoryDriver(base);
    const job = doc(randomBytes(500), 'item label: Drill');
    expect(await driver.checkEarlierAttempt(job)).toBe('not-delivered'); // even before the folder exists
    await driver.print(job, never());
    const [name] = await readdir(base);
    const before = await stat(join(base, name!));
    expect(await driver.checkEarlierAttempt(job)).toBe('delivered');
    await driver.print({ ...job, png: randomBytes(500) }, never()); // whatever it would send now
    expect(await readdir(base)).toEqual([name]);
    const after = await stat(join(base, name!));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(await readFile(join(base, name!))).toEqual(job.png);
    // Another job with the same title and acceptance time is another file.
    expect(await driver.checkEarlierAttempt(doc(job.png, job.title))).toBe('not-delivered');
  });

  it('a folder removed while the service runs is made again for the next job', async () => {
    const dir = join(base, 'spool');
    const driver = new DirectoryDriver(dir);
    const first = doc(randomBytes(200), 'item label: Drill');
    await driver.print(first, never());
    await rm(dir, { recursive: true });
    const second = doc(randomBytes(200), 'item label: Saw');
    await driver.print(second, never());
    expect(await readdir(dir)).toEqual([labelFileName(second)]);
    expect(await readFile(join(dir, labelFileName(second)))).toEqual(second.png);
  });

  it('what a crash leaves is hidden, not a label, and cleared before the redelivery', async () => {
    const driver = new DirectoryDriver(base);
    const job = doc(randomBytes(300), 'item label: Drill');
    // A crash after the link, before the temporary name was removed: a second link to the label.
    await driver.print(job, never());
    const [label] = await readdir(base);
    const leftover = `.${job.jobId}.0a1b2c3d4e5f.partial`;
    await link(join(base, label!), join(base, leftover));
    // A crash mid-write of another job: a partial file.
    const other = doc(randomBytes(300), 'item label: Saw');
    const partial = `.${other.jobId}.ffeeddccbbaa.partial`;
    await writeFile(join(base, partial), other.png.subarray(0, 100));
    for (const n of [leftover, partial]) {
      expect(n.startsWith('.')).toBe(true);
      expect(n).not.toMatch(/\.png$/i);
    }
    expect(await driver.checkEarlierAttempt(job)).toBe('delivered');
    expect(await driver.checkEarlierAttempt(other)).toBe('not-delivered');
    await driver.print(other, never());
    const names = (await readdir(base)).sort();
    expect(names).toHaveLength(2);
    expect(names.every((n) => FINAL.test(n))).toBe(true);
    expect(await readFile(join(base, labelFileName(other)))).toEqual(other.png);
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
