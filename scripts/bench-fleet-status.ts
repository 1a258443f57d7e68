/**
 * What polling 100 printers' status costs (issue 31): 50 Brother QL peers (SNMP over UDP)
 * and 50 Zebra peers (~HS over TCP) on loopback, in a child process of their own, and in
 * this process a SQLite store (as the service keeps it: its writer thread, WAL) with the
 * 100 printers and the status poller (src/printing/poller.ts) reading them every interval.
 *
 * The figure is this process's CPU (user + system, all its threads: process.cpuUsage) as
 * a % of one core over one whole interval of steady polling, minus the same process idle
 * (store open, no poller) measured in the same run over the same length of time. The
 * first round (drivers made, connections first opened) is left out: the measured
 * interval starts with the second round.
 *
 * Run: npm run bench:fleet-status -- [intervalSeconds=30] [qlPeers=50] [zebraPeers=50]
 * (the default takes about 95 s: idle 30 s, the first round and the rest of its interval, then
 * one whole 30 s interval; `npm run bench:fleet-status -- 5` is a 15 s check).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printerDrivers } from '../src/printing/printer-drivers.js';
import { startStatusPoller } from '../src/printing/poller.js';
import { openStore } from '../src/records/index.js';

const HERE = fileURLToPath(import.meta.url);

/** The child: starts the peers, sends their URIs, and keeps them up until told to stop. */
async function runPeers(ql: number, zebra: number): Promise<void> {
  const { startQlPeer } = await import('../test/helpers/brother-ql-peer.js');
  const { startZebraPeer } = await import('../test/helpers/zebra-peer.js');
  const qls = await Promise.all(Array.from({ length: ql }, () => startQlPeer()));
  const zebras = await Promise.all(Array.from({ length: zebra }, () => startZebraPeer()));
  process.send!({ uris: [...qls.map((p) => p.uri), ...zebras.map((p) => p.uri)] });
  process.on('message', async (msg: { stop?: boolean; count?: boolean }) => {
    if (msg.count) {
      process.send!({ snmp: qls.reduce((n, p) => n + p.snmpRequests, 0), hs: zebras.reduce((n, p) => n + p.queries.hs, 0) });
    } else if (msg.stop) {
      await Promise.all([...qls, ...zebras].map((p) => p.close()));
      process.exit(0);
    }
  });
}

function ask<T>(child: ChildProcess, msg: object, pick: (m: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      const v = pick(m);
      if (v !== undefined) {
        child.off('message', on);
        resolve(v);
      }
    };
    child.on('message', on);
    if (Object.keys(msg).length) child.send(msg);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU of this process (all threads) over `ms` of wall time, in ms. */
async function cpuOver(ms: number): Promise<{ cpuMs: number; wallMs: number }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(ms);
  const c = process.cpuUsage(c0);
  return { cpuMs: (c.user + c.system) / 1000, wallMs: performance.now() - t0 };
}

async function main(intervalS: number, ql: number, zebra: number): Promise<void> {
  const intervalMs = intervalS * 1000;
  const child = fork(HERE, ['--peers', String(ql), String(zebra)], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const uris = await ask(child, {}, (m) => (m as { uris?: string[] }).uris);
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'lm-bench-fleet-'));
  const store = await openStore(`sqlite:${join(dir, 'lm.db')}`);
  try {
    for (const [i, uri] of uris.entries()) {
      await store.printers.put({ name: `p-${String(i).padStart(3, '0')}`, title: `Printer ${i}`, deviceUri: uri, model: null, locationId: null, stocks: [], red: false, isDefault: false, source: 'api' });
    }
    await sleep(2000); // start-up's own work (compiling, the first writes' JIT) settles first
    const idle = await cpuOver(intervalMs);

    const started = Date.now();
    const poller = startStatusPoller({ printers: store.printers, drivers: printerDrivers(), intervalMs, logger: { debug() {}, warn() {}, error: (f, m) => console.error(m, f) } });
    // The first round: every printer read once.
    for (;;) {
      const read = (await store.printers.list()).filter((p) => p.status && (p.status as { state?: string }).state).length;
      if (read === uris.length) break;
      await sleep(100);
    }
    const firstRoundMs = Date.now() - started;
    const before = await ask(child, { count: true }, (m) => ((m as { snmp?: number }).snmp === undefined ? undefined : (m as { snmp: number; hs: number })));
    // One whole interval from just before the second round.
    await sleep(Math.max(0, started + intervalMs - 20 - Date.now()));
    const polling = await cpuOver(intervalMs);
    const after = await ask(child, { count: true }, (m) => ((m as { snmp?: number }).snmp === undefined ? undefined : (m as { snmp: number; hs: number })));
    await poller.stop();

    const states = new Map<string, number>();
    for (const p of await store.printers.list()) {
      const s = (p.status as { state?: string } | null)?.state ?? 'none';
      states.set(s, (states.get(s) ?? 0) + 1);
    }
    const pct = (cpuMs: number, wallMs: number) => (100 * cpuMs) / wallMs;
    const idlePct = pct(idle.cpuMs, idle.wallMs);
    const pollPct = pct(polling.cpuMs, polling.wallMs);
    console.log(`printers: ${uris.length} (${ql} Brother QL over SNMP, ${zebra} Zebra over TCP ~HS), interval ${intervalS} s, store SQLite in ${dir.startsWith('/dev/shm') ? '/dev/shm' : 'tmp'}`);
    console.log(`first round (drivers made): ${firstRoundMs} ms`);
    console.log(`reads in the measured interval: ${after.snmp - before.snmp} SNMP GETs, ${after.hs - before.hs} ~HS; states: ${[...states].map(([s, n]) => `${s} ${n}`).join(', ')}`);
    console.log(`CPU idle:    ${idle.cpuMs.toFixed(0)} ms over ${(idle.wallMs / 1000).toFixed(1)} s = ${idlePct.toFixed(3)} % of a core`);
    console.log(`CPU polling: ${polling.cpuMs.toFixed(0)} ms over ${(polling.wallMs / 1000).toFixed(1)} s = ${pollPct.toFixed(3)} % of a core`);
    console.log(`polling costs ${(pollPct - idlePct).toFixed(3)} % of a core (${(polling.cpuMs - (idle.cpuMs * polling.wallMs) / idle.wallMs).toFixed(0)} ms of CPU per round of ${uris.length} printers)`);
  } finally {
    child.send({ stop: true });
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--peers') {
  await runPeers(Number(process.argv[3]), Number(process.argv[4]));
} else {
  await main(Number(process.argv[2] ?? 30), Number(process.argv[3] ?? 50), Number(process.argv[4] ?? 50));
}
