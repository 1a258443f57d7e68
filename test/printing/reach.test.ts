/**
 * The reach probe (printing/reach.ts) against real things: a listening socket, a refused
 * port, a socket whose host name does not resolve, folders, commands; and which delivery
 * failures mean "nothing reached the printer".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UncertainDeliveryError } from '../../src/printing/drivers/types.js';
import { notReached, probeReach } from '../../src/printing/reach.js';
import { sendRaw } from '../../src/printing/drivers/raw-socket.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';

describe('probeReach', () => {
  let sink: TcpSink;
  let dir: string;
  beforeAll(async () => {
    sink = await startTcpSink('accept');
    dir = mkdtempSync(join(tmpdir(), 'lm-reach-unit-'));
  });
  afterAll(async () => {
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reaches a listening printer without printing anything on it', async () => {
    expect(await probeReach(`socket://127.0.0.1:${sink.port}?lang=zpl`)).toBeUndefined();
    expect(await probeReach(`ipp://127.0.0.1:${sink.port}/printers/q`)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.received()).toEqual([]);
    expect(sink.connections).toBe(0);
  });

  it('says why a printer is not reached: refused, an unknown host name', async () => {
    expect(await probeReach(`socket://127.0.0.1:${await refusedPort()}?lang=zpl`)).toMatch(/ECONNREFUSED/);
    expect(await probeReach('socket://no-such-printer.invalid:9100?lang=zpl')).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('a folder: writable (or made under a writable parent), else not reached', async () => {
    expect(await probeReach(pathToFileURL(dir).href)).toBeUndefined();
    expect(await probeReach(pathToFileURL(join(dir, 'spool', 'labels')).href)).toBeUndefined();
    // Root writes anywhere a mode allows none: a path under a file stops everyone.
    expect(await probeReach(pathToFileURL(join('/proc/self/status', 'x')).href)).toMatch(/not writable/);
  });

  it('a command: present on PATH or by path, else not reached', async () => {
    expect(await probeReach('command:', { commandArgv: ['sh', '-c', 'true'] })).toBeUndefined();
    expect(await probeReach('command:', { commandArgv: ['/bin/sh'] })).toBeUndefined();
    expect(await probeReach('command:', { commandArgv: ['no-such-print-command-xyz'] })).toMatch(/not found/);
  });
});

describe('notReached', () => {
  it('is a failure to connect (nothing sent), never one after bytes left', async () => {
    const refused = await sendRaw('127.0.0.1', await refusedPort(), Buffer.from('^XA^XZ'), AbortSignal.timeout(2000)).catch((e: unknown) => e);
    expect(notReached(refused)).toBe(true);
    expect(notReached(new UncertainDeliveryError('reset', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }))).toBe(false);
    expect(notReached(new Error('timed out after 2000 ms'))).toBe(false);
  });
});
