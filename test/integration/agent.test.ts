/**
 * `labelmaker agent` (issue 31) from the user's side: the service (src/main.ts, its own
 * process) on a real SQLite file, printers bound to the agent `shed` (a folder and a real
 * IPP printer, ippeveprinter), and the agent run as users run it, a child process that
 * reaches the service over loopback with a token of the scope printers:agent. Jobs print
 * through the agent, never through the service's own dispatcher; the agent's status
 * readings show in getPrinter and release held jobs; kill -9 of the agent (at random
 * moments during delivery) and of the service lose no accepted job and print none twice
 * without saying so.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../src/commands.js';
import { openStore } from '../../src/records/index.js';
import { startIppEvePrinter, type IppEvePrinter } from '../helpers/ippeveprinter.js';
import { killAllServices, killHard, startService, type Service } from '../helpers/service.js';
import { FIXTURES } from '../helpers/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;
const FINAL = /^\d{8}T\d{6}\.\d{3}Z-[A-Za-z0-9._-]+\.png$/;
const PNG_END = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]).subarray(-8);
const TRIALS = Number(process.env.AGENT_KILL_TRIALS ?? 6);
/** How long a start of the service or the agent may take: a restart after a kill on a busy machine took over 30 s. */
const START_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);

let dir: string;
let spool: string;
let serviceSpool: string;
let ipp: IppEvePrinter;
let env: Record<string, string>;
let svc: Service;
const tokens = { print: '', admin: '', shed: '', garage: '' };
const agents: ChildProcess[] = [];
/** Every agent's log lines so far (the redeliveries' checks are counted from them). */
const agentLogs: (() => string)[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

function call(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(svc.url + path, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, Accept: 'image/png, application/json, application/problem+json', ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
  });
}

/** The agent as users run it; resolves once it has started. Its token comes from the environment. */
function startAgent(): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'agent', '--service', svc.url, '--name', 'shed', '--print-timeout-ms', '1500', '--status-interval-s', '1', '--retry-base-ms', '50', '--retry-max-ms', '200'], {
    cwd: ROOT,
    env: { ...process.env, LABELMAKER_AGENT_TOKEN: tokens.shed, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  agents.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  agentLogs.push(() => out);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`agent did not start:\n${out}`)), START_MS);
    child.stdout!.on('data', () => {
      if (out.includes('labelmaker agent started')) {
        clearTimeout(timer);
        resolve({ child, output: () => out });
      }
    });
    child.once('exit', (code) => reject(new Error(`agent exited with ${code}:\n${out}`)));
  });
}

/** Submits a label to print on `printer`; the job's link, or undefined when the service did not accept it. */
async function print(printer: string, assetId = '000-042'): Promise<string | undefined> {
  try {
    const res = await call(tokens.print, `/v1/labelmaker/assets/${assetId}?print=true&template=brother-ql-62x29&printer=${printer}`);
    await res.arrayBuffer();
    return res.status === 200 ? (res.headers.get('print-job') ?? undefined) : undefined;
  } catch {
    return undefined; // cut off (the service was killed): not accepted
  }
}

