/**
 * Fault injection with real processes, PostgreSQL: the service as users run it
 * (src/main.ts in its own process, as a throwaway login role, through a TCP proxy)
 * under a steady mixed load of label reads, prints and /healthz checks, while the test
 * makes the role's sessions read-only (default_transaction_read_only, sessions cut),
 * revokes its INSERT/UPDATE on print_jobs, or takes the server away (the proxy cut), at
 * random moments.
 *
 * Every answer is lined up with the fault windows (test/helpers/fault-trials.ts). What
 * must hold at every moment:
 * - nothing answers 500 (or fails to answer): a fault is a 503 with Retry-After;
 * - label reads keep working whenever the database can still be read;
 * - no print is accepted while writes are refused, and a 503 for a print happens only
 *   around a fault;
 * - /healthz tells the truth: degraded with the right state inside a fault (once the
 *   service had a moment to notice), ok outside;
 * - nothing accepted is lost: every print job that got a 200 is printed in the end.
 * The figures of each scenario are printed (faults, requests, 503s, lost jobs, health
 * checks judged and how many were wrong).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { PROBE_AFTER_MS } from '../../src/records/health.js';
import { openStore } from '../../src/records/index.js';
import { BASE_ENV, between, expectTruth, faultWindow, judge, report, sleep, type FaultKind, type Window } from '../helpers/fault-trials.js';
import { createFaultRole, skipLoudly, startPgProxy, type FaultRole, type TcpProxy } from '../helpers/faults.js';
import { startLoad, waitPrinted } from '../helpers/load.js';
import { FIXTURES } from '../helpers/server.js';
import { killAllServices, startService } from '../helpers/service.js';
import { PG_TEST_URL_SAFE, createTestSchema, postgresReachable, type TestSchema } from '../records/pg-test-db.js';

const pgWhy = await postgresReachable();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('PostgreSQL under faults, through the real service', () => {
  if (pgWhy !== undefined) {
    skipLoudly('the PostgreSQL fault trials', `${PG_TEST_URL_SAFE} unreachable (${pgWhy})`);
    return;
  }
  let schema: TestSchema | undefined;
  let role: FaultRole | undefined;
  let proxy: TcpProxy | undefined;
  afterAll(async () => {
    killAllServices();
    await proxy?.close();
    await role?.drop();
    await schema?.drop();
  });

  it('read-only sessions, a revoked privilege and a server that goes away, at random moments under load (6 windows): /healthz tells, nothing is lost', async () => {
    schema = await createTestSchema();
    const admin = await openStore(schema.url);
    await admin.records.upsertMany(FIXTURES);
    const { token } = await createToken(admin, 'load', ['labels:read', 'labels:print']);
    await admin.close();
    role = await createFaultRole(schema);
    proxy = await startPgProxy();
    const dir = mkdtempSync(join(tmpdir(), 'lm-pg-faults-'));
    dirs.push(dir);
    const svc = await startService({ ...BASE_ENV, DATABASE_URL: proxy.via(role.url), PRINTER_URI: pathToFileURL(join(dir, 'spool')).href });
    const load = startLoad({ url: svc.url, token, printPauseMs: 40 });
    const windows: Window[] = [];
    const faults: Record<string, { kind: FaultKind; on: () => Promise<void>; off: () => Promise<void> }> = {
      readOnlySessions: { kind: 'read-only', on: () => role!.setReadOnly(true), off: () => role!.setReadOnly(false) },
      revokedPrivilege: { kind: 'read-only', on: () => role!.revoke('print_jobs'), off: () => role!.grant('print_jobs') },
      serverGone: { kind: 'unreachable', on: () => proxy!.cut(), off: () => proxy!.restore() },
    };
    const order = ['readOnlySessions', 'revokedPrivilege', 'serverGone'].flatMap((k) => [k, k]).sort(() => Math.random() - 0.5);
    for (const name of order) {
      const fault = faults[name]!;
      // PostgreSQL clears a write fault by a probe only (one table may be revoked), two seconds after the last failure.
      await sleep(between(PROBE_AFTER_MS + 900, PROBE_AFTER_MS + 1800));
      windows.push({ ...(await faultWindow(fault.kind, fault.on, between(500, 1500), fault.off)), name });
    }
    await sleep(PROBE_AFTER_MS + 1000);
    const v = judge(await load.stop(), windows, { detectMs: 600, recoverMs: PROBE_AFTER_MS + 700 });
    const lost = await waitPrinted(svc.url, token, v.accepted);
    report('PostgreSQL', windows.length, v, lost);
    expect(v.unavailable503).toBeGreaterThan(0);
    // Enough checks were judged to mean something; how many depends on how busy the machine is.
    expect(v.healthChecked).toBeGreaterThan(20);
    expectTruth(v, lost, svc);
  }, 150_000);
});
