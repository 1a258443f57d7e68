/**
 * The entry point as users run it: the demo start (records, a token, a curl line
 * whose label scans), store commands (import, tokens), and SIGTERM.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { exited, killAllServices, runCli, startService } from '../helpers/service.js';

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lm-cli-'));
  env = { DATABASE_URL: `sqlite:${join(dir, 'labelmaker.db')}`, PUBLIC_BASE_URL: 'https://inventory.example.test' };
});
afterEach(() => {
  killAllServices();
  rmSync(dir, { recursive: true, force: true });
});

describe('demo start', () => {
  it('seeds an empty database, prints a token and one curl per kind on the terminal, never in the log stream; each curl works as printed', async () => {
    const svc = await startService({ ...env, DEMO: 'true', PRINTER_URI: `file://${join(dir, 'spool')}` });
    await new Promise((r) => setTimeout(r, 300)); // the banner follows the listening line
    const banner = svc.stderr();
    const token = /\s(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})\s/.exec(banner)?.[1];
    expect(token).toBeDefined();
    expect(svc.stdout()).not.toContain(token!); // stdout is the structured log stream
    expect(svc.stdout()).not.toMatch(/lm_[a-z2-7]{8}_[A-Za-z0-9_-]{20}/);
    // The studio's address, served as a page (npm test builds the studio before the suite).
    const studio = /The label studio \(paste the token to sign in\): (http:\/\/localhost:\d+\/)\n/.exec(banner)?.[1];
    expect(studio).toBeDefined();
    const page = await fetch(studio!.replace('localhost', '127.0.0.1'));
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const curls = banner.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('curl '));
    // location, item, asset, a search, and print=true
    expect(curls.map((c) => /\/v1\/labelmaker\/([a-z]+)/.exec(c)?.[1])).toEqual(['location', 'item', 'assets', 'records', 'assets']);
    const work = mkdtempSync(join(dir, 'curl-'));
    for (const line of curls) {
      const { stdout } = await promisify(execFile)('bash', ['-c', line], { cwd: work });
      if (line.includes('/records')) expect(JSON.parse(stdout).records.length).toBeGreaterThan(0);
    }
    for (const [file, text] of [['location.png', 'https://inventory.example.test/location/'], ['item.png', 'https://inventory.example.test/item/'], ['asset.png', 'https://inventory.example.test/a/000-001']] as const) {
      const codes = await decodeBarcodes(readFileSync(join(work, file)));
      expect(codes.some((c) => c.text.startsWith(text)), file).toBe(true);
    }
  });

  it('on an empty database without demo data, says how to create a token and import records', async () => {
    const svc = await startService(env);
    await new Promise((r) => setTimeout(r, 300));
    expect(svc.output()).toContain('tokens create --name');
    expect(svc.output()).toContain('labelmaker import');
  });

  it('a port in use is one line naming PORT, not a stack trace', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const res = await runCli([], { ...env, PORT: String(port), HOST: '127.0.0.1' });
      expect(res.code).toBe(2);
      expect(res.stderr.trim()).toBe(`labelmaker: port ${port} on 127.0.0.1 is already in use: set PORT to another port (or 0 for any free port)`);
    } finally {
      blocker.close();
    }
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const svc = await startService(env);
    const done = exited(svc.child);
    svc.child.kill('SIGTERM');
    expect(await done).toEqual({ code: 0, signal: null });
    expect(svc.output()).toContain('shutting down');
  });
});

describe('store commands', () => {
  it('creates, lists and revokes tokens; the plaintext is shown once and works', async () => {
    const created = await runCli(['tokens', 'create', '--name', 'ci', '--scopes', 'labels:read,labels:print'], env);
    expect(created.code).toBe(0);
    const token = /(lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43})/.exec(created.stdout)?.[1];
    expect(token).toBeDefined();
    const id = token!.split('_')[1]!;
    const listed = await runCli(['tokens', 'list'], env);
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).toContain('labels:read,labels:print');
    expect(listed.stdout).not.toContain(token);
    expect((await runCli(['tokens', 'revoke', id], env)).code).toBe(0);
    expect((await runCli(['tokens', 'list'], env)).stdout).toMatch(new RegExp(`${id}\\s+revoked`));
    const again = await runCli(['tokens', 'revoke', id], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`no active token has the id '${id}'`);
  });

  it('creates an integration key for Homebox or Grocy as docs/integrations.md says, and refuses one mixed with API scopes', async () => {
    const created = await runCli(['tokens', 'create', '--name', 'homebox', '--scopes', 'integrations:render,integrations:print'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^created integration key [a-z2-7]{8} \(homebox; scopes: integrations:render, integrations:print\)/);
    expect(created.stdout).toMatch(/lm_[a-z2-7]{8}_[A-Za-z0-9_-]{43}/);
    const mixed = await runCli(['tokens', 'create', '--name', 'x', '--scopes', 'integrations:print,labels:read'], env);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('integration keys hold only integrations:render, integrations:print');
  });

  it('rejects unknown scopes', async () => {
    const bad = await runCli(['tokens', 'create', '--name', 'x', '--scopes', 'labels:admin'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("unknown scope 'labels:admin'");
  });

  it('imports CSV all-or-nothing, naming every bad row', async () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'kind,id,name,description,parent_id,asset_id\nlocation,garage,Garage,,,\nitem,drill,"Drill, cordless",,garage,000-001\nbin,x,Bin,,,\nitem,saw,,,garage,2\n');
    const failed = await runCli(['import', bad], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/row 4/);
    expect(failed.stderr).toMatch(/row 5/);
    const good = join(dir, 'good.csv');
    writeFileSync(good, 'kind,id,name,description,parent_id,asset_id\nlocation,garage,Garage,,,\nitem,drill,"Drill, cordless",,garage,000-001\n');
    const ok = await runCli(['import', good], env);
    expect(ok.stdout).toContain('imported 2 record(s)');

    // Nothing from the bad file landed: its valid rows were not imported either.
    const tokenOut = await runCli(['tokens', 'create', '--name', 't'], env);
    const token = /(lm_\S+)/.exec(tokenOut.stdout)![1]!;
    const svc = await startService(env);
    const res = await fetch(`${svc.url}/v1/labelmaker/assets/1`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const missing = await fetch(`${svc.url}/v1/labelmaker/location/x`, { headers: { Authorization: `Bearer ${token}` } });
    expect(missing.status).toBe(404);
  });

  it('imports JSON', async () => {
    const file = join(dir, 'records.json');
    writeFileSync(file, JSON.stringify([{ kind: 'location', id: 'office', name: 'Office' }, { kind: 'item', id: 'lamp', name: 'Lamp', parent_id: 'office', asset_id: '7' }]));
    const ok = await runCli(['import', file], env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('imported 2 record(s)');
  });
});
