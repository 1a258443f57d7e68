/**
 * Webhook delivery while serving labels (issue 32): the service (src/main.ts in its own
 * process, SQLite, demo data) under label load from autocannon, with and without webhook
 * traffic in the same run, and a receiver in a process of its own that verifies every
 * signature and answers 204.
 *
 *   1. labels alone: a repeated label and distinct labels, 16 connections, --seconds each;
 *   2. the same loads while events are appended at --rate per second (by another process's
 *      connection to the database, as an import writes) and delivered to 2 webhooks:
 *      label requests/s, its ratio to (1), and deliveries/s during the load;
 *   3. delivery alone: --backlog events appended at once, the time until all are delivered.
 *
 *   npm run bench:webhooks [-- --seconds 8 --rate 200 --backlog 2000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createToken } from '../src/commands.js';
import { demoRecords, openStore } from '../src/records/index.js';
import type { RecordInput, Store } from '../src/records/types.js';
import { freePort } from './lib/bench-process.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({ options: { seconds: { type: 'string', default: '8' }, rate: { type: 'string', default: '200' }, backlog: { type: 'string', default: '2000' } } });
const SECONDS = Number(opts.seconds);
const RATE = Number(opts.rate);
const BACKLOG = Number(opts.backlog);
/** Enough items that distinct labels never repeat in a run (each load continues where the last stopped). */
const ITEMS = 40_000;
let nextItem = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not yet */
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer`);
}

/** The receiver: verifies each signature (as docs/webhooks.md), counts deliveries and distinct event ids. */
const RECEIVER = `
const { createHmac, timingSafeEqual } = require('node:crypto');
const secrets = new Set(); const ids = new Set(); let total = 0, bad = 0;
require('node:http').createServer((req, res) => {
  const chunks = []; req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString();
    if (req.url === '/_secret') { secrets.add(raw); return res.writeHead(204).end(); }
    if (req.url === '/_count') return res.writeHead(200).end(JSON.stringify({ total, distinct: ids.size, bad }));
    const ts = req.headers['labelmaker-timestamp'], got = String(req.headers['labelmaker-signature']);
    const ok = [...secrets].some((s) => { const e = 'v1=' + createHmac('sha256', s).update(ts + '.' + raw).digest('hex'); return e.length === got.length && timingSafeEqual(Buffer.from(e), Buffer.from(got)); });
    total++; if (!ok) bad++; ids.add(req.url + ':' + req.headers['labelmaker-event-id']);
    res.writeHead(204).end();
  });
}).listen(Number(process.argv[1]), '127.0.0.1');
`;

async function load(url: string, token: string, distinct: boolean): Promise<number> {
  const result = await autocannon({
    url,
    connections: 16,
    duration: SECONDS,
    headers: { Authorization: `Bearer ${token}` },
    requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, path: distinct ? `/v1/labelmaker/item/bench-${String(nextItem++ % ITEMS).padStart(6, '0')}` : '/v1/labelmaker/assets/000-001' }) }],
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`label load: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const counts = async (receiver: string) => (await (await fetch(`${receiver}/_count`)).json()) as { total: number; distinct: number; bad: number };

