/** WriteHealth: how write outcomes and probes become the store's health (checks are plain functions here). */
import { describe, expect, it } from 'vitest';
import { PROBE_AFTER_MS, WriteHealth } from '../../src/records/health.js';
import { StoreNotWritableError } from '../../src/records/errors.js';

const readOnly = () => Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function harness(opts: { anyWriteClears?: boolean; probe?: () => Promise<void>; read?: () => Promise<void> } = {}) {
  const calls = { probes: 0, changes: [] as (string | undefined)[] };
  const health = new WriteHealth(
    {
      read: opts.read ?? (async () => {}),
      probeWrite: async () => {
        calls.probes++;
        await (opts.probe ?? (async () => {}))();
      },
    },
    (fault) => calls.changes.push(fault?.state),
    opts.anyWriteClears ?? true,
  );
  return { health, calls };
}

describe('WriteHealth', () => {
  it('probes only when the latest write outcome is older than the interval, sharing one probe between callers', async () => {
    const { health, calls } = harness();
    await Promise.all([health.health(), health.health(), health.health()]);
    expect(calls.probes).toBe(1);
    await health.health();
    expect(calls.probes).toBe(1); // fresh
    health.succeeded();
    await health.health();
    expect(calls.probes).toBe(1);
  });

  it('a failed write degrades it at once; only write faults count, not bugs or constraints', async () => {
    const { health, calls } = harness();
    health.failed(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }));
    health.failed(new Error('a bug'));
    health.succeeded();
    health.failed(readOnly());
    expect(await health.health()).toMatchObject({ status: 'degraded', state: 'read-only', reads: true, writes: false });
    expect(calls.changes).toEqual(['read-only']);
    health.failed(new StoreNotWritableError('missing', 'gone'));
    expect((await health.health()).state).toBe('missing');
  });

  it('SQLite: any write that commits clears a fault; PostgreSQL: only a probe does', async () => {
    const sqlite = harness();
    sqlite.health.failed(readOnly());
    sqlite.health.succeeded();
    expect((await sqlite.health.health()).status).toBe('ok');

    const pg = harness({ anyWriteClears: false });
    pg.health.failed(Object.assign(new Error('permission denied for table print_jobs'), { code: '42501' }));
    pg.health.succeeded(); // a write to another table
    expect((await pg.health.health()).status).toBe('degraded');
    await sleep(PROBE_AFTER_MS + 50);
    expect((await pg.health.health()).status).toBe('ok'); // the probe (every table) cleared it
    expect(pg.calls.probes).toBe(1);
  });

  it('a failing probe keeps it degraded; a hung probe does not hold health() past its deadline', async () => {
    let hang = false;
    const { health } = harness({
      probe: () => (hang ? new Promise(() => {}) : Promise.reject(readOnly())),
    });
    expect((await health.health()).state).toBe('read-only');
    await sleep(PROBE_AFTER_MS + 50);
    hang = true;
    const started = Date.now();
    expect((await health.health()).state).toBe('read-only');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('callers share a held-up probe and its deadline: one waits it, those after answer at once with what is known', async () => {
    let release = () => {};
    const { health, calls } = harness({ probe: () => new Promise<void>((resolve) => (release = resolve)) });
    let started = Date.now();
    const [first, second] = await Promise.all([health.health(), sleep(500).then(() => health.health())]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(1500); // the second waited out the first one's deadline, not its own
    started = Date.now();
    expect((await health.health()).status).toBe('ok'); // the probe still held up: no fault is known
    expect(Date.now() - started).toBeLessThan(100);
    expect([first.status, second.status, calls.probes]).toEqual(['ok', 'ok', 1]);
    release();
    await sleep(PROBE_AFTER_MS + 50);
    started = Date.now();
    await health.health(); // done: the next stale outcome starts a new probe
    expect(calls.probes).toBe(2);
  });

  it('reads failing make it unavailable, whatever the writes', async () => {
    let fail = true;
    const { health } = harness({ read: async () => { if (fail) throw new Error('connect ECONNREFUSED'); } });
    const down = await health.health();
    expect(down).toMatchObject({ status: 'unavailable', state: 'unreachable', reads: false, writes: false });
    fail = false;
    expect((await health.health()).status).toBe('ok');
  });
});
