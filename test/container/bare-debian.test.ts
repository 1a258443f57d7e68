/**
 * The README's two commands on a bare Debian 12, from the user's side: ci/bare-debian.sh
 * makes a minbase root (scripts/container-base, mmdebstrap), clones this repository's HEAD
 * into it, runs `scripts/run` (no node, npm, git or curl there: it installs them) until its
 * first label answers, then `scripts/setup --test`. This test runs it, checks that the first
 * label is a PNG whose code scans, and prints the clone-to-first-label figure and its
 * breakdown (docs/containers.md). Fails (never skips) without podman: scripts/setup --test
 * installs it. It runs alone after every other file (the `last` lane, test/vitest.config.ts):
 * under 2 minutes on an idle machine, past 15 beside the suite. Its container and clone have
 * names of their own (this process's id); the script removes both on every exit, and so does
 * afterAll if the script was stopped. It stops the script a minute before its limit, 15 minutes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeBarcodes } from '../helpers/barcodes.js';
import { readPngHeader } from '../helpers/png.js';

const root = new URL('../..', import.meta.url).pathname;
const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? `${root}ci/containers.conf` };
const name = `lm-bare-${process.pid}`;
const out = mkdtempSync(join(tmpdir(), `${name}-out-`));
// 15 minutes; BARE_DEBIAN_LIMIT_S sets another (a machine under other load).
const LIMIT_MS = Number(process.env.BARE_DEBIAN_LIMIT_S ?? 900) * 1000;

afterAll(() => {
  spawnSync('podman', ['rm', '-f', '-t', '0', name], { env, stdio: 'ignore' });
  for (const f of readdirSync(tmpdir())) if (f.startsWith(`${name}.`)) rmSync(join(tmpdir(), f), { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

function runScript(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${root}ci/bare-debian.sh`, { cwd: root, env: { ...env, BARE_NAME: name, BARE_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    // A hard stop: SIGTERM lets the script's trap remove the container and the clone.
    const timer = setTimeout(() => child.kill('SIGTERM'), LIMIT_MS - 60_000);
    child.on('error', (err) => reject(new Error(`ci/bare-debian.sh: ${err.message} (scripts/setup --test installs podman)`)));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the README on a bare Debian 12', () => {
  it('scripts/run from a fresh clone serves a label that scans, then scripts/setup --test succeeds', { timeout: LIMIT_MS }, async () => {
    const t = Date.now();
    const { code, output } = await runScript();
    console.log(`bare-debian (${((Date.now() - t) / 1000).toFixed(0)} s in all):\n${output.split('\n').filter((l) => /^\s*[\d.]+ |^bare-debian|^container-base/.test(l)).join('\n')}`);
    expect(code, output.slice(-6000)).toBe(0);
    expect(output).toMatch(/bare-debian: clone to first label: [\d.]+ s/);
    expect(output).toMatch(/bare-debian: scripts\/setup --test after that: \d+ s/);
    expect(existsSync(join(out, 'label.png')), output.slice(-3000)).toBe(true);
    const png = readFileSync(join(out, 'label.png'));
    expect(readPngHeader(png).width).toBeGreaterThan(100);
    const codes = await decodeBarcodes(png);
    expect(codes.map((c) => c.text).join(' ')).toMatch(/000-001|000001/);
    // The clone and the container are gone.
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith(`${name}.`))).toEqual([]);
    expect(spawnSync('podman', ['container', 'exists', name], { env }).status).toBe(1);
  });
});
