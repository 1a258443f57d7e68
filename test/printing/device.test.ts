/**
 * Writing to a printer on a character device (drivers/device.ts), the device a FIFO
 * whose reader is another process (test/helpers/fifo-printer.ts): every byte arrives
 * through short writes; a device nobody takes, or one that stops taking, fails the
 * attempt when its signal fires, and holds no thread of the pool while it waits.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeDevice } from '../../src/printing/drivers/device.js';
import { PermanentPrintError, UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { startFifoPrinter, type FifoPrinter } from '../helpers/fifo-printer.js';

let dir: string;
let printer: FifoPrinter | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'labelmaker-device-'));
});
afterEach(async () => {
  await printer?.close();
  printer = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const failure = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
};

describe('writeDevice', () => {
  it('delivers 1 MiB whole through a 64 KiB pipe (short writes, EAGAIN), then the next job after it', async () => {
    printer = startFifoPrinter(dir);
    const jobs = [randomBytes(1 << 20), randomBytes(3000)];
    for (const job of jobs) await writeDevice(printer.path, job, AbortSignal.timeout(20_000), 'test printer');
    const all = Buffer.concat(jobs);
    expect((await printer.untilBytes(all.length)).equals(all)).toBe(true);
  });

  it('a device nobody opens fails when the signal fires, nothing sent, and no pool thread is held meanwhile', async () => {
    printer = startFifoPrinter(dir, { reader: false });
    const started = Date.now();
    // More waiting writers than libuv has pool threads (4): blocking opens would stop all file I/O.
    const waits = Array.from({ length: 8 }, () => failure(writeDevice(printer!.path, Buffer.from('^XA^XZ'), AbortSignal.timeout(1500), 'ZPL printer on lp0')));
    await new Promise((r) => setTimeout(r, 300));
    const read = Date.now();
    await readFile(join(import.meta.dirname, 'device.test.ts'));
    expect(Date.now() - read).toBeLessThan(500);
    for (const err of await Promise.all(waits)) {
      expect(err).not.toBeInstanceOf(UncertainDeliveryError);
      expect(err.message).toBe('ZPL printer on lp0: still waiting for the device to open: The operation was aborted due to timeout');
    }
    expect(Date.now() - started).toBeLessThan(5000);
    // The printer comes on: the next attempt goes through.
    printer.startReader();
    await writeDevice(printer.path, Buffer.from('^XA^XZ'), AbortSignal.timeout(10_000), 'ZPL printer on lp0');
    expect((await printer.untilBytes(6)).toString()).toBe('^XA^XZ');
  });

  it('a printer that stops taking data mid-job: the attempt fails as an uncertain delivery', async () => {
    printer = startFifoPrinter(dir, { reader: 'stall' });
    const err = await failure(writeDevice(printer.path, randomBytes(1 << 20), AbortSignal.timeout(1500), 'Brother QL on lp0'));
    expect(err).toBeInstanceOf(UncertainDeliveryError);
    expect(err.message).toMatch(/still waiting for the printer to take the label/);
    expect(err.message).toMatch(/may have printed/);
  });

  it('a missing device fails at once, naming its path; a regular file is no device', async () => {
    const missing = join(dir, 'usb', 'lp7');
    const started = Date.now();
    const err = await failure(writeDevice(missing, Buffer.from('x'), AbortSignal.timeout(10_000), 'ZPL printer on lp7'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err.message).toBe(`ZPL printer on lp7: ${missing} does not exist (ENOENT): is the printer on and plugged in? (ls /dev/usb/)`);
    expect(err).not.toBeInstanceOf(UncertainDeliveryError);

    const file = join(dir, 'label.bin');
    writeFileSync(file, 'keep');
    const notDevice = await failure(writeDevice(file, Buffer.from('x'), AbortSignal.timeout(10_000), 'ZPL printer'));
    expect(notDevice).toBeInstanceOf(PermanentPrintError);
    expect(notDevice.message).toMatch(/is not a device/);
    expect(await readFile(file, 'utf8')).toBe('keep');
  });
});
