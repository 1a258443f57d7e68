/**
 * A print job accepted is a print job delivered, even across kill -9: the real
 * service runs as its own process (the entry point, as users run it), gets
 * killed between acceptance and delivery, and the job comes out once after a
 * restart, and never again after that.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { refusedPort, startTcpSink, type TcpSink } from '../helpers/tcp-sink.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, killHard, startService } from '../helpers/service.js';

let sink: TcpSink | undefined;
let dir: string | undefined;
afterEach(async () => {
  killAllServices();
  await sink?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  sink = dir = undefined;
});

describe('print jobs across kill -9', () => {
  it('a job accepted before the crash is delivered after restart, exactly once', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lm-crash-'));
    const db = join(dir, 'labelmaker.db');
    const store = await openStore(`sqlite:${db}`);
    await store.records.upsertMany(FIXTURES);
    const { token } = await createToken(store, 'crash-test', ['labels:read', 'labels:print']);
    await store.close();

    const port = await refusedPort(); // the printer is off while the job is accepted
    const env = {
      DATABASE_URL: `sqlite:${db}`,
      PRINTER_URI: `socket://127.0.0.1:${port}?lang=zpl`,
      PRINT_RETRY_BASE_MS: '100',
      PRINT_RETRY_MAX_MS: '200',
      PRINT_MAX_ATTEMPTS: '100',
      PRINT_TIMEOUT_MS: '2000',
    };
    const first = await startService(env);
    const res = await fetch(`${first.url}/v1/labelmaker/assets/000-001?print=true`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const jobPath = res.headers.get('print-job');
    expect(jobPath).toBeTruthy();
    await killHard(first.child);

    sink = await startTcpSink('accept', port); // the printer comes back
    const second = await startService(env);
    const zpl = (await sink.nextJob()).toString('latin1');
    expect(zpl).toMatch(/^\^XA.*\^XZ$/s);

    const poll = async () => (await (await fetch(second.url + jobPath, { headers: { Authorization: `Bearer ${token}` } })).json()) as { state: string };
    const until = Date.now() + 10_000;
    let job = await poll();
    while (job.state !== 'printed' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      job = await poll();
    }
    expect(job.state).toBe('printed');

    // Another restart: a delivered job is not delivered again.
    await killHard(second.child);
    const third = await startService(env);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.connections).toBe(1);
    const after = (await (await fetch(third.url + jobPath, { headers: { Authorization: `Bearer ${token}` } })).json()) as { state: string };
    expect(after.state).toBe('printed');
  }, 120_000); // two service starts and a kill -9: slow on a busy 2-core machine
});
