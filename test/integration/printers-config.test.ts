/**
 * Printers from the configuration (PRINTERS_FILE, PRINTER_URI) as an operator meets them:
 * a YAML or JSON file read at start and applied to the fleet (created, updated, removed
 * when gone from the file unless jobs wait for them), a file that cannot be used stopping
 * the start with one clear line naming the entry and the field, and device URIs' passwords
 * never in the log. A real server over a real SQLite file, started again on the same
 * database as a restart would; and once as users run it, in its own process.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/api/server.js';
import { createToken } from '../../src/commands.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { openStore } from '../../src/records/index.js';
import type { Store } from '../../src/records/types.js';
import { startIppEvePrinter } from '../helpers/ippeveprinter.js';
import { FIXTURES } from '../helpers/server.js';
import { runCli } from '../helpers/service.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lm-printers-config-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  running: RunningServer;
  store: Store;
  admin: string;
  /** The log lines so far, as JSON objects. */
  log(): { level: number; msg: string; [k: string]: unknown }[];
}

/** Starts the server on this test's database (the same one on every start, as a restart). */
async function start(env: Record<string, string>): Promise<Started> {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${join(dir, 'labelmaker.db')}`, RENDER_THREADS: '0', PUBLIC_BASE_URL: 'https://inventory.example.test', ...env });
  const store = await openStore(config.databaseUrl);
  await store.records.upsertMany(FIXTURES);
  const admin = (await createToken(store, `admin-${randomUUID()}`, ['labels:read', 'labels:print', 'printers:admin'])).token;
  try {
    const running = await startServer({ config, store, logger });
    return { running, store, admin, log: () => lines.map((l) => JSON.parse(l)) };
  } catch (err) {
    await store.close();
    throw Object.assign(err as Error, { log: lines.join('') });
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function printers(s: Started): Promise<Record<string, any>[]> {
  const res = await fetch(`${s.running.url}/v1/labelmaker/printers`, { headers: { Authorization: `Bearer ${s.admin}` } });
  expect(res.status).toBe(200);
  return (await res.json()).printers;
}

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const SPOOL = 'file:///tmp/lm-printers-config-spool';

describe('PRINTERS_FILE', () => {
  it('creates the file\'s printers with source config; PRINTER_URI is `default`, the file\'s default wins; passwords never logged', async () => {
    const yaml = file(
      'printers.yaml',
      `# the fleet, kept in git
printers:
  - name: workbench
    title: Workbench QL-820
    deviceUri: socket://192.0.2.20:9100?lang=brother-ql&model=QL-820NWB
    model: QL-820NWB
    locationId: shelf-3
    stocks: [brother-ql-62x29, brother-ql-62]
    red: true
  - name: shipping
    title: Shipping Zebra
    deviceUri: ipp://labels:s3cret-pw@192.0.2.30:631/printers/zebra
    stocks: [zebra-4x6-203dpi]
    default: true
`,
    );
    const s = await start({ PRINTER_URI: SPOOL, PRINTERS_FILE: yaml });
    try {
      const seen = await printers(s);
      expect(seen.map((p) => [p.name, p.source, p.default])).toEqual([['default', 'config', false], ['shipping', 'config', true], ['workbench', 'config', false]]);
      expect(seen.find((p) => p.name === 'workbench')).toMatchObject({ title: 'Workbench QL-820', model: 'QL-820NWB', locationId: 'shelf-3', stocks: ['brother-ql-62x29', 'brother-ql-62'], red: true });
      expect(seen.find((p) => p.name === 'shipping')!.deviceUri).toBe('ipp://labels:s3cret-pw@192.0.2.30:631/printers/zebra');
      expect(seen.find((p) => p.name === 'default')!.deviceUri).toBe(SPOOL);
      const created = s.log().filter((l) => /from the configuration$/.test(l.msg));
      expect(created.map((l) => l.printer).sort()).toEqual(['default', 'shipping', 'workbench']);
      expect(created.find((l) => l.printer === 'shipping')!.deviceUri).toBe('ipp://***@192.0.2.30:631/printers/zebra');
      expect(JSON.stringify(s.log())).not.toContain('s3cret-pw');
      // Read-only through the API.
      const put = await fetch(`${s.running.url}/v1/labelmaker/printers/workbench`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${s.admin}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'Mine now', deviceUri: SPOOL }),
      });
      expect([put.status, ((await put.json()) as { type: string }).type]).toEqual([409, '/problems/printer-from-config']);
    } finally {
      await s.running.close(1000);
    }
  });

  it('on the next start: an unchanged printer keeps its ETag, a changed one is updated, one gone from the file is removed unless jobs wait for it', async () => {
    const v1 = file('v1.json', JSON.stringify({ printers: [
      { name: 'keep', title: 'Kept', deviceUri: SPOOL },
      { name: 'change', title: 'Before', deviceUri: SPOOL },
      { name: 'drop', title: 'Dropped', deviceUri: SPOOL },
      { name: 'busy', title: 'Busy', deviceUri: SPOOL },
    ] }));
    const first = await start({ PRINTERS_FILE: v1 });
    const before = new Map((await printers(first)).map((p) => [p.name, p]));
    const etag = async (s: Started, name: string) => (await fetch(`${s.running.url}/v1/labelmaker/printers/${name}`, { headers: { Authorization: `Bearer ${s.admin}` } })).headers.get('etag');
    const etags = { keep: await etag(first, 'keep'), change: await etag(first, 'change') };
    // A job waits for `busy` (held: the dispatcher leaves it alone).
    await first.store.printJobs.submit({ id: randomUUID(), printer: 'busy', heldReason: 'Busy is paused.', template: 'brother-ql-62x29', title: 'waiting', fields: {}, tokenId: 't', idempotencyKey: null, maxAttempts: 3, png: Buffer.from('x') }, '2000-01-01T00:00:00.000Z');
    // Without a PRINTER_URI the oldest configured printer is the default.
    expect(before.get('keep')!.default).toBe(true);
    await first.running.close(1000);

    const v2 = file('v2.json', JSON.stringify({ printers: [{ name: 'keep', title: 'Kept', deviceUri: SPOOL }, { name: 'change', title: 'After', deviceUri: SPOOL, red: true }] }));
    const second = await start({ PRINTERS_FILE: v2 });
    try {
      const after = await printers(second);
      expect(after.map((p) => p.name)).toEqual(['busy', 'change', 'keep']);
      expect(await etag(second, 'keep')).toBe(etags.keep);
      expect(await etag(second, 'change')).not.toBe(etags.change);
      expect(after.find((p) => p.name === 'change')).toMatchObject({ title: 'After', red: true, createdAt: before.get('change')!.createdAt });
      const kept = second.log().find((l) => l.printer === 'busy');
      expect(kept).toMatchObject({ level: 40, jobs: 1, msg: 'printer busy is no longer configured but jobs still wait for it: kept until they are done (the next start removes it)' });
      expect(second.log().some((l) => l.msg === 'printer drop removed: no longer configured')).toBe(true);
      expect(second.log().some((l) => l.printer === 'keep')).toBe(false); // unchanged: not written, not logged
    } finally {
      await second.running.close(1000);
    }
  });

  it('takes the example file of docs/printing.md as it is', async () => {
    const example = fileURLToPath(new URL('../../docs/printers.example.yaml', import.meta.url));
    const s = await start({ PRINTERS_FILE: example });
    try {
      const seen = await printers(s);
      expect(seen.map((p) => [p.name, p.default])).toEqual([['office', false], ['shipping', true], ['workbench', false]]);
      expect(JSON.stringify(s.log())).not.toContain('change-me');
    } finally {
      await s.running.close(1000);
    }
  });

  it('warns about a location not (yet) among the records and keeps the printer', async () => {
    const s = await start({ PRINTERS_FILE: file('p.yaml', 'printers:\n  - name: attic\n    title: Attic\n    deviceUri: file:///tmp/lm-attic\n    locationId: attic\n') });
    try {
      expect((await printers(s))[0]).toMatchObject({ name: 'attic', locationId: 'attic' });
      expect(s.log().find((l) => l.printer === 'attic' && l.level === 40)?.msg).toMatch(/printers\[0\] \(attic\): no location has the id attic \(yet\): import it, or correct locationId$/);
    } finally {
      await s.running.close(1000);
    }
  });

  it.each([
    ['a file that is not there', () => join(dir, 'missing.yaml'), /^PRINTERS_FILE \S+missing\.yaml: cannot be read \(ENOENT\)$/],
    ['not YAML', () => file('bad.yaml', 'printers: [\n  - name: x\n'), /^PRINTERS_FILE \S+bad\.yaml: not valid YAML or JSON: /],
    ['no printers list', () => file('list.yaml', '- name: x\n'), /: expected an object with one member, printers: a list of printers/],
    ['an unknown top-level member', () => file('top.yaml', 'printers: []\nprinter: []\n'), /; unknown member printer$/],
    ['a name that is not a slug', () => file('name.yaml', 'printers:\n  - name: Front Desk\n    title: x\n    deviceUri: file:///tmp/x\n'), /printers\[0\]: name must be lower-case letters, digits and -, .*; got "Front Desk"$/],
    ['a member putPrinter does not take', () => file('member.yaml', 'printers:\n  - name: a\n    title: A\n    deviceUri: file:///tmp/x\n    colour: red\n'), /printers\[0\] \(a\): \/: must NOT have additional properties \(colour\)$/],
    ['no device URI', () => file('uri.yaml', 'printers:\n  - name: a\n    title: A\n'), /printers\[0\] \(a\): \/: must have required property 'deviceUri'$/],
    ['a device URI no driver takes', () => file('driver.yaml', 'printers:\n  - name: a\n    title: A\n    deviceUri: socket://192.0.2.1:9100\n'), /printers\[0\] \(a\): \/deviceUri: invalid printer URI "socket:\/\/192\.0\.2\.1:9100": add \?lang=zpl or \?lang=brother-ql \(got none\)$/],
    ['a stock alias', () => file('stock.yaml', 'printers:\n  - name: ok\n    title: OK\n    deviceUri: file:///tmp/x\n  - name: a\n    title: A\n    deviceUri: file:///tmp/x\n    stocks: [brother-dk-11209]\n'), /printers\[1\] \(a\): \/stocks\/0: brother-dk-11209 is not a canonical stock name \(it is an alias of brother-ql-62x29\); use brother-ql-62x29\.$/],
    ['two printers with one name', () => file('twice.yaml', 'printers:\n  - { name: a, title: A, deviceUri: "file:///tmp/x" }\n  - { name: a, title: B, deviceUri: "file:///tmp/y" }\n'), /: two printers are named a$/],
    ['two defaults', () => file('defaults.yaml', 'printers:\n  - { name: a, title: A, deviceUri: "file:///tmp/x", default: true }\n  - { name: b, title: B, deviceUri: "file:///tmp/y", default: true }\n'), /: only one printer can be the default \(a, b say default: true\)$/],
    ['`default` beside PRINTER_URI', () => file('default.yaml', 'printers:\n  - { name: default, title: A, deviceUri: "file:///tmp/x" }\n'), /: the printer default is PRINTER_URI's; name this one otherwise, or leave PRINTER_URI unset$/],
  ])('stops the start on %s, naming what is wrong', async (_what, path, message) => {
    const err = await start({ PRINTER_URI: SPOOL, PRINTERS_FILE: path() }).then(
      async (s) => {
        await s.running.close(1000);
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(message);
  });

  it('tokens create gives printers:admin only when --scopes names it', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'tokens.db')}` };
    const plain = await runCli(['tokens', 'create', '--name', 'ci', '--scopes', 'labels:read,labels:print'], env);
    expect(plain.stdout).toMatch(/^created token [a-z2-7]{8} \(ci; scopes: labels:read, labels:print\)/);
    const admin = await runCli(['tokens', 'create', '--name', 'ops', '--scopes', 'labels:read,printers:admin'], env);
    expect(admin.stdout).toMatch(/^created token [a-z2-7]{8} \(ops; scopes: labels:read, printers:admin\)/);
  });

  it('as users run it: an invalid file is one line on stderr and exit code 2, before anything listens', async () => {
    const bad = file('printers.yaml', 'printers:\n  - name: shipping\n    title: Shipping\n    deviceUri: ipp://labels:s3cret-pw@192.0.2.30/printers/zebra\n    stocks: [zebra-4x6]\n');
    const res = await runCli([], { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, PORT: '0', PRINTERS_FILE: bad, PUBLIC_BASE_URL: 'https://inventory.example.test' });
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(new RegExp(`^labelmaker: PRINTERS_FILE ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: printers\\[0\\] \\(shipping\\): /stocks/0: no label stock is named zebra-4x6; the stocks are brother-ql-62x29, .*zebra-4x6-203dpi`));
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stdout + res.stderr).not.toContain('s3cret-pw');
    expect(res.stdout).not.toContain('labelmaker listening');
  });
});

