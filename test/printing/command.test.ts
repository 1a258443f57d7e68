import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { driverFromUri } from '../../src/printing/device-uri.js';
import { CommandDriver, renderArgv } from '../../src/printing/drivers/command.js';
import { UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { never, timesOutAfter } from './fixtures.js';

const RECORDER = fileURLToPath(new URL('./argv-recorder.mjs', import.meta.url));
let dir: string;
let out: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'labels-cmd-'));
  out = join(dir, 'argv.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const NAME = 'Drill "XL" $(reboot) ; rm -rf / && echo pwned';
const JOB_ID = '3f2b8c1e-6d4a-4f7e-9b2c-8a1d5e7f9c30';
const doc = {
  jobId: JOB_ID,
  createdAt: '2026-11-21T10:15:30.123Z',
  png: Buffer.from('89504e47-not-really', 'utf8'),
  stockName: 'brother-ql-62x29',
  title: 'item label: Drill; rm -rf /',
  fields: { kind: 'item', id: 'i-1', name: NAME, assetId: '', url: 'https://x.example/i/1?a=1&b=2' },
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('command driver', () => {
  it('substitutes placeholders per argument: a hostile name stays one literal argument', async () => {
    const argv = [process.execPath, RECORDER, out, 'ok', '-t', '{title}', '--name={name}', '{file}', '{template}/{kind}/{id}/{assetId}/{url}', '{unknown}', '--job={jobId}'];
    const driver = driverFromUri('command:', { commandArgv: argv });
    expect(driver.kind).toBe('command');
    expect(driver.target).toBe(`command ${process.execPath}`);
    await driver.print(doc, never());
    const rec = JSON.parse(await readFile(out, 'utf8')) as { args: string[]; fileBytes: string };
    expect(rec.args).toHaveLength(7);
    expect(rec.args.slice(0, 3)).toEqual(['-t', 'item label: Drill; rm -rf /', `--name=${NAME}`]);
    expect(rec.args[3]).toMatch(/labelmaker-print-.*label\.png$/);
    expect(rec.args.slice(4)).toEqual(['brother-ql-62x29/item/i-1//https://x.example/i/1?a=1&b=2', '{unknown}', `--job=${JOB_ID}`]);
    expect(Buffer.from(rec.fileBytes, 'base64')).toEqual(doc.png); // {file} existed with the PNG while running
    expect(existsSync(rec.args[3]!)).toBe(false); // and is gone afterwards
  });

  it('a non-zero exit is an Error with the exit code and the end of stderr', async () => {
    const driver = new CommandDriver([process.execPath, RECORDER, out, 'fail', '{file}']);
    const err = (await driver.print(doc, never()).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(UncertainDeliveryError); // the program said it did not print
    expect(err.message).toMatch(/exited with code 3/);
    expect(err.message).toContain('lp: The printer or class does not exist.');
    expect(err.message.length).toBeLessThan(700); // only the tail of 3 KB of stderr
    const rec = JSON.parse(await readFile(out, 'utf8')) as { args: string[] };
    expect(existsSync(rec.args[0]!)).toBe(false);
  });

  it('a time-out kills the program (sleep 30)', async () => {
    const driver = driverFromUri('command:', { commandArgv: ['sleep', '30'] });
    const t0 = Date.now();
    const err = (await driver.print(doc, timesOutAfter(200)).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/stopped \(SIGTERM\).*time.*may have printed it/i);
    // Stopped mid-run, it may have printed: the retry is a redelivery.
    expect(err).toBeInstanceOf(UncertainDeliveryError);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('a program ignoring SIGTERM gets SIGKILL after the grace period', async () => {
    const driver = new CommandDriver([process.execPath, RECORDER, out, 'stubborn'], { killGraceMs: 300 });
    const ac = new AbortController();
    const done = driver.print(doc, ac.signal).catch((e: unknown) => e) as Promise<Error>;
    // Abort once the program is running (it has written its pid).
    let pid = 0;
    while (!pid) {
      await new Promise((r) => setTimeout(r, 20));
      pid = existsSync(out) ? ((JSON.parse((await readFile(out, 'utf8')) || '{}') as { pid?: number }).pid ?? 0) : 0;
    }
    await new Promise((r) => setTimeout(r, 100)); // let it install its SIGTERM handler
    ac.abort(new Error('job cancelled'));
    const err = await done;
    expect(err.message).toMatch(/stopped \(SIGKILL\): job cancelled/);
    expect(err).toBeInstanceOf(UncertainDeliveryError);
    expect(alive(pid)).toBe(false);
  });

  it('a missing program is a clear Error', async () => {
    const driver = new CommandDriver(['/nonexistent/lp', '{file}']);
    const err = (await driver.print(doc, never()).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/could not start: ENOENT/);
    expect(err).not.toBeInstanceOf(UncertainDeliveryError);
  });

  it('renderArgv never splits or joins arguments', () => {
    expect(renderArgv(['a {name} b', '{name}{name}'], { name: 'x y' })).toEqual(['a x y b', 'x yx y']);
    expect(() => new CommandDriver([])).toThrow(/empty/);
  });
});