async function job(link: string): Promise<Record<string, unknown>> {
  return (await (await call(tokens.print, link)).json()) as Record<string, unknown>;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Every job id the agent's printers printed, once per print. */
async function prints(): Promise<string[]> {
  const folder = readdirSync(spool).filter((n) => FINAL.test(n)).map((n) => UUID.exec(n)?.[0] ?? `unnamed:${n}`);
  const docs = (await ipp.documents()).filter((d) => d.data.subarray(-8).equals(PNG_END)).map((d) => UUID.exec(d.name)?.[0] ?? `unnamed:${d.name}`);
  return [...folder, ...docs];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lm-agent-'));
  spool = join(dir, 'shed-spool');
  serviceSpool = join(dir, 'service-spool');
  mkdirSync(spool);
  mkdirSync(serviceSpool);
  ipp = await startIppEvePrinter();
  const db = join(dir, 'labelmaker.db');
  const store = await openStore(`sqlite:${db}`);
  await store.records.upsertMany(FIXTURES);
  tokens.print = (await createToken(store, 'printer', ['labels:read', 'labels:print'])).token;
  tokens.admin = (await createToken(store, 'admin', ['labels:read', 'labels:print', 'printers:admin'])).token;
  tokens.shed = (await createToken(store, 'shed', ['printers:agent'])).token;
  tokens.garage = (await createToken(store, 'garage', ['printers:agent'])).token;
  await store.close();
  env = {
    DATABASE_URL: `sqlite:${db}`,
    PORT: String(await freePort()), // the same address after a restart: the agent knows only this one
    PRINTER_URI: pathToFileURL(serviceSpool).href, // the service's own printer (default), not the agent's
    PRINT_RETRY_BASE_MS: '50',
    PRINT_RETRY_MAX_MS: '200',
    PRINT_MAX_ATTEMPTS: '100',
    PRINT_TIMEOUT_MS: '1500',
    PRINTER_STATUS_INTERVAL_S: '1',
  };
  svc = await startService(env, { startMs: START_MS });
  for (const [name, deviceUri] of [['shed-folder', pathToFileURL(spool).href], ['shed-ipp', ipp.uri]]) {
    const res = await call(tokens.admin, `/v1/labelmaker/printers/${name}`, { method: 'PUT', body: JSON.stringify({ title: name, deviceUri, agent: 'shed' }) });
    expect(res.status, await res.text()).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  for (const a of agents) if (a.exitCode === null && a.signalCode === null) a.kill('SIGKILL');
  killAllServices();
  await ipp?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('labelmaker agent', () => {
  it('acts for its own agent only: a wrong scope is 403, another agent gets nothing', async () => {
    const wrongScope = await call(tokens.print, '/v1/labelmaker/agents/shed/printers');
    expect(wrongScope.status).toBe(403);
    expect(wrongScope.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const otherAgent = await call(tokens.garage, '/v1/labelmaker/agents/shed/printers');
    expect(otherAgent.status).toBe(403);
    expect(((await otherAgent.json()) as { type: string }).type).toBe('/problems/insufficient-scope');
    const claimOther = await call(tokens.garage, '/v1/labelmaker/agents/shed/claims', { method: 'POST', body: '{}' });
    expect(claimOther.status).toBe(403);
    const garage = await call(tokens.garage, '/v1/labelmaker/agents/garage/printers');
    expect(await garage.json()).toEqual({ printers: [] });
    const garageClaim = await call(tokens.garage, '/v1/labelmaker/agents/garage/claims', { method: 'POST', body: '{}' });
    expect(garageClaim.status).toBe(204);
    const shed = (await (await call(tokens.shed, '/v1/labelmaker/agents/shed/printers')).json()) as { printers: { name: string; deviceUri: string }[] };
    expect(shed.printers.map((p) => p.name)).toEqual(['shed-folder', 'shed-ipp']);
    expect(shed.printers[0]!.deviceUri).toBe(pathToFileURL(spool).href);
    // An agent token opens nothing else.
    expect((await call(tokens.shed, '/v1/labelmaker/printers')).status).toBe(403);
    const printer = (await (await call(tokens.print, '/v1/labelmaker/printers/shed-ipp')).json()) as Record<string, unknown>;
    expect(printer.agent).toBe('shed');
    expect(printer.deviceUri).toBeUndefined();
  });

  it('the service never delivers an agent printer\'s job; the agent does, and its status reading releases a held one', async () => {
    // As if the agent had found the folder printer offline: its jobs are held.
    const offline = { state: 'offline', reasons: ['offline'], message: 'shed-folder is not answering.', media: null, checkedAt: new Date().toISOString() };
    const put = await call(tokens.shed, '/v1/labelmaker/agents/shed/printers/shed-folder/status', { method: 'PUT', body: JSON.stringify(offline) });
    expect(put.status).toBe(204);
    const held = (await print('shed-folder'))!;
    const waiting = (await print('shed-ipp'))!;
    expect(await job(held)).toMatchObject({ state: 'queued', heldReason: 'shed-folder is not answering.' });
    await sleep(2_500); // the service's dispatcher and status poller (1 s) had their chances
    expect(await job(waiting)).toMatchObject({ state: 'queued', attempts: 0 });
    expect((await call(tokens.print, '/v1/labelmaker/printers/shed-folder').then((r) => r.json())) as Record<string, unknown>).toMatchObject({ status: { state: 'offline' } });

    const agent = await startAgent();
    try {
      // The agent reads the folder (a folder cannot tell: unknown) and reports it: the hold lifts, and it prints.
      for (const link of [held, waiting]) await waitFor(`${link} printed`, async () => ((await job(link)).state === 'printed' ? true : undefined), 30_000);
      const status = ((await (await call(tokens.print, '/v1/labelmaker/printers/shed-folder')).json()) as { status: { state: string; checkedAt: string } }).status;
      expect(status.state).toBe('unknown');
      // Asking the service to read it now answers the agent's last reading: the service cannot reach it.
      const refreshed = (await (await call(tokens.print, '/v1/labelmaker/printers/shed-folder/status', { method: 'POST' })).json()) as { status: { state: string; checkedAt: string } };
      expect(refreshed.status).toEqual(expect.objectContaining({ state: 'unknown' }));
      const ippStatus = ((await (await call(tokens.print, '/v1/labelmaker/printers/shed-ipp')).json()) as { status: { state: string } }).status;
      expect(['ready', 'printing']).toContain(ippStatus.state);
      const printed = await prints();
      for (const link of [held, waiting]) expect(printed.filter((id) => link.endsWith(id))).toHaveLength(1);
      expect(readdirSync(serviceSpool)).toEqual([]);
    } finally {
      await killHard(agent.child);
    }
  }, 90_000);

  it('an outcome is recorded under its lease only; the same report again is taken, a stale lease is a 409', async () => {
    const link = (await print('shed-ipp'))!;
    const claim = await call(tokens.shed, '/v1/labelmaker/agents/shed/claims', { method: 'POST', body: JSON.stringify({ printers: ['shed-ipp'], waitSeconds: 5, leaseSeconds: 30 }) });
    expect(claim.status).toBe(200);
    const claimed = (await claim.json()) as { id: string; lease: string; inDoubt: boolean; png: string; printer: string };
    expect(link.endsWith(claimed.id)).toBe(true);
    expect(claimed).toMatchObject({ printer: 'shed-ipp', inDoubt: false });
    expect(Buffer.from(claimed.png, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    const outcome = (lease: string, more: object = {}) =>
      call(tokens.shed, `/v1/labelmaker/agents/shed/jobs/${claimed.id}/outcome`, { method: 'POST', body: JSON.stringify({ lease, outcome: 'printed', ...more }) });
    const stale = await outcome('00000000-0000-4000-8000-000000000000');
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { type: string }).type).toBe('/problems/lease-lost');
    expect((await job(link)).state).toBe('printing');
    const first = await outcome(claimed.lease);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ state: 'printed', possibleDuplicate: false });
    const again = await outcome(claimed.lease); // its answer was lost: the agent sends it again
    expect(again.status).toBe(200);
    // Another outcome under the spent lease changes nothing.
    expect((await outcome(claimed.lease, { outcome: 'failed', error: 'jam' })).status).toBe(409);
    expect(await job(link)).toMatchObject({ state: 'printed', attempts: 1 });
    // Another agent cannot report on it.
    expect((await call(tokens.garage, `/v1/labelmaker/agents/garage/jobs/${claimed.id}/outcome`, { method: 'POST', body: JSON.stringify({ lease: claimed.lease, outcome: 'failed' }) })).status).toBe(404);
  });

  it(`kill -9 of the agent at random moments during delivery (${TRIALS} trials), then of the service: every accepted job printed, none twice unflagged`, async () => {
    const accepted = new Set<string>();
    const earlier = new Set(await prints()); // the test before printed these
    const burst = async (ms: number) => {
      const until = Date.now() + ms;
      let n = 0;
      while (Date.now() < until) {
        const link = await print(n++ % 2 === 0 ? 'shed-folder' : 'shed-ipp', n % 3 === 0 ? '000-001' : '000-042');
        if (link) accepted.add(link);
        await sleep(between(20, 120));
      }
    };
    let agent = await startAgent();
    for (let t = 0; t < TRIALS; t++) {
      const printing = burst(between(800, 2_000));
      await sleep(between(150, 1_500));
      await killHard(agent.child); // mid-delivery, or between two
      await printing;
      agent = await startAgent();
    }
    // The service killed while the agent delivers: it reports what it printed once the service is back.
    const printing = burst(1_500);
    await sleep(between(300, 1_000));
    await killHard(svc.child);
    await printing;
    await sleep(1_000);
    svc = await startService(env, { startMs: START_MS });
    await burst(500);

    const drainFrom = Date.now();
    // Drain: the agent prints everything still pending, including jobs a killed agent held (their lease runs out).
    const states = new Map<string, Record<string, unknown>>();
    await waitFor('every accepted job finished', async () => {
      for (const link of accepted) if (!['printed', 'failed'].includes(states.get(link)?.state as string)) states.set(link, await job(link));
      return [...states.values()].every((j) => j.state === 'printed' || j.state === 'failed') && states.size === accepted.size ? true : undefined;
    }, 120_000);
    const drainMs = Date.now() - drainFrom;
    await killHard(agent.child);
    const checks = agentLogs.flatMap((log) => log().split('\n')).filter((l) => l.includes('redelivery: asked the printer'));

    const printed = (await prints()).filter((id) => !earlier.has(id));
    const count = new Map<string, number>();
    for (const id of printed) count.set(id, (count.get(id) ?? 0) + 1);
    const idOf = (link: string) => link.split('/').pop()!;
    const lost = [...accepted].filter((l) => states.get(l)?.state !== 'printed' || !count.has(idOf(l)));
    const duplicates = [...accepted].filter((l) => (count.get(idOf(l)) ?? 0) > 1);
    const unflagged = duplicates.filter((l) => !states.get(l)?.possibleDuplicate);
    const figures = {
      trials: TRIALS,
      accepted: accepted.size,
      printed: printed.length,
      unanswered: [...count.keys()].filter((id) => ![...accepted].some((l) => l.endsWith(id))).length,
      duplicates: duplicates.length,
      flagged: [...states.values()].filter((j) => j.possibleDuplicate).length,
      unflaggedDuplicates: unflagged.length,
      lost: lost.length,
      retried: [...states.values()].filter((j) => Number(j.attempts) > 1).length,
      asked: checks.length,
      alreadyThere: checks.filter((l) => l.includes('"earlier":"delivered"')).length,
      drainMs,
    };
    console.info(`agent kill -9 trials: ${JSON.stringify(figures)}`);
    expect(accepted.size).toBeGreaterThan(TRIALS);
    expect(lost, 'accepted jobs not printed').toEqual([]);
    expect(unflagged, 'labels printed twice without a flag').toEqual([]);
    // Nothing printed that nobody asked for: a label not among the accepted is a request the
    // service's kill cut off after its job was stored (the answer lost, the job kept): printed
    // as a stored job is, once or flagged. The service's own printer printed none of them.
    for (const id of [...count.keys()].filter((id) => ![...accepted].some((l) => l.endsWith(id)))) {
      const stored = await job(`/v1/labelmaker/print-jobs/${id}`);
      expect(stored.state, `label ${id} printed: a job the service stored`).toBe('printed');
      if (count.get(id)! > 1) expect(stored.possibleDuplicate, `label ${id} printed twice`).toBe(true);
    }
    expect(readdirSync(serviceSpool)).toEqual([]);
    // No half-written label left in the agent's folder.
    expect((await readdir(spool)).filter((n) => !FINAL.test(n))).toEqual([]);
  }, 400_000);
});

it('reads its token from --token-file, never from the command line', async () => {
  const file = join(dir, 'agent-token');
  writeFileSync(file, `${tokens.shed}\n`, { mode: 0o600 });
  const refused = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'agent', '--service', svc.url, '--name', 'shed', '--token', tokens.shed], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  refused.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const code = await new Promise<number | null>((resolve) => refused.once('exit', resolve));
  expect(code).toBe(2);
  expect(err).toMatch(/never given on the command line/);
  expect(err).not.toContain(tokens.shed);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'agent', '--service', svc.url, '--name', 'shed', '--token-file', file, '--status-interval-s', '0'], { cwd: ROOT, env: { ...process.env, LABELMAKER_AGENT_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  agents.push(child);
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  await waitFor('the agent to list its printers', async () => (out.includes('"shed-folder"') ? true : undefined), 30_000);
  expect(out).not.toContain(tokens.shed);
  await killHard(child);
}, 60_000);