describe('printing without PRINTER_URI', () => {
  const ITEM = '/v1/labelmaker/item/9b1e4c2d-3f5a-4e6b-8c7d-1a2b3c4d5e6f';
  const call = (s: Started, path: string, init: RequestInit = {}) =>
    fetch(s.running.url + path, { ...init, headers: { Authorization: `Bearer ${s.admin}`, ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...init.headers } });
  /** The job's state once it settles (printed or failed), or its last state after 20 s. */
  const settled = async (s: Started, id: string): Promise<{ state: string; printer: string }> => {
    let job = { state: 'queued', printer: '' };
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      job = await (await call(s, `/v1/labelmaker/print-jobs/${id}`)).json();
      if (job.state === 'printed' || job.state === 'failed') break;
    }
    return job;
  };

  it("prints to PRINTERS_FILE's printers alone: a folder and an IPP printer", async () => {
    const ipp = await startIppEvePrinter({ name: 'Bench' });
    const folder = join(dir, 'spool');
    const yaml = file('p.yaml', `printers:\n  - { name: shelf, title: Shelf folder, deviceUri: "${pathToFileURL(folder).href}", default: true }\n  - { name: bench, title: Bench IPP, deviceUri: "${ipp.uri}" }\n`);
    const s = await start({ PRINTERS_FILE: yaml, PRINTER_STATUS_INTERVAL_S: '0' });
    try {
      const byDefault = await call(s, `${ITEM}?print=true`);
      expect(byDefault.status).toBe(200);
      const named = await call(s, `${ITEM}?print=true&printer=bench`);
      expect(named.status).toBe(200);
      const jobs = [byDefault.headers.get('print-job')!, named.headers.get('print-job')!].map((l) => l.split('/').pop()!);
      expect(await settled(s, jobs[0]!)).toMatchObject({ state: 'printed', printer: 'shelf' });
      expect(await settled(s, jobs[1]!)).toMatchObject({ state: 'printed', printer: 'bench' });
      expect(readdirSync(folder).filter((f) => f.endsWith('.png'))).toHaveLength(1);
      expect(await ipp.documents()).toHaveLength(1);
    } finally {
      await s.running.close(1000);
      await ipp.stop();
    }
  });

  it('no printer at all: 501 printing-not-configured; a printer added through the API prints without a restart', async () => {
    const s = await start({ PRINTER_STATUS_INTERVAL_S: '0' });
    try {
      const before = await call(s, `${ITEM}?print=true`);
      expect(before.status).toBe(501);
      expect(before.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await before.json()).type).toBe('/problems/printing-not-configured');
      const folder = join(dir, 'added');
      const put = await call(s, '/v1/labelmaker/printers/added', { method: 'PUT', headers: { 'If-None-Match': '*' }, body: JSON.stringify({ title: 'Added', deviceUri: pathToFileURL(folder).href }) });
      expect(put.status).toBe(201);
      const after = await call(s, `${ITEM}?print=true`);
      expect(after.status).toBe(200);
      const id = after.headers.get('print-job')!.split('/').pop()!;
      expect(await settled(s, id)).toMatchObject({ state: 'printed', printer: 'added' });
      expect(readdirSync(folder).filter((f) => f.endsWith('.png'))).toHaveLength(1);
    } finally {
      await s.running.close(1000);
    }
  });
});