function appendAtRate(store: Store, perSecond: number): { stop(): Promise<number> } {
  let running = true;
  let appended = 0;
  const loop = (async () => {
    const start = Date.now();
    while (running) {
      const due = Math.floor(((Date.now() - start) / 1000) * perSecond) - appended;
      if (due > 0) {
        await store.events.append(Array.from({ length: due }, (_, i) => ({ type: 'record.changed' as const, subject: { kind: 'item', id: `bench-${appended + i}` }, data: { record: { id: `bench-${appended + i}` } } })));
        appended += due;
      }
      await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return appended;
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lm-bench-webhooks-'));
  const db = `sqlite:${join(dir, 'labelmaker.db')}`;
  const children: ChildProcess[] = [];
  try {
    const seedStore = await openStore(db, { writes: 'inline' });
    const items: RecordInput[] = Array.from({ length: ITEMS }, (_, i) => ({ kind: 'item', id: `bench-${String(i).padStart(6, '0')}`, name: `Bench item ${i}`, description: '', parentId: null, assetId: 1000 + i }));
    await seedStore.records.upsertMany([...demoRecords(), ...items]);
    const token = (await createToken(seedStore, 'bench', ['labels:read', 'webhooks:admin'])).token;
    await seedStore.close();

    const receiverPort = await freePort();
    const receiver = spawn(process.execPath, ['-e', RECEIVER, String(receiverPort)], { stdio: 'inherit' });
    children.push(receiver);
    const receiverUrl = `http://127.0.0.1:${receiverPort}`;
    await waitReady(`${receiverUrl}/_count`, receiver);

    const port = await freePort();
    const out = openSync(join(dir, 'service.log'), 'a');
    const service = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db, PUBLIC_BASE_URL: 'https://inventory.example.test', RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'warn' },
      stdio: ['ignore', out, out],
    });
    children.push(service);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(`${url}/healthz`, service);
    const events = await openStore(db); // another connection to the file, as an import is

    for (const name of ['a', 'b']) {
      const res = await fetch(`${url}/v1/labelmaker/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${receiverUrl}/${name}`, eventTypes: ['record.changed'] }),
      });
      if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
      await fetch(`${receiverUrl}/_secret`, { method: 'POST', body: ((await res.json()) as { secret: string }).secret });
    }

    await load(url, token, false); // warm-up
    await load(url, token, true);
    const rows: string[][] = [['load', 'labels/s alone', 'labels/s with webhooks', 'ratio', 'deliveries/s during']];
    for (const distinct of [false, true]) {
      const alone = await load(url, token, distinct);
      const before = await counts(receiverUrl);
      const t0 = Date.now();
      const appender = appendAtRate(events, RATE);
      const withHooks = await load(url, token, distinct);
      const appended = await appender.stop();
      const during = (await counts(receiverUrl)).total - before.total;
      const secs = (Date.now() - t0) / 1000;
      rows.push([distinct ? 'distinct labels' : 'repeated label', alone.toFixed(0), withHooks.toFixed(0), (withHooks / alone).toFixed(2), `${(during / secs).toFixed(0)} (${appended} events × 2 webhooks offered)`]);
      // Let the backlog of this round drain before the next.
      const target = before.total + appended * 2;
      for (let i = 0; i < 600 && (await counts(receiverUrl)).total < target; i++) await sleep(100);
    }

    const start = await counts(receiverUrl);
    const t0 = Date.now();
    await events.events.append(Array.from({ length: BACKLOG }, (_, i) => ({ type: 'record.changed' as const, subject: { kind: 'item', id: `backlog-${i}` }, data: {} })));
    while ((await counts(receiverUrl)).total < start.total + BACKLOG * 2) {
      if (Date.now() - t0 > 300_000) throw new Error('the backlog did not drain in 5 minutes');
      await sleep(50);
    }
    const drainS = (Date.now() - t0) / 1000;
    const end = await counts(receiverUrl);
    await events.close();

    const width = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    console.log(`bench:webhooks — SQLite, 16 connections, ${SECONDS} s per load, events at ${RATE}/s to 2 webhooks (WEBHOOK_CONCURRENCY default)`);
    for (const r of rows) console.log(r.map((v, c) => v.padEnd(width[c]!)).join('  '));
    console.log(`delivery alone: ${BACKLOG} events × 2 webhooks = ${BACKLOG * 2} deliveries in ${drainS.toFixed(1)} s = ${((BACKLOG * 2) / drainS).toFixed(0)} deliveries/s`);
    console.log(`receiver: ${end.total} deliveries, ${end.bad} bad signatures, ${end.total - end.distinct} repeats`);
  } finally {
    for (const c of children) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
